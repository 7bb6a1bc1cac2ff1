"""The text form of PrimExprs and struct info, as TVMScript writes them.

Below the parser and every other layer, so error messages anywhere (ops, normalization,
the interpreter) can show an annotation or a shape as the user wrote it, and the printer
(parser/printer.py) builds its Relax and TIR printers on the same class. The rules are
spec/syntax.md's "Printing" rules; ``PRINT-dev`` marks a spelling chosen where TVM 0.27's
own output cannot be read back.

Precedence. PrimExprs print with Python's operator precedence and the fewest
parentheses that give back the same tree (``a - (b - c)``, ``(a < b) == c``).

Nothing here mutates the IR, and the text depends only on the IR (deterministic).
"""
from __future__ import annotations

import keyword
import math
import re
from typing import Iterable

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT32, INT64, DataType

INDENT = "    "

# Names that TVMScript text resolves before any variable (scope.ROOT_NAMESPACES, the
# module alias and the metadata table), so no variable may print under them.
RESERVED = ("R", "T", "I", "tvm", "cls", "metadata")
TIR_RESERVED = RESERVED + ("range",)

# TIR intrinsics that TVMScript writes with the result dtype as first argument.
DTYPE_FIRST_INTRINSICS = ("call_extern", "call_pure_extern", "call_intrin",
                          "call_llvm_intrin", "call_llvm_pure_intrin")

# Python operator precedence, lowest first (the Python reference, section 6.17).
_OR, _AND, _NOT, _CMP, _ADD, _MUL, _UNARY, _ATOM = 1, 2, 3, 4, 9, 10, 11, 14

_INFIX = {P.Add: ("+", _ADD), P.Sub: ("-", _ADD), P.Mul: ("*", _MUL),
          P.FloorDiv: ("//", _MUL), P.FloorMod: ("%", _MUL),
          P.EQ: ("==", _CMP), P.NE: ("!=", _CMP), P.LT: ("<", _CMP), P.LE: ("<=", _CMP),
          P.GT: (">", _CMP), P.GE: (">=", _CMP), P.And: ("and", _AND), P.Or: ("or", _OR)}
_FUNC_STYLE = {P.Mod: "truncmod", P.Min: "min", P.Max: "max"}


# How the reader types ``T.<name>(args)`` written without ``dtype=``; the parser
# (prim_builder.intrinsic) and the printer (which leaves ``dtype=`` out when the reader
# would give the same type back) share these tables.
# Intrinsics whose result has the dtype of their first operand.
SAME_DTYPE_INTRINSICS = {
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "erf", "tanh", "sigmoid",
    "sqrt", "rsqrt", "fabs", "abs", "floor", "ceil", "round", "nearbyint", "trunc",
    "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
    "pow", "atan2", "fmod", "hypot", "copysign", "nextafter", "ldexp", "clz", "popcount",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right",
    "likely", "q_multiply_shift", "power", "tvm_thread_invariant",
}
BOOL_INTRINSICS = {"isnan", "isinf", "isfinite", "isnullptr"}

INTRINSIC_ALIASES = {"power": "pow"}
# Intrinsics whose result type is fixed, as TVM's tirx.op builds them.
FIXED_DTYPE_INTRINSICS = {
    "assume": BOOL, "undef": INT32, "tvm_struct_set": INT32,
    "call_packed": INT32, "call_cpacked": INT32,
    "anylist_getitem": HANDLE,
    "anylist_resetitem": INT32, "anylist_setitem_call_packed": INT32,
    "anylist_setitem_call_cpacked": INT32,
    "tvm_stack_make_array": HANDLE, "tvm_stack_make_shape": HANDLE,  # SYN-tir-packed-1
}
# Intrinsics that TVMScript writes with the result dtype as last argument.
DTYPE_LAST_INTRINSICS = ("tvm_struct_get",)


def intrinsic_result_dtype(name: str, args: tuple[P.PrimExpr, ...]) -> DataType | None:
    """The dtype the reader gives ``T.<name>(args)`` without ``dtype=``, or None when it
    needs one."""
    name = INTRINSIC_ALIASES.get(name, name)
    if name in FIXED_DTYPE_INTRINSICS:
        return FIXED_DTYPE_INTRINSICS[name]
    if name in BOOL_INTRINSICS:
        return BOOL
    if name in SAME_DTYPE_INTRINSICS and args:
        return args[0].dtype
    return None


class PrintError(ValueError):
    """IR that has no TVMScript spelling (an ``If`` not bound to a variable, a constant
    whose shape a nested list cannot carry, ...)."""


# ======================================================================================
# Public entry points (for messages)


def print_struct_info(sinfo: si.StructInfo) -> str:
    """An annotation, e.g. ``R.Tensor((n, 4), dtype="float32")``, with variables under
    their own names (for messages)."""
    return PrimPrinter(TextContext("Module"), Names.raw()).struct_info(sinfo)


def print_prim_expr(expr: P.PrimExpr, *, tir_style: bool = False) -> str:
    """A PrimExpr as Relax shapes write it (int64 literals bare), or as TIR writes it
    (int32 literals bare, ``T.int64(16)``) when ``tir_style``."""
    printer_cls = TirPrimPrinter if tir_style else PrimPrinter
    return printer_cls(TextContext("Module"), Names.raw()).prim(expr)


# ======================================================================================
# Context and names


class TextContext:
    """What a module header needs to know, gathered while the functions print."""

    def __init__(self, module_name: str):
        self.module_name = module_name
        self.type_vars: set[str] = set()
        self.uses_tir = False      # some ``T.`` name is printed
        self.uses_relax = False    # some Relax function is printed
        # PRINT-sym-1: names some function declares in its body (``m = T.int64()``), and
        # the names a module-level TypeVar must then not take.
        self.body_declared: set[str] = set()
        self.avoid: set[str] = set()

    def type_var_hint(self, hint: str) -> str:
        """``hint``, or the first ``hint_k`` not in ``avoid`` (PRINT-sym-1)."""
        if hint not in self.avoid:
            return hint
        k = 1
        while f"{hint}_{k}" in self.avoid:
            k += 1
        return f"{hint}_{k}"



def identifier(hint: str) -> str:
    """``hint`` made a Python identifier that names no keyword or literal."""
    name = re.sub(r"\W", "_", hint or "")
    if not name:
        name = "v"
    if name[0].isdigit():
        name = "v_" + name
    if keyword.iskeyword(name) or name in ("True", "False", "None"):
        name += "_"
    return name


class Names:
    """The printed name of each variable, buffer and symbolic variable of one function.

    Objects are keyed by identity. ``scoped`` names are released by ``pop`` (TIR loop,
    block and let scopes); others live until the function ends."""

    def __init__(self, reserved: Iterable[str] = (), raw: bool = False):
        self._by_id: dict[int, str] = {}
        self._alive: list[object] = []          # keeps keyed objects alive (ids stay unique)
        self._taken: dict[str, int] = {n: 1 for n in reserved}
        self._scopes: list[list[tuple[int, str]]] = [[]]
        self._raw = raw
        # base -> the suffix to try first: every smaller one is taken (a release clears
        # it), so a name rebound thousands of times costs no scan from _1 each time.
        self._next_suffix: dict[str, int] = {}

    @staticmethod
    def raw() -> "Names":
        """Every object prints under its own (sanitized) name, uniquified never."""
        return Names(raw=True)

    def get(self, obj) -> str | None:
        return self._by_id.get(id(obj))

    def define(self, obj, hint: str, *, root: bool = False) -> str:
        """The name of ``obj``, choosing a fresh one from ``hint`` on first sight."""
        existing = self._by_id.get(id(obj))
        if existing is not None:
            return existing
        base = identifier(hint)
        name = base
        if not self._raw and name in self._taken:
            i = self._next_suffix.get(base, 1)
            while f"{base}_{i}" in self._taken:
                i += 1
            name = f"{base}_{i}"
            self._next_suffix[base] = i + 1
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
                self._next_suffix.pop(re.sub(r"_\d+$", "", name), None)
            else:
                self._taken[name] = count


# ======================================================================================
# Literals


def quote(text: str) -> str:
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


def float_digits(value: float) -> str:
    """A finite float as TVM writes it: 17 significant digits (exact for a double),
    large magnitudes written out in full, always with a ``.`` or an exponent
    (``0.10000000000000001``, ``3.0``, ``1e-08``, ``100000000000000000000.0``)."""
    text = "%.17g" % value
    if "e+" in text:
        return "%.1f" % value
    if "e" not in text and "." not in text:
        text += ".0"
    return text


def python_float(value: float) -> str:
    """A float as a Python expression; NaN and infinities as ``float("nan")`` etc.
    (PRINT-dev: TVM writes ``R.const("nan", ...)``, which it cannot read back)."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return float_digits(value)


def is_zero(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 0


def is_true(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 1 and e.dtype.is_bool


def same_expr(a: P.PrimExpr, b: P.PrimExpr) -> bool:
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
    return len(ca) == len(cb) and all(same_expr(x, y) for x, y in zip(ca, cb))


def plus(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a + b`` for printing an interval's end: folded when both are literals."""
    if is_zero(a):
        return b
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm) and a.dtype == b.dtype:
        return P.IntImm(a.value + b.value, a.dtype)
    return P.Add(a, b, a.dtype)


# ======================================================================================
# PrimExprs and struct info (shared by the Relax and the TIR printer)


class PrimPrinter:
    """Prints PrimExprs. ``default_int`` is the integer type whose literals print bare
    (int64 in Relax, int32 in TIR); ``tir_style`` prints booleans as ``T.bool(...)``."""

    default_int: DataType = INT64
    tir_style = False
    reserved: tuple[str, ...] = RESERVED

    def __init__(self, ctx: TextContext, names: Names | None = None):
        self.ctx = ctx
        self.names = names if names is not None else Names(self.reserved + (ctx.module_name,))
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
            return quote(e.value), _ATOM, False
        if isinstance(e, P.Var):
            return self.var_name(e), _ATOM, False
        if isinstance(e, P.Not):
            text, prec, lit = self._prim(e.a)
            if lit:
                text, prec = self._typed(e.a), _ATOM
            return f"not {paren(text, prec < _NOT)}", _NOT, False
        if isinstance(e, P.Div) and not e.dtype.is_float:
            return self._func("Div", [e.a, e.b]), _ATOM, False
        if isinstance(e, tuple(_FUNC_STYLE)):
            return self._func(_FUNC_STYLE[type(e)], [e.a, e.b]), _ATOM, False
        if isinstance(e, P.BinaryOp):
            return self._infix(e, *_infix_form(e))
        if isinstance(e, P.Select):
            return self._func("Select", [e.condition, e.true_value, e.false_value]), _ATOM, False
        if isinstance(e, P.Cast):
            return f'{self.t("Cast")}({quote(str(e.dtype))}, {self.prim(e.value)})', _ATOM, False
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
            text = float_digits(v)
        return f"{self.t(str(e.dtype))}({text})"

    def _infix(self, e: P.BinaryOp, symbol: str, prec: int) -> tuple[str, int, bool]:
        # The left spine (``x + 1 + 1 + ...``, what a long written chain reads as) is
        # walked in a loop, so the length of a chain cannot exhaust Python's recursion.
        spine = [(e, symbol, prec)]
        node = e.a
        while (info := _infix_form(node)) is not None:
            spine.append((node, *info))
            node = node.a
        left, lprec, llit = self._prim(node)
        for node, symbol, prec in reversed(spine):
            right, rprec, rlit = self._prim(node.b)
            if llit and rlit:
                # Two bare literals would be folded by the reader (``2 * 3`` is 6).
                left, lprec = self._typed(node.a), _ATOM
            # Comparisons chain in Python (a < b < c), so a comparison operand of a
            # comparison is parenthesized on either side; otherwise only the right side of
            # an equal level.
            left = paren(left, lprec < prec or (prec == _CMP and lprec == _CMP))
            right = paren(right, rprec <= prec)
            left, lprec, llit = f"{left} {symbol} {right}", prec, False
        return left, lprec, llit

    def _func(self, name: str, args: list[P.PrimExpr]) -> str:
        return f"{self.t(name)}({', '.join(self.prim(a) for a in args)})"

    def _call(self, e: P.Call) -> str:
        name = e.op[4:] if e.op.startswith("tir.") else e.op
        args = [self.prim(a) for a in e.args]
        if name in DTYPE_FIRST_INTRINSICS:
            args.insert(0, quote(str(e.dtype)))
        elif name in DTYPE_LAST_INTRINSICS:
            args.append(quote(str(e.dtype)))
        elif name != "if_then_else" and intrinsic_result_dtype(name, e.args) != e.dtype:
            args.append(f"dtype={quote(str(e.dtype))}")
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
            return quote(text)
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
                return f"R.Prim({quote(str(s.dtype))})"
            if s.value.dtype == s.dtype:
                return f"R.Prim(value={self.dim(s.value)})"
            return f"R.Prim({quote(str(s.dtype))}, value={self.dim(s.value)})"
        if isinstance(s, si.ShapeStructInfo):
            if s.values is not None:
                return f"R.Shape([{', '.join(self.dim(d) for d in s.values)}])"
            return f"R.Shape(ndim={s.ndim})"
        if isinstance(s, si.TensorStructInfo):
            parts = []
            if s.shape is not None:
                parts.append(self.shape_tuple(s.shape))
            if not s.dtype.is_void:
                parts.append(f"dtype={quote(str(s.dtype))}")
            if s.vdevice is not None:
                parts.append(f"vdevice={quote(s.vdevice)}")
            if s.shape is None and s.ndim != si.UNKNOWN_NDIM:
                parts.append(f"ndim={s.ndim}")
            return f"R.Tensor({', '.join(parts)})" if parts else "R.Tensor"
        if isinstance(s, si.TupleStructInfo):
            if not s.fields:
                return "R.Tuple"
            return f"R.Tuple({', '.join(self.struct_info(f) for f in s.fields)})"
        if isinstance(s, si.FuncStructInfo):
            derive = [f"derive_func={quote(s.derive_func)}"] if s.derive_func else []
            if s.params is None:
                parts = []
                if not isinstance(s.ret, si.ObjectStructInfo):
                    parts.append(f"ret={self.struct_info(s.ret)}")
                if s.purity:  # an opaque callable is impure unless it says so
                    parts.append("purity=True")
                parts += derive
                return f"R.Callable({', '.join(parts)})" if parts else "R.Callable"
            params = [self.struct_info(p) for p in s.params]
            params_text = f"({params[0]},)" if len(params) == 1 else f"({', '.join(params)})"
            parts = [params_text, self.struct_info(s.ret), str(s.purity)] + derive
            return f"R.Callable({', '.join(parts)})"
        raise PrintError(f"cannot print the struct info {type(s).__name__}")


def _infix_form(e) -> tuple[str, int] | None:
    """(operator, precedence) of a binary node printed infix; None for other nodes."""
    if isinstance(e, P.Div):
        return ("/", _MUL) if e.dtype.is_float else None
    if isinstance(e, tuple(_FUNC_STYLE)) or not isinstance(e, P.BinaryOp):
        return None
    return _INFIX[type(e)]


def paren(text: str, needed: bool) -> str:
    return f"({text})" if needed else text


class TirPrimPrinter(PrimPrinter):
    """PrimExprs as TIR writes them: int32 literals bare, booleans as ``T.bool(...)``."""

    default_int = INT32
    tir_style = True
    reserved = TIR_RESERVED
