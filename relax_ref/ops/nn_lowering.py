"""Lowerings of the ``R.nn`` window ops (spec/ops/nn.md "Lowering", TE-leg-nn-*):
convolutions, pools, ``pad`` and ``dropout``, written with ``te/``. ``nn.py`` attaches
them to its OpDefs (this module imports ``nn``'s layout pieces lazily, as ``nn`` imports
it while registering); the normalizations and attention lower in their own modules.

Layouts are handled by letters: an operand's element for the canonical indices
(``N, C, H, W`` ...) is read at the positions its layout string gives those letters, and
the output is computed directly in ``out_layout``, so no transpose stage is needed.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir.dtype import BOOL, FLOAT32, INT64, DataType
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import CONV_LAYOUTS, conv_accumulator, layout_letters, lowest_value, same_expr


# -- small index helpers ----------------------------------------------------------------------

def _i64(v) -> P.PrimExpr:
    return v if isinstance(v, P.PrimExpr) else P.IntImm(int(v), INT64)


def _is_const(e, value: int) -> bool:
    return isinstance(e, int) and e == value or isinstance(e, P.IntImm) and e.value == value


def add(a, b) -> P.PrimExpr:
    """``a + b`` on int64 indices, without a ``+ 0`` (axis forms stay axis forms, so the
    vectorized path reads views)."""
    if _is_const(b, 0):
        return _i64(a)
    if _is_const(a, 0):
        return _i64(b)
    if isinstance(b, int) and b < 0:
        return P.Sub(_i64(a), _i64(-b), INT64)
    return P.Add(_i64(a), _i64(b), INT64)


def mul(a, c) -> P.PrimExpr:
    """``a * c`` without a ``* 1``."""
    if _is_const(c, 1):
        return _i64(a)
    if _is_const(a, 1):
        return _i64(c)
    return P.Mul(_i64(a), _i64(c), INT64)


def lt(a, b) -> P.PrimExpr:
    return P.LT(_i64(a), _i64(b), BOOL)


def le(a, b) -> P.PrimExpr:
    return P.LE(_i64(a), _i64(b), BOOL)


def proved(cond: P.PrimExpr) -> bool:
    """Whether ``cond`` (over shape variables, assumed >= 0) holds for every value: the
    compile-time question a lowering asks before it relies on a run-time check of the op
    being unnecessary (else it declines, TE-leg-2)."""
    from relax_ref.solver.analyzer import Analyzer

    return Analyzer().can_prove(cond)


def proved_divides(total, part) -> bool:
    """``part > 0`` and ``total % part == 0`` for every value."""
    total, part = _i64(total), _i64(part)
    return proved(P.And(P.GT(part, _i64(0), BOOL),
                        P.EQ(P.FloorMod(total, part, INT64), _i64(0), BOOL), BOOL))


def at(letters: str, canon: dict[str, P.PrimExpr]) -> tuple[P.PrimExpr, ...]:
    """The index tuple of an operand of layout ``letters`` for indices given per letter."""
    return tuple(canon[c] for c in letters)


def by_letter(letters: str, values: Sequence) -> dict[str, object]:
    return {c: v for c, v in zip(letters, values)}


def conv_acc_dtype(dtype: DataType) -> DataType:
    """``nn.conv_accumulator`` as a TIR dtype."""
    return FLOAT32 if conv_accumulator(numpy_dtype(dtype)) != numpy_dtype(dtype) else dtype


def cast_stage(t: te.Tensor, dtype: DataType, name: str = "compute") -> te.Tensor:
    """``t`` converted to ``dtype`` (no stage when it already has it)."""
    if t.dtype == dtype:
        return t
    return te.compute(t.shape, lambda *i: te.cast(dtype, t[i]), name=name)


def zero_if_empty(t: te.Tensor, extents: Sequence[P.PrimExpr]) -> te.Tensor:
    """A sum over reduction axes of ``extents`` reads as 0 where one of them may be empty.
    A TIR block runs its ``T.init`` at its first reduction iteration, so over an empty
    axis it never runs and the output keeps what was there (poison); the semantics has
    0 (an empty sum). No stage when every extent is provably positive."""
    nonempty = te.all_of(*(P.GT(_i64(e), _i64(0), BOOL) for e in extents))
    if proved(nonempty):
        return t
    return te.compute(t.shape, lambda *i: te.if_then_else(
        nonempty, t[i], te.const(0, t.dtype)), name=f"{t.name}_or_zero", axis_prefix="ax")


def pad_stage(x: te.Tensor, letters: str, before: dict[str, int], after: dict[str, int],
              value: P.PrimExpr, name: str = "pad_temp") -> te.Tensor:
    """``x`` (layout ``letters``) padded on the axes of ``before``/``after`` with
    ``value``; the border is a lazy ``if_then_else``, so nothing outside ``x`` is read.
    No stage when nothing is padded."""
    if not any(before.values()) and not any(after.values()):
        return x
    shape = [add(d, before.get(c, 0) + after.get(c, 0)) for c, d in zip(letters, x.shape)]

    def formula(*idx):
        conds, src = [], []
        for c, i, d in zip(letters, idx, x.shape):
            b, a = before.get(c, 0), after.get(c, 0)
            conds += ([le(b, i)] if b else []) + ([lt(i, add(d, b))] if a else [])
            src.append(add(i, -b))
        return te.if_then_else(te.all_of(*conds), x[tuple(src)], value)
    return te.compute(shape, formula, name=name)


# -- convolutions (TE-leg-nn-3) -------------------------------------------------------------

def legalize_conv(ctx, nsp: int):
    """conv1d/conv2d: ``pad_temp`` (the data padded with zeros, in the data layout), then
    one reduction over the group's input channels and the kernel window, computed in
    ``out_layout``. Operands are cast to the accumulation dtype inside the sum (the
    output dtype; float32 for 16-bit floats, then a cast stage)."""
    sp = CONV_LAYOUTS[nsp][0][2:]
    x, w = ctx.tensor(0, "data"), ctx.tensor(1, "weight")
    dl, kl, ol = ctx.attr("data_layout"), ctx.attr("kernel_layout"), ctx.attr("out_layout")
    if any(ch.isdigit() for ch in dl + kl + ol):
        raise ctx.decline("split layouts (NCHW4c) are not lowered (TE-leg-nn-3)")
    strides, padding, dilation = ctx.attr("strides"), ctx.attr("padding"), ctx.attr("dilation")
    groups = ctx.attr("groups")
    out_shape = ctx.result_shape()
    out_dtype = ctx.result_sinfo.dtype
    d = by_letter(dl, x.shape)
    k = by_letter(kl, w.shape)
    # EXEC-nn-conv-1's channel checks, where not proved, are the PrimFunc's first
    # statements (TE-leg-7); a negative output dimension (EXEC-nn-conv-2) traps where
    # the call allocates the result (EXEC-sym-1, CONF-pass-2).
    ctx.require_equal(d["C"], mul(k["I"], groups),
             "the data's channels and the kernel's input channels times groups")
    ctx.require_divides(k["O"], groups, "the kernel's output channels, split into groups")
    acc = conv_acc_dtype(out_dtype)
    pad = pad_stage(x, dl, by_letter(sp, padding[:nsp]), by_letter(sp, padding[nsp:]),
                    te.const(0, x.dtype))
    rc = te.reduce_axis(k["I"], "rc")
    rk = [te.reduce_axis(k[c], f"r{c.lower()}") for c in sp]
    name = f"conv{nsp}d_{ol.lower()}"

    def conv_sum(n, g, o, spatial):
        """The sum for batch n, output channel o of group g (None: groups == 1)."""
        xi = {"N": n, "C": rc.var if g is None else add(mul(g, k["I"]), rc.var)}
        wi = {"O": o, "I": rc.var}
        for c, r, s, dil, y in zip(sp, rk, strides, dilation, spatial):
            xi[c] = add(mul(y, s), mul(r.var, dil))
            wi[c] = r.var
        return te.sum(te.cast(acc, pad[at(dl, xi)]) * te.cast(acc, w[at(kl, wi)]),
                      axis=[rc, *rk])

    if groups == 1:
        def formula(*idx):
            o = by_letter(ol, idx)
            return conv_sum(o["N"], None, o["C"], [o[c] for c in sp])
        out = te.compute(out_shape, formula, name=name, axis_prefix="ax")
        out = zero_if_empty(out, [k["I"], *(k[c] for c in sp)])
        return ctx.call_te(cast_stage(out, out_dtype), f"conv{nsp}d")
    # Grouped: the sum over (N, G, O / G, spatial...), where every index is affine (the
    # vectorized path contracts it, batched over the groups), then the output in
    # out_layout reads channel o at (o // (O / G), o % (O / G)).
    per_group = _const_div(k["O"], groups)
    o_pos = {c: ol.index(c) for c in ol}
    grouped_shape = [out_shape[o_pos["N"]], _i64(groups), per_group] + \
        [out_shape[o_pos[c]] for c in sp]
    grouped = te.compute(grouped_shape, lambda n, g, og, *y: conv_sum(
        n, g, add(mul(g, per_group), og), y), name=f"{name}_grouped", axis_prefix="ax")
    grouped = zero_if_empty(grouped, [k["I"], *(k[c] for c in sp)])

    def place(*idx):
        o = by_letter(ol, idx)
        g = P.FloorDiv(o["C"], per_group, INT64)
        og = P.FloorMod(o["C"], per_group, INT64)
        return te.cast(out_dtype, grouped[(o["N"], g, og, *(o[c] for c in sp))])
    return ctx.call_te(te.compute(out_shape, place, name=name, axis_prefix="ax"),
                       f"conv{nsp}d")


def _const_div(a: P.PrimExpr, b: int) -> P.PrimExpr:
    """``a // b``, folded when ``a`` is a constant."""
    if isinstance(a, P.IntImm):
        return _i64(a.value // b)
    return P.FloorDiv(a, _i64(b), INT64)


# -- pools (TE-leg-nn-4, TE-leg-nn-5) ----------------------------------------------------------------

def _pool_frame(ctx):
    """The data, its layout letters and the output's, and the output shape. A pooled
    size that is negative at run time (EXEC-nn-pool-1's only check, raised exactly when
    a deduced output dimension is negative) traps where the call allocates the result
    (EXEC-sym-1, CONF-pass-2), so it needs no guard."""
    x = ctx.tensor(0, "data")
    layout, out_layout = ctx.attr("layout"), ctx.attr("out_layout")
    letters, out_letters = layout_letters(layout), layout_letters(out_layout)
    return x, letters, out_letters, ctx.result_shape()


def legalize_pool(ctx, kind: str, nsp: int):
    """max/avg_pool{1,2,3}d: ``pad_temp`` (padding: the lowest finite value for max, zero
    for avg; ceil mode adds ``stride - 1`` trailing cells as EXEC-nn-pool-1), a max or
    sum reduction over the window, then for avg the division by the EXEC-nn-pool-2
    count and for float max the NaN fix-up (TE-leg-nn-4)."""
    x, letters, out_letters, out_shape = _pool_frame(ctx)
    sp = CONV_LAYOUTS[nsp][0][2:]
    pool, strides = ctx.attr("pool_size"), ctx.attr("strides")
    padding, dilation, ceil = ctx.attr("padding"), ctx.attr("dilation"), ctx.attr("ceil_mode")
    npdt = numpy_dtype(x.dtype)
    extra = [s - 1 if ceil else 0 for s in strides]
    pad_value = lowest_value(npdt) if kind == "max" else 0
    pad_value = pad_value.item() if hasattr(pad_value, "item") else pad_value
    padded = pad_stage(x, letters, {c: padding[a] for a, c in enumerate(sp)},
                       {c: padding[a + nsp] + extra[a] for a, c in enumerate(sp)},
                       te.const(pad_value, x.dtype))
    axes = [te.reduce_axis(pool[a], f"rv{a}") for a in range(nsp)]

    def window(idx, axes=axes):
        o = by_letter(out_letters, idx)
        src = dict(o)
        for a, c in enumerate(sp):
            src[c] = add(mul(o[c], strides[a]), mul(axes[a].var, dilation[a]))
        return padded[at(letters, src)]

    if kind == "max":
        out = te.compute(out_shape, lambda *i: te.max(window(i), axis=axes),
                         name="pool_max", axis_prefix="ax")
        if x.dtype.is_float:
            out = _propagate_nan(out, window, pool, out_shape)
        return ctx.call_te(out, f"max_pool{nsp}d")
    total = te.compute(out_shape, lambda *i: te.sum(window(i), axis=axes),
                       name="pool_sum", axis_prefix="ax")
    sizes = {c: x.shape[letters.index(c)] for c in sp}
    include = ctx.attr("count_include_pad")

    def count(o, c, a):
        start = add(mul(o, strides[a]), -padding[a])
        end = add(start, (pool[a] - 1) * dilation[a])
        if include:
            end = P.Min(end, add(sizes[c], padding[a + nsp] - 1), INT64)
            return add(_trunc_div(P.Sub(end, start, INT64), dilation[a]), 1)
        jumps = P.Max(_trunc_div(P.Sub(_i64(dilation[a] - 1), start, INT64), dilation[a]),
                      _i64(0), INT64)
        end = P.Min(end, add(sizes[c], -1), INT64)
        return add(_trunc_div(P.Sub(end, add(start, mul(jumps, dilation[a])), INT64),
                              dilation[a]), 1)

    def average(*idx):
        o = by_letter(out_letters, idx)
        n = count(o[sp[0]], sp[0], 0)
        for a in range(1, nsp):
            n = P.Mul(n, count(o[sp[a]], sp[a], a), INT64)
        if not include:
            n = P.Max(n, _i64(1), INT64)
        s = total[idx]
        if x.dtype.is_float:
            return te.div(s, te.cast(x.dtype, n))
        return te.cast(x.dtype, P.Div(te.cast(INT64, s), n, INT64))
    out = te.compute(out_shape, average, name="pool_avg", axis_prefix="ax")
    return ctx.call_te(out, f"avg_pool{nsp}d")


def _trunc_div(a: P.PrimExpr, b: int) -> P.PrimExpr:
    """Truncating division by a positive constant (``T.Div`` of integers)."""
    return a if b == 1 else P.Div(a, _i64(b), INT64)


def _propagate_nan(out: te.Tensor, window, extents, out_shape) -> te.Tensor:
    """NumPy's max propagates a NaN; TIR's ``max(a, b)`` is ``a > b ? a : b``, which
    drops a NaN met before the last element. A second reduction finds the windows that
    hold a NaN and a last stage puts NaN there (each stage stays vectorizable)."""
    axes = [te.reduce_axis(e, f"rv{a}") for a, e in enumerate(extents)]
    flag = te.compute(out_shape, lambda *i: te.max(
        te.cast("int8", te.call_intrin("isnan", window(i, axes), dtype=BOOL)),
        axis=axes), name="pool_nan", axis_prefix="ax")
    nan = te.const(float("nan"), out.dtype)
    return te.compute(out_shape, lambda *i: te.select(
        P.NE(flag[i], te.const(0, "int8"), BOOL), nan, out[i]), name="pool_max_nan",
        axis_prefix="ax")


def legalize_adaptive_avg_pool(ctx, nsp: int):
    """Output cell ``i`` of an axis (input ``L``, output ``O``) sums the input over
    ``[floor(i*L/O), ceil((i+1)*L/O))`` (EXEC-nn-adaptive_pool-1): a sum over a fixed
    window of ``L // O + 2`` cells (at least the longest such range; 1 when ``O`` is
    ``L``) whose cells past the range add zero, then the division by the range's size."""
    x, letters, out_letters, out_shape = _pool_frame(ctx)
    sp = CONV_LAYOUTS[nsp][0][2:]
    sizes = {c: x.shape[letters.index(c)] for c in sp}
    outs = {c: out_shape[out_letters.index(c)] for c in sp}

    def bounds(i, c):
        size, o = sizes[c], outs[c]
        start = P.FloorDiv(P.Mul(i, size, INT64), o, INT64)
        end = P.FloorDiv(add(P.Mul(add(i, 1), size, INT64), add(o, -1)), o, INT64)
        return start, end

    def extent(c):
        if _is_const(outs[c], 0):
            return _i64(0)
        if same_expr(sizes[c], outs[c]):
            return _i64(1)
        return add(P.FloorDiv(sizes[c], outs[c], INT64), 2)
    axes = {c: te.reduce_axis(extent(c), f"rv{a}") for a, c in enumerate(sp)}

    def window_sum(*idx):
        o = by_letter(out_letters, idx)
        src, inside = dict(o), []
        for c in sp:
            lo, hi = bounds(o[c], c)
            src[c] = add(lo, axes[c].var)
            inside.append(lt(src[c], hi))
        return te.sum(te.if_then_else(te.all_of(*inside), x[at(letters, src)],
                                      te.const(0, x.dtype)), axis=list(axes.values()))
    total = te.compute(out_shape, window_sum, name="adaptive_pool_sum", axis_prefix="ax")

    def average(*idx):
        o = by_letter(out_letters, idx)
        n = None
        for c in sp:
            lo, hi = bounds(o[c], c)
            length = P.Sub(hi, lo, INT64)
            n = length if n is None else P.Mul(n, length, INT64)
        s = total[idx]
        if x.dtype.is_float:
            return te.div(s, te.cast(x.dtype, n))
        return te.cast(x.dtype, P.Div(te.cast(INT64, s), n, INT64))
    out = te.compute(out_shape, average, name="adaptive_pool_avg", axis_prefix="ax")
    return ctx.call_te(out, f"adaptive_avg_pool{nsp}d")


# -- pad and dropout (TE-leg-nn-6) ---------------------------------------------------------

def legalize_pad(ctx):
    """``constant``: ``pad_value`` (as NumPy converts it to the dtype) outside the input;
    the other modes read the input at topi's index maps, so an index outside an axis
    traps as the op does (EXEC-nn-pad-2). A ``pad_value`` that does not convert to the
    integer dtype exactly declines. A crop past the axis (EXEC-nn-pad-1's negative output
    length) traps where the call allocates the result (EXEC-sym-1, CONF-pass-2)."""
    x = ctx.tensor(0, "data")
    widths, mode = ctx.attr("pad_width"), ctx.attr("pad_mode")
    before, after = widths[0::2], widths[1::2]
    out_shape = ctx.result_shape()
    if mode == "constant":
        value = _pad_constant(ctx.attr("pad_value"), x.dtype)
        if value is None:
            raise ctx.decline("pad_value does not convert to the dtype exactly")

        def formula(*idx):
            conds, src = [], []
            for i, d, b, a in zip(idx, x.shape, before, after):
                # only a side that pads can be outside the input (a crop never is)
                j = add(i, -b)
                src.append(j)
                conds += ([le(b, i)] if b > 0 else []) + ([lt(j, d)] if a > 0 else [])
            return te.if_then_else(te.all_of(*conds), x[tuple(src)], value)
        return ctx.call_te(te.compute(out_shape, formula, name="T_pad", axis_prefix="ax"),
                           "pad")

    def index(i, d, b):
        j = add(i, -b)
        last = add(d, -1)
        if mode == "reflect":
            return P.Sub(last, _abs(P.Sub(last, _abs(j), INT64)), INT64)
        if mode == "replicate":
            return P.Min(P.Max(j, _i64(0), INT64), last, INT64)
        # circular: an empty axis reads index 0 of it (out of bounds, as the op traps)
        return P.FloorMod(j, P.Max(d, _i64(1), INT64), INT64)
    out = te.compute(out_shape, lambda *idx: x[tuple(index(i, d, b) for i, d, b in
                                                     zip(idx, x.shape, before))],
                     name="T_pad", axis_prefix="ax")
    return ctx.call_te(out, "pad")


def _abs(e: P.PrimExpr) -> P.PrimExpr:
    return P.Max(e, P.Sub(_i64(0), e, INT64), INT64)


def _pad_constant(value: float, dtype: DataType) -> P.PrimExpr | None:
    """``pad_value`` converted as EXEC-nn-pad-1 converts it (NumPy ``astype``); None for a
    non-finite or out-of-range value of an integer dtype (NumPy's result is unspecified)."""
    npdt = numpy_dtype(dtype)
    if npdt.kind in "iu":
        if not np.isfinite(value):
            return None
        info = np.iinfo(npdt)
        if not info.min <= int(value) <= info.max:
            return None
    with np.errstate(all="ignore"):
        converted = np.asarray(value).astype(npdt)
    if npdt.kind == "b":
        return te.const(bool(converted), dtype)
    if npdt.kind in "iu":
        return te.const(int(converted), dtype)
    return te.const(float(converted), dtype)


def legalize_dropout(ctx):
    """Inference dropout (EXEC-nn-dropout-1): a copy of the data and a mask of ones,
    two stages of one PrimFunc."""
    x = ctx.tensor(0, "data")
    out = te.compute(x.shape, lambda *i: x[i], name="T_dropout_out", axis_prefix="ax")
    mask = te.compute(x.shape, lambda *i: te.const(1, x.dtype), name="T_dropout_mask",
                      axis_prefix="ax")
    return ctx.call_te([out, mask], "dropout")
