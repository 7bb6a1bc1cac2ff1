"""``bucketize`` and ``median`` (spec/ops/search.md, family "search"): struct-info
rules, NumPy semantics and lowerings side by side.

Both are defined for every input, NaN included: bucketize counts the boundaries below a
value (TVM's binary search gives that count when the boundaries are sorted, and
nothing defined otherwise); median is the lower median of NumPy's stable sort, NaN
last (TVM sorts with an unstable argsort along the first reduced axis only).
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, parse_dtype

from .common import (
    OpRuntimeError, common_dtype, fresh, normalize_axes, runtime_axes, shape_product,
    tensor_arg,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, register, to_bool, to_opt_int_tuple,
)

FAMILY = "search"
INT32 = parse_dtype("int32")


def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, INT64)


# -- bucketize ---------------------------------------------------------------------------------

def deduce_bucketize(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-bucketize-1: bucketize(input_tensor, boundaries, out_int32, right): the
    boundaries are 1-d (where known) of the input's dtype (TVM does not compare the
    dtypes; its kernel then compares values of two types); the result has the input's
    shape and dtype int32 (``out_int32``) or int64."""
    x, b = tensor_arg(ctx, 0), tensor_arg(ctx, 1)
    if b.ndim >= 0 and b.ndim != 1:
        raise ctx.error(f"the boundaries must be 1-d, found ndim {b.ndim}",
                        rule="SI-search-bucketize-1")
    common_dtype(ctx, x.dtype, b.dtype)
    dtype = INT32 if ctx.attr("out_int32") else INT64
    return si.TensorStructInfo(x.shape, dtype, x.ndim, x.vdevice)


def compute_bucketize(attrs, x: np.ndarray, boundaries: np.ndarray) -> np.ndarray:
    """EXEC-search-bucketize-1: for each value ``v``, the number of boundaries ``b`` with
    ``b < v`` (``b <= v`` when ``right``): ``numpy.searchsorted`` for sorted boundaries
    without NaN, and defined for any others (a NaN value counts none)."""
    if boundaries.ndim != 1:
        raise OpRuntimeError("shape_mismatch", f"the boundaries must be 1-d, found shape "
                             f"{boundaries.shape}", rule="EXEC-search-bucketize-1")
    below = np.less_equal if attrs.get("right") else np.less
    dtype = np.int32 if attrs.get("out_int32") else np.int64
    flat = x.reshape(-1, 1)
    counts = below(boundaries.reshape(1, -1), flat).sum(axis=1, dtype=np.int64)
    return counts.astype(dtype).reshape(x.shape)


def legalize_bucketize(ctx):
    """TE-leg-search-1: ``T_bucketize[i] = sum_j int(boundaries[j] < x[i])`` (``<=``
    when ``right``), a reduction over the boundaries: EXEC-search-bucketize-1's count
    (TVM lowers a binary search, topi.searchsorted, equal on sorted boundaries)."""
    x, b = ctx.tensor(0), ctx.tensor(1)
    dtype = ctx.result_sinfo.dtype
    j = te.reduce_axis(b.shape[0], "j")
    below = P.LE if ctx.attr("right") else P.LT

    def formula(*i):
        return te.sum(te.cast(dtype, below(b[j.var], x[i], BOOL)), axis=j)
    return ctx.call_te(te.compute(x.shape, formula, name="T_bucketize", axis_prefix="ax"),
                       "bucketize")


# -- median ------------------------------------------------------------------------------------

def deduce_median(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-median-1: median(x, axis, keepdims) over ``axis`` (all axes when None;
    in range, none repeated, not empty). SI-search-median-2: with one axis the result is
    ``(values, indices)``, indices int64; otherwise the values alone. The values have
    x's dtype; both have x's shape without the reduced axes (each 1 with keepdims)."""
    x = tensor_arg(ctx, 0)
    attr = ctx.attr("axis")
    if attr is not None and len(attr) == 0:
        raise ctx.error("axis is an empty list; write None for every axis",
                        rule="SI-search-median-1")
    keepdims = ctx.attr("keepdims")
    if x.ndim < 0:
        ndim = x.ndim if (keepdims or attr is not None) else 0
        values = si.TensorStructInfo(None if ndim else (), x.dtype, ndim, x.vdevice)
        shape = None
    else:
        axes = range(x.ndim) if attr is None else normalize_axes(ctx, attr, x.ndim)
        ndim = x.ndim if keepdims else x.ndim - len(axes)
        shape = None if x.shape is None else tuple(
            _i64(1) if a in axes else d for a, d in enumerate(x.shape)
            if keepdims or a not in axes)
        values = si.TensorStructInfo(shape, x.dtype, ndim, x.vdevice)
    if attr is None or len(attr) != 1:
        return values
    indices = si.TensorStructInfo(values.shape, INT64, values.ndim, x.vdevice)
    return si.TupleStructInfo((values, indices))


def compute_median(attrs, x: np.ndarray):
    """EXEC-search-median-1: the lower median (the element at ``(count - 1) // 2`` of the
    stable ascending order, NaN last as NumPy sorts) of each row of the reduced axes,
    with its index along the axis when there is one axis; a row of zero elements has no
    median (``index_out_of_bounds``, as EXEC-reduce-6)."""
    attr = attrs.get("axis")
    axes = list(range(x.ndim)) if attr is None else runtime_axes(
        attr, x.ndim, "EXEC-search-median-1", check="shape_mismatch")
    kept = [a for a in range(x.ndim) if a not in axes]
    rows = np.transpose(x, kept + sorted(axes))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = rows.reshape([x.shape[a] for a in kept] + [count])
    if count == 0 and np.prod(rows.shape[:-1], dtype=np.int64) > 0:
        raise OpRuntimeError("index_out_of_bounds", f"median over zero elements (shape "
                             f"{x.shape}, axes {axes}) has no element",
                             rule="EXEC-search-median-1")
    if count == 0:
        index = np.zeros(rows.shape[:-1], np.int64)
        values = np.zeros(rows.shape[:-1], x.dtype)
    else:
        order = np.argsort(rows, axis=-1, kind="stable")
        index = order[..., (count - 1) // 2]
        values = np.take_along_axis(rows, index[..., None], axis=-1)[..., 0]
    out_shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if \
        attrs.get("keepdims") else [x.shape[a] for a in kept]
    values = fresh(values.reshape(out_shape))
    if attr is None or len(attr) != 1:
        return values
    return values, fresh(index.astype(np.int64).reshape(out_shape))


def _before(x: te.Tensor, a, b, pos_a, pos_b) -> P.PrimExpr:
    """Whether element ``a`` (at row position ``pos_a``) comes before ``b`` in the
    stable ascending order with NaN last."""
    va, vb = x[a], x[b]
    if x.dtype.is_float:
        nan_a, nan_b = te.call_intrin("isnan", va, dtype=BOOL), te.call_intrin(
            "isnan", vb, dtype=BOOL)
        less = te.any_of(P.LT(va, vb, BOOL), P.And(P.Not(nan_a, BOOL), nan_b, BOOL))
        same = te.any_of(P.EQ(va, vb, BOOL), P.And(nan_a, nan_b, BOOL))
    else:
        less, same = P.LT(va, vb, BOOL), P.EQ(va, vb, BOOL)
    return te.any_of(less, P.And(same, P.LT(pos_a, pos_b, BOOL), BOOL))


def legalize_median(ctx):
    """TE-leg-search-2: three stages, no sort. ``rank`` counts, for every element, the
    elements of its row that come before it (``_before``); ``median_index`` is the row
    position whose rank is ``(count - 1) // 2`` (0 in an empty row); the values read x
    there, which traps for an empty row as EXEC-search-median-1 does (the read is out of
    bounds). O(count^2) per row."""
    x = ctx.tensor(0)
    attr = ctx.attr("axis")
    keepdims = ctx.attr("keepdims")
    axes = list(range(x.ndim)) if attr is None else sorted(a % x.ndim for a in attr)
    dims = [x.shape[a] for a in axes]
    count = shape_product(dims)
    mid = P.FloorDiv(P.Sub(count, _i64(1), INT64), _i64(2), INT64)

    def position(sub):  # row-major position of the reduced index ``sub``
        out: P.PrimExpr = _i64(0)
        for s, d in zip(sub, dims):
            out = P.Add(P.Mul(out, d, INT64), s, INT64)
        return out

    def with_reduced(idx, sub):  # x's index from a full index and a reduced one
        return tuple(sub[axes.index(a)] if a in axes else idx[a] for a in range(x.ndim))

    def rank_of(*i):
        k = [te.reduce_axis(d, f"k{n}") for n, d in enumerate(dims)]
        kv = [r.var for r in k]
        mine = [i[a] for a in axes]
        first = _before(x, with_reduced(i, kv), i, position(kv), position(mine))
        return te.sum(te.cast("int64", first), axis=k or [te.reduce_axis(1, "k")])
    rank = te.compute(x.shape, rank_of, name="rank", axis_prefix="ax")
    out_shape = ctx.result_shape(0) if isinstance(ctx.result_sinfo, si.TupleStructInfo) \
        else ctx.result_shape()

    def full(out):  # x's index from a result index (reduced axes at 0, replaced later)
        if keepdims:
            return tuple(out)
        kept = iter(out)
        return tuple(_i64(0) if a in axes else next(kept) for a in range(x.ndim))

    def index_of(*out):
        r = [te.reduce_axis(d, f"r{n}") for n, d in enumerate(dims)]
        rv = [v.var for v in r]
        at = with_reduced(full(out), rv)
        hit = P.EQ(rank[at], mid, BOOL)
        return te.sum(te.select(hit, position(rv), _i64(0)),
                      axis=r or [te.reduce_axis(1, "r")])
    index = te.compute(out_shape, index_of, name="median_index", axis_prefix="ax")

    def unravel(p):  # the reduced index at row position p; max(d, 1): no % 0 when empty
        out, rest = [], p
        for n in range(len(dims) - 1, 0, -1):
            d = P.Max(dims[n], _i64(1), INT64)
            out.append(P.FloorMod(rest, d, INT64))
            rest = P.FloorDiv(rest, d, INT64)
        return [rest] + list(reversed(out))

    values = te.compute(out_shape, lambda *out: x[with_reduced(full(out), unravel(index[out]))],
                        name="median", axis_prefix="ax")
    if isinstance(ctx.result_sinfo, si.TupleStructInfo):
        return ctx.call_te([values, index], "median")
    return ctx.call_te(values, "median")


def _register_all() -> None:
    register(OpDef("relax.bucketize", (Operand("input_tensor"), Operand("boundaries")),
                   (Attr("out_int32", False, to_bool), Attr("right", False, to_bool)),
                   deduce=deduce_bucketize, compute=compute_bucketize,
                   legalize=legalize_bucketize, family=FAMILY,
                   spec_rule="SI-search-bucketize-1"))
    register(OpDef("relax.median", (Operand("x"),),
                   (Attr("axis", None, to_opt_int_tuple), Attr("keepdims", False, to_bool)),
                   deduce=deduce_median, compute=compute_median, legalize=legalize_median,
                   family=FAMILY, spec_rule="SI-search-median-1"))


_register_all()
