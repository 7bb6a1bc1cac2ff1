"""Box ops of ``R.vision``: ``get_valid_counts``, ``non_max_suppression`` and
``all_class_non_max_suppression``
(spec/ops/vision.md, family "vision").

The semantics run topi's algorithms (python/tvm/topi/vision/nms.py) step by step on
NumPy rows, in the data's float type, so results equal TVM's kernels: the same sort
(stable, descending score), the same IoU formula and comparisons, the same -1 filling.
TVM lowers these ops to imperative TIR (IRBuilder); relax_ref lowers them the same way
(ops/vision_boxes_lowering.py).
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import FLOAT32, INT32, INT64

from .common import OpRuntimeError, fold_mul, int_const, provably_ne, tensor_arg
from .vision import tmax, tmin
from .vision_boxes_lowering import legalize_all_class_nms, legalize_get_valid_counts, \
    legalize_nms
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, \
    to_float, to_int

FAMILY = "vision"


def _t(dims, dtype, ndim, vdev):
    if dims is None:
        return si.TensorStructInfo(None, dtype, ndim, vdev)
    return si.TensorStructInfo(tuple(dims), dtype, vdevice=vdev)


def _check_index(ctx, name: str, value: int, lo: int, elem, rule: str, span: int = 0):
    n = int_const(elem) if elem is not None else None
    if value < lo or (n is not None and value + span >= n):
        where = f"[{lo}, {n - span})" if n is not None else f">= {lo}"
        raise ctx.error(f"{name} must be in {where}, found {value}", rule=rule)


# -- get_valid_counts ------------------------------------------------------------------------------

def deduce_get_valid_counts(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-box-1: get_valid_counts(data) of a 3-D (batch, anchors, elem) float
    tensor is (valid_count int32 (batch,), out data's type (batch, anchors, elem),
    out_indices int32 (batch, anchors)); score_index in [0, elem) and id_index in
    [-1, elem) where elem is known."""
    data = tensor_arg(ctx, 0, "data")
    rule = "SI-vision-box-1"
    if data.ndim not in (si.UNKNOWN_NDIM, 3):
        raise ctx.error(f"data must be 3-D, found ndim {data.ndim}", rule=rule)
    if not data.dtype.is_void and not data.dtype.is_float:
        raise ctx.error(f"data must be floating point, found {data.dtype}", rule=rule)
    elem = data.shape[2] if data.shape is not None else None
    _check_index(ctx, "score_index", ctx.attr("score_index"), 0, elem, rule)
    _check_index(ctx, "id_index", ctx.attr("id_index"), -1, elem, rule)
    d = data.shape
    v = data.vdevice
    return si.TupleStructInfo((_t(d and d[:1], INT32, 1, v), _t(d, data.dtype, 3, v),
                               _t(d and d[:2], INT32, 2, v)))


def compute_get_valid_counts(attrs, data):
    """EXEC-vision-box-1: per batch, the rows whose score exceeds score_threshold (and
    whose class id is >= 0 unless id_index is -1) moved to the top in their order, their
    count, and their original positions; the rest -1."""
    b, a, e = data.shape
    dt = data.dtype.type
    thr = dt(attrs.get("score_threshold"))
    si_, ii = attrs.get("score_index"), attrs.get("id_index")
    count = np.zeros(b, np.int32)
    out = np.full(data.shape, dt(-1.0), data.dtype)
    idx = np.full((b, a), -1, np.int32)
    for i in range(b):
        for j in range(a):
            row = data[i, j]
            if row[si_] > thr and (ii < 0 or row[ii] >= dt(0)):
                out[i, count[i]] = row
                idx[i, count[i]] = j
                count[i] += 1
    return count, out, idx


# -- non_max_suppression ------------------------------------------------------------------------------

def deduce_nms(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-box-2: non_max_suppression(data, valid_count, indices): data 3-D float
    (batch, anchors, elem), valid_count int32 (batch,), indices int32 (batch, anchors)
    (provably different dimensions are errors); score_index in [0, elem), coord_start
    with coord_start + 3 < elem, id_index in [-1, elem). The result: with return_indices,
    (box_indices int32 (batch, anchors), valid_box_count int32 (batch, 1)), preceded by
    the decayed data when soft_nms_sigma > 0; without, the data's struct info."""
    rule = "SI-vision-box-2"
    data = tensor_arg(ctx, 0, "data")
    vc, ind = tensor_arg(ctx, 1, "valid_count"), tensor_arg(ctx, 2, "indices")
    for t, n, what in ((data, 3, "data"), (vc, 1, "valid_count"), (ind, 2, "indices")):
        if t.ndim not in (si.UNKNOWN_NDIM, n):
            raise ctx.error(f"{what} must be {n}-D, found ndim {t.ndim}", rule=rule)
    for t, what in ((vc, "valid_count"), (ind, "indices")):
        if not t.dtype.is_void and t.dtype != INT32:
            raise ctx.error(f"{what} must be int32, found {t.dtype}", rule=rule)
    if not data.dtype.is_void and not data.dtype.is_float:
        raise ctx.error(f"data must be floating point, found {data.dtype}", rule=rule)
    d = data.shape
    if d is not None:
        if vc.shape is not None and provably_ne(ctx, vc.shape[0], d[0]):
            raise ctx.error("valid_count must have shape (batch,)", rule=rule)
        if ind.shape is not None and (provably_ne(ctx, ind.shape[0], d[0]) or
                                      provably_ne(ctx, ind.shape[1], d[1])):
            raise ctx.error("indices must have shape (batch, anchors)", rule=rule)
        elem = d[2]
        _check_index(ctx, "score_index", ctx.attr("score_index"), 0, elem, rule)
        _check_index(ctx, "coord_start", ctx.attr("coord_start"), 0, elem, rule, span=3)
        _check_index(ctx, "id_index", ctx.attr("id_index"), -1, elem, rule)
    v = data.vdevice
    if not ctx.attr("return_indices"):
        return _t(d, data.dtype, 3, v)
    fields = [_t(d and d[:2], INT32, 2, v),
              _t(d and (d[0], P.IntImm(1)), INT32, 2, v)]
    if ctx.attr("soft_nms_sigma") > 0.0:
        fields.insert(0, _t(d, data.dtype, 3, v))
    return si.TupleStructInfo(tuple(fields))


def _iou(a, b, dt):
    """topi's IoU of two boxes given as corners in any order (0 for an empty union), with
    TIR's min and max (a NaN coordinate behaves as in TVM's kernel)."""
    al, ar = tmin(a[0], a[2]), tmax(a[0], a[2])
    at, ab = tmin(a[1], a[3]), tmax(a[1], a[3])
    bl, br = tmin(b[0], b[2]), tmax(b[0], b[2])
    bt, bb = tmin(b[1], b[3]), tmax(b[1], b[3])
    zero = dt(0)
    w = tmax(zero, tmin(ar, br) - tmax(al, bl))
    h = tmax(zero, tmin(ab, bb) - tmax(at, bt))
    inter = h * w
    union = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - inter
    return zero if union <= zero else inter / union


def compute_nms(attrs, data, valid_count, indices):
    """EXEC-vision-box-2 (hard NMS) and EXEC-vision-box-3 (soft NMS): see the spec."""
    b, a, e = data.shape
    dt = data.dtype.type
    g = attrs.get
    si_, cs, ii = g("score_index"), g("coord_start"), g("id_index")
    top_k, max_out = g("top_k"), g("max_output_size")
    iou_thr = dt(g("iou_threshold"))
    sigma = g("soft_nms_sigma")
    soft = sigma > 0.0
    thresh = dt(np.float32(g("score_threshold") if soft else 0.0))
    force = g("force_suppress") or ii < 0
    out = np.full(data.shape, dt(-1.0), data.dtype)
    box = np.full((b, a), -1, np.int32)
    count = np.zeros((b, 1), np.int32)
    minus = dt(-1.0)
    with np.errstate(all="ignore"):
        for i in range(b):
            vc = int(valid_count[i])
            if vc > a:
                raise OpRuntimeError("index_out_of_bounds", f"valid_count[{i}] = {vc} is more "
                                     f"than the {a} anchors", rule="EXEC-vision-box-2")
            order = np.argsort(-data[i, :max(vc, 0), si_].astype(np.float64), kind="stable")
            nkeep = top_k if 0 < top_k < vc else vc
            for j in range(max(nkeep, 0)):
                out[i, j] = data[i, order[j]]
                box[i, j] = order[j]
            rows, ids = out[i], box[i]

            def same_class(p, q):
                return force or rows[p, ii] == rows[q, ii]
            nv = 0
            if soft:
                scale = dt(np.float32(-0.5 / sigma))
                for _ in range(max(nkeep, 0)):
                    if max_out > 0 and nv >= max_out:
                        continue
                    best, best_score = -1, thresh
                    for j in range(nkeep):
                        if j >= nv and ids[j] >= 0 and rows[j, si_] > best_score:
                            best, best_score = j, rows[j, si_]
                    if best < 0:
                        continue
                    if best != nv:
                        ids[[nv, best]] = ids[[best, nv]]
                        rows[[nv, best]] = rows[[best, nv]]
                    for j in range(nkeep):
                        if j > nv and ids[j] >= 0 and rows[j, si_] > thresh and same_class(nv, j):
                            iou = _iou(rows[nv, cs:cs + 4], rows[j, cs:cs + 4], dt)
                            if iou >= iou_thr:
                                ids[j] = -1
                            else:
                                decay = dt(np.exp(np.float64(scale * iou * iou)))
                                rows[j, si_] = rows[j, si_] * decay  # exp rounded once
                                if rows[j, si_] <= thresh:
                                    ids[j] = -1
                    nv += 1
                for j in range(a):
                    if j < nv and g("return_indices"):
                        ids[j] = indices[i, ids[j]]
                    elif j >= nv:
                        rows[j] = minus
                        ids[j] = -1
                count[i, 0] = nv
            else:
                for j in range(max(nkeep, 0)):
                    if rows[j, si_] > thresh and (max_out <= 0 or nv < max_out):
                        nv += 1
                        for k in range(j + 1, nkeep):
                            if rows[k, si_] > thresh and same_class(j, k) and \
                                    _iou(rows[j, cs:cs + 4], rows[k, cs:cs + 4], dt) >= iou_thr:
                                rows[k, si_] = minus
                                ids[k] = -1
                    else:
                        rows[j] = minus
                        ids[j] = -1
                if g("return_indices"):
                    kept = [indices[i, ids[j]] for j in range(a) if ids[j] >= 0]
                    ids[:] = -1
                    ids[:len(kept)] = kept
                    count[i, 0] = len(kept)
    if g("return_indices"):
        return (out, box, count) if soft else (box, count)
    if g("invalid_to_bottom"):
        moved = np.full(data.shape, dt(-1.0), data.dtype)
        for i in range(b):
            keep = out[i][out[i, :, si_] >= dt(0)]
            moved[i, :len(keep)] = keep
        return moved
    return out


register(OpDef("relax.vision.get_valid_counts", (Operand("data"),),
               (Attr("score_threshold", 0.0, to_float), Attr("id_index", 0, to_int),
                Attr("score_index", 1, to_int)),
               deduce=deduce_get_valid_counts, compute=compute_get_valid_counts,
               family=FAMILY, spec_rule="SI-vision-box-1",
               legalize=legalize_get_valid_counts))
register(OpDef("relax.vision.non_max_suppression",
               (Operand("data"), Operand("valid_count"), Operand("indices")),
               (Attr("max_output_size", -1, to_int), Attr("iou_threshold", 0.5, to_float),
                Attr("force_suppress", False, to_bool), Attr("top_k", -1, to_int),
                Attr("coord_start", 2, to_int), Attr("score_index", 1, to_int),
                Attr("id_index", 0, to_int), Attr("return_indices", True, to_bool),
                Attr("invalid_to_bottom", False, to_bool),
                Attr("soft_nms_sigma", 0.0, to_float), Attr("score_threshold", 0.0, to_float)),
               deduce=deduce_nms, compute=compute_nms, family=FAMILY,
               spec_rule="SI-vision-box-2", legalize=legalize_nms))


# -- all_class_non_max_suppression ------------------------------------------------------------------

def deduce_all_class_nms(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-box-3: all_class_non_max_suppression(boxes (B, N, 4), scores (B, C, N),
    max_output_boxes_per_class, iou_threshold, score_threshold): boxes and scores 3-D
    float tensors of one batch and box count (provably different is an error), the
    three thresholds tensors of one element (0-d or (1,)). "onnx": (indices int64
    (B * C * N, 3), num_total_detections int64 (1,)); "tensorflow": (indices int64
    (B, C * N, 2), scores float32 (B, C * N), counts int64 (B,)). Stricter than TVM,
    which needs known shapes and fails on unknown ones: unknown shapes give ndims."""
    rule = "SI-vision-box-3"
    boxes, scores = tensor_arg(ctx, 0, "boxes"), tensor_arg(ctx, 1, "scores")
    for t, what in ((boxes, "boxes"), (scores, "scores")):
        if t.ndim not in (si.UNKNOWN_NDIM, 3):
            raise ctx.error(f"{what} must be 3-D, found ndim {t.ndim}", rule=rule)
        if not t.dtype.is_void and not t.dtype.is_float:
            raise ctx.error(f"{what} must be floating point, found {t.dtype}", rule=rule)
    for k, what in ((2, "max_output_boxes_per_class"), (3, "iou_threshold"),
                    (4, "score_threshold")):
        t = tensor_arg(ctx, k, what)
        if t.ndim not in (si.UNKNOWN_NDIM, 0, 1) or (
                t.shape is not None and t.ndim == 1 and provably_ne(ctx, t.shape[0], 1)):
            raise ctx.error(f"{what} must be a tensor of one element", rule=rule)
    if boxes.shape is not None:
        if provably_ne(ctx, boxes.shape[2], 4):
            raise ctx.error("boxes must have shape (batch, num_boxes, 4)", rule=rule)
        if scores.shape is not None and (provably_ne(ctx, boxes.shape[0], scores.shape[0]) or
                                         provably_ne(ctx, boxes.shape[1], scores.shape[2])):
            raise ctx.error("scores must have shape (batch, num_classes, num_boxes) of the "
                            "boxes' batch and num_boxes", rule=rule)
    v = boxes.vdevice
    known = boxes.shape is not None and scores.shape is not None
    b, n = (boxes.shape[0], boxes.shape[1]) if known else (None, None)
    c = scores.shape[1] if known else None
    if ctx.attr("output_format") == "onnx":
        rows = (fold_mul(fold_mul(b, c), n), P.IntImm(3)) if known else None
        return si.TupleStructInfo((_t(rows, INT64, 2, v), _t((P.IntImm(1),), INT64, 1, v)))
    cn = fold_mul(c, n) if known else None
    return si.TupleStructInfo((_t((b, cn, P.IntImm(2)) if known else None, INT64, 3, v),
                               _t((b, cn) if known else None, FLOAT32, 2, v),
                               _t((b,) if known else None, INT64, 1, v)))


def _one_value(t, what: str):
    flat = np.asarray(t).reshape(-1)
    if flat.size != 1:
        raise OpRuntimeError("shape_mismatch", f"{what} must hold one value, found "
                             f"{flat.size}", rule="EXEC-vision-box-4")
    return flat[0]


def compute_all_class_nms(attrs, boxes, scores, max_boxes, iou_thr, score_thr):
    """EXEC-vision-box-4: per batch and class, topi's all-class NMS (see the spec)."""
    b_n, c_n, n = scores.shape
    dt = boxes.dtype.type
    max_out = int(_one_value(max_boxes, "max_output_boxes_per_class"))
    iou_t = np.float32(_one_value(iou_thr, "iou_threshold"))
    score_t = np.float32(_one_value(score_thr, "score_threshold"))
    selected: list[list[tuple[int, float]]] = []
    with np.errstate(all="ignore"):
        for b in range(b_n):
            for c in range(c_n):
                order = np.argsort(-scores[b, c].astype(np.float64), kind="stable")
                s = scores[b, c, order].astype(np.float32)
                valid = 0
                while valid < n and s[valid] > score_t:
                    valid += 1
                chosen = []
                if iou_t > 0 and valid > 0:
                    for j in range(valid):
                        if s[j] > -1.0 and len(chosen) < max_out and s[j] > score_t:
                            chosen.append((int(order[j]), float(s[j])))
                            for k in range(j + 1, valid):
                                if s[k] > 0 and _iou(boxes[b, order[j]], boxes[b, order[k]],
                                                     dt) >= iou_t:
                                    s[k] = -1.0
                selected.append(chosen)
    if attrs.get("output_format") == "onnx":
        out = np.zeros((b_n * c_n * n, 3), np.int64)
        r = 0
        for bc, chosen in enumerate(selected):
            for box, _ in chosen:
                out[r] = (bc // c_n, bc % c_n, box)
                r += 1
        return out, np.array([r], np.int64)
    idx = np.zeros((b_n, c_n * n, 2), np.int64)
    sc = np.zeros((b_n, c_n * n), np.float32)
    counts = np.zeros(b_n, np.int64)
    for b in range(b_n):
        r = 0
        for c in range(c_n):
            for box, score in selected[b * c_n + c]:
                idx[b, r] = (c, box)
                sc[b, r] = score
                r += 1
        counts[b] = r
    return idx, sc, counts


register(OpDef("relax.vision.all_class_non_max_suppression",
               (Operand("boxes"), Operand("scores"), Operand("max_output_boxes_per_class"),
                Operand("iou_threshold"), Operand("score_threshold")),
               (Attr("output_format", "onnx", one_of("onnx", "tensorflow")),),
               deduce=deduce_all_class_nms, compute=compute_all_class_nms, family=FAMILY,
               spec_rule="SI-vision-box-3", legalize=legalize_all_class_nms))
