"""Indexing ops: ``take``, ``strided_slice``, ``dynamic_strided_slice``
(spec/ops/indexing.md).

Each op's struct-info rule and NumPy semantics sit side by side. The rules follow TVM
0.27 (src/relax/op/tensor/index.cc, include/tvm/topi/transform.h); where TVM deduces a
negative length (``x[5:2]``) or leaves an out-of-bounds access undefined, we deduce what
the NumPy semantics delivers and make the bad access a run-time error
(``index_out_of_bounds``); spec/ops/indexing.md lists every such difference.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64

from .common import (
    OpRuntimeError, describe_sinfo, fold_add, fresh, int_const, normalize_axes,
    normalize_axis, runtime_axes, runtime_axis, same_as, shape_product, tensor_arg,
    unknown_tensor,
)
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, to_opt_int

FAMILY = "indexing"


# -- take ----------------------------------------------------------------------------------

def deduce_take(ctx: DeduceContext) -> si.StructInfo:
    """take(x, indices, axis, mode): the result replaces x's ``axis`` dimension by the
    indices' shape (SI-index-take-1). Indices are a tensor or an R.Prim (a 0-d tensor)
    of an integer dtype (SI-index-take-2); ``axis=None`` needs a 1-d x
    (SI-index-take-3); ``mode="nan"`` needs a floating-point x (SI-index-take-4)."""
    x = tensor_arg(ctx, 0)
    s = ctx.arg_sinfo[1]
    if isinstance(s, si.PrimStructInfo):
        indices = si.TensorStructInfo((), s.dtype)
    elif isinstance(s, (si.TensorStructInfo, si.ObjectStructInfo)):
        indices = tensor_arg(ctx, 1, "indices operand")
    else:
        raise ctx.error(f"the indices must be a tensor or an R.Prim, but their struct info "
                        f"is {describe_sinfo(s)}", rule="SI-index-take-2")
    if not indices.dtype.is_void and not indices.dtype.is_integer:
        raise ctx.error(f"the indices must have an integer dtype, found {indices.dtype}",
                        rule="SI-index-take-2")
    if ctx.attr("mode") == "nan" and not x.dtype.is_void and not x.dtype.is_float:
        raise ctx.error(f"mode='nan' needs a floating-point tensor, found {x.dtype}",
                        rule="SI-index-take-4")
    axis = ctx.attr("axis")
    if axis is None and x.ndim != 1:
        raise ctx.error(f"axis=None needs a 1-d tensor, found "
                        f"{'unknown ndim' if x.ndim < 0 else f'{x.ndim} dimensions'}",
                        rule="SI-index-take-3")
    if x.ndim < 0 or indices.ndim < 0:
        return unknown_tensor(x)
    axis = 0 if axis is None else normalize_axis(ctx, axis, x.ndim)
    if x.shape is None or indices.shape is None:
        return unknown_tensor(x, x.ndim - 1 + indices.ndim)
    shape = x.shape[:axis] + tuple(indices.shape) + x.shape[axis + 1:]
    return si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice)


def compute_take(attrs, x: np.ndarray, indices) -> np.ndarray:
    """EXEC-index-take-1: under mode "fast" every index must be in [0, n); "clip"
    clamps into [0, n - 1], "wrap" takes the index modulo n (both need n > 0 when there
    is an index); "nan" gives NaN for an out-of-range index. An empty result uses no
    index, so it never traps (as its lowering reads nothing, TE-leg-index-1)."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    rule = "EXEC-index-take-1"
    if not isinstance(indices, np.ndarray):  # an R.Prim index
        indices = np.asarray(indices.value, dtype=numpy_dtype(indices.dtype))
    if indices.dtype.kind not in "iu":
        raise OpRuntimeError("invalid_value", f"indices must be integers, found "
                             f"{indices.dtype}", rule=rule)
    axis = attrs.get("axis")
    if axis is None and x.ndim != 1:
        raise OpRuntimeError("shape_mismatch", f"axis=None needs a 1-d tensor, found shape "
                             f"{tuple(x.shape)}", rule=rule)
    axis = 0 if axis is None else runtime_axis(axis, x.ndim, rule, check="shape_mismatch")
    n = x.shape[axis]
    mode = attrs.get("mode")
    if mode == "nan" and x.dtype.kind != "f" and not _is_ml_float(x.dtype):
        raise OpRuntimeError("invalid_value", f"mode='nan' needs a floating-point tensor, "
                             f"found {x.dtype}", rule=rule)
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if 0 in shape:  # an empty result reads no element, so no index is used
        return np.empty(shape, dtype=x.dtype)
    in_range = (indices >= 0) & (indices < n)
    if mode == "fast":
        if not np.all(in_range):
            bad = indices[~in_range].reshape(-1)[0]
            raise OpRuntimeError("index_out_of_bounds", f"index {int(bad)} is out of range "
                                 f"for axis {axis} of length {n}", rule=rule)
        positions = indices.astype(np.int64)
    elif mode in ("clip", "wrap"):
        if n == 0 and indices.size:
            raise OpRuntimeError("index_out_of_bounds", f"cannot take from axis {axis} of "
                                 f"length 0", rule=rule)
        if mode == "clip":
            positions = np.clip(indices, 0, max(n - 1, 0)).astype(np.int64)
        else:
            positions = np.mod(indices, max(n, 1)).astype(np.int64)
    else:  # "nan"
        positions = np.where(in_range, indices, 0).astype(np.int64)
        if n == 0:
            return np.full(shape, np.nan, dtype=x.dtype)
        out = np.take(x, positions, axis=axis)
        mask = in_range.reshape((1,) * axis + indices.shape + (1,) * (x.ndim - axis - 1))
        return np.where(mask, out, np.asarray(np.nan, dtype=x.dtype)).astype(x.dtype)
    return fresh(np.take(x, positions, axis=axis))


def _is_ml_float(dtype: np.dtype) -> bool:
    from relax_ref.ir.numpy_dtype import dtype_of_numpy

    try:
        return dtype_of_numpy(dtype).is_float
    except Exception:  # noqa: BLE001 - a dtype we do not name is not a float
        return False


# -- strided_slice ---------------------------------------------------------------------------

_TUPLE_NAMES = ("axes", "begin", "end", "strides")


def prim_tuple(ctx: DeduceContext, i: int, what: str
               ) -> tuple[int, tuple[P.PrimExpr, ...] | None]:
    """A Tuple-of-R.Prim operand (SI-index-slice-1): its length (-1 when unknown) and
    its values when every one is known (a literal tuple, or R.Prim struct info with
    values)."""
    arg, s = ctx.args[i], ctx.arg_sinfo[i]
    if isinstance(arg, rx.Tuple):
        fields = [_field_sinfo(f) for f in arg.fields]
    elif isinstance(s, si.TupleStructInfo):
        fields = list(s.fields)
    elif isinstance(s, si.ObjectStructInfo):
        return -1, None
    else:
        raise ctx.error(f"{what} must be a tuple of integers, but its struct info is "
                        f"{describe_sinfo(s)}", rule="SI-index-slice-1")
    values: list[P.PrimExpr] | None = []
    for k, f in enumerate(fields):
        if isinstance(f, si.ObjectStructInfo):
            values = None
            continue
        if not isinstance(f, si.PrimStructInfo) or not (f.dtype.is_integer
                                                        and f.dtype.lanes == 1):
            raise ctx.error(f"element {k} of {what} must be an integer R.Prim, but its "
                            f"struct info is {describe_sinfo(f)}", rule="SI-index-slice-1")
        if f.value is None:
            values = None
        elif values is not None:
            values.append(f.value)
    return len(fields), None if values is None else tuple(values)


def _field_sinfo(e: rx.Expr) -> si.StructInfo:
    if isinstance(e, rx.PrimValue):
        return si.PrimStructInfo(e.value.dtype, e.value)
    s = getattr(e, "struct_info", None)
    return s if s is not None else si.ObjectStructInfo()


def deduce_strided_slice(ctx: DeduceContext) -> si.StructInfo:
    """strided_slice(x, axes, begin, end, strides, assume_inbound): along each axis,
    ``x[begin:end:stride]`` (SI-index-slice-2). The four tuples have equal lengths
    (SI-index-slice-3); axes are constants in range, without repeats (SI-op-axis-*); a
    stride is not 0 (SI-index-slice-4). Lengths: Python slice semantics when
    ``assume_inbound`` is false (SI-index-slice-5), ``ceildiv(end - begin, stride)``
    when it is true (SI-index-slice-6). Anything unknown leaves only the ndim."""
    x = tensor_arg(ctx, 0)
    tuples = [prim_tuple(ctx, i, _TUPLE_NAMES[i - 1]) for i in range(1, len(ctx.args))]
    lengths = {n for n, _ in tuples if n >= 0}
    if len(lengths) > 1:
        described = ", ".join(f"{_TUPLE_NAMES[k]} has {n}" for k, (n, _) in enumerate(tuples)
                              if n >= 0)
        raise ctx.error(f"axes, begin, end and strides must have equal lengths; {described}",
                        rule="SI-index-slice-3")
    axes_vals, begin, end = (t[1] for t in tuples[:3])
    strides = tuples[3][1] if len(tuples) > 3 else (
        None if axes_vals is None else tuple(P.IntImm(1, INT64) for _ in axes_vals))
    if axes_vals is not None and any(int_const(a) is None for a in axes_vals):
        raise ctx.error("axes must be constant integers", rule="SI-index-slice-1")
    for s in strides or ():
        if int_const(s) == 0:
            raise ctx.error("a stride cannot be 0", rule="SI-index-slice-4")
    if x.ndim < 0 or axes_vals is None:
        return unknown_tensor(x, x.ndim)
    axes = normalize_axes(ctx, [int_const(a) for a in axes_vals], x.ndim)
    if not axes:
        return same_as(x)
    if x.shape is None or begin is None or end is None or strides is None:
        return unknown_tensor(x, x.ndim)
    shape = list(x.shape)
    inbound = ctx.attr("assume_inbound")
    for axis, b, e, s in zip(axes, begin, end, strides):
        length = slice_length(ctx, b, e, s, x.shape[axis], inbound)
        if length is None:
            return unknown_tensor(x, x.ndim)
        shape[axis] = length
    return si.TensorStructInfo(tuple(shape), x.dtype, vdevice=x.vdevice)


def slice_length(ctx: DeduceContext, begin: P.PrimExpr, end: P.PrimExpr,
                 stride: P.PrimExpr, dim: P.PrimExpr, assume_inbound: bool
                 ) -> P.PrimExpr | None:
    """The length of ``begin:end:stride`` on a dimension ``dim`` (SI-index-slice-5, -6);
    None when the stride is not a constant."""
    cs = int_const(stride)
    if cs is None:
        return None
    cb, ce, cd = int_const(begin), int_const(end), int_const(dim)
    if assume_inbound:
        # TVM: ceildiv(end - begin, stride) on the indices as given.
        if cb is not None and ce is not None:
            length = _ceildiv(ce - cb, cs)
            if length < 0 or (cd is not None and length > 0 and not _inbound(cb, cs, length, cd)):
                raise ctx.error(f"the slice {cb}:{ce}:{cs} of a dimension of length "
                                f"{'?' if cd is None else cd} reads out of bounds, which "
                                f"assume_inbound=True promises it does not",
                                rule="SI-index-slice-6")
            return P.IntImm(length, INT64)
        diff = (P.Sub(end, begin, INT64) if cs > 0 else P.Sub(begin, end, INT64))
        return ctx.analyzer.simplify(_ceildiv_expr(diff, abs(cs)))
    if cb is not None and ce is not None and cd is not None:
        return P.IntImm(len(range(*slice(cb, ce, cs).indices(cd))), INT64)
    b = _canonical_index(begin, dim, cs)
    e = _canonical_index(end, dim, cs)
    diff = P.Sub(e, b, INT64) if cs > 0 else P.Sub(b, e, INT64)
    length = P.Max(_ceildiv_expr(diff, abs(cs)), P.IntImm(0, INT64), INT64)
    return ctx.analyzer.simplify(length)


def slice_count(start: P.PrimExpr, end: P.PrimExpr, step: P.PrimExpr) -> P.PrimExpr:
    """``floordiv(end - start + step - 1, step)``: the number of positions of
    ``start:end:step`` for a positive step (TVM's formula; slice_scatter's
    SI-index-sscatter-3 and its lowering)."""
    diff = P.Sub(P.Add(P.Sub(end, start, INT64), step, INT64), P.IntImm(1, INT64), INT64)
    return P.FloorDiv(diff, step, INT64)


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def _ceildiv_expr(a: P.PrimExpr, b: int) -> P.PrimExpr:
    """ceil(a / b) for a positive constant b."""
    if b == 1:
        return a
    return P.FloorDiv(fold_add(a, P.IntImm(b - 1, INT64)), P.IntImm(b, INT64), INT64)


def _inbound(begin: int, stride: int, length: int, dim: int) -> bool:
    last = begin + (length - 1) * stride
    return 0 <= begin < dim and 0 <= last < dim


def _canonical_index(index: P.PrimExpr, dim: P.PrimExpr, stride: int) -> P.PrimExpr:
    """TVM's CanonicalizeIndex: a negative index counts from the end; the result is
    clamped to [0, dim] for a positive stride, [-1, dim - 1] for a negative one
    (Python's slice.indices)."""
    lo = P.IntImm(0 if stride > 0 else -1, INT64)
    hi = dim if stride > 0 else P.Sub(dim, P.IntImm(1, INT64), INT64)
    c = int_const(index)
    if c is not None:
        wrapped = index if c >= 0 else fold_add(index, dim)
    elif index is dim:
        wrapped = index
    else:
        wrapped = P.Select(P.LT(index, P.IntImm(0, index.dtype), BOOL),
                           P.Add(index, dim, INT64), index, INT64)
    return P.Min(P.Max(wrapped, lo, INT64), hi, INT64)


def _ints(values, what: str, rule: str) -> list[int]:
    out = []
    for v in values:
        value = getattr(v, "value", v)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise OpRuntimeError("invalid_value", f"{what} must hold integers, found "
                                 f"{value!r}", rule=rule)
        out.append(int(value))
    return out


def compute_strided_slice(attrs, x: np.ndarray, axes, begin, end, strides=None) -> np.ndarray:
    """EXEC-index-slice-1: Python slicing when assume_inbound is false; when it is true,
    ``ceildiv(end - begin, stride)`` elements from ``begin`` on (a negative length is
    invalid_value, as a negative dimension is), every one of which must lie inside the
    dimension when the result has elements (else index_out_of_bounds)."""
    rule = "EXEC-index-slice-1"
    axes_l = _ints(axes, "axes", rule)
    begin_l, end_l = _ints(begin, "begin", rule), _ints(end, "end", rule)
    strides_l = [1] * len(axes_l) if strides is None else _ints(strides, "strides", rule)
    if not len(axes_l) == len(begin_l) == len(end_l) == len(strides_l):
        raise OpRuntimeError("invalid_value", "axes, begin, end and strides must have equal "
                             "lengths", rule=rule)
    axes_n = runtime_axes(axes_l, x.ndim, rule, check="shape_mismatch")
    return _slice(x, axes_n, begin_l, end_l, strides_l, attrs.get("assume_inbound"), rule)


def _slice(x: np.ndarray, axes, begin, end, strides, assume_inbound: bool, rule: str
           ) -> np.ndarray:
    if any(s == 0 for s in strides):
        raise OpRuntimeError("invalid_value", "a stride cannot be 0", rule=rule)
    if not assume_inbound:
        index = [slice(None)] * x.ndim
        for a, b, e, s in zip(axes, begin, end, strides):
            index[a] = slice(b, e, s)
        return fresh(x[tuple(index)])
    shape = list(x.shape)
    for a, b, e, s in zip(axes, begin, end, strides):
        shape[a] = _ceildiv(e - b, s)
        if shape[a] < 0:
            raise OpRuntimeError("invalid_value", f"the slice {b}:{e}:{s} of axis {a} "
                                 f"has a negative length under assume_inbound=True",
                                 rule=rule)
    if 0 in shape:  # an empty result reads no element (as its lowering, TE-leg-index-2)
        return np.empty(shape, dtype=x.dtype)
    out = x
    for a, b, e, s in zip(axes, begin, end, strides):
        dim = x.shape[a]
        if not _inbound(b, s, shape[a], dim):
            raise OpRuntimeError("index_out_of_bounds", f"the slice {b}:{e}:{s} of axis {a} "
                                 f"(length {dim}) reads out of bounds under "
                                 f"assume_inbound=True", rule=rule)
        out = np.take(out, b + s * np.arange(shape[a], dtype=np.int64), axis=a)
    return fresh(out)


# -- dynamic_strided_slice ---------------------------------------------------------------------

def deduce_dynamic_strided_slice(ctx: DeduceContext) -> si.StructInfo:
    """dynamic_strided_slice(x, begin, end, strides): begin/end/strides are 1-d int64
    tensors with one element per dimension of x (SI-index-dslice-1); the result has x's
    ndim, its lengths known only at run time (SI-index-dslice-2)."""
    x = tensor_arg(ctx, 0)
    for i, what in ((1, "begin"), (2, "end"), (3, "strides")):
        t = tensor_arg(ctx, i, f"{what} operand")
        if t.ndim >= 0 and t.ndim != 1:
            raise ctx.error(f"{what} must be a 1-d tensor, found {t.ndim} dimensions",
                            rule="SI-index-dslice-1")
        if not t.dtype.is_void and t.dtype != INT64:
            raise ctx.error(f"{what} must be an int64 tensor, found {t.dtype}",
                            rule="SI-index-dslice-1")
        if t.shape is not None and x.ndim >= 0 and int_const(t.shape[0]) is not None \
                and int_const(t.shape[0]) != x.ndim:
            raise ctx.error(f"{what} must have {x.ndim} elements (one per dimension), found "
                            f"{int_const(t.shape[0])}", rule="SI-index-dslice-1")
    return unknown_tensor(x, x.ndim)


def compute_dynamic_strided_slice(attrs, x: np.ndarray, begin: np.ndarray, end: np.ndarray,
                                  strides: np.ndarray) -> np.ndarray:
    """EXEC-index-dslice-1: Python slicing of every dimension."""
    rule = "EXEC-index-dslice-1"
    for what, t in (("begin", begin), ("end", end), ("strides", strides)):
        if t.ndim != 1 or t.shape[0] != x.ndim or t.dtype.kind not in "iu":
            raise OpRuntimeError("shape_mismatch", f"{what} must be a 1-d integer tensor of "
                                 f"{x.ndim} elements, found shape {tuple(t.shape)} of "
                                 f"{t.dtype}", rule=rule)
    return _slice(x, list(range(x.ndim)), [int(v) for v in begin], [int(v) for v in end],
                  [int(v) for v in strides], False, rule)


# -- lowering (spec/ops/indexing.md "Lowering") ------------------------------------------------

def legalize_take(ctx):
    """TE-leg-index-1: ``T_take[..., j..., ...] = x[..., pos(indices[j...]), ...]``
    with the index (cast to int64) used as given ("fast": an index out of range is a
    load out of bounds, which traps ``index_out_of_bounds`` as the op does), clamped
    into ``[0, max(n - 1, 0)]`` ("clip"), taken modulo ``max(n, 1)`` ("wrap"), or
    guarded by ``if_then_else`` with NaN outside ``[0, n)`` ("nan"). The op's checks
    that are not about a tensor's values are the PrimFunc's guards (TE-leg-7), each
    void for an empty result (which uses no index): an R.Prim index (a scalar of any
    sign) in ``[0, n)`` under "fast"; ``n > 0`` under "clip" and "wrap". uint64 indices
    under "clip" and "wrap" stay (above 2**63 they have no int64 value)."""
    x = ctx.tensor(0)
    mode = ctx.attr("mode")
    s = ctx.arg_sinfo[1]
    prim_index = isinstance(s, si.PrimStructInfo)
    if prim_index:
        value = ctx.prim(1)
        dtype, ind_ndim = value.dtype, 0
        raw = lambda j: value  # noqa: E731
    else:
        ind = ctx.tensor(1)
        dtype, ind_ndim = ind.dtype, ind.ndim
        raw = lambda j: ind[j]  # noqa: E731
    if mode in ("clip", "wrap") and str(dtype) == "uint64":
        raise ctx.decline("uint64 indices above 2**63 have no int64 value")
    axis = ctx.attr("axis")
    axis = 0 if axis is None else (axis + x.ndim if axis < 0 else axis)
    n = x.shape[axis]
    zero, one = P.IntImm(0, INT64), P.IntImm(1, INT64)
    out_shape = ctx.result_shape()
    if prim_index and mode == "fast":
        k = te.cast(INT64, value)
        _require_unless_empty(ctx, out_shape, [P.LE(zero, k, BOOL), P.LT(k, n, BOOL)],
                              "index_out_of_bounds",
                              f"the R.Prim index ({ctx.show(k)}) must lie in [0, {ctx.show(n)})")
    elif mode in ("clip", "wrap"):
        _require_unless_empty(ctx, out_shape, [P.GT(n, zero, BOOL)], "index_out_of_bounds",
                              f"cannot take from an axis of length {ctx.show(n)}")

    def formula(*i):
        k = te.cast(INT64, raw(tuple(i[axis:axis + ind_ndim])))
        if mode == "clip":
            top = P.Max(P.Sub(n, one, INT64), zero, INT64)
            k = P.Min(P.Max(k, zero, INT64), top, INT64)
        elif mode == "wrap":
            k = P.FloorMod(k, P.Max(n, one, INT64), INT64)
        index = tuple(i[:axis]) + (k,) + tuple(i[axis + ind_ndim:])
        if mode != "nan":
            return x[index]
        inside = te.all_of(P.LE(zero, k, BOOL), P.LT(k, n, BOOL))
        return te.if_then_else(inside, x[index], te.const(float("nan"), x.dtype))
    out = te.compute(out_shape, formula, name="T_take", axis_prefix="ax")
    return ctx.call_te(out, "take")


def _require_unless_empty(ctx, out_shape, conds: list[P.PrimExpr], kind: str,
                          message: str) -> None:
    """The op's checks ``conds``, which it makes only for a result with elements (an
    empty one reads nothing): those provable from the sizes (TE-leg-4) go, the rest are
    the guard ``count(out_shape) == 0 or (c1 and c2 ...)`` (TE-leg-7)."""
    from relax_ref.te.legalize import provable

    left = []
    for c in conds:
        sizes = [v for e in (*out_shape, c) for v in P.free_vars(e) if ctx.is_size(v)]
        if not provable(c, nonneg=sizes):
            left.append(c)
    count = shape_product(out_shape)
    if not left or int_const(count) == 0:
        return
    cond = te.all_of(*left)
    if int_const(count) is None:
        cond = P.Or(P.EQ(count, P.IntImm(0, INT64), BOOL), cond, BOOL)
    ctx.require(cond, kind, message)


def _tuple_values(ctx, i: int) -> list[P.PrimExpr]:
    """The values of a tuple-of-R.Prim operand, as int64 (TE-leg-2: each is known and
    uses int64 variables only, which a PrimFunc can take)."""
    s = ctx.arg_sinfo[i]
    if not isinstance(s, si.TupleStructInfo):
        raise ctx.decline(f"operand {i} is not a tuple of known values")
    out = []
    for f in s.fields:
        if not isinstance(f, si.PrimStructInfo) or f.value is None or any(
                v.dtype != INT64 for v in P.free_vars(f.value)):
            raise ctx.decline(f"operand {i} holds a value not known at compile time")
        out.append(te.cast(INT64, f.value))
    return out


def legalize_strided_slice(ctx):
    """TE-leg-index-2: ``x`` read at ``start + i * stride`` on each sliced axis, where
    ``start`` is the canonical begin (``_canonical_index``, the rule of SI-index-slice-5)
    and the length the deduced one. Under ``assume_inbound`` the begin is used as given:
    a negative length traps where the result is allocated (the op's invalid_value), and
    the op's in-range check is the PrimFunc's guard (``index_out_of_bounds``, void for
    an empty result), so every read is in bounds; bounds may then be any values. Without
    it, bounds may use only variables that are sizes (TE-leg-manip-8: deduction's
    canonical begin assumes its variables non-negative)."""
    from relax_ref.te.legalize import provable

    x = ctx.tensor(0)
    out_shape = ctx.result_shape()
    axes = [int_const(a) for a in _tuple_values(ctx, 1)]
    begin, end = _tuple_values(ctx, 2), _tuple_values(ctx, 3)
    inbound = ctx.attr("assume_inbound")
    if not inbound:
        ctx.require_sizes(begin + end, "the bounds")
    strides = (_tuple_values(ctx, 4) if len(ctx.args) > 4
               else [P.IntImm(1, INT64)] * len(axes))
    if any(a is None for a in axes) or any(int_const(s) is None for s in strides):
        raise ctx.decline("axes and strides must be constants")
    starts: dict[int, tuple[P.PrimExpr, int]] = {}
    in_range: list[P.PrimExpr] = []
    for a, b, e, s in zip(axes, begin, end, strides):
        a = a + x.ndim if a < 0 else a
        stride = int_const(s)
        if inbound:
            # Deduction simplified the length assuming every variable non-negative
            # (SYM-assume-1); a bound's R.Prim variable may be negative, so the length
            # must be ceildiv(end - begin, stride) for any value of it.
            diff = P.Sub(e, b, INT64) if stride > 0 else P.Sub(b, e, INT64)
            exact = P.FloorDiv(P.Add(diff, P.IntImm(abs(stride) - 1, INT64), INT64),
                               P.IntImm(abs(stride), INT64), INT64)
            sizes = [v for v in P.free_vars(P.Sub(exact, out_shape[a], INT64))
                     if ctx.is_size(v)]
            if not provable(P.EQ(out_shape[a], exact, BOOL), nonneg=sizes):
                raise ctx.decline(f"the deduced length on axis {a} relies on a bound's "
                                  f"variable being non-negative")
            starts[a] = (b, stride)
            steps = P.Sub(out_shape[a], P.IntImm(1, INT64), INT64)
            last = fold_add(b, steps if stride == 1
                            else P.Mul(steps, P.IntImm(stride, INT64), INT64))
            for pos in (b, last):
                in_range += [P.LE(P.IntImm(0, INT64), pos, BOOL), P.LT(pos, x.shape[a], BOOL)]
        else:
            starts[a] = (_canonical_index(b, x.shape[a], stride), stride)
    if in_range:
        _require_unless_empty(ctx, out_shape, in_range, "index_out_of_bounds",
                              "the slice must lie inside x (assume_inbound=True)")

    def position(d, i):
        if d not in starts:
            return i
        start, stride = starts[d]
        step = i if stride == 1 else P.Mul(i, P.IntImm(stride, INT64), INT64)
        return fold_add(start, step)
    out = te.compute(out_shape, lambda *i: x[tuple(position(d, v) for d, v in enumerate(i))],
                     name="T_strided_slice_with_axes", axis_prefix="ax")
    return ctx.call_te(out, "strided_slice")


def legalize_dynamic_strided_slice(ctx):
    """TE-leg-index-3, TVM's form in steps, since the result's lengths are known only at
    run time (SI-index-dslice-2): a shape function computes each axis's length from the
    bounds (Python's slice rule: a negative bound counts from the end, then clamps to
    ``[0, n]``, or ``[-1, n - 1]`` for a negative stride; a zero stride gives -1, which
    ``R.tensor_to_shape`` refuses with ``invalid_value``, as the op traps); the lengths
    become a shape, ``R.match_cast`` binds them to new symbolic variables, and the
    kernel reads ``x`` at ``begin' + i * stride`` on each axis. The bounds' buffers have
    ``ndim(x)`` elements, so bounds of another length trap ``shape_mismatch``."""
    s = ctx.arg_sinfo[0]
    if not isinstance(s, si.TensorStructInfo) or s.shape is None or s.ndim < 1:
        raise ctx.decline("x has no known shape")
    nd = s.ndim
    for i in (1, 2, 3):
        b = ctx.arg_sinfo[i]
        if not isinstance(b, si.TensorStructInfo) or b.dtype != INT64:
            raise ctx.decline("the bounds are not known int64 tensors")
    x = ctx.tensor(0)
    begin, end, strides = (ctx.placeholder(ctx.args[i], (nd,), INT64, name)
                           for i, name in ((1, "begin"), (2, "end"), (3, "strides")))
    c = lambda v: P.IntImm(v, INT64)  # noqa: E731
    lt = lambda a, b: P.LT(a, b, BOOL)  # noqa: E731
    gt = lambda a, b: P.GT(a, b, BOOL)  # noqa: E731

    def dim(i):
        value: P.PrimExpr = x.shape[nd - 1]
        for k in range(nd - 2, -1, -1):
            value = te.if_then_else(P.EQ(i, c(k), BOOL), x.shape[k], value)
        return value

    def canonical(v, n, st):
        low = te.select(lt(st, c(0)), c(-1), c(0))
        high = te.select(lt(st, c(0)), n - c(1), n)
        w = te.select(lt(v, c(0)), v + n, v)
        return te.select(lt(w, low), low, te.select(gt(w, high), high, w))

    def length(i):
        n, st = dim(i), strides[i]
        b, e = canonical(begin[i], n, st), canonical(end[i], n, st)
        up = P.Max(c(0), P.FloorDiv(e - b + st - c(1), st, INT64), INT64)
        down = P.Max(c(0), P.FloorDiv(b - e - st - c(1), P.Sub(c(0), st, INT64), INT64), INT64)
        return te.if_then_else(P.EQ(st, c(0), BOOL), c(-1),
                               te.if_then_else(gt(st, c(0)), up, down))
    lengths = te.compute((nd,), length, name="T_shape_func_strided_slice_dynamic")
    as_tensor = ctx.emit(ctx.call_te(lengths, "shape_func"), "lengths")
    as_shape = ctx.emit(ctx.call_op("relax.tensor_to_shape", as_tensor), "lengths_shape")
    out_shape = tuple(P.Var(f"s{k}", INT64) for k in range(nd))
    ctx.emit_match_cast(as_shape, si.ShapeStructInfo(out_shape, nd), "out_shape")

    def element(*j):
        return x[tuple(canonical(begin[d], x.shape[d], strides[d]) + j[d] * strides[d]
                       for d in range(nd))]
    out = te.compute(out_shape, element, name="T_strided_slice_dynamic", axis_prefix="ax")
    return ctx.call_te(out, "dynamic_strided_slice")


# -- registration ----------------------------------------------------------------------------

def _register_all() -> None:
    register(OpDef("relax.take", (Operand("x"), Operand("indices", "any")),
                   (Attr("axis", None, to_opt_int),
                    Attr("mode", "fast", one_of("fast", "clip", "wrap", "nan"))),
                   deduce=deduce_take, compute=compute_take, family=FAMILY,
                   spec_rule="SI-index-take-1", legalize=legalize_take))
    register(OpDef("relax.strided_slice",
                   (Operand("x"), Operand("axes", "tuple"), Operand("begin", "tuple"),
                    Operand("end", "tuple"), Operand("strides", "tuple", optional=True)),
                   (Attr("assume_inbound", False, to_bool),),
                   deduce=deduce_strided_slice, compute=compute_strided_slice, family=FAMILY,
                   spec_rule="SI-index-slice-2", legalize=legalize_strided_slice))
    register(OpDef("relax.dynamic_strided_slice",
                   (Operand("x"), Operand("begin"), Operand("end"), Operand("strides")),
                   deduce=deduce_dynamic_strided_slice, compute=compute_dynamic_strided_slice,
                   family=FAMILY, spec_rule="SI-index-dslice-2",
                   legalize=legalize_dynamic_strided_slice, legalize_any_shape=True))


_register_all()
