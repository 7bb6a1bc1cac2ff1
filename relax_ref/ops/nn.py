"""Neural-network layers under ``R.nn`` that slide windows over spatial axes:
convolutions (``conv1d``, ``conv2d``, ``conv3d``), with ``dropout`` and ``pad``
(spec/ops/nn.md), and the pieces the other ``R.nn`` modules share (attribute converters,
layouts, window counts, sliding windows). Pooling is in ``pool.py``, the transposed
convolutions in ``conv_transpose.py``, normalizations in ``normalization.py``, attention
in ``attention.py``.

Each op's struct-info rule and NumPy semantics sit side by side. The numerics follow
TVM's legalization (``relax/transform/legalize_ops/nn.py`` and ``topi.nn``):

- convolutions cast both operands to the output dtype and accumulate in it (integers
  wrap around); NumPy has no arithmetic for the ``ml_dtypes`` floats (bfloat16,
  float8), which accumulate in float32 and are rounded once at the end;
- max pooling pads with the dtype's lowest finite value (``tvm::min_value``), average
  pooling sums in the dtype and divides by TVM's window count (integers truncate);

Layouts: a layout is any permutation of the canonical letters (``NHWC`` for ``NCHW``,
``HWIO`` for ``OIHW``); the convolutions also take split layouts (``NCHW4c``,
``OIHW4o``: ``layouts.Layout``), computed in the canonical layout; pools take a layout
that splits N or C (``NCHW16c``), whose extra axes pass through; other layouts with split
axes are rejected (SI-nn-layout-1).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    CONV_LAYOUTS, OpRuntimeError, common_dtype, common_vdevice, conv_accumulator, expr_text,
    fold_mul, int_const, layout_letters, lowest_value, provably_ne, quiet, tensor_arg,
    working_dtype,
)
from .layouts import Layout
from .registry import (
    Attr, DeduceContext, OpDef, Operand, one_of, register, to_dtype, to_float,
    to_int, to_int_tuple, to_str,
)

FAMILY = "nn"

# =============================================================================================
# Shared pieces: attribute converters, layouts, window counts
# =============================================================================================

def spatial_tuple(n: int, name: str):
    """A converter for strides/dilation/pool_size: one value for every spatial axis, or
    one value per axis (TVM's Python wrapper and ``MakeConv``/``MakePool2d``)."""
    def convert(value):
        t = to_int_tuple(value)
        if len(t) == 1:
            t = t * n
        if len(t) != n:
            raise ValueError(f"{name} needs 1 or {n} values, found {len(t)}")
        return t
    return convert


def padding_tuple(n: int):
    """TVM's ``GetCompletePadding{1,2}D``: one value for all sides, ``n`` values (one per
    axis, both sides), or ``2n`` values ``(before..., after...)``; the canonical form is
    the ``2n`` tuple (for 2-d: top, left, bottom, right)."""
    def convert(value):
        t = to_int_tuple(value)
        if len(t) == 1:
            t = t * (2 * n)
        elif len(t) == n:
            t = t + t
        if len(t) != 2 * n:
            raise ValueError(f"padding needs 1, {n} or {2 * n} values, found {len(t)}")
        return t
    return convert


def out_layout_from(layout_param: str, default: str):
    """SI-call-3 for convolutions and pools: an ``out_layout`` absent or None is the data
    layout (``layout_param``, whose default is ``default``), filled in as TVM's
    ``MakeConv``/``MakePool`` fill it, so canonical calls print as TVM prints them."""
    def bind(args: dict) -> dict:
        if args.get("out_layout") is None:
            args["out_layout"] = args.get(layout_param, default)
        return args
    return bind


def layout_permutation(layout: str, canonical: str) -> tuple[int, ...] | None:
    """``perm[i]``: the position in ``layout`` of the i-th axis of ``canonical``
    (``layout_permutation("NHWC", "NCHW") == (0, 3, 1, 2)``); None when ``layout`` is not
    a permutation of ``canonical``'s letters."""
    if len(layout) != len(canonical) or sorted(layout) != sorted(canonical):
        return None
    return tuple(layout.index(c) for c in canonical)


def check_layout(ctx: DeduceContext, layout: str, canonical: str, what: str) -> tuple[int, ...]:
    """SI-nn-layout-1: a layout is a permutation of the canonical letters."""
    perm = layout_permutation(layout, canonical)
    if perm is None:
        raise ctx.error(f"the {what} layout {layout!r} must be a permutation of "
                        f"{canonical!r} (split axes such as 'NCHW4c' are not supported)",
                        rule="SI-nn-layout-1")
    return perm


def check_layout_ndim(ctx: DeduceContext, t: si.TensorStructInfo, layout: str,
                       what: str) -> None:
    """SI-nn-layout-2: a tensor of known ndim has one dimension per layout letter (a
    split's inner axis is one: ``NCHW4c`` is 5-d)."""
    ndim = len(layout_letters(layout))
    if t.ndim >= 0 and t.ndim != ndim:
        raise ctx.error(f"layout {layout} needs a {ndim}-d {what}, found ndim {t.ndim}",
                        rule="SI-nn-layout-2")


def to_layout(canonical_dims: Sequence, canonical: str, out_perm: tuple[int, ...]) -> tuple:
    """Canonical-order dimensions placed in the output layout's order."""
    out = [None] * len(canonical_dims)
    for i, pos in enumerate(out_perm):
        out[pos] = canonical_dims[i]
    return tuple(out)


def runtime_perm(layout: str, canonical: str, rule: str) -> tuple[int, ...]:
    perm = layout_permutation(layout, canonical)
    if perm is None:
        raise OpRuntimeError("invalid_value", f"layout {layout!r} is not a permutation of "
                             f"{canonical!r}", rule=rule)
    return perm


def from_canonical(x: np.ndarray, canonical: str, out_layout: str) -> np.ndarray:
    return np.transpose(x, [canonical.index(c) for c in out_layout])


def window_count(size: int, kernel: int, pad_before: int, pad_after: int, stride: int,
                 dilation: int, ceil_mode: bool = False) -> int:
    """SI-nn-window-1 on integers: the number of sliding windows along one axis,
    ``(size + pads - dilation*(kernel-1) - 1) // stride + 1``; with ``ceil_mode`` the
    numerator gains ``stride - 1`` and a last window that would start in the trailing
    padding is dropped (TVM's pooling rule, as PyTorch). May be negative: the caller
    reports it."""
    numer = size + pad_before + pad_after - dilation * (kernel - 1) - 1
    if ceil_mode:
        numer += stride - 1
    count = numer // stride + 1
    if ceil_mode and (count - 1) * stride >= size + pad_before:
        count -= 1
    return count


def window_count_expr(ctx: DeduceContext, size: P.PrimExpr, kernel: P.PrimExpr | int,
                      pad_before: int, pad_after: int, stride: int, dilation: int,
                      ceil_mode: bool = False) -> P.PrimExpr:
    """SI-nn-window-1 on symbolic dimensions: ``window_count`` built as a PrimExpr and
    simplified. With ``ceil_mode`` the drop of the last window is decided by the analyzer
    when it can be, else kept as ``T.if_then_else`` (as TVM prints it)."""
    numer = size + (pad_before + pad_after) - dilation * (kernel - 1) - 1
    if ceil_mode:
        numer = numer + (stride - 1)
    raw = P.FloorDiv(numer, P.IntImm(stride, numer.dtype), numer.dtype) + 1
    simplify = ctx.analyzer.simplify
    if not ceil_mode:
        return simplify(raw)
    invalid_last = P.GE((raw - 1) * stride, size + pad_before, BOOL)
    if ctx.analyzer.can_prove(invalid_last):
        return simplify(raw - 1)
    if ctx.analyzer.can_prove(P.Not(invalid_last)):
        return simplify(raw)
    return simplify(P.Call("tir.if_then_else", (invalid_last, raw - 1, raw), raw.dtype))


def check_window_attrs(ctx: DeduceContext, rule: str, *, kernel=(), strides=(), padding=(),
                        dilation=(), groups: int = 1) -> None:
    """Window attributes are positive (kernel, strides, dilation, groups) and paddings
    non-negative."""
    for name, values, low in (("pool_size", kernel, 1), ("strides", strides, 1),
                              ("dilation", dilation, 1), ("padding", padding, 0)):
        if any(v < low for v in values):
            raise ctx.error(f"{name} {list(values)} must be {'>= 0' if low == 0 else '>= 1'}",
                            rule=rule)
    if groups < 1:
        raise ctx.error(f"groups must be >= 1, found {groups}", rule=rule)


def negative_dim_error(ctx: DeduceContext, dims: Sequence[P.PrimExpr], what: str, rule: str):
    for d in dims:
        c = int_const(d)
        if c is not None and c < 0:
            raise ctx.error(f"the {what} is larger than the padded input (output "
                            f"dimension {c})", rule=rule)


def provably_indivisible(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr | int) -> bool:
    """Whether ``a % b != 0`` is provable: a count that cannot split into ``b`` groups."""
    return provably_ne(ctx, P.FloorMod(a, P.as_prim(b, a.dtype), a.dtype), 0)


# =============================================================================================
# Convolutions
# =============================================================================================

def _deduce_conv(ctx: DeduceContext, nsp: int) -> si.StructInfo:
    """SI-nn-conv-1..6 (conv1d, conv2d, conv3d: ``nsp`` spatial axes).

    1. strides and dilation are >= 1, padding >= 0, groups >= 1.
    2. The three layouts are NC(D)(H)W / OI(D)(H)W / NC(D)(H)W in some order, each letter
       split at most once (``NCHW4c``; SI-nn-layout-1, ``conv_layout``);
       a call's ``out_layout`` of None is ``data_layout`` (``out_layout_from``); known
       ndims match (SI-nn-layout-2).
    3. The dtype is ``out_dtype`` when given, else the operands' common dtype
       (SI-op-dtype-1).
    4. A data channel count provably different from ``weight_in_channels * groups`` is an
       error; an unprovable one is checked at run time (EXEC-nn-conv-1).
    5. An output channel count provably not divisible by ``groups`` is an error.
    6. Output spatial dimension: SI-nn-window-1 with the kernel's extent; a constant
       negative one is an error. Batch and output channels come from data and weight.
    Without both shapes, only the dtype and the ndim are known."""
    data_canon, kernel_canon = CONV_LAYOUTS[nsp]
    data, weight = tensor_arg(ctx, 0, "data"), tensor_arg(ctx, 1, "weight")
    strides, padding, dilation = ctx.attr("strides"), ctx.attr("padding"), ctx.attr("dilation")
    groups = ctx.attr("groups")
    check_window_attrs(ctx, "SI-nn-conv-1", strides=strides, padding=padding,
                        dilation=dilation, groups=groups)
    dl = conv_layout(ctx, ctx.attr("data_layout"), data_canon, "data")
    kl = conv_layout(ctx, ctx.attr("kernel_layout"), kernel_canon, "kernel")
    ol = conv_layout(ctx, ctx.attr("out_layout"), data_canon, "output")
    check_layout_ndim(ctx, data, dl.text, "data")
    check_layout_ndim(ctx, weight, kl.text, "weight")
    out_dtype = ctx.attr("out_dtype")
    if out_dtype.is_void:
        out_dtype = common_dtype(ctx, data.dtype, weight.dtype)
    vdevice = common_vdevice(data, weight)
    if data.shape is None or weight.shape is None:
        return si.TensorStructInfo(None, out_dtype, len(data_canon), vdevice)
    d = canonical_dims(ctx, data.shape, dl, "data")
    w = canonical_dims(ctx, weight.shape, kl, "weight")
    if provably_ne(ctx, d[1], w[1] * groups):
        raise ctx.error(f"the data has {expr_text(d[1])} channels, the weight "
                        f"{expr_text(w[1])} input channels x {groups} groups",
                        rule="SI-nn-conv-4")
    if provably_indivisible(ctx, w[0], groups):
        raise ctx.error(f"{expr_text(w[0])} output channels do not split into {groups} groups",
                        rule="SI-nn-conv-5")
    spatial = [window_count_expr(ctx, d[2 + i], w[2 + i], padding[i], padding[i + nsp],
                                 strides[i], dilation[i]) for i in range(nsp)]
    negative_dim_error(ctx, spatial, "kernel", "SI-nn-conv-6")
    out = layout_dims(ctx, [d[0], w[0], *spatial], ol)
    return si.TensorStructInfo(out, out_dtype, vdevice=vdevice)


def conv_layout(ctx: DeduceContext, text: str, canonical: str, what: str) -> Layout:
    """SI-nn-layout-1 for convolutions: the canonical letters in some order, each split
    at most once by a constant factor (``NCHW4c``)."""
    layout = Layout.parse(text, canonical)
    if layout is None:
        raise ctx.error(f"the {what} layout {text!r} must be {canonical!r}'s letters in some "
                        f"order, each split at most once by a factor (as 'NCHW4c')",
                        rule="SI-nn-layout-1")
    return layout


def canonical_dims(ctx: DeduceContext, shape, layout: Layout, what: str) -> list:
    """SI-nn-layout-2: the canonical extents of a shape in ``layout``: a split letter's is
    outer x factor, where its inner axis is not provably of another extent."""
    out = []
    for c in layout.canonical:
        dim = shape[layout.position(c)]
        f = layout.factor(c)
        if f is not None:
            inner = shape[layout.position(c, inner=True)]
            if provably_ne(ctx, inner, f):
                raise ctx.error(f"the {what}'s axis {f}{c.lower()} of layout {layout.text} has "
                                f"extent {expr_text(inner)}, not {f}", rule="SI-nn-layout-2")
            dim = fold_mul(dim, P.IntImm(f, dim.dtype))
        out.append(dim)
    return out


def layout_dims(ctx: DeduceContext, canonical_dims: Sequence, layout: Layout) -> tuple:
    """SI-nn-layout-2: canonical extents placed in ``layout``; a split letter's extent must
    not be provably indivisible by its factor."""
    dims = dict(zip(layout.canonical, canonical_dims))
    out = []
    for c, f in layout.axes:
        split = layout.factor(c)
        if f is not None:
            out.append(P.IntImm(f, dims[c].dtype))
        elif split is None:
            out.append(dims[c])
        elif provably_indivisible(ctx, dims[c], split):
            raise ctx.error(f"the output's {c} extent {expr_text(dims[c])} does not split by "
                            f"{split} (layout {layout.text})", rule="SI-nn-layout-2")
        else:
            out.append(ctx.analyzer.simplify(
                P.FloorDiv(dims[c], P.IntImm(split, dims[c].dtype), dims[c].dtype)))
    return tuple(out)


def deduce_conv1d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 1)


def deduce_conv2d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 2)


def deduce_conv3d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 3)


def sliding_windows(xp: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
             dilation: Sequence[int], outs: Sequence[int]) -> np.ndarray:
    """The sliding windows over the trailing ``len(kernel)`` axes of a padded array:
    shape ``xp.shape[:-n] + outs + kernel`` (every count in ``outs`` >= 1)."""
    n = len(kernel)
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    v = sliding_window_view(xp, spans, axis=tuple(range(xp.ndim - n, xp.ndim)))
    index = [slice(None)] * (xp.ndim - n)
    index += [slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, strides)]
    index += [slice(None, None, d) for d in dilation]
    return v[tuple(index)]


def canonical_conv_operands(attrs, data: np.ndarray, weight: np.ndarray, kernel_canon: str,
                            what: str, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """The run-time frame of the convolutions (EXEC-nn-conv-1, EXEC-nn-conv_transpose-1):
    the three layouts valid (``invalid_value``), both operands of the layout's ndim
    (``shape_mismatch``); returned in the canonical layouts (``NC...``, ``kernel_canon``)."""
    nsp = len(kernel_canon) - 2
    data_canon = CONV_LAYOUTS[nsp][0]
    dl = runtime_layout(attrs.get("data_layout"), data_canon, rule)
    kl = runtime_layout(attrs.get("kernel_layout"), kernel_canon, rule)
    runtime_layout(attrs.get("out_layout"), data_canon, rule)
    if data.ndim != dl.ndim or weight.ndim != kl.ndim:
        raise OpRuntimeError("shape_mismatch", f"{what} needs {dl.ndim}-d data and "
                             f"{kl.ndim}-d weight, found {data.ndim}-d and {weight.ndim}-d",
                             rule=rule)
    for x, layout in ((data, dl), (weight, kl)):
        for c, f in layout.axes:
            if f is not None and x.shape[layout.position(c, inner=True)] != f:
                raise OpRuntimeError("shape_mismatch", f"{what}: axis {f}{c.lower()} of layout "
                                     f"{layout.text} has extent "
                                     f"{x.shape[layout.position(c, inner=True)]}", rule=rule)
    return dl.to_canonical(data), kl.to_canonical(weight)


def runtime_layout(text: str, canonical: str, rule: str) -> Layout:
    layout = Layout.parse(text, canonical)
    if layout is None:
        raise OpRuntimeError("invalid_value", f"layout {text!r} is not {canonical!r}'s "
                             f"letters, each split at most once", rule=rule)
    return layout


def conv_result_in_layout(result: np.ndarray, canonical: str, text: str, rule: str) -> np.ndarray:
    """EXEC-nn-conv-1: a canonical result in ``out_layout`` (a split extent must divide)."""
    layout = runtime_layout(text, canonical, rule)
    for c, n in zip(canonical, result.shape):
        f = layout.factor(c)
        if f is not None and n % f:
            raise OpRuntimeError("shape_mismatch", f"the output's {c} extent {n} does not "
                                 f"split by {f} (layout {text})", rule=rule)
    return np.ascontiguousarray(layout.from_canonical(result))


@quiet
def _conv(attrs, data, weight, *, nsp: int):
    """EXEC-nn-conv-1..2: ``out[n, o, y] = sum_{c, k} pad(data)[n, g*Cg + c, y*s + k*d] *
    weight[o, c, k]`` for the group ``g`` of output channel ``o``, computed in the output
    dtype (both operands cast to it first, as topi does)."""
    data_canon, kernel_canon = CONV_LAYOUTS[nsp]
    rule = "EXEC-nn-conv-1"
    out_layout = attrs.get("out_layout")
    x, w = canonical_conv_operands(attrs, data, weight, kernel_canon, f"conv{nsp}d", rule)
    groups = attrs.get("groups")
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    if c != cg * groups or o % groups:
        raise OpRuntimeError("shape_mismatch", f"data has {c} channels, weight {o}x{cg} "
                             f"channels, groups {groups}", rule=rule)
    out_dt = attrs.get("out_dtype")
    out_dt = data.dtype if out_dt.is_void else numpy_dtype(out_dt)
    acc = conv_accumulator(out_dt)
    strides, dilation, padding = attrs.get("strides"), attrs.get("dilation"), attrs.get("padding")
    kernel = w.shape[2:]
    outs = [window_count(x.shape[2 + i], kernel[i], padding[i], padding[i + nsp], strides[i],
                         dilation[i]) for i in range(nsp)]
    if any(v < 0 for v in outs):
        raise OpRuntimeError("invalid_value", f"the kernel {tuple(kernel)} is larger than the "
                             f"padded input {x.shape[2:]}", rule="EXEC-nn-conv-2")
    shape = (n, o, *outs)
    if min(outs, default=1) == 0 or min(kernel, default=1) == 0:
        result = np.zeros(shape, acc)
    else:
        xp = np.pad(x.astype(acc), [(0, 0), (0, 0)] +
                    [(padding[i], padding[i + nsp]) for i in range(nsp)])
        win = sliding_windows(xp, kernel, strides, dilation, outs)   # n, c, *outs, *kernel
        win = win.reshape((n, groups, cg) + tuple(outs) + tuple(kernel))
        wg = w.astype(acc).reshape((groups, o // groups, cg) + tuple(kernel))
        sp = "dhw"[-nsp:]
        ks = "ijk"[:nsp]
        result = np.einsum(f"ngc{sp}{ks},goc{ks}->ngo{sp}", win, wg, optimize=True)
        result = result.reshape(shape)
    return conv_result_in_layout(result.astype(out_dt), data_canon, out_layout, rule)


# =============================================================================================
# Dropout and pad
# =============================================================================================

def deduce_dropout(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-dropout-1: a pair ``(output, mask)``, both with the data's struct info."""
    x = tensor_arg(ctx, 0, "data")
    return si.TupleStructInfo((x, x))


def _dropout(attrs, x):
    """EXEC-nn-dropout-1: inference dropout: the data unchanged and a mask of ones (the
    legalization of TVM 0.27)."""
    return x.copy(), np.ones_like(x)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def deduce_pad(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-pad-1..3: ``pad_width`` is ``[before_0, after_0, before_1, ...]``.

    1. It has two entries per dimension; an unknown ndim is taken from it.
    2. Negative entries (cropping) are allowed in the ``constant`` mode only.
    3. Output dimension ``i`` is ``dim_i + before_i + after_i``; a constant negative one
       is an error (a symbolic one is checked at run time, EXEC-nn-pad-1)."""
    x = tensor_arg(ctx, 0, "data")
    widths = ctx.attr("pad_width")
    if len(widths) % 2 or (x.ndim >= 0 and len(widths) != 2 * x.ndim):
        want = "an even count" if x.ndim < 0 else f"{2 * x.ndim} values"
        raise ctx.error(f"pad_width has {len(widths)} values, needs {want}", rule="SI-nn-pad-1")
    if ctx.attr("pad_mode") != "constant" and any(w < 0 for w in widths):
        raise ctx.error(f"negative pad widths {list(widths)} need the constant mode",
                        rule="SI-nn-pad-2")
    ndim = len(widths) // 2
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, ndim, x.vdevice)
    dims = tuple(ctx.analyzer.simplify(d + (widths[2 * i] + widths[2 * i + 1]))
                 for i, d in enumerate(x.shape))
    negative_dim_error(ctx, dims, "cropping", "SI-nn-pad-3")
    return si.TensorStructInfo(dims, x.dtype, vdevice=x.vdevice)


@quiet
def _pad(attrs, x):
    """EXEC-nn-pad-1..2: output index ``o`` of axis ``i`` reads input index
    ``o - before_i`` mapped by the mode: ``constant`` reads ``pad_value`` outside the
    input, ``reflect`` ``m - |m - |j||`` with ``m = dim - 1``, ``replicate`` the clamped
    index, ``circular`` ``j mod dim`` (topi's index maps)."""
    widths, mode = attrs.get("pad_width"), attrs.get("pad_mode")
    if len(widths) != 2 * x.ndim:
        raise OpRuntimeError("shape_mismatch", f"pad_width has {len(widths)} values for a "
                             f"{x.ndim}-d tensor", rule="EXEC-nn-pad-1")
    before, after = widths[0::2], widths[1::2]
    out_shape = tuple(d + b + a for d, b, a in zip(x.shape, before, after))
    if any(d < 0 for d in out_shape):
        raise OpRuntimeError("invalid_value", f"cropping {list(widths)} exceeds the shape "
                             f"{x.shape}", rule="EXEC-nn-pad-1")
    if mode == "constant":
        out = np.full(out_shape, np.asarray(attrs.get("pad_value")).astype(x.dtype), x.dtype)
        src, dst = [], []
        for d, b, a in zip(x.shape, before, after):
            lo, hi = max(0, -b), min(d, d + a)
            src.append(slice(lo, max(lo, hi)))
            dst.append(slice(lo + b, lo + b + max(0, hi - lo)))
        out[tuple(dst)] = x[tuple(src)]
        return out
    if 0 in out_shape:   # an empty result reads nothing, so nothing traps
        return np.zeros(out_shape, x.dtype)
    index = []
    for d, b, size in zip(x.shape, before, out_shape):
        j = np.arange(size, dtype=np.int64) - b
        if size and d == 0:
            raise OpRuntimeError("index_out_of_bounds", f"{mode} padding of an empty axis",
                                 rule="EXEC-nn-pad-2")
        if mode == "reflect":
            j = (d - 1) - np.abs((d - 1) - np.abs(j))
            if np.any((j < 0) | (j >= d)):
                raise OpRuntimeError("index_out_of_bounds", f"reflect padding wider than the "
                                     f"axis of length {d} - 1", rule="EXEC-nn-pad-2")
        elif mode == "replicate":
            j = np.clip(j, 0, d - 1)
        else:
            j = np.mod(j, d) if d else j
        index.append(j)
    return x[np.ix_(*index)] if index else x.copy()


# =============================================================================================
# Registration
# =============================================================================================


def _register_all() -> None:
    # The lowerings live beside this module (nn_lowering.py imports the layout pieces
    # above, so it is imported once they exist).
    from . import nn_lowering as low

    def op(name, operands, attrs, deduce, compute, rule, **extra):
        register(OpDef(f"relax.nn.{name}", operands, attrs, deduce=deduce, compute=compute,
                       family=FAMILY, spec_rule=rule, **extra))

    deduce_convs = {1: deduce_conv1d, 2: deduce_conv2d, 3: deduce_conv3d}
    for nsp, name in ((1, "conv1d"), (2, "conv2d"), (3, "conv3d")):
        data_canon, kernel_canon = CONV_LAYOUTS[nsp]
        op(name, (Operand("data"), Operand("weight")),
           (Attr("strides", 1, spatial_tuple(nsp, "strides")),
            Attr("padding", 0, padding_tuple(nsp)),
            Attr("dilation", 1, spatial_tuple(nsp, "dilation")),
            Attr("groups", 1, to_int), Attr("data_layout", data_canon, to_str),
            Attr("kernel_layout", kernel_canon, to_str), Attr("out_layout", None, to_str),
            Attr("out_dtype", None, to_dtype)),
           deduce_convs[nsp],
           lambda attrs, d, w, nsp=nsp: _conv(attrs, d, w, nsp=nsp), "SI-nn-conv-1",
           bind=out_layout_from("data_layout", data_canon),
           legalize=lambda ctx, nsp=nsp: low.legalize_conv(ctx, nsp))

    op("dropout", (Operand("data"),), (Attr("rate", 0.5, to_float),), deduce_dropout,
       _dropout, "SI-nn-dropout-1", legalize=low.legalize_dropout)
    op("pad", (Operand("data"),),
       (Attr("pad_width", convert=to_int_tuple),
        Attr("pad_mode", "constant", one_of(*_PAD_MODES)),
        Attr("pad_value", 0.0, to_float)),
       deduce_pad, _pad, "SI-nn-pad-1", legalize=low.legalize_pad)


_register_all()
