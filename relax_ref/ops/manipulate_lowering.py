"""Lowerings of the manipulation ops to tensor programs (spec/ops/manipulate.md
"Lowering", TE-leg-manip-*): the ``legalize=`` functions ``manipulate.py`` registers.

Every lowering is one PrimFunc of ``te.compute`` stages whose element formula reads the
input at an index computed from the output's index (no data moves but the copy), named
as TVM's TOPI names them (``T_reshape``, ``T_transpose``, ``T_concat``, ...). A run-time
check of the op that the formula cannot reproduce (an element count, a length 1, a
broadcast dimension) emits nothing when provable at compile time and is otherwise the
PrimFunc's guard, with the op's check kind (TE-leg-7); a negative result dimension (a
split's last length) traps where the lowered call allocates its result. A lowering
never computes something else where the op would have trapped.
"""
from __future__ import annotations

from typing import Sequence

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.te.legalize import provable

from .common import fold_add, fold_mul, int_const, shape_product


# -- shared helpers --------------------------------------------------------------------------

def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, INT64)


def _is_const(e: P.PrimExpr, value: int) -> bool:
    return int_const(e) == value


def _norm_axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def linear_index(idx: Sequence[P.PrimExpr], shape: Sequence[P.PrimExpr]) -> P.PrimExpr:
    """The row-major position of ``idx`` in a tensor of ``shape``."""
    out: P.PrimExpr = _i64(0)
    for i, d in zip(idx, shape):
        out = fold_add(fold_mul(out, d), i)
    return out


def unravel(flat: P.PrimExpr, shape: Sequence[P.PrimExpr]) -> tuple[P.PrimExpr, ...]:
    """The index of row-major position ``flat`` in a tensor of ``shape`` (TE-leg-manip-1).
    The first dimension takes no ``% d``: a position inside the tensor needs none, and
    only positions inside are asked for (an element exists only when every dimension is
    non-zero, so no ``% 0`` or ``// 0`` is evaluated)."""
    out: list[P.PrimExpr] = []
    stride: P.PrimExpr = _i64(1)
    for k in range(len(shape) - 1, -1, -1):
        q = flat if _is_const(stride, 1) else P.FloorDiv(flat, stride, INT64)
        if k > 0 and not _is_const(shape[k], 1):
            q = P.FloorMod(q, shape[k], INT64)
        elif k > 0:
            q = _i64(0)
        out.append(q)
        stride = fold_mul(stride, shape[k])
    return tuple(reversed(out))


def _copy(ctx, x: te.Tensor, name: str, stage: str = "T_copy"):
    out = te.compute(x.shape, lambda *i: x[i], name=stage, axis_prefix="ax")
    return ctx.call_te(out, name)


def _result_tensor(ctx) -> tuple[P.PrimExpr, ...]:
    if not isinstance(ctx.result_sinfo, si.TensorStructInfo):
        raise ctx.decline("the result is not a tensor of known shape")
    return ctx.result_shape()


# -- reshape, flatten --------------------------------------------------------------------------

def reshape_stage(ctx, x: te.Tensor, out_shape: Sequence[P.PrimExpr]) -> te.Tensor:
    """``T_reshape``: the element at the output's row-major position ``l`` is x's at
    position ``l`` (TE-leg-manip-1). Element counts not provably equal are the
    PrimFunc's guard (the op's ``shape_mismatch``, EXEC-manip-reshape-1); a negative
    target dimension traps where the result is allocated (TE-leg-7)."""
    old, new = shape_product(x.shape), shape_product(out_shape)
    if not provable(P.EQ(old, new, BOOL)):
        ctx.require(P.EQ(old, new, BOOL), "shape_mismatch",
                    f"the element counts {ctx.show(old)} and {ctx.show(new)} must be equal")
    return te.compute(out_shape, lambda *i: x[unravel(linear_index(i, out_shape), x.shape)],
                      name="T_reshape", axis_prefix="ax")


def legalize_reshape(ctx):
    x = ctx.tensor(0)
    return ctx.call_te(reshape_stage(ctx, x, _result_tensor(ctx)), "reshape")


def legalize_flatten(ctx):
    """flatten is a reshape to one dimension; TVM names its PrimFunc ``reshape``."""
    x = ctx.tensor(0)
    return ctx.call_te(reshape_stage(ctx, x, _result_tensor(ctx)), "reshape")


# -- permute_dims, expand_dims, squeeze, flip ----------------------------------------------

def legalize_permute_dims(ctx):
    """``T_transpose[i] = x[j]`` with ``j[axes[k]] = i[k]`` (TE-leg-manip-2)."""
    x = ctx.tensor(0)
    axes = ctx.attr("axes")
    perm = (list(range(x.ndim))[::-1] if axes is None
            else [_norm_axis(a, x.ndim) for a in axes])
    inverse = [0] * x.ndim
    for k, a in enumerate(perm):
        inverse[a] = k
    out = te.compute(_result_tensor(ctx), lambda *i: x[tuple(i[inverse[d]]
                                                             for d in range(x.ndim))],
                     name="T_transpose", axis_prefix="ax")
    return ctx.call_te(out, "transpose")


def legalize_expand_dims(ctx):
    """``expand_dims[i] = x[i without the new axes]`` (TE-leg-manip-2)."""
    x = ctx.tensor(0)
    out_shape = _result_tensor(ctx)
    new = {_norm_axis(a, len(out_shape)) for a in ctx.attr("axis") or ()}
    keep = [d for d in range(len(out_shape)) if d not in new]
    out = te.compute(out_shape, lambda *i: x[tuple(i[d] for d in keep)],
                     name="expand_dims", axis_prefix="i")
    return ctx.call_te(out, "expand_dims")


def legalize_squeeze(ctx):
    """``T_squeeze[i] = x[i with 0 at the removed axes]``; a removed axis not provably
    of length 1 is the PrimFunc's guard (the op's ``shape_mismatch``,
    EXEC-manip-squeeze-1)."""
    x = ctx.tensor(0)
    axis = ctx.attr("axis")
    if axis is None:
        removed = {d for d, n in enumerate(x.shape) if _is_const(n, 1)}
    else:
        removed = {_norm_axis(a, x.ndim) for a in axis}
    for d in removed:
        if not provable(P.EQ(x.shape[d], _i64(1), BOOL)):
            ctx.require(P.EQ(x.shape[d], _i64(1), BOOL), "shape_mismatch",
                        f"axis {d} of length {ctx.show(x.shape[d])} must be of length 1")

    def formula(*i):
        it = iter(i)
        return x[tuple(_i64(0) if d in removed else next(it) for d in range(x.ndim))]
    out = te.compute(_result_tensor(ctx), formula, name="T_squeeze", axis_prefix="ax")
    return ctx.call_te(out, "squeeze")


def legalize_flip(ctx):
    """``T_reverse_sequence[i] = x[i with n - 1 - i[axis] on the axis]``."""
    x = ctx.tensor(0)
    axis = _norm_axis(ctx.attr("axis"), x.ndim)
    last = P.Sub(x.shape[axis], _i64(1), INT64)

    def formula(*i):
        return x[tuple(P.Sub(last, i[d], INT64) if d == axis else i[d]
                       for d in range(x.ndim))]
    out = te.compute(x.shape, formula, name="T_reverse_sequence", axis_prefix="ax")
    return ctx.call_te(out, "flip")


# -- concat, split -------------------------------------------------------------------------

def legalize_concat(ctx):
    """``T_concat``: along the axis, position ``p`` reads tensor ``k`` at ``p - o_k``
    for the last ``k`` whose offset ``o_k`` (the sum of the earlier lengths) is at most
    ``p`` (TE-leg-manip-3), chosen by nested ``if_then_else`` so no other tensor is
    read. The result's shape was deduced, so the other dimensions are provably equal."""
    tensors = ctx.tuple_tensors(0)
    out_shape = _result_tensor(ctx)
    axis_attr = ctx.attr("axis")
    axis = 0 if axis_attr is None else _norm_axis(axis_attr, len(out_shape))
    offsets: list[P.PrimExpr] = [_i64(0)]
    for t in tensors[:-1]:
        offsets.append(fold_add(offsets[-1], t.shape[axis]))

    def read(k, i):
        pos = i[axis] if _is_const(offsets[k], 0) else P.Sub(i[axis], offsets[k], INT64)
        return tensors[k][tuple(pos if d == axis else i[d] for d in range(len(i)))]

    def formula(*i):
        value = read(len(tensors) - 1, i)
        for k in range(len(tensors) - 2, -1, -1):
            value = te.if_then_else(P.LT(i[axis], offsets[k + 1], BOOL), read(k, i), value)
        return value
    out = te.compute(out_shape, formula, name="T_concat", axis_prefix="ax")
    return ctx.call_te(out, "concatenate")


def legalize_split(ctx):
    """One PrimFunc with one output per piece (TE-leg-manip-4): piece ``p`` along the
    axis starts at ``p * ceildiv(m, k)`` (k sections) or at ``clamp(index, 0, m)``
    (indices); its length is the deduced one. A section split's last length is
    negative exactly where the op traps (``shape_mismatch``, EXEC-manip-split-1), and
    the lowered call traps there too, allocating that piece (TE-leg-7); an index
    split's lengths are never negative (SI-manip-split-3)."""
    x = ctx.tensor(0)
    ios = ctx.attr("indices_or_sections")
    if isinstance(ctx.result_sinfo, si.TensorStructInfo):  # one piece: x itself
        return _copy(ctx, x, "split", "T_split")
    axis = _norm_axis(ctx.attr("axis"), x.ndim)
    m = x.shape[axis]
    count = len(ctx.result_sinfo.fields)
    if isinstance(ios, int):
        seg = P.FloorDiv(P.Add(m, _i64(ios - 1), INT64), _i64(ios), INT64)
        starts = [fold_mul(seg, _i64(p)) for p in range(count)]
        stage = "T_split_sections"
    else:
        starts = [_i64(0)] + [_clamp_index(v, m) for v in ios]
        stage = "T_split"
    outs = []
    for p in range(count):
        shape = ctx.result_shape(p)
        if not isinstance(ios, int) and not provable(P.GE(shape[axis], _i64(0), BOOL)):
            raise ctx.decline(f"piece {p}'s length is not provably non-negative")
        start = starts[p]

        def formula(*i, start=start):
            return x[tuple(fold_add(i[d], start) if d == axis else i[d]
                           for d in range(x.ndim))]
        outs.append(te.compute(shape, formula, name=stage if p == 0 else f"{stage}_{p}",
                               axis_prefix="ax"))
    return ctx.call_te(outs, "split")


def _clamp_index(v: int, m: P.PrimExpr) -> P.PrimExpr:
    """``clamp(v, 0, m)`` for a constant ``v`` (split_bounds' rule)."""
    if v <= 0:
        return _i64(0)
    cm = int_const(m)
    return _i64(min(v, cm)) if cm is not None else P.Min(_i64(v), m, INT64)


# -- broadcast_to, repeat, tile --------------------------------------------------------------

def legalize_broadcast_to(ctx):
    """``T_broadcast_to``: aligned at the right, each dimension of x is read as
    ``ctx.broadcast`` reads it (TE-leg-manip-5, TE-leg-3): at 0 where provably 1, at the
    output's index where provably the target's, else the PrimFunc checks that it is one
    of the two (the op's ``shape_mismatch``, EXEC-manip-bcast-1) and reads at
    ``T.Select(d == 1, 0, i)``. A negative target dimension traps where the result is
    allocated (the op's ``invalid_value``, TE-leg-7)."""
    x = ctx.tensor(0)
    out_shape = _result_tensor(ctx)
    out = te.compute(out_shape, lambda *i: ctx.broadcast(x, out_shape, i),
                     name="T_broadcast_to", axis_prefix="ax")
    return ctx.call_te(out, "broadcast_to")


def legalize_repeat(ctx):
    """``T_repeat``: output position ``i`` along the axis reads x at ``i // repeats``;
    with ``axis=None`` the flattened x is read at ``l // repeats`` (TE-leg-manip-6)."""
    x = ctx.tensor(0)
    # repeats = 0 gives an empty result whose formula never runs; ``// 0`` in the text
    # would still stop TVM's parser, so the formula divides by 1 then.
    r = _i64(max(1, ctx.attr("repeats")))
    axis = ctx.attr("axis")
    out_shape = _result_tensor(ctx)
    if axis is None:
        def formula(i):
            return x[unravel(P.FloorDiv(i, r, INT64), x.shape)]
    else:
        axis = _norm_axis(axis, x.ndim)

        def formula(*i):
            return x[tuple(P.FloorDiv(i[d], r, INT64) if d == axis else i[d]
                           for d in range(x.ndim))]
    out = te.compute(out_shape, formula, name="T_repeat", axis_prefix="ax")
    return ctx.call_te(out, "repeat")


def legalize_tile(ctx):
    """``T_tile``: x (its shape padded with leading 1s) is read at ``i % d`` in each
    dimension ``d`` repeated more than once, at ``i`` where it is not
    (TE-leg-manip-6). An element exists only where every ``d`` is non-zero."""
    x = ctx.tensor(0)
    repeats = list(ctx.attr("repeats"))
    out_shape = _result_tensor(ctx)
    lead = len(out_shape) - x.ndim
    reps = [1] * (len(out_shape) - len(repeats)) + repeats

    def formula(*i):
        index = []
        for d, dim in enumerate(x.shape):
            k = lead + d
            if _is_const(dim, 1):
                index.append(_i64(0))
            elif reps[k] == 1:
                index.append(i[k])
            else:
                index.append(P.FloorMod(i[k], dim, INT64))
        return x[tuple(index)]
    out = te.compute(out_shape, formula, name="T_tile", axis_prefix="ax")
    return ctx.call_te(out, "tile")


# -- shape_to_tensor ---------------------------------------------------------------------------

def legalize_shape_to_tensor(ctx):
    """``shape_to_tensor[i]`` is dimension ``i`` of the shape, a chain of
    ``if_then_else`` over ``i`` (TE-leg-manip-7). The op's shape operand traps on a
    negative dimension (EXEC-sym-1) and the lowered call does not evaluate it, so a
    dimension that is not provably non-negative from the sizes (TE-leg-4) is the
    PrimFunc's guard ``d >= 0`` (TE-leg-manip-8). A shape of unknown values is
    ``relax.run.shape_to_tensor``, as TVM 0.27 lowers it (TE-leg-5)."""
    s = ctx.arg_sinfo[0]
    if isinstance(s, si.ShapeStructInfo) and s.values is None:
        return ctx.call_packed("relax.run.shape_to_tensor", ctx.args[0])
    dims = ctx.shape(0)
    for d in dims:
        sizes = [v for v in P.free_vars(d) if ctx.is_size(v)]
        if not provable(P.GE(d, _i64(0), BOOL), nonneg=sizes):
            ctx.require(P.GE(d, _i64(0), BOOL), "shape_mismatch",
                        f"the shape's dimension {ctx.show(d)} must not be negative")

    def formula(i):
        value: P.PrimExpr = _i64(0)
        for k in range(len(dims) - 1, -1, -1):
            value = te.if_then_else(P.EQ(i, _i64(k), BOOL), te.cast(INT64, dims[k]), value)
        return value
    out = te.compute((len(dims),), formula, name="shape_to_tensor")
    return ctx.call_te(out, "shape_to_tensor")
