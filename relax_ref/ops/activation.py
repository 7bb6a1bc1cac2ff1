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

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import DataType

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

    def const(self, c: float) -> np.ndarray:
        """A constant of the dtype (TIR ``tirx.const(c, dtype)``)."""
        return self(np.asarray(c, dtype=np.float64))

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
    t = r(np.tanh(r(r(r.const(math.sqrt(2.0 / math.pi)) * v) * cubic)))
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
    r.round_(np.exp(t, out=t))
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
    negative = np.minimum(r.const(0.0), r(r.const(_SELU_ALPHA) * r(r(np.exp(v)) - r.const(1.0))))
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
    smooth = r(r(r.const(1.0) / beta) * r(np.log(r(r.const(1.0) + r(np.exp(bx))))))
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
    axis (from the dtype's lowest finite value), and the sum of exponentials."""
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-act-softmax-1")
    r = _Rounding(x.dtype)
    v = r(x)
    low = r.const(float(lowest_value(x.dtype)))
    maxelem = v.max(axis=axis, keepdims=True, initial=low)  # (methods: no dispatch cost)
    exp = r.round_(np.subtract(v, maxelem))
    r.round_(np.exp(exp, out=exp))
    expsum = r(exp.sum(axis=axis, keepdims=True))
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
    return r.result(r(v - maxelem) - r(np.log(expsum)))


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    data = (Operand("data"),)
    register(OpDef("relax.nn.relu", data, deduce=deduce_activation, compute=_relu,
                   family=FAMILY, spec_rule="SI-act-1", dtypes="numeric"))
    for name, fn in {"gelu": _gelu, "gelu_tanh": _gelu_tanh, "silu": _silu,
                     "selu": _selu}.items():
        register(OpDef(f"relax.nn.{name}", data, deduce=deduce_float_activation, compute=fn,
                       family=FAMILY, spec_rule="SI-act-2", dtypes="float"))
    register(OpDef("relax.nn.leakyrelu", data, (Attr("alpha", 0.01, to_float),),
                   deduce=deduce_float_activation, compute=_leakyrelu, family=FAMILY,
                   spec_rule="SI-act-2", dtypes="float"))
    register(OpDef("relax.nn.softplus", data,
                   (Attr("beta", 1.0, to_float), Attr("threshold", 20.0, to_float)),
                   deduce=deduce_float_activation, compute=_softplus, family=FAMILY,
                   spec_rule="SI-act-2", dtypes="float"))
    register(OpDef("relax.nn.prelu", (Operand("data"), Operand("alpha")),
                   (Attr("axis", 1, to_int),), deduce=deduce_prelu, compute=_prelu,
                   family=FAMILY, spec_rule="SI-act-prelu-1"))
    for name, fn in {"softmax": _softmax, "log_softmax": _log_softmax}.items():
        register(OpDef(f"relax.nn.{name}", data, (Attr("axis", -1, to_int),),
                   deduce=deduce_softmax, compute=fn, family=FAMILY,
                   spec_rule="SI-act-softmax-1", dtypes="float"))


_register_all()
