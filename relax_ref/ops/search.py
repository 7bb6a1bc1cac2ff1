"""Search and sorting ops: ``unique``, ``nonzero``, ``sort``, ``argsort``, ``topk``
(spec/ops/search.md).

Each op's struct-info rule and NumPy semantics sit side by side. ``unique`` and
``nonzero`` have data-dependent result shapes: their struct info knows the ndim and the
dtype, never the length. Sorting is stable: equal keys keep their input order, in the
descending direction as well (as the ``std::stable_sort`` of TVM's CPU kernels); NaNs sort
as NumPy sorts them (last ascending, first descending).
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import int_const, normalize_axis, runtime_axis, tensor_arg
from .registry import (
    Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, to_dtype, to_int,
)

FAMILY = "search"

_UNIQUE_FLAGS = ("return_index", "return_inverse", "return_counts")


# -- unique ------------------------------------------------------------------------------------

def _constant_flag(ctx: DeduceContext, i: int, name: str) -> bool:
    """SI-search-unique-2: a ``return_*`` flag is a constant scalar."""
    s = ctx.arg_sinfo[i]
    value = s.value if isinstance(s, si.PrimStructInfo) else None
    if not isinstance(value, P.IntImm):
        raise ctx.error(f"{name} must be a constant True or False", rule="SI-search-unique-2")
    return bool(value.value)


def deduce_unique(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-unique-1..3.

    1. The unique values have ``x``'s dtype; they are 1-d without ``axis`` and ``x``'s
       ndim with it; a 0-d ``x`` gives ``(1,)``. A constant ``axis`` is in range for a
       known ndim (SI-op-axis-1).
    2. ``return_index``, ``return_inverse`` and ``return_counts`` are constants; each one
       set adds a 1-d int64 result (``(1,)`` for a 0-d ``x``), in that order.
    3. Only the values requested: a tensor; otherwise a tuple."""
    x = tensor_arg(ctx, 0, "x")
    flags = [_constant_flag(ctx, 2 + i, name) for i, name in enumerate(_UNIQUE_FLAGS)]
    has_axis = len(ctx.args) > 5
    if has_axis:
        axis = ctx.arg_sinfo[5]
        value = axis.value if isinstance(axis, si.PrimStructInfo) else None
        if isinstance(value, P.IntImm) and x.ndim >= 0:
            normalize_axis(ctx, value.value, x.ndim)
    if x.ndim == 0:
        one = (P.IntImm(1),)
        values = si.TensorStructInfo(one, x.dtype, vdevice=x.vdevice)
        index = si.TensorStructInfo(one, INT64, vdevice=x.vdevice)
    else:
        values = si.TensorStructInfo(None, x.dtype, x.ndim if has_axis else 1, x.vdevice)
        index = si.TensorStructInfo(None, INT64, 1, x.vdevice)
    fields = [values] + [index for f in flags if f]
    return fields[0] if len(fields) == 1 else si.TupleStructInfo(tuple(fields))


def _unique(attrs, x, sorted_, return_index, return_inverse, return_counts, axis=None):
    """EXEC-search-unique-1: NumPy's ``unique`` (NaNs collapse into one value): the
    distinct values (of the flattened ``x``, or the distinct slices along ``axis``) in
    ascending order, or in order of first occurrence when ``sorted`` is false; ``index``
    the first occurrence of each, ``inverse`` (1-d) the position of each input element
    or slice among the values, ``counts`` the number of occurrences; indices int64."""
    rule = "EXEC-search-unique-1"
    ax = None if axis is None else int(axis.value)
    if ax is not None:
        ax = runtime_axis(ax, x.ndim, rule)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True, axis=ax)
    inverse = np.asarray(inverse).reshape(-1)
    if not sorted_.value:
        order = np.argsort(index, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=0 if ax is None else ax)
        index, counts, inverse = index[order], counts[order], rank[inverse]
    results = [values.astype(x.dtype)]
    for flag, extra in zip((return_index, return_inverse, return_counts),
                           (index, inverse, counts)):
        if flag.value:
            results.append(np.asarray(extra, dtype=np.int64))
    return results[0] if len(results) == 1 else tuple(results)


# -- nonzero -----------------------------------------------------------------------------------

def deduce_nonzero(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-nonzero-1: a 2-d int64 tensor (``(max(ndim, 1), count)``; the count is
    data-dependent)."""
    x = tensor_arg(ctx, 0, "x")
    return si.TensorStructInfo(None, INT64, 2, x.vdevice)


def _nonzero(attrs, x):
    """EXEC-search-nonzero-1: the indices of the non-zero elements, one row per dimension
    (a 0-d ``x`` counts as 1-d), in row-major order."""
    return np.stack(np.atleast_1d(x).nonzero(), axis=0).astype(np.int64)


# -- sort, argsort, topk -----------------------------------------------------------------------

def _sort_axis(ctx: DeduceContext, x: si.TensorStructInfo) -> int | None:
    """The sorting axis checked against a known ndim (a 0-d tensor has none)."""
    if x.ndim < 0:
        return None
    return normalize_axis(ctx, ctx.attr("axis"), x.ndim)


def deduce_sort(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-sort-1: ``sort`` keeps ``x``'s struct info; the axis is in range for a
    known ndim (SI-op-axis-1)."""
    x = tensor_arg(ctx, 0)
    _sort_axis(ctx, x)
    return x


def deduce_argsort(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-argsort-1: ``x``'s shape with ``dtype`` (``x``'s dtype when None); the
    axis as SI-search-sort-1."""
    x = tensor_arg(ctx, 0)
    _sort_axis(ctx, x)
    dtype = ctx.attr("dtype")
    return si.TensorStructInfo(x.shape, x.dtype if dtype.is_void else dtype, x.ndim, x.vdevice)


def deduce_topk(ctx: DeduceContext) -> si.StructInfo:
    """SI-search-topk-1..2: ``(values, indices)`` (or one of them, per ``ret_type``).

    1. The axis is in range for a known ndim (SI-op-axis-1); values have ``x``'s dtype,
       indices ``dtype`` (``x``'s when None).
    2. Along the axis the length is the dimension ``n`` when ``k < 1``, else ``min(k, n)``:
       a constant for a constant ``n``, ``k`` when ``k <= n`` is provable, else
       ``T.min(k, n)``."""
    x = tensor_arg(ctx, 0)
    axis = _sort_axis(ctx, x)
    k = ctx.attr("k")
    dtype = ctx.attr("dtype")
    index_dtype = x.dtype if dtype.is_void else dtype
    if x.shape is None:
        values = si.TensorStructInfo(None, x.dtype, x.ndim, x.vdevice)
        indices = si.TensorStructInfo(None, index_dtype, x.ndim, x.vdevice)
    else:
        shape = list(x.shape)
        n = shape[axis]
        if k >= 1:
            c = int_const(n)
            if c is not None:
                shape[axis] = P.IntImm(min(k, c), n.dtype)
            elif ctx.analyzer.can_prove(P.LE(P.IntImm(k, n.dtype), n, BOOL)):
                shape[axis] = P.IntImm(k, n.dtype)
            else:
                shape[axis] = ctx.analyzer.simplify(P.Min(P.IntImm(k, n.dtype), n, n.dtype))
        values = si.TensorStructInfo(tuple(shape), x.dtype, vdevice=x.vdevice)
        indices = si.TensorStructInfo(tuple(shape), index_dtype, vdevice=x.vdevice)
    ret = ctx.attr("ret_type")
    if ret == "values":
        return values
    if ret == "indices":
        return indices
    return si.TupleStructInfo((values, indices))


def stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """EXEC-search-sort-1: the stable sorting permutation along ``axis``; descending
    keeps equal keys in input order too (the reversed array is sorted stably and the
    permutation mapped back)."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.flip(x, axis=axis)
    order = np.flip(np.argsort(rev, axis=axis, kind="stable"), axis=axis)
    return (n - 1) - order


def _sort(attrs, x):
    """EXEC-search-sort-1: ``x`` sorted along ``axis``."""
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-search-sort-1")
    order = stable_order(x, axis, attrs.get("descending"))
    return np.take_along_axis(x, order, axis=axis)


def _argsort(attrs, data):
    """EXEC-search-sort-1: the sorting permutation along ``axis`` as ``dtype``."""
    axis = runtime_axis(attrs.get("axis"), data.ndim, "EXEC-search-sort-1")
    dtype = attrs.get("dtype")
    dt = data.dtype if dtype.is_void else numpy_dtype(dtype)
    return stable_order(data, axis, attrs.get("descending")).astype(dt)


def _topk(attrs, data):
    """EXEC-search-topk-1: the first ``min(k, n)`` (all when ``k < 1``) entries of the
    stable order along ``axis``, largest first when ``largest``."""
    axis = runtime_axis(attrs.get("axis"), data.ndim, "EXEC-search-topk-1")
    k = attrs.get("k")
    n = data.shape[axis]
    count = n if k < 1 else min(k, n)
    order = stable_order(data, axis, attrs.get("largest"))
    order = np.take(order, np.arange(count), axis=axis)
    values = np.take_along_axis(data, order, axis=axis)
    dtype = attrs.get("dtype")
    indices = order.astype(data.dtype if dtype.is_void else numpy_dtype(dtype))
    ret = attrs.get("ret_type")
    if ret == "values":
        return values
    if ret == "indices":
        return indices
    return values, indices


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    def op(name, operands, attrs, deduce, compute, rule):
        register(OpDef(f"relax.{name}", operands, attrs, deduce=deduce, compute=compute,
                       family=FAMILY, spec_rule=rule))

    register(OpDef("relax.unique", (Operand("x"), Operand("sorted", "prim", default=True),
                                    Operand("return_index", "prim", default=False),
                                    Operand("return_inverse", "prim", default=False),
                                    Operand("return_counts", "prim", default=False),
                                    Operand("axis", "prim", optional=True)),
                   deduce=deduce_unique, compute=_unique, family=FAMILY,
                   spec_rule="SI-search-unique-1", legalize_any_shape=True,
                   legalize=lambda ctx: ctx.call_packed("relax.run.unique", *ctx.args)))
    register(OpDef("relax.nonzero", (Operand("x"),), deduce=deduce_nonzero, compute=_nonzero,
                   family=FAMILY, spec_rule="SI-search-nonzero-1", legalize_any_shape=True,
                   legalize=lambda ctx: ctx.call_packed("relax.run.nonzero", *ctx.args)))
    op("sort", (Operand("x"),), (Attr("axis", -1, to_int), Attr("descending", False, to_bool)),
       deduce_sort, _sort, "SI-search-sort-1")
    op("argsort", (Operand("data"),),
       (Attr("axis", -1, to_int), Attr("descending", False, to_bool),
        Attr("dtype", "int32", to_dtype)),
       deduce_argsort, _argsort, "SI-search-argsort-1")
    op("topk", (Operand("data"),),
       (Attr("k", 1, to_int), Attr("axis", -1, to_int),
        Attr("ret_type", "both", one_of("both", "values", "indices")),
        Attr("largest", True, to_bool), Attr("dtype", "int32", to_dtype)),
       deduce_topk, _topk, "SI-search-topk-1")


_register_all()
