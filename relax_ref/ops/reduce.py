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

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT64, INT64, DataType, parse_dtype

from .common import (
    OpRuntimeError, cast_value, highest_value, i64, lowest_value, normalize_axes,
    normalize_axis, quiet, runtime_axes, runtime_axis, shape_product, tensor_arg, trunc_div,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, register, to_bool, to_dtype, to_opt_int,
    to_opt_int_tuple,
)

FAMILY = "reduce"
INT8 = parse_dtype("int8")


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
    the result itself has no elements): it reads the row's first element, which is out
    of bounds (``index_out_of_bounds``, the trap its lowering's read gives)."""
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    if _count(x, axes) == 0 and int(np.prod(kept, dtype=np.int64)) > 0:
        raise OpRuntimeError("index_out_of_bounds", f"reduction over zero elements (shape "
                             f"{x.shape}, axes {list(axes)}) has no first element",
                             rule="EXEC-reduce-6")


def _sum(x, axis, keepdims):
    if _low_float(x):
        return _ordered(np.add, x, axis, keepdims)
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _prod(x, axis, keepdims):
    if _low_float(x):
        return _ordered(np.multiply, x, axis, keepdims)
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _low_float(x: np.ndarray) -> bool:
    return x.dtype.kind in "fV" and x.dtype.itemsize < 4


def _ordered(ufunc, x: np.ndarray, axis, keepdims: bool) -> np.ndarray:
    """EXEC-reduce-7: a 16-bit float sum (product) in index order, each partial result
    rounded to the dtype (NumPy's own float16 reductions accumulate in float32)."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(a % x.ndim for a in axis))
    kept = [a for a in range(x.ndim) if a not in axes]
    rows = np.transpose(x, kept + list(axes)).reshape(
        [x.shape[a] for a in kept] + [_count(x, axes)])
    if rows.shape[-1] == 0:
        out = np.full(rows.shape[:-1], ufunc.identity, dtype=x.dtype)
    else:
        out = ufunc.accumulate(rows, axis=-1, dtype=x.dtype)[..., -1]
    if keepdims:
        out = out.reshape([1 if a in axes else d for a, d in enumerate(x.shape)])
    return out


def _max(x, axis, keepdims, initial):
    return np.max(x, axis=axis, keepdims=keepdims, initial=initial)


def _min(x, axis, keepdims, initial):
    return np.min(x, axis=axis, keepdims=keepdims, initial=initial)


def mean_values(x: np.ndarray, axes: tuple[int, ...], keepdims: bool, rule: str) -> np.ndarray:
    """EXEC-reduce-2: the sum in the tensor's dtype divided by the element count. Floats
    divide exactly (0/0 is NaN); integers truncate toward zero, and an empty reduction
    of integers into a non-empty result is a division by zero."""
    total = np.asarray(_sum(x, axes, keepdims))
    count = _count(x, axes)
    if np.issubdtype(x.dtype, np.integer):
        if count == 0 and np.size(total) > 0:
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
    if np.issubdtype(x.dtype, np.integer):  # a TIR cast: truncation, NaN as x86 gives it
        return cast_value(np.sqrt(var.astype(np.float64)), x.dtype)
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
        data = cast_value(x, out_dtype)  # a TIR Cast (EXEC-tir-cast-2), as R.astype
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


# -- legalization (spec/ops/reduce.md "Lowering", TE-leg-reduce-*) ----------------------------
#
# A fold's ``T.init`` runs with its first reduction iteration, so a row of zero elements
# leaves the fold's buffer unwritten (poison). Where a row may be empty and the result
# may have elements, the last stage therefore chooses the identity for an empty row
# (sum, prod, mean, variance) or reads the row's first element, which traps (max, min,
# argmax, argmin; EXEC-reduce-6). Every fold is ``+``, ``*``, ``T.max`` or ``T.min``,
# the folds the TIR interpreter's vectorized path runs.

class _Plan:
    """A reduction of ``x`` over ``axes`` (normalized, ascending) into ``out_shape``."""

    def __init__(self, x: te.Tensor, axes: tuple[int, ...], keepdims: bool,
                 out_shape: tuple[P.PrimExpr, ...]) -> None:
        self.x, self.axes, self.keepdims, self.out_shape = x, axes, keepdims, out_shape
        self.count = shape_product([x.shape[a] for a in axes])
        self.kept_shape = kept = tuple(d for a, d in enumerate(x.shape) if a not in axes)
        # TE-leg-reduce-1: decided at compile time, conservatively.
        from relax_ref.solver.analyzer import Analyzer

        analyzer = Analyzer()
        self.may_be_empty = not all(
            analyzer.can_prove(P.GE(x.shape[a], i64(1), BOOL)) for a in axes) and \
            not any(isinstance(d, P.IntImm) and d.value == 0 for d in kept)

    def index(self, out_idx, red: dict[int, P.PrimExpr], keepdims: bool | None = None):
        """The element of ``x`` that output ``out_idx`` reads at reduction point ``red``
        (axis -> index; an axis missing from ``red`` is read at 0)."""
        keep = self.keepdims if keepdims is None else keepdims
        full, j = [], 0
        for a in range(self.x.ndim):
            if a in self.axes:
                full.append(red.get(a, i64(0)))
                j += keep
            else:
                full.append(out_idx[j])
                j += 1
        return tuple(full)

    def keep_shape(self) -> tuple[P.PrimExpr, ...]:
        return tuple(i64(1) if a in self.axes else d for a, d in enumerate(self.x.shape))

    def kept(self, x_index) -> tuple[P.PrimExpr, ...]:
        """The index of ``kept_shape`` (the result without keepdims) holding the row
        of the element ``x_index``."""
        return tuple(i for a, i in enumerate(x_index) if a not in self.axes)


def _plan(ctx) -> _Plan:
    x = ctx.tensor(0)
    attr = ctx.attr("axis")
    axes = range(x.ndim) if attr is None else ((attr,) if isinstance(attr, int) else attr)
    norm = tuple(sorted({a + x.ndim if a < 0 else a for a in axes}))
    return _Plan(x, norm, ctx.attr("keepdims"), ctx.result_shape())


def _fold(plan: _Plan, reducer, formula, name: str, *, keepdims: bool | None = None):
    """The stage folding ``formula(x_index, red)`` (``red``: axis -> reduction variable)
    over each row with ``reducer``, into the plan's result shape (``keepdims`` None) or
    the shape with (True) or without (False) the unit dimensions. ``axis=()`` folds each
    element once (over one iteration)."""
    keep = plan.keepdims if keepdims is None else keepdims
    shape = plan.out_shape if keep == plan.keepdims else \
        plan.keep_shape() if keep else plan.kept_shape
    red = {a: te.reduce_axis(plan.x.shape[a], f"k{a}") for a in plan.axes}
    axes = list(red.values()) or [te.reduce_axis(1, "k")]
    vars_ = {a: r.var for a, r in red.items()}
    return te.compute(shape, lambda *idx: reducer(
        formula(plan.index(idx, red, keep), vars_), axis=axes), name=name, axis_prefix="ax")


def _last_stage(plan: _Plan, value_of, name: str, *, empty=None):
    """The stage writing ``value_of(idx)``. Where a row may be empty: with ``empty``
    (an identity) an empty row gives it (the fold never wrote the row); without, the
    stage reads the row's first element, which traps ``index_out_of_bounds`` for an
    empty row (EXEC-reduce-6), and gives ``value_of(idx)`` otherwise."""
    def formula(*idx):
        value = value_of(idx)
        if not plan.may_be_empty:
            return value
        if empty is not None:
            return te.if_then_else(P.GT(plan.count, i64(0), BOOL), value, empty)
        first = plan.x[plan.index(idx, {})]
        return te.select(P.EQ(first, first, BOOL), value, value)
    return te.compute(plan.out_shape, formula, name=name, axis_prefix="ax")


def _finite_reducer(op: str):
    """``T.max``/``T.min`` folds from the dtype's lowest/highest finite value (TVM's
    identities, EXEC-reduce-6's ``initial``)."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    bound = lowest_value if op == "max" else highest_value
    node = P.Max if op == "max" else P.Min
    return te.comm_reducer(lambda a, b: node(a, b, a.dtype), lambda dts: [
        te.const(np.asarray(bound(numpy_dtype(dt))).item(), dt) for dt in dts], op)


_MAX_FINITE = _finite_reducer("max")
_MIN_FINITE = _finite_reducer("min")


def _sum_fold(plan: _Plan, name: str, formula=None, *, keepdims: bool | None = None):
    """A ``+`` fold, bool as logical or: the ``T.max`` of bools."""
    reducer = te.max if plan.x.dtype.is_bool else te.sum
    return _fold(plan, reducer, formula or (lambda i, r: plan.x[i]), name, keepdims=keepdims)


def _identity(op: str, dtype: DataType) -> P.PrimExpr:
    return te.const(0 if op == "sum" else 1, dtype)


def _legalize_sum_prod(op: str):
    def legalize(ctx):
        """TE-leg-reduce-2: one fold in the dtype."""
        plan = _plan(ctx)
        x, name = plan.x, f"{plan.x.name}_red"
        temp = name if not plan.may_be_empty else f"{name}_temp"
        if op == "sum":
            red = _sum_fold(plan, temp)
        else:  # bool products are logical and: the T.min of bools
            red = _fold(plan, te.min if x.dtype.is_bool else te.prod,
                        lambda i, r: x[i], temp)
        if plan.may_be_empty:
            red = _last_stage(plan, lambda idx: red[idx], name, empty=_identity(op, x.dtype))
        return ctx.call_te(red, op)
    return legalize


def _legalize_extreme(op: str):
    reducer = _MAX_FINITE if op == "max" else _MIN_FINITE

    def legalize(ctx):
        """TE-leg-reduce-3: ``T.max``/``T.min`` from the finite bound; for floats a
        second fold notes a NaN, which the result then is."""
        plan = _plan(ctx)
        x, name = plan.x, f"{plan.x.name}_red"
        floats = x.dtype.is_float
        red = _fold(plan, reducer, lambda i, r: x[i],
                    name if not (floats or plan.may_be_empty) else f"{name}_temp")
        if not (floats or plan.may_be_empty):
            return ctx.call_te(red, op)
        if not floats:
            return ctx.call_te(_last_stage(plan, lambda idx: red[idx], name), op)
        nan = _fold(plan, te.max, lambda i, r: te.cast(INT8, te.call_intrin(
            "isnan", x[i], dtype=BOOL)), f"{name}_isnan")
        out = _last_stage(plan, lambda idx: te.select(
            P.GT(nan[idx], te.const(0, INT8), BOOL), te.const(math.nan, x.dtype), red[idx]),
            name)
        return ctx.call_te(out, op)
    return legalize


def _mean_of(total: P.PrimExpr, count: P.PrimExpr, dtype: DataType) -> P.PrimExpr:
    """EXEC-reduce-2 on one sum: float division by the count converted to the dtype;
    integers truncate in int64 (T.Div traps ``division_by_zero`` on a zero count)."""
    if dtype.is_float:
        return te.div(total, te.cast(dtype, count))
    return te.cast(dtype, te.div(te.cast(INT64, total), count))


def _mean_stage(plan: _Plan, red, dtype: DataType, name: str):
    """``T_divide``: the sum ``red`` (0 for an empty row) over the count."""
    def total(idx):
        if not plan.may_be_empty:
            return red[idx]
        return te.if_then_else(P.GT(plan.count, i64(0), BOOL), red[idx],
                               te.const(0, red.dtype))
    return te.compute(red.shape, lambda *idx: _mean_of(total(idx), plan.count, dtype),
                      name=name, axis_prefix="ax")


def _legalize_mean(ctx):
    """TE-leg-reduce-4: the sum, then ``T_divide`` by the element count."""
    plan = _plan(ctx)
    red = _sum_fold(plan, f"{plan.x.name}_red")
    return ctx.call_te(_mean_stage(plan, red, plan.x.dtype, "T_divide"), "mean")


def _variance_stages(plan: _Plan):
    """TE-leg-reduce-4: EXEC-reduce-3's two passes: the keepdims mean, then the mean of
    the squared deviations (in int64 for integer tensors)."""
    x, dt = plan.x, plan.x.dtype
    # The inner mean has no unit dimensions: a fold into them is no sum of products.
    red = _sum_fold(plan, f"{x.name}_red", keepdims=False)
    mean = _mean_stage(plan, red, dt, "T_divide")

    def deviation(*i):
        if dt.is_float:
            return x[i] - mean[plan.kept(i)]
        return te.cast(INT64, x[i]) - te.cast(INT64, mean[plan.kept(i)])
    # A stage of its own, so that the fold is a sum of products (EXEC-tir-vec-7).
    dev = te.compute(x.shape, deviation, name="T_subtract", axis_prefix="ax")
    sq = _fold(plan, te.sum, lambda i, r: dev[i] * dev[i], "T_multiply_red")
    return _mean_stage(plan, sq, dt, "T_divide_1")


def _legalize_variance(ctx):
    return ctx.call_te(_variance_stages(_plan(ctx)), "variance")


def _legalize_std(ctx):
    """TE-leg-reduce-4: ``T.sqrt`` of the variance; for integers of its float64
    value, truncated by the cast back (EXEC-reduce-3)."""
    plan = _plan(ctx)
    var, dt = _variance_stages(plan), plan.x.dtype

    def root(*idx):
        if dt.is_float:
            return te.call_intrin("sqrt", var[idx])
        return te.cast(dt, te.call_intrin("sqrt", te.cast(FLOAT64, var[idx])))
    return ctx.call_te(te.compute(plan.out_shape, root, name="compute"), "std")


def _legalize_arg(op: str):
    reducer = te.max if op == "argmax" else te.min

    def legalize(ctx):
        """TE-leg-reduce-5: the extreme value (from the infinite identity), then the
        least flattened index whose element equals it; for floats a NaN's index ranks
        first (keys ``k`` for a NaN, ``k + N`` for the extreme, ``2N`` otherwise)."""
        plan = _plan(ctx)
        x, name, n = plan.x, f"{plan.x.name}_red", plan.count
        ext = _fold(plan, reducer, lambda i, r: x[i], f"{name}_{op[3:]}", keepdims=False)
        floats = x.dtype.is_float

        def key(i, r):
            flat = i64(0)
            for a in plan.axes:
                flat = flat * x.shape[a] + r[a]
            hit = P.EQ(x[i], ext[plan.kept(i)], BOOL)
            if not floats:
                return te.select(hit, flat, n)
            return te.select(te.call_intrin("isnan", x[i], dtype=BOOL), flat,
                             te.select(hit, flat + n, n + n))
        index = _fold(plan, te.min, key, name if not (floats or plan.may_be_empty)
                      else f"{name}_index")
        if not (floats or plan.may_be_empty):
            return ctx.call_te(index, op)
        if not floats:
            return ctx.call_te(_last_stage(plan, lambda idx: index[idx], name), op)
        return ctx.call_te(_last_stage(plan, lambda idx: te.select(
            P.GE(index[idx], n, BOOL), index[idx] - n, index[idx]), name), op)
    return legalize


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
    lowering = {"sum": _legalize_sum_prod("sum"), "prod": _legalize_sum_prod("prod"),
                "max": _legalize_extreme("max"), "min": _legalize_extreme("min"),
                "mean": _legalize_mean, "variance": _legalize_variance, "std": _legalize_std,
                "argmax": _legalize_arg("argmax"), "argmin": _legalize_arg("argmin")}
    for name, fn in reducers.items():
        register(OpDef(f"relax.{name}", x, _STAT_ATTRS, deduce=deduce_reduce, compute=fn,
                       family=FAMILY, spec_rule="SI-reduce-1", legalize=lowering[name]))
    for name, fn in {"mean": _mean, "variance": _variance, "std": _std}.items():
        register(OpDef(f"relax.{name}", x, _STAT_ATTRS, deduce=deduce_statistic, compute=fn,
                       family=FAMILY, spec_rule="SI-reduce-2", legalize=lowering[name]))
    for name, fn in {"argmax": np.argmax, "argmin": np.argmin}.items():
        register(OpDef(f"relax.{name}", x, _ARG_ATTRS, deduce=deduce_arg_reduce,
                       compute=_arg_reducer(fn), family=FAMILY, spec_rule="SI-reduce-3",
                       legalize=lowering[name]))
    for name, fn, start in (("cumsum", np.cumsum, 0), ("cumprod", np.cumprod, 1)):
        register(OpDef(f"relax.{name}", (Operand("data"),), _SCAN_ATTRS, deduce=deduce_scan,
                       compute=_scan(fn, start), family=FAMILY, spec_rule="SI-reduce-4"))


_register_all()
