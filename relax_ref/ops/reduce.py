"""Reductions, statistics, arg-reductions and scans: ``sum``, ``mean``, ``max``, ``min``,
``prod``, ``variance``, ``std``, ``argmax``, ``argmin``, ``cumsum``, ``cumprod``
(spec/ops/reduce.md).

Each op's struct-info rule and NumPy semantics sit side by side. The numerics follow
TVM's legalized TIR (``relax/transform/legalize_ops/statistical.py``, ``search.py``):
reductions accumulate in the tensor's dtype; ``mean`` divides the sum by the element
count (truncating toward zero for integers, TIR ``Div``); ``variance`` is the population
variance ``mean((x - mean(x))**2)``; ``max``/``min`` fold from the dtype's lowest/highest
finite value (TVM's reducer identity), so a max of ``-inf`` values is the lowest finite
float. A ``max``/``min``/``argmax``/``argmin`` over zero elements is a run-time error: TVM's
compiled kernel never writes such an output (its ``T.init`` never runs).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64, DataType

from .common import (
    OpRuntimeError, highest_value, i64, lowest_value, normalize_axes, normalize_axis, quiet,
    runtime_axes, runtime_axis, shape_product, tensor_arg, trunc_div,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, register, to_bool, to_dtype, to_opt_int,
    to_opt_int_tuple,
)

FAMILY = "reduce"


# -- deduction rules ---------------------------------------------------------------------------

def reduced_sinfo(ctx: DeduceContext, x: si.TensorStructInfo, axes: tuple[int, ...] | None,
                  keepdims: bool, dtype: DataType) -> si.TensorStructInfo:
    """The struct info of ``x`` reduced over ``axes`` (None: every axis) (SI-reduce-1).

    Known shape: the reduced dimensions are dropped, or become 1 with ``keepdims``.
    Known ndim only: the result's ndim (and all-ones shape when every axis is reduced
    with ``keepdims``). Unknown ndim: a 0-d result when every axis is reduced without
    ``keepdims``, else nothing. Axes are checked against the ndim when it is known
    (SI-op-axis-1, SI-op-axis-2)."""
    ndim = x.ndim
    norm = None if axes is None or ndim < 0 else normalize_axes(ctx, axes, ndim)
    if keepdims:
        out_ndim = ndim
    elif axes is None:
        out_ndim = 0
    elif ndim < 0:
        out_ndim = si.UNKNOWN_NDIM
    else:
        out_ndim = ndim - len(norm)
    if x.shape is None:
        if axes is None and keepdims and out_ndim >= 0:
            return si.TensorStructInfo(tuple(i64(1) for _ in range(out_ndim)), dtype,
                                       vdevice=x.vdevice)
        if out_ndim == 0:
            return si.TensorStructInfo((), dtype, vdevice=x.vdevice)
        return si.TensorStructInfo(None, dtype, out_ndim, x.vdevice)
    out: list[P.PrimExpr] = []
    for i, d in enumerate(x.shape):
        if norm is not None and i not in norm:
            out.append(d)
        elif keepdims:
            out.append(i64(1))
    return si.TensorStructInfo(tuple(out), dtype, vdevice=x.vdevice)


def deduce_reduce(ctx: DeduceContext) -> si.StructInfo:
    """SI-reduce-1: sum, prod, max, min keep the operand's dtype."""
    x = tensor_arg(ctx, 0)
    return reduced_sinfo(ctx, x, ctx.attr("axis"), ctx.attr("keepdims"), x.dtype)


def deduce_statistic(ctx: DeduceContext) -> si.StructInfo:
    """SI-reduce-2: mean, variance, std keep the operand's dtype, which must be numeric
    (an integer or float type, not bool)."""
    x = tensor_arg(ctx, 0)
    if x.dtype.is_bool:
        raise ctx.error("needs a numeric operand, found bool", rule="SI-reduce-2")
    return reduced_sinfo(ctx, x, ctx.attr("axis"), ctx.attr("keepdims"), x.dtype)


def deduce_arg_reduce(ctx: DeduceContext) -> si.StructInfo:
    """SI-reduce-3: argmax/argmin reduce over one axis (or all) and give int64 indices."""
    x = tensor_arg(ctx, 0)
    axis = ctx.attr("axis")
    return reduced_sinfo(ctx, x, None if axis is None else (axis,), ctx.attr("keepdims"),
                         INT64)


def deduce_scan(ctx: DeduceContext) -> si.StructInfo:
    """SI-reduce-4: cumsum/cumprod. The dtype is the ``dtype`` attribute, else the
    operand's. ``axis=None`` scans the flattened tensor: a 1-d result whose length is the
    product of the dimensions; otherwise the axis must be in range and the result has
    the operand's shape."""
    x = tensor_arg(ctx, 0)
    dtype = ctx.attr("dtype")
    out_dtype = x.dtype if dtype.is_void else dtype
    axis = ctx.attr("axis")
    if axis is None:
        if x.shape is None:
            return si.TensorStructInfo(None, out_dtype, 1, x.vdevice)
        count = ctx.analyzer.simplify(shape_product(x.shape))
        return si.TensorStructInfo((count,), out_dtype, vdevice=x.vdevice)
    if x.ndim >= 0:
        normalize_axis(ctx, axis, x.ndim)
    return si.TensorStructInfo(x.shape, out_dtype, x.ndim, x.vdevice)


# -- NumPy semantics -----------------------------------------------------------------------------

def _axes_of(attrs, x: np.ndarray, rule: str) -> tuple[int, ...]:
    """The normalized reduction axes of a concrete tensor (EXEC-reduce-1): deduction
    checks them when the ndim is known; here they are checked always."""
    axes = attrs.get("axis")
    if axes is None:
        return tuple(range(x.ndim))
    return tuple(runtime_axes(axes, x.ndim, rule))


def _count(x: np.ndarray, axes: tuple[int, ...]) -> int:
    return math.prod(x.shape[a] for a in axes)


def _reducer(np_fn: Callable, identity: Callable | None = None):
    """sum/prod/max/min in the tensor's dtype (integers wrap around); bool sums are
    logical or, bool products logical and, as NumPy defines them for dtype bool.
    max/min start from ``identity`` and need at least one element (EXEC-reduce-6)."""
    @quiet
    def compute(attrs, x):
        axes = _axes_of(attrs, x, "EXEC-reduce-1")
        kwargs = {}
        if identity is not None:
            _check_nonempty(x, axes)
            kwargs["initial"] = identity(x.dtype)
        out = np_fn(x, axis=axes, keepdims=attrs.get("keepdims"), **kwargs)
        return np.asarray(out).astype(x.dtype, copy=False)
    return compute


def _check_nonempty(x: np.ndarray, axes: tuple[int, ...]) -> None:
    """EXEC-reduce-6: a max/min/argmax/argmin over zero elements has no value (unless
    the result itself has no elements)."""
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    if _count(x, axes) == 0 and int(np.prod(kept, dtype=np.int64)) > 0:
        raise OpRuntimeError("invalid_value", f"reduction over zero elements (shape "
                             f"{x.shape}, axes {list(axes)}) has no value",
                             rule="EXEC-reduce-6")


def _sum(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _prod(x, axis, keepdims):
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _max(x, axis, keepdims, initial):
    return np.max(x, axis=axis, keepdims=keepdims, initial=initial)


def _min(x, axis, keepdims, initial):
    return np.min(x, axis=axis, keepdims=keepdims, initial=initial)


def mean_values(x: np.ndarray, axes: tuple[int, ...], keepdims: bool, rule: str) -> np.ndarray:
    """EXEC-reduce-2: the sum in the tensor's dtype divided by the element count. Floats
    divide exactly (0/0 is NaN); integers truncate toward zero, and an empty reduction
    of integers is a division by zero."""
    total = np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    count = _count(x, axes)
    if np.issubdtype(x.dtype, np.integer):
        if count == 0:
            raise OpRuntimeError("division_by_zero", "the mean of zero integers divides by "
                                 "zero", rule=rule)
        return trunc_div(np.asarray(total).astype(np.int64), count).astype(x.dtype)
    return (np.asarray(total) / np.asarray(count, dtype=x.dtype)).astype(x.dtype)


@quiet
def _mean(attrs, x):
    axes = _axes_of(attrs, x, "EXEC-reduce-1")
    return mean_values(x, axes, attrs.get("keepdims"), "EXEC-reduce-2")


def variance_values(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """EXEC-reduce-3: population variance, ``mean((x - mean(x, keepdims))**2)``, as TVM's
    legalization computes it (two passes, not ``E[x^2] - E[x]^2``). For integer tensors
    the inner mean is taken in the tensor's dtype, the deviations, squares and outer
    mean in int64 (as TVM's kernel does), each mean truncated toward zero."""
    if np.issubdtype(x.dtype, np.integer):
        mean = mean_values(x, axes, True, "EXEC-reduce-2").astype(np.int64)
        dev = x.astype(np.int64) - mean
        return mean_values(dev * dev, axes, keepdims, "EXEC-reduce-2").astype(x.dtype)
    dev = (x - mean_values(x, axes, True, "EXEC-reduce-2")).astype(x.dtype)
    return mean_values((dev * dev).astype(x.dtype), axes, keepdims, "EXEC-reduce-2")


@quiet
def _variance(attrs, x):
    axes = _axes_of(attrs, x, "EXEC-reduce-1")
    return variance_values(x, axes, attrs.get("keepdims"))


@quiet
def _std(attrs, x):
    """EXEC-reduce-3: sqrt of the variance; for integers, truncated to the dtype."""
    axes = _axes_of(attrs, x, "EXEC-reduce-1")
    var = variance_values(x, axes, attrs.get("keepdims"))
    if np.issubdtype(x.dtype, np.integer):
        return np.trunc(np.sqrt(var.astype(np.float64))).astype(x.dtype)
    return np.sqrt(var).astype(x.dtype)


def _arg_reducer(np_fn: Callable):
    """EXEC-reduce-4: the index (int64) of the first extreme element; NaN counts as the
    extreme, as in NumPy. Needs at least one element (EXEC-reduce-6)."""
    @quiet
    def compute(attrs, x):
        axis = attrs.get("axis")
        keepdims = attrs.get("keepdims")
        if axis is not None:
            axis = runtime_axis(axis, x.ndim, "EXEC-reduce-1")
        _check_nonempty(x, tuple(range(x.ndim)) if axis is None else (axis,))
        if x.size == 0:  # only the kept dimensions are empty
            return np.zeros(_arg_result_shape(x, axis, keepdims), dtype=np.int64)
        if axis is None:
            out = np_fn(x.reshape(-1))
            shape = (1,) * x.ndim if keepdims else ()
            return np.full(shape, out, dtype=np.int64)
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims), dtype=np.int64)
    return compute


def _arg_result_shape(x: np.ndarray, axis: int | None, keepdims: bool) -> tuple[int, ...]:
    if axis is None:
        return (1,) * x.ndim if keepdims else ()
    if keepdims:
        return tuple(1 if i == axis else d for i, d in enumerate(x.shape))
    return tuple(d for i, d in enumerate(x.shape) if i != axis)


def _scan(np_fn: Callable, start: int):
    """EXEC-reduce-5: cumsum/cumprod in the result dtype (the input is converted first,
    and the accumulator has that dtype); ``axis=None`` scans the flattened tensor;
    ``exclusive`` shifts the scan by one, starting from the identity ``start``."""
    @quiet
    def compute(attrs, x):
        from relax_ref.ir.numpy_dtype import numpy_dtype

        dtype = attrs.get("dtype")
        out_dtype = x.dtype if dtype.is_void else numpy_dtype(dtype)
        axis = attrs.get("axis")
        data = x.astype(out_dtype)
        if axis is None:
            data, axis = data.reshape(-1), 0
        else:
            axis = runtime_axis(axis, x.ndim, "EXEC-reduce-1")
        out = np_fn(data, axis=axis, dtype=out_dtype)
        if attrs.get("exclusive"):
            first = [slice(None)] * data.ndim
            first[axis] = slice(0, 1)
            head = np.full(data[tuple(first)].shape, start, dtype=out_dtype)
            rest = [slice(None)] * data.ndim
            rest[axis] = slice(0, -1)
            out = np.concatenate([head, out[tuple(rest)]], axis=axis)
        return np.asarray(out).astype(out_dtype, copy=False)
    return compute


# -- registration ------------------------------------------------------------------------------

_STAT_ATTRS = (Attr("axis", None, to_opt_int_tuple), Attr("keepdims", False, to_bool))
_ARG_ATTRS = (Attr("axis", None, to_opt_int), Attr("keepdims", False, to_bool))
def _exclusive(value) -> bool:
    """TVM's frontends write ``exclusive=None``, which TVM reads as False."""
    return False if value is None else to_bool(value)


_SCAN_ATTRS = (Attr("axis", None, to_opt_int), Attr("dtype", None, to_dtype),
               Attr("exclusive", False, _exclusive))


def _register_all() -> None:
    x = (Operand("x"),)
    reducers = {
        "sum": _reducer(_sum), "prod": _reducer(_prod),
        "max": _reducer(_max, lowest_value), "min": _reducer(_min, highest_value),
    }
    for name, fn in reducers.items():
        register(OpDef(f"relax.{name}", x, _STAT_ATTRS, deduce=deduce_reduce, compute=fn,
                       family=FAMILY, spec_rule="SI-reduce-1"))
    for name, fn in {"mean": _mean, "variance": _variance, "std": _std}.items():
        register(OpDef(f"relax.{name}", x, _STAT_ATTRS, deduce=deduce_statistic, compute=fn,
                       family=FAMILY, spec_rule="SI-reduce-2"))
    for name, fn in {"argmax": np.argmax, "argmin": np.argmin}.items():
        register(OpDef(f"relax.{name}", x, _ARG_ATTRS, deduce=deduce_arg_reduce,
                       compute=_arg_reducer(fn), family=FAMILY, spec_rule="SI-reduce-3"))
    for name, fn, start in (("cumsum", np.cumsum, 0), ("cumprod", np.cumprod, 1)):
        register(OpDef(f"relax.{name}", (Operand("data"),), _SCAN_ATTRS, deduce=deduce_scan,
                       compute=_scan(fn, start), family=FAMILY, spec_rule="SI-reduce-4"))


_register_all()
