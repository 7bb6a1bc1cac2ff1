"""Gather and scatter ops: ``gather_elements``, ``gather_nd``, ``index_tensor``,
``scatter_elements``, ``scatter_nd``, ``index_put``, ``slice_scatter``
(spec/ops/indexing.md, family "indexing").

Deduction follows TVM 0.27 (src/relax/op/tensor/manipulate.cc); where TVM leaves an
access out of bounds undefined, or its kernel reads with the wrong strides, the op here
checks at run time: a bad index value traps ``index_out_of_bounds``, a bad operand shape
``shape_mismatch``. Scatters apply their updates one at a time in row-major order of the
update positions, so duplicate positions have one defined result (SI/EXEC rules in the
spec). Lowerings are in ``gather_scatter_lowering.py``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL as _BOOL
from relax_ref.ir.dtype import INT64

from .common import (
    OpRuntimeError, broadcast_runtime_shapes, broadcast_shapes, describe_sinfo, fresh,
    int_const, normalize_axis, runtime_axis, tensor_arg, unknown_tensor,
)
from .indexing import slice_count
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, to_int

FAMILY = "indexing"
_I = "index_out_of_bounds"
_S = "shape_mismatch"


# -- shared checks -------------------------------------------------------------------------

def _index_dtype(ctx: DeduceContext, t: si.TensorStructInfo, what: str, rule: str,
                 unsigned: bool = True, only_int64: bool = False) -> None:
    """An index operand's known dtype is an integer type (TVM: signed only for some ops,
    int64 only for gather_nd)."""
    d = t.dtype
    if d.is_void:
        return
    ok = d == INT64 if only_int64 else (d.is_int or (unsigned and d.is_uint))
    if not ok:
        kind = "int64" if only_int64 else ("an integer" if unsigned else "a signed integer")
        raise ctx.error(f"{what} must have {kind} dtype, found {d}", rule=rule)


def _same_dtype(ctx: DeduceContext, a: si.TensorStructInfo, b: si.TensorStructInfo,
                what: str, rule: str) -> None:
    if not a.dtype.is_void and not b.dtype.is_void and a.dtype != b.dtype:
        raise ctx.error(f"{what} must have the data's dtype {a.dtype}, found {b.dtype}",
                        rule=rule)


def _provably_gt(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr) -> bool:
    return ctx.analyzer.can_prove(P.GT(a, b, _BOOL))


def _provably_ne(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr) -> bool:
    return ctx.analyzer.prove_not_equal(a, b)



def _as_int_array(a, what: str, rule: str) -> np.ndarray:
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu":
        found = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
        raise OpRuntimeError("invalid_value", f"{what} must be an integer tensor, found "
                             f"{found}", rule=rule)
    return a


def _in_range(idx: np.ndarray, n: int, what: str, rule: str, wrap: bool) -> np.ndarray:
    """Indices checked against a dimension of length ``n``: ``[0, n)``, or ``[-n, n)``
    with a negative index counting from the end when ``wrap``; as int64."""
    lo = -n if wrap else 0
    bad = (idx < lo) | (idx >= n)
    if np.any(bad):
        value = int(idx[bad].reshape(-1)[0])
        span = f"[{lo}, {n})"
        raise OpRuntimeError(_I, f"{what} {value} is out of range {span}", rule=rule)
    out = idx.astype(np.int64)
    return np.where(out < 0, out + n, out) if wrap else out


# -- gather_elements -------------------------------------------------------------------------

def deduce_gather_elements(ctx: DeduceContext) -> si.StructInfo:
    """gather_elements(data, indices, axis): the result has the indices' shape and the
    data's dtype (SI-index-gelem-1); indices of a signed integer dtype
    (SI-index-gelem-2); equal ranks, axis in range (SI-index-gelem-3); off the axis no
    indices dimension provably longer than the data's (SI-index-gelem-4, ours)."""
    data = tensor_arg(ctx, 0, "data")
    ind = tensor_arg(ctx, 1, "indices")
    _index_dtype(ctx, ind, "indices", "SI-index-gelem-2", unsigned=False)
    if data.ndim < 0 or ind.ndim < 0:
        return unknown_tensor(data)
    axis = normalize_axis(ctx, ctx.attr("axis"), data.ndim)
    if data.ndim != ind.ndim:
        raise ctx.error(f"data and indices must have equal ranks, found {data.ndim} and "
                        f"{ind.ndim}", rule="SI-index-gelem-3")
    if data.shape is not None and ind.shape is not None:
        for d in range(data.ndim):
            if d != axis and _provably_gt(ctx, ind.shape[d], data.shape[d]):
                raise ctx.error(f"indices dimension {d} is longer than the data's",
                                rule="SI-index-gelem-4")
    if ind.shape is not None:
        return si.TensorStructInfo(ind.shape, data.dtype, vdevice=data.vdevice)
    return unknown_tensor(data, ind.ndim)


def compute_gather_elements(attrs, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """EXEC-index-gelem-1: ``out[p] = data[p with p[axis] = indices[p]]``; equal ranks,
    off-axis indices dimensions no longer than the data's (shape_mismatch); every index in
    ``[0, n)`` (index_out_of_bounds; no wrap, as TVM's kernel) when the result has
    elements."""
    rule = "EXEC-index-gelem-1"
    indices = _as_int_array(indices, "indices", rule)
    if data.ndim != indices.ndim:
        raise OpRuntimeError(_S, f"data and indices must have equal ranks, found shapes "
                             f"{data.shape} and {indices.shape}", rule=rule)
    axis = runtime_axis(attrs.get("axis"), data.ndim, rule, check=_S)
    for d in range(data.ndim):
        if d != axis and indices.shape[d] > data.shape[d]:
            raise OpRuntimeError(_S, f"indices shape {indices.shape} is longer than data "
                                 f"shape {data.shape} on axis {d}", rule=rule)
    if indices.size == 0:
        return np.empty(indices.shape, data.dtype)
    pos = _in_range(indices, data.shape[axis], "index", rule, wrap=False)
    grid = list(np.ogrid[tuple(slice(0, s) for s in indices.shape)])
    grid[axis] = pos
    return fresh(data[tuple(grid)])


# -- gather_nd --------------------------------------------------------------------------------

def deduce_gather_nd(ctx: DeduceContext) -> si.StructInfo:
    """gather_nd(data, indices, batch_dims): indices of shape ``(..., L)`` name points of
    data after its first ``batch_dims`` dimensions; the result is
    ``indices.shape[:-1] + data.shape[batch_dims + L:]`` (SI-index-gnd-1). Indices are
    int64 (SI-index-gnd-2, TVM's rule); ``batch_dims`` is at most ``data.ndim`` and
    ``indices.ndim - 1``, and ``L <= data.ndim - batch_dims`` (SI-index-gnd-3); leading
    dimensions provably different from the data's batch dimensions are an error
    (SI-index-gnd-4, ours)."""
    data = tensor_arg(ctx, 0, "data")
    ind = tensor_arg(ctx, 1, "indices")
    b = ctx.attr("batch_dims")
    _index_dtype(ctx, ind, "indices", "SI-index-gnd-2", only_int64=True)
    if data.ndim < 0 or ind.ndim < 0:
        return unknown_tensor(data)
    if b > data.ndim or b > ind.ndim - 1:
        raise ctx.error(f"batch_dims={b} must be at most data.ndim ({data.ndim}) and "
                        f"indices.ndim - 1 ({ind.ndim - 1})", rule="SI-index-gnd-3")
    if ind.shape is None or int_const(ind.shape[-1]) is None:
        return unknown_tensor(data)
    length = int_const(ind.shape[-1])
    if length > data.ndim - b:
        raise ctx.error(f"indices name {length} coordinates, but data has "
                        f"{data.ndim - b} dimensions after batch_dims={b}",
                        rule="SI-index-gnd-3")
    if data.shape is None:
        return unknown_tensor(data, ind.ndim - 1 + data.ndim - length - b)
    for d in range(b):
        if _provably_ne(ctx, ind.shape[d], data.shape[d]):
            raise ctx.error(f"batch dimension {d} of indices differs from the data's",
                            rule="SI-index-gnd-4")
    shape = tuple(ind.shape[:-1]) + tuple(data.shape[b + length:])
    return si.TensorStructInfo(shape, data.dtype, vdevice=data.vdevice)


def compute_gather_nd(attrs, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """EXEC-index-gnd-1: ``out[i..., r...] = data[i[:b]..., indices[i..., :]..., r...]``;
    batch dimensions equal and L coordinates that fit (shape_mismatch); every coordinate
    in ``[0, n)`` of its dimension (index_out_of_bounds) when the result has elements."""
    rule = "EXEC-index-gnd-1"
    indices = _as_int_array(indices, "indices", rule)
    b = attrs.get("batch_dims")
    if indices.ndim < 1 or b > indices.ndim - 1 or b > data.ndim:
        raise OpRuntimeError(_S, f"batch_dims={b} does not fit indices of shape "
                             f"{indices.shape} and data of shape {data.shape}", rule=rule)
    length = indices.shape[-1]
    if length > data.ndim - b or indices.shape[:b] != data.shape[:b]:
        raise OpRuntimeError(_S, f"indices of shape {indices.shape} do not fit data of shape "
                             f"{data.shape} with batch_dims={b}", rule=rule)
    out_shape = indices.shape[:-1] + data.shape[b + length:]
    if 0 in out_shape:
        return np.empty(out_shape, data.dtype)
    coords = [_in_range(indices[..., k], data.shape[b + k], f"coordinate {k}", rule,
                        wrap=False) for k in range(length)]
    lead = indices.shape[:-1]
    batch = [np.arange(lead[d]).reshape((-1,) + (1,) * (len(lead) - d - 1))
             for d in range(b)]
    return fresh(data[tuple(batch + coords)])


# -- index_tensor ---------------------------------------------------------------------------

def _index_tuple(ctx: DeduceContext, i: int, rule: str, unsigned: bool
                 ) -> list[si.TensorStructInfo] | None:
    """A tuple-of-tensors operand's fields (None when the tuple is unknown)."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.ObjectStructInfo):
        return None
    if isinstance(s, si.TensorStructInfo):
        fields: Sequence[si.StructInfo] = (s,)
    elif isinstance(s, si.TupleStructInfo):
        fields = s.fields
    else:
        raise ctx.error(f"the indices must be a tuple of tensors, found {describe_sinfo(s)}",
                        rule=rule)
    out = []
    for k, f in enumerate(fields):
        if not isinstance(f, si.TensorStructInfo):
            raise ctx.error(f"index {k} must be a tensor, found {describe_sinfo(f)}",
                            rule=rule)
        _index_dtype(ctx, f, f"index {k}", rule, unsigned=unsigned)
        out.append(f)
    return out


def _index_broadcast(ctx: DeduceContext, idx: list[si.TensorStructInfo]):
    """The broadcast shape of index tensors (SI-broadcast-*), None when undecided."""
    if any(t.shape is None for t in idx):
        return None
    return broadcast_shapes(ctx, [tuple(t.shape) for t in idx])


def deduce_index_tensor(ctx: DeduceContext) -> si.StructInfo:
    """index_tensor(data, indices): ``data[I0, ..., Ik-1]`` (NumPy advanced indexing):
    the index tensors broadcast to ``B`` and the result is ``B + data.shape[k:]``
    (SI-index-itensor-1); a non-empty tuple of signed-integer tensors, no more than
    ``data.ndim`` of them (SI-index-itensor-2)."""
    data = tensor_arg(ctx, 0, "data")
    idx = _index_tuple(ctx, 1, "SI-index-itensor-2", unsigned=False)
    if idx is None:
        return unknown_tensor(data)
    if not idx:
        raise ctx.error("index_tensor needs at least one index tensor",
                        rule="SI-index-itensor-2")
    if data.ndim >= 0 and len(idx) > data.ndim:
        raise ctx.error(f"{len(idx)} index tensors for data of {data.ndim} dimensions",
                        rule="SI-index-itensor-2")
    bshape = _index_broadcast(ctx, idx)
    if data.ndim < 0:
        return unknown_tensor(data)
    if bshape is not None and data.shape is not None:
        return si.TensorStructInfo(tuple(bshape) + tuple(data.shape[len(idx):]), data.dtype,
                                   vdevice=data.vdevice)
    if all(t.ndim >= 0 for t in idx):
        return unknown_tensor(data, max(t.ndim for t in idx) + data.ndim - len(idx))
    return unknown_tensor(data)


def compute_index_tensor(attrs, data: np.ndarray, indices) -> np.ndarray:
    """EXEC-index-itensor-1: NumPy's ``data[I0, ..., Ik-1]``; the indices broadcast
    (shape_mismatch), number at most data.ndim (shape_mismatch), and every index lies in
    ``[0, n)`` (index_out_of_bounds; no wrap, as TVM's kernel) when the result has
    elements."""
    rule = "EXEC-index-itensor-1"
    idx = [_as_int_array(a, f"index {k}", rule) for k, a in enumerate(indices)]
    if not idx or len(idx) > data.ndim:
        raise OpRuntimeError(_S, f"{len(idx)} index tensors for data of shape {data.shape}",
                             rule=rule)
    bshape = broadcast_runtime_shapes(rule, *(a.shape for a in idx))
    out_shape = bshape + data.shape[len(idx):]
    if 0 in out_shape:
        return np.empty(out_shape, data.dtype)
    pos = [_in_range(np.broadcast_to(a, bshape), data.shape[k], f"index {k}", rule,
                     wrap=False) for k, a in enumerate(idx)]
    return fresh(data[tuple(pos)])


# -- scatter_elements -------------------------------------------------------------------------

REDUCTIONS = ("update", "add", "mul", "mean", "max", "min")


def combine(reduction: str, cur, upd, dtype: np.dtype):
    """One update of a scatter (EXEC-index-scatter-1): ``update`` replaces, ``add`` and
    ``mul`` combine, ``max``/``min`` are TIR's ``select(a > b, a, b)`` /
    ``select(a < b, a, b)`` (EXEC-tir-float-2), ``mean`` is TVM's ``(cur + upd) / 2``
    (integers: truncating division). Results are rounded to ``dtype``; integers wrap."""
    with np.errstate(all="ignore"):
        cur = np.asarray(cur, dtype)
        upd = np.asarray(upd, dtype)
        if reduction == "update":
            return upd
        if reduction == "add":
            return np.asarray(cur + upd, dtype)
        if reduction == "mul":
            return np.asarray(cur * upd, dtype)
        if reduction == "max":
            return cur if cur > upd else upd
        if reduction == "min":
            return cur if cur < upd else upd
        s = np.asarray(cur + upd, dtype)
        if dtype.kind in "iu":
            v = int(s)
            q = abs(v) // 2
            return np.asarray(q if v >= 0 else -q, dtype)
        return np.asarray(s / np.asarray(2, dtype), dtype)


def _apply(out: np.ndarray, targets: Sequence[tuple], updates: np.ndarray,
           reduction: str) -> np.ndarray:
    """Apply updates to ``out`` one at a time in the given order (row-major positions of
    the updates): duplicates combine in that order; ``update`` keeps the last."""
    flat = updates.reshape(-1)
    for k, t in enumerate(targets):
        out[t] = combine(reduction, out[t], flat[k], out.dtype)
    return out


def deduce_scatter_elements(ctx: DeduceContext) -> si.StructInfo:
    """scatter_elements(data, indices, updates, axis, reduction): the result has the
    data's struct info (SI-index-scatter-1); data, indices and updates have equal ranks,
    updates the data's dtype, indices an integer dtype (SI-index-scatter-2); the
    indices' and updates' shapes are not provably different, and off the axis no indices
    dimension is provably longer than the data's (SI-index-scatter-3, the second ours)."""
    data = tensor_arg(ctx, 0, "data")
    ind = tensor_arg(ctx, 1, "indices")
    upd = tensor_arg(ctx, 2, "updates")
    if data.ndim < 0:
        return unknown_tensor(data)
    _index_dtype(ctx, ind, "indices", "SI-index-scatter-2")
    _same_dtype(ctx, data, upd, "updates", "SI-index-scatter-2")
    for t, what in ((ind, "indices"), (upd, "updates")):
        if t.ndim >= 0 and t.ndim != data.ndim:
            raise ctx.error(f"{what} must have the data's rank {data.ndim}, found {t.ndim}",
                            rule="SI-index-scatter-2")
    axis = normalize_axis(ctx, ctx.attr("axis"), data.ndim)
    if ind.shape is not None and upd.shape is not None:
        for a, b in zip(ind.shape, upd.shape):
            if _provably_ne(ctx, a, b):
                raise ctx.error("indices and updates must have equal shapes",
                                rule="SI-index-scatter-3")
    if ind.shape is not None and data.shape is not None:
        for d in range(data.ndim):
            if d != axis and _provably_gt(ctx, ind.shape[d], data.shape[d]):
                raise ctx.error(f"indices dimension {d} is longer than the data's",
                                rule="SI-index-scatter-3")
    return si.TensorStructInfo(data.shape, data.dtype, data.ndim, data.vdevice)


def compute_scatter_elements(attrs, data: np.ndarray, indices: np.ndarray,
                             updates: np.ndarray) -> np.ndarray:
    """EXEC-index-scatter-1: a copy of data where, for each position ``p`` of indices in
    row-major order, ``out[p with p[axis] = indices[p]]`` is combined with
    ``updates[p]``; ranks and shapes as SI-index-scatter-2/3 (shape_mismatch); every index
    in ``[-n, n)``, a negative one counting from the end (index_out_of_bounds)."""
    rule = "EXEC-index-scatter-1"
    indices = _as_int_array(indices, "indices", rule)
    if not data.ndim == indices.ndim == updates.ndim or indices.shape != updates.shape \
            or updates.dtype != data.dtype:
        raise OpRuntimeError(_S, f"indices {indices.shape} and updates {updates.shape} "
                             f"({updates.dtype}) do not fit data {data.shape} "
                             f"({data.dtype})", rule=rule)
    axis = runtime_axis(attrs.get("axis"), data.ndim, rule, check=_S)
    for d in range(data.ndim):
        if d != axis and indices.shape[d] > data.shape[d]:
            raise OpRuntimeError(_S, f"indices shape {indices.shape} is longer than data "
                                 f"shape {data.shape} on axis {d}", rule=rule)
    out = fresh(data)
    if indices.size == 0:
        return out
    pos = _in_range(indices, data.shape[axis], "index", rule, wrap=True)
    targets = []
    for p in np.ndindex(*indices.shape):
        t = list(p)
        t[axis] = int(pos[p])
        targets.append(tuple(t))
    return _apply(out, targets, updates, attrs.get("reduction"))


# -- scatter_nd --------------------------------------------------------------------------------

def deduce_scatter_nd(ctx: DeduceContext) -> si.StructInfo:
    """scatter_nd(data, indices, updates, reduction): the result has the data's struct
    info (SI-index-snd-1). Data and updates have known, equal dtypes; indices an integer
    dtype (SI-index-snd-2). With every shape known, the indices' last dimension ``K`` is
    a constant at most ``data.ndim``, and updates' shape is provably
    ``indices.shape[:-1] + data.shape[K:]`` (SI-index-snd-3, TVM's rule)."""
    data = tensor_arg(ctx, 0, "data")
    ind = tensor_arg(ctx, 1, "indices")
    upd = tensor_arg(ctx, 2, "updates")
    if data.dtype.is_void or upd.dtype.is_void:
        raise ctx.error("data and updates must have known dtypes", rule="SI-index-snd-2")
    _same_dtype(ctx, data, upd, "updates", "SI-index-snd-2")
    _index_dtype(ctx, ind, "indices", "SI-index-snd-2")
    if data.shape is not None and ind.shape is not None and upd.shape is not None:
        if ind.ndim < 1 or int_const(ind.shape[-1]) is None:
            raise ctx.error("the last dimension of indices must be a constant",
                            rule="SI-index-snd-3")
        k = int_const(ind.shape[-1])
        if k > data.ndim:
            raise ctx.error(f"indices name {k} coordinates of data with {data.ndim} "
                            f"dimensions", rule="SI-index-snd-3")
        expected = tuple(ind.shape[:-1]) + tuple(data.shape[k:])
        if len(expected) != upd.ndim or not all(
                ctx.analyzer.prove_equal(a, b) for a, b in zip(expected, upd.shape)):
            raise ctx.error("updates must have the shape indices.shape[:-1] + "
                            "data.shape[K:]", rule="SI-index-snd-3")
    return si.TensorStructInfo(data.shape, data.dtype, data.ndim, data.vdevice)


def compute_scatter_nd(attrs, data: np.ndarray, indices: np.ndarray,
                       updates: np.ndarray) -> np.ndarray:
    """EXEC-index-snd-1: a copy of data where, for each index position ``i`` in row-major
    order and each trailing position ``r``, ``out[indices[i, :]..., r...]`` is combined
    with ``updates[i..., r...]``; shapes as SI-index-snd-3 (shape_mismatch); every
    coordinate in ``[0, n)`` (index_out_of_bounds; no wrap, as TVM's kernel)."""
    rule = "EXEC-index-snd-1"
    indices = _as_int_array(indices, "indices", rule)
    if indices.ndim < 1 or indices.shape[-1] > data.ndim or updates.dtype != data.dtype:
        raise OpRuntimeError(_S, f"indices {indices.shape} do not fit data {data.shape}",
                             rule=rule)
    k = indices.shape[-1]
    if updates.shape != indices.shape[:-1] + data.shape[k:]:
        raise OpRuntimeError(_S, f"updates shape {updates.shape} is not indices.shape[:-1] "
                             f"+ data.shape[{k}:] = {indices.shape[:-1] + data.shape[k:]}",
                             rule=rule)
    out = fresh(data)
    if updates.size == 0:
        return out
    coords = [_in_range(indices[..., d], data.shape[d], f"coordinate {d}", rule, wrap=False)
              for d in range(k)]
    targets = []
    for i in np.ndindex(*indices.shape[:-1]):
        head = tuple(int(c[i]) for c in coords)
        for r in np.ndindex(*data.shape[k:]):
            targets.append(head + r)
    return _apply(out, targets, updates, attrs.get("reduction"))


# -- index_put ---------------------------------------------------------------------------------

def deduce_index_put(ctx: DeduceContext) -> si.StructInfo:
    """index_put(data, indices, values, accumulate): the result has the data's struct
    info (SI-index-put-1). Indices are a tensor or a tuple of tensors, each of at least
    one dimension and an integer dtype, one per data dimension; values have the data's
    dtype (SI-index-put-2). The values broadcast to the indices' broadcast shape; a
    provable failure is an error (SI-index-put-3, ours: TVM reads the values flat)."""
    data = tensor_arg(ctx, 0, "data")
    vals = tensor_arg(ctx, 2, "values")
    idx = _index_tuple(ctx, 1, "SI-index-put-2", unsigned=True)
    if data.ndim < 0:
        return unknown_tensor(data)
    if idx is not None:
        for k, t in enumerate(idx):
            if 0 <= t.ndim < 1:
                raise ctx.error(f"index {k} must have at least one dimension",
                                rule="SI-index-put-2")
        if len(idx) != data.ndim:
            raise ctx.error(f"{len(idx)} index tensors for data of {data.ndim} dimensions",
                            rule="SI-index-put-2")
    _same_dtype(ctx, data, vals, "values", "SI-index-put-2")
    bshape = _index_broadcast(ctx, idx) if idx is not None else None
    if bshape is not None and vals.shape is not None:
        broadcast_shapes(ctx, [tuple(bshape), tuple(vals.shape)])
        if vals.ndim > len(bshape):
            raise ctx.error(f"values of {vals.ndim} dimensions cannot broadcast to the "
                            f"indices' {len(bshape)}", rule="SI-index-put-3")
    return si.TensorStructInfo(data.shape, data.dtype, data.ndim, data.vdevice)


def compute_index_put(attrs, data: np.ndarray, indices, values: np.ndarray) -> np.ndarray:
    """EXEC-index-put-1: a copy of data where, for each position ``j`` of the indices'
    broadcast shape ``B`` in row-major order, ``out[I0[j], ..., Ik-1[j]]`` becomes the
    value broadcast to ``B`` at ``j`` (``accumulate``: is added, in that order). One index
    per dimension, indices that broadcast, values that broadcast to ``B`` and have the
    data's dtype (shape_mismatch); every index in ``[-n, n)``, a negative one counting
    from the end (index_out_of_bounds)."""
    rule = "EXEC-index-put-1"
    if isinstance(indices, np.ndarray):
        indices = (indices,)
    idx = [_as_int_array(a, f"index {k}", rule) for k, a in enumerate(indices)]
    if len(idx) != data.ndim or any(a.ndim < 1 for a in idx) or values.dtype != data.dtype:
        raise OpRuntimeError(_S, f"{len(idx)} index tensors and values of {values.dtype} do "
                             f"not fit data of shape {data.shape} ({data.dtype})", rule=rule)
    bshape = broadcast_runtime_shapes(rule, *(a.shape for a in idx))
    if values.ndim > len(bshape) or broadcast_runtime_shapes(rule, bshape, values.shape) \
            != bshape:
        raise OpRuntimeError(_S, f"values of shape {values.shape} do not broadcast to the "
                             f"indices' shape {bshape}", rule=rule)
    out = fresh(data)
    if 0 in bshape:
        return out
    pos = [_in_range(np.broadcast_to(a, bshape), data.shape[k], f"index {k}", rule,
                     wrap=True) for k, a in enumerate(idx)]
    targets = [tuple(int(p[j]) for p in pos) for j in np.ndindex(*bshape)]
    reduction = "add" if attrs.get("accumulate") else "update"
    return _apply(out, targets, np.broadcast_to(values, bshape), reduction)


# -- slice_scatter -----------------------------------------------------------------------------

def _prim_operand(ctx: DeduceContext, i: int, what: str) -> P.PrimExpr | None:
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.ObjectStructInfo):
        return None
    if not isinstance(s, si.PrimStructInfo) or not s.dtype.is_integer:
        raise ctx.error(f"{what} must be an integer R.Prim, found {describe_sinfo(s)}",
                        rule="SI-index-sscatter-2")
    return s.value


def _i64(e: P.PrimExpr) -> P.PrimExpr:
    return e if e.dtype == INT64 else P.Cast(INT64, e)


def deduce_slice_scatter(ctx: DeduceContext) -> si.StructInfo:
    """slice_scatter(input, src, start, end, step, axis): the result has the input's
    struct info (SI-index-sscatter-1). input and src are tensors of equal rank and dtype;
    start, end, step integer R.Prim; axis in range (SI-index-sscatter-2). Provably
    ``step < 1`` or ``end < start``, an off-axis dimension of src provably different from
    input's, or src's axis dimension provably not ``ceildiv(end - start, step)``, is an
    error (SI-index-sscatter-3); so is ``start < 0`` or ``end > input.shape[axis]``
    proved (SI-index-sscatter-4, ours: TVM's kernel ignores positions past the end)."""
    data = tensor_arg(ctx, 0, "input")
    src = tensor_arg(ctx, 1, "src")
    start, end, step = (_prim_operand(ctx, i, w) for i, w in
                        ((2, "start"), (3, "end"), (4, "step")))
    if data.ndim < 0:
        return unknown_tensor(data)
    axis = normalize_axis(ctx, ctx.attr("axis"), data.ndim)
    if src.ndim >= 0 and src.ndim != data.ndim:
        raise ctx.error(f"src must have the input's rank {data.ndim}, found {src.ndim}",
                        rule="SI-index-sscatter-2")
    _same_dtype(ctx, data, src, "src", "SI-index-sscatter-2")
    can = ctx.analyzer.can_prove
    if step is not None and can(P.LT(_i64(step), P.IntImm(1, INT64), _BOOL)):
        raise ctx.error("step must be at least 1", rule="SI-index-sscatter-3")
    if start is not None and end is not None and can(P.LT(_i64(end), _i64(start), _BOOL)):
        raise ctx.error("end must not be less than start", rule="SI-index-sscatter-3")
    if start is not None and can(P.LT(_i64(start), P.IntImm(0, INT64), _BOOL)):
        raise ctx.error("start must not be negative", rule="SI-index-sscatter-4")
    if end is not None and data.shape is not None and can(
            P.GT(_i64(end), data.shape[axis], _BOOL)):
        raise ctx.error("end must not exceed the input's dimension",
                        rule="SI-index-sscatter-4")
    if data.shape is not None and src.shape is not None:
        for d in range(data.ndim):
            if d != axis and _provably_ne(ctx, data.shape[d], src.shape[d]):
                raise ctx.error(f"src differs from the input on dimension {d}",
                                rule="SI-index-sscatter-3")
        if None not in (start, end, step) and _provably_ne(
                ctx, src.shape[axis], slice_count(_i64(start), _i64(end), _i64(step))):
            raise ctx.error("src's dimension on the axis must be the slice's length "
                            "ceildiv(end - start, step)", rule="SI-index-sscatter-3")
    return si.TensorStructInfo(data.shape, data.dtype, data.ndim, data.vdevice)


def compute_slice_scatter(attrs, data: np.ndarray, src: np.ndarray, start, end,
                          step) -> np.ndarray:
    """EXEC-index-sscatter-1: a copy of input whose positions ``start, start + step, ...``
    (below ``end``) on the axis hold src; ``step >= 1`` and ``start <= end``
    (invalid_value); ``0 <= start`` and ``end <= n`` (index_out_of_bounds); src of the
    input's dtype and shape but ``ceildiv(end - start, step)`` on the axis
    (shape_mismatch)."""
    rule = "EXEC-index-sscatter-1"
    b, e, s = (int(getattr(v, "value", v)) for v in (start, end, step))
    axis = runtime_axis(attrs.get("axis"), data.ndim, rule, check=_S)
    if s < 1 or e < b:
        raise OpRuntimeError("invalid_value", f"the slice {b}:{e}:{s} needs step >= 1 and "
                             f"start <= end", rule=rule)
    n = data.shape[axis]
    if b < 0 or e > n:
        raise OpRuntimeError(_I, f"the slice {b}:{e} is outside [0, {n}] on axis {axis}",
                             rule=rule)
    want = data.shape[:axis] + (-(-(e - b) // s),) + data.shape[axis + 1:]
    if src.shape != want or src.dtype != data.dtype:
        raise OpRuntimeError(_S, f"src of shape {src.shape} ({src.dtype}) does not fit the "
                             f"slice, which needs {want} ({data.dtype})", rule=rule)
    out = fresh(data)
    index = [slice(None)] * data.ndim
    index[axis] = slice(b, e, s)
    out[tuple(index)] = src
    return out


# -- registration --------------------------------------------------------------------------

def _non_negative(value) -> int:
    v = to_int(value)
    if v < 0:
        raise ValueError(f"expected a non-negative integer, found {v}")
    return v


def _register_all() -> None:
    from . import gather_scatter_lowering as low

    register(OpDef("relax.gather_elements", (Operand("data"), Operand("indices")),
                   (Attr("axis", 0, to_int),), deduce=deduce_gather_elements,
                   compute=compute_gather_elements, family=FAMILY,
                   spec_rule="SI-index-gelem-1", legalize=low.legalize_gather_elements))
    register(OpDef("relax.gather_nd", (Operand("data"), Operand("indices")),
                   (Attr("batch_dims", 0, _non_negative),), deduce=deduce_gather_nd,
                   compute=compute_gather_nd, family=FAMILY, spec_rule="SI-index-gnd-1",
                   legalize=low.legalize_gather_nd))
    register(OpDef("relax.index_tensor", (Operand("data"), Operand("indices", "tuple")),
                   deduce=deduce_index_tensor, compute=compute_index_tensor, family=FAMILY,
                   spec_rule="SI-index-itensor-1", legalize=low.legalize_index_tensor))
    register(OpDef("relax.scatter_elements",
                   (Operand("data"), Operand("indices"), Operand("updates")),
                   (Attr("axis", 0, to_int), Attr("reduction", "update", one_of(*REDUCTIONS))),
                   deduce=deduce_scatter_elements, compute=compute_scatter_elements,
                   family=FAMILY, spec_rule="SI-index-scatter-1",
                   legalize=low.legalize_scatter_elements))
    register(OpDef("relax.scatter_nd",
                   (Operand("data"), Operand("indices"), Operand("updates")),
                   (Attr("reduction", "update",
                         one_of("update", "add", "mul", "min", "max")),),
                   deduce=deduce_scatter_nd, compute=compute_scatter_nd, family=FAMILY,
                   spec_rule="SI-index-snd-1", legalize=low.legalize_scatter_nd))
    register(OpDef("relax.index_put",
                   (Operand("data"), Operand("indices", "any"), Operand("values")),
                   (Attr("accumulate", False, to_bool),), deduce=deduce_index_put,
                   compute=compute_index_put, family=FAMILY, spec_rule="SI-index-put-1",
                   legalize=low.legalize_index_put))
    register(OpDef("relax.slice_scatter",
                   (Operand("input"), Operand("src"), Operand("start", "prim"),
                    Operand("end", "prim"), Operand("step", "prim")),
                   (Attr("axis", 0, to_int),), deduce=deduce_slice_scatter,
                   compute=compute_slice_scatter, family=FAMILY,
                   spec_rule="SI-index-sscatter-1", legalize=low.legalize_slice_scatter))


_register_all()
