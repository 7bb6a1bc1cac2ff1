"""Gradient ops: ``grad.no_grad``, ``grad.start_checkpoint``, ``grad.end_checkpoint``,
``grad.take_backward``, ``grad.nll_loss_backward`` (spec/ops/gradient.md).

TVM 0.27 (src/relax/op/tensor/grad.cc) deduces each backward op's result as the struct
info of the tensor it differentiates, checking nothing else; here the operands are
checked as far as they are known (shapes provably wrong are errors, SI-grad-*), and at
run time (EXEC-grad-*). The three markers are the identity. Lowerings follow TVM's
(python/tvm/relax/transform/legalize_ops/grad.py).
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64

from .common import (
    OpRuntimeError, fresh, normalize_axis, runtime_axis, tensor_arg,
)
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_int, to_opt_int

FAMILY = "gradient"


# -- markers -------------------------------------------------------------------------------

def deduce_no_grad(ctx: DeduceContext) -> si.StructInfo:
    """SI-grad-mark-1: the operand's struct info (any value)."""
    return ctx.arg_sinfo[0]


def deduce_checkpoint(ctx: DeduceContext) -> si.StructInfo:
    """SI-grad-mark-2: the operand is a variable (TVM's rule); its struct info."""
    if not isinstance(ctx.args[0], rx.Var):
        raise ctx.error("the operand of a checkpoint marker must be a variable",
                        rule="SI-grad-mark-2")
    return ctx.arg_sinfo[0]


def compute_identity(attrs, value):
    """EXEC-grad-mark-1: the value itself (a marker for the gradient pass only)."""
    return value


def legalize_identity(ctx):
    """TE-leg-grad-1: the operand itself, as TVM lowers the markers."""
    return ctx.args[0]


# -- take_backward ----------------------------------------------------------------------------

def _grad_dtype(ctx: DeduceContext, g: si.TensorStructInfo, x: si.TensorStructInfo,
                rule: str) -> None:
    if not g.dtype.is_void and not x.dtype.is_void and g.dtype != x.dtype:
        raise ctx.error(f"the gradient's dtype {g.dtype} differs from {x.dtype}", rule=rule)


def _shape_differs(ctx: DeduceContext, got, want) -> bool:
    return len(got) != len(want) or any(ctx.analyzer.prove_not_equal(a, b)
                                        for a, b in zip(got, want))


def deduce_take_backward(ctx: DeduceContext) -> si.StructInfo:
    """take_backward(output_grad, x, indices, axis): the gradient of ``take(x, indices,
    axis)`` with respect to x: x's struct info (SI-grad-take-1, TVM's rule). Ours:
    indices of an integer dtype, ``axis=None`` needs a 1-d x (as take, SI-index-take-3),
    output_grad has x's dtype, and its shape, where known, is not provably different from
    take's result ``x.shape[:axis] + indices.shape + x.shape[axis+1:]``
    (SI-grad-take-2)."""
    g = tensor_arg(ctx, 0, "output_grad")
    x = tensor_arg(ctx, 1, "x")
    ind = tensor_arg(ctx, 2, "indices")
    if not ind.dtype.is_void and not ind.dtype.is_integer:
        raise ctx.error(f"indices must have an integer dtype, found {ind.dtype}",
                        rule="SI-grad-take-2")
    _grad_dtype(ctx, g, x, "SI-grad-take-2")
    axis = ctx.attr("axis")
    if axis is None and x.ndim >= 0 and x.ndim != 1:
        raise ctx.error(f"axis=None needs a 1-d x, found {x.ndim} dimensions",
                        rule="SI-grad-take-2")
    if x.ndim >= 0:
        a = 0 if axis is None else normalize_axis(ctx, axis, x.ndim)
        if x.shape is not None and ind.shape is not None and g.shape is not None:
            want = tuple(x.shape[:a]) + tuple(ind.shape) + tuple(x.shape[a + 1:])
            if _shape_differs(ctx, g.shape, want):
                raise ctx.error("output_grad must have the shape of take's result",
                                rule="SI-grad-take-2")
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, x.vdevice)


def compute_take_backward(attrs, g: np.ndarray, x: np.ndarray, indices: np.ndarray):
    """EXEC-grad-take-1: zeros of x's shape and dtype, then for each position of
    output_grad in row-major order, ``out[..., indices[j], ...] += output_grad[..., j,
    ...]`` (repeated indices sum in that order). Shapes and dtypes as SI-grad-take-2
    (shape_mismatch); every index in ``[0, n)`` (index_out_of_bounds; TVM's kernel uses
    it as given)."""
    rule = "EXEC-grad-take-1"
    if not isinstance(indices, np.ndarray) or indices.dtype.kind not in "iu":
        raise OpRuntimeError("invalid_value", "indices must be integers", rule=rule)
    axis = attrs.get("axis")
    if axis is None and x.ndim != 1:
        raise OpRuntimeError("shape_mismatch", f"axis=None needs a 1-d x, found shape "
                             f"{x.shape}", rule=rule)
    a = 0 if axis is None else runtime_axis(axis, x.ndim, rule, check="shape_mismatch")
    want = x.shape[:a] + indices.shape + x.shape[a + 1:]
    if g.shape != want or g.dtype != x.dtype:
        raise OpRuntimeError("shape_mismatch", f"output_grad of shape {g.shape} ({g.dtype}) "
                             f"is not take's result {want} ({x.dtype})", rule=rule)
    out = np.zeros(x.shape, x.dtype)
    if g.size == 0:
        return out
    n = x.shape[a]
    bad = (indices < 0) | (indices >= n)
    if np.any(bad):
        raise OpRuntimeError("index_out_of_bounds", f"index {int(indices[bad].reshape(-1)[0])}"
                             f" is out of range [0, {n})", rule=rule)
    k = indices.ndim
    with np.errstate(all="ignore"):
        for p in np.ndindex(*g.shape):
            t = p[:a] + (int(indices[p[a:a + k]]),) + p[a + k:]
            out[t] = np.asarray(out[t] + g[p], x.dtype)
    return out


def legalize_take_backward(ctx):
    """TE-leg-grad-2: the serial form (TE-leg-index-8, filled with zeros) with one update
    per position ``p`` of output_grad in row-major order: ``out[p[:a],
    int64(indices[p[a:a+k]]), p[a+k:]] += output_grad[p]``. EXEC-grad-take-1's check
    that output_grad has take's result shape, where not proved, is the PrimFunc's
    ``shape_mismatch`` assert before the updates (TE-leg-7)."""
    from .gather_scatter_lowering import call_serial, known_tensor, serial_nest, store_combined
    from relax_ref.te.legalize import guard_stmt
    from relax_ref.ir import tir

    g, x, ind = (known_tensor(ctx, i) for i in range(3))
    axis = ctx.attr("axis")
    a = 0 if axis is None else (axis + x.ndim if axis < 0 else axis)
    if x.ndim - 1 + ind.ndim != g.ndim:
        raise ctx.decline("output_grad's ndim is not take's result's")
    k = ind.ndim

    def updates(bufs, out):
        g_buf, x_buf, i_buf = bufs
        # on the function's own variables (the buffers' shapes)
        want = tuple(x_buf.shape[:a]) + tuple(i_buf.shape) + tuple(x_buf.shape[a + 1:])
        guard = guard_stmt([P.EQ(a, b, BOOL) for a, b in zip(g_buf.shape, want)],
                           "shape_mismatch", ctx.op_name,
                           "output_grad must have take's result shape")

        def one(p):
            j = tir.BufferLoad(i_buf, tuple(p[a:a + k]), i_buf.dtype)
            j = j if j.dtype == INT64 else P.Cast(INT64, j)
            target = tuple(p[:a]) + (j,) + tuple(p[a + k:])
            return store_combined(out, target, tir.BufferLoad(g_buf, p, g_buf.dtype), "add")
        nest = serial_nest(g_buf.shape, one, "j")
        return nest if guard is None else tir.SeqStmt((guard, nest))
    return call_serial(ctx, "take_backward",
                       [(ctx.args[0], "output_grad", g), (ctx.args[1], "x", x),
                        (ctx.args[2], "indices", ind)], updates, result=x, zero=True)


# -- nll_loss_backward --------------------------------------------------------------------------

def _class_axis(ndim: int) -> int:
    return 1 if ndim >= 2 else 0


def deduce_nll_loss_backward(ctx: DeduceContext) -> si.StructInfo:
    """nll_loss_backward(output_grad, predictions, targets, weights, reduction,
    ignore_index): predictions' struct info (SI-grad-nll-1, TVM's rule). Ours
    (SI-grad-nll-2): predictions of a float dtype and at least one dimension (classes on
    axis 1, or axis 0 when 1-d); targets of an integer dtype with predictions' shape
    without the class axis; weights of shape ``(C,)``; output_grad 0-d for ``"mean"``
    and ``"sum"``, targets' shape for ``"none"``; output_grad and weights of
    predictions' dtype. Known facts that provably differ are errors."""
    rule = "SI-grad-nll-2"
    g = tensor_arg(ctx, 0, "output_grad")
    pred = tensor_arg(ctx, 1, "predictions")
    tgt = tensor_arg(ctx, 2, "targets")
    w = tensor_arg(ctx, 3, "weights") if len(ctx.args) > 3 else None
    if not pred.dtype.is_void and not pred.dtype.is_float:
        raise ctx.error(f"predictions must have a float dtype, found {pred.dtype}", rule=rule)
    if not tgt.dtype.is_void and not tgt.dtype.is_integer:
        raise ctx.error(f"targets must have an integer dtype, found {tgt.dtype}", rule=rule)
    for t in (g,) + ((w,) if w is not None else ()):
        _grad_dtype(ctx, t, pred, rule)
    if pred.ndim == 0:
        raise ctx.error("predictions need at least one dimension", rule=rule)
    if pred.ndim > 0:
        c = _class_axis(pred.ndim)
        if tgt.ndim >= 0 and tgt.ndim != pred.ndim - 1:
            raise ctx.error(f"targets must have {pred.ndim - 1} dimensions, found {tgt.ndim}",
                            rule=rule)
        if pred.shape is not None and tgt.shape is not None and _shape_differs(
                ctx, tgt.shape, tuple(pred.shape[:c]) + tuple(pred.shape[c + 1:])):
            raise ctx.error("targets must have predictions' shape without the class axis",
                            rule=rule)
        if w is not None and w.ndim >= 0 and (w.ndim != 1 or (
                w.shape is not None and pred.shape is not None
                and ctx.analyzer.prove_not_equal(w.shape[0], pred.shape[c]))):
            raise ctx.error("weights must have one element per class", rule=rule)
    gshape = g.shape
    if ctx.attr("reduction") != "none":
        if g.ndim > 0:
            raise ctx.error(f"output_grad must be 0-d under reduction "
                            f"{ctx.attr('reduction')!r}", rule=rule)
    elif g.ndim >= 0 and tgt.ndim >= 0 and (g.ndim != tgt.ndim or (
            gshape is not None and tgt.shape is not None
            and _shape_differs(ctx, gshape, tgt.shape))):
        raise ctx.error("output_grad must have targets' shape under reduction 'none'",
                        rule=rule)
    return si.TensorStructInfo(pred.shape, pred.dtype, pred.ndim, pred.vdevice)


def _sequential_sum(values: np.ndarray) -> np.ndarray:
    """A sum in row-major order, rounded at each step (a TIR reduction's order)."""
    flat = values.reshape(-1)
    if flat.size == 0:
        return np.zeros((), values.dtype)
    return np.add.accumulate(flat, dtype=values.dtype)[-1]


def compute_nll_loss_backward(attrs, g: np.ndarray, pred: np.ndarray, targets: np.ndarray,
                              weights: np.ndarray | None = None) -> np.ndarray:
    """EXEC-grad-nll-1: with ``w_t = 0`` where a target equals ``ignore_index`` and
    ``weights[t]`` (1 without weights) elsewhere, and ``g'`` = output_grad broadcast to
    targets' shape (``"mean"``: divided by the sum of all ``w_t``, summed in row-major
    order), the result at class ``c`` is ``(0 - w_t) * g'`` where ``c == t`` and 0
    elsewhere. Shapes and dtypes as SI-grad-nll-2 (shape_mismatch); a target other than
    ``ignore_index`` outside ``[0, C)`` is index_out_of_bounds."""
    rule = "EXEC-grad-nll-1"
    if pred.ndim < 1 or not isinstance(targets, np.ndarray) or targets.dtype.kind not in "iu":
        raise OpRuntimeError("shape_mismatch", "predictions need a dimension and targets "
                             "an integer dtype", rule=rule)
    c = _class_axis(pred.ndim)
    n = pred.shape[c]
    tshape = pred.shape[:c] + pred.shape[c + 1:]
    reduction = attrs.get("reduction")
    gshape = tshape if reduction == "none" else ()
    w = np.ones((n,), pred.dtype) if weights is None else weights
    if targets.shape != tshape or g.shape != gshape or w.shape != (n,) \
            or g.dtype != pred.dtype or w.dtype != pred.dtype:
        raise OpRuntimeError("shape_mismatch", f"targets {targets.shape}, output_grad "
                             f"{g.shape} and weights {w.shape} do not fit predictions "
                             f"{pred.shape} ({pred.dtype})", rule=rule)
    ignored = targets == attrs.get("ignore_index")
    bad = ~ignored & ((targets < 0) | (targets >= n))
    if np.any(bad):
        raise OpRuntimeError("index_out_of_bounds", f"target {int(targets[bad].reshape(-1)[0])}"
                             f" is out of range [0, {n})", rule=rule)
    dt = pred.dtype
    with np.errstate(all="ignore"):
        all_w = np.where(ignored, np.zeros((), dt), w[np.where(ignored, 0, targets)]).astype(dt)
        scaled = np.broadcast_to(g, tshape).astype(dt)
        if reduction == "mean":
            scaled = (scaled / _sequential_sum(all_w)).astype(dt)
        value = ((np.zeros((), dt) - all_w).astype(dt) * scaled).astype(dt)
        classes = np.arange(n).reshape((n,) + (1,) * (pred.ndim - c - 1))
        hit = classes == np.expand_dims(targets, c)
        return fresh(np.where(hit, np.expand_dims(value, c), np.zeros((), dt)).astype(dt))


def legalize_nll_loss_backward(ctx):
    """TE-leg-grad-3: TVM's form in stages: without weights a stage ``T_full`` of ones;
    ``all_weights[t] = if_then_else(target == ignore_index, 0, weights[target])`` (a
    guarded load: an ignored target reads nothing, any other out of range traps), for ``"mean"`` their sum (a reduction over targets' shape), and
    ``pred_grad = select(c == target, (0 - all_weights) * g', 0)``. EXEC-grad-nll-1's
    shape checks (targets, output_grad and weights fit the predictions as SI-grad-nll-2
    asks), where not proved, are the PrimFunc's guards (TE-leg-7)."""

    g, pred, tgt = ctx.tensor(0), ctx.tensor(1), ctx.tensor(2)
    w = ctx.tensor(3) if len(ctx.args) > 3 else None
    c = _class_axis(pred.ndim)
    n = pred.shape[c]
    tshape = tuple(pred.shape[:c]) + tuple(pred.shape[c + 1:])
    reduction = ctx.attr("reduction")
    gshape = tshape if reduction == "none" else ()
    if tgt.ndim != len(tshape) or g.ndim != len(gshape) or (w is not None and w.ndim != 1):
        raise ctx.decline("an operand's ndim does not fit the predictions")
    for i, (p, q) in enumerate(zip(tgt.shape, tshape)):
        ctx.require_equal(p, q, f"the targets' dimension {i} and the predictions'")
    for i, (p, q) in enumerate(zip(g.shape, gshape)):
        ctx.require_equal(p, q, f"output_grad's dimension {i} and the targets'")
    if w is not None:
        ctx.require_equal(w.shape[0], n, "the weights' length and the class count")
    dt = pred.dtype
    zero = te.const(0.0, dt)
    ignore = P.IntImm(ctx.attr("ignore_index"), INT64)
    if w is None:  # TVM's ones (topi.full): a target out of range is a load out of bounds
        w = te.compute((n,), lambda i: te.const(1.0, dt), name="T_full")

    def weight(*i):
        t = tgt[i] if tgt.dtype == INT64 else te.cast(INT64, tgt[i])
        return te.if_then_else(P.EQ(t, ignore, BOOL), zero, w[(t,)])
    all_w = te.compute(tshape, weight, name="all_weights")
    total = None
    if reduction == "mean":
        if tshape:
            axes = [te.reduce_axis(d, f"k{k}") for k, d in enumerate(tshape)]
            total = te.compute((), lambda: te.sum(all_w[tuple(a.var for a in axes)], axis=axes),
                               name="weight_sum")
        else:
            total = all_w

    def grad(*i):
        rest = tuple(i[:c]) + tuple(i[c + 1:])
        t = tgt[rest] if tgt.dtype == INT64 else te.cast(INT64, tgt[rest])
        scale = g[rest] if reduction == "none" else g[()]
        if total is not None:
            scale = P.Div(scale, total[()], dt)
        value = P.Mul(P.Sub(zero, all_w[rest], dt), scale, dt)
        return te.select(P.EQ(i[c], t, BOOL), value, zero)
    out = te.compute(pred.shape, grad, name="pred_grad", axis_prefix="ax")
    return ctx.call_te(out, "nll_loss_backward")


# -- registration ----------------------------------------------------------------------------

def _register_all() -> None:
    register(OpDef("relax.grad.no_grad", (Operand("input", "any"),), deduce=deduce_no_grad,
                   compute=compute_identity, family=FAMILY, spec_rule="SI-grad-mark-1",
                   legalize=legalize_identity, legalize_any_shape=True))
    for name in ("start_checkpoint", "end_checkpoint"):
        register(OpDef(f"relax.grad.{name}", (Operand("input", "any"),),
                       deduce=deduce_checkpoint, compute=compute_identity, family=FAMILY,
                       spec_rule="SI-grad-mark-2", legalize=legalize_identity,
                       legalize_any_shape=True))
    register(OpDef("relax.grad.take_backward",
                   (Operand("output_grad"), Operand("x"), Operand("indices")),
                   # ``mode`` is TVM 0.27's (its printer writes mode="", the only value
                   # its take_backward makes); every index must be in range (SI-grad-take-1)
                   (Attr("axis", None, to_opt_int), Attr("mode", "", one_of(""))),
                   deduce=deduce_take_backward,
                   compute=compute_take_backward, family=FAMILY, spec_rule="SI-grad-take-1",
                   legalize=legalize_take_backward))
    register(OpDef("relax.grad.nll_loss_backward",
                   (Operand("output_grad"), Operand("predictions"), Operand("targets"),
                    Operand("weights", optional=True)),
                   (Attr("reduction", "mean", one_of("none", "mean", "sum")),
                    Attr("ignore_index", -100, to_int)),
                   deduce=deduce_nll_loss_backward, compute=compute_nll_loss_backward,
                   family=FAMILY, spec_rule="SI-grad-nll-1",
                   legalize=legalize_nll_loss_backward))


_register_all()
