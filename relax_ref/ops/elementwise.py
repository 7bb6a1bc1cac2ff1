"""Elementwise ops: unary math, binary arithmetic with broadcasting, comparisons and
logic, ``where``, ``astype``, ``clip``, the float binaries ``atan2`` and ``log_add_exp``,
and ``ewise_fma`` (spec/ops/elementwise.md).

Each op's struct-info rule and NumPy semantics sit side by side. Integer arithmetic
wraps around on overflow, as TVM's generated code does; ``divide`` and ``mod`` on
integers truncate toward zero (TIR ``Div``/``Mod``), ``floor_divide``/``floor_mod``
round toward negative infinity.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL
from relax_ref.numerics import float_floor_div, float_floor_mod
from relax_ref.values import PrimScalar

from .common import (
    OpRuntimeError, broadcast_runtime_shapes, broadcast_sinfo, broadcast_values, cast_value,
    common_dtype, erf_array, prim_arg, quiet, same_as, tensor_arg, trunc_div,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype

FAMILY = "elementwise"


# -- deduction rules ---------------------------------------------------------------------------

def _is_prim_call(ctx: DeduceContext) -> bool:
    return all(isinstance(s, si.PrimStructInfo) for s in ctx.arg_sinfo)


def deduce_unary(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-1: the result has the operand's shape and dtype."""
    if _is_prim_call(ctx):
        return si.PrimStructInfo(prim_arg(ctx, 0).dtype)
    return same_as(tensor_arg(ctx, 0))


def deduce_unary_float(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-2: math functions need a float operand (or an unknown dtype)."""
    out = deduce_unary(ctx)
    dtype = out.dtype
    if not dtype.is_void and not dtype.is_float:
        raise ctx.error(f"needs a floating-point operand, found {dtype}", rule="SI-ew-unary-2")
    return out


def deduce_unary_bool(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-3: predicates such as isnan give bool of the operand's shape."""
    x = tensor_arg(ctx, 0)
    return si.TensorStructInfo(x.shape, BOOL, x.ndim, x.vdevice)


def deduce_binary(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-binary-1: dtypes agree; the shape broadcasts (SI-broadcast-*)."""
    if _is_prim_call(ctx):
        return si.PrimStructInfo(common_dtype(ctx, prim_arg(ctx, 0).dtype, prim_arg(ctx, 1).dtype))
    a, b = _tensor_or_scalar(ctx, 0), _tensor_or_scalar(ctx, 1)
    return broadcast_sinfo(ctx, [a, b], common_dtype(ctx, a.dtype, b.dtype))


def deduce_compare(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-compare-1: like binary arithmetic, with a bool result."""
    if _is_prim_call(ctx):
        common_dtype(ctx, prim_arg(ctx, 0).dtype, prim_arg(ctx, 1).dtype)
        return si.PrimStructInfo(BOOL)
    a, b = _tensor_or_scalar(ctx, 0), _tensor_or_scalar(ctx, 1)
    common_dtype(ctx, a.dtype, b.dtype)
    return broadcast_sinfo(ctx, [a, b], BOOL)


def _tensor_or_scalar(ctx: DeduceContext, i: int) -> si.TensorStructInfo:
    """A Prim operand of a binary op acts as a 0-d tensor of its dtype."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.PrimStructInfo):
        return si.TensorStructInfo((), s.dtype)
    return tensor_arg(ctx, i)


def deduce_where(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-where-1: the condition is bool; the branches agree in dtype; all three
    broadcast together."""
    cond, a, b = (tensor_arg(ctx, i) for i in range(3))
    if not cond.dtype.is_void and not cond.dtype.is_bool:
        raise ctx.error(f"the condition must be bool, found {cond.dtype}", rule="SI-ew-where-1")
    return broadcast_sinfo(ctx, [cond, a, b], common_dtype(ctx, a.dtype, b.dtype))


def deduce_astype(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-astype-1: the operand's shape with the requested dtype."""
    x = tensor_arg(ctx, 0)
    dtype = ctx.attr("dtype")
    if dtype.is_void:
        raise ctx.error("needs a dtype", rule="SI-ew-astype-1")
    return si.TensorStructInfo(x.shape, dtype, x.ndim, x.vdevice)


def deduce_clip(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-clip-1: clip(x, min, max) keeps x's struct info; the bounds are scalars."""
    for i in (1, 2):
        prim_arg(ctx, i)
    return deduce_unary(ctx)


def deduce_binary_float(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-binary-2: atan2 and log_add_exp are binary broadcasting ops (SI-ew-binary-1)
    on floating-point operands (or unknown dtypes). TVM accepts integers and then fails
    to compile ``T.atan2``/``T.exp`` of them; we reject them here."""
    out = deduce_binary(ctx)
    dtype = out.dtype
    if not dtype.is_void and not dtype.is_float:
        raise ctx.error(f"needs floating-point operands, found {dtype}", rule="SI-ew-binary-2")
    return out


def deduce_ewise_fma(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-fma-1: ewise_fma(x1, x2, x3) takes three tensors of one dtype and one shape
    (no broadcasting): known ndims agree, and where all three shapes are known every
    dimension must be provably equal (as TVM, an unprovable one is an error: match_cast
    first). The result has that shape."""
    ts = [tensor_arg(ctx, i) for i in range(3)]
    dtype = common_dtype(ctx, *(t.dtype for t in ts))
    ndims = {t.ndim for t in ts if t.ndim >= 0}
    if len(ndims) > 1:
        raise ctx.error(f"the three operands must have the same ndim, found "
                        f"{[t.ndim for t in ts]}", rule="SI-ew-fma-1")
    vdevice = next((t.vdevice for t in ts if t.vdevice is not None), None)
    ndim = ndims.pop() if ndims else si.UNKNOWN_NDIM
    if any(t.shape is None for t in ts):
        return si.TensorStructInfo(None, dtype, ndim, vdevice)
    first = ts[0].shape
    for t in ts[1:]:
        for d, (a, b) in enumerate(zip(first, t.shape)):
            if not ctx.analyzer.prove_equal(a, b):
                raise ctx.error(f"the three operands must have the same shape; dimension {d} "
                                f"may differ ({a} and {b})", rule="SI-ew-fma-1")
    return si.TensorStructInfo(first, dtype, vdevice=vdevice)


# -- NumPy semantics -----------------------------------------------------------------------------

def _binary(np_fn):
    @quiet
    def compute(attrs, a, b):
        if type(a) is np.ndarray and type(b) is np.ndarray:  # the usual case, quickly
            broadcast_runtime_shapes("EXEC-broadcast-1", a.shape, b.shape)
            out = np.asarray(np_fn(a, b))
            return out if out.dtype == a.dtype or out.dtype == np.bool_ else \
                out.astype(a.dtype)
        # EXEC-ew-binary-2: an R.Prim operand acts as a 0-d tensor of its dtype; two
        # R.Prim operands give an R.Prim result.
        both_prim = isinstance(a, PrimScalar) and isinstance(b, PrimScalar)
        a, b = _as_array(a), _as_array(b)
        broadcast_values("EXEC-broadcast-1", a, b)
        out = np_fn(a, b)
        out = np.asarray(out, dtype=a.dtype if out.dtype != np.bool_ else np.bool_)
        if both_prim:
            return PrimScalar(out.item(), BOOL if out.dtype == np.bool_ else _prim_dtype(a, b))
        return out
    return compute


def _as_array(v):
    if isinstance(v, PrimScalar):
        from relax_ref.ir.numpy_dtype import numpy_dtype

        return np.asarray(v.value, dtype=numpy_dtype(v.dtype))
    return v


def _prim_dtype(a, b):
    from relax_ref.ir.numpy_dtype import dtype_of_numpy

    return dtype_of_numpy(a.dtype)


def _int_div_trunc(a, b):
    if np.issubdtype(a.dtype, np.integer):
        if np.any(b == 0):
            raise OpRuntimeError("division_by_zero", "integer division by zero",
                                 rule="EXEC-ew-div-1")
        return trunc_div(a, b).astype(a.dtype)
    return np.true_divide(a, b).astype(a.dtype)


def _int_mod_trunc(a, b):
    if np.issubdtype(a.dtype, np.integer):
        if np.any(b == 0):
            raise OpRuntimeError("division_by_zero", "integer modulo by zero",
                                 rule="EXEC-ew-div-1")
        return np.fmod(a, b).astype(a.dtype)
    return np.fmod(a, b).astype(a.dtype)


def _floor_div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.any(b == 0):
        raise OpRuntimeError("division_by_zero", "integer division by zero", rule="EXEC-ew-div-1")
    if np.issubdtype(a.dtype, np.integer):
        return np.floor_divide(a, b)
    return float_floor_div(a, b).astype(a.dtype)


def _floor_mod(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.any(b == 0):
        raise OpRuntimeError("division_by_zero", "integer modulo by zero", rule="EXEC-ew-div-1")
    if np.issubdtype(a.dtype, np.integer):
        return np.mod(a, b)
    return float_floor_mod(a, b).astype(a.dtype)


_LN2 = float(np.log(2.0))


def _log_add_exp64(a, b):
    """EXEC-ew-logaddexp-1: ``log(exp(a) + exp(b))`` without overflow, in float64:
    ``max(a, b) + log1p(exp(-|a - b|))``, and ``a + log(2)`` where ``a == b`` (so two
    equal infinities give that infinity); a NaN operand gives NaN."""
    big = np.where(a > b, a, b)
    return np.where(a == b, a + _LN2, big + np.log1p(np.exp(-np.abs(a - b))))


def _in_float64(fn):
    """EXEC-ew-unary-1's rounding for a binary function: computed in float64, rounded
    once to the operands' type (as the TIR intrinsics compute, EXEC-tir-intrin-1)."""
    return lambda a, b: fn(np.asarray(a, np.float64), np.asarray(b, np.float64))


@quiet
def _ewise_fma(attrs, a, b, c):
    """EXEC-ew-fma-1: ``x1 * x2 + x3`` with each operation in the operands' type (two
    roundings; integers wrap), on operands of one shape."""
    if not a.shape == b.shape == c.shape:
        raise OpRuntimeError("shape_mismatch", f"ewise_fma needs operands of one shape, "
                             f"found {a.shape}, {b.shape} and {c.shape}", rule="EXEC-ew-fma-1")
    return np.asarray(np.add(np.multiply(a, b), c), dtype=a.dtype)


def _unary(np_fn):
    @quiet
    def compute(attrs, x):
        return np.asarray(np_fn(x), dtype=x.dtype)
    return compute


def _unary_math(np_fn):
    """EXEC-ew-unary-1: math functions compute in float64 and round once to the operand's
    type, as the TIR math intrinsics do (EXEC-tir-intrin-1), so a lowered call computes
    the same bits."""
    @quiet
    def compute(attrs, x):
        return np.asarray(np_fn(x.astype(np.float64)), dtype=x.dtype)
    return compute


def _power(a, b):
    """Float power in float64, rounded once to the type (EXEC-ew-unary-1's rule, as
    ``T.pow`` computes); integer power is NumPy's."""
    if np.issubdtype(a.dtype, np.floating) or a.dtype.kind == "V":
        return np.power(a.astype(np.float64), np.asarray(b).astype(np.float64)).astype(a.dtype)
    return np.power(a, b)


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": _int_div_trunc, "floor_divide": _floor_div, "power": _power,
    "maximum": np.maximum, "minimum": np.minimum, "mod": _int_mod_trunc,
    "floor_mod": _floor_mod,
}
def _shift(np_fn):
    def shift(a, b):
        """EXEC-ew-shift-1: a shift by an amount outside [0, bits) traps (LLVM gives it no
        value; the TIR interpreter traps the same way, EXEC-tir-intrin-3)."""
        bits = np.dtype(a.dtype).itemsize * 8
        b = np.asarray(b)
        used = np.broadcast_to(b, np.broadcast_shapes(np.shape(a), b.shape))  # shifts done
        if np.any((used < 0) | (used >= bits)):
            raise OpRuntimeError("shift_out_of_range",
                                 f"shift by an amount outside [0, {bits})",
                                 rule="EXEC-ew-shift-1")
        return np_fn(a, b)
    return shift


_BITWISE = {
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": _shift(np.left_shift), "right_shift": _shift(np.right_shift),
}
_COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}
_LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
            "logical_xor": np.logical_xor}
_UNARY_ANY = {"negative": np.negative, "abs": np.abs, "square": np.square, "sign": np.sign}
_UNARY_FLOAT = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": _rsqrt, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sigmoid": _sigmoid, "erf": erf_array,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor,
    "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "log1p": np.log1p,
}
# Integer operands that fail a check: a zero divisor (EXEC-ew-div-1), a negative exponent.
_INT_PARTIAL = ("divide", "floor_divide", "mod", "floor_mod", "power", "left_shift",
                "right_shift")
_UNARY_BOOL = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


# -- legalization (spec/ops/elementwise.md "Lowering") ----------------------------------------
# Names follow TVM's TOPI: broadcasting ops compute ``T_<op>`` over loops ``ax0, ax1, ...``,
# unary math ``compute`` over ``i0, i1, ...``.

def _isnan(x: P.PrimExpr) -> P.PrimExpr:
    return te.call_intrin("isnan", x, dtype=BOOL)


def _fmax(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """maximum as NumPy computes it: a NaN operand gives NaN (TIR's ``T.max`` is
    ``a > b ? a : b``, which drops a NaN in ``a``), EXEC-ew-binary-3."""
    if not a.dtype.is_float:
        return P.Max(a, b, a.dtype)
    return te.select(te.any_of(_isnan(a), P.GT(a, b, BOOL)), a, b)


def _fmin(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    if not a.dtype.is_float:
        return P.Min(a, b, a.dtype)
    return te.select(te.any_of(_isnan(a), P.LT(a, b, BOOL)), a, b)


def _xor(a, b):
    return P.NE(a, b, BOOL)


_BINARY_TIR = {
    "add": lambda a, b: P.Add(a, b, a.dtype),
    "subtract": lambda a, b: P.Sub(a, b, a.dtype),
    "multiply": lambda a, b: P.Mul(a, b, a.dtype),
    "divide": lambda a, b: P.Div(a, b, a.dtype),
    # Floats: floor(a / b) and a - floor(a / b) * b, each step rounded (EXEC-tir-div-1,
    # numerics.float_floor_div/mod); TVM reads T.floordiv/floormod of integers only.
    "floor_divide": lambda a, b: te.call_intrin("floor", te.div(a, b)) if a.dtype.is_float
    else P.FloorDiv(a, b, a.dtype),
    "mod": lambda a, b: P.Mod(a, b, a.dtype),
    "floor_mod": lambda a, b: P.Sub(a, P.Mul(te.call_intrin("floor", te.div(a, b)), b, a.dtype),
                                    a.dtype) if a.dtype.is_float
    else P.FloorMod(a, b, a.dtype),
    "power": lambda a, b: te.call_intrin("pow", a, b),
    "maximum": _fmax, "minimum": _fmin,
    "bitwise_and": lambda a, b: te.call_intrin("bitwise_and", a, b),
    "bitwise_or": lambda a, b: te.call_intrin("bitwise_or", a, b),
    "bitwise_xor": lambda a, b: te.call_intrin("bitwise_xor", a, b),
    "left_shift": lambda a, b: te.call_intrin("shift_left", a, b),
    "right_shift": lambda a, b: te.call_intrin("shift_right", a, b),
    "equal": lambda a, b: P.EQ(a, b, BOOL),
    # TIR's float != is ordered (NaN != NaN is false, EXEC-tir-cmp-1); NumPy's is not.
    "not_equal": lambda a, b: P.Not(P.EQ(a, b, BOOL), BOOL) if a.dtype.is_float
    else P.NE(a, b, BOOL),
    "less": lambda a, b: P.LT(a, b, BOOL), "less_equal": lambda a, b: P.LE(a, b, BOOL),
    "greater": lambda a, b: P.GT(a, b, BOOL),
    "greater_equal": lambda a, b: P.GE(a, b, BOOL),
    "logical_and": lambda a, b: P.And(a, b, BOOL), "logical_or": lambda a, b: P.Or(a, b, BOOL),
    "logical_xor": _xor,
}


def _operand(ctx, i: int, out_shape, idx):
    """Operand ``i`` of an elementwise call at ``idx``: a broadcast tensor read, or the
    value of an ``R.Prim`` operand (EXEC-ew-binary-2)."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.PrimStructInfo):
        return ctx.prim(i)
    return ctx.broadcast(ctx.tensor(i), out_shape, idx)


def _legalize_elementwise(name: str, formula):
    """TE-leg-ew-1: ``T_<name>[idx] = formula(operands at idx)`` over the broadcast
    result shape; a call of R.Prim operands only stays a scalar call."""
    def legalize(ctx):
        if not isinstance(ctx.result_sinfo, si.TensorStructInfo):
            return None
        out_shape = ctx.result_shape()
        # Read each operand once outside the formula, so placeholders are made once.
        reads = []
        for i, s in enumerate(ctx.arg_sinfo):
            if isinstance(s, si.PrimStructInfo):
                v = ctx.prim(i)
                reads.append(lambda idx, v=v: v)
            else:
                t = ctx.tensor(i)
                reads.append(lambda idx, t=t: ctx.broadcast(t, out_shape, idx))
        out = te.compute(out_shape, lambda *idx: formula(*(r(idx) for r in reads)),
                         name=f"T_{name}", axis_prefix="ax")
        return ctx.call_te(out, name)
    return legalize


def _int_power_declines(ctx):
    s = ctx.arg_sinfo[0]
    return getattr(s, "dtype", None) is not None and not s.dtype.is_float


def _legalize_power(ctx):
    """Float power is ``T.pow``; an integer power has no TIR intrinsic that computes it
    exactly with NumPy's checks, so it stays (spec: not legalized)."""
    if _int_power_declines(ctx):
        return None
    return _legalize_elementwise("power", _BINARY_TIR["power"])(ctx)


def _sign(x: P.PrimExpr) -> P.PrimExpr:
    zero, one = te.const(0, x.dtype), te.const(1, x.dtype)
    if x.dtype.is_uint:
        return te.select(P.GT(x, zero, BOOL), one, zero)
    minus = te.const(-1, x.dtype)
    inner = te.select(P.LT(x, zero, BOOL), minus, x if x.dtype.is_float else zero)
    return te.select(P.GT(x, zero, BOOL), one, inner)


_UNARY_TIR = {
    # -1 * x is exact and keeps the sign of zero (0 - 0.0 would be +0.0, not -0.0).
    "negative": lambda x: P.Mul(x, te.const(-1, x.dtype), x.dtype) if x.dtype.is_float
    else P.Sub(te.const(0, x.dtype), x, x.dtype),
    "abs": lambda x: te.call_intrin("fabs" if x.dtype.is_float else "abs", x),
    "square": lambda x: P.Mul(x, x, x.dtype),
    "sign": _sign,
    "isnan": lambda x: te.call_intrin("isnan", x, dtype=BOOL),
    "isinf": lambda x: te.call_intrin("isinf", x, dtype=BOOL),
    "isfinite": lambda x: te.call_intrin("isfinite", x, dtype=BOOL),
    "logical_not": lambda x: P.Not(x, BOOL),
    "bitwise_not": lambda x: te.call_intrin("bitwise_not", x),
}
_UNARY_TIR.update({name: (lambda x, n=name: te.call_intrin(n, x)) for name in _UNARY_FLOAT})
# T.sigmoid and T.rsqrt round each step in the operand's type; the op rounds once from
# float64 (EXEC-ew-unary-1), so they compute in float64 and convert at the end.
_UNARY_TIR["sigmoid"] = lambda x: te.cast(x.dtype, te.call_intrin("sigmoid", te.cast("float64", x)))
_UNARY_TIR["rsqrt"] = lambda x: te.cast(x.dtype, te.call_intrin("rsqrt", te.cast("float64", x)))


def _legalize_unary(name: str, formula):
    def legalize(ctx):
        if not isinstance(ctx.result_sinfo, si.TensorStructInfo):
            return None
        x = ctx.tensor(0)
        out = te.compute(x.shape, lambda *i: formula(x[i]), name="compute")
        return ctx.call_te(out, name)
    return legalize


def _atan2_tir(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    return te.call_intrin("atan2", a, b)


def _log_add_exp_tir(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """TE-leg-ew-2: EXEC-ew-logaddexp-1's float64 formula, rounded once to the type
    (TVM lowers ``log(exp(a) + exp(b))`` in the type, which overflows)."""
    f64 = "float64"
    x, y = te.cast(f64, a), te.cast(f64, b)
    big = te.select(P.GT(x, y, BOOL), x, y)
    gap = te.call_intrin("fabs", P.Sub(x, y, x.dtype))
    tail = te.call_intrin("log1p", te.call_intrin("exp", P.Mul(gap, te.const(-1, f64), x.dtype)))
    out = te.select(P.EQ(x, y, BOOL), P.Add(x, te.const(_LN2, f64), x.dtype),
                    P.Add(big, tail, x.dtype))
    return te.cast(a.dtype, out)


def _legalize_where(ctx):
    out_shape = ctx.result_shape()
    c, a, b = (ctx.tensor(i) for i in range(3))
    dtype = ctx.result_sinfo.dtype
    out = te.compute(out_shape, lambda *idx: te.select(
        ctx.broadcast(c, out_shape, idx), ctx.broadcast(a, out_shape, idx),
        ctx.broadcast(b, out_shape, idx)), name="T_where", axis_prefix="ax")
    assert out.dtype == dtype
    return ctx.call_te(out, "where")


def _legalize_astype(ctx):
    x = ctx.tensor(0)
    dtype = ctx.attr("dtype")
    out = te.compute(x.shape, lambda *i: te.cast(dtype, x[i]), name="compute",
                     axis_prefix="i")
    return ctx.call_te(out, "astype")


def _legalize_clip(ctx):
    """``min(max(x, lo), hi)`` with the bounds converted to x's type (np.clip's order:
    ``hi`` wins when ``lo > hi``; a NaN stays NaN)."""
    x = ctx.tensor(0)
    lo, hi = te.cast(x.dtype, ctx.prim(1)), te.cast(x.dtype, ctx.prim(2))

    def formula(*i):
        low = te.select(P.LT(x[i], lo, BOOL), lo, x[i])
        return te.select(P.GT(low, hi, BOOL), hi, low)
    out = te.compute(x.shape, formula, name="compute")
    return ctx.call_te(out, "clip")


def _register_all() -> None:
    two = (Operand("x1"), Operand("x2"))
    for name, fn in _BINARY.items():
        leg = _legalize_power if name == "power" else \
            _legalize_elementwise(name, _BINARY_TIR[name])
        register(OpDef(f"relax.{name}", two, deduce=deduce_binary, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-binary-1", dtypes="numeric",
                       int_total=name not in _INT_PARTIAL, legalize=leg))
    for name, fn in _BITWISE.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_binary, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-binary-1", dtypes="int",
                       int_total=name not in _INT_PARTIAL,  # shifts outside [0, bits) trap
                       legalize=_legalize_elementwise(name, _BINARY_TIR[name])))
    for name, fn in _COMPARE.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_compare, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-compare-1", dtypes="numeric",
                       legalize=_legalize_elementwise(name, _BINARY_TIR[name])))
    for name, fn in _LOGICAL.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_compare, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-compare-1", dtypes="bool",
                       legalize=_legalize_elementwise(name, _BINARY_TIR[name])))
    for name, fn in _UNARY_ANY.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary,
                       compute=_unary(fn), family=FAMILY, spec_rule="SI-ew-unary-1",
                       dtypes="numeric", legalize=_legalize_unary(name, _UNARY_TIR[name])))
    for name, fn in _UNARY_FLOAT.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary_float,
                       compute=_unary_math(fn), family=FAMILY, spec_rule="SI-ew-unary-2",
                       dtypes="float", legalize=_legalize_unary(name, _UNARY_TIR[name])))
    for name, fn in _UNARY_BOOL.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary_bool,
                       compute=quiet(lambda attrs, x, fn=fn: np.asarray(fn(x))),
                       family=FAMILY, spec_rule="SI-ew-unary-3",
                       legalize=_legalize_unary(name, _UNARY_TIR[name])))
    register(OpDef("relax.logical_not", (Operand("x"),), deduce=deduce_unary_bool,
                   compute=lambda attrs, x: np.logical_not(x), family=FAMILY,
                   spec_rule="SI-ew-unary-3", dtypes="bool",
                   legalize=_legalize_unary("logical_not", _UNARY_TIR["logical_not"])))
    register(OpDef("relax.bitwise_not", (Operand("x"),), deduce=deduce_unary,
                   compute=lambda attrs, x: np.invert(x), family=FAMILY,
                   spec_rule="SI-ew-unary-1", dtypes="int",
                   legalize=_legalize_unary("bitwise_not", _UNARY_TIR["bitwise_not"])))
    for name, fn, tir_fn in (("atan2", np.arctan2, _atan2_tir),
                             ("log_add_exp", _log_add_exp64, _log_add_exp_tir)):
        register(OpDef(f"relax.{name}", two, deduce=deduce_binary_float,
                       compute=_binary(_in_float64(fn)), family=FAMILY, spec_rule="SI-ew-binary-2",
                       dtypes="float", legalize=_legalize_elementwise(name, tir_fn)))
    # TVM 0.27 has no legalization for ewise_fma (it stays through LegalizeOps).
    register(OpDef("relax.ewise_fma", (Operand("x1"), Operand("x2"), Operand("x3")),
                   deduce=deduce_ewise_fma, compute=_ewise_fma, family=FAMILY,
                   spec_rule="SI-ew-fma-1"))
    register(OpDef("relax.where", (Operand("condition"), Operand("x1"), Operand("x2")),
                   deduce=deduce_where, compute=_where, family=FAMILY,
                   spec_rule="SI-ew-where-1", legalize=_legalize_where))
    register(OpDef("relax.astype", (Operand("x"),), (Attr("dtype", convert=to_dtype),),
                   deduce=deduce_astype, compute=_astype, family=FAMILY,
                   spec_rule="SI-ew-astype-1", legalize=_legalize_astype))
    register(OpDef("relax.clip", (Operand("x"), Operand("min", "prim"), Operand("max", "prim")),
                   deduce=deduce_clip, compute=_clip, family=FAMILY, spec_rule="SI-ew-clip-1",
                   legalize=_legalize_clip))


@quiet
def _where(attrs, cond, a, b):
    broadcast_values("EXEC-broadcast-1", cond, a, b)
    return np.where(cond, a, b).astype(a.dtype)


def _astype(attrs, x):
    """A TIR ``Cast`` of every element (floats to integers truncate toward zero)."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    return cast_value(x, numpy_dtype(attrs.get("dtype")))


@quiet
def _clip(attrs, x, lo, hi):
    return np.clip(x, lo.value, hi.value).astype(x.dtype)


_register_all()
