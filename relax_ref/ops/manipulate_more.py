"""More manipulation ops: ``stack``, ``meshgrid``, ``one_hot``, ``reverse_sequence``,
``collapse_sum_to``, ``collapse_sum_like`` (spec/ops/manipulate.md, family
"manipulate"), each with its struct-info rule, NumPy semantics and lowering together.

The rules follow TVM 0.27 (src/relax/op/tensor/manipulate.cc); where TVM deduces a
shape its own lowering does not produce (meshgrid with ``indexing="xy"``) or accepts
what fails at run time, ours is stricter and the spec page says so.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, VOID

from .common import (
    OpRuntimeError, expr_text, fresh, int_const, normalize_axis, prim_arg, provably_ne,
    runtime_axis, shape_operand, tensor_arg, unknown_tensor,
)
from .manipulate import tuple_of_tensors
from .registry import (
    Attr, DeduceContext, OpDef, Operand, lookup, one_of, register, to_int,
)

FAMILY = "manipulate"


def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, INT64)


def _same_dtype(ctx: DeduceContext, tensors: list[si.TensorStructInfo]):
    """SI-op-dtype-1 over a tuple's tensors; VOID when any is unknown (as TVM)."""
    known = [t.dtype for t in tensors if not t.dtype.is_void]
    for d in known[1:]:
        if d != known[0]:
            raise ctx.error(f"all tensors must have the same dtype, found {known[0]} and {d}",
                            rule="SI-op-dtype-1")
    return known[0] if known and len(known) == len(tensors) else VOID


def _one_vdevice(tensors) -> str | None:
    devices = {t.vdevice for t in tensors if t.vdevice is not None}
    return devices.pop() if len(devices) == 1 else None


# -- stack -------------------------------------------------------------------------------------

def deduce_stack(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-stack-1: stack(tensors, axis) takes a non-empty tuple of tensors of one
    dtype and one ndim; ``axis`` lies in ``[-(ndim + 1), ndim]``. SI-manip-stack-2: a
    dimension provably different between two tensors is an error; where every dimension
    is provably equal the result has the shape with ``len(tensors)`` inserted at
    ``axis``, else only its ndim."""
    tensors = tuple_of_tensors(ctx, 0)
    if tensors is None:
        return si.TensorStructInfo()
    if not tensors:
        raise ctx.error("needs at least one tensor, found an empty tuple",
                        rule="SI-manip-stack-1")
    dtype = _same_dtype(ctx, tensors)
    vdevice = _one_vdevice(tensors)
    ndims = {t.ndim for t in tensors if t.ndim >= 0}
    if len(ndims) > 1:
        raise ctx.error(f"all tensors must have the same ndim, found {sorted(ndims)}",
                        rule="SI-manip-stack-1")
    if not ndims:
        return si.TensorStructInfo(None, dtype, si.UNKNOWN_NDIM, vdevice)
    ndim = ndims.pop()
    axis = normalize_axis(ctx, ctx.attr("axis"), ndim + 1)
    shapes = [t.shape for t in tensors if t.shape is not None]
    decided = len(shapes) == len(tensors)
    for s in shapes[1:]:
        for d in range(ndim):
            if provably_ne(ctx, s[d], shapes[0][d]):
                raise ctx.error(f"tensors differ in dimension {d} ({expr_text(shapes[0][d])} "
                                f"and {expr_text(s[d])})", rule="SI-manip-stack-2")
            if not ctx.analyzer.prove_equal(s[d], shapes[0][d]):
                decided = False
    if not decided:
        return si.TensorStructInfo(None, dtype, ndim + 1, vdevice)
    first = tuple(shapes[0])
    out = first[:axis] + (_i64(len(tensors)),) + first[axis:]
    return si.TensorStructInfo(out, dtype, vdevice=vdevice)


def compute_stack(attrs, tensors: tuple) -> np.ndarray:
    """EXEC-manip-stack-1: tensors of one dtype and one shape, stacked on a new axis."""
    rule = "EXEC-manip-stack-1"
    if not tensors:
        raise OpRuntimeError("shape_mismatch", "nothing to stack", rule=rule)
    first = tensors[0]
    for t in tensors:
        if t.dtype != first.dtype:
            raise OpRuntimeError("invalid_value", f"dtypes differ ({first.dtype} and "
                                 f"{t.dtype})", rule=rule)
        if t.shape != first.shape:
            raise OpRuntimeError("shape_mismatch", f"shapes differ ({tuple(first.shape)} and "
                                 f"{tuple(t.shape)})", rule=rule)
    axis = runtime_axis(attrs.get("axis"), first.ndim + 1, rule, check="shape_mismatch")
    return np.stack(tensors, axis=axis)


def legalize_stack(ctx):
    """TE-leg-manip-9: ``T_stack[.., k, ..]`` reads tensor ``k`` at the index without
    the stacked axis, chosen by nested ``if_then_else(k == j, ...)`` (only the chosen
    load is evaluated). A call with a deduced shape has provably equal shapes."""
    tensors = ctx.tuple_tensors(0)
    out_shape = _tensor_result(ctx)
    axis = ctx.attr("axis") % len(out_shape)

    def formula(*i):
        rest = i[:axis] + i[axis + 1:]
        value = tensors[0][rest]
        for k in range(1, len(tensors)):
            value = te.if_then_else(P.EQ(i[axis], _i64(k), BOOL), tensors[k][rest], value)
        return value
    return ctx.call_te(te.compute(out_shape, formula, name="T_stack", axis_prefix="ax"),
                       "stack")


def _tensor_result(ctx) -> tuple[P.PrimExpr, ...]:
    if not isinstance(ctx.result_sinfo, si.TensorStructInfo):
        raise ctx.decline("the result is not a tensor")
    return ctx.result_shape()


# -- meshgrid ----------------------------------------------------------------------------------

def _meshgrid_order(n: int, indexing: str) -> list[int]:
    """Which input each output axis runs over: "ij" keeps the order, "xy" swaps the
    first two (NumPy's Cartesian indexing)."""
    order = list(range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0
    return order


def deduce_meshgrid(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-meshgrid-1: meshgrid(tensors, indexing) takes a non-empty tuple of 1-d
    tensors of one dtype and gives as many tensors of ndim ``len(tensors)``; with every
    length known their shape is the lengths, the first two swapped for ``"xy"`` (TVM
    0.27 deduces the unswapped shape, which its own lowering does not produce)."""
    tensors = tuple_of_tensors(ctx, 0)
    if tensors is None:
        return si.ObjectStructInfo()
    if not tensors:
        raise ctx.error("needs at least one tensor, found an empty tuple",
                        rule="SI-manip-meshgrid-1")
    for k, t in enumerate(tensors):
        if t.ndim >= 0 and t.ndim != 1:
            raise ctx.error(f"tensor {k} must be 1-d, found ndim {t.ndim}",
                            rule="SI-manip-meshgrid-1")
    dtype = _same_dtype(ctx, tensors)
    vdevice = _one_vdevice(tensors)
    n = len(tensors)
    if any(t.shape is None for t in tensors):
        field = si.TensorStructInfo(None, dtype, n, vdevice)
    else:
        order = _meshgrid_order(n, ctx.attr("indexing"))
        field = si.TensorStructInfo(tuple(tensors[k].shape[0] for k in order), dtype,
                                    vdevice=vdevice)
    return si.TupleStructInfo(tuple(field for _ in tensors))


def compute_meshgrid(attrs, tensors: tuple):
    """EXEC-manip-meshgrid-1: 1-d tensors of one dtype; ``numpy.meshgrid`` with the
    indexing, each result a fresh array."""
    rule = "EXEC-manip-meshgrid-1"
    for t in tensors:
        if t.ndim != 1:
            raise OpRuntimeError("shape_mismatch", f"meshgrid needs 1-d tensors, found "
                                 f"shape {tuple(t.shape)}", rule=rule)
        if t.dtype != tensors[0].dtype:
            raise OpRuntimeError("invalid_value", f"dtypes differ ({tensors[0].dtype} and "
                                 f"{t.dtype})", rule=rule)
    grids = np.meshgrid(*tensors, indexing=attrs.get("indexing"))
    return tuple(fresh(g) for g in grids)


def legalize_meshgrid(ctx):
    """TE-leg-manip-10: one PrimFunc with one output per tensor; output ``k`` at ``idx``
    reads tensor ``k`` at the index of the output axis that runs over it."""
    tensors = ctx.tuple_tensors(0)
    shape = ctx.result_shape(0)
    order = _meshgrid_order(len(tensors), ctx.attr("indexing"))
    where = {k: pos for pos, k in enumerate(order)}
    outs = [te.compute(shape, lambda *i, k=k: tensors[k][i[where[k]]], name=f"T_meshgrid_{k}",
                       axis_prefix="ax") for k in range(len(tensors))]
    return ctx.call_te(outs, "meshgrid")


# -- one_hot -----------------------------------------------------------------------------------

def deduce_one_hot(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-one-hot-1: one_hot(indices, on_value, off_value, depth, axis) takes
    integer indices and two scalars of one dtype, the result's; ``depth`` is positive
    and ``axis`` lies in ``[-(ndim + 1), ndim]``. The result inserts ``depth`` at
    ``axis`` into the indices' shape."""
    x = tensor_arg(ctx, 0)
    on, off = prim_arg(ctx, 1), prim_arg(ctx, 2)
    if on.dtype != off.dtype:
        raise ctx.error(f"on_value and off_value must have the same dtype, found {on.dtype} "
                        f"and {off.dtype}", rule="SI-manip-one-hot-1")
    if not x.dtype.is_void and not x.dtype.is_integer:
        raise ctx.error(f"the indices must be integers, found {x.dtype}",
                        rule="SI-manip-one-hot-1")
    depth = ctx.attr("depth")
    if depth <= 0:
        raise ctx.error(f"depth must be positive, found {depth}", rule="SI-manip-one-hot-1")
    if x.ndim < 0:
        return si.TensorStructInfo(None, on.dtype, si.UNKNOWN_NDIM, x.vdevice)
    axis = normalize_axis(ctx, ctx.attr("axis"), x.ndim + 1)
    if x.shape is None:
        return si.TensorStructInfo(None, on.dtype, x.ndim + 1, x.vdevice)
    dims = tuple(x.shape)
    return si.TensorStructInfo(dims[:axis] + (_i64(depth),) + dims[axis:], on.dtype,
                               vdevice=x.vdevice)


def compute_one_hot(attrs, indices: np.ndarray, on, off) -> np.ndarray:
    """EXEC-manip-one-hot-1: ``on_value`` where the index equals the position on the new
    axis, ``off_value`` elsewhere; an index outside ``[0, depth)`` gives a row of
    ``off_value`` (TVM's lowering compares, so does ours)."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    depth = attrs.get("depth")
    axis = runtime_axis(attrs.get("axis"), indices.ndim + 1, "EXEC-manip-one-hot-1",
                        check="shape_mismatch")
    positions = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - axis))
    # compared as int64, as the lowering's T.Cast does (a uint64 beyond int64 wraps
    # negative: no position)
    hit = np.expand_dims(indices, axis).astype(np.int64) == positions
    dtype = numpy_dtype(on.dtype)
    return np.where(hit, np.asarray(on.value, dtype), np.asarray(off.value, dtype)).astype(dtype)


def legalize_one_hot(ctx):
    """TE-leg-manip-11: ``T_one_hot[.., d, ..] = Select(int64(indices[..]) == d, on,
    off)``, as TVM's TOPI writes it."""
    x = ctx.tensor(0)
    on, off = ctx.prim(1), ctx.prim(2)
    out_shape = _tensor_result(ctx)
    axis = ctx.attr("axis") % len(out_shape)

    def formula(*i):
        index = x[i[:axis] + i[axis + 1:]]
        return te.select(P.EQ(te.cast("int64", index), i[axis], BOOL), on, off)
    return ctx.call_te(te.compute(out_shape, formula, name="T_one_hot", axis_prefix="ax"),
                       "one_hot")


# -- reverse_sequence --------------------------------------------------------------------------

def deduce_reverse_sequence(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-revseq-1: reverse_sequence(data, seq_lengths, seq_axis, batch_axis):
    ``seq_lengths`` is a 1-d int32 or int64 tensor; both axes lie in ``[-ndim, ndim)``;
    a length of ``seq_lengths`` provably different from data's batch dimension is an
    error. The result has data's struct info."""
    x, lengths = tensor_arg(ctx, 0), tensor_arg(ctx, 1)
    if lengths.ndim >= 0 and lengths.ndim != 1:
        raise ctx.error(f"seq_lengths must be 1-d, found ndim {lengths.ndim}",
                        rule="SI-manip-revseq-1")
    if not lengths.dtype.is_void and not (lengths.dtype.is_int and lengths.dtype.bits in (32, 64)):
        raise ctx.error(f"seq_lengths must be int32 or int64, found {lengths.dtype}",
                        rule="SI-manip-revseq-1")
    if x.ndim >= 0:
        normalize_axis(ctx, ctx.attr("seq_axis"), x.ndim, "seq_axis")
        batch = normalize_axis(ctx, ctx.attr("batch_axis"), x.ndim, "batch_axis")
        if x.shape is not None and lengths.shape is not None and \
                provably_ne(ctx, lengths.shape[0], x.shape[batch]):
            raise ctx.error(f"seq_lengths has {expr_text(lengths.shape[0])} elements, the "
                            f"batch axis {expr_text(x.shape[batch])}", rule="SI-manip-revseq-1")
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, x.vdevice)


def compute_reverse_sequence(attrs, x: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """EXEC-manip-revseq-1: for batch ``b`` with length ``L = seq_lengths[b]``, the
    first ``min(L, n)`` elements along the sequence axis (``n`` its extent) are
    reversed, the rest kept; ``L <= 1`` (negative included) keeps all, as TVM's TOPI.
    ``seq_lengths`` must have one element per batch (``shape_mismatch``)."""
    rule = "EXEC-manip-revseq-1"
    seq = runtime_axis(attrs.get("seq_axis"), x.ndim, rule, check="shape_mismatch")
    batch = runtime_axis(attrs.get("batch_axis"), x.ndim, rule, check="shape_mismatch")
    if lengths.shape != (x.shape[batch],):
        raise OpRuntimeError("shape_mismatch", f"seq_lengths has shape {lengths.shape}, the "
                             f"batch axis {x.shape[batch]} elements", rule=rule)
    n = x.shape[seq]
    idx = np.indices(x.shape)
    pos = idx[seq]
    length = lengths.astype(np.int64)[idx[batch]]
    source = np.where((length <= 1) | (length <= pos), pos,
                      np.where(length > n, n - 1 - pos, length - 1 - pos))
    idx[seq] = source
    return x[tuple(idx)]


def legalize_reverse_sequence(ctx):
    """TE-leg-manip-12: TVM's TOPI formula on the sequence axis, ``if_then_else(L <= 1
    or L <= i, i, if_then_else(L > n, n - 1 - i, L - 1 - i))``; seq_lengths' length not
    provably data's batch extent is the PrimFunc's guard (the op's shape_mismatch,
    TE-leg-7)."""

    x, lengths = ctx.tensor(0), ctx.tensor(1)
    seq = ctx.attr("seq_axis") % x.ndim
    batch = ctx.attr("batch_axis") % x.ndim
    ctx.require_equal(lengths.shape[0], x.shape[batch],
             "the length of seq_lengths and the batch extent")
    n = x.shape[seq]

    def formula(*i):
        length = te.cast("int64", lengths[i[batch]])
        pos = i[seq]
        keep = te.any_of(P.LE(length, _i64(1), BOOL), P.LE(length, pos, BOOL))
        mirrored = te.if_then_else(P.GT(length, n, BOOL), P.Sub(P.Sub(n, _i64(1), INT64), pos,
                                                                 INT64),
                                   P.Sub(P.Sub(length, _i64(1), INT64), pos, INT64))
        src = te.if_then_else(keep, pos, mirrored)
        return x[tuple(src if d == seq else i[d] for d in range(x.ndim))]
    out = te.compute(x.shape, formula, name="T_reverse_sequence", axis_prefix="ax")
    return ctx.call_te(out, "reverse_sequence")


# -- collapse_sum_to, collapse_sum_like --------------------------------------------------------

def _collapse_target(ctx: DeduceContext) -> si.ShapeStructInfo:
    if ctx.call.op.name == "relax.collapse_sum_like":
        t = tensor_arg(ctx, 1)
        return si.ShapeStructInfo(t.shape, t.ndim)
    return shape_operand(ctx, 1)


def deduce_collapse_sum(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-collapse-1: collapse_sum_to(data, shape) sums data into ``shape``, of
    which data is a broadcast: aligned from the right, each target dimension is provably
    data's or the constant 1, and the target has no more dimensions than data (TVM
    leaves extra target dimensions unchecked; its lowering then fails). A dimension not
    provably either is an error, as in TVM (``R.match_cast`` first).
    collapse_sum_like(data, t) takes t's shape. The result has data's dtype."""
    x = tensor_arg(ctx, 0)
    target = _collapse_target(ctx)
    if x.ndim >= 0 and target.ndim >= 0 and target.ndim > x.ndim:
        raise ctx.error(f"the target has {target.ndim} dimensions, more than data's "
                        f"{x.ndim}", rule="SI-manip-collapse-1")
    if x.shape is not None and target.values is not None:
        for k in range(1, len(target.values) + 1):
            d, t = x.shape[-k], target.values[-k]
            if int_const(t) == 1 or ctx.analyzer.prove_equal(d, t):
                continue
            raise ctx.error(f"target dimension {expr_text(t)} is neither data's "
                            f"{expr_text(d)} nor 1 (dimension {x.ndim - k} of data)",
                            rule="SI-manip-collapse-1")
    if target.values is None:
        return unknown_tensor(x, target.ndim)
    return si.TensorStructInfo(tuple(target.values), x.dtype, vdevice=x.vdevice)


def collapsed_axes(data_shape, target_shape) -> list[int]:
    """The axes of data summed away: the leading ones and those the target holds as 1."""
    lead = len(data_shape) - len(target_shape)
    return list(range(lead)) + [lead + k for k, t in enumerate(target_shape)
                                if int_const(t) == 1 or (isinstance(t, int) and t == 1)]


def _collapse_values(x: np.ndarray, target: tuple[int, ...]) -> np.ndarray:
    """EXEC-manip-collapse-1: ``target`` must broadcast to data's shape exactly (no more
    dimensions; each aligned one equal or 1); the result is ``R.sum`` over the
    collapsed axes (its numerics, EXEC-reduce-*), in the target's shape."""
    if len(target) > x.ndim or any(t not in (d, 1) for t, d in
                                   zip(target[::-1], x.shape[::-1])):
        raise OpRuntimeError("shape_mismatch", f"shape {tuple(x.shape)} is no broadcast of "
                             f"the target {tuple(target)}", rule="EXEC-manip-collapse-1")
    axes = collapsed_axes(x.shape, target)
    if not axes:
        return fresh(x)
    total = lookup("relax.sum").compute(rx.Attrs.of({"axis": tuple(axes), "keepdims": True}),
                                        x)
    return fresh(np.asarray(total).reshape(target))


def compute_collapse_sum_to(attrs, x: np.ndarray, target) -> np.ndarray:
    return _collapse_values(x, tuple(target.dims))


def compute_collapse_sum_like(attrs, x: np.ndarray, like: np.ndarray) -> np.ndarray:
    return _collapse_values(x, tuple(like.shape))


def legalize_collapse_sum(ctx):
    """TE-leg-manip-13: one PrimFunc ``collapse_sum`` folding data over the collapsed
    axes in their order as R.sum's lowering folds (``+`` in the dtype, a bool ``or`` as
    ``T.max``); where a collapsed axis may be empty, a last stage writes 0 for an empty
    row (a fold that never runs leaves nothing written). No collapsed axis: a copy."""
    x = ctx.tensor(0)
    out_shape = _tensor_result(ctx)
    lead = x.ndim - len(out_shape)
    axes = collapsed_axes(x.shape, out_shape)
    if not axes:
        return ctx.call_te(te.compute(out_shape, lambda *o: x[o], name="T_collapse",
                                      axis_prefix="ax"), "collapse_sum")
    red = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in axes}
    reducer = te.max if x.dtype.is_bool else te.sum

    def fold(*o):
        index = tuple(red[a].var if a in red else o[a - lead] for a in range(x.ndim))
        return reducer(x[index], axis=list(red.values()))
    from relax_ref.solver.analyzer import Analyzer

    analyzer = Analyzer()
    may_be_empty = not all(analyzer.can_prove(P.GE(x.shape[a], _i64(1), BOOL)) for a in axes)
    name = f"{x.name}_red"
    total = te.compute(out_shape, fold, name=f"{name}_temp" if may_be_empty else name,
                       axis_prefix="ax")
    if may_be_empty:
        count = _i64(1)
        for a in axes:
            count = P.Mul(count, x.shape[a], INT64)
        zero = te.const(0, x.dtype)
        total = te.compute(out_shape, lambda *o: te.if_then_else(
            P.GT(count, _i64(0), BOOL), total[o], zero), name=name, axis_prefix="ax")
    return ctx.call_te(total, "collapse_sum")


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    tensors = Operand("tensors", "tuple")
    ops = [
        OpDef("relax.stack", (tensors,), (Attr("axis", 0, _stack_axis),), deduce=deduce_stack,
              compute=compute_stack, legalize=legalize_stack, spec_rule="SI-manip-stack-1"),
        OpDef("relax.meshgrid", (tensors,), (Attr("indexing", "ij", _indexing),),
              deduce=deduce_meshgrid, compute=compute_meshgrid, legalize=legalize_meshgrid,
              spec_rule="SI-manip-meshgrid-1"),
        OpDef("relax.one_hot", (Operand("indices"), Operand("on_value", "prim"),
                                Operand("off_value", "prim")),
              (Attr("depth", convert=to_int), Attr("axis", -1, to_int)),
              deduce=deduce_one_hot, compute=compute_one_hot, legalize=legalize_one_hot,
              spec_rule="SI-manip-one-hot-1"),
        OpDef("relax.reverse_sequence", (Operand("data"), Operand("seq_lengths")),
              (Attr("seq_axis", 1, to_int), Attr("batch_axis", 0, to_int)),
              deduce=deduce_reverse_sequence, compute=compute_reverse_sequence,
              legalize=legalize_reverse_sequence, spec_rule="SI-manip-revseq-1"),
        OpDef("relax.collapse_sum_like", (Operand("data"), Operand("collapse_target")),
              deduce=deduce_collapse_sum, compute=compute_collapse_sum_like,
              legalize=legalize_collapse_sum, spec_rule="SI-manip-collapse-1"),
        OpDef("relax.collapse_sum_to", (Operand("data"), Operand("shape", "shape")),
              deduce=deduce_collapse_sum, compute=compute_collapse_sum_to,
              legalize=legalize_collapse_sum, spec_rule="SI-manip-collapse-1"),
    ]
    for op in ops:
        register(dataclasses.replace(op, family=FAMILY))


def _stack_axis(value) -> int:
    """TVM's stack reads ``axis=None`` as 0."""
    return 0 if value is None else to_int(value)


def _indexing(value) -> str:
    return "ij" if value is None else one_of("ij", "xy")(value)


_register_all()
