"""The lowerings of ``R.vision.get_valid_counts``, ``R.vision.non_max_suppression``
and ``R.vision.all_class_non_max_suppression`` (spec/ops/vision.md TE-leg-vision-4..6): serial loop nests written as TIR directly, as
topi's IRBuilder kernels, since ``compute`` stages cannot express a running count, a
sort or a suppression loop."""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, FLOAT32, HANDLE, INT32, INT64
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import substitute

_TRUE = P.IntImm(1, BOOL)
_ZERO = P.IntImm(0, INT64)


def _loop(name: str, extent: P.PrimExpr, body) -> tir.For:
    v = P.Var(name, INT64)
    return tir.For(v, _ZERO, extent, "serial", body(v))


def get_valid_counts_prim_func(shape, dtype, threshold: float, id_index: int,
                               score_index: int) -> tir.PrimFunc:
    """TE-leg-vision-4: per batch ``i``, ``count[i]`` runs over the anchors, copying each
    valid row to position ``count[i]`` with its index; a second loop fills the rest with
    -1. The caller's symbolic dimensions are the PrimFunc's own (bound by the buffers)."""
    fresh = {}
    for d in shape:
        for v in P.free_vars(d):
            fresh.setdefault(v, P.Var(v.name, v.dtype))
    b, a, e = (substitute(d, fresh) for d in shape)
    data = tir.Buffer("data", (b, a, e), dtype)
    count = tir.Buffer("valid_count", (b,), INT32)
    out = tir.Buffer("out_tensor", (b, a, e), dtype)
    idx = tir.Buffer("out_indices", (b, a), INT32)
    minus = P.FloatImm(-1.0, dtype)

    def batch(i):
        cur = tir.BufferLoad(count, (i,), INT32)
        cur64 = P.Cast(INT64, cur)

        def anchor(j):
            score = tir.BufferLoad(data, (i, j, P.IntImm(score_index, INT64)), dtype)
            valid = P.GT(score, P.FloatImm(threshold, dtype), BOOL)
            if id_index >= 0:
                cls = tir.BufferLoad(data, (i, j, P.IntImm(id_index, INT64)), dtype)
                valid = P.And(valid, P.GE(cls, P.FloatImm(0.0, dtype), BOOL), BOOL)
            copy = _loop("k", e, lambda k: tir.BufferStore(
                out, tir.BufferLoad(data, (i, j, k), dtype), (i, cur64, k)))
            return tir.IfThenElse(valid, tir.SeqStmt((
                copy, tir.BufferStore(idx, P.Cast(INT32, j), (i, cur64)),
                tir.BufferStore(count, P.Add(cur, P.IntImm(1, INT32), INT32), (i,)))))

        def fill(j):
            rest = P.GE(P.Cast(INT32, j), cur, BOOL)
            return tir.IfThenElse(rest, tir.SeqStmt((
                _loop("k", e, lambda k: tir.BufferStore(out, minus, (i, j, k))),
                tir.BufferStore(idx, P.IntImm(-1, INT32), (i, j)))))
        return tir.SeqStmt((tir.BufferStore(count, P.IntImm(0, INT32), (i,)),
                            _loop("j", a, anchor), _loop("j", a, fill)))

    block = tir.SBlock("get_valid_counts", (), (), (), _loop("i", b, batch))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    handles = tuple(P.Var(buf.name, HANDLE) for buf in (data, count, out, idx))
    return tir.PrimFunc(handles, tuple(zip(handles, (data, count, out, idx))),
                        tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)


def legalize_get_valid_counts(ctx):
    data = ctx.arg_sinfo[0]
    if not isinstance(data, si.TensorStructInfo) or data.shape is None or data.dtype.is_void:
        raise ctx.decline("the shape or dtype of data is unknown")
    if not all(isinstance(d, (P.Var, P.IntImm)) for d in data.shape):
        raise ctx.decline("a dimension of data is a compound expression")
    func = get_valid_counts_prim_func(tuple(data.shape), data.dtype,
                                      ctx.attr("score_threshold"), ctx.attr("id_index"),
                                      ctx.attr("score_index"))
    gv = ctx.add_prim_func("get_valid_counts", func)
    out = ctx.result_sinfo
    return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple((ctx.args[0],))),
                   sinfo_args=tuple(out.fields), span=ctx.call.span)


# -- non_max_suppression (hard) -----------------------------------------------------------------------

def _i32(v: int) -> P.IntImm:
    return P.IntImm(v, INT32)


def _ld(buf: tir.Buffer, *idx) -> tir.BufferLoad:
    return tir.BufferLoad(buf, tuple(idx), buf.dtype)


def _st(buf: tir.Buffer, value, *idx) -> tir.BufferStore:
    return tir.BufferStore(buf, value, tuple(idx))


def _seq(*stmts) -> tir.Stmt:
    return tir.SeqStmt(tuple(stmts))


def _and(*conds):
    out = conds[0]
    for c in conds[1:]:
        out = P.And(out, c, BOOL)
    return out


def _or(a, b):
    return P.Or(a, b, BOOL)


def _i64(e):
    return P.Cast(INT64, e)


def nms_prim_func(shape, dtype, attrs) -> tir.PrimFunc:
    """TE-leg-vision-5: NMS as one PrimFunc (topi's kernel after its argsort): per batch a
    stable selection sort of the first valid_count scores (descending, NaN last; reading
    past the anchors traps as the semantics does), the top-k copy, the hard suppression
    loop or the soft-NMS rounds, then the compaction of the surviving indices, the -1
    filling, or the rearrangement of invalid_to_bottom."""
    fresh = {}
    for d in shape:
        for v in P.free_vars(d):
            fresh.setdefault(v, P.Var(v.name, v.dtype))
    b, a, e = (substitute(d, fresh) for d in shape)
    g = attrs.get
    si_, cs, ii = g("score_index"), g("coord_start"), g("id_index")
    top_k, max_out = g("top_k"), g("max_output_size")
    force = g("force_suppress") or ii < 0
    data = tir.Buffer("data", (b, a, e), dtype)
    vcount = tir.Buffer("valid_count", (b,), INT32)
    indices = tir.Buffer("indices", (b, a), INT32)
    box_out = tir.Buffer("box_indices", (b, a), INT32)
    count_out = tir.Buffer("valid_box_count", (b, P.IntImm(1)), INT32)
    out = tir.Buffer("out_data", (b, a, e), dtype)
    box = tir.Buffer("box", (b, a), INT32)
    order = tir.Buffer("order", (a,), INT32)
    picked = tir.Buffer("picked", (a,), INT32)
    scal = tir.Buffer("scalars", (P.IntImm(4),), INT32)  # nkeep, best, nv, kept
    fl = tir.Buffer("floats", (P.IntImm(2),), dtype)      # best score, IoU (soft NMS)
    soft, ret_idx, to_bottom = g("soft_nms_sigma") > 0.0, g("return_indices"), \
        g("invalid_to_bottom")
    moved = tir.Buffer("rearranged", (b, a, e), dtype)
    soft_thresh = P.FloatImm(float(np.float32(g("score_threshold"))), dtype)
    soft_scale = P.FloatImm(float(np.float32(-0.5 / g("soft_nms_sigma"))) if soft else 0.0,
                            dtype)
    nkeep, best, nv, kept = (_ld(scal, P.IntImm(k)) for k in range(4))

    def set_(k, value):
        return _st(scal, value, P.IntImm(k))

    zero, minus = P.FloatImm(0.0, dtype), P.FloatImm(-1.0, dtype)
    thr = P.FloatImm(g("iou_threshold"), dtype)

    def score_at(buf, i, j):
        return _ld(buf, i, j, P.IntImm(si_))

    def isnan(x):
        return P.NE(x, x, BOOL)

    def iou(i, j, k):
        def corners(r):
            c = [_ld(out, i, r, P.IntImm(cs + t)) for t in range(4)]
            return (P.Min(c[0], c[2], dtype), P.Min(c[1], c[3], dtype),
                    P.Max(c[0], c[2], dtype), P.Max(c[1], c[3], dtype))
        al, at, ar, ab = corners(j)
        bl, bt, br, bb = corners(k)
        w = P.Max(zero, P.Sub(P.Min(ar, br, dtype), P.Max(al, bl, dtype), dtype), dtype)
        h = P.Max(zero, P.Sub(P.Min(ab, bb, dtype), P.Max(at, bt, dtype), dtype), dtype)
        inter = P.Mul(h, w, dtype)
        area_a = P.Mul(P.Sub(ar, al, dtype), P.Sub(ab, at, dtype), dtype)
        area_b = P.Mul(P.Sub(br, bl, dtype), P.Sub(bb, bt, dtype), dtype)
        union = P.Sub(P.Add(area_a, area_b, dtype), inter, dtype)
        return P.Call("tir.if_then_else", (P.LE(union, zero, BOOL), zero,
                                           P.Div(inter, union, dtype)), dtype)

    def batch(i):
        vc = _ld(vcount, i)
        vc_pos = _i64(P.Max(vc, _i32(0), INT32))
        nkeep_pos = _i64(P.Max(nkeep, _i32(0), INT32))

        def pick(r):
            def better(j):
                sj, sb = score_at(data, i, j), score_at(data, i, _i64(best))
                newer = _and(P.EQ(_ld(picked, j), _i32(0), BOOL), P.Not(isnan(sj), BOOL))
                # best < 0, or a strictly higher score, or best is NaN (NaN sorts last)
                wins = _or(P.LT(best, _i32(0), BOOL),
                           P.Call("tir.if_then_else", (P.LT(best, _i32(0), BOOL), _TRUE,
                                  _or(P.GT(sj, sb, BOOL), isnan(sb))), BOOL))
                return tir.IfThenElse(_and(newer, wins), set_(1, P.Cast(INT32, j)))

            def nan_pick(j):  # after every number: the NaN scores in index order
                sj = score_at(data, i, j)
                return tir.IfThenElse(_and(P.LT(best, _i32(0), BOOL),
                                           P.EQ(_ld(picked, j), _i32(0), BOOL), isnan(sj)),
                                      set_(1, P.Cast(INT32, j)))
            return _seq(set_(1, _i32(-1)), _loop("j", vc_pos, better),
                        _loop("j", vc_pos, nan_pick),
                        _st(order, best, r), _st(picked, _i32(1), _i64(best)))

        keep = vc if top_k <= 0 else P.Call(
            "tir.if_then_else", (_and(P.LT(_i32(0), _i32(top_k), BOOL),
                                      P.LT(_i32(top_k), vc, BOOL)), _i32(top_k), vc), INT32)

        def copy(j):
            inside = P.LT(P.Cast(INT32, j), nkeep, BOOL)
            src = _i64(_ld(order, j))
            return tir.IfThenElse(
                inside,
                _seq(_loop("k", e, lambda k: _st(out, _ld(data, i, src, k), i, j, k)),
                     _st(box, _ld(order, j), i, j)),
                _seq(_loop("k", e, lambda k: _st(out, minus, i, j, k)),
                     _st(box, _i32(-1), i, j)))

        def select(j):
            limit = _TRUE if max_out <= 0 else P.LT(nv, _i32(max_out), BOOL)

            def suppress(k):
                same = _TRUE if force else P.EQ(_ld(out, i, j, P.IntImm(ii)),
                                                _ld(out, i, k, P.IntImm(ii)), BOOL)
                cond = _and(P.GT(k, j, BOOL), P.GT(score_at(out, i, k), zero, BOOL), same,
                            P.GE(iou(i, j, k), thr, BOOL))
                return tir.IfThenElse(cond, _seq(_st(out, minus, i, k, P.IntImm(si_)),
                                                 _st(box, _i32(-1), i, k)))
            return tir.IfThenElse(
                _and(P.GT(score_at(out, i, j), zero, BOOL), limit),
                _seq(set_(2, P.Add(nv, _i32(1), INT32)), _loop("k", nkeep_pos, suppress)),
                _seq(_loop("k", e, lambda k: _st(out, minus, i, j, k)),
                     _st(box, _i32(-1), i, j)))

        def compact(j):
            orig = _ld(box, i, j)
            return tir.IfThenElse(P.GE(orig, _i32(0), BOOL), _seq(
                _st(box_out, _ld(indices, i, _i64(orig)), i, _i64(kept)),
                set_(3, P.Add(kept, _i32(1), INT32))))

        def fill(j):
            return tir.IfThenElse(P.GE(P.Cast(INT32, j), kept, BOOL),
                                  _st(box_out, _i32(-1), i, j))
        def soft_round(_):
            """One choice of soft NMS (EXEC-vision-box-3), topi's order of steps."""
            best_score = _ld(fl, P.IntImm(0))
            cur_iou = _ld(fl, P.IntImm(1))

            def scan(j):
                cond = _and(P.GE(P.Cast(INT32, j), nv, BOOL), P.GE(_ld(box, i, j), _i32(0), BOOL),
                            P.GT(score_at(out, i, j), best_score, BOOL))
                return tir.IfThenElse(cond, _seq(set_(1, P.Cast(INT32, j)),
                                                 _st(fl, score_at(out, i, j), P.IntImm(0))))
            nv64, best64 = _i64(nv), _i64(best)

            def swap_row(k):
                return _seq(_st(fl, _ld(out, i, nv64, k), P.IntImm(1)),
                            _st(out, _ld(out, i, best64, k), i, nv64, k),
                            _st(out, _ld(fl, P.IntImm(1)), i, best64, k))
            swap = tir.IfThenElse(P.NE(best, nv, BOOL), _seq(
                set_(3, _ld(box, i, nv64)), _st(box, _ld(box, i, best64), i, nv64),
                _st(box, kept, i, best64), _loop("k", e, swap_row)))

            def decay(j):
                same = _TRUE if force else P.EQ(_ld(out, i, nv64, P.IntImm(ii)),
                                                _ld(out, i, j, P.IntImm(ii)), BOOL)
                cond = _and(P.GT(P.Cast(INT32, j), nv, BOOL), P.GE(_ld(box, i, j), _i32(0), BOOL),
                            P.GT(score_at(out, i, j), soft_thresh, BOOL), same)
                factor = P.Call("tir.exp", (P.Mul(P.Mul(soft_scale, cur_iou, dtype), cur_iou,
                                                  dtype),), dtype)
                decayed = _seq(_st(out, P.Mul(score_at(out, i, j), factor, dtype), i, j,
                                   P.IntImm(si_)),
                               tir.IfThenElse(P.LE(score_at(out, i, j), soft_thresh, BOOL),
                                              _st(box, _i32(-1), i, j)))
                return tir.IfThenElse(cond, _seq(
                    _st(fl, iou(i, nv64, j), P.IntImm(1)),
                    tir.IfThenElse(P.GE(cur_iou, thr, BOOL), _st(box, _i32(-1), i, j),
                                   decayed)))
            limit = _TRUE if max_out <= 0 else P.LT(nv, _i32(max_out), BOOL)
            return tir.IfThenElse(limit, _seq(
                set_(1, _i32(-1)), _st(fl, soft_thresh, P.IntImm(0)), _loop("j", nkeep_pos, scan),
                tir.IfThenElse(P.GE(best, _i32(0), BOOL), _seq(
                    swap, _loop("j", nkeep_pos, decay), set_(2, P.Add(nv, _i32(1), INT32))))))

        def soft_finish(j):
            lead = P.LT(P.Cast(INT32, j), nv, BOOL)
            minus_row = _loop("k", e, lambda k: _st(out, minus, i, j, k))
            if not ret_idx:
                return tir.IfThenElse(P.Not(lead, BOOL), minus_row)
            return tir.IfThenElse(lead, _st(box_out, _ld(indices, i, _i64(_ld(box, i, j))), i, j),
                                  _seq(minus_row, _st(box_out, _i32(-1), i, j)))

        head = (_loop("j", a, lambda j: _st(picked, _i32(0), j)), _loop("r", vc_pos, pick),
                set_(0, keep), _loop("j", a, copy), set_(2, _i32(0)))
        if soft:
            tail = [_loop("r", nkeep_pos, soft_round), _loop("j", a, soft_finish)]
            if ret_idx:
                tail.append(_st(count_out, nv, i, P.IntImm(0)))
            return _seq(*head, *tail)
        tail = [_loop("j", nkeep_pos, select)]
        if ret_idx:
            tail += [set_(3, _i32(0)), _loop("j", a, compact), _loop("j", a, fill),
                     _st(count_out, kept, i, P.IntImm(0))]
        elif to_bottom:
            def move(j):
                return tir.IfThenElse(P.GE(score_at(out, i, j), zero, BOOL), _seq(
                    _loop("k", e, lambda k: _st(moved, _ld(out, i, j, k), i, _i64(kept), k)),
                    set_(3, P.Add(kept, _i32(1), INT32))))

            def rest(j):
                return tir.IfThenElse(P.GE(P.Cast(INT32, j), kept, BOOL),
                                      _loop("k", e, lambda k: _st(moved, minus, i, j, k)))
            tail += [set_(3, _i32(0)), _loop("j", a, move), _loop("j", a, rest)]
        return _seq(*head, *tail)

    allocs = [box, order, picked, scal, fl]
    if ret_idx and not soft:
        outs = (box_out, count_out)
        allocs.insert(0, out)
    elif ret_idx:
        outs = (out, box_out, count_out)
    elif to_bottom:
        outs = (moved,)
        allocs.insert(0, out)
    else:
        outs = (out,)
    block = tir.SBlock("non_max_suppression", (), (), (), _loop("i", b, batch),
                       alloc_buffers=tuple(allocs))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    bufs = (data, vcount, indices, *outs)
    handles = tuple(P.Var(buf.name, HANDLE) for buf in bufs)
    return tir.PrimFunc(handles, tuple(zip(handles, bufs)), tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)


def legalize_nms(ctx):
    """TE-leg-vision-5: every form (hard or soft, indices or data)."""
    data = ctx.arg_sinfo[0]
    if not isinstance(data, si.TensorStructInfo) or data.shape is None or data.dtype.is_void:
        raise ctx.decline("the shape or dtype of data is unknown")
    if not all(isinstance(d, (P.Var, P.IntImm)) for d in data.shape):
        raise ctx.decline("a dimension of data is a compound expression")
    for k in (1, 2):
        s = ctx.arg_sinfo[k]
        if not isinstance(s, si.TensorStructInfo) or s.shape is None:
            raise ctx.decline("valid_count or indices has an unknown shape")
    func = nms_prim_func(tuple(data.shape), data.dtype, ctx.call.attrs)
    gv = ctx.add_prim_func("non_max_suppression", func)
    out = ctx.result_sinfo
    fields = tuple(out.fields) if isinstance(out, si.TupleStructInfo) else (out,)
    return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple(tuple(ctx.args))),
                   sinfo_args=fields, span=ctx.call.span)


# -- all_class_non_max_suppression -----------------------------------------------------------------

def _selection_sort(score, n, order, picked, set_best, best):
    """Statements sorting positions ``0..n`` by ``score(j)`` descending and stable, NaN
    last in index order, into ``order`` (``picked`` marks the taken ones)."""
    def isnan(x):
        return P.NE(x, x, BOOL)

    def pick(r):
        def better(j):
            sj = score(j)
            newer = _and(P.EQ(_ld(picked, j), _i32(0), BOOL), P.Not(isnan(sj), BOOL))
            wins = _or(P.LT(best, _i32(0), BOOL),
                       P.Call("tir.if_then_else", (P.LT(best, _i32(0), BOOL), _TRUE,
                                                   P.GT(sj, score(_i64(best)), BOOL)), BOOL))
            return tir.IfThenElse(_and(newer, wins), set_best(P.Cast(INT32, j)))

        def nan_pick(j):
            return tir.IfThenElse(_and(P.LT(best, _i32(0), BOOL),
                                       P.EQ(_ld(picked, j), _i32(0), BOOL), isnan(score(j))),
                                  set_best(P.Cast(INT32, j)))
        return _seq(set_best(_i32(-1)), _loop("j", n, better), _loop("j", n, nan_pick),
                    _st(order, best, r), _st(picked, _i32(1), _i64(best)))
    return _seq(_loop("j", n, lambda j: _st(picked, _i32(0), j)), _loop("r", n, pick))


def all_class_nms_prim_func(bshape, sshape, dtypes, scalar_shapes, onnx: bool):
    """TE-leg-vision-6: the all-class NMS of EXEC-vision-box-4 as one PrimFunc: per batch
    and class a stable selection sort, the count of leading scores above the threshold,
    topi's suppression loop, and the chosen rows written in order."""
    fresh = {}
    for d in tuple(bshape) + tuple(sshape) + tuple(x for s in scalar_shapes for x in s):
        for v in P.free_vars(d):
            fresh.setdefault(v, P.Var(v.name, v.dtype))
    bdims = tuple(substitute(d, fresh) for d in bshape)
    b, n, _ = bdims
    sdims = tuple(substitute(d, fresh) for d in sshape)
    c = sdims[1]
    bdt, sdt, mdt, idt, tdt = dtypes
    boxes = tir.Buffer("boxes", bdims, bdt)
    scores = tir.Buffer("scores", sdims, sdt)
    names = ("max_output_boxes_per_class", "iou_threshold", "score_threshold")
    scal_in = [tir.Buffer(nm, tuple(substitute(d, fresh) for d in shp), dt)
               for nm, shp, dt in zip(names, scalar_shapes, (mdt, idt, tdt))]
    f32 = FLOAT32
    order = tir.Buffer("order", (n,), INT32)
    picked = tir.Buffer("picked", (n,), INT32)
    sbuf = tir.Buffer("sorted_scores", (n,), f32)
    ints = tir.Buffer("counters", (P.IntImm(4),), INT64)  # best, valid, chosen, rows
    best, valid, chosen, rows = (_ld(ints, P.IntImm(k)) for k in range(4))

    def set_(k, v):
        return _st(ints, v, P.IntImm(k))

    def one(buf):
        return _ld(buf, *([P.IntImm(0)] * len(buf.shape)))
    max_out = P.Cast(INT64, one(scal_in[0]))
    iou_t = P.Cast(f32, one(scal_in[1]))
    score_t = P.Cast(f32, one(scal_in[2]))
    if onnx:
        out_idx = tir.Buffer("selected_indices", (P.Mul(P.Mul(b, c, INT64), n, INT64),
                                                  P.IntImm(3)), INT64)
        out_count = tir.Buffer("num_total_detections", (P.IntImm(1),), INT64)
        outs = (out_idx, out_count)
    else:
        out_idx = tir.Buffer("selected_indices", (b, P.Mul(c, n, INT64), P.IntImm(2)), INT64)
        out_sc = tir.Buffer("selected_scores", (b, P.Mul(c, n, INT64)), f32)
        out_count = tir.Buffer("num_detections", (b,), INT64)
        outs = (out_idx, out_sc, out_count)
    zero_f = P.FloatImm(0.0, bdt)

    def iou(bi, p, q):
        def corners(r):
            k = [_ld(boxes, bi, r, P.IntImm(t)) for t in range(4)]
            return (P.Min(k[0], k[2], bdt), P.Min(k[1], k[3], bdt),
                    P.Max(k[0], k[2], bdt), P.Max(k[1], k[3], bdt))
        al, at, ar, ab = corners(p)
        bl, bt, br, bb = corners(q)
        w = P.Max(zero_f, P.Sub(P.Min(ar, br, bdt), P.Max(al, bl, bdt), bdt), bdt)
        h = P.Max(zero_f, P.Sub(P.Min(ab, bb, bdt), P.Max(at, bt, bdt), bdt), bdt)
        inter = P.Mul(h, w, bdt)
        union = P.Sub(P.Add(P.Mul(P.Sub(ar, al, bdt), P.Sub(ab, at, bdt), bdt),
                            P.Mul(P.Sub(br, bl, bdt), P.Sub(bb, bt, bdt), bdt), bdt),
                      inter, bdt)
        return P.Cast(f32, P.Call("tir.if_then_else", (P.LE(union, zero_f, BOOL), zero_f,
                                                       P.Div(inter, union, bdt)), bdt))

    def per_class(bi, ci):
        def at(j):
            return _ld(sbuf, j)
        sort = _selection_sort(lambda j: _ld(scores, bi, ci, j), n, order, picked,
                               lambda v: set_(0, P.Cast(INT64, v)),
                               P.Cast(INT32, best))
        copy = _loop("j", n, lambda j: _st(sbuf, P.Cast(f32, _ld(scores, bi, ci,
                                                                 _i64(_ld(order, j)))), j))
        count = _loop("j", n, lambda j: tir.IfThenElse(
            _and(P.EQ(j, valid, BOOL), P.GT(at(j), score_t, BOOL)),
            set_(1, P.Add(valid, P.IntImm(1), INT64))))

        def record(j):
            box = P.Cast(INT64, _ld(order, j))
            if onnx:
                writes = (_st(out_idx, bi, rows, P.IntImm(0)),
                          _st(out_idx, ci, rows, P.IntImm(1)),
                          _st(out_idx, box, rows, P.IntImm(2)))
            else:
                writes = (_st(out_idx, ci, bi, rows, P.IntImm(0)),
                          _st(out_idx, box, bi, rows, P.IntImm(1)),
                          _st(out_sc, at(j), bi, rows))
            return _seq(*writes, set_(3, P.Add(rows, P.IntImm(1), INT64)),
                        set_(2, P.Add(chosen, P.IntImm(1), INT64)))

        def walk(j):
            def suppress(k):
                cond = _and(P.GT(k, j, BOOL), P.GT(at(k), P.FloatImm(0.0, f32), BOOL),
                            P.GE(iou(bi, _i64(_ld(order, j)), _i64(_ld(order, k))), iou_t,
                                 BOOL))
                return tir.IfThenElse(cond, _st(sbuf, P.FloatImm(-1.0, f32), k))
            take = _and(P.GT(at(j), P.FloatImm(-1.0, f32), BOOL), P.LT(chosen, max_out, BOOL),
                        P.GT(at(j), score_t, BOOL))
            return tir.IfThenElse(take, _seq(record(j), _loop("k", valid, suppress)))
        nms = tir.IfThenElse(_and(P.GT(iou_t, P.FloatImm(0.0, f32), BOOL),
                                  P.GT(valid, P.IntImm(0), BOOL)), _loop("j", valid, walk))
        return _seq(sort, copy, set_(1, P.IntImm(0)), count, set_(2, P.IntImm(0)), nms)

    def per_batch(bi):
        body = _loop("ci", c, lambda ci: per_class(bi, ci))
        if onnx:
            return body
        return _seq(set_(3, P.IntImm(0)), body, _st(out_count, rows, bi))

    zero_i = P.IntImm(0, INT64)
    if onnx:
        init = _loop("r", out_idx.shape[0], lambda r: _loop(
            "k", P.IntImm(3), lambda k: _st(out_idx, zero_i, r, k)))
        body = _seq(init, set_(3, P.IntImm(0)), _loop("bi", b, per_batch),
                    _st(out_count, rows, P.IntImm(0)))
    else:
        init = _loop("bi", b, lambda bi: _loop("r", out_sc.shape[1], lambda r: _seq(
            _st(out_idx, zero_i, bi, r, P.IntImm(0)), _st(out_idx, zero_i, bi, r, P.IntImm(1)),
            _st(out_sc, P.FloatImm(0.0, f32), bi, r))))
        body = _seq(init, _loop("bi", b, per_batch))
    block = tir.SBlock("all_class_non_max_suppression", (), (), (), body,
                       alloc_buffers=(order, picked, sbuf, ints))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    bufs = (boxes, scores, *scal_in, *outs)
    handles = tuple(P.Var(buf.name, HANDLE) for buf in bufs)
    return tir.PrimFunc(handles, tuple(zip(handles, bufs)), tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)


def legalize_all_class_nms(ctx):
    """TE-leg-vision-6; declined where a shape or dtype is unknown or a dimension is a
    compound expression."""
    sinfos = ctx.arg_sinfo
    for s in sinfos:
        if not isinstance(s, si.TensorStructInfo) or s.shape is None or s.dtype.is_void:
            raise ctx.decline("an operand's shape or dtype is unknown")
        if not all(isinstance(d, (P.Var, P.IntImm)) for d in s.shape):
            raise ctx.decline("a dimension is a compound expression")
    func = all_class_nms_prim_func(tuple(sinfos[0].shape), tuple(sinfos[1].shape),
                                   tuple(s.dtype for s in sinfos),
                                   tuple(tuple(s.shape) for s in sinfos[2:]),
                                   ctx.attr("output_format") == "onnx")
    gv = ctx.add_prim_func("all_class_non_max_suppression", func)
    return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple(tuple(ctx.args))),
                   sinfo_args=tuple(ctx.result_sinfo.fields), span=ctx.call.span)
