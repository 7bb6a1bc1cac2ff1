"""Pooling under ``R.nn`` over 1, 2 or 3 spatial axes: ``max_pool{1,2,3}d``,
``avg_pool{1,2,3}d``, ``adaptive_avg_pool{1,2,3}d`` (spec/ops/nn.md, SI-nn-pool-*,
SI-nn-adaptive_pool-*, EXEC-nn-pool-*, EXEC-nn-adaptive_pool-1). One rule for every
spatial rank: ``nsp`` is the number of spatial axes, the canonical layout
``CONV_LAYOUTS[nsp][0]`` (``NCW``, ``NCHW``, ``NCDHW``).

Max pooling pads with the dtype's lowest finite value (``tvm::min_value``); average
pooling sums in the dtype and divides by topi's window count (integers truncate). A
layout may also split N or C (``NCHW16c``): the extra axes pass through. The lowerings
are ``nn_lowering.legalize_pool`` and ``legalize_adaptive_avg_pool``.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si

from .common import (
    CONV_LAYOUTS, OpRuntimeError, layout_letters, lowest_value, quiet, tensor_arg, trunc_div,
)
from .layouts import Layout
from .nn import (
    sliding_windows, check_layout, check_layout_ndim, check_window_attrs, from_canonical,
    negative_dim_error, out_layout_from, padding_tuple, runtime_perm, spatial_tuple, to_layout,
    window_count, window_count_expr,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_bool, to_str

FAMILY = "nn"


def _canonical(nsp: int) -> str:
    return CONV_LAYOUTS[nsp][0]


# -- layouts -----------------------------------------------------------------------------------

def split_pool_layout(layout: str, canonical: str = "NCHW") -> tuple[int, ...] | None:
    """SI-nn-layout-1 for pools: the positions of the spatial letters in a layout that
    splits N or C (``NCHW16c``: each canonical letter once, then sub-axes
    ``<factor><letter>`` of N or C, each once); None for any other string. Pooling works
    on the spatial axes only, so the other axes, split or not, pass through."""
    parsed = Layout.parse(layout, canonical)
    if parsed is None or not parsed.is_split or \
            any(c not in "NC" for c, factor in parsed.axes if factor is not None):
        return None
    return tuple(parsed.position(c) for c in canonical[2:])


def _pool_layouts(ctx: DeduceContext, x: si.TensorStructInfo, nsp: int):
    """SI-nn-pool-2: ``layout`` and ``out_layout`` are permutations of the canonical
    layout (SI-nn-layout-1) and a known ndim matches (SI-nn-layout-2): their
    permutations. Or the layout splits N or C (``NCHW16c``) and ``out_layout`` is the
    same: ``("split", positions)``, the positions of the spatial axes."""
    canonical = _canonical(nsp)
    layout = ctx.attr("layout")
    where = split_pool_layout(layout, canonical)
    if where is not None and ctx.attr("out_layout") == layout:
        check_layout_ndim(ctx, x, layout, "data")
        return "split", where
    perm = check_layout(ctx, layout, canonical, "data")
    operm = check_layout(ctx, ctx.attr("out_layout"), canonical, "output")
    check_layout_ndim(ctx, x, layout, "data")
    return perm, operm


def _pooled(attrs, data: np.ndarray, rule: str, core, nsp: int) -> np.ndarray:
    """The run-time layout frame of the pools (SI-nn-pool-2): ``core`` computes on an
    array in the canonical layout; the data is brought to it and the result to
    ``out_layout``. A split layout (``NCHW16c``) moves the spatial axes last and folds
    the other axes into C."""
    canonical = _canonical(nsp)
    layout, out_layout = attrs.get("layout"), attrs.get("out_layout")
    where = split_pool_layout(layout, canonical)
    last = tuple(range(-nsp, 0))
    if where is not None and out_layout == layout:
        if data.ndim != len(layout_letters(layout)):
            raise OpRuntimeError("shape_mismatch", f"layout {layout} needs a "
                                 f"{len(layout_letters(layout))}-d tensor, found "
                                 f"{data.ndim}-d", rule=rule)
        x = np.moveaxis(data, where, last)
        rest = x.shape[:-nsp]
        result = core(x.reshape((1, int(np.prod(rest))) + x.shape[-nsp:]))
        result = result.reshape(rest + result.shape[-nsp:])
        return np.ascontiguousarray(np.moveaxis(result, last, where))
    perm = runtime_perm(layout, canonical, rule)
    runtime_perm(out_layout, canonical, rule)
    if data.ndim != nsp + 2:
        raise OpRuntimeError("shape_mismatch", f"needs a {nsp + 2}-d tensor, found "
                             f"{data.ndim}-d", rule=rule)
    result = core(np.transpose(data, perm))
    return np.ascontiguousarray(from_canonical(result, canonical, out_layout))


def _pool_result(x: si.TensorStructInfo, layouts, spatial, nsp: int) -> si.TensorStructInfo:
    """The pooled struct info: the spatial axes become ``spatial``, the rest is kept."""
    kind, where = layouts
    if kind == "split":
        dims = list(x.shape)
        for pos, d in zip(where, spatial):
            dims[pos] = d
        return si.TensorStructInfo(tuple(dims), x.dtype, vdevice=x.vdevice)
    d = [x.shape[p] for p in kind]
    return si.TensorStructInfo(to_layout([d[0], d[1], *spatial], _canonical(nsp), where),
                               x.dtype, vdevice=x.vdevice)


def _pool_spatial_dims(x: si.TensorStructInfo, layouts) -> list:
    kind, where = layouts
    if kind == "split":
        return [x.shape[p] for p in where]
    return [x.shape[p] for p in kind[2:]]


def _pool_ndim(ctx: DeduceContext) -> int:
    return len(layout_letters(ctx.attr("layout")))


# -- max and average pooling -------------------------------------------------------------------

def deduce_pool(ctx: DeduceContext, nsp: int) -> si.StructInfo:
    """SI-nn-pool-1..3 (max_pool{1,2,3}d, avg_pool{1,2,3}d).

    1. pool_size, strides and dilation are >= 1, padding >= 0.
    2. ``layout``/``out_layout`` are permutations of the canonical layout
       (SI-nn-layout-1); a known ndim is ``nsp + 2`` (SI-nn-layout-2). (A call's
       ``out_layout`` of None is ``layout``, filled in by ``out_layout_from``.)
    3. Each output spatial dimension is SI-nn-window-1 with ``ceil_mode``; a constant
       negative one is an error. Batch and channels are kept; so is the dtype.
    Without the shape, only the dtype and the ndim are known."""
    x = tensor_arg(ctx, 0, "data")
    pool, strides = ctx.attr("pool_size"), ctx.attr("strides")
    padding, dilation = ctx.attr("padding"), ctx.attr("dilation")
    check_window_attrs(ctx, "SI-nn-pool-1", kernel=pool, strides=strides, padding=padding,
                       dilation=dilation)
    layouts = _pool_layouts(ctx, x, nsp)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, _pool_ndim(ctx), x.vdevice)
    sizes = _pool_spatial_dims(x, layouts)
    spatial = [window_count_expr(ctx, sizes[i], pool[i], padding[i], padding[i + nsp],
                                 strides[i], dilation[i], ctx.attr("ceil_mode"))
               for i in range(nsp)]
    negative_dim_error(ctx, spatial, "pooling window", "SI-nn-pool-3")
    return _pool_result(x, layouts, spatial, nsp)


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
def _pool(attrs, data, *, kind: str, nsp: int):
    """EXEC-nn-pool-1..2: windows over the padded input (SI-nn-window-1). Max pooling
    pads with the lowest finite value; average pooling sums in the dtype (padding counts
    as zero) and divides by ``max(count, 1)`` per EXEC-nn-pool-2 (integers truncate)."""
    rule = "EXEC-nn-pool-1"
    return _pooled(attrs, data, rule, lambda x: _pool_canonical(attrs, x, kind, rule, nsp), nsp)


def _pool_canonical(attrs, x: np.ndarray, kind: str, rule: str, nsp: int) -> np.ndarray:
    pool, strides = attrs.get("pool_size"), attrs.get("strides")
    padding, dilation, ceil = attrs.get("padding"), attrs.get("dilation"), attrs.get("ceil_mode")
    sizes = x.shape[2:]
    outs = [window_count(sizes[i], pool[i], padding[i], padding[i + nsp], strides[i],
                         dilation[i], ceil) for i in range(nsp)]
    if any(v < 0 for v in outs):
        raise OpRuntimeError("invalid_value", f"the pooling window {tuple(pool)} is larger "
                             f"than the padded input {sizes}", rule=rule)
    if min(outs) == 0:
        return np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    extra = [s - 1 if ceil else 0 for s in strides]
    widths = [(0, 0), (0, 0)] + [(padding[i], padding[i + nsp] + extra[i]) for i in range(nsp)]
    window_axes = tuple(range(-nsp, 0))
    if kind == "max":
        xp = np.pad(x, widths, constant_values=lowest_value(x.dtype))
        return sliding_windows(xp, pool, strides, dilation, outs).max(axis=window_axes)
    xp = np.pad(x, widths)
    sums = window_sum(sliding_windows(xp, pool, strides, dilation, outs), nsp)
    include = attrs.get("count_include_pad")
    per_axis = [avg_pool_counts(outs[i], sizes[i], pool[i], strides[i], dilation[i],
                                padding[i], padding[i + nsp], include) for i in range(nsp)]
    counts = functools.reduce(np.multiply.outer, per_axis)
    if not include:
        counts = np.maximum(counts, 1)
    if x.dtype.kind in "iu":
        return trunc_div(sums.astype(np.int64), counts).astype(x.dtype)
    return (sums / counts.astype(x.dtype)).astype(x.dtype)


# -- adaptive average pooling --------------------------------------------------------------------

def _opt_output_size(nsp: int):
    def convert(value):
        if value is None:
            return None
        return spatial_tuple(nsp, "output_size")(value)
    return convert


def deduce_adaptive_avg_pool(ctx: DeduceContext, nsp: int) -> si.StructInfo:
    """SI-nn-adaptive_pool-1..2: layouts as SI-nn-pool-2; the output spatial dimensions
    are ``output_size`` (each >= 0), or the input's when it is None."""
    x = tensor_arg(ctx, 0, "data")
    size = ctx.attr("output_size")
    if size is not None and any(v < 0 for v in size):
        raise ctx.error(f"output_size {list(size)} must be >= 0", rule="SI-nn-adaptive_pool-1")
    layouts = _pool_layouts(ctx, x, nsp)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, _pool_ndim(ctx), x.vdevice)
    spatial = _pool_spatial_dims(x, layouts) if size is None else [P.IntImm(v) for v in size]
    return _pool_result(x, layouts, spatial, nsp)


@quiet
def _adaptive_avg_pool(attrs, data, *, nsp: int):
    """EXEC-nn-adaptive_pool-1: output cell ``i`` of an axis of input length ``L`` and
    output length ``O`` averages ``[floor(i*L/O), ceil((i+1)*L/O))``; sums in the dtype,
    integers truncate; an empty window divides by zero (NaN for floats, a trap for
    integers)."""
    rule = "EXEC-nn-adaptive_pool-1"
    return _pooled(attrs, data, rule, lambda x: _adaptive_avg_pool_canonical(attrs, x, rule),
                   nsp)


def _adaptive_avg_pool_canonical(attrs, x: np.ndarray, rule: str) -> np.ndarray:
    sizes = x.shape[2:]
    outs = attrs.get("output_size") or sizes
    result = np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    for cell in itertools.product(*(range(o) for o in outs)):
        ranges = [((i * n) // o, -((-(i + 1) * n) // o)) for i, n, o in zip(cell, sizes, outs)]
        window = x[(slice(None), slice(None), *(slice(a, b) for a, b in ranges))]
        total = window_sum(window, len(sizes))
        count = int(np.prod([b - a for a, b in ranges]))
        if x.dtype.kind in "iu":
            if count == 0:
                raise OpRuntimeError("division_by_zero", "an empty pooling window", rule=rule)
            result[(slice(None), slice(None), *cell)] = trunc_div(total.astype(np.int64), count)
        else:
            result[(slice(None), slice(None), *cell)] = total / x.dtype.type(count)
    return result


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    from . import nn_lowering as low

    for nsp in (1, 2, 3):
        canonical = _canonical(nsp)
        layout = out_layout_from("layout", canonical)
        pool_attrs = (Attr("pool_size", 1, spatial_tuple(nsp, "pool_size")),
                      Attr("strides", 1, spatial_tuple(nsp, "strides")),
                      Attr("padding", 0, padding_tuple(nsp)),
                      Attr("dilation", 1, spatial_tuple(nsp, "dilation")),
                      Attr("ceil_mode", False, to_bool),
                      Attr("count_include_pad", False, to_bool),
                      Attr("layout", canonical, to_str), Attr("out_layout", None, to_str))
        for kind in ("max", "avg"):
            register(OpDef(
                f"relax.nn.{kind}_pool{nsp}d", (Operand("data"),), pool_attrs,
                deduce=lambda ctx, nsp=nsp: deduce_pool(ctx, nsp),
                compute=lambda attrs, x, kind=kind, nsp=nsp: _pool(attrs, x, kind=kind, nsp=nsp),
                family=FAMILY, spec_rule="SI-nn-pool-1", bind=layout,
                legalize=lambda ctx, kind=kind, nsp=nsp: low.legalize_pool(ctx, kind, nsp)))
        register(OpDef(
            f"relax.nn.adaptive_avg_pool{nsp}d", (Operand("data"),),
            (Attr("output_size", None, _opt_output_size(nsp)), Attr("layout", canonical, to_str),
             Attr("out_layout", None, to_str)),
            deduce=lambda ctx, nsp=nsp: deduce_adaptive_avg_pool(ctx, nsp),
            compute=lambda attrs, x, nsp=nsp: _adaptive_avg_pool(attrs, x, nsp=nsp),
            family=FAMILY, spec_rule="SI-nn-adaptive_pool-1", bind=layout,
            legalize=lambda ctx, nsp=nsp: low.legalize_adaptive_avg_pool(ctx, nsp)))


_register_all()
