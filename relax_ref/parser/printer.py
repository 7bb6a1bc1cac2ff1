"""IR -> TVMScript text in the TVM 0.27 dialect (spec/syntax.md, section "Printing").

``print_module`` writes a module the way TVM 0.27's ``mod.script()`` does: the comment
header, module-level ``n = TypeVar("n")`` lines, ``@I.ir_module class Module:`` and each
function in module order. Where TVM 0.27's own output cannot be read back (by TVM or by
our parser), a spelling both read is chosen instead; every such choice is listed in
spec/syntax.md ("Printing: where we differ from TVM") and marked ``PRINT-dev`` below.

Naming. Each function is one namespace: two distinct variables that share a name print
as ``x`` and ``x_1`` so that the text binds the same structure (a symbolic variable and a
Relax variable share that namespace, as in TVM). TIR names are released when their scope
(loop, block, let) ends, as TVM does, so sibling loops may both bind ``ax0``.

Precedence. PrimExprs print with Python's operator precedence and the fewest
parentheses that give back the same tree (``a - (b - c)``, ``(a < b) == c``).

The printer never mutates the IR and its output depends only on the IR (deterministic).
"""
from __future__ import annotations

import keyword
import math
import re
from typing import Iterable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, FLOAT32, INT32, INT64, DataType

INDENT = "    "

# Names that TVMScript text resolves before any variable (scope.ROOT_NAMESPACES, the
# module alias and the metadata table), so no variable may print under them.
_RESERVED = ("R", "T", "I", "tvm", "cls", "metadata")
_TIR_RESERVED = _RESERVED + ("range",)

# Ops whose calls print as R.<op>(callee, (args...), out_ty=..., [tir_vars=...]).
_DPS_OPS = ("call_tir", "call_tir_inplace", "call_tir_with_grad", "call_dps_packed")
# Ops whose first argument is a packed function named by a string.
_PACKED_OPS = ("call_pure_packed", "call_inplace_packed")
# Ops whose format string is an operand at this position, printed as ``format=``.
_FORMAT_POSITION = {"print": 0, "assert_op": 1}
# TIR intrinsics that TVMScript writes with the result dtype as first argument.
_DTYPE_FIRST_INTRINSICS = ("call_extern", "call_pure_extern", "call_intrin", "call_packed",
                           "call_llvm_intrin", "call_llvm_pure_intrin")

# Python operator precedence, lowest first (the Python reference, section 6.17).
_OR, _AND, _NOT, _CMP, _ADD, _MUL, _UNARY, _ATOM = 1, 2, 3, 4, 9, 10, 11, 14

_INFIX = {P.Add: ("+", _ADD), P.Sub: ("-", _ADD), P.Mul: ("*", _MUL),
          P.FloorDiv: ("//", _MUL), P.FloorMod: ("%", _MUL),
          P.EQ: ("==", _CMP), P.NE: ("!=", _CMP), P.LT: ("<", _CMP), P.LE: ("<=", _CMP),
          P.GT: (">", _CMP), P.GE: (">=", _CMP), P.And: ("and", _AND), P.Or: ("or", _OR)}
_FUNC_STYLE = {P.Mod: "truncmod", P.Min: "min", P.Max: "max"}


class PrintError(ValueError):
    """IR that has no TVMScript spelling (an ``If`` not bound to a variable, a constant
    whose shape a nested list cannot carry, ...)."""


# ======================================================================================
# Public entry points


def print_module(mod: rx.IRModule) -> str:
    """The TVMScript text of ``mod`` (no trailing newline, as TVM prints it)."""
    ctx = _ModuleContext(_identifier(mod.name) if mod.name else "Module")
    chunks: list[list[str]] = []
    for name, func in mod.functions.items():
        chunks.append(_function_lines(ctx, func, name, 1))
    class_lines: list[str] = []
    if len(mod.attrs):
        class_lines.append(INDENT + f"I.module_attrs({_RelaxPrinter(ctx).attr_value(mod.attrs)})")
    if len(mod.global_infos):
        infos = _RelaxPrinter(ctx).attr_value(mod.global_infos)
        class_lines.append(INDENT + f"I.module_global_infos({infos})")
    for i, chunk in enumerate(chunks):
        if i:
            class_lines.append("")
        class_lines.extend(chunk)
    if not class_lines:
        class_lines.append(INDENT + "pass")
    lines = ctx.header_lines()
    lines.append("")
    lines.extend(f'{n} = TypeVar("{n}")' for n in sorted(ctx.type_vars))
    lines.append("@I.ir_module")
    lines.append(f"class {ctx.module_name}:")
    lines.extend(class_lines)
    return "\n".join(lines)


def print_function(func: rx.Function | tir.PrimFunc, name: str = "main") -> str:
    """One function as it reads inside a module class, without the module header (for
    messages; module-level TypeVar lines are not included)."""
    return "\n".join(_function_lines(_ModuleContext("Module"), func, name, 0))


def print_struct_info(sinfo: si.StructInfo) -> str:
    """An annotation, e.g. ``R.Tensor((n, 4), dtype="float32")``, with variables under
    their own names (for messages)."""
    return _RelaxPrinter(_ModuleContext("Module"), _Names.raw()).struct_info(sinfo)


def print_prim_expr(expr: P.PrimExpr, *, tir_style: bool = False) -> str:
    """A PrimExpr as Relax shapes write it (int64 literals bare), or as TIR writes it
    (int32 literals bare, ``T.int64(16)``) when ``tir_style``."""
    printer_cls = _TirPrinter if tir_style else _RelaxPrinter
    return printer_cls(_ModuleContext("Module"), _Names.raw()).prim(expr)


def print_expr(expr: rx.Expr) -> str:
    """A Relax expression on one line, variables under their own names (for messages)."""
    return _RelaxPrinter(_ModuleContext("Module"), _Names.raw()).expr(expr)


def _function_lines(ctx: "_ModuleContext", func, name: str, indent: int) -> list[str]:
    if isinstance(func, rx.Function):
        return _RelaxPrinter(ctx).function(func, name, indent)
    if isinstance(func, tir.PrimFunc):
        return _TirPrinter(ctx).function(func, name, indent)
    raise PrintError(f"cannot print {type(func).__name__} {name!r} as a module function "
                     f"(expected a Relax Function or a PrimFunc)")


# ======================================================================================
# Module context and names


class _ModuleContext:
    """What the module header needs to know, gathered while the functions print."""

    def __init__(self, module_name: str):
        self.module_name = module_name
        self.type_vars: set[str] = set()
        self.uses_tir = False      # some ``T.`` name is printed
        self.uses_relax = False    # some Relax function is printed

    def header_lines(self) -> list[str]:
        lines = []
        if self.type_vars:
            lines.append("# from typing import TypeVar")
        lines.append("# from tvm.script import ir as I")
        if self.uses_tir:
            lines.append("# from tvm.script import tirx as T")
            lines.append("# from tvm.tirx.layout import Axis")
        if self.uses_relax:
            lines.append("# from tvm.script import relax as R")
        return lines


def _identifier(hint: str) -> str:
    """``hint`` made a Python identifier that names no keyword or literal."""
    name = re.sub(r"\W", "_", hint or "")
    if not name:
        name = "v"
    if name[0].isdigit():
        name = "v_" + name
    if keyword.iskeyword(name) or name in ("True", "False", "None"):
        name += "_"
    return name


class _Names:
    """The printed name of each variable, buffer and symbolic variable of one function.

    Objects are keyed by identity. ``scoped`` names are released by ``pop`` (TIR loop,
    block and let scopes); others live until the function ends."""

    def __init__(self, reserved: Iterable[str] = (), raw: bool = False):
        self._by_id: dict[int, str] = {}
        self._alive: list[object] = []          # keeps keyed objects alive (ids stay unique)
        self._taken: dict[str, int] = {n: 1 for n in reserved}
        self._scopes: list[list[tuple[int, str]]] = [[]]
        self._raw = raw

    @staticmethod
    def raw() -> "_Names":
        """Every object prints under its own (sanitized) name, uniquified never."""
        return _Names(raw=True)

    def get(self, obj) -> str | None:
        return self._by_id.get(id(obj))

    def define(self, obj, hint: str, *, root: bool = False) -> str:
        """The name of ``obj``, choosing a fresh one from ``hint`` on first sight."""
        existing = self._by_id.get(id(obj))
        if existing is not None:
            return existing
        base = _identifier(hint)
        name = base
        if not self._raw:
            i = 1
            while name in self._taken:
                name = f"{base}_{i}"
                i += 1
        self._bind(obj, name, root)
        return name

    def share(self, obj, name: str) -> None:
        """Give ``obj`` a name another object already has (``k: T.int64`` names both
        the parameter and the symbolic variable holding its value)."""
        self._bind(obj, name, False)

    def is_free(self, name: str) -> bool:
        return self._raw or name not in self._taken

    def _bind(self, obj, name: str, root: bool) -> None:
        self._by_id[id(obj)] = name
        self._alive.append(obj)
        self._taken[name] = self._taken.get(name, 0) + 1
        (self._scopes[0] if root else self._scopes[-1]).append((id(obj), name))

    def push(self) -> None:
        self._scopes.append([])

    def pop(self) -> None:
        for key, name in self._scopes.pop():
            self._by_id.pop(key, None)
            count = self._taken.get(name, 0) - 1
            if count <= 0:
                self._taken.pop(name, None)
            else:
                self._taken[name] = count


# ======================================================================================
# Literals


def _quote(text: str) -> str:
    """A double-quoted Python string literal whose value is ``text``."""
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            code = ord(ch)
            if code < 0x100:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _float_digits(value: float) -> str:
    """A finite float as TVM writes it: 17 significant digits (exact for a double),
    large magnitudes written out in full, always with a ``.`` or an exponent
    (``0.10000000000000001``, ``3.0``, ``1e-08``, ``100000000000000000000.0``)."""
    text = "%.17g" % value
    if "e+" in text:
        return "%.1f" % value
    if "e" not in text and "." not in text:
        text += ".0"
    return text


def _python_float(value: float) -> str:
    """A float as a Python expression; NaN and infinities as ``float("nan")`` etc.
    (PRINT-dev: TVM writes ``R.const("nan", ...)``, which it cannot read back)."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return _float_digits(value)


def _is_zero(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 0


def _is_true(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 1 and e.dtype.is_bool


def _same_expr(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """Exact structural equality of two PrimExprs (variables by identity)."""
    if a is b:
        return True
    if type(a) is not type(b) or a.dtype != b.dtype:
        return False
    if isinstance(a, (P.IntImm, P.FloatImm, P.StringImm)):
        return a.value == b.value or (isinstance(a.value, float) and math.isnan(a.value)
                                      and math.isnan(b.value))
    if isinstance(a, P.Var):
        return False
    if isinstance(a, P.Call) and a.op != b.op:
        return False
    if isinstance(a, (P.Ramp, P.Broadcast)) and a.lanes != b.lanes:
        return False
    if isinstance(a, tir.BufferLoad) and a.buffer is not b.buffer:
        return False
    ca, cb = P.children(a), P.children(b)
    return len(ca) == len(cb) and all(_same_expr(x, y) for x, y in zip(ca, cb))


def _plus(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a + b`` for printing an interval's end: folded when both are literals."""
    if _is_zero(a):
        return b
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm) and a.dtype == b.dtype:
        return P.IntImm(a.value + b.value, a.dtype)
    return P.Add(a, b, a.dtype)


# ======================================================================================
# PrimExprs and struct info (shared by the Relax and the TIR printer)


class _PrimPrinter:
    """Prints PrimExprs. ``default_int`` is the integer type whose literals print bare
    (int64 in Relax, int32 in TIR); ``tir_style`` prints booleans as ``T.bool(...)``."""

    default_int: DataType = INT64
    tir_style = False
    reserved: tuple[str, ...] = _RESERVED

    def __init__(self, ctx: _ModuleContext, names: _Names | None = None):
        self.ctx = ctx
        self.names = names if names is not None else _Names(self.reserved + (ctx.module_name,))
        self.in_signature = False

    # -- names ------------------------------------------------------------------------
    def t(self, name: str) -> str:
        """``T.<name>``, noting that the header must import T."""
        self.ctx.uses_tir = True
        return f"T.{name}"

    def var_name(self, var: P.Var) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.first_use(var)
        return name

    def first_use(self, var: P.Var) -> str:
        """Name a variable met before any binder named it (a symbolic variable)."""
        return self.names.define(var, var.name, root=True)

    # -- expressions --------------------------------------------------------------------
    def prim(self, e: P.PrimExpr) -> str:
        return self._prim(e)[0]

    def _prim(self, e: P.PrimExpr) -> tuple[str, int, bool]:
        """(text, precedence, whether the text is a bare Python literal)."""
        if isinstance(e, P.IntImm):
            return self._int(e)
        if isinstance(e, P.FloatImm):
            return self._float(e), _ATOM, False
        if isinstance(e, P.StringImm):
            return _quote(e.value), _ATOM, False
        if isinstance(e, P.Var):
            return self.var_name(e), _ATOM, False
        if isinstance(e, P.Not):
            text, prec, lit = self._prim(e.a)
            if lit:
                text, prec = self._typed(e.a), _ATOM
            return f"not {_paren(text, prec < _NOT)}", _NOT, False
        if isinstance(e, P.Div):
            if e.dtype.is_float:
                return self._infix(e, "/", _MUL)
            return self._func("Div", [e.a, e.b]), _ATOM, False
        if isinstance(e, tuple(_FUNC_STYLE)):
            return self._func(_FUNC_STYLE[type(e)], [e.a, e.b]), _ATOM, False
        if isinstance(e, P.BinaryOp):
            symbol, prec = _INFIX[type(e)]
            return self._infix(e, symbol, prec)
        if isinstance(e, P.Select):
            return self._func("Select", [e.condition, e.true_value, e.false_value]), _ATOM, False
        if isinstance(e, P.Cast):
            return f'{self.t("Cast")}({_quote(str(e.dtype))}, {self.prim(e.value)})', _ATOM, False
        if isinstance(e, P.Let):
            value = self.prim(e.value)
            self.names.push()
            var = self.names.define(e.var, e.var.name)
            body = self.prim(e.body)
            self.names.pop()
            declared = getattr(self, "declared", None)
            if self.tir_style and declared is not None:
                # PRINT-tir-2: the variable is declared (``x = T.float32()``) before use.
                line = f"{var} = {self.t(str(e.var.dtype))}()"
                if line not in declared:
                    declared.append(line)
            return f"{self.t('Let')}({body}, where={{{var}: {value}}})", _ATOM, False
        if isinstance(e, P.Call):
            return self._call(e), _ATOM, False
        if isinstance(e, P.Ramp):
            return (f"{self.t('Ramp')}({self.prim(e.base)}, {self.prim(e.stride)}, {e.lanes})",
                    _ATOM, False)
        if isinstance(e, P.Broadcast):
            return f"{self.t('Broadcast')}({self.prim(e.value)}, {e.lanes})", _ATOM, False
        if isinstance(e, tir.BufferLoad):
            name = self.names.get(e.buffer) or self.names.define(e.buffer, e.buffer.name, root=True)
            return f"{name}[{self._indices(e.indices)}]", _ATOM, False
        raise PrintError(f"cannot print the expression {type(e).__name__}")

    def _int(self, e: P.IntImm) -> tuple[str, int, bool]:
        if e.dtype.is_bool:
            if self.tir_style:
                return self._typed(e), _ATOM, False
            return ("True" if e.value else "False"), _ATOM, True
        if e.dtype == self.default_int:
            return str(e.value), (_UNARY if e.value < 0 else _ATOM), True
        return self._typed(e), _ATOM, False

    def _typed(self, e: P.PrimExpr) -> str:
        """A literal with its dtype spelled out (``T.int64(2)``, ``T.bool(True)``)."""
        if isinstance(e, P.IntImm):
            value = ("True" if e.value else "False") if e.dtype.is_bool else str(e.value)
            return f"{self.t(str(e.dtype))}({value})"
        return self.prim(e)

    def _float(self, e: P.FloatImm) -> str:
        v = float(e.value)
        if math.isnan(v):
            text = '"nan"'
        elif math.isinf(v):
            text = '"inf"' if v > 0 else '"-inf"'
        else:
            text = _float_digits(v)
        return f"{self.t(str(e.dtype))}({text})"

    def _infix(self, e: P.BinaryOp, symbol: str, prec: int) -> tuple[str, int, bool]:
        left, lprec, llit = self._prim(e.a)
        right, rprec, rlit = self._prim(e.b)
        if llit and rlit:
            # Two bare literals would be folded by the reader (``2 * 3`` is 6).
            left, lprec = self._typed(e.a), _ATOM
        # Comparisons chain in Python (a < b < c), so a comparison operand of a comparison
        # is parenthesized on either side; otherwise only the right side of an equal level.
        left = _paren(left, lprec < prec or (prec == _CMP and lprec == _CMP))
        right = _paren(right, rprec <= prec)
        return f"{left} {symbol} {right}", prec, False

    def _func(self, name: str, args: list[P.PrimExpr]) -> str:
        return f"{self.t(name)}({', '.join(self.prim(a) for a in args)})"

    def _call(self, e: P.Call) -> str:
        name = e.op[4:] if e.op.startswith("tir.") else e.op
        args = [self.prim(a) for a in e.args]
        if name in _DTYPE_FIRST_INTRINSICS:
            args.insert(0, _quote(str(e.dtype)))
        elif name != "if_then_else" and _intrinsic_result_dtype(name, e.args) != e.dtype:
            args.append(f"dtype={_quote(str(e.dtype))}")
        return f"{self.t(name)}({', '.join(args)})"

    def _indices(self, indices: tuple[P.PrimExpr, ...]) -> str:
        if not indices:
            return "()"
        return ", ".join(self.prim(i) for i in indices)

    # -- struct info --------------------------------------------------------------------
    def dim(self, e: P.PrimExpr) -> str:
        """One dimension of a shape. In a signature TVM quotes compound expressions
        (``"n * 4"``), since the names there are only declared, not yet bound."""
        text = self.prim(e)
        if self.in_signature and not isinstance(e, (P.Var, P.IntImm)):
            return _quote(text)
        return text

    def shape_tuple(self, dims: tuple[P.PrimExpr, ...]) -> str:
        items = [self.dim(d) for d in dims]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"

    def struct_info(self, s: si.StructInfo) -> str:
        self.ctx.uses_relax = True
        if isinstance(s, si.ObjectStructInfo):
            return "R.Any"
        if isinstance(s, si.PrimStructInfo):
            if s.value is None:
                # PRINT-dev: TVM 0.27 writes T.int64, which it cannot read inside R.Tuple.
                return f"R.Prim({_quote(str(s.dtype))})"
            if s.value.dtype == s.dtype:
                return f"R.Prim(value={self.dim(s.value)})"
            return f"R.Prim({_quote(str(s.dtype))}, value={self.dim(s.value)})"
        if isinstance(s, si.ShapeStructInfo):
            if s.values is not None:
                return f"R.Shape([{', '.join(self.dim(d) for d in s.values)}])"
            return f"R.Shape(ndim={s.ndim})"
        if isinstance(s, si.TensorStructInfo):
            parts = []
            if s.shape is not None:
                parts.append(self.shape_tuple(s.shape))
            if not s.dtype.is_void:
                parts.append(f"dtype={_quote(str(s.dtype))}")
            if s.vdevice is not None:
                parts.append(f"vdevice={_quote(s.vdevice)}")
            if s.shape is None and s.ndim != si.UNKNOWN_NDIM:
                parts.append(f"ndim={s.ndim}")
            return f"R.Tensor({', '.join(parts)})" if parts else "R.Tensor"
        if isinstance(s, si.TupleStructInfo):
            if not s.fields:
                return "R.Tuple"
            return f"R.Tuple({', '.join(self.struct_info(f) for f in s.fields)})"
        if isinstance(s, si.FuncStructInfo):
            derive = [f"derive_func={_quote(s.derive_func)}"] if s.derive_func else []
            if s.params is None:
                parts = []
                if not isinstance(s.ret, si.ObjectStructInfo):
                    parts.append(f"ret={self.struct_info(s.ret)}")
                if not s.purity:
                    parts.append("purity=False")
                parts += derive
                return f"R.Callable({', '.join(parts)})" if parts else "R.Callable"
            params = [self.struct_info(p) for p in s.params]
            params_text = f"({params[0]},)" if len(params) == 1 else f"({', '.join(params)})"
            parts = [params_text, self.struct_info(s.ret), str(s.purity)] + derive
            return f"R.Callable({', '.join(parts)})"
        raise PrintError(f"cannot print the struct info {type(s).__name__}")


def _paren(text: str, needed: bool) -> str:
    return f"({text})" if needed else text


def _intrinsic_result_dtype(name: str, args: tuple[P.PrimExpr, ...]) -> DataType | None:
    """The dtype the reader gives ``T.<name>(args)`` without ``dtype=`` (the parser's own
    rule, prim_builder.intrinsic), or None when it needs one."""
    from .prim_builder import BOOL_INTRINSICS, INTRINSIC_ALIASES, SAME_DTYPE_INTRINSICS

    name = INTRINSIC_ALIASES.get(name, name)
    if name in BOOL_INTRINSICS:
        return BOOL
    if name in SAME_DTYPE_INTRINSICS and args:
        return args[0].dtype
    return None


# ======================================================================================
# Relax functions


class _RelaxPrinter(_PrimPrinter):
    """Prints one Relax function (and the functions nested in it)."""

    def __init__(self, ctx: _ModuleContext, names: _Names | None = None):
        super().__init__(ctx, names)
        self.declared: list[str] = []    # symbolic variables first met in the body
        self.uses_module = False         # a GlobalVar is referenced: print ``cls = Module``
        self.used: set[int] = set()      # ids of the Relax variables that are referenced
        self.in_return_annotation = False

    def first_use(self, var: P.Var) -> str:
        name = self.names.define(var, var.name, root=True)
        if self.in_signature:
            self.ctx.type_vars.add(name)
        if not self.in_signature or self.in_return_annotation:
            # Not bound by a parameter: declared at the top of the body (a variable first
            # seen in the return annotation is defined by the body, e.g. a match_cast).
            self.declared.append(f"{name} = {self.t(str(var.dtype))}()")
        return name

    # -- functions ----------------------------------------------------------------------
    def function(self, func: rx.Function, name: str, indent: int,
                 nested: bool = False) -> list[str]:
        self.ctx.uses_relax = True
        self.used |= _referenced_vars(func)
        saved = self.in_signature
        self.in_signature = True
        params = [self._param(p) for p in func.params]
        ret = ""
        if func.ret_struct_info is not None:
            self.in_return_annotation = True
            ret = f" -> {self.struct_info(func.ret_struct_info)}"
            self.in_return_annotation = False
        self.in_signature = False
        body: list[str] = []
        self._seq_body(func.body, indent + 1, body)
        self.in_signature = saved

        options = []
        if not func.is_pure:
            options.append("pure=False")
        if func.is_private:
            options.append("private=True")
        pad = INDENT * indent
        lines = [pad + "@R.function" + (f"({', '.join(options)})" if options else ""),
                 pad + f"def {name}({', '.join(params)}){ret}:"]
        inner = INDENT * (indent + 1)
        if len(func.attrs):
            lines.append(inner + f"R.func_attr({self.attr_value(func.attrs)})")
        if not nested:
            # TVM's order: R.func_attr, then symbolic variable declarations, then cls.
            lines.extend(inner + d for d in self.declared)
            if self.uses_module:
                lines.append(inner + f"cls = {self.ctx.module_name}")
        lines.extend(body)
        return lines

    def _param(self, p: rx.Var) -> str:
        s = p.struct_info
        if isinstance(s, si.PrimStructInfo) and isinstance(s.value, P.Var) \
                and s.value.dtype == s.dtype and self.names.get(p) is None:
            # ``k: T.int64`` binds the parameter and the symbolic variable ``k`` at once.
            want = _identifier(p.name_hint)
            sym_name = self.names.get(s.value)
            if sym_name is None and _identifier(s.value.name) == want and self.names.is_free(want):
                self.names.define(s.value, want, root=True)
                sym_name = want
            if sym_name == want:
                self.names.share(p, want)
                return f"{want}: {self.t(str(s.dtype))}"
        ann = f": {self.struct_info(s)}" if s is not None else ""
        return f"{self.names.define(p, p.name_hint)}{ann}"

    # -- bindings -----------------------------------------------------------------------
    def _seq_body(self, seq: rx.SeqExpr, indent: int, out: list[str]) -> None:
        for block in seq.blocks:
            self._block(block, indent, out)
        out.append(INDENT * indent + f"return {self.expr(seq.body)}")

    def _block(self, block: rx.BindingBlock, indent: int, out: list[str]) -> None:
        if not isinstance(block, rx.DataflowBlock):
            for b in block.bindings:
                self._binding(b, indent, out)
            return
        out.append(INDENT * indent + "with R.dataflow():")
        outputs = []
        for b in block.bindings:
            named = self._binding(b, indent + 1, out)
            if named is not None and not isinstance(b.var, rx.DataflowVar):
                outputs.append(named)
        out.append(INDENT * (indent + 1) + f"R.output({', '.join(outputs)})")

    def _binding(self, b: rx.Binding, indent: int, out: list[str]) -> str | None:
        """Print one binding; the name its variable printed under (None when it printed
        as an expression statement)."""
        pad = INDENT * indent
        var = b.var
        if isinstance(b, rx.MatchCast):
            value = f"R.match_cast({self.expr(b.value)}, {self.struct_info(b.struct_info)})"
            return self._assign(var, value, pad, out)
        if not isinstance(b, rx.VarBinding):
            raise PrintError(f"cannot print the binding {type(b).__name__}")
        value = b.value
        if isinstance(value, rx.Function):
            name = self.names.define(var, var.name_hint)
            out.extend(self.function(value, name, indent, nested=True))
            out.append("")
            return name
        if isinstance(value, rx.If):
            return self._if(var, value, indent, out)
        if _is_expression_statement(var, self.used):
            out.append(pad + self.expr(value))
            return None
        return self._assign(var, self.expr(value, top=True), pad, out)

    def _assign(self, var: rx.Var, value: str, pad: str, out: list[str]) -> str:
        name = self.names.define(var, var.name_hint)
        ann = f": {self.struct_info(var.struct_info)}" if var.struct_info is not None else ""
        out.append(f"{pad}{name}{ann} = {value}")
        return name

    def _if(self, var: rx.Var, node: rx.If, indent: int, out: list[str]) -> str:
        """``if c:`` / ``else:``; each branch ends by binding the if's variable to the
        branch's result (like if_else_call.py)."""
        pad = INDENT * indent
        cond = self.expr(node.cond)
        name = self.names.define(var, var.name_hint)
        ann = f": {self.struct_info(var.struct_info)}" if var.struct_info is not None else ""
        out.append(f"{pad}if {cond}:")
        for keyword_line, branch in ((None, node.true_branch), ("else:", node.false_branch)):
            if keyword_line:
                out.append(pad + keyword_line)
            if not isinstance(branch, rx.SeqExpr):
                raise PrintError("an if branch must be a SeqExpr")
            for block in branch.blocks:
                self._block(block, indent + 1, out)
            out.append(f"{pad}{INDENT}{name}{ann} = {self.expr(branch.body, top=True)}")
        return name

    # -- expressions --------------------------------------------------------------------
    def expr(self, e: rx.Expr, top: bool = False) -> str:
        """A Relax expression; ``top`` is the value of a binding, where a tuple of two or
        more fields prints without parentheses as TVM prints it."""
        if isinstance(e, rx.Var):
            return self.names.get(e) or self.names.define(e, e.name_hint, root=True)
        if isinstance(e, rx.GlobalVar):
            self.uses_module = True
            return f"cls.{e.name_hint}"
        if isinstance(e, rx.Constant):
            return self._constant(e)
        if isinstance(e, rx.Tuple):
            fields = [self.expr(f) for f in e.fields]
            if len(fields) == 1:
                return f"({fields[0]},)"
            if top and fields:
                return ", ".join(fields)
            return f"({', '.join(fields)})"
        if isinstance(e, rx.TupleGetItem):
            return f"{self.expr(e.tuple_value)}[{e.index}]"
        if isinstance(e, rx.ShapeExpr):
            return f"R.shape([{', '.join(self.prim(v) for v in e.values)}])"
        if isinstance(e, rx.PrimValue):
            if isinstance(e.value, P.Var):
                # PRINT-dev: a bare name would read back as the Relax variable of that
                # name (``k: T.int64`` binds both), so the value is wrapped.
                return f"R.prim_value({self.prim(e.value)})"
            return self.prim(e.value)
        if isinstance(e, rx.StringImm):
            return f"R.str({_quote(e.value)})"
        if isinstance(e, rx.DataTypeImm):
            return f"R.dtype({_quote(str(e.value))})"
        if isinstance(e, rx.Call):
            return self._call_expr(e)
        if isinstance(e, rx.ExternFunc):
            return f"R.ExternFunc({_quote(e.global_symbol)})"
        if isinstance(e, rx.Op):
            return "R." + _op_name(e.name)
        if isinstance(e, rx.If):
            raise PrintError("an If prints only as the value of a binding (`y = if ...`)")
        if isinstance(e, rx.Function):
            raise PrintError("a nested Function prints only as the value of a binding")
        if isinstance(e, rx.SeqExpr):
            raise PrintError("a SeqExpr prints only as a function or branch body")
        raise PrintError(f"cannot print the expression {type(e).__name__}")

    def _call_expr(self, c: rx.Call) -> str:
        op = c.op
        args = list(c.args)
        sinfo_args = c.sinfo_args
        if isinstance(op, rx.Op):
            name = _op_name(op.name)
            if name in _DPS_OPS and 2 <= len(args) <= 3:
                # R.call_tir(cls.f, (x, y), out_ty=..., [attrs], [tir_vars=...])
                parts = [self._callee(args[0]), self._operands(args[1])]
                parts += self._out_ty(sinfo_args) + self._kwargs(c.attrs)
                if len(args) == 3:
                    parts.append(f"tir_vars={self.expr(args[2])}")
                return f"R.{name}({', '.join(parts)})"
            if name in _PACKED_OPS and args:
                # R.call_pure_packed("f", x, ..., [attrs], ty_args=(...))
                parts = [self._callee(args[0])] + [self.expr(a) for a in args[1:]]
                return f"R.{name}({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
            if name in _FORMAT_POSITION and len(args) > _FORMAT_POSITION[name] and \
                    isinstance(args[_FORMAT_POSITION[name]], rx.StringImm):
                # R.print(values..., format=R.str(f)) and R.assert_op(cond, args...,
                # format=R.str(f)): the format is an operand (SYN-relax-12).
                k = _FORMAT_POSITION[name]
                parts = [self.expr(a) for a in args[:k] + args[k + 1:]]
                if name == "assert_op" and len(args) > 3:
                    # PRINT-assert-1: several format arguments as one list, which TVM 0.27
                    # reads (it cannot read them spread out, as it prints them).
                    parts = [parts[0], f"[{', '.join(parts[1:])}]"]
                parts.append(f"format={self.expr(args[k])}")
                return f"R.{name}({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
            if name == "builtin.alloc_tensor" and _alloc_sinfo_derivable(c):
                # PRINT-dev: TVM 0.27 prints ty_args= here but cannot read it; the struct
                # info follows from the shape and dtype arguments.
                sinfo_args = ()
            parts = [self.expr(a) for a in args] + self._trailer(c.attrs, sinfo_args)
            return f"R.{name}({', '.join(parts)})"
        if isinstance(op, rx.ExternFunc):
            parts = [_quote(op.global_symbol)] + [self.expr(a) for a in args]
            return f"R.call_packed({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
        if isinstance(op, (rx.GlobalVar, rx.Var)):
            parts = [self.expr(a) for a in args] + self._trailer(c.attrs, sinfo_args)
            return f"{self.expr(op)}({', '.join(parts)})"
        raise PrintError(f"cannot print a call of {type(op).__name__}")

    def _trailer(self, attrs: rx.Attrs, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        """The keyword arguments of a call: its attributes, then ``ty_args=``."""
        return self._kwargs(attrs) + self._ty_args(sinfo_args)

    def _callee(self, e: rx.Expr) -> str:
        if isinstance(e, rx.ExternFunc):
            return _quote(e.global_symbol)
        return self.expr(e)

    def _operands(self, e: rx.Expr) -> str:
        """The argument tuple of a DPS call, parenthesized even with two fields."""
        if isinstance(e, rx.Tuple) and len(e.fields) != 1:
            return f"({', '.join(self.expr(f) for f in e.fields)})"
        return self.expr(e)

    def _out_ty(self, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        if not sinfo_args:
            return []
        if len(sinfo_args) == 1:
            return [f"out_ty={self.struct_info(sinfo_args[0])}"]
        return [f"out_ty=[{', '.join(self.struct_info(s) for s in sinfo_args)}]"]

    def _ty_args(self, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        """``ty_args=(...)``: TVM 0.27's keyword (``sinfo_args=`` before it), always a
        tuple as TVM prints it."""
        if not sinfo_args:
            return []
        items = [self.struct_info(s) for s in sinfo_args]
        return [f"ty_args=({items[0]},)" if len(items) == 1 else f"ty_args=({', '.join(items)})"]

    def _kwargs(self, attrs: rx.Attrs) -> list[str]:
        return [f"{key}={self.attr_value(value)}" for key, value in attrs.items]

    def attr_value(self, v) -> str:
        """An attribute value: Python literals, dtype strings, lists (TVM prints every
        sequence as a list), dicts, PrimExprs, struct info and Relax leaf values."""
        if v is None:
            return "None"
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            return _python_float(float(v))
        if isinstance(v, str):
            return _quote(v)
        if isinstance(v, DataType):
            # An unspecified dtype attribute (void) is written None, as TVM writes it:
            # TVM reads the string "void" as the void type itself (PRINT-attr-1).
            return "None" if v.is_void else _quote(str(v))
        if isinstance(v, (tuple, list)):
            return f"[{', '.join(self.attr_value(x) for x in v)}]"
        if isinstance(v, rx.Attrs):
            return "{" + ", ".join(f"{_quote(k)}: {self.attr_value(x)}" for k, x in v.items) + "}"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{_quote(str(k))}: {self.attr_value(x)}"
                                   for k, x in v.items()) + "}"
        if isinstance(v, P.PrimExpr):
            if isinstance(v, P.IntImm):
                # A bare 3 would read back as the Python int 3, not as an IntImm.
                return self._typed(v)
            return self.prim(v)
        if isinstance(v, si.StructInfo):
            return self.struct_info(v)
        if isinstance(v, rx.Expr):
            return self.expr(v)
        raise PrintError(f"cannot print the attribute value {v!r}")

    def _constant(self, c: rx.Constant) -> str:
        """``R.const(value, "dtype")``, non-scalars as nested lists (PRINT-dev: TVM 0.27
        prints them as metadata references, which it cannot print back)."""
        from relax_ref.ir.numpy_dtype import dtype_of_numpy

        data = c.data
        dtype = dtype_of_numpy(data.dtype)
        if data.size == 0 and 0 in data.shape[:-1] and data.ndim > 1:
            raise PrintError(f"a constant of shape {data.shape} cannot be written as a "
                             f"nested list")
        return f"R.const({_nested_list(data, dtype)}, {_quote(str(dtype))})"


def _nested_list(arr: np.ndarray, dtype: DataType) -> str:
    if arr.ndim == 0:
        value = arr[()]
        if dtype.is_bool:
            return "True" if bool(value) else "False"
        if dtype.is_float:
            return _python_float(float(value))
        return str(int(value))
    return "[" + ", ".join(_nested_list(arr[i], dtype) for i in range(arr.shape[0])) + "]"


def _is_expression_statement(var: rx.Var, used: set[int]) -> bool:
    """A binding to an unused ``_`` whose value is void (or of unknown struct info)
    prints as its value alone (``cls.matmul1(lv, w2, alloc1)``). TVM reads such a
    statement only when the value is void, and prints ``_: R.Tensor(...) = ...``
    otherwise, as we do."""
    sinfo = var.struct_info
    return (var.name_hint == "_" and id(var) not in used
            and (sinfo is None or (isinstance(sinfo, si.TupleStructInfo) and not sinfo.fields)))


def _op_name(name: str) -> str:
    """``relax.nn.softmax`` -> ``nn.softmax``."""
    return name[len("relax."):] if name.startswith("relax.") else name


def _alloc_sinfo_derivable(c: rx.Call) -> bool:
    """Whether ``R.builtin.alloc_tensor(shape, dtype, ...)``'s struct info argument is
    exactly ``R.Tensor(shape, dtype)`` of its first two arguments."""
    if len(c.sinfo_args) != 1 or len(c.args) < 2:
        return not c.sinfo_args
    s = c.sinfo_args[0]
    shape, dtype = c.args[0], c.args[1]
    return (isinstance(s, si.TensorStructInfo) and s.vdevice is None
            and isinstance(shape, rx.ShapeExpr) and isinstance(dtype, rx.DataTypeImm)
            and s.shape is not None and len(s.shape) == len(shape.values)
            and all(_same_expr(a, b) for a, b in zip(s.shape, shape.values))
            and s.dtype == dtype.value)


def _referenced_vars(func: rx.Function) -> set[int]:
    """Ids of the Relax variables used (not merely bound) anywhere in ``func``."""
    used: set[int] = set()

    def expr(e) -> None:
        if isinstance(e, rx.Var):
            used.add(id(e))
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                expr(f)
        elif isinstance(e, rx.TupleGetItem):
            expr(e.tuple_value)
        elif isinstance(e, rx.Call):
            expr(e.op)
            for a in e.args:
                expr(a)
            for _, v in e.attrs.items:
                if isinstance(v, rx.Expr):
                    expr(v)
        elif isinstance(e, rx.If):
            expr(e.cond)
            expr(e.true_branch)
            expr(e.false_branch)
        elif isinstance(e, rx.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    expr(b.value)
            expr(e.body)
        elif isinstance(e, rx.Function):
            expr(e.body)

    expr(func.body)
    return used


# ======================================================================================
# TIR functions


class _TirPrinter(_PrimPrinter):
    """Prints one PrimFunc."""

    default_int = INT32
    tir_style = True
    reserved = _TIR_RESERVED

    def __init__(self, ctx: _ModuleContext, names: _Names | None = None):
        super().__init__(ctx, names)
        self.params: set[int] = set()
        self.pending_params: set[int] = set()                 # parameters not yet printed
        self.declared: list[str] = []                          # free variables of the body
        self.loops: dict[int, tir.For] = {}                    # enclosing loops by loop var
        self.data_owner: dict[int, str] = {}                   # data var -> "Buf.data"

    def first_use(self, var: P.Var) -> str:
        name = self.names.define(var, var.name, root=True)
        if self.in_signature:
            if id(var) not in self.params:
                self.ctx.type_vars.add(name)
        elif not var.dtype.is_handle:
            self.declared.append(f"{name} = {self.t(str(var.dtype))}()")
        return name

    def dim(self, e: P.PrimExpr) -> str:
        # A scalar parameter used by an earlier parameter's buffer is quoted, as TVM
        # quotes it: the name is not bound yet where it is read.
        if self.in_signature and isinstance(e, P.Var) and id(e) in self.pending_params:
            return _quote(self.prim(e))
        return super().dim(e)

    def function(self, f: tir.PrimFunc, name: str, indent: int) -> list[str]:
        self.ctx.uses_tir = True
        self.params = {id(p) for p in f.params}
        self.pending_params = set(self.params)
        self.in_signature = True
        params = []
        for p in f.params:
            self.pending_params.discard(id(p))
            buf = f.buffer_of(p)
            if buf is not None:
                ann = self._buffer_call("Buffer", buf, always_dtype=True)
                params.append(f"{self._define_buffer(buf)}: {ann}")
            elif p.dtype.is_handle:
                params.append(f"{self.names.define(p, p.name)}: {self.t('handle')}")
            else:
                params.append(f"{self.names.define(p, p.name)}: {self.t(str(p.dtype))}")
        self.in_signature = False
        ret = ""
        if f.ret_type is not None and not f.ret_type.is_void:
            ret = f" -> {self.t(str(f.ret_type))}"

        inner = INDENT * (indent + 1)
        body: list[str] = []
        root = _root_block(f.body)
        if root is not None:
            body.append(inner + '# with T.sblock("root"):')
            for buf in root.alloc_buffers:
                body.append(inner + self._alloc_line(buf))
            self.stmt(root.body, indent + 1, body)
        else:
            self.stmt(f.body, indent + 1, body)

        options = []
        if f.is_private:
            options.append("private=True")
        if f.s_tir:
            options.append("s_tir=True")
        pad = INDENT * indent
        lines = [pad + "@T.prim_func" + (f"({', '.join(options)})" if options else ""),
                 pad + f"def {name}({', '.join(params)}){ret}:"]
        if len(f.attrs):
            lines.append(inner + f"T.func_attr({self._attrs(f.attrs)})")
        lines.extend(inner + d for d in self.declared)
        lines.extend(body)
        return lines

    # -- buffers ------------------------------------------------------------------------
    def _define_buffer(self, buf: tir.Buffer) -> str:
        name = self.names.define(buf, buf.name)
        if buf.data is not None:
            self.data_owner.setdefault(id(buf.data), f"{name}.data")
        return name

    def _buffer_call(self, func: str, buf: tir.Buffer, always_dtype: bool,
                     prefix: str = "", with_data: bool = False) -> str:
        """``T.<func>(prefix, shape, "dtype", options...)``; float32 is left out unless
        ``always_dtype`` (TVM omits it except on parameters)."""
        parts = [prefix] if prefix else []
        parts.append(self.shape_tuple(buf.shape))
        if always_dtype or buf.dtype != FLOAT32:
            parts.append(_quote(str(buf.dtype)))
        if with_data and buf.data is not None:
            parts.append(f"data={self._data_ref(buf.data)}")
        if buf.strides:
            parts.append(f"strides={self.shape_tuple(buf.strides)}")
        if buf.elem_offset is not None:
            parts.append(f"elem_offset={self.dim(buf.elem_offset)}")
        if buf.scope != "global":
            parts.append(f"scope={_quote(buf.scope)}")
        if buf.align != -1:
            parts.append(f"align={buf.align}")
        if buf.offset_factor != 0:
            parts.append(f"offset_factor={buf.offset_factor}")
        if buf.axis_separators:
            parts.append(f"axis_separators=[{', '.join(str(a) for a in buf.axis_separators)}]")
        return f"{self.t(func)}({', '.join(parts)})"

    def _data_ref(self, var: P.Var) -> str:
        name = self.names.get(var)
        if name is not None:
            return name
        return self.data_owner.get(id(var)) or self.var_name(var)

    def _alloc_line(self, buf: tir.Buffer) -> str:
        call = self._buffer_call("sblock_alloc_buffer", buf, always_dtype=False)
        return f"{self._define_buffer(buf)} = {call}"

    def _region(self, region: tir.BufferRegion) -> str:
        name = self.names.get(region.buffer) or self._define_buffer(region.buffer)
        if not region.region:
            return f"{name}[()]"
        items = []
        for r in region.region:
            if isinstance(r.extent, P.IntImm) and r.extent.value == 1:
                items.append(self.prim(r.min))
            else:
                items.append(f"{self.prim(r.min)}:{self.prim(_plus(r.min, r.extent))}")
        return f"{name}[{', '.join(items)}]"

    def _attrs(self, attrs: rx.Attrs) -> str:
        return _RelaxAttrs(self).attr_value(attrs)

    # -- statements ---------------------------------------------------------------------
    def stmt(self, s: tir.Stmt, indent: int, out: list[str]) -> None:
        pad = INDENT * indent
        if isinstance(s, tir.SeqStmt):
            for x in s.seq:
                self.stmt(x, indent, out)
        elif isinstance(s, tir.BufferStore):
            name = self.names.get(s.buffer) or self._define_buffer(s.buffer)
            out.append(f"{pad}{name}[{self._indices(s.indices)}] = {self.prim(s.value)}")
        elif isinstance(s, tir.Evaluate):
            # A call stands alone as a statement; anything else needs T.evaluate.
            text = self.prim(s.value)
            if not isinstance(s.value, P.Call):
                text = f"{self.t('evaluate')}({text})"
            out.append(pad + text)
        elif isinstance(s, tir.IfThenElse):
            out.append(f"{pad}if {self.prim(s.condition)}:")
            self._scoped(s.then_case, indent + 1, out)
            if s.else_case is not None:
                out.append(pad + "else:")
                self._scoped(s.else_case, indent + 1, out)
        elif isinstance(s, tir.For):
            self._for(s, indent, out)
        elif isinstance(s, tir.SBlockRealize):
            self._block(s, indent, out)
        elif isinstance(s, tir.LetStmt):
            # Flat, as TVM prints it: the rest of the suite is the body.
            value = self.prim(s.value)
            self.names.push()
            name = self.names.define(s.var, s.var.name)
            out.append(f"{pad}{name}: {self.t(str(s.var.dtype))} = {value}")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.AssertStmt):
            out.append(f"{pad}assert {self.prim(s.condition)}, {_quote(s.message)}")
            if s.body is not None:
                self.stmt(s.body, indent, out)
        elif isinstance(s, tir.While):
            out.append(f"{pad}while {self.prim(s.condition)}:")
            self._scoped(s.body, indent + 1, out)
        elif isinstance(s, tir.Allocate):
            extents = ", ".join(self.prim(e) for e in s.extents)
            parts = [f"[{extents}]", _quote(str(s.dtype)), _quote(s.scope)]
            if not _is_true(s.condition):
                parts.append(self.prim(s.condition))
            if len(s.annotations):
                parts.append(f"annotations={self._attrs(s.annotations)}")
            self.names.push()
            name = self.names.define(s.buffer_var, s.buffer_var.name)
            out.append(f"{pad}{name} = {self.t('allocate')}({', '.join(parts)})")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.DeclBuffer):
            call = self._buffer_call("decl_buffer", s.buffer, always_dtype=False, with_data=True)
            self.names.push()
            out.append(f"{pad}{self._define_buffer(s.buffer)} = {call}")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.AttrStmt):
            out.append(f"{pad}with {self.t('attr')}({self._attr_node(s.node)}, "
                       f"{_quote(s.attr_key)}, {self.prim(s.value)}):")
            self._scoped(s.body, indent + 1, out)
        else:
            raise PrintError(f"cannot print the statement {type(s).__name__}")

    def _scoped(self, s: tir.Stmt, indent: int, out: list[str]) -> None:
        self.names.push()
        self.stmt(s, indent, out)
        self.names.pop()

    def _attr_node(self, node) -> str:
        if isinstance(node, P.PrimExpr):
            return self.prim(node)
        if isinstance(node, tir.IterVar):
            return self.var_name(node.var)
        if isinstance(node, tir.Buffer):
            return self.names.get(node) or self._define_buffer(node)
        if isinstance(node, str):
            return _quote(node)
        if node is None:
            return "None"
        raise PrintError(f"cannot print the attribute node {type(node).__name__}")

    # -- loops --------------------------------------------------------------------------
    def _for(self, loop: tir.For, indent: int, out: list[str]) -> None:
        pad = INDENT * indent
        if _plain_serial(loop):
            chain = [loop]
            while isinstance(chain[-1].body, tir.For) and _plain_serial(chain[-1].body):
                inner = chain[-1].body
                bound = {id(l.loop_var) for l in chain}
                if any(id(v) in bound for v in P.free_vars(inner.extent)):
                    break
                chain.append(inner)
            extents = [self.prim(l.extent) for l in chain]
            self.names.push()
            names = [self.names.define(l.loop_var, l.loop_var.name) for l in chain]
            if len(chain) == 1:
                out.append(f"{pad}for {names[0]} in range({extents[0]}):")
            else:
                grid = f"{self.t('grid')}({', '.join(extents)})"
                out.append(f"{pad}for {', '.join(names)} in {grid}:")
        else:
            chain = [loop]
            args = [self.prim(loop.extent)] if _is_zero(loop.min) else \
                [self.prim(loop.min), self.prim(_plus(loop.min, loop.extent))]
            if loop.kind == "thread_binding":
                args.append(f"thread={_quote(loop.thread_tag or '')}")
            if len(loop.annotations):
                args.append(f"annotations={self._attrs(loop.annotations)}")
            if loop.kind == "serial" and not len(loop.annotations):
                iterator = f"range({', '.join(args)})"
            else:
                iterator = f"{self.t(loop.kind)}({', '.join(args)})"
            self.names.push()
            name = self.names.define(loop.loop_var, loop.loop_var.name)
            out.append(f"{pad}for {name} in {iterator}:")
        for l in chain:
            self.loops[id(l.loop_var)] = l
        self.stmt(chain[-1].body, indent + 1, out)
        for l in chain:
            self.loops.pop(id(l.loop_var), None)
        self.names.pop()

    # -- blocks -------------------------------------------------------------------------
    def _block(self, realize: tir.SBlockRealize, indent: int, out: list[str]) -> None:
        blk = realize.block
        pad, inner = INDENT * indent, INDENT * (indent + 1)
        out.append(f"{pad}with {self.t('sblock')}({_quote(blk.name)}):")
        self.names.push()
        self._iter_vars(blk.iter_vars, realize.iter_values, inner, out)
        if not _is_true(realize.predicate):
            out.append(f"{inner}{self.t('where')}({self.prim(realize.predicate)})")
        out.append(f"{inner}{self.t('reads')}({', '.join(self._region(r) for r in blk.reads)})")
        out.append(f"{inner}{self.t('writes')}({', '.join(self._region(r) for r in blk.writes)})")
        if len(blk.annotations):
            out.append(f"{inner}{self.t('sblock_attr')}({self._attrs(blk.annotations)})")
        for buf in blk.alloc_buffers:
            out.append(inner + self._alloc_line(buf))
        for mb in blk.match_buffers:
            source = self._region(mb.source)
            call = self._buffer_call("match_buffer", mb.buffer, always_dtype=False, prefix=source)
            out.append(f"{inner}{self._define_buffer(mb.buffer)} = {call}")
        if blk.init is not None:
            out.append(f"{inner}with {self.t('init')}():")
            self._scoped(blk.init, indent + 2, out)
        self.stmt(blk.body, indent + 1, out)
        self.names.pop()

    def _iter_vars(self, iter_vars, values, pad: str, out: list[str]) -> None:
        """``T.axis.remap`` for each run of two or more iter vars bound to enclosing loop
        variables over the loops' own ranges (spatial or reduce), as TVM prints them;
        ``T.axis.<kind>(dom, value)`` for the others."""
        run: list[tuple[tir.IterVar, P.PrimExpr]] = []

        def flush() -> None:
            if len(run) >= 2:
                bindings = [self.prim(v) for _, v in run]
                names = [self.names.define(iv.var, iv.var.name) for iv, _ in run]
                kinds = "".join(iv.kind for iv, _ in run)
                out.append(f"{pad}{', '.join(names)} = {self.t('axis.remap')}"
                           f"({_quote(kinds)}, [{', '.join(bindings)}])")
            else:
                for iv, v in run:
                    self._single_axis(iv, v, pad, out)
            run.clear()

        for iv, value in zip(iter_vars, values):
            if self._remappable(iv, value):
                run.append((iv, value))
            else:
                flush()
                self._single_axis(iv, value, pad, out)
        flush()

    def _remappable(self, iv: tir.IterVar, value: P.PrimExpr) -> bool:
        if iv.kind not in ("S", "R") or not isinstance(value, P.Var):
            return False
        loop = self.loops.get(id(value))
        return (loop is not None and iv.var.dtype == value.dtype
                and _same_expr(loop.min, iv.dom.min) and _same_expr(loop.extent, iv.dom.extent))

    def _single_axis(self, iv: tir.IterVar, value: P.PrimExpr, pad: str, out: list[str]) -> None:
        kind = tir.ITER_KINDS.get(iv.kind)
        if kind is None:
            raise PrintError(f"unknown iter var kind {iv.kind!r}")
        if _is_zero(iv.dom.min):
            dom = self.prim(iv.dom.extent)
        else:
            dom = f"({self.prim(iv.dom.min)}, {self.prim(_plus(iv.dom.min, iv.dom.extent))})"
        binding = self.prim(value)
        name = self.names.define(iv.var, iv.var.name)
        out.append(f"{pad}{name} = {self.t('axis.' + kind)}({dom}, {binding})")


class _RelaxAttrs(_RelaxPrinter):
    """Attribute dicts inside a PrimFunc: Relax attribute spelling, TIR literals."""

    def __init__(self, owner: _TirPrinter):
        super().__init__(owner.ctx, owner.names)
        self._owner = owner

    def prim(self, e: P.PrimExpr) -> str:
        return self._owner.prim(e)

    def _typed(self, e: P.PrimExpr) -> str:
        return self._owner._typed(e)


def _plain_serial(loop: tir.For) -> bool:
    """A loop TVM folds into ``range(n)`` / ``T.grid``: serial from 0, no annotations."""
    return (loop.kind == "serial" and _is_zero(loop.min) and not len(loop.annotations)
            and loop.thread_tag is None)


def _root_block(body: tir.Stmt) -> tir.SBlock | None:
    """The implicit root block TVM prints as the comment ``# with T.sblock("root"):``."""
    if not isinstance(body, tir.SBlockRealize):
        return None
    blk = body.block
    if (blk.name == "root" and not blk.iter_vars and not body.iter_values
            and _is_true(body.predicate) and not blk.reads and not blk.writes
            and blk.init is None and not blk.match_buffers and not len(blk.annotations)):
        return blk
    return None


__all__ = ["print_module", "print_function", "print_struct_info", "print_prim_expr",
           "print_expr", "PrintError"]
