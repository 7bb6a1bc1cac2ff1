"""The lowering of ``R.vision.roi_align`` with an adaptive sampling grid (spec/ops/vision.md
TE-leg-vision-7): the grid's extent is read from rois, so the loops are written as TIR
directly (a ``compute`` reduction needs extents known before the data)."""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT32, INT64
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import substitute

from .vision_boxes_lowering import _TRUE, _and, _i32, _i64, _ld, _loop, _seq, _st


def _if(c, a, b):
    return P.Call("tir.if_then_else", (c, a, b), a.dtype)


def roi_align_adaptive_prim_func(dshape, rshape, dtype, rdtype, attrs) -> tir.PrimFunc:
    """Per output cell: the bin's grid sizes ceil(bin size) as int32, then serial loops
    over them summing ``sample / count`` (avg) or folding TIR's max from -inf; 0 where
    the grid is empty. Every float step as the semantics (EXEC-vision-roi-3)."""
    fresh = {}
    for d in tuple(dshape) + tuple(rshape):
        for v in P.free_vars(d):
            fresh.setdefault(v, P.Var(v.name, v.dtype))
    ddims = tuple(substitute(d, fresh) for d in dshape)
    rdims = tuple(substitute(d, fresh) for d in rshape)
    g = attrs.get
    nhwc, avg, aligned = g("layout") == "NHWC", g("mode") == "avg", g("aligned")
    ph_n, pw_n = g("pooled_size")
    if nhwc:
        _, h, w, c = ddims
    else:
        _, c, h, w = ddims
    num = rdims[0]
    data = tir.Buffer("data", ddims, dtype)
    rois = tir.Buffer("rois", rdims, rdtype)
    oshape = (num, P.IntImm(ph_n), P.IntImm(pw_n), c) if nhwc else \
        (num, c, P.IntImm(ph_n), P.IntImm(pw_n))
    out = tir.Buffer("T_roi_align", oshape, dtype)
    grid = tir.Buffer("grid", (P.IntImm(2),), INT32)
    acc = tir.Buffer("acc", (P.IntImm(1),), dtype)
    dt = rdtype

    def f(v):
        return P.FloatImm(float(v), dt)
    scale, half, zero, one = f(g("spatial_scale")), f(0.5), f(0.0), f(1.0)
    hf, wf = P.Cast(dt, h), P.Cast(dt, w)

    def read(bi, ci, yp, xp):
        idx = (bi, _i64(yp), _i64(xp), ci) if nhwc else (bi, ci, _i64(yp), _i64(xp))
        return _ld(data, *idx)

    def bilinear(bi, ci, y, x):
        outside = P.Or(P.Or(P.LT(y, f(-1.0), BOOL), P.LT(x, f(-1.0), BOOL), BOOL),
                       P.Or(P.LT(hf, y, BOOL), P.LT(wf, x, BOOL), BOOL), BOOL)
        y = P.Min(P.Max(y, zero, dt), P.Cast(dt, P.Sub(h, P.IntImm(1), INT64)), dt)
        x = P.Min(P.Max(x, zero, dt), P.Cast(dt, P.Sub(w, P.IntImm(1), INT64)), dt)
        y0 = P.Cast(INT32, P.Call("tir.floor", (y,), dt))
        x0 = P.Cast(INT32, P.Call("tir.floor", (x,), dt))
        wy_h, wx_h = P.Sub(y, P.Cast(dt, y0), dt), P.Sub(x, P.Cast(dt, x0), dt)
        wy_l, wx_l = P.Sub(one, wy_h, dt), P.Sub(one, wx_h, dt)
        val = None
        hi_y, hi_x = P.Cast(INT32, P.Sub(h, P.IntImm(1), INT64)), \
            P.Cast(INT32, P.Sub(w, P.IntImm(1), INT64))
        for wx, xp in ((wx_l, x0), (wx_h, P.Add(x0, _i32(1), INT32))):
            for wy, yp in ((wy_l, y0), (wy_h, P.Add(y0, _i32(1), INT32))):
                inside = _and(P.LE(_i32(0), yp, BOOL), P.LE(yp, hi_y, BOOL),
                              P.LE(_i32(0), xp, BOOL), P.LE(xp, hi_x, BOOL))
                term = _if(inside, P.Mul(P.Mul(wx, wy, dt), read(bi, ci, yp, xp), dtype),
                           P.FloatImm(0.0, dtype))
                val = term if val is None else P.Add(val, term, dtype)
        return _if(outside, P.FloatImm(0.0, dtype), val)

    def cell(i, ci, p, q):
        r = [_ld(rois, i, P.IntImm(k)) for k in range(5)]
        sw, sh = P.Mul(r[1], scale, dt), P.Mul(r[2], scale, dt)
        ew, eh = P.Mul(r[3], scale, dt), P.Mul(r[4], scale, dt)
        roi_h, roi_w = P.Sub(eh, sh, dt), P.Sub(ew, sw, dt)
        if not aligned:
            roi_h, roi_w = P.Max(roi_h, one, dt), P.Max(roi_w, one, dt)
        bin_h, bin_w = P.Div(roi_h, f(ph_n), dt), P.Div(roi_w, f(pw_n), dt)
        gh, gw = _ld(grid, P.IntImm(0)), _ld(grid, P.IntImm(1))
        count = P.Cast(dt, P.Mul(gh, gw, INT32))
        y0 = P.Add(sh, P.Mul(P.Cast(dt, p), bin_h, dt), dt)
        x0 = P.Add(sw, P.Mul(P.Cast(dt, q), bin_w, dt), dt)
        bi = P.Cast(INT64, P.Cast(INT32, r[0]))
        store_at = (i, p, q, ci) if nhwc else (i, ci, p, q)

        def sample(ry, rx):
            y = P.Add(y0, P.Div(P.Mul(P.Add(P.Cast(dt, ry), half, dt), bin_h, dt),
                                P.Cast(dt, gh), dt), dt)
            x = P.Add(x0, P.Div(P.Mul(P.Add(P.Cast(dt, rx), half, dt), bin_w, dt),
                                P.Cast(dt, gw), dt), dt)
            v = bilinear(bi, ci, y, x)
            cur = _ld(acc, P.IntImm(0))
            new = P.Add(cur, P.Div(v, count, dtype), dtype) if avg else P.Max(cur, v, dtype)
            return _st(acc, new, P.IntImm(0))
        start = P.FloatImm(0.0, dtype) if avg else P.FloatImm(float("-inf"), dtype)
        grid_loops = _loop("ry", _i64(gh), lambda ry: _loop("rx", _i64(gw),
                                                             lambda rx: sample(ry, rx)))
        empty = P.Or(P.LE(gh, _i32(0), BOOL), P.LE(gw, _i32(0), BOOL), BOOL)
        return _seq(
            _st(grid, P.Cast(INT32, P.Call("tir.ceil", (P.Div(roi_h, f(ph_n), dt),), dt)),
                P.IntImm(0)),
            _st(grid, P.Cast(INT32, P.Call("tir.ceil", (P.Div(roi_w, f(pw_n), dt),), dt)),
                P.IntImm(1)),
            tir.IfThenElse(empty, _st(out, P.FloatImm(0.0, dtype), *store_at),
                           _seq(_st(acc, start, P.IntImm(0)), grid_loops,
                                _st(out, _ld(acc, P.IntImm(0)), *store_at))))

    body = _loop("i", num, lambda i: _loop("c", c, lambda ci: _loop(
        "p", P.IntImm(ph_n), lambda p: _loop("q", P.IntImm(pw_n), lambda q: cell(i, ci, p, q)))))
    block = tir.SBlock("roi_align", (), (), (), body, alloc_buffers=(grid, acc))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    bufs = (data, rois, out)
    handles = tuple(P.Var(b.name, HANDLE) for b in bufs)
    return tir.PrimFunc(handles, tuple(zip(handles, bufs)), tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)


def legalize_roi_align_adaptive(ctx):
    data, rois = ctx.arg_sinfo
    for s in (data, rois):
        if not isinstance(s, si.TensorStructInfo) or s.shape is None or s.dtype.is_void:
            raise ctx.decline("a shape or dtype is unknown")
        if not all(isinstance(d, (P.Var, P.IntImm)) for d in s.shape):
            raise ctx.decline("a dimension is a compound expression")
    func = roi_align_adaptive_prim_func(tuple(data.shape), tuple(rois.shape), data.dtype,
                                        rois.dtype, ctx.call.attrs)
    gv = ctx.add_prim_func("roi_align", func)
    return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple(tuple(ctx.args))),
                   sinfo_args=(ctx.result_sinfo,), span=ctx.call.span)
