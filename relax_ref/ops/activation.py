"""Activations under ``R.nn``: ``relu``, ``gelu``, ``gelu_tanh``, ``silu``, ``selu``,
``leakyrelu``, ``softplus``, ``prelu``, ``softmax``, ``log_softmax``
(spec/ops/activation.md).

Each op's struct-info rule and NumPy semantics sit side by side. The numerics follow the
formulas of TVM's legalization (``relax/transform/legalize_ops/nn.py`` and
``topi.nn``) step by step, rounding every intermediate to the tensor's dtype as the
legalized TIR does when it stores each stage in a buffer of that dtype:

- gelu: ``x * (0.5 + erf(x * 0.5**0.5) * 0.5)`` (erf in float32 for float16 inputs);
- gelu_tanh: ``0.5 * x * (1 + tanh(sqrt(2/pi) * x * (1 + 0.044715 * x * x)))``;
- silu: ``x * sigmoid(x)``, ``sigmoid(x) = 1 / (1 + exp(-x))``;
- softmax: ``e / sum(e)`` with ``e = exp(x - max(x))``; the max starts from the dtype's
  lowest finite value (TVM's reducer identity);
- log_softmax: ``x - max(x) - log(sum(exp(x - max(x))))``.
"""
from __future__ import annotations

import math

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT32, FLOAT64, DataType
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, common_dtype, describe_sinfo, erf_array, expr_text, lowest_value,
    normalize_axis, provably_ne, quiet, runtime_axis, same_as, tensor_arg,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_float, to_int

FAMILY = "activation"


# -- deduction rules ---------------------------------------------------------------------------

def is_float_kind(dtype: DataType) -> bool:
    """TVM's float check for these ops: the float and bfloat codes (float16/32/64,
    bfloat16). The float8/float6/float4 kinds are not accepted, as in TVM 0.27."""
    return dtype.code in ("float", "bfloat")


def deduce_activation(ctx: DeduceContext) -> si.StructInfo:
    """SI-act-1: the result has the operand's struct info (relu accepts any dtype)."""
    return same_as(tensor_arg(ctx, 0))


def deduce_float_activation(ctx: DeduceContext) -> si.StructInfo:
    """SI-act-2: like SI-act-1, and a known dtype must be a float kind."""
    x = tensor_arg(ctx, 0)
    _require_float(ctx, x.dtype, "SI-act-2")
    return same_as(x)


def _require_float(ctx: DeduceContext, dtype: DataType, rule: str,
                   accept=is_float_kind) -> None:
    if not dtype.is_void and not accept(dtype):
        raise ctx.error(f"needs a floating-point operand, found {dtype}", rule=rule)


def deduce_softmax(ctx: DeduceContext) -> si.StructInfo:
    """SI-act-softmax-1: softmax/log_softmax keep the operand's struct info; a known
    dtype must be a float kind (SI-act-2) and the axis must be in range when the ndim is
    known (SI-op-axis-1; a 0-d operand has no axis)."""
    x = tensor_arg(ctx, 0)
    _require_float(ctx, x.dtype, "SI-act-2")
    if x.ndim >= 0:
        normalize_axis(ctx, ctx.attr("axis"), x.ndim)
    return same_as(x)


def deduce_prelu(ctx: DeduceContext) -> si.StructInfo:
    """SI-act-prelu-1..3: the result has the data's struct info.

    1. The data's known dtype is float16/32/64 (TVM 0.27 rejects bfloat16 here) and
       alpha's agrees with it (SI-op-dtype-1).
    2. ``axis`` is in range when the ndim is known (SI-op-axis-1); alpha is 1-d.
    3. alpha's length is 1 or ``data.shape[axis]``; a length provably neither is an
       error, one not provably either is checked at run time (EXEC-act-prelu-1)."""
    x, alpha = tensor_arg(ctx, 0), tensor_arg(ctx, 1, "alpha")
    _require_float(ctx, x.dtype, "SI-act-prelu-1", accept=lambda d: d.code == "float")
    common_dtype(ctx, x.dtype, alpha.dtype)
    axis = None
    if x.ndim >= 0:
        axis = normalize_axis(ctx, ctx.attr("axis"), x.ndim)
    if alpha.ndim >= 0 and alpha.ndim != 1:
        raise ctx.error(f"alpha must be 1-d, but its struct info is {describe_sinfo(alpha)}",
                        rule="SI-act-prelu-2")
    if axis is not None and x.shape is not None and alpha.shape is not None:
        channels, length = x.shape[axis], alpha.shape[0]
        if provably_ne(ctx, length, 1) and provably_ne(ctx, length, channels):
            raise ctx.error(f"alpha has {expr_text(length)} elements, but the data has "
                            f"{expr_text(channels)} channels on axis {axis}",
                            rule="SI-act-prelu-3")
    return same_as(x)


# -- NumPy semantics -----------------------------------------------------------------------------

class _Rounding:
    """Arithmetic that rounds every intermediate to the tensor's dtype ``dt``, working in
    float32 (float64 for float64 tensors) between roundings. For float32/float64 this is
    plain NumPy arithmetic in that dtype."""

    def __init__(self, dt: np.dtype):
        self.dt = dt
        self.work = np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)

    def __call__(self, v) -> np.ndarray:
        """Round to the dtype, hand back in the working precision (no copies when the
        dtype is the working precision)."""
        return np.asarray(v, dtype=self.work).astype(self.dt, copy=False).astype(
            self.work, copy=False)

    def math(self, fn, v) -> np.ndarray:
        """An elementary function (exp, log, tanh) computed in float64 and rounded to
        the working precision (the caller rounds it to the dtype): TIR's intrinsics
        (EXEC-tir-intrin-1) on the working-precision value, as the lowering computes it
        (EXEC-act-math-1)."""
        return np.asarray(fn(np.asarray(v, dtype=np.float64))).astype(self.work, copy=False)

    def const(self, c: float) -> np.ndarray:
        """A constant of the dtype (TIR ``tirx.const(c, dtype)``: rounded once, from
        float64, EXEC-tir-float-1)."""
        return np.asarray(c, dtype=np.float64).astype(self.dt).astype(self.work)

    def result(self, v) -> np.ndarray:
        return np.asarray(v, dtype=self.work).astype(self.dt, copy=False)

    def round_(self, t: np.ndarray) -> np.ndarray:
        """``self(t)`` in place, for a fresh array ``t`` of the working precision:
        chains of steps then reuse one buffer (the values are the same)."""
        if self.dt != self.work:
            t[...] = t.astype(self.dt)
        return t


@quiet
def _relu(attrs, x):
    """EXEC-act-relu-1: ``max(x, 0)`` in the tensor's dtype."""
    return np.maximum(x, np.zeros((), dtype=x.dtype)).astype(x.dtype)


@quiet
def _gelu(attrs, x):
    r = _Rounding(x.dtype)
    v = r(x)
    inner = r(v * r.const(0.5 ** 0.5))
    erf = r(erf_array(inner))  # float16: TVM computes erf in float32, then rounds
    return r.result(v * r(r.const(0.5) + r(erf * r.const(0.5))))


@quiet
def _gelu_tanh(attrs, x):
    r = _Rounding(x.dtype)
    v = r(x)
    cubic = r(r.const(1.0) + r(r(r.const(0.044715) * v) * v))
    t = r(r.math(np.tanh, r(r(r.const(math.sqrt(2.0 / math.pi)) * v) * cubic)))
    return r.result(r(r.const(0.5) * v) * r(r.const(1.0) + t))


@quiet
def _silu(attrs, x):
    """``x * sigmoid(x)`` with ``sigmoid(v) = 1 / (1 + exp(-v))``, each step rounded to
    the dtype. The steps run in one buffer; sums and products are commutative in IEEE
    arithmetic, so ``t += 1`` is ``1 + t`` and ``t *= v`` is ``v * t``."""
    r = _Rounding(x.dtype)
    v = r(x)
    one = r.const(1.0)
    t = r.round_(np.negative(v, out=np.empty(v.shape, r.work)))  # an array even if 0-d
    t = r.round_(r.math(np.exp, t))
    r.round_(np.add(t, one, out=t))
    r.round_(np.divide(one, t, out=t))
    return r.result(np.multiply(t, v, out=t))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@quiet
def _selu(attrs, x):
    """``scale * (max(x, 0) + min(0, alpha * (exp(x) - 1)))``."""
    r = _Rounding(x.dtype)
    v = r(x)
    positive = np.maximum(v, r.const(0.0))
    negative = np.minimum(r.const(0.0),
                          r(r.const(_SELU_ALPHA) * r(r(r.math(np.exp, v)) - r.const(1.0))))
    return r.result(r.const(_SELU_SCALE) * r(positive + negative))


@quiet
def _leakyrelu(attrs, x):
    """``x if x > 0 else x * alpha`` (alpha a constant of the dtype)."""
    r = _Rounding(x.dtype)
    v = r(x)
    return r.result(np.where(v > 0, v, r(v * r.const(attrs.get("alpha")))))


@quiet
def _softplus(attrs, x):
    """``x if beta * x > threshold else (1 / beta) * log(1 + exp(beta * x))``."""
    r = _Rounding(x.dtype)
    v = r(x)
    beta, threshold = r.const(attrs.get("beta")), r.const(attrs.get("threshold"))
    bx = r(beta * v)
    smooth = r(r(r.const(1.0) / beta) *
               r(r.math(np.log, r(r.const(1.0) + r(r.math(np.exp, bx))))))
    return r.result(np.where(bx > threshold, v, smooth))


@quiet
def _prelu(attrs, x, alpha):
    """EXEC-act-prelu-1: ``x if x > 0 else x * alpha[c]`` with ``c`` the index on
    ``axis``; an alpha of length 1 applies to every channel."""
    if alpha.ndim != 1:
        raise OpRuntimeError("shape_mismatch", f"alpha must be 1-d, found shape {alpha.shape}",
                             rule="EXEC-act-prelu-1")
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-act-prelu-1")
    channels = x.shape[axis]
    if alpha.shape[0] not in (1, channels):
        raise OpRuntimeError("shape_mismatch", f"alpha has {alpha.shape[0]} elements, but "
                             f"the data has {channels} channels on axis {axis}",
                             rule="EXEC-act-prelu-1")
    r = _Rounding(x.dtype)
    v = r(x)
    shape = [1] * x.ndim
    shape[axis] = alpha.shape[0]
    slope = r(alpha).reshape(shape)
    return r.result(np.where(v > 0, v, r(v * slope)))


def _softmax_parts(attrs, x):
    """The shared first stages of softmax and log_softmax: the values, the max over the
    axis (from the dtype's lowest finite value), and the sum of exponentials (in
    float64 for the narrow floats, rounded once: EXEC-act-softmax-2)."""
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-act-softmax-1")
    r = _Rounding(x.dtype)
    v = r(x)
    low = r.const(float(lowest_value(x.dtype)))
    maxelem = v.max(axis=axis, keepdims=True, initial=low)  # (methods: no dispatch cost)
    exp = r.round_(r.math(np.exp, r.round_(np.subtract(v, maxelem))))
    if r.dt == r.work:
        expsum = exp.sum(axis=axis, keepdims=True)
    else:
        wide = exp.astype(np.float64).sum(axis=axis, keepdims=True)
        expsum = wide.astype(r.dt).astype(r.work)  # one rounding, from float64
    return r, v, maxelem, exp, expsum


@quiet
def _softmax(attrs, x):
    """EXEC-act-softmax-1: ``exp(x - max) / sum(exp(x - max))`` along ``axis`` (the
    quotient overwrites the fresh exponentials)."""
    r, _, _, exp, expsum = _softmax_parts(attrs, x)
    return r.result(np.divide(exp, expsum, out=exp))


@quiet
def _log_softmax(attrs, x):
    """EXEC-act-softmax-1: ``x - max - log(sum(exp(x - max)))`` along ``axis``."""
    r, v, maxelem, _, expsum = _softmax_parts(attrs, x)
    return r.result(r(v - maxelem) - r(r.math(np.log, expsum)))


# -- lowering (spec/ops/activation.md "Lowering") -------------------------------------------------
# Each formula is the NumPy semantics' operation by operation, in the tensor's dtype: TIR
# rounds every operation to its type (EXEC-tir-float-1), as ``_Rounding`` does.

def _narrow(dt: DataType) -> bool:
    """float16, bfloat16 and smaller floats: they work in float32 between roundings."""
    return dt.bits < 32 or dt.code != "float"


def _math(name: str, x: P.PrimExpr) -> P.PrimExpr:
    """EXEC-act-math-1: ``T.<name>`` of ``x``; a narrow float goes through float32
    (``_Rounding.math``)."""
    if _narrow(x.dtype):
        return te.cast(x.dtype, te.call_intrin(name, te.cast(FLOAT32, x)))
    return te.call_intrin(name, x)


def _c(value: float, like: P.PrimExpr) -> P.PrimExpr:
    return te.const(value, like.dtype)


def _gt(a, b):
    return P.GT(a, b, BOOL)


def _lt(a, b):
    return P.LT(a, b, BOOL)


def _max0(x: P.PrimExpr) -> P.PrimExpr:
    """``max(x, 0)`` keeping a NaN (NumPy's maximum; TIR's ``T.max`` drops it)."""
    return te.select(_lt(x, _c(0, x)), _c(0, x), x)


def _min0(x: P.PrimExpr) -> P.PrimExpr:
    """``min(0, x)`` keeping a NaN."""
    return te.select(_gt(x, _c(0, x)), _c(0, x), x)


def _gelu_tir(x):
    erf = _math("erf", x * _c(0.5 ** 0.5, x))
    return x * (_c(0.5, x) + erf * _c(0.5, x))


def _gelu_tanh_tir(x):
    cubic = _c(1.0, x) + (_c(0.044715, x) * x) * x
    t = _math("tanh", (_c(math.sqrt(2.0 / math.pi), x) * x) * cubic)
    return (_c(0.5, x) * x) * (_c(1.0, x) + t)


def _silu_tir(x):
    sig = te.div(_c(1.0, x), _math("exp", _c(0.0, x) - x) + _c(1.0, x))
    return sig * x


def _selu_tir(x):
    negative = _min0(_c(_SELU_ALPHA, x) * (_math("exp", x) - _c(1.0, x)))
    return _c(_SELU_SCALE, x) * (_max0(x) + negative)


_ELEMENTWISE_TIR = {
    "relu": _max0, "gelu": _gelu_tir, "gelu_tanh": _gelu_tanh_tir, "silu": _silu_tir,
    "selu": _selu_tir,
    "leakyrelu": lambda x, alpha: te.select(_gt(x, _c(0, x)), x, x * _c(alpha, x)),
    "softplus": lambda x, beta, threshold: te.select(
        _gt(_c(beta, x) * x, _c(threshold, x)), x,
        te.div(_c(1.0, x), _c(beta, x)) *
        _math("log", _c(1.0, x) + _math("exp", _c(beta, x) * x))),
}
_ATTRS = {"leakyrelu": ("alpha",), "softplus": ("beta", "threshold")}


def _legalize_elementwise(name: str):
    """TE-leg-act-1: one stage ``compute`` of the op's formula (``_ELEMENTWISE_TIR``)."""
    def legalize(ctx):
        x = ctx.tensor(0)
        if x.dtype.is_bool:
            raise ctx.decline("relu of bools has no TIR comparison with 0")
        attrs = [ctx.attr(a) for a in _ATTRS.get(name, ())]
        formula = _ELEMENTWISE_TIR[name]
        out = te.compute(x.shape, lambda *i: formula(x[i], *attrs), name="compute")
        return ctx.call_te(out, name)
    return legalize


def _legalize_prelu(ctx):
    """TE-leg-act-2: ``x if x > 0 else x * alpha[c]``, ``c`` the index on ``axis`` (0
    for an alpha of length 1). The op's check that alpha's length is 1 or the channel
    count (EXEC-act-prelu-1), where not proved, is the PrimFunc's guard (TE-leg-7); a
    length that may be either picks the index with ``T.Select(length == 1, 0, c)``."""
    from .nn_lowering import proved
    x, alpha = ctx.tensor(0), ctx.tensor(1)
    if alpha.ndim != 1 or alpha.dtype != x.dtype or x.ndim == 0:
        raise ctx.decline("alpha is not a 1-d tensor of the data's dtype")
    axis = ctx.attr("axis")
    if not -x.ndim <= axis < x.ndim:
        raise ctx.decline("axis out of range (the op traps)")
    axis %= x.ndim
    length, channels = alpha.shape[0], x.shape[axis]
    one = P.IntImm(1, length.dtype)
    is_one, is_channels = P.EQ(length, one, BOOL), P.EQ(length, channels, BOOL)
    single = proved(is_one)
    per_channel = not single and proved(is_channels)
    if not single and not per_channel:
        either = P.Or(is_one, is_channels, BOOL)
        if not proved(either):
            ctx.require(either, "shape_mismatch", f"alpha's length {ctx.show(length)} must be "
                        f"1 or the channel count {ctx.show(channels)}")

    def slope_index(c):
        if single:
            return 0
        if per_channel:
            return c
        return P.Select(is_one, P.IntImm(0, c.dtype), c, c.dtype)

    def formula(*i):
        v = x[i]
        slope = alpha[slope_index(i[axis])]
        return te.select(_gt(v, _c(0, v)), v, v * slope)
    out = te.compute(x.shape, formula, name="compute")
    return ctx.call_te(out, "prelu")


def _legalize_softmax(log: bool):
    """TE-leg-act-3: stages ``T_softmax_maxelem`` (max over the axis from the lowest
    finite value), ``T_softmax_exp`` (``exp(x - max)``), ``T_softmax_expsum`` (in
    float64 for the narrow floats, EXEC-act-softmax-2) and the result (``exp / sum``,
    or ``x - max - log(sum)``). The max is TIR's ``T.max``, which may drop a NaN; a row
    holding a NaN still comes out all NaN, as the sum of its exponentials is NaN."""
    def legalize(ctx):
        x = ctx.tensor(0)
        axis = ctx.attr("axis")
        if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
            raise ctx.decline("axis out of range (the op traps)")
        axis %= x.ndim
        dt = x.dtype
        low = float(lowest_value(numpy_dtype(dt)))
        maximum = te.comm_reducer(lambda a, b: P.Max(a, b, a.dtype),
                                  lambda dts: [te.const(low, d) for d in dts], "max")
        reduced = x.shape[:axis] + x.shape[axis + 1:]

        def full(idx, k):
            return tuple(idx[:axis]) + (k,) + tuple(idx[axis:])

        k = te.reduce_axis(x.shape[axis], "k")
        maxelem = te.compute(reduced, lambda *i: maximum(x[full(i, k)], axis=k),
                             name="T_softmax_maxelem")
        exp = te.compute(x.shape, lambda *i: _math(
            "exp", x[i] - maxelem[i[:axis] + i[axis + 1:]]), name="T_softmax_exp")
        acc = FLOAT64 if _narrow(dt) else dt
        k2 = te.reduce_axis(x.shape[axis], "k")
        expsum = te.compute(reduced, lambda *i: te.sum(te.cast(acc, exp[full(i, k2)]), axis=k2),
                            name="T_softmax_expsum")

        def total(i):
            return te.cast(dt, expsum[i[:axis] + i[axis + 1:]])
        if log:
            out = te.compute(x.shape, lambda *i: (x[i] - maxelem[i[:axis] + i[axis + 1:]]) -
                             _math("log", total(i)), name="compute")
        else:
            out = te.compute(x.shape, lambda *i: te.div(exp[i], total(i)),
                             name="T_softmax_norm")
        return ctx.call_te(out, "log_softmax" if log else "softmax")
    return legalize


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    data = (Operand("data"),)
    register(OpDef("relax.nn.relu", data, deduce=deduce_activation, compute=_relu,
                   family=FAMILY, spec_rule="SI-act-1", dtypes="numeric",
                   legalize=_legalize_elementwise("relu")))
    for name, fn in {"gelu": _gelu, "gelu_tanh": _gelu_tanh, "silu": _silu,
                     "selu": _selu}.items():
        register(OpDef(f"relax.nn.{name}", data, deduce=deduce_float_activation, compute=fn,
                       family=FAMILY, spec_rule="SI-act-2", dtypes="float",
                       legalize=_legalize_elementwise(name)))
    register(OpDef("relax.nn.leakyrelu", data, (Attr("alpha", 0.01, to_float),),
                   deduce=deduce_float_activation, compute=_leakyrelu, family=FAMILY,
                   spec_rule="SI-act-2", dtypes="float",
                   legalize=_legalize_elementwise("leakyrelu")))
    register(OpDef("relax.nn.softplus", data,
                   (Attr("beta", 1.0, to_float), Attr("threshold", 20.0, to_float)),
                   deduce=deduce_float_activation, compute=_softplus, family=FAMILY,
                   spec_rule="SI-act-2", dtypes="float",
                   legalize=_legalize_elementwise("softplus")))
    register(OpDef("relax.nn.prelu", (Operand("data"), Operand("alpha")),
                   (Attr("axis", 1, to_int),), deduce=deduce_prelu, compute=_prelu,
                   family=FAMILY, spec_rule="SI-act-prelu-1", legalize=_legalize_prelu))
    for name, fn in {"softmax": _softmax, "log_softmax": _log_softmax}.items():
        register(OpDef(f"relax.nn.{name}", data, (Attr("axis", -1, to_int),),
                   deduce=deduce_softmax, compute=fn, family=FAMILY,
                   spec_rule="SI-act-softmax-1", dtypes="float",
                   legalize=_legalize_softmax(name == "log_softmax")))


_register_all()
