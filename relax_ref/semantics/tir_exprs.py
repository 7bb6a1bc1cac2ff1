"""TIR expressions: values, arithmetic, casts, intrinsics and the evaluator that both
paths of the TIR interpreter share (spec/tir_semantics.md; ``tir_interp.py`` runs
statements, ``tir_vector.py`` whole loop nests).

``Evaluator.eval`` computes an expression on NumPy scalars and on NumPy arrays alike
(the vectorized path binds loop variables to arrays), so both paths have one expression
semantics. The subclass that runs a PrimFunc provides the state it reads: ``env`` (the
values of variables), ``array_of`` / ``indices`` (buffers), and for the vectorized path
``axes`` (None outside a vectorized nest), ``load_view`` and ``eval_split``.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import ml_dtypes
import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import DataType, DTypeError
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.ir.uses import stored_storage, tir_nodes
from relax_ref.errors import RuntimeCheckError
from relax_ref.numerics import (
    erf, float_floor_div, float_floor_mod, float_to_int, out_of_range_int, trunc_div, trunc_mod,
    wrap_int,
)
from relax_ref.solver.evaluate import dtype_range
from relax_ref.semantics.tir_packed import PACKED_INTRINSICS


class _Return(Exception):
    """``T.ret(value)``: leaves the function with a value (EXEC-tir-eval-2)."""

    def __init__(self, value):
        super().__init__("T.ret")
        self.value = value


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------

def _error(message: str, node, check: str, rule: str) -> RuntimeCheckError:
    return RuntimeCheckError(message, getattr(node, "span", None), check=check, rule=rule)


def _unsupported(what: str, node) -> RuntimeCheckError:
    return _error(f"{what} is not supported by the reference TIR interpreter", node,
                  "unsupported", "EXEC-tir-intrin-4")


def _ill_typed(message: str, node) -> RuntimeCheckError:
    return _error(message, node, "ill_typed", "EXEC-tir-type-1")


# ---------------------------------------------------------------------------------------
# Values and arithmetic
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _np(dt: DataType) -> np.dtype:
    try:
        return numpy_dtype(dt)
    except DTypeError:
        raise _unsupported(f"data type {dt}", None) from None


def _is_array(v) -> bool:
    return isinstance(v, np.ndarray) and v.ndim > 0


def _select(c, t, f):
    """Elementwise ``t if c else f`` (both already evaluated)."""
    if isinstance(c, np.ndarray):
        return np.where(c, t, f)
    return t if c else f


def _to_f64(x):
    return x.astype(np.float64)


def _round_to(y, dt: DataType):
    """A float64 result rounded once to ``dt`` (EXEC-tir-float-1)."""
    if not isinstance(y, (np.ndarray, np.generic)):
        y = np.float64(y)
    return y.astype(_np(dt))


def _check_divisor(b, node) -> None:
    """EXEC-tir-div-3: integer division or remainder by zero traps."""
    if isinstance(b, np.ndarray):
        if not b.all():
            raise _error("integer division by zero", node, "division_by_zero", "EXEC-tir-div-3")
    elif b == 0:
        raise _error("integer division by zero", node, "division_by_zero", "EXEC-tir-div-3")


# Binary arithmetic: ``f(a, b, dt, node)`` with both operands of dtype ``dt``.

def _add(a, b, dt, node):
    return a + b


def _sub(a, b, dt, node):
    return a - b


def _mul(a, b, dt, node):
    return a * b


def _div(a, b, dt, node):
    """``/``: IEEE division for floats; truncating division for integers (EXEC-tir-div-2)."""
    if dt.is_float:
        return a / b
    _check_divisor(b, node)
    return trunc_div(a, b)


def _mod(a, b, dt, node):
    """``T.truncmod``: the remainder with the sign of the dividend (EXEC-tir-div-2)."""
    if dt.is_float:
        return _round_to(trunc_mod(_to_f64(a), _to_f64(b)), dt)
    _check_divisor(b, node)
    return trunc_mod(a, b)


def _floordiv(a, b, dt, node):
    """``//``: the quotient rounded toward minus infinity (EXEC-tir-div-1); for floats
    ``floor(a / b)``, as TVM lowers it."""
    if dt.is_float:
        return float_floor_div(a, b)
    _check_divisor(b, node)
    return a // b


def _floormod(a, b, dt, node):
    """``%``: ``a - floordiv(a, b) * b``, the sign of the divisor (EXEC-tir-div-1)."""
    if dt.is_float:
        return float_floor_mod(a, b)
    _check_divisor(b, node)
    return a % b


def _min(a, b, dt, node):
    """EXEC-tir-float-2: ``select(a < b, a, b)``, as TVM's code generators emit it."""
    return _select(a < b, a, b)


def _max(a, b, dt, node):
    """EXEC-tir-float-2: ``select(a > b, a, b)``."""
    return _select(a > b, a, b)


def _ne(a, b, dt, node):
    """EXEC-tir-cmp-1: comparisons of floats are ordered; NaN != NaN is false."""
    if dt.is_float:
        return (a < b) | (a > b)
    return a != b


_ARITH: dict[type, Callable] = {
    P.Add: _add, P.Sub: _sub, P.Mul: _mul, P.Div: _div, P.Mod: _mod,
    P.FloorDiv: _floordiv, P.FloorMod: _floormod, P.Min: _min, P.Max: _max,
}
_COMPARE: dict[type, Callable] = {
    P.EQ: lambda a, b, dt, node: a == b,
    P.NE: _ne,
    P.LT: lambda a, b, dt, node: a < b,
    P.LE: lambda a, b, dt, node: a <= b,
    P.GT: lambda a, b, dt, node: a > b,
    P.GE: lambda a, b, dt, node: a >= b,
}


def _cast(v, src: DataType, dst: DataType, node):
    """EXEC-tir-cast-1 .. 3."""
    if src == dst:
        return v
    to = _np(dst)
    if dst.is_bool:
        return v != 0  # a float NaN converts to True (LLVM's fcmp une)
    if src.is_float and dst.is_integer:
        return float_to_int(v, to)
    if dst.is_float or dst.is_integer:
        # int->int wraps (EXEC-tir-int-1); int->float and float->float round to nearest.
        return v.astype(to)
    raise _unsupported(f"cast from {src} to {dst}", node)


# ---------------------------------------------------------------------------------------
# Intrinsics (EXEC-tir-intrin-1 .. 4)
# ---------------------------------------------------------------------------------------

# Functions computed in float64 and rounded once to the result's type: the correctly
# rounded result, but for rare double-rounding cases (EXEC-tir-intrin-1).
_MATH1: dict[str, Callable] = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x),
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "expm1": np.expm1, "erf": erf, "tanh": np.tanh, "sqrt": np.sqrt,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh,
    # Exact in any precision: computing in float64 changes nothing.
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    # TVM 0.27 lowers T.round to llvm.nearbyint: round half to even.
    "round": np.rint, "nearbyint": np.rint,
}
_MATH2: dict[str, Callable] = {
    "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod,
    "copysign": np.copysign,
}
_BITWISE: dict[str, Callable] = {
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}


def _intrinsic_name(op: str) -> str:
    for prefix in ("tir.", "tirx."):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op


def _float_operand(m: "Evaluator", e: P.Call, i: int = 0):
    x = m.eval(e.args[i])
    dt = e.args[i].dtype
    if not dt.is_float or dt != e.dtype:
        raise _ill_typed(f"{e.op} takes a float of the result's type ({e.dtype}), found {dt}", e)
    return x


def _i_math1(m, e):
    fn = _MATH1[_intrinsic_name(e.op)]
    x = _float_operand(m, e)
    return _round_to(fn(_to_f64(x)), e.dtype)


def _i_math2(m, e):
    fn = _MATH2[_intrinsic_name(e.op)]
    a, b = _float_operand(m, e, 0), _float_operand(m, e, 1)
    return _round_to(fn(_to_f64(a), _to_f64(b)), e.dtype)


def _i_abs(m, e):
    x = m.eval(e.args[0])
    if e.dtype.is_float:
        return _round_to(np.abs(_to_f64(x)), e.dtype)
    return np.abs(x)  # wraps: abs(INT_MIN) == INT_MIN


def _i_rsqrt(m, e):
    """TVM's legalization: ``1 / sqrt(x)``, each operation rounded to the type."""
    x = _float_operand(m, e)
    return _np(e.dtype).type(1) / _round_to(np.sqrt(_to_f64(x)), e.dtype)


def _i_sigmoid(m, e):
    """TVM's legalization: ``1 / (1 + exp(-x))``, each operation rounded to the type."""
    x = _float_operand(m, e)
    one = _np(e.dtype).type(1)
    return one / (one + _round_to(np.exp(_to_f64(-x)), e.dtype))


def _i_classify(m, e):
    x = m.eval(e.args[0])
    name = _intrinsic_name(e.op)
    if not e.args[0].dtype.is_float:
        const = name == "isfinite"
        return np.full(x.shape, const) if _is_array(x) else np.bool_(const)
    f = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}[name]
    return f(_to_f64(x))


def _i_nextafter(m, e):
    a, b = _float_operand(m, e, 0), _float_operand(m, e, 1)
    if e.dtype.bits not in (16, 32, 64) or e.dtype.code != "float":
        raise _unsupported(f"nextafter on {e.dtype}", e)
    return np.nextafter(a, b)


def _i_ldexp(m, e):
    x = _float_operand(m, e, 0)
    n = m.eval(e.args[1])
    return _round_to(np.ldexp(_to_f64(x), n.astype(np.int64)), e.dtype)


def _i_bitwise(m, e):
    a, b = m.eval(e.args[0]), m.eval(e.args[1])
    _check_integer_operands(e, a, b)
    return _BITWISE[_intrinsic_name(e.op)](a, b)


def _i_bitwise_not(m, e):
    a = m.eval(e.args[0])
    _check_integer_operands(e, a)
    return np.invert(a)


def _check_integer_operands(e, *values) -> None:
    want = _np(e.dtype)
    for v in values:
        if v.dtype != want or not (e.dtype.is_integer or e.dtype.is_bool):
            raise _ill_typed(f"{e.op} takes integers of type {e.dtype}, found {v.dtype}", e)


def _i_shift(m, e):
    """EXEC-tir-intrin-3: shifts by an amount outside [0, bits) have no value in LLVM;
    here they trap. Left shifts wrap; right shifts of signed values are arithmetic."""
    a, k = m.eval(e.args[0]), m.eval(e.args[1])
    _check_integer_operands(e, a)
    if e.args[1].dtype.is_float:
        raise _ill_typed(f"{e.op} by a float amount", e)
    bits = e.dtype.bits
    bad = (k < 0) | (k >= bits)
    if np.any(bad):
        raise _error(f"{e.op} by an amount outside [0, {bits})", e, "shift_out_of_range",
                     "EXEC-tir-intrin-3")
    if _intrinsic_name(e.op) == "shift_right":
        return np.right_shift(a, k.astype(a.dtype))
    if e.dtype.is_int:
        unsigned = np.dtype(f"uint{bits}")
        return np.left_shift(a.astype(unsigned), k.astype(unsigned)).astype(a.dtype)
    return np.left_shift(a, k.astype(a.dtype))


def _i_popcount(m, e):
    a = m.eval(e.args[0])
    _check_integer_operands(e, a)
    unsigned = np.dtype(f"uint{e.dtype.bits}")
    return np.bitwise_count(a.astype(unsigned)).astype(_np(e.dtype))


def _i_reinterpret(m, e):
    a = m.eval(e.args[0])
    to = _np(e.dtype)
    if to.itemsize != a.dtype.itemsize:
        raise _ill_typed(f"reinterpret of {a.dtype} as {e.dtype}: the widths differ", e)
    return a.view(to)


def _i_likely(m, e):
    return m.eval(e.args[0])


def _i_if_then_else(m, e):
    """EXEC-tir-intrin-2: lazy; only the chosen arm is evaluated (per element)."""
    if m.axes is not None:
        value = m.eval_split(e.args[0], e.args[1], e.args[2], e.dtype)
        if value is not None:
            return value
    c = m.eval(e.args[0])
    if not isinstance(c, np.ndarray):
        return m.eval(e.args[1]) if c else m.eval(e.args[2])
    return m.eval_choice(c, e.args[1], e.args[2], e.dtype)


def _i_extreme(m, e):
    name = _intrinsic_name(e.op)
    dt = e.dtype
    npdt = _np(dt)
    if dt.is_float:
        info = ml_dtypes.finfo(npdt)
        value = {"max_value": info.max, "min_value": info.min, "infinity": np.inf,
                 "neg_infinity": -np.inf}[name]
        return np.array(value).astype(npdt)[()]
    lo, hi = dtype_range(dt)
    if name not in ("max_value", "min_value"):
        raise _unsupported(f"T.{name}({dt})", e)
    return npdt.type(hi if name == "max_value" else lo)


def _i_ret(m, e):
    raise _Return(m.eval(e.args[0]))


_INTRINSICS: dict[str, Callable] = {
    **{name: _i_math1 for name in _MATH1},
    **{name: _i_math2 for name in _MATH2},
    **{name: _i_bitwise for name in _BITWISE},
    "abs": _i_abs, "fabs": _i_abs, "rsqrt": _i_rsqrt, "sigmoid": _i_sigmoid,
    "isnan": _i_classify, "isinf": _i_classify, "isfinite": _i_classify,
    "nextafter": _i_nextafter, "ldexp": _i_ldexp, "bitwise_not": _i_bitwise_not,
    "shift_left": _i_shift, "shift_right": _i_shift, "popcount": _i_popcount,
    "reinterpret": _i_reinterpret, "likely": _i_likely, "if_then_else": _i_if_then_else,
    "max_value": _i_extreme, "min_value": _i_extreme, "infinity": _i_extreme,
    "neg_infinity": _i_extreme, "ret": _i_ret,
    **PACKED_INTRINSICS,
}
# Intrinsics the vectorized path may meet (``ret`` leaves the function, a packed call
# works on whole arrays: scalar only).
_VECTOR_INTRINSICS = frozenset(_INTRINSICS) - {"ret"} - set(PACKED_INTRINSICS)


# Pure for WF-pure-4: those evaluated here but a packed call (it writes its arrays), and
# reads TVM marks kReadState (a DLTensor's fields), which the interpreter does not evaluate.
_PURE_INTRINSICS = frozenset(_INTRINSICS) - {"call_packed"} | {"tvm_struct_get"}


def prim_func_is_pure(func: tir.PrimFunc) -> bool:
    """WF-pure-4: a PrimFunc is pure when it stores only into buffers it allocates itself
    and calls only the intrinsics evaluated here (math, no packed or extern calls), as
    TVM's ``IsPureFunction`` judges it; a direct call of it then has no effect."""
    own: set = set()
    for node in tir_nodes(func.body):
        if isinstance(node, tir.SBlock):
            own.update(b.data if b.data is not None else b for b in node.alloc_buffers)
        elif isinstance(node, tir.Allocate):
            own.add(node.buffer_var)
        elif isinstance(node, P.Call) and _intrinsic_name(node.op) not in _PURE_INTRINSICS:
            return False
    return stored_storage(func) <= own


# ---------------------------------------------------------------------------------------
# Facts kept per IR node, constants, access checks
# ---------------------------------------------------------------------------------------

class _NodeCache:
    """Facts that depend on an IR node alone, kept across runs: by ``id``, with the node
    itself (which keeps the id from being reused), bounded in size."""

    __slots__ = ("entries", "compute")
    LIMIT = 100_000

    def __init__(self, compute: Callable):
        self.entries: dict[int, tuple[Any, Any]] = {}
        self.compute = compute

    def __call__(self, node):
        entry = self.entries.get(id(node))
        if entry is None or entry[0] is not node:
            if len(self.entries) >= self.LIMIT:
                self.entries.clear()
            entry = self.entries[id(node)] = (node, self.compute(node))
        return entry[1]


def _constant_value(e: P.IntImm | P.FloatImm):
    """The value of a constant: an integer wrapped into its type (EXEC-tir-int-1), a
    float rounded to its type."""
    dt = e.dtype
    if dt.lanes != 1:
        raise _unsupported(f"vector constant of type {dt}", e)
    if type(e) is P.FloatImm:
        return np.array(e.value).astype(_np(dt))[()]
    if dt.is_bool:
        return np.bool_(e.value != 0)
    if dt.is_float:
        return np.array(float(e.value)).astype(_np(dt))[()]
    lo, hi = dtype_range(dt)
    return _np(dt).type(e.value if lo <= e.value <= hi else wrap_int(e.value, dt))


_constant = _NodeCache(_constant_value)  # constants are immutable: computed once per node
_free_vars = _NodeCache(lambda e: frozenset(P.free_vars(e)))


_MISSING = object()


def _checked_indices(buf: tir.Buffer, shape: tuple, idx: tuple, node, access: str) -> tuple:
    out = []
    for d, (i, n) in enumerate(zip(idx, shape)):
        if i.dtype.kind not in "iu":
            raise _ill_typed(f"index {d} of buffer {buf.name} has type {i.dtype}", node)
        if type(i) is np.ndarray:
            if i.size and (i.min() < 0 or i.max() >= n):
                bad = i[(i < 0) | (i >= n)].flat[0]
                raise _out_of_bounds(buf, shape, d, int(bad), node, access)
            out.append(i.astype(np.intp, copy=False))
        else:
            k = int(i)
            if k < 0 or k >= n:
                raise _out_of_bounds(buf, shape, d, k, node, access)
            out.append(k)
    return tuple(out)


def _out_of_bounds(buf, shape, d, k, node, access) -> RuntimeCheckError:
    rule = "EXEC-tir-load-1" if access == "load" else "EXEC-tir-store-1"
    return _error(f"{access} of buffer {buf.name}: index {k} of dimension {d} is outside "
                  f"[0, {shape[d]}) (shape {tuple(shape)})", node, "index_out_of_bounds", rule)


def _text(e: P.PrimExpr) -> str:
    if isinstance(e, P.IntImm):
        return str(e.value)
    if isinstance(e, P.Var):
        return e.name
    if isinstance(e, P.BinaryOp):
        return f"({_text(e.a)} {e.symbol} {_text(e.b)})"
    return type(e).__name__


# ---------------------------------------------------------------------------------------
# The evaluator
# ---------------------------------------------------------------------------------------

class Evaluator:
    """Evaluates TIR expressions in the state of a run (see the module docstring)."""

    env: dict
    axes: dict | None

    # -- expressions ------------------------------------------------------------------------
    def eval(self, e: P.PrimExpr):
        """The value of ``e``: a NumPy scalar, or an array on the vectorized path."""
        fn = _EVAL.get(type(e))
        if fn is None:
            raise _unsupported(f"expression {type(e).__name__}", e)
        return fn(self, e)

    def to_int(self, e: P.PrimExpr, node) -> int:
        if type(e) is P.IntImm:
            v = _constant(e)
        else:
            v = self.eval(e)
            if type(v) is np.ndarray:
                raise _unsupported("a loop bound or extent that varies inside a vectorized "
                                   "nest", e)
        if not (e.dtype.is_integer or e.dtype.is_bool):
            raise _ill_typed(f"an integer expected, found {e.dtype}", node)
        return int(v)

    def _condition(self, e: P.PrimExpr) -> bool:
        v = self.eval(e)
        if type(v) is np.ndarray:
            raise _unsupported("a condition that varies inside a vectorized nest", e)
        return bool(v)

    def _eval_const(self, e: P.IntImm | P.FloatImm):
        return _constant(e)

    def _eval_var(self, e: P.Var):
        v = self.env.get(e, _MISSING)
        if v is _MISSING:
            raise _error(f"variable {e.name} has no value here", e, "unbound_variable",
                         "EXEC-tir-var-1")
        return v

    def _eval_arith(self, e: P.BinaryOp):
        """EXEC-tir-int-1, EXEC-tir-div-*, EXEC-tir-float-1 .. 2."""
        a, b = self.eval(e.a), self.eval(e.b)
        want = _np(e.dtype)
        if a.dtype != want or b.dtype != want:
            raise _ill_typed(f"{type(e).__name__} of {e.dtype} applied to {a.dtype} and "
                             f"{b.dtype}", e)
        return _ARITH[type(e)](a, b, e.dtype, e)

    def _eval_compare(self, e: P.BinaryOp):
        """EXEC-tir-cmp-1."""
        a, b = self.eval(e.a), self.eval(e.b)
        if a.dtype != b.dtype:
            raise _ill_typed(f"comparison of {a.dtype} with {b.dtype}", e)
        return _COMPARE[type(e)](a, b, e.a.dtype, e)

    def _eval_logic(self, e: P.BinaryOp):
        """EXEC-tir-logic-1: both operands are evaluated (no short circuit)."""
        a, b = self.eval(e.a), self.eval(e.b)
        if a.dtype != np.bool_ or b.dtype != np.bool_:
            raise _ill_typed(f"{type(e).__name__} of {a.dtype} and {b.dtype}", e)
        return (a & b) if type(e) is P.And else (a | b)

    def _eval_not(self, e: P.Not):
        a = self.eval(e.a)
        if a.dtype != np.bool_:
            raise _ill_typed(f"Not of {a.dtype}", e)
        return ~a

    def _eval_select(self, e: P.Select):
        """EXEC-tir-select-1: both arms are evaluated; the condition picks one."""
        c = self.eval(e.condition)
        t, f = self.eval(e.true_value), self.eval(e.false_value)
        if t.dtype != f.dtype:
            raise _ill_typed(f"Select of {t.dtype} and {f.dtype}", e)
        return _select(c, t, f)

    def _eval_cast(self, e: P.Cast):
        return _cast(self.eval(e.value), e.value.dtype, e.dtype, e)

    def _eval_let(self, e: P.Let):
        value = self.eval(e.value)
        old = self.env.get(e.var, _MISSING)
        self.env[e.var] = value
        # A Let that rebinds an axis of the grid hides it (EXEC-tir-vec-3).
        axis = None if self.axes is None else self.axes.pop(e.var, None)
        try:
            return self.eval(e.body)
        finally:
            if old is _MISSING:
                del self.env[e.var]
            else:
                self.env[e.var] = old
            if axis is not None:
                self.axes[e.var] = axis

    def _eval_call(self, e: P.Call):
        handler = _INTRINSICS.get(_intrinsic_name(e.op))
        if handler is None:
            raise _unsupported(f"intrinsic {e.op}", e)
        return handler(self, e)

    def _eval_load(self, e: tir.BufferLoad):
        """EXEC-tir-load-1. On the grid of the vectorized path, a load whose indices
        allow it reads a view of the buffer (``load_on_grid``: the same elements as the
        gather, without it)."""
        arr = self.array_of(e.buffer, e)
        if self.axes is not None:
            view = self.load_on_grid(arr, e)
            if view is not None:
                return view
        return arr[self.indices(e.buffer, arr, e.indices, e, "load")]


_EVAL: dict[type, Callable] = {
    P.IntImm: Evaluator._eval_const,
    P.FloatImm: Evaluator._eval_const,
    P.Var: Evaluator._eval_var,
    **{cls: Evaluator._eval_arith for cls in P.ARITH_OPS},
    **{cls: Evaluator._eval_compare for cls in P.COMPARE_OPS},
    P.And: Evaluator._eval_logic,
    P.Or: Evaluator._eval_logic,
    P.Not: Evaluator._eval_not,
    P.Select: Evaluator._eval_select,
    P.Cast: Evaluator._eval_cast,
    P.Let: Evaluator._eval_let,
    P.Call: Evaluator._eval_call,
    tir.BufferLoad: Evaluator._eval_load,
}

