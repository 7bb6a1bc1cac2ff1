"""``grad.max_pool2d_backward`` and ``grad.avg_pool2d_backward``: the gradients of
``R.nn.max_pool2d`` / ``R.nn.avg_pool2d`` with respect to their data
(spec/ops/gradient.md "Pool gradients", family "gradient").

Windows are the forward pools' (``nn.window_count``, SI-nn-window-1; the average's
divisor is ``pool.avg_pool_counts``, EXEC-nn-pool-2). Gradients are added one window at
a time in row-major order of the output positions (then of the window's positions), so
sums are in one defined order; the lowering is a serial PrimFunc adding in that order
(the scatters' form, ``gather_scatter_lowering.serial_scatter_func``).
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.te.legalize import guard_stmt

from .common import OpRuntimeError, quiet, tensor_arg, trunc_div
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_bool, to_str

FAMILY = "gradient"


def _hw(layout: str) -> tuple[int, int] | None:
    """The positions of H and W in a layout that permutes NCHW; None otherwise."""
    if sorted(layout) != sorted("NCHW"):
        return None
    return layout.index("H"), layout.index("W")


def _window_counts(attrs, h: int, w: int) -> tuple[int, int]:
    from .nn import window_count

    (kh, kw), (sh, sw), (dh, dw) = (attrs.get(k) for k in ("pool_size", "strides", "dilation"))
    pt, pl, pb, pr = attrs.get("padding")
    ceil = attrs.get("ceil_mode")
    return (window_count(h, kh, pt, pb, sh, dh, ceil), window_count(w, kw, pl, pr, sw, dw, ceil))


def deduce_pool2d_backward(ctx: DeduceContext) -> si.StructInfo:
    """SI-grad-pool-1: data's struct info (TVM's rule). SI-grad-pool-2 (ours): the layout
    permutes NCHW; pool_size, strides and dilation are positive and the padding is not
    negative; output_grad has data's dtype and ndim 4, and its shape, where known, is not
    provably other than the forward pool's output (data's shape with H and W replaced by
    the window counts, SI-nn-window-1)."""
    from .nn import window_count_expr

    rule = "SI-grad-pool-2"
    g = tensor_arg(ctx, 0, "output_grad")
    x = tensor_arg(ctx, 1, "data")
    hw = _hw(ctx.attr("layout"))
    if hw is None:
        raise ctx.error(f"layout {ctx.attr('layout')!r} must be a permutation of NCHW",
                        rule=rule)
    for name, low in (("pool_size", 1), ("strides", 1), ("dilation", 1), ("padding", 0)):
        if any(v < low for v in ctx.attr(name)):
            raise ctx.error(f"{name} {list(ctx.attr(name))} must be >= {low}", rule=rule)
    for t in (g, x):
        if t.ndim >= 0 and t.ndim != 4:
            raise ctx.error(f"the operands must be 4-d, found {t.ndim} dimensions", rule=rule)
    if not g.dtype.is_void and not x.dtype.is_void and g.dtype != x.dtype:
        raise ctx.error(f"output_grad's dtype {g.dtype} differs from data's {x.dtype}",
                        rule=rule)
    if g.shape is not None and x.shape is not None:
        (kh, kw), (sh, sw), (dh, dw) = (ctx.attr(k) for k in ("pool_size", "strides",
                                                              "dilation"))
        pt, pl, pb, pr = ctx.attr("padding")
        ceil = ctx.attr("ceil_mode")
        want = list(x.shape)
        want[hw[0]] = window_count_expr(ctx, x.shape[hw[0]], kh, pt, pb, sh, dh, ceil)
        want[hw[1]] = window_count_expr(ctx, x.shape[hw[1]], kw, pl, pr, sw, dw, ceil)
        if any(ctx.analyzer.prove_not_equal(a, b) for a, b in zip(g.shape, want)):
            raise ctx.error("output_grad must have the forward pool's output shape", rule=rule)
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, x.vdevice)


@quiet
def _pool_backward(attrs, g: np.ndarray, x: np.ndarray, *, kind: str) -> np.ndarray:
    """EXEC-grad-pool-1: zeros of data's shape; then for each output position
    ``(oh, ow)`` in row-major order (every other axis alike) the window's in-bounds
    positions ``(oh*sh - pt + i*dh, ow*sw - pl + j*dw)``: max adds output_grad at the
    first of them in row-major order holding the window's largest value (a later
    position replaces it only when strictly greater, so padding never receives
    gradient); avg adds ``output_grad / max(count, 1)`` to each, with the forward pool's
    count (EXEC-nn-pool-2; integers truncate). output_grad must have the forward pool's
    output shape and data's dtype (shape_mismatch)."""
    from .pool import avg_pool_counts

    rule = "EXEC-grad-pool-1"
    hw = _hw(attrs.get("layout"))
    if x.ndim != 4 or g.ndim != 4 or g.dtype != x.dtype:
        raise OpRuntimeError("shape_mismatch", f"output_grad {g.shape} ({g.dtype}) and data "
                             f"{x.shape} ({x.dtype}) must be 4-d of one dtype", rule=rule)
    xs = np.moveaxis(x, hw, (2, 3))
    gs = np.moveaxis(g, hw, (2, 3))
    h, w = xs.shape[2:]
    oh, ow = _window_counts(attrs, h, w)
    if gs.shape != xs.shape[:2] + (oh, ow):
        raise OpRuntimeError("shape_mismatch", f"output_grad of shape {g.shape} is not the "
                             f"pool's output for data {x.shape}", rule=rule)
    (kh, kw), (sh, sw), (dh, dw) = (attrs.get(k) for k in ("pool_size", "strides", "dilation"))
    pt, pl, pb, pr = attrs.get("padding")
    out = np.zeros(xs.shape, x.dtype)
    if out.size == 0 or gs.size == 0:
        return np.ascontiguousarray(np.moveaxis(out, (2, 3), hw))
    if kind == "avg":
        include = attrs.get("count_include_pad")
        ch = avg_pool_counts(oh, h, kh, sh, dh, pt, pb, include)
        cw = avg_pool_counts(ow, w, kw, sw, dw, pl, pr, include)
    for a in range(oh):
        for b in range(ow):
            cells = [(a * sh - pt + i * dh, b * sw - pl + j * dw)
                     for i in range(kh) for j in range(kw)]
            cells = [(p, q) for p, q in cells if 0 <= p < h and 0 <= q < w]
            if not cells:
                continue
            grad = gs[:, :, a, b]
            if kind == "avg":
                count = np.asarray(max(int(ch[a]) * int(cw[b]), 1), x.dtype)
                share = trunc_div(grad, count).astype(x.dtype) if x.dtype.kind in "iu" \
                    else (grad / count).astype(x.dtype)
                for p, q in cells:
                    out[:, :, p, q] = (out[:, :, p, q] + share).astype(x.dtype)
                continue
            best = np.full(grad.shape, -1, np.int64)
            value = np.zeros(grad.shape, x.dtype)
            for k, (p, q) in enumerate(cells):
                v = xs[:, :, p, q]
                take = (best < 0) | (v > value)
                best = np.where(take, k, best)
                value = np.where(take, v, value)
            for k, (p, q) in enumerate(cells):
                hit = best == k
                out[:, :, p, q] = np.where(hit, (out[:, :, p, q] + grad).astype(x.dtype),
                                           out[:, :, p, q])
    return np.ascontiguousarray(np.moveaxis(out, (2, 3), hw))


def legalize_pool2d_backward(ctx, kind: str):
    """TE-leg-grad-4: the serial form (TE-leg-index-8, filled with zeros; block-local
    scratch buffers for max) adding in EXEC-grad-pool-1's order: loops over the other
    axes, then ``oh``, ``ow``; avg adds ``output_grad / max(count_h * count_w, 1)`` at
    each in-bounds window position (the count as EXEC-nn-pool-2 with dilation 1); max
    scans the window keeping the first strictly largest in-bounds position in scratch
    buffers, then adds output_grad there. As TVM, a dilation other than 1 makes the call
    stay. EXEC-grad-pool-1's shape check (output_grad is the pool's output for data),
    where not proved, is the PrimFunc's assert before the windows are read
    (``_grad_shape_guard``, TE-leg-7)."""
    from .gather_scatter_lowering import call_serial, known_tensor, serial_nest

    g, x = known_tensor(ctx, 0), known_tensor(ctx, 1)
    if any(d != 1 for d in ctx.attr("dilation")):
        raise ctx.decline("a dilation other than 1 (TVM does not lower it either)")
    hw = _hw(ctx.attr("layout"))
    (kh, kw), (sh, sw) = ctx.attr("pool_size"), ctx.attr("strides")
    pt, pl, pb, pr = ctx.attr("padding")
    include = ctx.attr("count_include_pad")
    dt = x.dtype
    c = lambda v: P.IntImm(v, INT64)  # noqa: E731
    others = [a for a in range(4) if a not in hw]
    scratch = [tir.Buffer("best_h", (), INT64), tir.Buffer("best_w", (), INT64),
               tir.Buffer("best_v", (), dt)]

    def count(o, stride, pad_before, pad_after, kernel, size):
        start = P.Sub(P.Mul(o, c(stride), INT64), c(pad_before), INT64)
        last = P.Add(start, c(kernel - 1), INT64)
        if include:
            return P.Add(P.Sub(P.Min(last, P.Add(size, c(pad_after - 1), INT64), INT64), start,
                               INT64), c(1), INT64)
        return P.Add(P.Sub(P.Min(last, P.Sub(size, c(1), INT64), INT64),
                           P.Max(start, c(0), INT64), INT64), c(1), INT64)

    def updates(bufs, out):
        g_buf = bufs[0]
        h, w = (bufs[1].shape[a] for a in hw)  # the function's own variables
        bh, bw, bv = scratch

        def at(rest, p, q):
            pos = [None] * 4
            for a, v in zip(others, rest):
                pos[a] = v
            pos[hw[0]], pos[hw[1]] = p, q
            return tuple(pos)

        def window(idx):
            rest, oa, ob = idx[:2], idx[2], idx[3]
            grad = tir.BufferLoad(g_buf, at(rest, oa, ob), dt)
            stmts = []
            if kind == "max":
                stmts.append(tir.BufferStore(bh, c(-1), ()))
            for i in range(kh):
                for j in range(kw):
                    p = P.Add(P.Sub(P.Mul(oa, c(sh), INT64), c(pt), INT64), c(i), INT64)
                    q = P.Add(P.Sub(P.Mul(ob, c(sw), INT64), c(pl), INT64), c(j), INT64)
                    inside = P.And(P.And(P.LE(c(0), p, BOOL), P.LT(p, h, BOOL), BOOL),
                                   P.And(P.LE(c(0), q, BOOL), P.LT(q, w, BOOL), BOOL), BOOL)
                    cell = at(rest, p, q)
                    if kind == "avg":
                        n = P.Max(P.Mul(count(oa, sh, pt, pb, kh, h), count(ob, sw, pl, pr, kw, w),
                                        INT64), c(1), INT64)
                        share = P.Div(grad, P.Cast(dt, n), dt)
                        cur = tir.BufferLoad(out, cell, dt)
                        stmts.append(tir.IfThenElse(inside, tir.BufferStore(
                            out, P.Add(cur, share, dt), cell)))
                        continue
                    v = tir.BufferLoad(bufs[1], cell, dt)
                    better = P.Or(P.LT(tir.BufferLoad(bh, (), INT64), c(0), BOOL),
                                  P.GT(v, tir.BufferLoad(bv, (), dt), BOOL), BOOL)
                    stmts.append(tir.IfThenElse(inside, tir.IfThenElse(better, tir.SeqStmt((
                        tir.BufferStore(bh, p, ()), tir.BufferStore(bw, q, ()),
                        tir.BufferStore(bv, v, ()))))))
            if kind == "max":
                cell = at(rest, tir.BufferLoad(bh, (), INT64), tir.BufferLoad(bw, (), INT64))
                stmts.append(tir.IfThenElse(
                    P.GE(tir.BufferLoad(bh, (), INT64), c(0), BOOL),
                    tir.BufferStore(out, P.Add(tir.BufferLoad(out, cell, dt), grad, dt), cell)))
            return tir.SeqStmt(tuple(stmts)) if len(stmts) > 1 else stmts[0]
        extents = [g_buf.shape[a] for a in others] + [g_buf.shape[hw[0]], g_buf.shape[hw[1]]]
        nest = serial_nest(extents, window, "j")
        # on the function's own variables (the buffers' shapes)
        guard = _grad_shape_guard(ctx, g_buf.shape, bufs[1].shape, hw)
        return nest if guard is None else tir.SeqStmt((guard, nest))
    name = f"{kind}_pool2d_backward"
    return call_serial(ctx, name, [(ctx.args[0], "output_grad", g), (ctx.args[1], "data", x)],
                       updates, result=x, zero=True,
                       scratch=tuple(scratch) if kind == "max" else ())


def _grad_shape_guard(ctx, g_shape, x_shape, hw) -> tir.AssertStmt | None:
    """EXEC-grad-pool-1's check that output_grad has the forward pool's output shape for
    data (the other axes equal, the spatial ones the window counts, SI-nn-window-1) as
    an assert of its ``shape_mismatch`` (EXEC-tir-assert-2); None when the analyzer
    proves every dimension."""
    from types import SimpleNamespace

    from relax_ref.solver.analyzer import Analyzer

    from .nn import window_count_expr

    analyzer = Analyzer()
    (kh, kw), (sh, sw), (dh, dw) = (ctx.attr(k) for k in ("pool_size", "strides", "dilation"))
    pt, pl, pb, pr = ctx.attr("padding")
    ceil = ctx.attr("ceil_mode")
    # window_count_expr asks only its context's analyzer
    frame = SimpleNamespace(analyzer=analyzer)
    want = list(x_shape)
    want[hw[0]] = window_count_expr(frame, x_shape[hw[0]], kh, pt, pb, sh, dh, ceil)
    want[hw[1]] = window_count_expr(frame, x_shape[hw[1]], kw, pl, pr, sw, dw, ceil)
    return guard_stmt([P.EQ(a, b, BOOL) for a, b in zip(g_shape, want)], "shape_mismatch",
                      ctx.op_name, "output_grad must have the pool's output shape for data")


def _register_all() -> None:
    from .nn import out_layout_from, padding_tuple, spatial_tuple

    attrs = (Attr("pool_size", (1, 1), spatial_tuple(2, "pool_size")),
             Attr("strides", (1, 1), spatial_tuple(2, "strides")),
             Attr("padding", (0, 0, 0, 0), padding_tuple(2)),
             Attr("dilation", (1, 1), spatial_tuple(2, "dilation")),
             Attr("ceil_mode", False, to_bool), Attr("count_include_pad", False, to_bool),
             Attr("layout", "NCHW", to_str), Attr("out_layout", None, to_str))
    for kind in ("max", "avg"):
        register(OpDef(f"relax.grad.{kind}_pool2d_backward",
                       (Operand("output_grad"), Operand("data")), attrs,
                       deduce=deduce_pool2d_backward,
                       compute=lambda a, g, x, kind=kind: _pool_backward(a, g, x, kind=kind),
                       family=FAMILY, spec_rule="SI-grad-pool-1",
                       bind=out_layout_from("layout", "NCHW"),
                       legalize=lambda ctx, kind=kind: legalize_pool2d_backward(ctx, kind)))


_register_all()
