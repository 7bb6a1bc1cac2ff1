"""Vision ops: ``R.vision.roi_pool``, ``R.vision.roi_align`` (this module) and the box
ops (``ops/vision_boxes.py``) (spec/ops/vision.md, family "vision").

The formulas are topi's (python/tvm/topi/vision/roi_pool.py, roi_align.py), evaluated in
the rois' float type in topi's order of operations, so the semantics equal TVM's
kernels bit for bit. Where TVM's documentation is silent the spec page says what we
chose: a batch index (rois[:, 0], truncated) outside the batch traps where TVM's kernel
reads out of bounds.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT32, INT64

from .common import OpRuntimeError, cast_value, provably_ne, tensor_arg
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, \
    to_float, to_int

FAMILY = "vision"
# roi_align's adaptive grid is read from rois: a bound on its points per bin, so a huge
# roi is an error rather than a run without end.
_MAX_GRID = 1 << 20


def to_pooled_size(value) -> tuple[int, int]:
    """An int, or a tuple/list of one or two positive ints (TVM repeats a single one)."""
    sizes = (value,) if isinstance(value, int) else tuple(value)
    if len(sizes) == 1:
        sizes = sizes * 2
    if len(sizes) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                  for s in sizes):
        raise ValueError(f"pooled_size must be one or two positive integers, found {value!r}")
    return sizes


# -- deduction -----------------------------------------------------------------------------------

def _roi_operands(ctx: DeduceContext, rule: str):
    data, rois = tensor_arg(ctx, 0, "data"), tensor_arg(ctx, 1, "rois")
    if data.ndim not in (si.UNKNOWN_NDIM, 4):
        raise ctx.error(f"data must be 4-D, found ndim {data.ndim}", rule=rule)
    if rois.ndim not in (si.UNKNOWN_NDIM, 2):
        raise ctx.error(f"rois must be 2-D (num_roi, 5), found ndim {rois.ndim}", rule=rule)
    if rois.shape is not None and provably_ne(ctx, rois.shape[1], 5):
        raise ctx.error(f"rois must have shape (num_roi, 5), found last dimension "
                        f"{rois.shape[1]}", rule=rule)
    for t, what in ((data, "data"), (rois, "rois")):
        if not t.dtype.is_void and not t.dtype.is_float:
            raise ctx.error(f"{what} must be floating point, found {t.dtype}", rule=rule)
    if not data.dtype.is_void and not rois.dtype.is_void and data.dtype != rois.dtype:
        raise ctx.error(f"data and rois must have one dtype, found {data.dtype} and "
                        f"{rois.dtype}", rule=rule)
    return data, rois


def _roi_result(data, rois, pooled, layout):
    if data.shape is None or rois.shape is None:
        return si.TensorStructInfo(None, data.dtype, 4, data.vdevice)
    ph, pw = (P.IntImm(p, INT64) for p in pooled)
    if layout == "NCHW":
        dims = (rois.shape[0], data.shape[1], ph, pw)
    else:
        dims = (rois.shape[0], ph, pw, data.shape[3])
    return si.TensorStructInfo(dims, data.dtype, vdevice=data.vdevice)


def deduce_roi_pool(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-roi-1: data 4-D NCHW, rois (num_roi, 5), both of one float dtype; the
    result is (num_roi, C, ph, pw) of data's dtype (only ndim 4 where a shape is
    unknown). Stricter than TVM: integer or mixed dtypes are rejected (TVM's kernel
    would compute coordinates in the rois' type and compare data against -inf)."""
    data, rois = _roi_operands(ctx, "SI-vision-roi-1")
    if ctx.attr("layout") != "NCHW":
        raise ctx.error(f"roi_pool supports layout NCHW only, found {ctx.attr('layout')}",
                        rule="SI-vision-roi-1")
    return _roi_result(data, rois, ctx.attr("pooled_size"), "NCHW")


def deduce_roi_align(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-roi-2: roi_align as roi_pool, in layout NCHW or NHWC (the result
    (num_roi, ph, pw, C) in NHWC), mode "avg" or "max"."""
    data, rois = _roi_operands(ctx, "SI-vision-roi-2")
    return _roi_result(data, rois, ctx.attr("pooled_size"), ctx.attr("layout"))


# -- semantics ---------------------------------------------------------------------------------

def tmax(a, b):
    """TIR's max, ``select(a > b, a, b)`` (EXEC-tir-float-2): a NaN on the left loses."""
    return a if a > b else b


def tmin(a, b):
    """TIR's min, ``select(a < b, a, b)``."""
    return a if a < b else b


def to_i32(v) -> int:
    """A TIR cast of a float to int32 (EXEC-tir-cast-2: truncation; NaN and values out
    of range give x86's value)."""
    return int(cast_value(np.asarray(v), np.int32))


def select_max_fold(values: np.ndarray, init: float = -np.inf) -> np.ndarray:
    """A max reduction over the last axis as TIR folds it from ``init``:
    ``acc = select(acc > v, acc, v)`` in order. A NaN becomes the accumulator and is
    replaced by the next element, so the result is the maximum of the elements after the
    last NaN (NaN when the last element is one)."""
    values = np.asarray(values)
    if values.shape[-1] == 0:
        return np.full(values.shape[:-1], init, values.dtype)
    nan = np.isnan(values)
    plain = np.max(values, axis=-1, initial=init) if not nan.any() else None
    if plain is not None:
        return plain.astype(values.dtype)
    k = values.shape[-1]
    last = np.where(nan.any(-1), k - 1 - np.argmax(nan[..., ::-1], axis=-1), -1)
    after = np.arange(k) > last[..., None]
    tail = np.where(after, values, -np.inf).max(axis=-1)
    out = np.where(last < 0, np.maximum(tail, init), tail)
    return np.where(last == k - 1, np.nan, out).astype(values.dtype)


def _batch_index(roi, n: int, i: int) -> int:
    """EXEC-vision-roi-1: rois[i, 0] truncated to int32 names the image; outside the
    batch it traps (TVM's kernel reads out of bounds)."""
    b = int(np.trunc(roi[0])) if np.isfinite(roi[0]) else -1
    if not 0 <= b < n:
        raise OpRuntimeError("index_out_of_bounds", f"roi {i} names batch index {roi[0]}, "
                             f"outside the batch of {n}", rule="EXEC-vision-roi-1")
    return b


def _round_half_up(v, dt):
    return np.floor(v + dt(0.5))


def roi_pool_bins(roi, scale, ph_n: int, pw_n: int, h: int, w: int, dt):
    """topi's bin bounds of every output cell: (hstart, hend) per ph, (wstart, wend) per
    pw, each clamped to the image (int)."""
    s = dt(scale)
    start_w = to_i32(_round_half_up(roi[1] * s, dt))
    start_h = to_i32(_round_half_up(roi[2] * s, dt))
    end_w = to_i32(_round_half_up(roi[3] * s, dt))
    end_h = to_i32(_round_half_up(roi[4] * s, dt))
    roi_h = max(end_h - start_h + 1, 1)
    roi_w = max(end_w - start_w + 1, 1)
    bin_h = dt(roi_h) / dt(ph_n)
    bin_w = dt(roi_w) / dt(pw_n)

    def clamp(v, hi):
        return min(max(v, 0), hi)
    hs = [(clamp(to_i32(np.floor(dt(p) * bin_h)) + start_h, h),
           clamp(to_i32(np.ceil(dt(p + 1) * bin_h)) + start_h, h)) for p in range(ph_n)]
    ws = [(clamp(to_i32(np.floor(dt(p) * bin_w)) + start_w, w),
           clamp(to_i32(np.ceil(dt(p + 1) * bin_w)) + start_w, w)) for p in range(pw_n)]
    return hs, ws


def compute_roi_pool(attrs, data, rois):
    """EXEC-vision-roi-2: the maximum of each bin of each roi (topi's bounds, rounded
    half up from the scaled corners; TIR's max, so a NaN is kept only when last); an
    empty bin is 0."""
    ph_n, pw_n = attrs.get("pooled_size")
    n, c, h, w = data.shape
    dt = rois.dtype.type
    out = np.zeros((rois.shape[0], c, ph_n, pw_n), data.dtype)
    for i, roi in enumerate(rois):
        b = _batch_index(roi, n, i)
        hs, ws = roi_pool_bins(roi, attrs.get("spatial_scale"), ph_n, pw_n, h, w, dt)
        for p, (h0, h1) in enumerate(hs):
            for q, (w0, w1) in enumerate(ws):
                if h1 > h0 and w1 > w0:
                    # TIR's fold runs over the whole image, -inf outside the bin
                    masked = np.full((c, h, w), -np.inf, data.dtype)
                    masked[:, h0:h1, w0:w1] = data[b, :, h0:h1, w0:w1]
                    out[i, :, p, q] = select_max_fold(masked.reshape(c, h * w))
    return out


def _bilinear(img, y, x, h: int, w: int, dt):
    """topi's bilinear_sample after roi_align's clamp: img is (C, H, W); 0 outside
    [-1, H] x [-1, W]."""
    zero = np.zeros(img.shape[0], img.dtype)
    if y < dt(-1.0) or x < dt(-1.0) or y > dt(h) or x > dt(w):
        return zero
    y = tmin(tmax(y, dt(0.0)), dt(h - 1))
    x = tmin(tmax(x, dt(0.0)), dt(w - 1))
    y0, x0 = to_i32(np.floor(y)), to_i32(np.floor(x))
    wy_h, wx_h = y - dt(y0), x - dt(x0)
    wy_l, wx_l = dt(1) - wy_h, dt(1) - wx_h
    val = None
    for wx, xp in ((wx_l, x0), (wx_h, x0 + 1)):
        for wy, yp in ((wy_l, y0), (wy_h, y0 + 1)):
            term = (wx * wy) * img[:, yp, xp] if 0 <= yp <= h - 1 and 0 <= xp <= w - 1 \
                else zero
            val = term if val is None else val + term
    return val


def compute_roi_align(attrs, data, rois):
    """EXEC-vision-roi-3: each output cell averages (or takes the maximum of) a grid of
    bilinear samples of its bin: ``sample_ratio`` per side, or ceil(bin size) when it is
    not positive; ``aligned`` drops the legacy minimum roi size of 1. A bin whose grid
    is empty (aligned and an empty or inverted roi) is 0, where TVM's kernel leaves the
    output unwritten."""
    ph_n, pw_n = attrs.get("pooled_size")
    nhwc = attrs.get("layout") == "NHWC"
    if nhwc:
        data = np.transpose(data, (0, 3, 1, 2))
    n, c, h, w = data.shape
    dt = rois.dtype.type
    avg = attrs.get("mode") == "avg"
    ratio = attrs.get("sample_ratio")
    s = dt(attrs.get("spatial_scale"))
    out = np.zeros((rois.shape[0], c, ph_n, pw_n), data.dtype)
    for i, roi in enumerate(rois):
        b = _batch_index(roi, n, i)
        sw, sh, ew, eh = roi[1] * s, roi[2] * s, roi[3] * s, roi[4] * s
        roi_h, roi_w = eh - sh, ew - sw
        if not attrs.get("aligned"):
            roi_h, roi_w = tmax(roi_h, dt(1.0)), tmax(roi_w, dt(1.0))
        bin_h, bin_w = roi_h / dt(ph_n), roi_w / dt(pw_n)
        if ratio > 0:
            gh = gw = ratio
        else:
            gh, gw = to_i32(np.ceil(roi_h / dt(ph_n))), to_i32(np.ceil(roi_w / dt(pw_n)))
        if gh * gw > _MAX_GRID:
            raise OpRuntimeError("resource", f"roi {i} needs a sampling grid of {gh} x {gw} "
                                 f"points per bin, more than {_MAX_GRID}",
                                 rule="EXEC-vision-roi-3")
        count = dt(np.int64(gh) * gw)
        for p in range(ph_n):
            y0 = sh + dt(p) * bin_h
            for q in range(pw_n):
                x0 = sw + dt(q) * bin_w
                if gh <= 0 or gw <= 0:
                    continue  # an empty grid (aligned, an empty roi): 0
                acc = np.zeros(c, data.dtype)
                samples = []
                for ry in range(gh):
                    y = y0 + (dt(ry) + dt(0.5)) * bin_h / dt(gh)
                    for rx in range(gw):
                        x = x0 + (dt(rx) + dt(0.5)) * bin_w / dt(gw)
                        v = _bilinear(data[b], y, x, h, w, dt)
                        if avg:
                            acc = acc + v / count
                        else:
                            samples.append(v)
                out[i, :, p, q] = acc if avg else select_max_fold(np.stack(samples, -1))
    return np.transpose(out, (0, 2, 3, 1)).copy() if nhwc else out


# -- lowering -----------------------------------------------------------------------------------

def _max(a, b):
    return P.Max(a, b, a.dtype)


def _legalize_roi_pool(ctx):
    """TE-leg-vision-1: topi's roi_pool: per output cell a max reduction over the whole
    image masked to the bin (-inf outside), then 0 for an empty bin. The batch index is
    read from rois, so an index outside the batch traps in the TIR interpreter's bounds
    check, as the semantics does."""
    data, rois = ctx.tensor(0, "data"), ctx.tensor(1, "rois")
    _, _, h, w = data.shape
    ph_n, pw_n = ctx.attr("pooled_size")
    dt = rois.dtype
    scale = te.const(ctx.attr("spatial_scale"), dt)
    half = te.const(0.5, dt)

    def rnd(v):
        return te.cast(INT32, te.call_intrin("floor", v + half))

    def i32(v):
        return te.cast(INT32, v)

    def bounds(i, ph, pw):
        sw, sh = rnd(rois[i, 1] * scale), rnd(rois[i, 2] * scale)
        ew, eh = rnd(rois[i, 3] * scale), rnd(rois[i, 4] * scale)
        one = te.const(1, INT32)
        bin_h = te.div(te.cast(dt, _max(eh - sh + one, one)), te.const(float(ph_n), dt))
        bin_w = te.div(te.cast(dt, _max(ew - sw + one, one)), te.const(float(pw_n), dt))

        def clamp(v, hi):
            return P.Min(_max(v, te.const(0, INT32)), i32(hi), INT32)
        hs = clamp(i32(te.call_intrin("floor", te.cast(dt, ph) * bin_h)) + sh, h)
        he = clamp(i32(te.call_intrin("ceil", te.cast(dt, ph + 1) * bin_h)) + sh, h)
        ws = clamp(i32(te.call_intrin("floor", te.cast(dt, pw) * bin_w)) + sw, w)
        we = clamp(i32(te.call_intrin("ceil", te.cast(dt, pw + 1) * bin_w)) + sw, w)
        return hs, he, ws, we

    rh, rw = te.reduce_axis((0, h), "rh"), te.reduce_axis((0, w), "rw")

    def pooled_at(i, c, ph, pw):
        hs, he, ws, we = bounds(i, ph, pw)
        y, x = i32(rh.var), i32(rw.var)
        inside = te.all_of(P.LE(hs, y, BOOL), P.LT(y, he, BOOL), P.LE(ws, x, BOOL),
                           P.LT(x, we, BOOL))
        b = te.cast(INT32, rois[i, 0])
        return te.max(te.if_then_else(inside, data[b, c, rh.var, rw.var],
                                      te.lowest(data.dtype)), axis=[rh, rw])

    shape = (rois.shape[0], data.shape[1], ph_n, pw_n)
    pooled = te.compute(shape, pooled_at, name="pooled")

    def final(i, c, ph, pw):
        hs, he, ws, we = bounds(i, ph, pw)
        return te.if_then_else(te.any_of(P.LE(he, hs, BOOL), P.LE(we, ws, BOOL)),
                               te.const(0.0, data.dtype),
                               pooled[i, c, ph, pw])
    return ctx.call_te(te.compute(shape, final, name="T_roi_pool"), "roi_pool")


def _legalize_roi_align(ctx):
    """TE-leg-vision-3: topi's roi_align for a fixed grid (sample_ratio > 0): one stage,
    a sum (avg, each sample divided by the count) or max reduction over the grid of
    bilinear samples, each neighbour read only where it lies in the image. An adaptive
    grid (sample_ratio <= 0) has extents read from rois: TIR loops (TE-leg-vision-7)."""
    ratio = ctx.attr("sample_ratio")
    if ratio <= 0:  # the grid's extent is read from rois: loops written as TIR
        from .vision_roi_lowering import legalize_roi_align_adaptive

        return legalize_roi_align_adaptive(ctx)
    nhwc = ctx.attr("layout") == "NHWC"
    data, rois = ctx.tensor(0, "data"), ctx.tensor(1, "rois")
    if nhwc:
        _, h, w, c = data.shape
    else:
        _, c, h, w = data.shape
    ph_n, pw_n = ctx.attr("pooled_size")
    dt = rois.dtype
    scale = te.const(ctx.attr("spatial_scale"), dt)
    half, zero, one = te.const(0.5, dt), te.const(0.0, dt), te.const(1.0, dt)
    grid = te.const(float(ratio), dt)
    count = te.const(float(ratio * ratio), dt)
    hf, wf = te.cast(dt, h), te.cast(dt, w)
    aligned, avg = ctx.attr("aligned"), ctx.attr("mode") == "avg"
    ry, rx = te.reduce_axis((0, ratio), "rh"), te.reduce_axis((0, ratio), "rw")

    def lt(a, b):
        return P.LT(a, b, BOOL)

    def read(bi, ci, yp, xp):
        return data[bi, yp, xp, ci] if nhwc else data[bi, ci, yp, xp]

    def bilinear(bi, ci, y, x):
        outside = te.any_of(lt(y, te.const(-1.0, dt)), lt(x, te.const(-1.0, dt)),
                            lt(hf, y), lt(wf, x))
        y = P.Min(_max(y, zero), te.cast(dt, h - 1), dt)
        x = P.Min(_max(x, zero), te.cast(dt, w - 1), dt)
        y0 = te.cast(INT32, te.call_intrin("floor", y))
        x0 = te.cast(INT32, te.call_intrin("floor", x))
        wy_h, wx_h = y - te.cast(dt, y0), x - te.cast(dt, x0)
        wy_l, wx_l = one - wy_h, one - wx_h
        val = None
        for wx, xp in ((wx_l, x0), (wx_h, x0 + 1)):
            for wy, yp in ((wy_l, y0), (wy_h, y0 + 1)):
                inside = te.all_of(P.LE(te.const(0, INT32), yp, BOOL),
                                   P.LE(yp, te.cast(INT32, h - 1), BOOL),
                                   P.LE(te.const(0, INT32), xp, BOOL),
                                   P.LE(xp, te.cast(INT32, w - 1), BOOL))
                term = te.if_then_else(inside, wx * wy * read(bi, ci, yp, xp),
                                       te.const(0.0, data.dtype))
                val = term if val is None else val + term
        return te.if_then_else(outside, te.const(0.0, data.dtype), val)

    def cell(i, ci, p, q):
        sw, sh = rois[i, 1] * scale, rois[i, 2] * scale
        ew, eh = rois[i, 3] * scale, rois[i, 4] * scale
        roi_h, roi_w = eh - sh, ew - sw
        if not aligned:
            roi_h, roi_w = _max(roi_h, one), _max(roi_w, one)
        bin_h = te.div(roi_h, te.const(float(ph_n), dt))
        bin_w = te.div(roi_w, te.const(float(pw_n), dt))
        y0 = sh + te.cast(dt, p) * bin_h
        x0 = sw + te.cast(dt, q) * bin_w
        y = y0 + te.div((te.cast(dt, ry.var) + half) * bin_h, grid)
        x = x0 + te.div((te.cast(dt, rx.var) + half) * bin_w, grid)
        v = bilinear(te.cast(INT32, rois[i, 0]), ci, y, x)
        if avg:
            return te.sum(te.div(v, count), axis=[ry, rx])
        return te.max(v, axis=[ry, rx])

    if nhwc:
        out = te.compute((rois.shape[0], ph_n, pw_n, c),
                         lambda i, p, q, ci: cell(i, ci, p, q), name="T_roi_align")
    else:
        out = te.compute((rois.shape[0], c, ph_n, pw_n), cell, name="T_roi_align")
    return ctx.call_te(out, "roi_align")


_POOLED = Attr("pooled_size", convert=to_pooled_size)
register(OpDef("relax.vision.roi_pool", (Operand("data"), Operand("rois")),
               (_POOLED, Attr("spatial_scale", convert=to_float),
                Attr("layout", "NCHW", one_of("NCHW", "NHWC"))),
               deduce=deduce_roi_pool, compute=compute_roi_pool, family=FAMILY,
               spec_rule="SI-vision-roi-1", legalize=_legalize_roi_pool))
register(OpDef("relax.vision.roi_align", (Operand("data"), Operand("rois")),
               (_POOLED, Attr("spatial_scale", convert=to_float),
                Attr("sample_ratio", -1, to_int), Attr("aligned", False, to_bool),
                Attr("layout", "NCHW", one_of("NCHW", "NHWC")),
                Attr("mode", "avg", one_of("avg", "max"))),
               deduce=deduce_roi_align, compute=compute_roi_align, family=FAMILY,
               spec_rule="SI-vision-roi-2", legalize=_legalize_roi_align))
