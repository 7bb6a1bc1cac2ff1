"""Neural-network layers under ``R.nn`` that slide windows over spatial axes:
convolutions (``conv1d``, ``conv2d``), pooling (``max_pool2d``, ``avg_pool2d``,
``adaptive_avg_pool2d``), with ``dropout`` and ``pad`` (spec/ops/nn.md), and the pieces
the other ``R.nn`` modules share (attribute converters, layouts, window counts).
Normalizations are in ``normalization.py``, attention in ``attention.py``.

Each op's struct-info rule and NumPy semantics sit side by side. The numerics follow
TVM's legalization (``relax/transform/legalize_ops/nn.py`` and ``topi.nn``):

- convolutions cast both operands to the output dtype and accumulate in it (integers
  wrap around); NumPy has no arithmetic for the ``ml_dtypes`` floats (bfloat16,
  float8), which accumulate in float32 and are rounded once at the end;
- max pooling pads with the dtype's lowest finite value (``tvm::min_value``), average
  pooling sums in the dtype and divides by TVM's window count (integers truncate);

Layouts: a layout is any permutation of the canonical letters (``NHWC`` for ``NCHW``,
``HWIO`` for ``OIHW``); pools also take a layout that splits N or C (``NCHW16c``), whose
extra axes pass through; other layouts with split axes are rejected (SI-nn-layout-1), a
deliberate restriction against TVM.
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
    int_const, layout_letters, lowest_value, provably_ne, quiet, tensor_arg, trunc_div,
    working_dtype,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, to_dtype, to_float,
    to_int, to_int_tuple, to_str,
)

FAMILY = "nn"

_POOL2D_LAYOUT = "NCHW"


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


def _opt_output_size(value):
    if value is None:
        return None
    return spatial_tuple(2, "output_size")(value)


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
    """SI-nn-layout-2: a tensor of known ndim has one dimension per layout letter."""
    if t.ndim >= 0 and t.ndim != len(layout):
        raise ctx.error(f"layout {layout} needs a {len(layout)}-d {what}, found ndim {t.ndim}",
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
    2. The three layouts are permutations of NC(D)(H)W / OI(D)(H)W / NC(D)(H)W
       (SI-nn-layout-1);
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
    data_layout, kernel_layout = ctx.attr("data_layout"), ctx.attr("kernel_layout")
    out_layout = ctx.attr("out_layout")
    dperm = check_layout(ctx, data_layout, data_canon, "data")
    kperm = check_layout(ctx, kernel_layout, kernel_canon, "kernel")
    operm = check_layout(ctx, out_layout, data_canon, "output")
    check_layout_ndim(ctx, data, data_layout, "data")
    check_layout_ndim(ctx, weight, kernel_layout, "weight")
    out_dtype = ctx.attr("out_dtype")
    if out_dtype.is_void:
        out_dtype = common_dtype(ctx, data.dtype, weight.dtype)
    vdevice = common_vdevice(data, weight)
    if data.shape is None or weight.shape is None:
        return si.TensorStructInfo(None, out_dtype, len(data_canon), vdevice)
    d = [data.shape[p] for p in dperm]
    w = [weight.shape[p] for p in kperm]
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
    out = to_layout([d[0], w[0], *spatial], data_canon, operm)
    return si.TensorStructInfo(out, out_dtype, vdevice=vdevice)


def deduce_conv1d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 1)


def deduce_conv2d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 2)


def deduce_conv3d(ctx: DeduceContext) -> si.StructInfo:
    return _deduce_conv(ctx, 3)


def _windows(xp: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
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


@quiet
def _conv(attrs, data, weight, *, nsp: int):
    """EXEC-nn-conv-1..2: ``out[n, o, y] = sum_{c, k} pad(data)[n, g*Cg + c, y*s + k*d] *
    weight[o, c, k]`` for the group ``g`` of output channel ``o``, computed in the output
    dtype (both operands cast to it first, as topi does)."""
    data_canon, kernel_canon = CONV_LAYOUTS[nsp]
    rule = "EXEC-nn-conv-1"
    dperm = runtime_perm(attrs.get("data_layout"), data_canon, rule)
    kperm = runtime_perm(attrs.get("kernel_layout"), kernel_canon, rule)
    out_layout = attrs.get("out_layout")
    runtime_perm(out_layout, data_canon, rule)
    if data.ndim != nsp + 2 or weight.ndim != nsp + 2:
        raise OpRuntimeError("shape_mismatch", f"conv{nsp}d needs {nsp + 2}-d data and weight, "
                             f"found {data.ndim}-d and {weight.ndim}-d", rule=rule)
    x, w = np.transpose(data, dperm), np.transpose(weight, kperm)
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
        win = _windows(xp, kernel, strides, dilation, outs)   # n, c, *outs, *kernel
        win = win.reshape((n, groups, cg) + tuple(outs) + tuple(kernel))
        wg = w.astype(acc).reshape((groups, o // groups, cg) + tuple(kernel))
        sp = "dhw"[-nsp:]
        ks = "ijk"[:nsp]
        result = np.einsum(f"ngc{sp}{ks},goc{ks}->ngo{sp}", win, wg, optimize=True)
        result = result.reshape(shape)
    return np.ascontiguousarray(from_canonical(result.astype(out_dt), data_canon, out_layout))


# =============================================================================================
# Pooling
# =============================================================================================

def split_pool_layout(layout: str) -> tuple[int, int] | None:
    """SI-nn-layout-1 for pools: the positions of H and W in a layout that splits N or C
    (``NCHW16c``: each of N, C, H, W once, then sub-axes ``<factor><letter>`` of N or C,
    each once); None for any other string. Pooling works on H and W only, so the other
    axes, split or not, pass through."""
    i, letters, factors = 0, [], {}
    while i < len(layout):
        j = i
        while j < len(layout) and layout[j].isdigit():
            j += 1
        if j == len(layout):
            return None
        letter, factor = layout[j], layout[i:j]
        if letter.isupper() == bool(factor) or (factor and int(factor) <= 0):
            return None
        if factor:
            factors[letter] = int(factor)
        letters.append(letter)
        i = j + 1
    primal = [c for c in letters if c.isupper()]
    split = [c for c in letters if c.islower()]
    if sorted(primal) != sorted(_POOL2D_LAYOUT) or not split or len(set(split)) != len(split) \
            or any(c.upper() not in "NC" for c in split):
        return None
    return letters.index("H"), letters.index("W")


def _pool_layouts(ctx: DeduceContext, x: si.TensorStructInfo):
    """SI-nn-pool-2: ``layout`` and ``out_layout`` are permutations of NCHW
    (SI-nn-layout-1) and a known ndim is 4 (SI-nn-layout-2): their permutations. Or the
    layout splits N or C (``NCHW16c``) and ``out_layout`` is the same: ``("split", (h,
    w))``, the positions of H and W."""
    layout = ctx.attr("layout")
    hw = split_pool_layout(layout)
    if hw is not None and ctx.attr("out_layout") == layout:
        check_layout_ndim(ctx, x, layout_letters(layout), "data")
        return "split", hw
    perm = check_layout(ctx, layout, _POOL2D_LAYOUT, "data")
    operm = check_layout(ctx, ctx.attr("out_layout"), _POOL2D_LAYOUT, "output")
    check_layout_ndim(ctx, x, layout, "data")
    return perm, operm


def _pooled(attrs, data: np.ndarray, rule: str, core) -> np.ndarray:
    """The run-time layout frame of the pools (SI-nn-pool-2): ``core`` computes on an
    NCHW array; the data is brought to NCHW and the result to ``out_layout``. A split
    layout (``NCHW16c``) moves H and W last and folds the other axes into C."""
    layout, out_layout = attrs.get("layout"), attrs.get("out_layout")
    hw = split_pool_layout(layout)
    if hw is not None and out_layout == layout:
        if data.ndim != len(layout_letters(layout)):
            raise OpRuntimeError("shape_mismatch", f"layout {layout} needs a "
                                 f"{len(layout_letters(layout))}-d tensor, found "
                                 f"{data.ndim}-d", rule=rule)
        x = np.moveaxis(data, hw, (-2, -1))
        rest = x.shape[:-2]
        result = core(x.reshape((1, int(np.prod(rest))) + x.shape[-2:]))
        result = result.reshape(rest + result.shape[-2:])
        return np.ascontiguousarray(np.moveaxis(result, (-2, -1), hw))
    perm = runtime_perm(layout, _POOL2D_LAYOUT, rule)
    runtime_perm(out_layout, _POOL2D_LAYOUT, rule)
    if data.ndim != 4:
        raise OpRuntimeError("shape_mismatch", f"needs a 4-d tensor, found {data.ndim}-d",
                             rule=rule)
    result = core(np.transpose(data, perm))
    return np.ascontiguousarray(from_canonical(result, _POOL2D_LAYOUT, out_layout))


def _pool_result(x: si.TensorStructInfo, layouts, spatial) -> si.TensorStructInfo:
    """The pooled struct info: H and W become ``spatial``, the rest is kept."""
    kind, where = layouts
    if kind == "split":
        dims = list(x.shape)
        dims[where[0]], dims[where[1]] = spatial
        return si.TensorStructInfo(tuple(dims), x.dtype, vdevice=x.vdevice)
    d = [x.shape[p] for p in kind]
    return si.TensorStructInfo(to_layout([d[0], d[1], *spatial], _POOL2D_LAYOUT, where),
                               x.dtype, vdevice=x.vdevice)


def _pool_spatial_dims(x: si.TensorStructInfo, layouts) -> list:
    kind, where = layouts
    if kind == "split":
        return [x.shape[where[0]], x.shape[where[1]]]
    return [x.shape[kind[2]], x.shape[kind[3]]]


def _pool_ndim(ctx: DeduceContext) -> int:
    return len(layout_letters(ctx.attr("layout")))


def deduce_pool2d(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-pool-1..3 (max_pool2d, avg_pool2d).

    1. pool_size, strides and dilation are >= 1, padding >= 0.
    2. ``layout``/``out_layout`` are permutations of NCHW (SI-nn-layout-1); a known ndim
       is 4 (SI-nn-layout-2). (A call's ``out_layout`` of None is ``layout``, filled in by
       ``out_layout_from`` at canonicalization.)
    3. Each output spatial dimension is SI-nn-window-1 with ``ceil_mode``; a constant
       negative one is an error. Batch and channels are kept; so is the dtype.
    Without the shape, only the dtype and ndim 4 are known."""
    x = tensor_arg(ctx, 0, "data")
    pool, strides = ctx.attr("pool_size"), ctx.attr("strides")
    padding, dilation = ctx.attr("padding"), ctx.attr("dilation")
    check_window_attrs(ctx, "SI-nn-pool-1", kernel=pool, strides=strides, padding=padding,
                        dilation=dilation)
    layouts = _pool_layouts(ctx, x)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, _pool_ndim(ctx), x.vdevice)
    sizes = _pool_spatial_dims(x, layouts)
    spatial = [window_count_expr(ctx, sizes[i], pool[i], padding[i], padding[i + 2],
                                 strides[i], dilation[i], ctx.attr("ceil_mode"))
               for i in range(2)]
    negative_dim_error(ctx, spatial, "pooling window", "SI-nn-pool-3")
    return _pool_result(x, layouts, spatial)


def window_sum(windows: np.ndarray, n: int) -> np.ndarray:
    """EXEC-nn-pool-3: the sum over the last ``n`` axes in the dtype, one cell at a time in
    row-major order from zero (a left fold, as a reduction loop adds; NumPy's own
    ``sum`` adds float16 pairwise in float32 or not depending on the memory layout)."""
    lead = windows.shape[:windows.ndim - n]
    cells = windows.reshape(lead + (int(np.prod(windows.shape[windows.ndim - n:])),))
    if cells.shape[-1] == 0:
        return np.zeros(lead, windows.dtype)
    return np.add.accumulate(cells, axis=-1, dtype=windows.dtype)[..., -1]


def avg_pool_counts(out: int, size: int, kernel: int, stride: int, dilation: int,
                    pad_before: int, pad_after: int, count_include_pad: bool) -> np.ndarray:
    """EXEC-nn-pool-2 along one axis: the divisor count of each window, as topi computes
    it. With ``count_include_pad`` the window is clipped to the explicitly padded extent
    (not the extra ``ceil_mode`` padding); without, to the input itself. The counts may
    be <= 0 for a window that holds no input element; the caller clamps the product."""
    start = np.arange(out, dtype=np.int64) * stride - pad_before
    end = start + (kernel - 1) * dilation
    if count_include_pad:
        end = np.minimum(end, size + pad_after - 1)
        return trunc_div(end - start, dilation) + 1
    jumps = np.maximum(trunc_div(dilation - 1 - start, dilation), 0)
    end = np.minimum(end, size - 1)
    return trunc_div(end - (start + dilation * jumps), dilation) + 1


@quiet
def _pool2d(attrs, data, *, kind: str):
    """EXEC-nn-pool-1..2: windows over the padded input (SI-nn-window-1). Max pooling
    pads with the lowest finite value; average pooling sums in the dtype (padding counts
    as zero) and divides by ``max(count, 1)`` per EXEC-nn-pool-2 (integers truncate)."""
    rule = "EXEC-nn-pool-1"
    return _pooled(attrs, data, rule, lambda x: _pool2d_nchw(attrs, x, kind, rule))


def _pool2d_nchw(attrs, x: np.ndarray, kind: str, rule: str) -> np.ndarray:
    pool, strides = attrs.get("pool_size"), attrs.get("strides")
    padding, dilation, ceil = attrs.get("padding"), attrs.get("dilation"), attrs.get("ceil_mode")
    sizes = x.shape[2:]
    outs = [window_count(sizes[i], pool[i], padding[i], padding[i + 2], strides[i],
                         dilation[i], ceil) for i in range(2)]
    if any(v < 0 for v in outs):
        raise OpRuntimeError("invalid_value", f"the pooling window {tuple(pool)} is larger "
                             f"than the padded input {sizes}", rule=rule)
    if min(outs) == 0:
        return np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    extra = [s - 1 if ceil else 0 for s in strides]
    widths = [(0, 0), (0, 0)] + [(padding[i], padding[i + 2] + extra[i]) for i in range(2)]
    if kind == "max":
        xp = np.pad(x, widths, constant_values=lowest_value(x.dtype))
        result = _windows(xp, pool, strides, dilation, outs).max(axis=(-2, -1))
    else:
        xp = np.pad(x, widths)
        sums = window_sum(_windows(xp, pool, strides, dilation, outs), 2)
        include = attrs.get("count_include_pad")
        ch, cw = (avg_pool_counts(outs[i], sizes[i], pool[i], strides[i], dilation[i],
                                  padding[i], padding[i + 2], include) for i in range(2))
        counts = ch[:, None] * cw[None, :]
        if not include:
            counts = np.maximum(counts, 1)
        if x.dtype.kind in "iu":
            result = trunc_div(sums.astype(np.int64), counts).astype(x.dtype)
        else:
            result = (sums / counts.astype(x.dtype)).astype(x.dtype)
    return result


def deduce_adaptive_avg_pool2d(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-adaptive_pool-1..2: layouts as SI-nn-pool-2; the output spatial dimensions
    are ``output_size`` (each >= 0), or the input's when it is None."""
    x = tensor_arg(ctx, 0, "data")
    size = ctx.attr("output_size")
    if size is not None and any(v < 0 for v in size):
        raise ctx.error(f"output_size {list(size)} must be >= 0", rule="SI-nn-adaptive_pool-1")
    layouts = _pool_layouts(ctx, x)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, _pool_ndim(ctx), x.vdevice)
    spatial = _pool_spatial_dims(x, layouts) if size is None else [P.IntImm(v) for v in size]
    return _pool_result(x, layouts, spatial)


@quiet
def _adaptive_avg_pool2d(attrs, data):
    """EXEC-nn-adaptive_pool-1: output cell ``i`` of an axis of input length ``L`` and
    output length ``O`` averages ``[floor(i*L/O), ceil((i+1)*L/O))``; sums in the dtype,
    integers truncate; an empty window divides by zero (NaN for floats, a trap for
    integers)."""
    rule = "EXEC-nn-adaptive_pool-1"
    return _pooled(attrs, data, rule, lambda x: _adaptive_avg_pool2d_nchw(attrs, x, rule))


def _adaptive_avg_pool2d_nchw(attrs, x: np.ndarray, rule: str) -> np.ndarray:
    size = attrs.get("output_size") or x.shape[2:]
    oh, ow = size
    h, w = x.shape[2:]
    result = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            total = window_sum(x[:, :, h0:h1, w0:w1], 2)
            count = (h1 - h0) * (w1 - w0)
            if x.dtype.kind in "iu":
                if count == 0:
                    raise OpRuntimeError("division_by_zero", "an empty pooling window",
                                         rule=rule)
                result[:, :, i, j] = trunc_div(total.astype(np.int64), count)
            else:
                result[:, :, i, j] = total / x.dtype.type(count)
    return result


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

    pool_attrs = (Attr("pool_size", 1, spatial_tuple(2, "pool_size")),
                  Attr("strides", 1, spatial_tuple(2, "strides")),
                  Attr("padding", 0, padding_tuple(2)),
                  Attr("dilation", 1, spatial_tuple(2, "dilation")),
                  Attr("ceil_mode", False, to_bool), Attr("count_include_pad", False, to_bool),
                  Attr("layout", _POOL2D_LAYOUT, to_str), Attr("out_layout", None, to_str))
    pool_layout = out_layout_from("layout", _POOL2D_LAYOUT)
    for kind in ("max", "avg"):
        op(f"{kind}_pool2d", (Operand("data"),), pool_attrs, deduce_pool2d,
           lambda attrs, x, kind=kind: _pool2d(attrs, x, kind=kind), "SI-nn-pool-1",
           bind=pool_layout, legalize=lambda ctx, kind=kind: low.legalize_pool2d(ctx, kind))
    op("adaptive_avg_pool2d", (Operand("data"),),
       (Attr("output_size", None, _opt_output_size), Attr("layout", _POOL2D_LAYOUT, to_str),
        Attr("out_layout", None, to_str)),
       deduce_adaptive_avg_pool2d, _adaptive_avg_pool2d, "SI-nn-adaptive_pool-1",
       bind=pool_layout, legalize=low.legalize_adaptive_avg_pool2d)

    op("dropout", (Operand("data"),), (Attr("rate", 0.5, to_float),), deduce_dropout,
       _dropout, "SI-nn-dropout-1", legalize=low.legalize_dropout)
    op("pad", (Operand("data"),),
       (Attr("pad_width", convert=to_int_tuple),
        Attr("pad_mode", "constant", one_of(*_PAD_MODES)),
        Attr("pad_value", 0.0, to_float)),
       deduce_pad, _pad, "SI-nn-pad-1", legalize=low.legalize_pad)


_register_all()
