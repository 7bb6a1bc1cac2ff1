"""``R.vision.multibox_transform_loc`` (spec/ops/vision.md, family "vision"): SSD /
TFLite box decoding and class softmax, topi's formulas (python/tvm/topi/vision/
multibox_transform_loc.py) in the inputs' float type, lowered with te."""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL

from .common import fold_mul, provably_ne, tensor_arg
from .vision import select_max_fold
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_bool, to_float

FAMILY = "vision"
RULE = "SI-vision-multibox-1"


def to_variances(value) -> tuple[float, float, float, float]:
    v = tuple(float(x) for x in value)
    if len(v) != 4:
        raise ValueError(f"variances must be 4 numbers, found {value!r}")
    return v


def deduce_multibox(ctx: DeduceContext) -> si.StructInfo:
    """SI-vision-multibox-1: cls_pred (B, C, N), loc_pred (B, 4 * N), anchor (1, N, 4),
    one float dtype; the result (boxes (B, N, 4), scores (B, C, N)) of that dtype; a
    provably different dimension is an error (TVM's checks)."""
    cls, loc, anc = (tensor_arg(ctx, i, w) for i, w in enumerate(("cls_pred", "loc_pred",
                                                                   "anchor")))
    for t, n, what in ((cls, 3, "cls_pred"), (loc, 2, "loc_pred"), (anc, 3, "anchor")):
        if t.ndim not in (si.UNKNOWN_NDIM, n):
            raise ctx.error(f"{what} must be {n}-D, found ndim {t.ndim}", rule=RULE)
    dts = {t.dtype for t in (cls, loc, anc) if not t.dtype.is_void}
    if len(dts) > 1:
        raise ctx.error(f"cls_pred, loc_pred and anchor must have one dtype, found "
                        f"{sorted(str(d) for d in dts)}", rule=RULE)
    dtype = cls.dtype
    if dts and not next(iter(dts)).is_float:
        raise ctx.error(f"the inputs must be floating point, found {next(iter(dts))}",
                        rule=RULE)
    if cls.shape is None:
        return si.TupleStructInfo((si.TensorStructInfo(None, dtype, 3, cls.vdevice),
                                   si.TensorStructInfo(None, dtype, 3, cls.vdevice)))
    b, c, n = cls.shape
    if loc.shape is not None and (provably_ne(ctx, loc.shape[0], b) or
                                  provably_ne(ctx, loc.shape[1], fold_mul(n, P.IntImm(4)))):
        raise ctx.error("loc_pred must have shape (batch, 4 * num_anchors)", rule=RULE)
    if anc.shape is not None and (provably_ne(ctx, anc.shape[0], 1) or
                                  provably_ne(ctx, anc.shape[1], n) or
                                  provably_ne(ctx, anc.shape[2], 4)):
        raise ctx.error("anchor must have shape (1, num_anchors, 4)", rule=RULE)
    return si.TupleStructInfo((si.TensorStructInfo((b, n, P.IntImm(4)), dtype,
                                                   vdevice=cls.vdevice),
                               si.TensorStructInfo((b, c, n), dtype, vdevice=cls.vdevice)))


def compute_multibox(attrs, cls, loc, anchor):
    """EXEC-vision-multibox-1: boxes decoded from the anchors (centre and size) and the
    encodings scaled by the variances, as (ymin, xmin, ymax, xmax), clipped to [0, 1]
    with ``clip``; scores the softmax over classes (the logits themselves without
    ``apply_softmax``), zeroed below ``threshold`` and, without ``keep_background``, for
    class 0. Every step in the inputs' float type."""
    dt = cls.dtype.type
    b, c, n = cls.shape
    vx, vy, vw, vh = (dt(v) for v in attrs.get("variances"))
    half, zero, one = dt(0.5), dt(0.0), dt(1.0)

    def exp(v):  # in float64, rounded once (EXEC-tir-float-1)
        return np.exp(v.astype(np.float64)).astype(cls.dtype)
    with np.errstate(all="ignore"):
        enc = loc.reshape(b, n, 4)
        left, top, right, bottom = (anchor[0, :, k] for k in range(4))
        ay, ax = (top + bottom) * half, (left + right) * half
        ah, aw = bottom - top, right - left
        ex, ey, ew, eh = (enc[:, :, k] for k in range(4))
        yc = ey * vy * ah + ay
        xc = ex * vx * aw + ax
        hh = half * exp(eh * vh) * ah
        hw = half * exp(ew * vw) * aw
        box = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1).astype(cls.dtype)
        if attrs.get("clip"):
            box = np.maximum(zero, np.minimum(one, box))
        # TIR's max fold over the classes (a NaN is kept only when last)
        if attrs.get("apply_softmax"):
            m = np.expand_dims(select_max_fold(np.moveaxis(cls, 1, -1)), 1)
            e = exp(cls - m)
            scores = (e / e.sum(axis=1, keepdims=True, dtype=cls.dtype)).astype(cls.dtype)
        else:
            scores = cls.copy()
        scores = scores * (scores >= dt(attrs.get("threshold"))).astype(cls.dtype)
        if not attrs.get("keep_background"):
            scores[:, 0, :] = zero
    return box, scores


def _legalize_multibox(ctx):
    """TE-leg-vision-2: topi's computes: the decoded box per (batch, anchor, corner), the
    softmax in four stages (max, exp, sum, quotient; with ``apply_softmax``), the
    threshold mask and the background zero."""
    cls, loc, anchor = ctx.tensor(0, "cls_pred"), ctx.tensor(1, "loc_pred"), ctx.tensor(2, "anchor")
    dt = cls.dtype
    b, c, n = cls.shape
    vx, vy, vw, vh = (te.const(v, dt) for v in ctx.attr("variances"))
    half, zero, one = te.const(0.5, dt), te.const(0.0, dt), te.const(1.0, dt)
    clip = ctx.attr("clip")

    def exp(v):
        return te.call_intrin("exp", v)

    def corner(bi, a, k):
        left, top, right, bottom = (anchor[0, a, j] for j in range(4))
        ay, ax = (top + bottom) * half, (left + right) * half
        ah, aw = bottom - top, right - left
        ex, ey, ew, eh = (loc[bi, a * 4 + j] for j in range(4))
        yc, xc = ey * vy * ah + ay, ex * vx * aw + ax
        hh, hw = half * exp(eh * vh) * ah, half * exp(ew * vw) * aw
        vals = [yc - hh, xc - hw, yc + hh, xc + hw]
        if clip:
            vals = [P.Max(zero, P.Min(one, v, dt), dt) for v in vals]

        def eq(j):
            return P.EQ(k, P.IntImm(j, k.dtype), BOOL)
        return te.select(eq(0), vals[0], te.select(eq(1), vals[1],
                                                   te.select(eq(2), vals[2], vals[3])))
    boxes = te.compute((b, n, 4), corner, name="multibox_boxes")
    if ctx.attr("apply_softmax"):
        rc = te.reduce_axis((0, c), "k")
        mx = te.compute((b, n), lambda bi, a: te.max(cls[bi, rc.var, a], axis=rc),
                        name="T_max")
        ex = te.compute((b, c, n), lambda bi, ci, a: exp(cls[bi, ci, a] - mx[bi, a]),
                        name="T_exp")
        rs = te.reduce_axis((0, c), "k")
        sm = te.compute((b, n), lambda bi, a: te.sum(ex[bi, rs.var, a], axis=rs), name="T_sum")

        def prob(bi, ci, a):
            return te.div(ex[bi, ci, a], sm[bi, a])
    else:
        def prob(bi, ci, a):
            return cls[bi, ci, a]
    thr = te.const(ctx.attr("threshold"), dt)
    keep_bg = ctx.attr("keep_background")

    def score(bi, ci, a):
        s = prob(bi, ci, a)
        masked = s * te.cast(dt, P.GE(s, thr, BOOL))
        if keep_bg:
            return masked
        return te.if_then_else(P.EQ(ci, P.IntImm(0, ci.dtype), BOOL), zero, masked)
    scores = te.compute((b, c, n), score, name="multibox_scores")
    return ctx.call_te([boxes, scores], "multibox_transform_loc")


register(OpDef("relax.vision.multibox_transform_loc",
               (Operand("cls_pred"), Operand("loc_pred"), Operand("anchor")),
               (Attr("clip", False, to_bool), Attr("threshold", 0.0, to_float),
                Attr("variances", (1.0, 1.0, 1.0, 1.0), to_variances),
                Attr("keep_background", True, to_bool), Attr("apply_softmax", True, to_bool)),
               deduce=deduce_multibox, compute=compute_multibox, family=FAMILY,
               spec_rule=RULE, legalize=_legalize_multibox))
