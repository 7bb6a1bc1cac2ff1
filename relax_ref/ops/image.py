"""Image ops under ``R.image`` (spec/ops/image.md): ``resize2d``, ``resize3d`` (this
module), ``grid_sample`` and ``affine_grid`` (``image_sampling.py``).

Resizing follows topi's formulas step by step in float32 (TVM computes every
coordinate, weight and pixel as ``float``): each output index maps to a source
coordinate by ``coordinate_transformation_mode``, then the pixels around it (clamped
into the image) combine by ``method``, innermost axis first; the float32 result is cast
to the output dtype. The NumPy semantics and the lowering write the same float32
operations in the same order, so they agree bit for bit.
"""
from __future__ import annotations

import itertools

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT32, INT64, parse_dtype
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import CONV_LAYOUTS, OpRuntimeError, cast_value, quiet, shape_operand, tensor_arg
from .layouts import Layout
from .nn import (
    canonical_dims, check_layout_ndim, conv_layout, conv_result_in_layout, layout_dims,
    runtime_layout,
)
from .registry import (
    Attr, DeduceContext, OpDef, Operand, one_of, register, to_dtype, to_float, to_int, to_str,
)

FAMILY = "image"
F32 = np.float32
INT32 = parse_dtype("int32")

METHODS = ("nearest_neighbor", "linear", "cubic")
MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
         "tf_half_pixel_for_nn", "tf_crop_and_resize")
ROUNDINGS = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
_EPS = 1e-5   # topi's nudge before floor / ceil rounding


def _roi(nsp: int):
    """``roi``: None (zeros), one number, or ``2*nsp`` numbers (starts, then ends), held
    as float32 FloatImms as TVM's ``Array<FloatImm>`` (printed ``T.float32(0.0)``)."""
    def convert(value):
        if value is None:
            value = (0.0,)
        if isinstance(value, (int, float, P.FloatImm, P.IntImm)):
            value = (value,)
        values = [v.value if isinstance(v, (P.FloatImm, P.IntImm)) else v for v in value]
        if len(values) == 1:
            values = values * (2 * nsp)
        if len(values) != 2 * nsp:
            raise ValueError(f"roi needs 1 or {2 * nsp} values, found {len(values)}")
        return tuple(P.FloatImm(to_float(v), FLOAT32) for v in values)
    return convert


def _bind_size(nsp: int):
    """SI-call-3: a ``size`` written as one number, or one value in a tuple, is that
    value on every spatial axis (TVM's Python function)."""
    def bind(args: dict) -> dict:
        size = args.get("size")
        if isinstance(size, rx.PrimValue):
            args["size"] = rx.Tuple((size,) * nsp, span=size.span)
        elif isinstance(size, rx.Tuple) and len(size.fields) == 1:
            args["size"] = rx.Tuple(size.fields * nsp, span=size.span)
        elif isinstance(size, rx.ShapeExpr) and len(size.values) == 1:
            args["size"] = rx.ShapeExpr(size.values * nsp, span=size.span)
        return args
    return bind


# -- deduction -----------------------------------------------------------------------------------

def deduce_resize(ctx: DeduceContext, nsp: int) -> si.StructInfo:
    """SI-image-resize-1..3.

    1. ``size`` is a shape of ``nsp`` dimensions.
    2. ``layout`` is NCHW's letters (NCDHW's for resize3d) in some order, each split at
       most once by a factor (``NCHW16c``, SI-nn-layout-1); a known data ndim matches,
       and a known inner axis has its factor's extent (SI-nn-layout-2). ``method``,
       ``coordinate_transformation_mode`` and ``rounding_method`` are among the values of
       spec/ops/image.md (SI-call-1; TVM's deduction does not check them).
    3. The result is the data's canonical shape with the spatial axes replaced by
       ``size`` (a literal ``R.shape``; a shape variable gives the ndim only), placed
       back in ``layout`` (a split size provably not divisible by its factor is an error,
       SI-nn-layout-2), dtype ``out_dtype`` or the data's."""
    canonical = CONV_LAYOUTS[nsp][0]
    x = tensor_arg(ctx, 0, "data")
    size = shape_operand(ctx, 1)
    if size.ndim >= 0 and size.ndim != nsp:
        raise ctx.error(f"size must have {nsp} dimensions, found {size.ndim}",
                        rule="SI-image-resize-1")
    if any(isinstance(v, P.IntImm) and v.value < 0 for v in size.values or ()):
        raise ctx.error(f"size {[str(v) for v in size.values]} must be >= 0",
                        rule="SI-image-resize-1")
    layout = conv_layout(ctx, ctx.attr("layout"), canonical, "data")
    check_layout_ndim(ctx, x, ctx.attr("layout"), "data")
    dtype = ctx.attr("out_dtype")
    dtype = x.dtype if dtype.is_void else dtype
    if x.shape is None or not isinstance(ctx.args[1], rx.ShapeExpr):
        return si.TensorStructInfo(None, dtype, layout.ndim, x.vdevice)
    d = canonical_dims(ctx, x.shape, layout, "data")
    out = split_dims(ctx, [d[0], d[1], *ctx.args[1].values], layout)
    return si.TensorStructInfo(out, dtype, vdevice=x.vdevice)


def split_dims(ctx: DeduceContext, dims, layout: Layout) -> tuple:
    """Canonical extents placed in ``layout`` (SI-nn-layout-2: an extent provably not
    divisible by its factor is an error, ``layout_dims``). A split letter's outer extent
    is written as TVM's bijective layout writes it, ``(L + f - 1) // f``, unless ``L``
    provably divides (then ``L // f``, simplified: ``c * 16`` gives ``c``); the two agree
    wherever the op runs, since a split length must divide at run time."""
    from .nn_lowering import proved_divides
    placed = layout_dims(ctx, dims, layout)
    by = dict(zip(layout.canonical, dims))
    out = []
    for (c, f), p in zip(layout.axes, placed):
        k = layout.factor(c)
        if f is None and k is not None and not proved_divides(by[c], k):
            L = by[c]
            p = ctx.analyzer.simplify(P.FloorDiv(P.Add(L, P.IntImm(k - 1, L.dtype), L.dtype),
                                                 P.IntImm(k, L.dtype), L.dtype))
        out.append(p)
    return tuple(out)


# -- the float32 formulas, shared by the semantics (NumPy) and the lowering (te) -----------------

class _NumPyOps:
    """The operations of the formulas on NumPy float32 / int arrays."""

    @staticmethod
    def f32(v):
        return np.asarray(v, F32) if not isinstance(v, np.ndarray) else v.astype(F32)

    const = staticmethod(lambda v: F32(v))
    div = staticmethod(lambda a, b: a / b)
    gt = staticmethod(lambda a, b: a > b)
    floor = staticmethod(np.floor)
    ceil = staticmethod(np.ceil)
    round = staticmethod(np.rint)
    where = staticmethod(np.where)

    @staticmethod
    def to_int32(v):
        return cast_value(v, np.int32)


class _TeOps:
    """The same operations on te PrimExprs (float32)."""

    @staticmethod
    def f32(v):
        return te.cast(FLOAT32, v) if isinstance(v, P.PrimExpr) else te.const(float(v), FLOAT32)

    @staticmethod
    def const(v):
        return te.const(float(F32(v)), FLOAT32)

    div = staticmethod(lambda a, b: te.div(a, b))

    @staticmethod
    def gt(a, b):
        return P.GT(_i64(a), _i64(b), BOOL)

    floor = staticmethod(lambda e: te.call_intrin("floor", e))
    ceil = staticmethod(lambda e: te.call_intrin("ceil", e))
    round = staticmethod(lambda e: te.call_intrin("round", e))

    @staticmethod
    def where(cond, a, b):
        return te.if_then_else(cond, a, b)

    @staticmethod
    def to_int32(v):
        return te.cast(INT32, v)


def source_coord(ops, x, in_size, out_size, mode: str, start: float, end: float):
    """topi's ``get_inx``: the source coordinate of output index ``x`` along an axis of
    input length ``in_size`` and output length ``out_size`` (float32)."""
    c, div = ops.const, ops.div
    scale = div(ops.f32(in_size), ops.f32(out_size))
    fx = ops.f32(x)
    if mode == "half_pixel":
        return (fx + c(0.5)) * scale - c(0.5)
    if mode == "align_corners":
        return div(ops.f32(in_size - 1), ops.f32(out_size - 1)) * fx
    if mode == "asymmetric":
        return scale * fx
    if mode == "pytorch_half_pixel":
        return ops.where(ops.gt(out_size, 1), (fx + c(0.5)) * scale - c(0.5), c(0.0))
    if mode == "tf_half_pixel_for_nn":
        return (fx + c(0.5)) * scale
    # tf_crop_and_resize; TVM folds the constant parts in double, then rounds to float32
    return ops.where(ops.gt(out_size, 1),
                     c(start) * ops.f32(in_size - 1) +
                     div(fx * c(end - start) * ops.f32(in_size - 1), ops.f32(out_size - 1)),
                     c(0.5 * (start + end)) * ops.f32(in_size - 1))


def nearest_index(ops, coord, rounding: str):
    """topi's ``get_closest_index`` (int32)."""
    c = ops.const
    if rounding == "round":
        return ops.to_int32(ops.round(coord))
    if rounding == "round_prefer_floor":
        return ops.to_int32(ops.ceil(coord - c(0.5)))
    if rounding == "round_prefer_ceil":
        return ops.to_int32(ops.floor(coord + c(0.5)))
    if rounding == "floor":
        return ops.to_int32(ops.floor(coord + c(_EPS)))
    return ops.to_int32(ops.ceil(coord - c(_EPS)))


def cubic_weights(ops, t, alpha: float) -> list:
    """topi's cubic spline weights of fraction ``t`` (constants folded in double, then
    float32)."""
    c = ops.const
    t2 = t * t
    t3 = t * t * t
    return [c(alpha) * (t3 - c(2) * t2 + t),
            c(alpha + 2) * t3 - c(3 + alpha) * t2 + c(1),
            c(-(alpha + 2)) * t3 + c(3 + 2 * alpha) * t2 - c(alpha) * t,
            c(-alpha) * t3 + c(alpha) * t2]


def _rounding(attrs_get) -> str:
    r = attrs_get("rounding_method")
    if r == "":
        return "round" if attrs_get("coordinate_transformation_mode") == "align_corners" \
            else "floor"
    return r


def axis_taps(ops, coord, in_size, method: str, rounding: str, alpha: float,
              exclude: bool, in_limit):
    """For one axis: the int32 source indices (before clamping) and their float32
    weights (None for nearest). ``in_limit`` is the bound topi's exclude test uses."""
    if method == "nearest_neighbor":
        return [nearest_index(ops, coord, rounding)], None
    base = ops.to_int32(ops.floor(coord))
    if method == "linear":
        t = coord - ops.f32(base)
        return [base, base + 1], [ops.const(1.0) - t, t]
    t = coord - ops.floor(coord)
    w = cubic_weights(ops, t, alpha)
    idx = [base + (k - 1) for k in range(4)]
    if exclude:
        w = [ops.where(_outside(ops, base, k, in_limit), ops.const(0.0), wk)
             for k, wk in enumerate(w)]
        total = w[0] + w[1] + w[2] + w[3]
        w = [ops.div(wk, total) for wk in w]
    return idx, w


def _i64(v) -> P.PrimExpr:
    return v if isinstance(v, P.PrimExpr) else P.IntImm(int(v), INT64)


def _outside(ops, base, k, limit):
    if ops is _NumPyOps:
        b = base.astype(np.int64)
        return (b - 1 + k < 0) | (b + k > limit)
    b = te.cast(INT64, base)
    return P.Or(P.LT(b + (k - 1), P.IntImm(0, INT64), BOOL),
                P.GT(b + k, limit, BOOL), BOOL)


# -- semantics -----------------------------------------------------------------------------------

def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((v.astype(np.int64) + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int64)


@quiet
def _resize(attrs, data, size, *, nsp: int):
    """EXEC-image-resize-1..2 (spec/ops/image.md): per axis, the source coordinate of
    every output index (``source_coord``), the taps of ``method`` (nearest: one index by
    ``rounding_method``; linear: 2, cubic: 4, weighted), each index clamped into
    ``[0, L - 1]``; the taps combine innermost axis first, each combination a left fold
    of ``pixel * weight`` in float32; ``tf_crop_and_resize`` puts
    ``extrapolation_value`` where a coordinate lies outside ``[0, L - 1]``; the float32
    value is cast to the output dtype. An empty input axis with a non-empty output
    reads outside the data (``index_out_of_bounds``). A split layout (``NCHW16c``) is
    computed in the canonical layout: the data converts to it and the result back."""
    canonical = CONV_LAYOUTS[nsp][0]
    rule = "EXEC-image-resize-1"
    text = attrs.get("layout")
    layout = runtime_layout(text, canonical, rule)
    outs = tuple(int(d) for d in size)
    if data.ndim != layout.ndim or len(outs) != nsp:
        raise OpRuntimeError("shape_mismatch", f"resize{nsp}d needs {layout.ndim}-d data and "
                             f"{nsp} sizes, found {data.ndim}-d and {len(outs)}", rule=rule)
    x = canonical_data(data, layout, rule)
    for c, n in zip(canonical[2:], outs):
        f = layout.factor(c)
        if f is not None and n % f:
            raise OpRuntimeError("shape_mismatch", f"the output's {c} extent {n} does not "
                                 f"split by {f} (layout {text})", rule=rule)
    sizes = x.shape[2:]
    out_dt = attrs.get("out_dtype")
    out_dt = data.dtype if out_dt.is_void else numpy_dtype(out_dt)
    shape = x.shape[:2] + outs
    if 0 in shape:
        return conv_result_in_layout(np.zeros(shape, out_dt), canonical, text, rule)
    if 0 in sizes:
        raise OpRuntimeError("index_out_of_bounds", f"resize of an empty image {sizes} to "
                             f"{outs} reads outside it", rule="EXEC-image-resize-2")
    method, mode = attrs.get("method"), attrs.get("coordinate_transformation_mode")
    roi = [r.value for r in attrs.get("roi")]
    rounding = _rounding(attrs.get)
    alpha, exclude = attrs.get("cubic_alpha"), bool(attrs.get("cubic_exclude"))
    coords, taps, weights = [], [], []
    for a in range(nsp):
        idx = np.arange(outs[a], dtype=np.int64)
        coord = source_coord(_NumPyOps, idx, sizes[a], outs[a], mode, roi[a], roi[a + nsp])
        coord = np.asarray(coord, F32)
        ind, w = axis_taps(_NumPyOps, coord, sizes[a], method, rounding, alpha, exclude,
                           sizes[a])
        coords.append(coord)
        taps.append([np.clip(_wrap32(i), 0, sizes[a] - 1) for i in ind])
        weights.append(w)
    xf = x.astype(F32)
    # values[..., t_0, ..., t_{n-1}]: the pixel of each tap combination
    values = np.stack([xf[(slice(None), slice(None), *np.ix_(*(taps[a][k[a]]
                                                                for a in range(nsp))))]
                       for k in itertools.product(*(range(len(t)) for t in taps))], axis=-1)
    values = values.reshape(shape + tuple(len(t) for t in taps))
    for a in reversed(range(nsp)):
        if weights[a] is None:
            values = values[..., 0]
            continue
        total = None
        for k, w in enumerate(weights[a]):
            term = values[..., k] * w.reshape((outs[a],) + (1,) * (nsp - 1))
            total = term if total is None else total + term
        values = total
    if mode == "tf_crop_and_resize":
        outside = np.zeros(outs, bool)
        for a in range(nsp):
            c = coords[a]
            bad = (c < 0) | (c > F32(sizes[a] - 1))
            outside |= bad.reshape((outs[a],) + (1,) * (nsp - 1 - a)) if a < nsp - 1 else bad
        values = np.where(outside, F32(attrs.get("extrapolation_value")), values)
    result = cast_value(values.astype(F32), out_dt)
    return conv_result_in_layout(result, canonical, text, rule)


def canonical_data(data: np.ndarray, layout: Layout, rule: str) -> np.ndarray:
    """The data in the canonical layout; each inner axis of a split has its factor's
    extent (``shape_mismatch``, SI-nn-layout-2)."""
    for c, f in layout.axes:
        extent = data.shape[layout.position(c, inner=True)] if f is not None else None
        if f is not None and extent != f:
            raise OpRuntimeError("shape_mismatch", f"axis {f}{c.lower()} of layout "
                                 f"{layout.text} has extent {extent}, not {f}", rule=rule)
    return layout.to_canonical(data)


# -- lowering ------------------------------------------------------------------------------------

def _legalize_resize(ctx, nsp: int):
    """TE-leg-image-1: one stage ``resize`` computing each output element with the
    formulas of the semantics on te expressions (the same float32 operations in the same
    order), the taps read at clamped indices, in the data layout. An input axis that may
    be empty while the output is not (EXEC-image-resize-2's trap) is the PrimFunc's
    guard, so no clamped read of an empty axis is ever made (TE-leg-7). In a split
    layout (``NCHW16c``) the stage reads the split axes directly: a split N or C passes
    through (outer and inner index as the output's), a split spatial axis has the
    canonical index ``outer * f + inner`` and its taps read ``(i // f, i % f)``."""
    canonical = CONV_LAYOUTS[nsp][0]
    x = ctx.tensor(0, "data")
    layout = Layout.parse(ctx.attr("layout"), canonical)
    out_shape = ctx.result_shape()
    sp = canonical[2:]
    guard_split_extents(ctx, x.shape, layout)
    in_size = {c: canonical_extent(x.shape, layout, c) for c in sp}
    out_size = {c: canonical_out_extent(ctx, out_shape, layout, c, a)
                for a, c in enumerate(sp)}
    method, mode = ctx.attr("method"), ctx.attr("coordinate_transformation_mode")
    roi = [r.value for r in ctx.attr("roi")]
    rounding = _rounding(ctx.attr)
    alpha, exclude = ctx.attr("cubic_alpha"), bool(ctx.attr("cubic_exclude"))
    out_dtype = ctx.result_sinfo.dtype
    extrapolation = ctx.attr("extrapolation_value")

    def formula(*idx):
        # canonical index of each spatial letter
        pos = {c: canonical_index(idx, layout, c) for c in sp}
        axes = []
        for a, c in enumerate(sp):
            coord = source_coord(_TeOps, pos[c], in_size[c], out_size[c], mode, roi[a],
                                 roi[a + nsp])
            ind, w = axis_taps(_TeOps, coord, in_size[c], method, rounding, alpha, exclude,
                               in_size[c])
            axes.append((coord, ind, w))

        def clamp(i, c):
            return P.Max(P.Min(te.cast(INT64, i), P.Sub(in_size[c], P.IntImm(1, INT64), INT64),
                               INT64), P.IntImm(0, INT64), INT64)

        def combine(a, chosen):
            coord, ind, w = axes[a]
            parts = []
            for k in range(len(ind)):
                here = dict(chosen)
                here[sp[a]] = clamp(ind[k], sp[a])
                if a == nsp - 1:
                    parts.append(te.cast(FLOAT32, x[source_index(idx, here, layout)]))
                else:
                    parts.append(combine(a + 1, here))
            if w is None:
                return parts[0]
            total = None
            for part, wk in zip(parts, w):
                total = part * wk if total is None else total + part * wk
            return total
        # from the outermost axis inward, so the innermost axis is combined first
        value = combine(0, {})
        if mode == "tf_crop_and_resize":
            e = te.const(float(F32(extrapolation)), FLOAT32)
            for a in range(nsp):
                coord = axes[a][0]
                c = sp[a]
                limit = te.cast(FLOAT32, P.Sub(in_size[c], P.IntImm(1, INT64), INT64))
                value = te.if_then_else(P.Or(P.LT(coord, te.const(0.0, FLOAT32), BOOL),
                                             P.GT(coord, limit, BOOL), BOOL), e, value)
        return te.cast(out_dtype, value)
    _guard_nonempty_input(ctx, [in_size[c] for c in sp], out_shape)
    out = te.compute(out_shape, formula, name="resize", axis_prefix="ax")
    return ctx.call_te(out, f"resize{nsp}d")


def canonical_extent(shape, layout: Layout, c: str) -> P.PrimExpr:
    """The canonical extent of letter ``c``: its axis, times the factor when split (the
    inner axis' extent is the factor: ``guard_split_extents``)."""
    outer, f = shape[layout.position(c)], layout.factor(c)
    return outer if f is None else P.Mul(outer, P.IntImm(f, outer.dtype), outer.dtype)


def canonical_out_extent(ctx, out_shape, layout: Layout, c: str, a: int) -> P.PrimExpr:
    """The output length of spatial letter ``c``: ``size[a]``. Split, the result holds
    ``size[a] // f`` rows of ``f``, so ``size[a]`` must divide by ``f`` (the PrimFunc's
    ``shape_mismatch`` guard where not proved; EXEC-image-resize-1)."""
    from .nn_lowering import proved
    f = layout.factor(c)
    if f is None:
        return out_shape[layout.position(c)]
    size = ctx.call.args[1]
    if not isinstance(size, rx.ShapeExpr):
        raise ctx.decline("a split spatial axis needs the size as a literal shape")
    n = size.values[a]
    divides = P.EQ(P.FloorMod(n, P.IntImm(f, n.dtype), n.dtype), P.IntImm(0, n.dtype), BOOL)
    if not proved(divides):
        ctx.require(divides, "shape_mismatch",
                    f"the output's {c} extent does not split by {f} (layout {layout.text})")
    return n


def guard_split_extents(ctx, shape, layout: Layout) -> None:
    """SI-nn-layout-2 at run time: each inner axis of the data has its factor's extent
    (the PrimFunc's ``shape_mismatch`` guard where not proved)."""
    from .nn_lowering import proved
    for c, f in layout.axes:
        if f is None:
            continue
        extent = shape[layout.position(c, inner=True)]
        same = P.EQ(extent, P.IntImm(f, extent.dtype), BOOL)
        if not proved(same):
            ctx.require(same, "shape_mismatch",
                        f"axis {f}{c.lower()} of layout {layout.text} must have extent {f}")


def canonical_index(idx, layout: Layout, c: str) -> P.PrimExpr:
    """The canonical index of letter ``c`` at output index ``idx`` (in ``layout``)."""
    outer, f = idx[layout.position(c)], layout.factor(c)
    if f is None:
        return outer
    return P.Add(P.Mul(outer, P.IntImm(f, outer.dtype), outer.dtype),
                 idx[layout.position(c, inner=True)], outer.dtype)


def source_index(idx, taps: dict, layout: Layout) -> tuple:
    """The data index of a tap: the output's index on N and C (split or not), each
    spatial letter's clamped canonical index in ``taps`` placed in ``layout``."""
    src = list(idx)
    for c, i in taps.items():
        f = layout.factor(c)
        if f is None:
            src[layout.position(c)] = i
        else:
            k = P.IntImm(f, i.dtype)
            src[layout.position(c)] = P.FloorDiv(i, k, i.dtype)
            src[layout.position(c, inner=True)] = P.FloorMod(i, k, i.dtype)
    return tuple(src)


def _guard_nonempty_input(ctx, sizes, out_shape) -> None:
    """EXEC-image-resize-2: an empty output, or every input axis non-empty; where the
    analyzer cannot prove it, the PrimFunc asserts it (``index_out_of_bounds``)."""
    from .nn_lowering import proved
    zero = P.IntImm(0, INT64)
    # only the terms the analyzer cannot decide: an axis not provably non-empty, an
    # output dimension not provably positive
    ok = None
    for size in sizes:
        nonempty = P.GT(size, zero, BOOL)
        if not proved(nonempty):
            ok = nonempty if ok is None else P.And(ok, nonempty, BOOL)
    if ok is None:
        return
    for d in out_shape:
        if not proved(P.GT(d, zero, BOOL)):
            ok = P.Or(ok, P.EQ(d, zero, BOOL), BOOL)
    if not proved(ok):
        ctx.require(ok, "index_out_of_bounds",
                    "resize of an empty image to a non-empty output reads outside it")


# -- registration --------------------------------------------------------------------------------

def _register_all() -> None:
    for nsp in (2, 3):
        register(OpDef(
            f"relax.image.resize{nsp}d", (Operand("data"), Operand("size", "shape")),
            (Attr("roi", None, _roi(nsp)), Attr("layout", CONV_LAYOUTS[nsp][0], to_str),
             Attr("method", "linear", one_of(*METHODS)),
             Attr("coordinate_transformation_mode", "half_pixel", one_of(*MODES)),
             Attr("rounding_method", "round" if nsp == 2 else "", one_of(*ROUNDINGS)),
             Attr("cubic_alpha", -0.75, to_float), Attr("cubic_exclude", 0, to_int),
             Attr("extrapolation_value", 0.0, to_float), Attr("out_dtype", None, to_dtype)),
            deduce=lambda ctx, nsp=nsp: deduce_resize(ctx, nsp),
            compute=lambda attrs, x, size, nsp=nsp: _resize(attrs, x, size, nsp=nsp),
            family=FAMILY, spec_rule="SI-image-resize-1", bind=_bind_size(nsp),
            legalize=lambda ctx, nsp=nsp: _legalize_resize(ctx, nsp)))


_register_all()
