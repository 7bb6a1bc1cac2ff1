"""Normalization layers under ``R.nn``: ``layer_norm``, ``rms_norm``, ``group_norm`` and
``batch_norm`` (spec/ops/nn.md, SI-nn-*-norm, EXEC-nn-norm-*). Statistics are computed
in float32 for 16-bit floats, as TVM's legalization does.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import FLOAT32, FLOAT64, INT64, DataType
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, expr_text, normalize_axes, normalize_axis, provably_ne, quiet,
    runtime_axes, runtime_axis, tensor_arg,
)
from .nn import provably_indivisible
from .nn_lowering import add, mul, zero_if_empty
from .registry import (
    Attr, DeduceContext, OpDef, Operand, register, to_bool, to_float, to_int, to_int_tuple,
)

FAMILY = "nn"  # spec/ops/nn.md


def is_norm_float(dtype: DataType) -> bool:
    """The float kinds TVM's normalizations accept: float16/32/64 and bfloat16."""
    return dtype.code in ("float", "bfloat")


def norm_check(ctx: DeduceContext, data: si.TensorStructInfo,
               params: Sequence[tuple[str, si.TensorStructInfo]], axes: Sequence[int]) -> bool:
    """The checks shared by layer_norm, rms_norm and batch_norm (TVM's
    ``NormCheckDtypeAndShape``); True when every parameter length is proved equal to the
    data's length on its axis (or cannot be compared), False when one is not provable.

    SI-nn-norm-1: a known data dtype is a float kind.
    SI-nn-norm-2: a parameter's known dtype equals the data's known dtype.
    SI-nn-norm-3: a parameter of known ndim has one dimension per axis.
    SI-nn-norm-4: a parameter length provably different from the data's is an error.
    Axes are checked against a known ndim (SI-op-axis-1, SI-op-axis-2)."""
    norm_axes = normalize_axes(ctx, axes, data.ndim) if data.ndim >= 0 else None
    if not data.dtype.is_void and not is_norm_float(data.dtype):
        raise ctx.error(f"needs float data, found {data.dtype}", rule="SI-nn-norm-1")
    for name, p in params:
        if not p.dtype.is_void and not data.dtype.is_void and p.dtype != data.dtype:
            raise ctx.error(f"{name} has dtype {p.dtype}, the data {data.dtype}",
                            rule="SI-nn-norm-2")
        if p.ndim >= 0 and p.ndim != len(axes):
            raise ctx.error(f"{name} must have one dimension per axis ({len(axes)}), "
                            f"found ndim {p.ndim}", rule="SI-nn-norm-3")
    if data.shape is None or norm_axes is None:
        return True
    lengths = [data.shape[a] for a in norm_axes]
    proved = True
    for name, p in params:
        if p.shape is None:
            continue
        for d, (want, have) in enumerate(zip(lengths, p.shape)):
            if provably_ne(ctx, want, have):
                raise ctx.error(f"{name} has length {expr_text(have)} on dimension {d}, "
                                f"the data {expr_text(want)} on axis {norm_axes[d]}",
                                rule="SI-nn-norm-4")
            if not ctx.analyzer.prove_equal(want, have):
                proved = False
    return proved


def deduce_layer_norm(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-layer_norm-1: the data's struct info after SI-nn-norm-1..4 with gamma and
    beta; only the data's dtype and ndim when a parameter length is not provably equal
    to the data's (TVM's fallback)."""
    data, gamma, beta = (tensor_arg(ctx, i) for i in range(3))
    if norm_check(ctx, data, [("gamma", gamma), ("beta", beta)], ctx.attr("axes")):
        return data
    return si.TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def deduce_rms_norm(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-rms_norm-1: as SI-nn-layer_norm-1 with the one parameter ``weight``."""
    data, weight = tensor_arg(ctx, 0), tensor_arg(ctx, 1)
    if norm_check(ctx, data, [("weight", weight)], ctx.attr("axes")):
        return data
    return si.TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def deduce_batch_norm(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-batch_norm-1: ``(out, new_mean, new_var)``: the data's and the moving
    statistics' struct info after SI-nn-norm-1..4 on ``axis`` with the four 1-d
    parameters; dtype and ndim only when a length is not provably equal."""
    data = tensor_arg(ctx, 0)
    names = ("gamma", "beta", "moving_mean", "moving_var")
    params = [(n, tensor_arg(ctx, i + 1)) for i, n in enumerate(names)]
    if norm_check(ctx, data, params, [ctx.attr("axis")]):
        return si.TupleStructInfo((data, params[2][1], params[3][1]))
    one_d = si.TensorStructInfo(None, data.dtype, 1, data.vdevice)
    return si.TupleStructInfo((si.TensorStructInfo(None, data.dtype, data.ndim, data.vdevice),
                               one_d, one_d))


def deduce_group_norm(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-group_norm-1..4: the result has the data's struct info.

    1. ``num_groups >= 1``; when the ndim is known, ``channel_axis`` and ``axes`` are in
       range (SI-op-axis-*) and ``channel_axis`` is not among ``axes``.
    2. A known data dtype is a float kind (SI-nn-norm-1).
    3. A channel count provably not divisible by ``num_groups`` is an error.
    4. gamma and beta have the data's dtype (SI-nn-norm-2), are 1-d, and a length
       provably different from the channel count is an error."""
    groups = ctx.attr("num_groups")
    if groups < 1:
        raise ctx.error(f"num_groups must be >= 1, found {groups}", rule="SI-nn-group_norm-1")
    return _deduce_channel_norm(ctx, groups, "SI-nn-group_norm-1", "SI-nn-group_norm-4")


def deduce_instance_norm(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-instance_norm-1: group_norm's rules with one group per channel (nothing to
    divide): ``channel_axis`` and ``axes`` in range and apart, float data, gamma and beta
    1-d of the data's dtype and the channel count's length."""
    return _deduce_channel_norm(ctx, None, "SI-nn-instance_norm-1", "SI-nn-instance_norm-1")


def _deduce_channel_norm(ctx: DeduceContext, groups: int | None, axis_rule: str,
                         param_rule: str) -> si.StructInfo:
    """The rules group_norm and instance_norm share (``groups`` None: one group per
    channel)."""
    data, gamma, beta = (tensor_arg(ctx, i) for i in range(3))
    channel_axis = None
    if data.ndim >= 0:
        channel_axis = normalize_axis(ctx, ctx.attr("channel_axis"), data.ndim, "channel_axis")
        axes = normalize_axes(ctx, ctx.attr("axes"), data.ndim)
        if channel_axis in axes:
            raise ctx.error(f"channel_axis {channel_axis} must not be among the axes "
                            f"{list(ctx.attr('axes'))}", rule=axis_rule)
    if not data.dtype.is_void and not is_norm_float(data.dtype):
        raise ctx.error(f"needs float data, found {data.dtype}", rule="SI-nn-norm-1")
    channels = data.shape[channel_axis] if data.shape is not None and channel_axis is not None \
        else None
    if channels is not None and groups is not None and \
            provably_indivisible(ctx, channels, groups):
        raise ctx.error(f"the channel count {expr_text(channels)} is not divisible by "
                        f"num_groups {groups}", rule="SI-nn-group_norm-3")
    for name, p in (("gamma", gamma), ("beta", beta)):
        if not p.dtype.is_void and not data.dtype.is_void and p.dtype != data.dtype:
            raise ctx.error(f"{name} has dtype {p.dtype}, the data {data.dtype}",
                            rule="SI-nn-norm-2")
        if p.ndim >= 0 and p.ndim != 1:
            raise ctx.error(f"{name} must be 1-d, found ndim {p.ndim}", rule=param_rule)
        if channels is not None and p.shape is not None and \
                provably_ne(ctx, channels, p.shape[0]):
            raise ctx.error(f"{name} has length {expr_text(p.shape[0])}, the channel axis "
                            f"{expr_text(channels)}", rule=param_rule)
    return data


# -- normalization semantics -----------------------------------------------------------------

def _stat_dtype(dtype: np.dtype) -> np.dtype:
    """Statistics of 16-bit (and narrower) floats are computed in float32 (topi)."""
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _param_broadcast(p: np.ndarray, x: np.ndarray, axes: list[int], name: str,
                     rule: str) -> np.ndarray:
    """EXEC-nn-norm-1: parameter dimension j has the data's length on ``axes[j]``; the
    parameter is returned reshaped to broadcast against the data."""
    want = tuple(x.shape[a] for a in axes)
    if p.shape != want:
        raise OpRuntimeError("shape_mismatch", f"{name} has shape {p.shape}, expected {want}",
                             rule=rule)
    shape = [x.shape[i] if i in axes else 1 for i in range(x.ndim)]
    if all(a < b for a, b in zip(axes, axes[1:])):  # already in the data's order
        return p.reshape(shape)
    order = sorted(range(len(axes)), key=lambda j: axes[j])
    return np.transpose(p, order).reshape(shape)


def _scale_and_center(attrs, out: np.ndarray, gamma: np.ndarray, beta: np.ndarray
                      ) -> np.ndarray:
    """The normalizations' last step: ``* gamma`` when ``scale``, then ``+ beta`` when
    ``center``, each rounded to the data's dtype (``gamma``/``beta`` broadcast)."""
    if attrs.get("scale"):
        out = (out * gamma).astype(out.dtype)
    if attrs.get("center"):
        out = (out + beta).astype(out.dtype)
    return out


@quiet
def _layer_norm(attrs, x, gamma, beta):
    """EXEC-nn-layer_norm-1: ``(x - mean) * rsqrt(var + eps)`` over ``axes`` (two-pass,
    population variance, statistics in float32 for 16-bit floats), rounded to the dtype,
    then ``* gamma`` when ``scale`` and ``+ beta`` when ``center``."""
    axes = runtime_axes(attrs.get("axes"), x.ndim, "EXEC-nn-norm-1")
    g = _param_broadcast(gamma, x, axes, "gamma", "EXEC-nn-norm-1")
    b = _param_broadcast(beta, x, axes, "beta", "EXEC-nn-norm-1")
    st = _stat_dtype(x.dtype)
    xs = x.astype(st)
    count = st.type(math.prod(x.shape[a] for a in axes))
    mean = np.sum(xs, axis=tuple(axes), keepdims=True, dtype=st) / count
    var = np.sum((xs - mean) * (xs - mean), axis=tuple(axes), keepdims=True, dtype=st) / count
    eps = st.type(attrs.get("epsilon"))
    out = ((xs - mean) * (st.type(1) / np.sqrt(var + eps))).astype(x.dtype)
    return _scale_and_center(attrs, out, g, b)


@quiet
def _rms_norm(attrs, x, weight):
    """EXEC-nn-rms_norm-1: ``rsqrt(mean(x*x) + eps) * x * weight`` over ``axes``, in
    float32 (float64 for float64 data), rounded to the dtype once."""
    axes = runtime_axes(attrs.get("axes"), x.ndim, "EXEC-nn-norm-1")
    w = _param_broadcast(weight, x, axes, "weight", "EXEC-nn-norm-1")
    st = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    xs = x.astype(st, copy=False)
    count = st.type(math.prod(x.shape[a] for a in axes))
    work = xs * xs
    square_sum = work.sum(axis=tuple(axes), keepdims=True, dtype=st)
    rs = st.type(1) / np.sqrt(square_sum / count + st.type(attrs.get("epsilon")))
    # rs * xs * weight, reusing the buffer of the squares (products commute in IEEE).
    np.multiply(xs, rs, out=work)
    np.multiply(work, w.astype(st, copy=False), out=work)
    return work.astype(x.dtype, copy=False)


@quiet
def _group_norm(attrs, x, gamma, beta):
    """EXEC-nn-group_norm-1: the channel axis splits into ``(num_groups, C/num_groups)``;
    mean and variance (``E[x^2] - E[x]^2``, as topi) over the group's channels and
    ``axes``, in float32 for 16-bit floats; then per-channel ``gamma`` (when ``scale``)
    and ``beta`` (when ``center``)."""
    return _channel_norm(attrs, x, gamma, beta, attrs.get("num_groups"))


@quiet
def _instance_norm(attrs, x, gamma, beta):
    """EXEC-nn-instance_norm-1: group_norm with one group per channel: the statistics
    of each channel (and each index of the other kept axes) over ``axes``."""
    c_axis = runtime_axis(attrs.get("channel_axis"), x.ndim, "EXEC-nn-norm-1")
    return _channel_norm(attrs, x, gamma, beta, max(x.shape[c_axis], 1))


def _channel_norm(attrs, x, gamma, beta, groups: int):
    c_axis = runtime_axis(attrs.get("channel_axis"), x.ndim, "EXEC-nn-norm-1")
    axes = runtime_axes(attrs.get("axes"), x.ndim, "EXEC-nn-norm-1")
    if c_axis in axes:
        raise OpRuntimeError("invalid_value", f"channel_axis {c_axis} is among the axes "
                             f"{axes}", rule="EXEC-nn-norm-1")
    channels = x.shape[c_axis]
    if channels % groups:
        raise OpRuntimeError("shape_mismatch", f"{channels} channels do not split into "
                             f"{groups} groups", rule="EXEC-nn-norm-1")
    for name, p in (("gamma", gamma), ("beta", beta)):
        if p.shape != (channels,):
            raise OpRuntimeError("shape_mismatch", f"{name} has shape {p.shape}, expected "
                                 f"({channels},)", rule="EXEC-nn-norm-1")
    st = _stat_dtype(x.dtype)
    split = x.shape[:c_axis] + (groups, channels // groups) + x.shape[c_axis + 1:]
    xs = x.reshape(split).astype(st)
    red = tuple(sorted([c_axis + 1] + [a if a < c_axis else a + 1 for a in axes]))
    count = st.type(math.prod(split[a] for a in red))
    mean = np.sum(xs, axis=red, keepdims=True, dtype=st) / count
    var = np.sum(xs * xs, axis=red, keepdims=True, dtype=st) / count - mean * mean
    eps = st.type(attrs.get("epsilon"))
    out = ((xs - mean) * (st.type(1) / np.sqrt(var + eps))).astype(x.dtype)
    pshape = [1] * len(split)
    pshape[c_axis], pshape[c_axis + 1] = groups, channels // groups
    out = _scale_and_center(attrs, out, gamma.reshape(pshape), beta.reshape(pshape))
    return out.reshape(x.shape)


def _fold_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """The sum over every axis but ``axis`` in the dtype, one element at a time in
    row-major order (a left fold, as the lowered reduction adds; NumPy's ``sum`` of
    float16 adds pairwise in float32 or not depending on the layout), keepdims."""
    rest = math.prod(d for i, d in enumerate(x.shape) if i != axis)
    moved = np.moveaxis(x, axis, 0).reshape(x.shape[axis], rest)
    if moved.shape[1] == 0:
        total = np.zeros(x.shape[axis], x.dtype)
    else:
        total = np.add.accumulate(moved, axis=1, dtype=x.dtype)[:, -1]
    return total.reshape([x.shape[axis] if i == axis else 1 for i in range(x.ndim)])


@quiet
def _batch_norm(attrs, x, gamma, beta, moving_mean, moving_var):
    """EXEC-nn-batch_norm-1: inference (``training=False``) normalizes with the moving
    statistics and returns them unchanged; training normalizes with the batch mean and
    population variance over every other axis and returns the moving statistics updated
    by ``momentum``. ``gamma`` only when ``scale``, ``beta`` only when ``center``. All
    arithmetic in the data's dtype (topi.nn.batch_norm); the sums are left folds
    (``_fold_sum``)."""
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-nn-norm-1")
    params = [_param_broadcast(p, x, [axis], name, "EXEC-nn-norm-1") for p, name in
              ((gamma, "gamma"), (beta, "beta"), (moving_mean, "moving_mean"),
               (moving_var, "moving_var"))]
    g, b, mm, mv = params
    eps = x.dtype.type(attrs.get("epsilon"))
    if attrs.get("training"):
        red = tuple(i for i in range(x.ndim) if i != axis)
        count = x.dtype.type(math.prod(x.shape[i] for i in red))
        mean = (_fold_sum(x, axis) / count).astype(x.dtype)
        var = (_fold_sum((x - mean) * (x - mean), axis) / count).astype(x.dtype)
        out = ((x - mean) / np.sqrt(var + eps)).astype(x.dtype)
    else:
        out = ((x - mm) / np.sqrt(mv + eps)).astype(x.dtype)
    out = _scale_and_center(attrs, out, g, b)
    if not attrs.get("training"):
        return out, moving_mean.copy(), moving_var.copy()
    momentum = x.dtype.type(attrs.get("momentum"))
    one = x.dtype.type(1)
    new_mean = ((one - momentum) * moving_mean + momentum * mean.reshape(-1)).astype(x.dtype)
    new_var = ((one - momentum) * moving_var + momentum * var.reshape(-1)).astype(x.dtype)
    return out, new_mean, new_var


# -- lowerings (spec/ops/nn.md TE-leg-nn-7) ----------------------------------------------------

def _te_stat_dtype(dtype: DataType) -> DataType:
    """``_stat_dtype`` as a TIR dtype: float32 for 16-bit floats."""
    return FLOAT32 if numpy_dtype(dtype).itemsize < 4 else dtype


def _count(dims) -> P.PrimExpr:
    """The product of ``dims`` (int64)."""
    out: P.PrimExpr = P.IntImm(1, INT64)
    for d in dims:
        out = mul(out, d)
    return out


def _reduced(x: te.Tensor, axes: list[int], name: str, fn, dtype: DataType) -> te.Tensor:
    """The sum over ``axes`` of ``fn(index)`` (``index``: x's full index), a tensor over
    x's other axes (keepdims=False)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    red = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in axes}

    def formula(*ki):
        full = [None] * x.ndim
        for i, v in zip(kept, ki):
            full[i] = v
        for a, r in red.items():
            full[a] = r.var
        return te.sum(te.cast(dtype, fn(tuple(full))), axis=list(red.values()))
    return te.compute([x.shape[i] for i in kept], formula, name=name, axis_prefix="ax")


def _kept(idx, axes: list[int]) -> tuple:
    return tuple(v for i, v in enumerate(idx) if i not in axes)


def _scaled(ctx, y: P.PrimExpr, gamma: P.PrimExpr, beta: P.PrimExpr) -> P.PrimExpr:
    if ctx.attr("scale", True):
        y = y * gamma
    if ctx.attr("center", True):
        y = y + beta
    return y


def _legalize_layer_norm(ctx):
    """EXEC-nn-layer_norm-1: a sum stage, a sum-of-squared-deviations stage (two passes,
    as the semantics), then the normalized value rounded to the dtype, ``* gamma``,
    ``+ beta`` (each in the dtype)."""
    x, gamma, beta = ctx.tensor(0, "data"), ctx.tensor(1, "gamma"), ctx.tensor(2, "beta")
    axes = [a % x.ndim for a in ctx.attr("axes")]
    st = _te_stat_dtype(x.dtype)
    count = te.cast(st, _count(x.shape[a] for a in axes))
    total = _reduced(x, axes, "layer_norm_sum", lambda i: x[i], st)

    def mean(i):
        return te.div(total[_kept(i, axes)], count)
    dev = _reduced(x, axes, "layer_norm_sqsum",
                   lambda i: (te.cast(st, x[i]) - mean(i)) * (te.cast(st, x[i]) - mean(i)), st)
    eps = te.const(ctx.attr("epsilon"), st)

    def formula(*i):
        inv = te.div(te.const(1, st), te.call_intrin(
            "sqrt", te.div(dev[_kept(i, axes)], count) + eps))
        y = te.cast(x.dtype, (te.cast(st, x[i]) - mean(i)) * inv)
        p = tuple(i[a] for a in axes)
        return _scaled(ctx, y, gamma[p], beta[p])
    out = te.compute(x.shape, formula, name="T_layer_norm", axis_prefix="ax")
    return ctx.call_te(out, "layer_norm")


def _legalize_rms_norm(ctx):
    """EXEC-nn-rms_norm-1: a sum-of-squares stage, then ``x * rsqrt(mean + eps) *
    weight`` in float32 (float64 for float64 data), rounded once."""
    x, weight = ctx.tensor(0, "data"), ctx.tensor(1, "weight")
    axes = [a % x.ndim for a in ctx.attr("axes")]
    st = FLOAT64 if x.dtype == FLOAT64 else FLOAT32
    count = te.cast(st, _count(x.shape[a] for a in axes))
    sq = _reduced(x, axes, "rms_norm_sqsum", lambda i: te.cast(st, x[i]) * te.cast(st, x[i]),
                  st)
    eps = te.const(ctx.attr("epsilon"), st)

    def formula(*i):
        rs = te.div(te.const(1, st), te.call_intrin(
            "sqrt", te.div(sq[_kept(i, axes)], count) + eps))
        w = te.cast(st, weight[tuple(i[a] for a in axes)])
        return te.cast(x.dtype, te.cast(st, x[i]) * rs * w)
    out = te.compute(x.shape, formula, name="T_rms_norm", axis_prefix="ax")
    return ctx.call_te(out, "rms_norm")


def _legalize_group_norm(ctx):
    """EXEC-nn-group_norm-1: per group, a sum stage and a sum-of-squares stage over the
    group's channels and ``axes``; ``var = E[x^2] - E[x]^2``. The op's run-time checks
    (the channel count splits into the groups, gamma and beta have its length) are the
    PrimFunc's guards where not proved (TE-leg-nn-1)."""
    groups = ctx.attr("num_groups")
    return _lower_channel_norm(ctx, groups, "group_norm")


def _legalize_instance_norm(ctx):
    """EXEC-nn-instance_norm-1: group_norm's stages with one group per channel (the
    statistics have the channel axis itself, no group split)."""
    return _lower_channel_norm(ctx, None, "instance_norm")


def _lower_channel_norm(ctx, groups: int | None, name: str):
    x, gamma, beta = ctx.tensor(0, "data"), ctx.tensor(1, "gamma"), ctx.tensor(2, "beta")
    c_axis = ctx.attr("channel_axis") % x.ndim
    axes = [a % x.ndim for a in ctx.attr("axes")]
    channels = x.shape[c_axis]
    if not axes:
        raise ctx.decline("no axes to normalize over")
    # EXEC-nn-norm-1's shape checks, where not proved, are the PrimFunc's guards
    # (TE-leg-7): every read below is in bounds once they hold.
    if groups is not None:
        ctx.require_divides(channels, groups, "the channels, split into num_groups")
    ctx.require_equal(gamma.shape[0], channels, "gamma's length and the channel count")
    ctx.require_equal(beta.shape[0], channels, "beta's length and the channel count")
    # per_group channels in each group: 1 for instance_norm, whose groups are the channels
    if groups is None:
        per_group, group_count = P.IntImm(1, INT64), channels
    elif groups == 1:
        per_group, group_count = channels, P.IntImm(1, INT64)
    else:
        per_group = P.FloorDiv(channels, P.IntImm(groups, INT64), INT64)
        group_count = P.IntImm(groups, INT64)
    st = _te_stat_dtype(x.dtype)
    kept = [i for i in range(x.ndim) if i not in axes]
    stat_shape = [group_count if i == c_axis else x.shape[i] for i in kept]
    count = te.cast(st, _count(([] if groups is None else [per_group]) +
                               [x.shape[a] for a in axes]))

    def group_of(c):
        if groups is None:
            return c
        return P.IntImm(0, INT64) if groups == 1 else P.FloorDiv(c, per_group, INT64)

    def stage(stage_name, fn):
        rc = None if groups is None else te.reduce_axis(per_group, "rc")
        red = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in axes}

        def formula(*ki):
            full = dict(zip(kept, ki))
            if rc is not None:
                full[c_axis] = add(mul(full[c_axis], per_group), rc.var)
            full.update({a: r.var for a, r in red.items()})
            v = te.cast(st, x[tuple(full[i] for i in range(x.ndim))])
            return te.sum(fn(v), axis=([] if rc is None else [rc]) + list(red.values()))
        out = te.compute(stat_shape, formula, name=stage_name, axis_prefix="ax")
        return zero_if_empty(out, [x.shape[a] for a in axes]) if groups is None else out
    total = stage(f"{name}_sum", lambda v: v)
    squares = stage(f"{name}_sqsum", lambda v: v * v)
    eps = te.const(ctx.attr("epsilon"), st)

    def formula(*i):
        k = tuple(group_of(v) if a == c_axis else v for a, v in enumerate(i) if a not in axes)
        mean = te.div(total[k], count)
        var = te.div(squares[k], count) - mean * mean
        inv = te.div(te.const(1, st), te.call_intrin("sqrt", var + eps))
        y = te.cast(x.dtype, (te.cast(st, x[i]) - mean) * inv)
        return _scaled(ctx, y, gamma[i[c_axis]], beta[i[c_axis]])
    out = te.compute(x.shape, formula, name=f"T_{name}", axis_prefix="ax")
    return ctx.call_te(out, name)


def _legalize_batch_norm(ctx):
    """EXEC-nn-batch_norm-1, all in the dtype: training computes a mean stage and a
    variance stage over every axis but ``axis`` and the updated moving statistics;
    inference normalizes with the moving statistics and copies them. One PrimFunc with
    three outputs."""
    x = ctx.tensor(0, "data")
    gamma, beta = ctx.tensor(1, "gamma"), ctx.tensor(2, "beta")
    mm, mv = ctx.tensor(3, "moving_mean"), ctx.tensor(4, "moving_var")
    axis = ctx.attr("axis") % x.ndim
    dt = x.dtype
    eps = te.const(ctx.attr("epsilon"), dt)
    others = [i for i in range(x.ndim) if i != axis]
    if ctx.attr("training"):
        count = te.cast(dt, _count(x.shape[i] for i in others))
        total = zero_if_empty(_reduced(x, others, "batch_norm_sum", lambda i: x[i], dt),
                              [x.shape[i] for i in others])
        mean = te.compute(total.shape, lambda c: te.div(total[c], count), name="batch_norm_mean")
        dev = zero_if_empty(_reduced(
            x, others, "batch_norm_sqsum",
            lambda i: (x[i] - mean[i[axis]]) * (x[i] - mean[i[axis]]), dt),
            [x.shape[i] for i in others])
        var = te.compute(dev.shape, lambda c: te.div(dev[c], count), name="batch_norm_var")
        m = te.const(ctx.attr("momentum"), dt)
        keep = te.const(1, dt) - m
        new_mean = te.compute(mm.shape, lambda c: keep * mm[c] + m * mean[c],
                              name="T_batch_norm_mean")
        new_var = te.compute(mv.shape, lambda c: keep * mv[c] + m * var[c],
                             name="T_batch_norm_var")
        centre, spread = mean, var
    else:
        new_mean = te.compute(mm.shape, lambda c: mm[c], name="T_batch_norm_mean")
        new_var = te.compute(mv.shape, lambda c: mv[c], name="T_batch_norm_var")
        centre, spread = mm, mv

    def formula(*i):
        c = i[axis]
        y = te.div(x[i] - centre[c], te.call_intrin("sqrt", spread[c] + eps))
        return _scaled(ctx, y, gamma[c], beta[c])
    out = te.compute(x.shape, formula, name="T_batch_norm", axis_prefix="ax")
    return ctx.call_te([out, new_mean, new_var], "batch_norm")


def _register_all() -> None:
    def op(name, operands, attrs, deduce, compute, rule, **extra):
        register(OpDef(f"relax.nn.{name}", operands, attrs, deduce=deduce, compute=compute,
                       family=FAMILY, spec_rule=rule, **extra))

    norm_attrs = (Attr("epsilon", 1e-5, to_float), Attr("center", True, to_bool),
                  Attr("scale", True, to_bool))
    op("layer_norm", (Operand("data"), Operand("gamma"), Operand("beta")),
       (Attr("axes", convert=to_int_tuple),) + norm_attrs,
       deduce_layer_norm, _layer_norm, "SI-nn-layer_norm-1", legalize=_legalize_layer_norm)
    op("rms_norm", (Operand("data"), Operand("weight")),
       (Attr("axes", -1, to_int_tuple), Attr("epsilon", 1e-5, to_float)),
       deduce_rms_norm, _rms_norm, "SI-nn-rms_norm-1", legalize=_legalize_rms_norm)
    op("group_norm", (Operand("data"), Operand("gamma"), Operand("beta")),
       (Attr("num_groups", convert=to_int), Attr("channel_axis", convert=to_int),
        Attr("axes", convert=to_int_tuple)) + norm_attrs,
       deduce_group_norm, _group_norm, "SI-nn-group_norm-1", legalize=_legalize_group_norm)
    op("instance_norm", (Operand("data"), Operand("gamma"), Operand("beta")),
       (Attr("channel_axis", convert=to_int), Attr("axes", convert=to_int_tuple)) + norm_attrs,
       deduce_instance_norm, _instance_norm, "SI-nn-instance_norm-1",
       legalize=_legalize_instance_norm)
    op("batch_norm", tuple(Operand(n) for n in ("data", "gamma", "beta", "moving_mean",
                                                "moving_var")),
       (Attr("axis", convert=to_int),) + norm_attrs +
       (Attr("momentum", 0.1, to_float), Attr("training", True, to_bool)),
       deduce_batch_norm, _batch_norm, "SI-nn-batch_norm-1", legalize=_legalize_batch_norm)


_register_all()
