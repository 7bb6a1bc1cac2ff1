"""Tensor manipulation and shape ops: ``reshape``, ``permute_dims``, ``expand_dims``,
``squeeze``, ``flatten``, ``concat``, ``split``, ``broadcast_to``, ``repeat``, ``tile``,
``flip``, and the shape/tensor conversions ``shape_of``, ``tensor_to_shape``,
``shape_to_tensor`` (spec/ops/manipulate.md).

Each op's struct-info rule and NumPy semantics sit side by side; their lowerings to
tensor programs (``legalize=``) are in ``manipulate_lowering.py``. The rules follow TVM
0.27 (src/relax/op/tensor/manipulate.cc, src/relax/op/op.cc); where TVM would deduce a
negative dimension or rely on a fact nothing checks, we deduce only what the NumPy
semantics below delivers and check the rest at run time; spec/ops/manipulate.md lists
every such difference.

Symbolic dimensions are built the way TVM builds them, with constant folding only
(``common.fold_mul``/``fold_add``: TVM's ``TryConstFold``), so that ``flatten`` of
``(2, n, 4)`` gives ``2 * n * 4`` as TVM prints it; rules for which TVM calls its
simplifier (split, repeat, tile) use ``ctx.analyzer.simplify``.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, VOID
from relax_ref.values import ShapeValue

from . import manipulate_lowering as lowering
from .common import (
    OpRuntimeError, describe_sinfo, expr_text, fold_add, fold_mul, fresh, int_const,
    normalize_axes, normalize_axis, provably_ne, runtime_axes, runtime_axis, same_as,
    same_expr, shape_operand, shape_product, tensor_arg, unknown_tensor,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, register, to_int, to_int_tuple, to_opt_int,
    to_opt_int_tuple,
)

FAMILY = "manipulate"


# -- reshape -------------------------------------------------------------------------------

def deduce_reshape(ctx: DeduceContext) -> si.StructInfo:
    """reshape(x, shape): the result has the target shape (SI-manip-reshape-1); a
    constant ``-1`` in the target is inferred from the element count (SI-manip-reshape-3);
    an element count provably different from x's is an error (SI-manip-reshape-2),
    an unprovable one is checked at run time (EXEC-manip-reshape-1)."""
    x = tensor_arg(ctx, 0)
    target = shape_operand(ctx, 1)
    if target.values is None:
        # TVM keeps the shape variable itself as the result's shape; we can hold only
        # its ndim.
        return unknown_tensor(x, target.ndim)
    literal = isinstance(ctx.args[1], rx.ShapeExpr)
    values = _resolve_reshape_target(ctx, x, tuple(target.values), literal)
    if values is None:
        return unknown_tensor(x, target.ndim)
    if x.shape is not None:
        old, new = shape_product(x.shape), shape_product(values)
        if provably_ne(ctx, old, new):
            raise ctx.error(f"cannot reshape a tensor of {_shape_text(x.shape)} "
                            f"({expr_text(old)} elements) to {_shape_text(values)} "
                            f"({expr_text(new)} elements)", rule="SI-manip-reshape-2")
    return si.TensorStructInfo(values, x.dtype, vdevice=x.vdevice)


def finalize_reshape(call: rx.Call, sinfo: si.StructInfo) -> rx.Call:
    """SI-manip-reshape-5: a literal target holding ``-1`` is replaced by the deduced
    shape, in which the ``-1`` is inferred; the run-time shape then never holds -1."""
    target = call.args[1]
    if isinstance(target, rx.ShapeExpr) and isinstance(sinfo, si.TensorStructInfo) \
            and sinfo.shape is not None and any(int_const(v) == -1 for v in target.values):
        shape = rx.ShapeExpr(sinfo.shape, si.ShapeStructInfo(sinfo.shape), span=target.span)
        return rx.Call(call.op, (call.args[0], shape) + call.args[2:], call.attrs,
                       call.sinfo_args, call.struct_info, span=call.span)
    return call


def _resolve_reshape_target(ctx: DeduceContext, x: si.TensorStructInfo,
                            values: tuple[P.PrimExpr, ...], literal: bool
                            ) -> tuple[P.PrimExpr, ...] | None:
    """The target shape with its ``-1`` inferred (SI-manip-reshape-3, -4). None when
    the ``-1`` cannot be inferred statically from a shape that is not a literal."""
    try:
        k = reshape_minus_one([int_const(v) for v in values])
    except ValueError as err:
        raise ctx.error(str(err), rule="SI-manip-reshape-3") from None
    if literal:
        # TVM's Python constructor reads a literal 0 as "copy the input's dimension";
        # at run time a 0 is a zero-length dimension. Accept a 0 only where both
        # readings agree (SI-manip-reshape-4).
        for i, v in enumerate(values):
            if int_const(v) == 0 and not (
                    x.shape is not None and i < len(x.shape)
                    and ctx.analyzer.prove_equal(x.shape[i], 0)):
                raise ctx.error(
                    f"target dimension {i} is the literal 0, which TVM reads as 'copy "
                    f"dimension {i} of the input'; write that dimension explicitly",
                    rule="SI-manip-reshape-4")
    if k is None:
        return values
    if x.shape is None:
        if literal:
            raise ctx.error("cannot infer the -1 in the target shape: the input's shape is "
                            "unknown", rule="SI-manip-reshape-3")
        return None
    known = shape_product([v for i, v in enumerate(values) if i != k])
    if ctx.analyzer.prove_equal(known, 0):
        raise ctx.error("cannot infer the -1 in the target shape: the other dimensions "
                        "hold no elements", rule="SI-manip-reshape-3")
    old = shape_product(x.shape)
    ck, co = int_const(known), int_const(old)
    if ck is not None and co is not None:
        try:
            inferred: P.PrimExpr = P.IntImm(reshape_inferred_length(co, ck), INT64)
        except ValueError:
            raise ctx.error(f"cannot reshape {co} elements to {_shape_text(values)}",
                            rule="SI-manip-reshape-2") from None
    else:
        inferred = ctx.analyzer.simplify(P.FloorDiv(old, known, old.dtype))
    return values[:k] + (inferred,) + values[k + 1:]


def reshape_minus_one(dims: Sequence[int | None]) -> int | None:
    """The rule for a reshape target's ``-1``, shared by deduction (SI-manip-reshape-3)
    and the run-time semantics (EXEC-manip-reshape-1): no dimension is below ``-1`` and
    at most one is ``-1``. Returns the position of that ``-1`` (None when there is none);
    ``dims`` holds the constant dimensions, None for a symbolic one. ValueError says
    what is wrong."""
    for c in dims:
        if c is not None and c < -1:
            raise ValueError(f"target dimensions must be non-negative or a single -1, "
                             f"found {c}")
    infer = [i for i, c in enumerate(dims) if c == -1]
    if len(infer) > 1:
        raise ValueError(f"at most one target dimension may be -1, found {len(infer)}")
    return infer[0] if infer else None


def reshape_inferred_length(count: int, known: int) -> int:
    """The length a target's ``-1`` stands for: ``count // known``, where ``known`` (the
    product of the other target dimensions) is nonzero and divides the element count
    ``count``; ValueError otherwise."""
    if known == 0 or count % known:
        raise ValueError(f"{count} elements do not split into parts of {known}")
    return count // known


def compute_reshape(attrs, x: np.ndarray, shape: ShapeValue) -> np.ndarray:
    """EXEC-manip-reshape-1: a single -1 is inferred; the element counts must agree."""
    dims = [int(d) for d in shape]
    rule = "EXEC-manip-reshape-1"
    try:
        k = reshape_minus_one(dims)
    except ValueError as err:
        raise OpRuntimeError("invalid_value", f"invalid target shape {dims}: {err}",
                             rule=rule) from None
    if k is not None:
        known = math.prod(d for i, d in enumerate(dims) if i != k)
        try:
            dims[k] = reshape_inferred_length(x.size, known)
        except ValueError:
            raise OpRuntimeError("shape_mismatch", f"cannot reshape {x.size} elements to "
                                 f"{dims}", rule=rule) from None
    if math.prod(dims) != x.size:
        raise OpRuntimeError("shape_mismatch", f"cannot reshape a tensor of shape "
                             f"{tuple(x.shape)} to {tuple(dims)}", rule=rule)
    return fresh(x.reshape(dims))


# -- permute_dims --------------------------------------------------------------------------

def deduce_permute_dims(ctx: DeduceContext) -> si.StructInfo:
    """permute_dims(x, axes): dimension i of the result is dimension axes[i] of x;
    ``axes=None`` reverses (SI-manip-permute-1). ``axes`` must be a permutation of
    x's axes (SI-manip-permute-2, SI-op-axis-*)."""
    x = tensor_arg(ctx, 0)
    axes = ctx.attr("axes")
    if x.ndim < 0:
        if axes is None:
            return unknown_tensor(x)
        # TVM fails an internal check here; we know the ndim: axes must permute it.
        normalize_axes(ctx, axes, len(axes))
        return unknown_tensor(x, len(axes))
    if axes is None:
        perm = list(range(x.ndim))[::-1]
    else:
        if len(axes) != x.ndim:
            raise ctx.error(f"needs {x.ndim} axes for a tensor of {x.ndim} dimensions, "
                            f"found {len(axes)}", rule="SI-manip-permute-2")
        perm = normalize_axes(ctx, axes, x.ndim)
    if perm == list(range(x.ndim)):
        return same_as(x)
    if x.shape is None:
        return unknown_tensor(x, x.ndim)
    return si.TensorStructInfo(tuple(x.shape[a] for a in perm), x.dtype, vdevice=x.vdevice)


def compute_permute_dims(attrs, x: np.ndarray) -> np.ndarray:
    axes = attrs.get("axes")
    if axes is None:
        return fresh(np.transpose(x))
    if len(axes) != x.ndim:
        raise OpRuntimeError("shape_mismatch", f"{len(axes)} axes for a tensor of "
                             f"{x.ndim} dimensions", rule="EXEC-manip-permute-1")
    return fresh(np.transpose(x, runtime_axes(axes, x.ndim, "EXEC-manip-permute-1",
                                              check="shape_mismatch")))


# -- expand_dims ---------------------------------------------------------------------------

def deduce_expand_dims(ctx: DeduceContext) -> si.StructInfo:
    """expand_dims(x, axis): a dimension of length 1 is inserted at each axis, the axes
    counting in the result's ndim + len(axis) dimensions (SI-manip-expand-1)."""
    x = tensor_arg(ctx, 0)
    axis = ctx.attr("axis")
    if not axis:
        return same_as(x)
    if x.ndim < 0:
        return unknown_tensor(x)
    out_ndim = x.ndim + len(axis)
    new_axes = set(normalize_axes(ctx, axis, out_ndim))
    if x.shape is None:
        return unknown_tensor(x, out_ndim)
    dims = iter(x.shape)
    shape = tuple(P.IntImm(1, INT64) if i in new_axes else next(dims) for i in range(out_ndim))
    return si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice)


def compute_expand_dims(attrs, x: np.ndarray) -> np.ndarray:
    axis = attrs.get("axis")
    out_ndim = x.ndim + len(axis)
    new_axes = runtime_axes(axis, out_ndim, "EXEC-manip-expand-1", check="shape_mismatch")
    shape = list(x.shape)
    for a in sorted(new_axes):
        shape.insert(a, 1)
    return fresh(x.reshape(shape))


# -- squeeze -------------------------------------------------------------------------------

def deduce_squeeze(ctx: DeduceContext) -> si.StructInfo:
    """squeeze(x, axis): removes the given axes, each of which must have length 1
    (SI-manip-squeeze-1: a length provably not 1 is an error; a symbolic length is
    removed and checked at run time, EXEC-manip-squeeze-1). ``axis=None`` removes every
    dimension of length 1, which needs every length to be a constant
    (SI-manip-squeeze-2; otherwise only an unknown ndim is deduced)."""
    x = tensor_arg(ctx, 0)
    axis = ctx.attr("axis")
    if axis is not None and len(axis) == 0:
        return same_as(x)
    if x.ndim < 0:
        return unknown_tensor(x)
    if axis is not None:
        axes = normalize_axes(ctx, axis, x.ndim)
        if x.shape is None:
            return unknown_tensor(x, x.ndim - len(axes))
        for a in axes:
            if provably_ne(ctx, x.shape[a], 1):
                raise ctx.error(f"cannot squeeze axis {a} of a tensor of "
                                f"{_shape_text(x.shape)}: its length is not 1 (TVM 0.27 "
                                f"keeps such an axis; drop it from `axis`)",
                                rule="SI-manip-squeeze-1")
        removed = set(axes)
    else:
        if x.shape is None or any(int_const(d) is None for d in x.shape):
            return unknown_tensor(x)
        removed = {i for i, d in enumerate(x.shape) if int_const(d) == 1}
    shape = tuple(d for i, d in enumerate(x.shape) if i not in removed)
    return si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice)


def compute_squeeze(attrs, x: np.ndarray) -> np.ndarray:
    axis = attrs.get("axis")
    if axis is None:
        return fresh(np.squeeze(x))
    axes = runtime_axes(axis, x.ndim, "EXEC-manip-squeeze-1", check="shape_mismatch")
    for a in axes:
        if x.shape[a] != 1:
            raise OpRuntimeError("shape_mismatch", f"cannot squeeze axis {a} of a tensor of "
                                 f"shape {tuple(x.shape)}: its length is not 1",
                                 rule="EXEC-manip-squeeze-1")
    return fresh(np.squeeze(x, axis=tuple(axes)))


# -- flatten -------------------------------------------------------------------------------

def deduce_flatten(ctx: DeduceContext) -> si.StructInfo:
    """flatten(x): a 1-d tensor of all of x's elements, of length the product of x's
    dimensions (SI-manip-flatten-1); a 0-d tensor gives shape (1,)."""
    x = tensor_arg(ctx, 0)
    if x.ndim < 0:
        return unknown_tensor(x, 1)
    if x.ndim == 0:
        return si.TensorStructInfo((P.IntImm(1, INT64),), x.dtype, vdevice=x.vdevice)
    if x.ndim == 1:
        return same_as(x)
    if x.shape is None:
        return unknown_tensor(x, 1)
    return si.TensorStructInfo((shape_product(x.shape),), x.dtype, vdevice=x.vdevice)


def compute_flatten(attrs, x: np.ndarray) -> np.ndarray:
    return fresh(x.reshape(-1))


# -- concat --------------------------------------------------------------------------------

def tuple_of_tensors(ctx: DeduceContext, i: int) -> list[si.TensorStructInfo] | None:
    """The fields of a Tuple-of-tensors operand (SI-manip-concat-1); None when the
    operand is an R.Object (its fields are unknown)."""
    s = ctx.arg_sinfo[i]
    arg = ctx.args[i]
    if isinstance(s, si.ObjectStructInfo) and not isinstance(arg, rx.Tuple):
        return None
    if isinstance(s, si.TupleStructInfo):
        fields = list(s.fields)
    elif isinstance(arg, rx.Tuple):
        fields = [getattr(f, "struct_info", None) or si.ObjectStructInfo() for f in arg.fields]
    else:
        raise ctx.error(f"operand {i} must be a tuple of tensors, but its struct info is "
                        f"{describe_sinfo(s)}", rule="SI-manip-concat-1")
    out = []
    for k, f in enumerate(fields):
        if isinstance(f, si.TensorStructInfo):
            out.append(f)
        elif isinstance(f, si.ObjectStructInfo):
            out.append(si.TensorStructInfo())
        else:
            raise ctx.error(f"field {k} of the tuple must be a tensor, but its struct info is "
                            f"{describe_sinfo(f)}", rule="SI-manip-concat-1")
    return out


def deduce_concat(ctx: DeduceContext) -> si.StructInfo:
    """concat(tensors, axis): all tensors agree in dtype (SI-op-dtype-1), ndim
    (SI-manip-concat-2) and every dimension but ``axis`` (SI-manip-concat-3); the
    result's ``axis`` dimension is the sum of theirs. ``axis=None`` concatenates 1-d
    tensors (SI-manip-concat-4)."""
    tensors = tuple_of_tensors(ctx, 0)
    if tensors is None:
        return si.TensorStructInfo()
    if not tensors:
        raise ctx.error("needs at least one tensor, found an empty tuple",
                        rule="SI-manip-concat-1")
    axis_attr = ctx.attr("axis")
    dtype = _concat_dtype(ctx, tensors)
    vdevice = _concat_vdevice(tensors)
    ndim = 1 if axis_attr is None else si.UNKNOWN_NDIM
    for t in tensors:
        if ndim < 0:
            ndim = t.ndim
        elif t.ndim >= 0 and t.ndim != ndim:
            if axis_attr is None:
                raise ctx.error(f"axis=None concatenates 1-d tensors, found one with "
                                f"{t.ndim} dimensions", rule="SI-manip-concat-4")
            raise ctx.error(f"all tensors must have {ndim} dimensions, found one with "
                            f"{t.ndim}", rule="SI-manip-concat-2")
    if ndim < 0:
        return tensors[0] if len(tensors) == 1 else si.TensorStructInfo(None, dtype, ndim,
                                                                        vdevice)
    axis = 0 if axis_attr is None else normalize_axis(ctx, axis_attr, ndim)
    if len(tensors) == 1:
        return tensors[0]
    shapes = [t.shape for t in tensors if t.shape is not None]
    if not shapes:
        return si.TensorStructInfo(None, dtype, ndim, vdevice)
    # Best-effort check of the other dimensions among the known shapes.
    decided = True
    for d in range(ndim):
        if d == axis:
            continue
        for s in shapes[1:]:
            if provably_ne(ctx, s[d], shapes[0][d]):
                raise ctx.error(f"tensors differ in dimension {d} ({expr_text(shapes[0][d])} "
                                f"and {expr_text(s[d])}), which is not the concatenation "
                                f"axis {axis}", rule="SI-manip-concat-3")
            if not ctx.analyzer.prove_equal(s[d], shapes[0][d]):
                decided = False
    if len(shapes) < len(tensors) or not decided:
        return si.TensorStructInfo(None, dtype, ndim, vdevice)
    first = shapes[0][axis]
    if all(same_expr(s[axis], first) for s in shapes):
        total = fold_mul(first, P.IntImm(len(shapes), first.dtype))
    else:
        total = P.IntImm(0, INT64)
        for s in shapes:
            total = fold_add(total, s[axis])
    out = tuple(total if d == axis else shapes[0][d] for d in range(ndim))
    return si.TensorStructInfo(out, dtype, vdevice=vdevice)


def _concat_dtype(ctx: DeduceContext, tensors: list[si.TensorStructInfo]):
    known = [t.dtype for t in tensors if not t.dtype.is_void]
    for d in known[1:]:
        if d != known[0]:
            raise ctx.error(f"all tensors must have the same dtype, found {known[0]} and {d}",
                            rule="SI-op-dtype-1")
    if len(known) < len(tensors):
        return VOID  # some dtype is unknown (as in TVM)
    return known[0]


def _concat_vdevice(tensors: list[si.TensorStructInfo]) -> str | None:
    devices = {t.vdevice for t in tensors if t.vdevice is not None}
    return devices.pop() if len(devices) == 1 else None


def compute_concat(attrs, tensors: tuple) -> np.ndarray:
    """EXEC-manip-concat-1: same dtype, same ndim, equal dimensions off the axis."""
    rule = "EXEC-manip-concat-1"
    if not tensors:
        raise OpRuntimeError("shape_mismatch", "nothing to concatenate", rule=rule)
    axis_attr = attrs.get("axis")
    first = tensors[0]
    for t in tensors:
        if t.dtype != first.dtype:
            raise OpRuntimeError("invalid_value", f"dtypes differ ({first.dtype} and "
                                 f"{t.dtype})", rule=rule)
        if axis_attr is None and t.ndim != 1:
            raise OpRuntimeError("shape_mismatch", "axis=None needs 1-d tensors, found "
                                 f"shape {tuple(t.shape)}", rule=rule)
        if t.ndim != first.ndim:
            raise OpRuntimeError("shape_mismatch", f"ndims differ ({first.ndim} and "
                                 f"{t.ndim})", rule=rule)
    axis = 0 if axis_attr is None else runtime_axis(axis_attr, first.ndim, rule,
                                                    check="shape_mismatch")
    for t in tensors:
        for d in range(first.ndim):
            if d != axis and t.shape[d] != first.shape[d]:
                raise OpRuntimeError("shape_mismatch", f"shapes {tuple(first.shape)} and "
                                     f"{tuple(t.shape)} differ off axis {axis}", rule=rule)
    return np.concatenate(tensors, axis=axis)


# -- split ---------------------------------------------------------------------------------

def to_indices_or_sections(value) -> int | tuple[int, ...]:
    """A positive number of sections, or a tuple of split indices."""
    if isinstance(value, bool):
        raise ValueError(f"expected an integer or a tuple of integers, found {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"the number of sections must be positive, found {value}")
        return value
    if isinstance(value, (tuple, list)):
        return tuple(to_int(v) for v in value)
    raise ValueError(f"expected an integer or a tuple of integers, found {value!r}")


def deduce_split(ctx: DeduceContext) -> si.StructInfo:
    """split(x, indices_or_sections, axis): a tuple of tensors (SI-manip-split-1).

    ``k`` sections of a dimension ``m``: each but the last has ``ceildiv(m, k)``
    elements, the last ``m - (k - 1) * ceildiv(m, k)`` (TVM's rule, simplified as TVM
    does: ``(m + 1) // 2`` and ``m - (m + 1) // 2``); a negative last length is an
    error when provable (SI-manip-split-2), else checked at run time
    (EXEC-manip-split-1). Indices cut at ``clamp(idx, 0, m)``; a piece has length
    ``max(right - left, 0)`` (SI-manip-split-3). One section, or no indices, gives x
    itself (a tensor, not a tuple), as in TVM."""
    x = tensor_arg(ctx, 0)
    ios = ctx.attr("indices_or_sections")
    axis = normalize_axis(ctx, ctx.attr("axis"), x.ndim) if x.ndim >= 0 else -1
    count = ios if isinstance(ios, int) else len(ios) + 1
    if count == 1:
        return same_as(x)
    if x.shape is None:
        return si.TupleStructInfo(tuple(unknown_tensor(x, x.ndim) for _ in range(count)))
    m = x.shape[axis]
    lengths = (_section_lengths(ctx, m, ios) if isinstance(ios, int)
               else _index_lengths(ctx, m, ios))
    fields = []
    for length in lengths:
        shape = x.shape[:axis] + (length,) + x.shape[axis + 1:]
        fields.append(si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice))
    return si.TupleStructInfo(tuple(fields))


def _section_lengths(ctx: DeduceContext, m: P.PrimExpr, k: int) -> list[P.PrimExpr]:
    cm = int_const(m)
    if cm is not None:
        seg = -(-cm // k)
        last = cm - (k - 1) * seg
        if last < 0:
            raise ctx.error(f"cannot split a dimension of length {cm} into {k} sections of "
                            f"length {seg}", rule="SI-manip-split-2")
        return [P.IntImm(seg, m.dtype)] * (k - 1) + [P.IntImm(last, m.dtype)]
    seg_expr = ctx.analyzer.simplify(P.FloorDiv(m + (k - 1), P.IntImm(k, m.dtype), m.dtype))
    last_expr = ctx.analyzer.simplify(P.Sub(m, P.Mul(seg_expr, P.IntImm(k - 1, m.dtype),
                                                     m.dtype), m.dtype))
    if ctx.analyzer.can_prove(P.LT(last_expr, P.IntImm(0, m.dtype), BOOL)):
        raise ctx.error(f"cannot split a dimension of length {expr_text(m)} into {k} "
                        f"sections", rule="SI-manip-split-2")
    return [seg_expr] * (k - 1) + [last_expr]


def _index_lengths(ctx: DeduceContext, m: P.PrimExpr, indices: tuple[int, ...]
                   ) -> list[P.PrimExpr]:
    cm = int_const(m)
    bounds = [0, *indices, None]
    out = []
    for left, right in zip(bounds[:-1], bounds[1:]):
        if cm is not None:
            lo = min(max(left, 0), cm)
            hi = cm if right is None else min(max(right, 0), cm)
            out.append(P.IntImm(max(hi - lo, 0), m.dtype))
            continue
        lo_e = P.Min(P.IntImm(max(left, 0), m.dtype), m, m.dtype)
        hi_e = m if right is None else P.Min(P.IntImm(max(right, 0), m.dtype), m, m.dtype)
        out.append(ctx.analyzer.simplify(P.Max(P.Sub(hi_e, lo_e, m.dtype),
                                               P.IntImm(0, m.dtype), m.dtype)))
    return out


def split_bounds(ios: int | tuple[int, ...], m: int, rule: str) -> list[tuple[int, int]]:
    """The [start, stop) ranges of the pieces of a dimension of length m (the run-time
    counterpart of SI-manip-split-2, -3)."""
    if isinstance(ios, int):
        seg = -(-m // ios)
        if (ios - 1) * seg > m:
            raise OpRuntimeError("shape_mismatch", f"cannot split a dimension of length {m} "
                                 f"into {ios} sections of length {seg}", rule=rule)
        cuts = [seg * i for i in range(1, ios)]
        starts = [0, *cuts]
        stops = [*cuts, m]
        return list(zip(starts, stops))
    clamped = [min(max(i, 0), m) for i in ios]
    starts = [0, *clamped]
    stops = [*clamped, m]
    return [(lo, lo + max(hi - lo, 0)) for lo, hi in zip(starts, stops)]


def compute_split(attrs, x: np.ndarray):
    ios = attrs.get("indices_or_sections")
    if ios == 1 or ios == ():
        return fresh(x)
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-manip-split-1",
                        check="shape_mismatch")
    pieces = []
    for lo, hi in split_bounds(ios, x.shape[axis], "EXEC-manip-split-1"):
        index = [slice(None)] * x.ndim
        index[axis] = slice(lo, hi)
        pieces.append(fresh(x[tuple(index)]))
    return tuple(pieces)


# -- broadcast_to --------------------------------------------------------------------------

def deduce_broadcast_to(ctx: DeduceContext) -> si.StructInfo:
    """broadcast_to(x, shape): the result has the target shape (SI-manip-bcast-1). The
    target has at least x's ndim (SI-manip-bcast-2); aligned from the right, each of
    x's dimensions is 1 or equals the target's: a provable mismatch is an error
    (SI-manip-bcast-3), an unprovable one is checked at run time (EXEC-manip-bcast-1)."""
    x = tensor_arg(ctx, 0)
    target = shape_operand(ctx, 1)
    if x.ndim >= 0 and target.ndim >= 0 and target.ndim < x.ndim:
        raise ctx.error(f"cannot broadcast a tensor of {x.ndim} dimensions to a shape of "
                        f"{target.ndim}", rule="SI-manip-bcast-2")
    if target.values is None:
        return unknown_tensor(x, target.ndim)
    values = tuple(target.values)
    for v in values:
        c = int_const(v)
        if c is not None and c < 0:
            raise ctx.error(f"target dimensions must be non-negative, found {c}",
                            rule="SI-manip-bcast-1")
    if x.shape is not None:
        for k in range(1, len(x.shape) + 1):
            old, new = x.shape[-k], values[-k]
            if int_const(old) == 1:
                continue
            if provably_ne(ctx, old, new):
                raise ctx.error(f"cannot broadcast {_shape_text(x.shape)} to "
                                f"{_shape_text(values)}: dimension {len(values) - k} is "
                                f"{expr_text(new)} but the tensor's is {expr_text(old)}",
                                rule="SI-manip-bcast-3")
    return si.TensorStructInfo(values, x.dtype, vdevice=x.vdevice)


def compute_broadcast_to(attrs, x: np.ndarray, shape: ShapeValue) -> np.ndarray:
    dims = tuple(int(d) for d in shape)
    rule = "EXEC-manip-bcast-1"
    if any(d < 0 for d in dims):
        raise OpRuntimeError("invalid_value", f"invalid target shape {dims}", rule=rule)
    if len(dims) < x.ndim:
        raise OpRuntimeError("shape_mismatch", f"cannot broadcast a tensor of shape "
                             f"{tuple(x.shape)} to {dims}", rule=rule)
    for k in range(1, x.ndim + 1):
        if x.shape[-k] != 1 and x.shape[-k] != dims[-k]:
            raise OpRuntimeError("shape_mismatch", f"cannot broadcast a tensor of shape "
                                 f"{tuple(x.shape)} to {dims}", rule=rule)
    return fresh(np.broadcast_to(x, dims))


# -- repeat, tile, flip ----------------------------------------------------------------------

def deduce_repeat(ctx: DeduceContext) -> si.StructInfo:
    """repeat(x, repeats, axis): each element repeated ``repeats`` times along ``axis``
    (that dimension is multiplied by ``repeats``), or along the flattened tensor when
    ``axis`` is None (SI-manip-repeat-1). ``repeats`` is non-negative
    (SI-manip-repeat-2)."""
    x = tensor_arg(ctx, 0)
    repeats, axis = ctx.attr("repeats"), ctx.attr("axis")
    if repeats < 0:
        raise ctx.error(f"repeats must be non-negative, found {repeats}",
                        rule="SI-manip-repeat-2")
    if axis is not None and x.ndim >= 0:
        axis = normalize_axis(ctx, axis, x.ndim)
    if x.shape is None:
        if axis is None:
            return unknown_tensor(x, 1)
        return same_as(x) if repeats == 1 else unknown_tensor(x, x.ndim)
    r = P.IntImm(repeats, INT64)
    if axis is None:
        return si.TensorStructInfo((ctx.analyzer.simplify(P.Mul(shape_product(x.shape), r,
                                                                INT64)),),
                                   x.dtype, vdevice=x.vdevice)
    d = x.shape[axis]
    shape = x.shape[:axis] + (ctx.analyzer.simplify(P.Mul(d, r, d.dtype)),) + x.shape[axis + 1:]
    return si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice)


def compute_repeat(attrs, x: np.ndarray) -> np.ndarray:
    axis = attrs.get("axis")
    if axis is None:
        return fresh(np.repeat(x.reshape(-1), attrs.get("repeats")))
    axis = runtime_axis(axis, x.ndim, "EXEC-manip-repeat-1", check="shape_mismatch")
    return fresh(np.repeat(x, attrs.get("repeats"), axis=axis))


def deduce_tile(ctx: DeduceContext) -> si.StructInfo:
    """tile(x, repeats): NumPy's tile. With l = len(repeats) and d = ndim, the result
    has max(l, d) dimensions; the shorter of shape and repeats is padded with leading
    1s, and dimension i is ``shape[i] * repeats[i]`` (SI-manip-tile-1). Repeats are
    non-negative (SI-manip-tile-2)."""
    x = tensor_arg(ctx, 0)
    repeats = ctx.attr("repeats")
    if any(r < 0 for r in repeats):
        raise ctx.error(f"repeats must be non-negative, found {list(repeats)}",
                        rule="SI-manip-tile-2")
    l, ndim = len(repeats), x.ndim
    if x.shape is None:
        if ndim < 0:
            return unknown_tensor(x)
        if l > ndim:
            return unknown_tensor(x, l)
        return same_as(x) if all(r == 1 for r in repeats) else unknown_tensor(x, ndim)
    out_ndim = max(l, ndim)
    dims = (P.IntImm(1, INT64),) * (out_ndim - ndim) + tuple(x.shape)
    reps = (1,) * (out_ndim - l) + tuple(repeats)
    shape = []
    for i, (d, r) in enumerate(zip(dims, reps)):
        if i < out_ndim - ndim:
            shape.append(P.IntImm(r, INT64))
        elif i < out_ndim - l:
            shape.append(d)
        else:
            shape.append(ctx.analyzer.simplify(P.Mul(d, P.IntImm(r, d.dtype), d.dtype)))
    return si.TensorStructInfo(tuple(shape), x.dtype, vdevice=x.vdevice)


def compute_tile(attrs, x: np.ndarray) -> np.ndarray:
    return fresh(np.tile(x, attrs.get("repeats")))


def deduce_flip(ctx: DeduceContext) -> si.StructInfo:
    """flip(x, axis): x's struct info; ``axis`` must be in range (SI-op-axis-1)."""
    x = tensor_arg(ctx, 0)
    if x.ndim >= 0:
        normalize_axis(ctx, ctx.attr("axis"), x.ndim)
    return same_as(x)


def compute_flip(attrs, x: np.ndarray) -> np.ndarray:
    axis = runtime_axis(attrs.get("axis"), x.ndim, "EXEC-manip-flip-1", check="shape_mismatch")
    return fresh(np.flip(x, axis=axis))


# -- shape_of, tensor_to_shape, shape_to_tensor -------------------------------------------------

def deduce_shape_of(ctx: DeduceContext) -> si.StructInfo:
    """shape_of(x): the shape of tensor x, with its values when known, else its ndim
    (SI-manip-shape-of-1)."""
    x = tensor_arg(ctx, 0)
    if x.shape is not None:
        return si.ShapeStructInfo(tuple(x.shape))
    return si.ShapeStructInfo(None, x.ndim)


def compute_shape_of(attrs, x: np.ndarray) -> ShapeValue:
    return ShapeValue(tuple(int(d) for d in x.shape))


_TENSOR_TO_SHAPE_DTYPES = ("int16", "int32", "int64")


def deduce_tensor_to_shape(ctx: DeduceContext) -> si.StructInfo:
    """tensor_to_shape(x): a 1-d tensor of int16/int32/int64 becomes a shape with one
    dimension per element (SI-manip-t2s-1, -2); its ndim is known when x's length is a
    constant."""
    x = tensor_arg(ctx, 0)
    if x.ndim != 1:
        raise ctx.error(f"needs a 1-d tensor, found {describe_sinfo(x)}",
                        rule="SI-manip-t2s-1")
    if not x.dtype.is_void and str(x.dtype) not in _TENSOR_TO_SHAPE_DTYPES:
        raise ctx.error(f"needs an int16, int32 or int64 tensor, found {x.dtype}",
                        rule="SI-manip-t2s-2")
    if x.shape is not None and int_const(x.shape[0]) is not None:
        return si.ShapeStructInfo(None, int_const(x.shape[0]))
    return si.ShapeStructInfo(None, si.UNKNOWN_NDIM)


def compute_tensor_to_shape(attrs, x: np.ndarray) -> ShapeValue:
    rule = "EXEC-manip-t2s-1"
    if x.ndim != 1 or x.dtype not in (np.int16, np.int32, np.int64):
        raise OpRuntimeError("invalid_value", f"needs a 1-d int16/int32/int64 tensor, found "
                             f"shape {tuple(x.shape)} of {x.dtype}", rule=rule)
    dims = tuple(int(v) for v in x)
    if any(d < 0 for d in dims):
        raise OpRuntimeError("invalid_value", f"shape dimensions must be non-negative, "
                             f"found {list(dims)}", rule=rule)
    return ShapeValue(dims)


def deduce_shape_to_tensor(ctx: DeduceContext) -> si.StructInfo:
    """shape_to_tensor(s): a 1-d int64 tensor with one element per dimension of s
    (SI-manip-s2t-1)."""
    s = shape_operand(ctx, 0)
    if s.ndim < 0:
        return si.TensorStructInfo(None, INT64, 1)
    return si.TensorStructInfo((P.IntImm(s.ndim, INT64),), INT64)


def compute_shape_to_tensor(attrs, s: ShapeValue) -> np.ndarray:
    return np.array([int(d) for d in s], dtype=np.int64).reshape(len(s))


# -- text for messages -----------------------------------------------------------------------

def _shape_text(dims: Sequence[P.PrimExpr]) -> str:
    inner = ", ".join(expr_text(d) for d in dims)
    return f"shape ({inner}{',' if len(dims) == 1 else ''})"


# -- registration ----------------------------------------------------------------------------

def _op(name, operands, attrs=(), **kwargs) -> OpDef:
    return OpDef(name, operands, attrs, family=FAMILY, **kwargs)


def _register_all() -> None:
    x = Operand("x")
    ops = [
        _op("relax.reshape", (x, Operand("shape", "shape")), deduce=deduce_reshape,
              compute=compute_reshape, spec_rule="SI-manip-reshape-1",
              legalize=lowering.legalize_reshape,
              finalize=finalize_reshape),
        _op("relax.permute_dims", (x,), (Attr("axes", None, to_opt_int_tuple),),
              deduce=deduce_permute_dims, compute=compute_permute_dims,
              spec_rule="SI-manip-permute-1", legalize=lowering.legalize_permute_dims),
        _op("relax.expand_dims", (x,), (Attr("axis", convert=to_int_tuple),),
              deduce=deduce_expand_dims, compute=compute_expand_dims,
              spec_rule="SI-manip-expand-1", legalize=lowering.legalize_expand_dims),
        _op("relax.squeeze", (x,), (Attr("axis", None, to_opt_int_tuple),),
              deduce=deduce_squeeze, compute=compute_squeeze, spec_rule="SI-manip-squeeze-1",
              legalize=lowering.legalize_squeeze),
        _op("relax.flatten", (x,), deduce=deduce_flatten, compute=compute_flatten,
              spec_rule="SI-manip-flatten-1", legalize=lowering.legalize_flatten),
        _op("relax.concat", (Operand("tensors", "tuple"),), (Attr("axis", 0, to_opt_int),),
              deduce=deduce_concat, compute=compute_concat, spec_rule="SI-manip-concat-1",
              legalize=lowering.legalize_concat),
        _op("relax.split", (x,), (Attr("indices_or_sections", convert=to_indices_or_sections),
                                    Attr("axis", 0, to_int)),
              deduce=deduce_split, compute=compute_split, spec_rule="SI-manip-split-1",
              legalize=lowering.legalize_split),
        _op("relax.broadcast_to", (x, Operand("shape", "shape")),
              deduce=deduce_broadcast_to, compute=compute_broadcast_to,
              spec_rule="SI-manip-bcast-1", legalize=lowering.legalize_broadcast_to),
        _op("relax.repeat", (Operand("data"),),
              (Attr("repeats", convert=to_int), Attr("axis", None, to_opt_int)),
              deduce=deduce_repeat, compute=compute_repeat, spec_rule="SI-manip-repeat-1",
              legalize=lowering.legalize_repeat),
        _op("relax.tile", (Operand("data"),), (Attr("repeats", convert=to_int_tuple),),
              deduce=deduce_tile, compute=compute_tile, spec_rule="SI-manip-tile-1",
              legalize=lowering.legalize_tile),
        _op("relax.flip", (Operand("data"),), (Attr("axis", convert=to_int),),
              deduce=deduce_flip, compute=compute_flip, spec_rule="SI-manip-flip-1",
              legalize=lowering.legalize_flip),
        _op("relax.shape_of", (Operand("expr"),), deduce=deduce_shape_of,
              compute=compute_shape_of, spec_rule="SI-manip-shape-of-1"),
        _op("relax.tensor_to_shape", (Operand("expr"),), deduce=deduce_tensor_to_shape,
              compute=compute_tensor_to_shape, spec_rule="SI-manip-t2s-1"),
        _op("relax.shape_to_tensor", (Operand("expr", "shape"),),
              deduce=deduce_shape_to_tensor, compute=compute_shape_to_tensor,
              spec_rule="SI-manip-s2t-1", legalize=lowering.legalize_shape_to_tensor),
    ]
    for op in ops:
        register(op)


_register_all()
