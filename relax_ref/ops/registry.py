"""The operator registry: every Relax op defined once (DESIGN.md decision 7).

An ``OpDef`` holds the op's signature (its Relax operands and its attributes, in the
order of TVM's Python function, so that TVMScript calls bind the way TVM binds them),
its struct-info deduction rule, and its NumPy semantics. Op families register their ops
from their own modules (``ops/elementwise.py``, ``ops/manipulate.py``, ...);
``lookup(name)`` finds one by its registry name (``relax.add``).

Canonical calls (spec/ops/common.md, SI-call-1..4): the parser keeps a call as written;
``canonicalize_call`` binds its positional and keyword arguments to the OpDef's
parameters as TVM's Python function binds them, so that operands become ``Call.args``
(Relax expressions) and attributes become ``Call.attrs`` with every default filled in and
every value converted to its canonical Python form. What TVM's Python function does
beyond binding is declared on the OpDef, never special-cased by op name here: ``bind``
adjusts the bound arguments (defaults that depend on another argument), ``when_given``
names the op a call becomes when it gives an optional operand.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.call_kinds import CallKind, call_kind
from relax_ref.ir.dtype import VOID, DataType, DTypeError, parse_dtype
from relax_ref.ir.span import Span
from relax_ref.errors import StructInfoError

_REQUIRED = object()


@dataclass(frozen=True)
class Operand:
    """A Relax operand of an op. ``kind`` says what it must hold: "tensor", "prim",
    "shape", "tuple", "any". ``variadic`` takes the remaining positional arguments as
    one tuple (e.g. ``R.concat`` takes a tuple of tensors as one operand anyway).
    ``default`` (a Python scalar) makes the operand optional; it becomes a PrimValue
    (a string a StringImm). A "dtype" operand written as a string is an R.dtype."""

    name: str
    kind: str = "tensor"
    default: Any = _REQUIRED
    optional: bool = False  # may be absent from Call.args altogether (e.g. bias)

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED and not self.optional


@dataclass(frozen=True)
class Attr:
    """An attribute. ``convert`` turns the written value (int, float, bool, str, None,
    tuple, DataType, PrimExpr) into its canonical form or raises ValueError with a
    message for the user."""

    name: str
    default: Any = _REQUIRED
    convert: Callable[[Any], Any] | None = None

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


@dataclass
class DeduceContext:
    """What a deduction rule sees: the canonical call, its operands' struct info, the
    attributes, and the analyzer for symbolic facts."""

    call: rx.Call
    arg_sinfo: list[si.StructInfo]
    analyzer: Any

    @property
    def attrs(self) -> rx.Attrs:
        return self.call.attrs

    @property
    def args(self) -> tuple[rx.Expr, ...]:
        return self.call.args

    def attr(self, name: str) -> Any:
        return self.call.attrs.get(name)

    def error(self, message: str, rule: str | None = None) -> StructInfoError:
        op = self.call.op.name if isinstance(self.call.op, rx.Op) else "call"
        return StructInfoError(f"{op.replace('relax.', 'R.')}: {message}", self.call.span,
                               rule=rule)


@dataclass(frozen=True)
class OpDef:
    """One operator. ``deduce(ctx) -> StructInfo`` is its struct-info rule;
    ``compute(ctx, *values) -> value`` its NumPy semantics (None when the interpreter
    gives the op special treatment, like call_tir). ``pure`` is False for ops with
    effects (printing, allocation with identity, packed calls)."""

    name: str
    operands: tuple[Operand, ...]
    attrs: tuple[Attr, ...] = ()
    deduce: Callable[[DeduceContext], si.StructInfo] | None = None
    compute: Callable[..., Any] | None = None
    pure: bool = True
    family: str = ""
    doc: str = ""
    spec_rule: str = ""  # the rule ID in spec/ops/<family>.md
    raw_call: bool = False  # the parser's form is already canonical (structural calls)
    # An allocation (SI-struct-alloc-2): pure, but each call's result is a fresh value
    # with its own identity, so passes never merge, fold or hoist two equal calls.
    allocator: bool = False
    extra: dict = field(default_factory=dict)
    # SI-call-3: adjusts the arguments as bound from the call (by parameter name; absent
    # ones missing, an operand written None already removed) before defaults are filled.
    # It returns the adjusted mapping. For defaults TVM's Python function computes from
    # another argument: ``R.arange(n)`` is ``arange(0, n)``, ``R.eye(n)`` is
    # ``eye(n, n)``, an ``out_layout`` of None is the data layout.
    bind: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # SI-call-4: ``(operand, op name)`` pairs: a call that gives the optional ``operand``
    # is a call of that op (``R.nn.attention`` with a bias is
    # ``relax.nn.attention_bias``, as TVM's Python function builds it).
    when_given: tuple[tuple[str, str], ...] = ()
    # SI-call-5: after deduction, the canonical call may be rewritten from its deduced
    # struct info (``finalize(call, sinfo) -> call``): a literal reshape target's ``-1``
    # becomes the inferred dimension, so no ``-1`` reaches run time.
    finalize: Callable[[rx.Call, si.StructInfo], rx.Call] | None = None
    # The element types the op's semantics are defined on: "numeric" (integers and
    # floats), "float", "int" or "bool"; "" where not declared. Deduction rejects other
    # types only where TVM's does (SI-ew-unary-2); the fuzzer draws its elementwise calls
    # from these facts, and a test runs each op on each declared type.
    dtypes: str = ""
    # False when some integer operands fail a run-time check (a zero divisor,
    # EXEC-ew-div-1; a negative integer exponent): the fuzzer calls it on floats only.
    int_total: bool = True
    # DESIGN.md decision 11: ``legalize(ctx: te.LegalizeContext) -> rx.Expr | None``
    # lowers a call to a tensor program (``ctx.call_te``) or to other ops; None where
    # the op stays as it is through LegalizeOps (spec/passes.md PASS-legalize-*).
    legalize: Callable[[Any], Any] | None = None
    # The legalization needs no known result shape (a packed call, as TVM's FCallPacked
    # ops lower; or a shape computed at run time), so LegalizeOps applies it to calls
    # whose result shape is unknown (PASS-legalize-2, -7).
    legalize_any_shape: bool = False

    @property
    def call_kind(self) -> CallKind:
        """How calls of this op are formed (DPS, packed, a format operand): a fact the
        parser reads too, so it is kept in ir/call_kinds.py, below both."""
        return call_kind(self.name)

    @property
    def short_name(self) -> str:
        return "R." + self.name[len("relax."):]


_REGISTRY: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name} registered twice")
    _REGISTRY[op.name] = op
    return op


def lookup(name: str) -> OpDef | None:
    _load_families()
    return _REGISTRY.get(name)


def all_ops() -> dict[str, OpDef]:
    _load_families()
    return dict(_REGISTRY)


_LOADED = False


def _load_families() -> None:
    """Import every op family module once so their ops register themselves."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    import pkgutil

    import relax_ref.ops as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name not in ("registry", "common"):
            importlib.import_module(f"relax_ref.ops.{info.name}")


# -- canonical calls ---------------------------------------------------------------------

def canonicalize_call(call: rx.Call) -> rx.Call:
    """Bind a call of a registered op as TVM's Python function would bind it
    (SI-call-1..4). Unknown ops are returned unchanged (later stages report them)."""
    if not isinstance(call.op, rx.Op):
        return call
    op = lookup(call.op.name)
    if op is None or op.raw_call:
        return call
    bound = _bind_arguments(call, op)
    if op.bind is not None:
        bound = op.bind(dict(bound))
    for operand, target in op.when_given:
        if operand in bound:
            op = lookup(target)
            unknown = [k for k in bound if k not in _param_names(op)]
            if unknown:
                raise _call_error(call, f"with {operand!r} is {op.short_name}, which has no "
                                        f"parameter {unknown[0]!r}")
            break
    args: list[rx.Expr] = []
    last_given = max((i for i, p in enumerate(op.operands) if p.name in bound), default=-1)
    for i, p in enumerate(op.operands):
        if p.name in bound:
            args.append(_as_operand(bound[p.name], call, p))
        elif p.optional:
            if i < last_given:
                # SI-call-5: a hole before a given operand is TVM's void, the empty tuple
                # (``R.memory.view(x, dtype="int32")`` leaves the shape out).
                args.append(rx.Tuple((), span=call.span))
            continue
        elif p.default is not _REQUIRED:
            args.append(_as_operand(p.default, call, p))
        else:
            raise _call_error(call, f"needs the operand {p.name!r}")
    attrs: list[tuple[str, Any]] = []
    for a in op.attrs:
        if a.name in bound:
            value = _attr_python_value(bound[a.name])
        elif a.default is not _REQUIRED:
            value = a.default
        else:
            raise _call_error(call, f"needs the attribute {a.name!r}")
        if a.convert is not None:
            try:
                value = a.convert(value)
            except (ValueError, TypeError) as err:
                raise _call_error(call, f"attribute {a.name}: {err}") from None
        attrs.append((a.name, value))
    callee = call.op if op.name == call.op.name else rx.Op(op.name, span=call.op.span)
    return rx.Call(callee, tuple(args), rx.Attrs(tuple(attrs)), call.sinfo_args,
                   call.struct_info, span=call.span)


def _param_names(op: OpDef) -> list[str]:
    return [p.name for p in op.operands] + [a.name for a in op.attrs]


def _bind_arguments(call: rx.Call, op: OpDef) -> dict[str, Any]:
    """SI-call-1: positional arguments bind to the parameters in order, keywords by
    name; too many, unknown or repeated arguments are errors. SI-call-2: an operand
    written as ``None`` is absent (its default applies, or the optional operand is
    left out), as in TVM's Python functions."""
    names = _param_names(op)
    bound: dict[str, Any] = {}
    positional = list(call.args)
    if len(positional) > len(names):
        raise _call_error(call, f"takes at most {len(names)} arguments, got {len(positional)}")
    for name, value in zip(names, positional):
        bound[name] = value
    for key, value in call.attrs.items:
        if key not in names:
            raise _call_error(call, f"has no parameter {key!r} (parameters: {', '.join(names)})")
        if key in bound:
            raise _call_error(call, f"got {key!r} twice")
        bound[key] = value
    for p in op.operands:
        if p.name in bound and bound[p.name] is None:
            del bound[p.name]
    return bound


def _call_error(call: rx.Call, message: str) -> StructInfoError:
    name = call.op.name.replace("relax.", "R.") if isinstance(call.op, rx.Op) else "call"
    return StructInfoError(f"{name} {message}", call.span, rule="SI-call-1")


def _as_operand(value: Any, call: rx.Call, p: Operand) -> rx.Expr:
    """An operand written as a literal becomes the Relax leaf the TVM function makes."""
    if isinstance(value, rx.Tuple) and p.kind == "shape" and (value.fields or not p.optional) \
            and all(isinstance(f, rx.PrimValue) and f.value.dtype.is_integer
                    for f in value.fields):
        # A shape written as a tuple of integers, as TVM's Python API accepts. (An optional
        # operand written as the empty tuple is TVM's void: left out, SI-builtin-view-1.)
        return rx.ShapeExpr(tuple(_as_int64(f.value) for f in value.fields), span=value.span)
    if p.kind == "dtype" and isinstance(value, (str, rx.StringImm, DataType)):
        # TVM's Python functions read a dtype written as a string as R.dtype(...).
        text = value.value if isinstance(value, rx.StringImm) else value
        try:
            dtype = text if isinstance(text, DataType) else parse_dtype(text)
        except DTypeError as err:
            raise _call_error(call, f"operand {p.name!r}: {err}") from None
        return rx.DataTypeImm(dtype, span=getattr(value, "span", None))
    if isinstance(value, rx.Expr):
        return value
    if isinstance(value, bool):
        return rx.PrimValue(P.IntImm(int(value), parse_dtype("bool")))
    if isinstance(value, int):
        return rx.PrimValue(P.IntImm(value, parse_dtype("int64")))
    if isinstance(value, float):
        return rx.PrimValue(P.FloatImm(value, parse_dtype("float64")))
    if isinstance(value, str):
        return rx.StringImm(value)
    if isinstance(value, DataType):
        return rx.DataTypeImm(value)
    if isinstance(value, P.PrimExpr):
        return rx.PrimValue(value)
    if isinstance(value, tuple):
        if p.kind == "shape" and all(isinstance(v, (int, P.PrimExpr)) for v in value):
            return rx.ShapeExpr(tuple(P.IntImm(v) if isinstance(v, int) else v for v in value))
        return rx.Tuple(tuple(_as_operand(v, call, p) for v in value))
    raise _call_error(call, f"operand {p.name!r} cannot be {value!r}")


def _as_int64(e: P.PrimExpr) -> P.PrimExpr:
    if isinstance(e, P.IntImm):
        return P.IntImm(e.value, parse_dtype("int64"))
    return e if e.dtype == parse_dtype("int64") else P.Cast(parse_dtype("int64"), e)


def _attr_python_value(value: Any) -> Any:
    """An attribute written as a Relax leaf (``R.str("x")``, a PrimValue, a ShapeExpr)
    is read as the Python value it holds."""
    if isinstance(value, rx.StringImm):
        return value.value
    if isinstance(value, rx.DataTypeImm):
        return value.value
    if isinstance(value, rx.PrimValue):
        v = value.value
        if isinstance(v, (P.IntImm,)):
            return bool(v.value) if v.dtype.is_bool else v.value
        if isinstance(v, P.FloatImm):
            return v.value
        return v
    if isinstance(value, rx.ShapeExpr):
        return tuple(d.value if isinstance(d, P.IntImm) else d for d in value.values)
    if isinstance(value, rx.Tuple):
        return tuple(_attr_python_value(f) for f in value.fields)
    return value


# -- attribute converters shared by the families --------------------------------------------

def to_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, found {value!r}")
    return value


def to_opt_int(value: Any) -> int | None:
    return None if value is None else to_int(value)


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"expected True or False, found {value!r}")


def to_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, found {value!r}")
    return float(value)


def to_int_tuple(value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if not isinstance(value, (tuple, list)):
        raise ValueError(f"expected a tuple of integers, found {value!r}")
    return tuple(to_int(v) for v in value)


def to_opt_int_tuple(value: Any) -> tuple[int, ...] | None:
    return None if value is None else to_int_tuple(value)


def to_dtype(value: Any) -> DataType:
    """A dtype attribute; None and "" and "void" mean unspecified (VOID)."""
    if value is None:
        return VOID
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        try:
            return parse_dtype(value)
        except DTypeError as err:
            raise ValueError(str(err)) from None
    raise ValueError(f"expected a dtype, found {value!r}")


def to_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, found {value!r}")
    return value


def to_opt_str(value: Any) -> str | None:
    return None if value is None else to_str(value)


def one_of(*choices: str) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, found {value!r}")
        return value
    return convert


__all__ = ["Operand", "Attr", "OpDef", "DeduceContext", "register", "lookup", "all_ops",
           "canonicalize_call", "to_int", "to_opt_int", "to_bool", "to_float", "to_int_tuple",
           "to_opt_int_tuple", "to_dtype", "to_str", "to_opt_str", "one_of", "Span"]


def deduce_call_sinfo(call: rx.Call, arg_sinfo: list[si.StructInfo], analyzer=None
                      ) -> si.StructInfo:
    """The struct info of a canonical call of a registered op, given its operands'
    struct info (the forward step of SI-deduce-1). StructInfoError when the operands are
    invalid for the op; ObjectStructInfo for ops that have no rule."""
    from relax_ref.solver.analyzer import Analyzer

    op = lookup(call.op.name) if isinstance(call.op, rx.Op) else None
    if op is None or op.deduce is None:
        return si.ObjectStructInfo()
    ctx = DeduceContext(call, list(arg_sinfo), analyzer if analyzer is not None else Analyzer())
    return op.deduce(ctx)
