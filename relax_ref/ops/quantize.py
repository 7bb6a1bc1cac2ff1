"""Quantization ops: ``quantize`` and ``dequantize`` (spec/ops/quantize.md), each with its
struct-info rule, NumPy semantics and lowering side by side.

Both apply a scale and a zero point that are per tensor (a 0-d tensor, or one whose
dimensions are all 1) or per channel (a 1-d tensor as long as the data's ``axis``). The
arithmetic is written out step by step, each step rounded in a named type, so that the
NumPy semantics and the lowered TIR compute the same bits (EXEC-quant-2, EXEC-quant-3).
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, DataType, parse_dtype
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, cast_value, highest_value, int_const, lowest_value, runtime_axis,
    tensor_arg,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype, to_int

FAMILY = "quantize"

_dt = parse_dtype
F16, F32, INT32 = _dt("float16"), _dt("float32"), _dt("int32")
_QUANT_OUT = {_dt(n) for n in ("int8", "uint8", "int16", "uint16", "float8_e4m3fn",
                               "float8_e5m2")}
_DEQUANT_IN = {_dt(n) for n in ("int8", "uint8", "int16", "uint16", "int32", "float8_e4m3fn",
                                "float8_e5m2", "float16", "float32")}
_SCALE = {F16, F32}
_ZERO_POINT = {_dt(n) for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32",
                                "float16")}
_F16_LIMIT = 65504.0  # the largest finite float16


# -- deduction ---------------------------------------------------------------------------------

def _check_dtype(ctx, dtype: DataType, allowed, what: str, rule: str) -> None:
    if not dtype.is_void and dtype not in allowed:
        names = ", ".join(sorted(str(d) for d in allowed))
        raise ctx.error(f"{what} must be one of {names}, found {dtype}", rule=rule)


def _is_per_tensor(ctx, p: si.TensorStructInfo) -> bool | None:
    """True for a 0-d parameter or one whose dimensions are all provably 1; False for a
    1-d one that is not; None where the shape is unknown."""
    if p.shape is None:
        return True if p.ndim == 0 else None
    return all(ctx.analyzer.prove_equal(d, P.IntImm(1, d.dtype)) for d in p.shape)


def deduce_qdq(ctx: DeduceContext) -> si.StructInfo:
    """SI-quant-1: (de)quantize(data, scale, zero_point, axis, out_dtype): the dtypes
    are TVM's (quantize: float16/float32 data to int8, uint8, int16, uint16 or a float8;
    dequantize: those, int32, float16 or float32 data to float16/float32; scale
    float16/float32; zero point int8..uint32 or float16). SI-quant-2: ``axis`` lies in
    ``[-ndim, ndim)`` for data of ndim >= 1. Each parameter is per tensor (0-d, or every
    dimension provably 1) or 1-d with a length provably data's ``axis`` extent (TVM
    reads dimension 0 of a parameter of any ndim); data of ndim 0 takes per-tensor
    parameters only. The result has data's shape and ``out_dtype``."""
    quantize = ctx.call.op.name == "relax.quantize"
    x, scale, zp = (tensor_arg(ctx, i) for i in range(3))
    out = ctx.attr("out_dtype")
    _check_dtype(ctx, out, _QUANT_OUT if quantize else {F16, F32}, "out_dtype", "SI-quant-1")
    _check_dtype(ctx, x.dtype, {F16, F32} if quantize else _DEQUANT_IN, "the data",
                 "SI-quant-1")
    _check_dtype(ctx, scale.dtype, _SCALE, "scale", "SI-quant-1")
    _check_dtype(ctx, zp.dtype, _ZERO_POINT, "zero_point", "SI-quant-1")
    axis = None
    if x.ndim > 0:
        axis = ctx.attr("axis")
        if not -x.ndim <= axis < x.ndim:
            raise ctx.error(f"axis {axis} is out of range for data of {x.ndim} dimensions",
                            rule="SI-quant-2")
        axis %= x.ndim
    for name, p in (("scale", scale), ("zero_point", zp)):
        per_tensor = _is_per_tensor(ctx, p)
        if per_tensor is not False:
            continue
        if x.ndim == 0 or p.ndim != 1:
            raise ctx.error(f"{name} must be per tensor (0-d or all dimensions 1) or 1-d "
                            f"along the axis, found shape {p.shape}", rule="SI-quant-2")
        if x.shape is not None and not ctx.analyzer.prove_equal(p.shape[0], x.shape[axis]):
            raise ctx.error(f"{name} has {p.shape[0]} values, data {x.shape[axis]} along "
                            f"axis {axis}", rule="SI-quant-2")
    return si.TensorStructInfo(x.shape, out, x.ndim, x.vdevice)


# -- NumPy semantics ---------------------------------------------------------------------------

def _param_values(p: np.ndarray, x: np.ndarray, axis: int, name: str) -> np.ndarray:
    """EXEC-quant-1: a parameter as an array broadcasting against ``x``: one value, or
    one per position along ``axis``."""
    if p.size == 1 and all(d == 1 for d in p.shape):
        return p.reshape(())
    if x.ndim > 0 and p.shape == (x.shape[axis],):
        return p.reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    raise OpRuntimeError("shape_mismatch", f"{name} of shape {p.shape} is neither one value "
                         f"nor one per position of axis {axis} of data shape {x.shape}",
                         rule="EXEC-quant-1")


def _compute_type(*dtypes) -> np.dtype:
    return np.dtype(np.float32) if any(np.dtype(d) == np.float32 for d in dtypes) \
        else np.dtype(np.float16)


def _clamp_to(v: np.ndarray, dtype: np.dtype, ct: np.dtype) -> np.ndarray:
    """TVM's ``max(min(v, hi), lo)`` with the comparisons as selects: a NaN becomes
    ``hi``; ``lo``, ``hi`` are the type's extremes converted to ``ct``."""
    hi, lo = np.asarray(highest_value(dtype)).astype(ct), np.asarray(lowest_value(dtype)).astype(ct)
    v = np.where(v < hi, v, hi)
    return np.where(v > lo, v, lo).astype(ct)


def _axis(attrs, x: np.ndarray) -> int:
    return runtime_axis(attrs.get("axis"), x.ndim, "EXEC-quant-1",
                        check="shape_mismatch") if x.ndim else 0


def compute_quantize(attrs, x: np.ndarray, scale: np.ndarray, zp: np.ndarray) -> np.ndarray:
    """EXEC-quant-2: in the compute type ``ct`` (float32 when data or scale is float32,
    else float16), each step rounded in ``ct``: ``q = x / scale``, rounded half to even
    for integer outputs, plus the zero point converted to ``ct``, clamped to the output
    type's range (a NaN to its largest value), converted (TIR's cast)."""
    out = numpy_dtype(attrs.get("out_dtype"))
    axis = _axis(attrs, x)
    s, z = _param_values(scale, x, axis, "scale"), _param_values(zp, x, axis, "zero_point")
    ct = _compute_type(x.dtype, s.dtype)
    with np.errstate(all="ignore"):
        q = (x.astype(ct) / s.astype(ct)).astype(ct)
        if np.issubdtype(out, np.integer):
            q = np.rint(q).astype(ct)
        q = (q + z.astype(ct)).astype(ct)
        return cast_value(_clamp_to(q, out, ct), out)


def compute_dequantize(attrs, x: np.ndarray, scale: np.ndarray, zp: np.ndarray) -> np.ndarray:
    """EXEC-quant-3: integer data with an integer zero point subtract in int32 (wrapping)
    and convert to float32; otherwise both convert to float32 and subtract there; the
    difference times the scale (as float32) in float32; a float16 result clamps to
    [-65504, 65504] (a NaN stays NaN) and converts."""
    out = numpy_dtype(attrs.get("out_dtype"))
    axis = _axis(attrs, x)
    s, z = _param_values(scale, x, axis, "scale"), _param_values(zp, x, axis, "zero_point")
    with np.errstate(all="ignore"):
        if np.issubdtype(x.dtype, np.integer) and np.issubdtype(z.dtype, np.integer):
            d = (x.astype(np.int64) - z.astype(np.int64)).astype(np.int32).astype(np.float32)
        else:
            d = (x.astype(np.float32) - z.astype(np.float32)).astype(np.float32)
        v = (d * s.astype(np.float32)).astype(np.float32)
        if out == np.float16:
            v = np.where(v > _F16_LIMIT, np.float32(_F16_LIMIT),
                         np.where(v < -_F16_LIMIT, np.float32(-_F16_LIMIT), v))
        return v.astype(out)


# -- lowering ----------------------------------------------------------------------------------

def _param_reader(ctx, i: int, x: te.Tensor, axis: int):
    """TE-leg-quant-1: a per-tensor parameter is read at 0, a per-channel one at the
    index along ``axis``; a parameter whose kind is not known statically declines."""
    p = ctx.tensor(i)
    if all(int_const(d) == 1 for d in p.shape):
        return lambda idx: p[(0,) * p.ndim]
    from relax_ref.solver.analyzer import Analyzer

    if p.ndim == 1 and x.ndim > 0 and Analyzer().prove_equal(p.shape[0], x.shape[axis]):
        return lambda idx: p[idx[axis]]
    raise ctx.decline(f"cannot tell at compile time how {p.name} broadcasts")


def _lower_clamp(v: P.PrimExpr, out: DataType, ct: DataType) -> P.PrimExpr:
    np_out = numpy_dtype(out)
    hi = te.const(np.asarray(highest_value(np_out)).astype(numpy_dtype(ct)).item(), ct)
    lo = te.const(np.asarray(lowest_value(np_out)).astype(numpy_dtype(ct)).item(), ct)
    v = te.select(P.LT(v, hi, BOOL), v, hi)
    return te.select(P.GT(v, lo, BOOL), v, lo)


def legalize_quantize(ctx):
    """TE-leg-quant-2: ``quantized`` computes EXEC-quant-2's steps (``T.round`` is
    round half to even, TVM 0.27's ``nearbyint``)."""
    x = ctx.tensor(0)
    axis = ctx.attr("axis") % x.ndim if x.ndim else 0
    scale, zp = _param_reader(ctx, 1, x, axis), _param_reader(ctx, 2, x, axis)
    out = ctx.attr("out_dtype")
    ct = F32 if F32 in (x.dtype, ctx.arg_sinfo[1].dtype) else F16

    def formula(*i):
        q = te.div(te.cast(ct, x[i]), te.cast(ct, scale(i)))
        if out.is_integer:
            q = te.call_intrin("round", q)
        q = P.Add(q, te.cast(ct, zp(i)), ct)
        return te.cast(out, _lower_clamp(q, out, ct))
    return ctx.call_te(te.compute(x.shape, formula, name="quantized"), "quantize")


def legalize_dequantize(ctx):
    """TE-leg-quant-3: ``dequantized`` computes EXEC-quant-3's steps."""
    x = ctx.tensor(0)
    axis = ctx.attr("axis") % x.ndim if x.ndim else 0
    scale, zp = _param_reader(ctx, 1, x, axis), _param_reader(ctx, 2, x, axis)
    out = ctx.attr("out_dtype")
    int_path = x.dtype.is_integer and ctx.arg_sinfo[2].dtype.is_integer

    def formula(*i):
        if int_path:
            d = te.cast(F32, P.Sub(te.cast(INT32, x[i]), te.cast(INT32, zp(i)), INT32))
        else:
            d = P.Sub(te.cast(F32, x[i]), te.cast(F32, zp(i)), F32)
        v = P.Mul(d, te.cast(F32, scale(i)), F32)
        if out == F16:
            hi, lo = te.const(_F16_LIMIT, F32), te.const(-_F16_LIMIT, F32)
            v = te.select(P.GT(v, hi, BOOL), hi, te.select(P.LT(v, lo, BOOL), lo, v))
        return te.cast(out, v)
    return ctx.call_te(te.compute(x.shape, formula, name="dequantized"), "dequantize")


def _register_all() -> None:
    operands = (Operand("data"), Operand("scale"), Operand("zero_point"))
    for name, default, compute, legalize in (
            ("quantize", "int8", compute_quantize, legalize_quantize),
            ("dequantize", "float32", compute_dequantize, legalize_dequantize)):
        register(OpDef(f"relax.{name}", operands,
                       (Attr("axis", -1, to_int), Attr("out_dtype", _dt(default), to_dtype)),
                       deduce=deduce_qdq, compute=compute, legalize=legalize, family=FAMILY,
                       spec_rule="SI-quant-1"))


_register_all()
