"""Losses under ``R.nn``: ``nll_loss`` and ``cross_entropy_with_logits`` (spec/ops/nn.md
"nll_loss, cross_entropy_with_logits", SI-nn-nll_loss-*, SI-nn-cross_entropy-*,
EXEC-nn-nll_loss-1, EXEC-nn-cross_entropy-1, TE-leg-nn-11).

Both sum in the operands' dtype, one element at a time in row-major order (a left fold,
as the lowered reduction adds; ``pool.window_sum``), as topi sums in the dtype.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64

from .common import (
    OpRuntimeError, common_dtype, common_vdevice, expr_text, provably_ne, quiet, tensor_arg,
)
from .nn_lowering import zero_if_empty
from .pool import window_sum
from .registry import (
    Attr, DeduceContext, OpDef, Operand, one_of, register, to_int,
)

FAMILY = "nn"
_REDUCTIONS = ("mean", "sum", "none")


def _require_float(ctx: DeduceContext, t: si.TensorStructInfo, what: str, rule: str) -> None:
    if not t.dtype.is_void and not t.dtype.is_float:
        raise ctx.error(f"{what} must be a float tensor, found {t.dtype}", rule=rule)


def _fold_all(x: np.ndarray) -> np.ndarray:
    """The sum of every element in the dtype, a left fold in row-major order."""
    return window_sum(x.reshape(-1), 1)


# -- nll_loss ----------------------------------------------------------------------------------

def deduce_nll_loss(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-nll_loss-1..4.

    1. predictions (and weights) are float tensors of one dtype, the result's
       (SI-op-dtype-1); a known targets dtype is an integer kind.
    2. predictions of known ndim have at least 1; targets have one dimension fewer
       (``(C,)`` with ``()``, ``(N, C, d...)`` with ``(N, d...)``); weights are 1-d.
    3. A batch size, spatial dimension or class count (weights' length) provably
       different between the operands is an error.
    4. ``none``: the predictions' shape without C (``()`` for ``(C,)``), or only the
       ndim; ``mean`` and ``sum``: a scalar."""
    pred, tgt = tensor_arg(ctx, 0, "predictions"), tensor_arg(ctx, 1, "targets")
    wgt = tensor_arg(ctx, 2, "weights") if len(ctx.args) > 2 else None
    rule = "SI-nn-nll_loss-1"
    _require_float(ctx, pred, "predictions", rule)
    if not tgt.dtype.is_void and not tgt.dtype.is_integer:
        raise ctx.error(f"targets must be an integer tensor, found {tgt.dtype}", rule=rule)
    dtype = pred.dtype if wgt is None else common_dtype(ctx, pred.dtype, wgt.dtype)
    vdevice = common_vdevice(pred, *(() if wgt is None else (wgt,)))
    if pred.ndim == 0:
        raise ctx.error("predictions need at least 1 dimension", rule="SI-nn-nll_loss-2")
    if pred.ndim >= 0 and tgt.ndim >= 0 and tgt.ndim != pred.ndim - 1:
        raise ctx.error(f"targets of ndim {tgt.ndim} for predictions of ndim {pred.ndim} "
                        f"(needs {pred.ndim - 1})", rule="SI-nn-nll_loss-2")
    if wgt is not None and wgt.ndim >= 0 and wgt.ndim != 1:
        raise ctx.error(f"weights must be 1-d, found ndim {wgt.ndim}", rule="SI-nn-nll_loss-2")
    classes = None
    if pred.shape is not None:
        classes = pred.shape[0] if pred.ndim == 1 else pred.shape[1]
        if tgt.shape is not None and pred.ndim > 1:
            want = (pred.shape[0],) + tuple(pred.shape[2:])
            for i, (a, b) in enumerate(zip(want, tgt.shape)):
                if provably_ne(ctx, a, b):
                    raise ctx.error(f"targets have {expr_text(b)} on dimension {i}, the "
                                    f"predictions {expr_text(a)}", rule="SI-nn-nll_loss-3")
    if classes is not None and wgt is not None and wgt.shape is not None and \
            provably_ne(ctx, classes, wgt.shape[0]):
        raise ctx.error(f"weights have {expr_text(wgt.shape[0])} classes, the predictions "
                        f"{expr_text(classes)}", rule="SI-nn-nll_loss-3")
    if ctx.attr("reduction") != "none":
        return si.TensorStructInfo((), dtype, vdevice=vdevice)
    if pred.shape is not None:
        dims = () if pred.ndim == 1 else (pred.shape[0],) + tuple(pred.shape[2:])
        return si.TensorStructInfo(dims, dtype, vdevice=vdevice)
    return si.TensorStructInfo(None, dtype, pred.ndim - 1 if pred.ndim > 0 else -1, vdevice)


@quiet
def _nll_loss(attrs, pred, tgt, weights=None):
    """EXEC-nn-nll_loss-1: ``loss[n, d...] = -pred[n, t, d...] * w[t]`` with
    ``t = tgt[n, d...]``, or 0 where ``t == ignore_index`` (nothing is read there);
    ``w`` is all ones without weights. ``sum``: the sum of the losses; ``mean``: that
    sum divided by the sum of ``w[t]`` over the targets not ignored (NaN when all are);
    ``none``: the losses. Shapes must agree (``shape_mismatch``); a target outside
    ``[0, C)`` other than ``ignore_index`` is ``index_out_of_bounds``."""
    rule = "EXEC-nn-nll_loss-1"
    classes = pred.shape[0] if pred.ndim == 1 else (pred.shape[1] if pred.ndim > 1 else None)
    want = () if pred.ndim == 1 else pred.shape[:1] + pred.shape[2:]
    if classes is None or tgt.shape != want or (weights is not None and
                                                weights.shape != (classes,)):
        raise OpRuntimeError("shape_mismatch", f"nll_loss of predictions {pred.shape}, targets "
                             f"{tgt.shape}" + ("" if weights is None else
                                               f", weights {weights.shape}"), rule=rule)
    t = tgt.astype(np.int64)
    keep = t != attrs.get("ignore_index")
    if np.any(keep & ((t < 0) | (t >= classes))):
        raise OpRuntimeError("index_out_of_bounds", f"a target is outside [0, {classes})",
                             rule=rule)
    safe = np.where(keep, t, 0)
    if pred.ndim == 1:
        picked = pred[safe]
    else:
        picked = np.take_along_axis(np.moveaxis(pred, 1, -1), safe[..., None], axis=-1)[..., 0]
    w = np.ones(classes, pred.dtype) if weights is None else weights
    zero = pred.dtype.type(0)
    wt = np.where(keep, w[safe], zero).astype(pred.dtype)
    loss = np.where(keep, -picked * w[safe], zero).astype(pred.dtype)
    reduction = attrs.get("reduction")
    if reduction == "none":
        return loss
    total = _fold_all(loss)
    if reduction == "sum":
        return total
    return (total / _fold_all(wt)).astype(pred.dtype)


def _legalize_nll_loss(ctx):
    """TE-leg-nn-11: ``nll_loss`` (the per-target loss under a lazy ``T.if_then_else``,
    so an ignored target reads nothing and an out-of-range one traps as the op); for
    ``sum``/``mean`` a full sum (and for ``mean`` the weight sum) and the division.
    The op's shape checks, where not proved, are the PrimFunc's guards (TE-leg-nn-1)."""
    pred, tgt = ctx.tensor(0, "predictions"), ctx.tensor(1, "targets")
    wgt = ctx.tensor(2, "weights") if len(ctx.args) > 2 else None
    classes = pred.shape[0] if pred.ndim == 1 else pred.shape[1]
    want = () if pred.ndim == 1 else (pred.shape[0], *pred.shape[2:])
    if len(want) != tgt.ndim:
        raise ctx.decline("targets of the wrong ndim")
    for i, (a, b) in enumerate(zip(want, tgt.shape)):
        ctx.require_equal(b, a, f"the targets' dimension {i} and the predictions'")
    if wgt is not None:
        ctx.require_equal(wgt.shape[0], classes, "the weights' length and the class count")
    dt = pred.dtype
    ignore = te.const(ctx.attr("ignore_index"), INT64)

    def weight(c):
        return te.const(1, dt) if wgt is None else wgt[(c,)]

    def class_of(idx):
        return te.cast(INT64, tgt[idx])

    def loss(*idx):
        c = class_of(idx)
        p = pred[(c,)] if pred.ndim == 1 else pred[(idx[0], c, *idx[1:])]
        return te.if_then_else(P.NE(c, ignore, BOOL), -(p * weight(c)),
                               te.const(0, dt))
    out = te.compute(tgt.shape, loss, name="nll_loss", axis_prefix="ax")
    reduction = ctx.attr("reduction")
    if reduction == "none":
        return ctx.call_te(out, "nll_loss")
    total = _sum_all(out, "nll_loss_sum")
    if reduction == "sum":
        return ctx.call_te(total, "nll_loss")
    wsum = _sum_all(te.compute(tgt.shape, lambda *idx: te.if_then_else(
        P.NE(class_of(idx), ignore, BOOL), weight(class_of(idx)), te.const(0, dt)),
        name="nll_loss_weight", axis_prefix="ax"), "nll_loss_weight_sum")
    mean = te.compute((), lambda: te.div(total[()], wsum[()]), name="T_divide")
    return ctx.call_te(mean, "nll_loss")


def _sum_all(t: te.Tensor, name: str) -> te.Tensor:
    """The sum of every element of ``t`` as a scalar stage (0 when ``t`` may be empty,
    TE-leg-nn-2)."""
    if t.ndim == 0:
        return t
    axes = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(t.shape)]
    total = te.compute((), lambda: te.sum(t[tuple(a.var for a in axes)], axis=axes), name=name)
    return zero_if_empty(total, t.shape)


# -- cross_entropy_with_logits -----------------------------------------------------------------

def deduce_cross_entropy(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-cross_entropy-1..2.

    1. Both operands are float tensors of one dtype (SI-op-dtype-1), of one ndim when
       both are known.
    2. A dimension provably different between them is an error. The result is a
       scalar of the dtype."""
    pred, label = tensor_arg(ctx, 0, "predictions"), tensor_arg(ctx, 1, "labels")
    rule = "SI-nn-cross_entropy-1"
    _require_float(ctx, pred, "predictions", rule)
    _require_float(ctx, label, "labels", rule)
    dtype = common_dtype(ctx, pred.dtype, label.dtype)
    if pred.ndim >= 0 and label.ndim >= 0 and pred.ndim != label.ndim:
        raise ctx.error(f"predictions of ndim {pred.ndim} and labels of ndim {label.ndim}",
                        rule=rule)
    if pred.shape is not None and label.shape is not None:
        for i, (a, b) in enumerate(zip(pred.shape, label.shape)):
            if provably_ne(ctx, a, b):
                raise ctx.error(f"predictions have {expr_text(a)} on dimension {i}, the labels "
                                f"{expr_text(b)}", rule="SI-nn-cross_entropy-2")
    return si.TensorStructInfo((), dtype, vdevice=common_vdevice(pred, label))


@quiet
def _cross_entropy(attrs, pred, label):
    """EXEC-nn-cross_entropy-1: ``-sum(pred * label)`` (products and sum in the dtype),
    divided by the batch size ``pred.shape[0]`` when the operands have 2 or more
    dimensions (NaN for an empty batch). The shapes must be equal (``shape_mismatch``)."""
    if pred.shape != label.shape:
        raise OpRuntimeError("shape_mismatch", f"predictions {pred.shape} and labels "
                             f"{label.shape} differ", rule="EXEC-nn-cross_entropy-1")
    total = -_fold_all((pred * label).astype(pred.dtype))
    if pred.ndim > 1:
        total = total / pred.dtype.type(pred.shape[0])
    return np.asarray(total, pred.dtype)


def _legalize_cross_entropy(ctx):
    """TE-leg-nn-11: the elementwise product, a full sum, then the negation and the
    division by the batch size. Shapes not provably equal are the PrimFunc's guards
    (TE-leg-nn-1)."""
    pred, label = ctx.tensor(0, "predictions"), ctx.tensor(1, "labels")
    if pred.ndim != label.ndim:
        raise ctx.decline("operands of different ndim")
    for i, (a, b) in enumerate(zip(pred.shape, label.shape)):
        ctx.require_equal(a, b, f"the predictions' and the labels' dimension {i}")
    prod = te.compute(pred.shape, lambda *i: pred[i] * label[i], name="T_multiply",
                      axis_prefix="ax")
    total = _sum_all(prod, "T_multiply_red")
    dt = pred.dtype
    if pred.ndim > 1:
        out = te.compute((), lambda: te.div(-total[()], te.cast(dt, pred.shape[0])),
                         name="T_divide")
    else:
        out = te.compute((), lambda: -total[()], name="T_negative")
    return ctx.call_te(out, "cross_entropy_with_logits")


def _register_all() -> None:
    register(OpDef("relax.nn.nll_loss",
                   (Operand("predictions"), Operand("targets"),
                    Operand("weights", optional=True)),
                   (Attr("reduction", "mean", one_of(*_REDUCTIONS)),
                    Attr("ignore_index", -100, to_int)),
                   deduce=deduce_nll_loss, compute=_nll_loss, family=FAMILY,
                   spec_rule="SI-nn-nll_loss-1", legalize=_legalize_nll_loss))
    register(OpDef("relax.nn.cross_entropy_with_logits",
                   (Operand("predictions"), Operand("labels")), (),
                   deduce=deduce_cross_entropy, compute=_cross_entropy, family=FAMILY,
                   spec_rule="SI-nn-cross_entropy-1", legalize=_legalize_cross_entropy))


_register_all()
