"""Transposed convolutions under ``R.nn``: ``conv1d_transpose``, ``conv2d_transpose``,
``conv3d_transpose`` (spec/ops/nn.md "conv1d_transpose, conv2d_transpose,
conv3d_transpose", SI-nn-conv_transpose-*, EXEC-nn-conv_transpose-*, TE-leg-nn-10).

A transposed convolution scatters each input element, times the kernel, into the
output: input position ``i`` and kernel position ``k`` add to output position
``i*stride + k*dilation - pad_before``; the output keeps the positions
``[0, (L-1)*stride + dilation*(K-1) + 1 - pad_before - pad_after + output_padding)``.
The kernel is ``(I, O/groups, K...)`` in the canonical layout ``IO(D)(H)W``; input
channel ``c`` of group ``g = c // (I/groups)`` feeds output channels
``g*(O/groups) ... (g+1)*(O/groups) - 1``. Numerics as the convolutions (EXEC-nn-conv-1:
operands cast to the output dtype and summed in it; narrow floats in float32).
"""
from __future__ import annotations

import itertools

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    CONV_LAYOUTS, OpRuntimeError, common_dtype, common_vdevice, conv_accumulator, expr_text,
    fold_mul, i64, provably_ne, quiet, tensor_arg,
)
from .nn import (
    canonical_conv_operands, check_layout, check_layout_ndim, check_window_attrs, from_canonical,
    negative_dim_error, out_layout_from, padding_tuple, provably_indivisible, spatial_tuple,
    to_layout,
)
from .nn_lowering import (
    add, at, by_letter, cast_stage, conv_acc_dtype, mul, zero_if_empty,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype, to_int, to_str

FAMILY = "nn"


def _kernel_canon(nsp: int) -> str:
    """``IOW``, ``IOHW``, ``IODHW``."""
    return "IO" + CONV_LAYOUTS[nsp][0][2:]


def transposed_length(size, kernel, pad_before: int, pad_after: int, stride: int,
                      dilation: int, output_padding: int):
    """SI-nn-conv_transpose-6 (ints or PrimExprs): the output length along one axis,
    ``(size - 1) * stride - pads + dilation * (kernel - 1) + output_padding + 1``."""
    return (size - 1) * stride - (pad_before + pad_after) + dilation * (kernel - 1) + \
        (output_padding + 1)


def _deduce_conv_transpose(ctx: DeduceContext, nsp: int) -> si.StructInfo:
    """SI-nn-conv_transpose-1..6.

    1. strides and dilation are >= 1, padding >= 0, groups >= 1, and each output_padding
       is in ``[0, stride)``.
    2. The layouts are permutations of NC(D)(H)W / IO(D)(H)W / NC(D)(H)W
       (SI-nn-layout-1, SI-nn-layout-2; ``out_layout`` None is ``data_layout``).
    3. The dtype is ``out_dtype`` when given, else the operands' common dtype.
    4. A data channel count provably different from the weight's ``I`` is an error.
    5. An ``I`` provably not divisible by ``groups`` is an error.
    6. Output channels are ``O * groups``; each output spatial dimension is
       ``transposed_length``, simplified; a constant negative one is an error."""
    data_canon = CONV_LAYOUTS[nsp][0]
    kernel_canon = _kernel_canon(nsp)
    data, weight = tensor_arg(ctx, 0, "data"), tensor_arg(ctx, 1, "weight")
    strides, padding, dilation = ctx.attr("strides"), ctx.attr("padding"), ctx.attr("dilation")
    out_pad, groups = ctx.attr("output_padding"), ctx.attr("groups")
    check_window_attrs(ctx, "SI-nn-conv_transpose-1", strides=strides, padding=padding,
                       dilation=dilation, groups=groups)
    if any(not 0 <= p < s for p, s in zip(out_pad, strides)):
        raise ctx.error(f"output_padding {list(out_pad)} must be >= 0 and less than the "
                        f"strides {list(strides)}", rule="SI-nn-conv_transpose-1")
    dperm = check_layout(ctx, ctx.attr("data_layout"), data_canon, "data")
    kperm = check_layout(ctx, ctx.attr("kernel_layout"), kernel_canon, "kernel")
    operm = check_layout(ctx, ctx.attr("out_layout"), data_canon, "output")
    check_layout_ndim(ctx, data, ctx.attr("data_layout"), "data")
    check_layout_ndim(ctx, weight, ctx.attr("kernel_layout"), "weight")
    out_dtype = ctx.attr("out_dtype")
    if out_dtype.is_void:
        out_dtype = common_dtype(ctx, data.dtype, weight.dtype)
    vdevice = common_vdevice(data, weight)
    if data.shape is None or weight.shape is None:
        return si.TensorStructInfo(None, out_dtype, nsp + 2, vdevice)
    d = [data.shape[p] for p in dperm]
    w = [weight.shape[p] for p in kperm]
    if provably_ne(ctx, d[1], w[0]):
        raise ctx.error(f"the data has {expr_text(d[1])} channels, the weight "
                        f"{expr_text(w[0])} input channels", rule="SI-nn-conv_transpose-4")
    if provably_indivisible(ctx, w[0], groups):
        raise ctx.error(f"{expr_text(w[0])} input channels do not split into {groups} groups",
                        rule="SI-nn-conv_transpose-5")
    spatial = [ctx.analyzer.simplify(transposed_length(
        d[2 + i], w[2 + i], padding[i], padding[i + nsp], strides[i], dilation[i], out_pad[i]))
        for i in range(nsp)]
    negative_dim_error(ctx, spatial, "padding", "SI-nn-conv_transpose-6")
    channels = fold_mul(w[1], i64(groups))
    out = to_layout([d[0], channels, *spatial], data_canon, operm)
    return si.TensorStructInfo(out, out_dtype, vdevice=vdevice)


@quiet
def _conv_transpose(attrs, data, weight, *, nsp: int):
    """EXEC-nn-conv_transpose-1..2: for each kernel position, the group's channel
    contraction of the data times the kernel tap, added at the output positions
    ``i*stride + k*dilation - pad_before`` inside the output (in the accumulation dtype
    of EXEC-nn-conv-1), then cast to the output dtype and placed in ``out_layout``."""
    data_canon = CONV_LAYOUTS[nsp][0]
    rule = "EXEC-nn-conv_transpose-1"
    x, w = canonical_conv_operands(attrs, data, weight, _kernel_canon(nsp),
                                   f"conv{nsp}d_transpose", rule)
    groups = attrs.get("groups")
    n, c = x.shape[:2]
    i_total, og = w.shape[:2]
    if c != i_total or i_total % groups:
        raise OpRuntimeError("shape_mismatch", f"data has {c} channels, the weight {i_total} "
                             f"input channels, groups {groups}", rule=rule)
    out_dt = attrs.get("out_dtype")
    out_dt = data.dtype if out_dt.is_void else numpy_dtype(out_dt)
    acc = conv_accumulator(out_dt)
    strides, padding = attrs.get("strides"), attrs.get("padding")
    dilation, out_pad = attrs.get("dilation"), attrs.get("output_padding")
    sizes, kernel = x.shape[2:], w.shape[2:]
    outs = [transposed_length(sizes[i], kernel[i], padding[i], padding[i + nsp], strides[i],
                              dilation[i], out_pad[i]) for i in range(nsp)]
    if any(v < 0 for v in outs):
        raise OpRuntimeError("invalid_value", f"the padding {list(padding)} crops more than "
                             f"the transposed output holds (output size {outs})",
                             rule="EXEC-nn-conv_transpose-2")
    ig = i_total // groups
    xg = x.astype(acc).reshape((n, groups, ig) + tuple(sizes))
    wg = w.astype(acc).reshape((groups, ig, og) + tuple(kernel))
    result = np.zeros((n, groups, og) + tuple(outs), acc)
    letters = "dhw"[-nsp:]
    for tap in itertools.product(*(range(k) for k in kernel)):
        src, dst = [], []
        for a in range(nsp):
            # output y = i*s + off for input i; keep 0 <= y < outs[a]
            off = tap[a] * dilation[a] - padding[a]
            s = strides[a]
            lo = max(0, -(off // s))                      # ceil(-off / s)
            hi = min(sizes[a], -((off - outs[a]) // s))   # ceil((outs - off) / s)
            if hi <= lo:
                break
            src.append(slice(lo, hi))
            dst.append(slice(lo * s + off, (hi - 1) * s + off + 1, s))
        else:
            part = np.einsum(f"ngc{letters},gco->ngo{letters}",
                             xg[(Ellipsis, *src)], wg[(Ellipsis, *tap)])
            result[(Ellipsis, *dst)] += part
    result = result.reshape((n, groups * og) + tuple(outs)).astype(out_dt)
    return np.ascontiguousarray(from_canonical(result, data_canon, attrs.get("out_layout")))


def _legalize_conv_transpose(ctx, nsp: int):
    """TE-leg-nn-10: one gather-form reduction: output position ``y`` sums, over the
    group's input channels and the kernel taps, ``x[(y + pad - k*d) / s] * w[c, o, k]``
    where that position is a whole input index inside the data (a lazy
    ``T.if_then_else``, so nothing outside is read), in the accumulation dtype, computed
    in ``out_layout``; then a cast stage for narrow floats. The channel checks of
    EXEC-nn-conv_transpose-1, where not proved, are the PrimFunc's guards (TE-leg-7); a
    negative output length (EXEC-nn-conv_transpose-2) traps where the call allocates the
    result (EXEC-sym-1, CONF-pass-2)."""
    sp = CONV_LAYOUTS[nsp][0][2:]
    x, w = ctx.tensor(0, "data"), ctx.tensor(1, "weight")
    dl, kl, ol = ctx.attr("data_layout"), ctx.attr("kernel_layout"), ctx.attr("out_layout")
    strides, padding, dilation = ctx.attr("strides"), ctx.attr("padding"), ctx.attr("dilation")
    groups = ctx.attr("groups")
    out_shape = ctx.result_shape()
    out_dtype = ctx.result_sinfo.dtype
    d, k = by_letter(dl, x.shape), by_letter(kl, w.shape)
    ctx.require_equal(d["C"], k["I"], "the data's channels and the kernel's input channels")
    ctx.require_divides(k["I"], groups, "the kernel's input channels, split into groups")
    acc = conv_acc_dtype(out_dtype)
    per_group_in = k["I"] if groups == 1 else P.FloorDiv(k["I"], i64(groups), INT64)
    rc = te.reduce_axis(per_group_in, "rc")
    rk = {c: te.reduce_axis(k[c], f"r{c.lower()}") for c in sp}

    def formula(*idx):
        o = by_letter(ol, idx)
        if groups == 1:
            g, oo = None, o["C"]
        else:
            g = P.FloorDiv(o["C"], k["O"], INT64)
            oo = P.FloorMod(o["C"], k["O"], INT64)
        chan = rc.var if g is None else add(mul(g, per_group_in), rc.var)
        xi, wi, conds = {"N": o["N"], "C": chan}, {"I": chan, "O": oo}, []
        for a, c in enumerate(sp):
            src = P.Sub(add(o[c], padding[a]), mul(rk[c].var, dilation[a]), INT64)
            s = strides[a]
            if s == 1:
                xi[c] = src
            else:
                xi[c] = P.FloorDiv(src, i64(s), INT64)
                conds.append(P.EQ(P.FloorMod(src, i64(s), INT64), i64(0), BOOL))
            conds += [P.LE(i64(0), src, BOOL), P.LT(xi[c], d[c], BOOL)]
            wi[c] = rk[c].var
        term = te.cast(acc, x[at(dl, xi)]) * te.cast(acc, w[at(kl, wi)])
        return te.sum(te.if_then_else(te.all_of(*conds), term, te.const(0, acc)),
                      axis=[rc, *rk.values()])
    name = f"conv{nsp}d_transpose"
    out = te.compute(out_shape, formula, name=f"{name}_{ol.lower()}", axis_prefix="ax")
    out = zero_if_empty(out, [per_group_in, *(k[c] for c in sp)])
    return ctx.call_te(cast_stage(out, out_dtype), name)


def _register_all() -> None:
    for nsp in (1, 2, 3):
        data_canon = CONV_LAYOUTS[nsp][0]
        register(OpDef(
            f"relax.nn.conv{nsp}d_transpose", (Operand("data"), Operand("weight")),
            (Attr("strides", 1, spatial_tuple(nsp, "strides")),
             Attr("padding", 0, padding_tuple(nsp)),
             Attr("output_padding", 0, spatial_tuple(nsp, "output_padding")),
             Attr("dilation", 1, spatial_tuple(nsp, "dilation")),
             Attr("groups", 1, to_int), Attr("data_layout", data_canon, to_str),
             Attr("kernel_layout", _kernel_canon(nsp), to_str), Attr("out_layout", None, to_str),
             Attr("out_dtype", None, to_dtype)),
            deduce=lambda ctx, nsp=nsp: _deduce_conv_transpose(ctx, nsp),
            compute=lambda attrs, d, w, nsp=nsp: _conv_transpose(attrs, d, w, nsp=nsp),
            family=FAMILY, spec_rule="SI-nn-conv_transpose-1",
            bind=out_layout_from("data_layout", data_canon),
            legalize=lambda ctx, nsp=nsp: _legalize_conv_transpose(ctx, nsp)))


_register_all()
