"""``R.image.grid_sample`` and ``R.image.affine_grid`` (spec/ops/image.md "grid_sample",
"affine_grid"). As for resizing, the formulas are topi's, written once over an
operations object (NumPy arrays for the semantics, te expressions for the lowering) so
the two compute the same operations in the same order, in the grid's (affine_grid: the
matrix's) float dtype.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT64, INT64, parse_dtype
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, common_dtype, expr_text, float_to_int, i64, provably_ne, quiet,
    shape_operand, tensor_arg, trunc_div,
)
from .image import (
    canonical_data, canonical_extent, canonical_index, guard_split_extents, source_index,
    split_dims,
)
from .layouts import Layout
from .nn import canonical_dims, conv_layout, conv_result_in_layout, runtime_layout
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_bool, to_str

FAMILY = "image"
INT32 = parse_dtype("int32")
_PADDINGS = ("zeros", "border", "reflection")


def _canonical(layout: str) -> str:
    """TVM's grid_sample is 3-d exactly for ``NCDHW``; any other layout is a 2-d layout
    of NCHW's letters (a permutation, or split: ``NHWC``, ``NCHW16c``)."""
    return "NCDHW" if layout == "NCDHW" else "NCHW"


# -- operations on NumPy arrays and on te expressions ------------------------------------------

class _NumPyOps:
    def __init__(self, dtype: np.dtype):
        self.dt = dtype

    def const(self, v):
        return self.dt.type(v)

    def real(self, v):                 # an integer (array or size) in the float dtype
        return np.asarray(v).astype(self.dt)

    def div(self, a, b):
        return a / b

    floor = staticmethod(np.floor)
    nearbyint = staticmethod(np.rint)
    abs = staticmethod(np.abs)

    def to_int32(self, v):
        return float_to_int(np.asarray(v), np.dtype(np.int32)).astype(np.int64)

    def int_add(self, a, k):           # int32 addition, wrapping
        return ((np.asarray(a, np.int64) + k + 2 ** 31) % 2 ** 32) - 2 ** 31

    def minimum(self, a, b):
        return np.minimum(a, b)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def where(self, cond, a, b):
        return np.where(cond, a, b)

    def ge(self, a, b):
        return a >= b

    def le(self, a, b):
        return a <= b

    def both(self, a, b):
        return a & b

    def trunc_div_int(self, a, size):
        if np.any(size == 0):
            raise OpRuntimeError("division_by_zero", "grid_sample reflection over an axis of "
                                 "length 1 with align_corners", rule="EXEC-image-grid_sample-1")
        q = trunc_div(np.asarray(a, np.int64), np.int64(size))
        return ((q + 2 ** 31) % 2 ** 32) - 2 ** 31

    def is_even(self, a):
        return np.fmod(a, 2) == 0

    def int_product(self, times, span):    # an int32 count times a size, in the dtype
        return (np.asarray(times, np.int64) * span).astype(self.dt)


class _TeOps:
    def __init__(self, dtype):
        self.dt = dtype

    def const(self, v):
        return te.const(float(v), self.dt)

    def real(self, v):
        return te.cast(self.dt, v if isinstance(v, P.PrimExpr) else i64(v))

    def div(self, a, b):
        return te.div(a, b)

    def floor(self, e):
        return te.call_intrin("floor", e)

    def nearbyint(self, e):
        return te.call_intrin("nearbyint", e)

    def abs(self, e):
        return te.call_intrin("fabs", e)

    def to_int32(self, v):
        return te.cast(INT32, v)

    def int_add(self, a, k):
        return a + P.IntImm(k, INT32) if k else a

    def minimum(self, a, b):
        return _binary(P.Min, a, b)

    def maximum(self, a, b):
        return _binary(P.Max, a, b)

    def where(self, cond, a, b):
        return te.if_then_else(cond, a, b)

    def ge(self, a, b):
        return P.GE(a, b, BOOL)

    def le(self, a, b):
        return P.LE(a, b, BOOL)

    def both(self, a, b):
        return P.And(a, b, BOOL)

    def trunc_div_int(self, a, size):
        q = P.Div(te.cast(INT64, a), size, INT64)
        return te.cast(INT32, q)

    def is_even(self, a):
        return P.EQ(P.Mod(a, P.IntImm(2, INT32), INT32), P.IntImm(0, INT32), BOOL)

    def int_product(self, times, span):
        return te.cast(self.dt, P.Mul(te.cast(INT64, times), i64(span) if isinstance(span, int)
                                      else span, INT64))


def _binary(node, a, b):
    dt = a.dtype if isinstance(a, P.PrimExpr) else b.dtype
    conv = (lambda v: v if isinstance(v, P.PrimExpr) else
            (te.const(float(v), dt) if dt.is_float else P.IntImm(int(v), dt)))
    a, b = conv(a), conv(b)
    if a.dtype != b.dtype:
        wide = INT64 if not a.dtype.is_float else a.dtype
        a, b = te.cast(wide, a), te.cast(wide, b)
    return node(a, b, a.dtype)


# -- the formulas ----------------------------------------------------------------------------------

def unnormalize(ops, g, size, align: bool):
    """Grid value ``g`` in [-1, 1] to a source coordinate along an axis of ``size``."""
    one, two = ops.const(1), ops.const(2)
    if align:
        return ops.div((g + one) * ops.real(size - 1), two)
    return ops.const(-0.5) + ops.div((g + one) * ops.real(size), two)


def clip_coord(ops, x, size):
    return ops.minimum(ops.maximum(x, ops.const(0)), ops.real(size - 1))


def reflect_coord(ops, x, size, align: bool):
    """topi's reflection of a float coordinate into ``[corner, span + corner]``."""
    span, corner = (size - 1, 0.0) if align else (size, -0.5)
    c = ops.const(corner)
    fspan = ops.real(span)
    inside = ops.both(ops.ge(x, c), ops.le(x, fspan + c))
    dist = ops.abs(c - x)
    times = ops.trunc_div_int(ops.to_int32(dist), span)
    extra = dist - ops.int_product(times, span)
    flipped = ops.where(ops.is_even(times), extra + c, fspan - extra + c)
    return ops.where(inside, x, flipped)


def source_coords(ops, gvals, sizes, padding: str, align: bool, clip: bool = True):
    """The source coordinate on every axis (z, y, x order) from the grid's values
    (``gvals`` in the same order) after the padding mode."""
    out = []
    for g, size in zip(gvals, sizes):
        u = unnormalize(ops, g, size, align)
        if padding == "reflection" and clip:
            u = clip_coord(ops, reflect_coord(ops, u, size, align), size)
        elif padding == "border" and clip:
            u = clip_coord(ops, u, size)
        out.append(u)
    return out


def bilinear_terms(ops, coords):
    """(tap offsets per axis, weight) in topi's order of the summands."""
    fr = [u - ops.real(ops.to_int32(ops.floor(u))) for u in coords]
    one = ops.const(1)
    if len(coords) == 2:
        (fy, fx) = fr
        return [((0, 0), [one - fy, one - fx]), ((0, 1), [one - fy, fx]),
                ((1, 0), [fy, one - fx]), ((1, 1), [fy, fx])]
    fz, fy, fx = fr
    w = {0: lambda f: one - f, 1: lambda f: f}
    order = [(0, 0, 0), (0, 0, 1), (1, 1, 0), (1, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0),
             (0, 1, 1)]
    return [((z, y, x), [w[x](fx), w[y](fy), w[z](fz)]) for z, y, x in order]


def cubic_weights(ops, f):
    """topi's grid_sample bicubic weights (A = -0.75) of fraction ``f``."""
    a = -0.75
    c = ops.const

    def w1(t):
        return (c(a + 2) * t - c(a + 3)) * t * t + c(1)

    def w2(t):
        return ((c(a) * t - c(5 * a)) * t + c(8 * a)) * t - c(4 * a)
    return [w2(f + c(1)), w1(f), w1(c(1) - f), w2(c(2) - f)]


def sample(ops, method: str, padding: str, align: bool, gvals, sizes, pixel):
    """One output value: ``pixel(indices)`` reads the data (0 outside it)."""
    if method == "bicubic":
        coords = source_coords(ops, gvals, sizes, padding, align, clip=False)
        base = [ops.to_int32(ops.floor(u)) for u in coords]
        frac = [u - ops.real(b) for u, b in zip(coords, base)]
        (by, bx), (fy, fx) = base, frac
        sy, sx = sizes

        def tap(b, k, size):
            i = ops.int_add(b, k - 1)
            if padding == "border":
                return ops.to_int32(ops.minimum(ops.maximum(i, 0), size - 1))
            return i
        rows = []
        for i in range(4):
            yi = tap(by, i, sy)
            wx = cubic_weights(ops, fx)
            row = None
            for j in range(4):
                term = pixel((yi, tap(bx, j, sx))) * wx[j]
                row = term if row is None else row + term
            rows.append(row)
        wy = cubic_weights(ops, fy)
        total = None
        for i in range(4):
            term = rows[i] * wy[i]
            total = term if total is None else total + term
        return total
    coords = source_coords(ops, gvals, sizes, padding, align)
    if method == "nearest":
        return pixel(tuple(ops.to_int32(ops.nearbyint(u)) for u in coords))
    base = [ops.to_int32(ops.floor(u)) for u in coords]
    total = None
    for offsets, weights in bilinear_terms(ops, coords):
        term = pixel(tuple(ops.int_add(b, k) for b, k in zip(base, offsets)))
        for w in weights:
            term = term * w
        total = term if total is None else total + term
    return total


# -- grid_sample ---------------------------------------------------------------------------------

def deduce_grid_sample(ctx: DeduceContext) -> si.StructInfo:
    """SI-image-grid_sample-1..3.

    1. ``layout`` is ``NCDHW`` (3-d), or NCHW's letters in some order, each split at
       most once (2-d: ``NCHW``, ``NHWC``, ``NCHW16c``; SI-nn-layout-1, -2); ``method``
       ``nearest``, ``bilinear`` or ``bicubic`` (SI-call-1); ``bicubic`` is 2-d only
       and takes no ``reflection`` padding (not defined here).
    2. data and grid are float tensors of one dtype, the data of the layout's ndim, the
       grid ``(N, nsp, *out)``; the grid's batch provably different from the data's
       (canonical) one, or its axis 1 provably different from ``nsp``, is an error.
    3. The result is ``(N, C, *grid.shape[2:])`` placed in the layout, of the data's
       dtype; without both shapes, the ndim."""
    data, grid = tensor_arg(ctx, 0, "data"), tensor_arg(ctx, 1, "grid")
    text, method = ctx.attr("layout"), ctx.attr("method")
    rule = "SI-image-grid_sample-1"
    canonical = _canonical(text)
    layout = conv_layout(ctx, text, canonical, "data")
    nsp = len(canonical) - 2
    if nsp == 3 and method == "bicubic":
        raise ctx.error("bicubic sampling is 2-d only", rule=rule)
    if method == "bicubic" and ctx.attr("padding_mode") == "reflection":
        raise ctx.error("bicubic sampling with reflection padding is not defined here",
                        rule=rule)
    rule2 = "SI-image-grid_sample-2"
    for t, what, ndim in ((data, "data", layout.ndim), (grid, "grid", nsp + 2)):
        if not t.dtype.is_void and not t.dtype.is_float:
            raise ctx.error(f"{what} must be a float tensor, found {t.dtype}", rule=rule2)
        if t.ndim >= 0 and t.ndim != ndim:
            raise ctx.error(f"{what} must be {ndim}-d for layout {text}, found ndim "
                            f"{t.ndim}", rule=rule2)
    dtype = common_dtype(ctx, data.dtype, grid.dtype)
    d = canonical_dims(ctx, data.shape, layout, "data") if data.shape is not None else None
    if grid.shape is not None:
        if provably_ne(ctx, grid.shape[1], nsp):
            raise ctx.error(f"the grid's axis 1 has {expr_text(grid.shape[1])} coordinates, "
                            f"needs {nsp}", rule=rule2)
        if d is not None and provably_ne(ctx, grid.shape[0], d[0]):
            raise ctx.error(f"the grid's batch {expr_text(grid.shape[0])} differs from the "
                            f"data's {expr_text(d[0])}", rule=rule2)
    if d is None or grid.shape is None:
        return si.TensorStructInfo(None, dtype, layout.ndim, data.vdevice)
    return si.TensorStructInfo(split_dims(ctx, [d[0], d[1], *grid.shape[2:]], layout), dtype,
                               vdevice=data.vdevice)


@quiet
def _grid_sample(attrs, data, grid):
    """EXEC-image-grid_sample-1: output ``[n, c, o...]`` samples the data at the grid's
    point ``grid[n, :, o...]`` (x first, then y, then z) by spec/ops/image.md's
    formulas, in the dtype; taps outside the data read 0. Shapes that do not agree
    (batch, coordinate count) are ``shape_mismatch``. Another layout than ``NCHW`` /
    ``NCDHW`` (``NHWC``, ``NCHW16c``) is computed in the canonical layout: the data
    converts to it, the result back (a split output length must divide by its factor,
    ``shape_mismatch``)."""
    text = attrs.get("layout")
    canonical = _canonical(text)
    nsp = len(canonical) - 2
    rule = "EXEC-image-grid_sample-1"
    layout = runtime_layout(text, canonical, rule)
    if data.ndim != layout.ndim or grid.ndim != nsp + 2:
        raise OpRuntimeError("shape_mismatch", f"grid_sample of data {data.shape} with grid "
                             f"{grid.shape} (layout {text})", rule=rule)
    data = canonical_data(data, layout, rule)
    if grid.shape[0] != data.shape[0] or grid.shape[1] != nsp:
        raise OpRuntimeError("shape_mismatch", f"grid_sample of data {data.shape} "
                             f"(canonical) with grid {grid.shape}", rule=rule)
    for c, n in zip(canonical[2:], grid.shape[2:]):
        f = layout.factor(c)
        if f is not None and n % f:
            raise OpRuntimeError("shape_mismatch", f"the output's {c} extent {n} does not "
                                 f"split by {f} (layout {text})", rule=rule)
    return conv_result_in_layout(_sample_canonical(attrs, data, grid, nsp), canonical, text,
                                 rule)


def _sample_canonical(attrs, data, grid, nsp: int):
    """grid_sample of canonical data (``NCHW`` / ``NCDHW``)."""
    ops = _NumPyOps(grid.dtype)
    sizes = data.shape[2:]
    outs = grid.shape[2:]
    n_idx = np.arange(data.shape[0]).reshape((-1,) + (1,) * nsp)
    gvals = [grid[:, nsp - 1 - a] for a in range(nsp)]    # z, y, x from rows 2, 1, 0

    def pixel(idx):
        idx = [np.broadcast_to(np.asarray(i, np.int64), (data.shape[0], 1) + outs)[:, 0]
               for i in idx]
        inside = np.ones(idx[0].shape, bool)
        for i, size in zip(idx, sizes):
            inside &= (i >= 0) & (i < size)
        safe = [np.where(inside, i, 0) for i in idx]
        if 0 in sizes:
            return np.zeros((data.shape[0], data.shape[1]) + outs, data.dtype)
        vals = np.moveaxis(data[(n_idx, slice(None), *safe)], -1, 1)
        return np.where(inside[:, None], vals, data.dtype.type(0))

    if 0 in grid.shape or data.shape[1] == 0:
        return np.zeros((data.shape[0], data.shape[1]) + outs, data.dtype)
    add_channel = [g[:, None] for g in gvals]
    value = sample(ops, attrs.get("method"), attrs.get("padding_mode"),
                   attrs.get("align_corners"), add_channel, sizes, pixel)
    return np.ascontiguousarray(value.astype(data.dtype))


def _legalize_grid_sample(ctx):
    """TE-leg-image-2: one stage ``grid_sample`` evaluating the shared formulas on te
    expressions per output element; each tap reads the data under a lazy bounds test
    (0 outside). The batch sizes and the coordinate count, where not proved equal, are
    the PrimFunc's guards (TE-leg-7). Another layout is read directly, as resizing
    reads it (TE-leg-image-1): N and C at the output's indices, a spatial tap at
    canonical ``i`` of a split letter at ``(i // f, i % f)``, the grid at the canonical
    indices; the semantics' split checks are guards first (inner extents, then the
    batch and coordinate count, then split output lengths)."""
    data, grid = ctx.tensor(0, "data"), ctx.tensor(1, "grid")
    canonical = _canonical(ctx.attr("layout"))
    layout = Layout.parse(ctx.attr("layout"), canonical)
    nsp = len(canonical) - 2
    sp = canonical[2:]
    guard_split_extents(ctx, data.shape, layout)
    batch = canonical_extent(data.shape, layout, "N")
    ctx.require_equal(grid.shape[0], batch, "the grid's batch and the data's")
    ctx.require_equal(grid.shape[1], nsp, "the grid's coordinate count and the spatial rank")
    for c, n in zip(sp, grid.shape[2:]):
        if layout.factor(c) is not None:
            ctx.require_divides(n, layout.factor(c), f"the output's {c} extent")
    ops = _TeOps(grid.dtype)
    sizes = [canonical_extent(data.shape, layout, c) for c in sp]

    def formula(*idx):
        n = canonical_index(idx, layout, "N")
        o = [canonical_index(idx, layout, c) for c in sp]
        gvals = [grid[(n, i64(nsp - 1 - a), *o)] for a in range(nsp)]

        def pixel(taps):
            wide = [te.cast(INT64, i) for i in taps]
            conds = []
            for i, size in zip(wide, sizes):
                conds += [P.GE(i, i64(0), BOOL), P.LT(i, size, BOOL)]
            return te.if_then_else(te.all_of(*conds),
                                   data[source_index(idx, dict(zip(sp, wide)), layout)],
                                   te.const(0, data.dtype))
        return sample(ops, ctx.attr("method"), ctx.attr("padding_mode"),
                      ctx.attr("align_corners"), gvals, sizes, pixel)
    out = te.compute(ctx.result_shape(), formula, name="grid_sample", axis_prefix="ax")
    return ctx.call_te(out, "grid_sample")


# -- affine_grid ---------------------------------------------------------------------------------

def deduce_affine_grid(ctx: DeduceContext) -> si.StructInfo:
    """SI-image-affine_grid-1..3 (``k`` the size's length).

    1. ``size`` is a shape of 2 or 3 values (a constant one ``>= 0``; with
       ``align_corners`` ``> 1``).
    2. data is a float tensor; a known ndim is 3; a dimension 1 provably different from
       ``k`` or a dimension 2 provably different from ``k + 1`` is an error.
    3. The result is ``(N, k, *size)`` of the data's dtype (a literal ``size`` and a
       known data shape), else ndim ``k + 2``."""
    data = tensor_arg(ctx, 0, "data")
    size = shape_operand(ctx, 1)
    rule = "SI-image-affine_grid-1"
    if size.ndim not in (2, 3):
        raise ctx.error(f"size must have 2 or 3 values, found {size.ndim}", rule=rule)
    k = size.ndim
    low = 2 if ctx.attr("align_corners") else 0
    for v in size.values or ():
        if isinstance(v, P.IntImm) and v.value < low:
            raise ctx.error(f"size {v.value} must be >= {low}" +
                            (" with align_corners" if low else ""), rule=rule)
    rule2 = "SI-image-affine_grid-2"
    if not data.dtype.is_void and not data.dtype.is_float:
        raise ctx.error(f"data must be a float tensor, found {data.dtype}", rule=rule2)
    if data.ndim >= 0 and data.ndim != 3:
        raise ctx.error(f"data must be 3-d (batch, {k}, {k + 1}), found ndim {data.ndim}",
                        rule=rule2)
    if data.shape is not None:
        for axis, want in ((1, k), (2, k + 1)):
            if provably_ne(ctx, data.shape[axis], want):
                raise ctx.error(f"data dimension {axis} is {expr_text(data.shape[axis])}, "
                                f"needs {want}", rule=rule2)
    if data.shape is None or not isinstance(ctx.args[1], rx.ShapeExpr):
        return si.TensorStructInfo(None, data.dtype, k + 2, data.vdevice)
    return si.TensorStructInfo((data.shape[0], i64(k), *ctx.args[1].values), data.dtype,
                               vdevice=data.vdevice)


def _grid_steps(size, align: bool):
    """topi's start and step of one axis, computed in double (``float64``)."""
    if align:
        return -1.0, (2.0 - 1e-7) / (size - 1)
    return -1.0 + 1.0 / size, 2.0 / size


@quiet
def _affine_grid(attrs, data, size):
    """EXEC-image-affine_grid-1: ``out[n, d, i...] = data[n, d, k] + sum_r data[n, d,
    k - 1 - r] * (start_r + f(i_r) * step_r)`` accumulated over ``r`` in order (axis
    ``r`` of the output, slowest first), in the dtype; ``start``/``step`` from
    ``_grid_steps`` in double, rounded to the dtype. Shapes that do not agree are
    ``shape_mismatch``; ``align_corners`` with a size below 2 is ``invalid_value``."""
    sizes = tuple(int(s) for s in size)
    k = len(sizes)
    rule = "EXEC-image-affine_grid-1"
    if data.ndim != 3 or data.shape[1:] != (k, k + 1):
        raise OpRuntimeError("shape_mismatch", f"affine_grid of a {data.shape} matrix to "
                             f"{k} spatial axes", rule=rule)
    align = attrs.get("align_corners")
    if align and any(s < 2 for s in sizes):
        raise OpRuntimeError("invalid_value", f"align_corners needs sizes >= 2, found "
                             f"{sizes}", rule=rule)
    dt = data.dtype
    out = np.zeros((data.shape[0], k) + sizes, dt)
    grids = np.meshgrid(*(np.arange(s) for s in sizes), indexing="ij")
    for d in range(k):
        val = np.broadcast_to(data[:, d, k].reshape((-1,) + (1,) * k),
                              (data.shape[0],) + sizes).astype(dt)
        for r in range(k):
            start, step = (dt.type(v) for v in _grid_steps(sizes[r], align)) if sizes[r] \
                else (dt.type(0), dt.type(0))
            coord = start + grids[r].astype(dt) * step
            val = val + data[:, d, k - 1 - r].reshape((-1,) + (1,) * k) * coord
        out[:, d] = val
    return out


def _legalize_affine_grid(ctx):
    """TE-leg-image-3: one stage ``affine_grid``; the starts and steps are constants
    for constant sizes and computed in float64, then cast, for symbolic ones (as the
    semantics). The op's checks, where not proved, are the PrimFunc's guards (TE-leg-7),
    in its order: the matrix is ``(N, k, k + 1)`` (``shape_mismatch``), then with
    ``align_corners`` every size is >= 2 (``invalid_value``)."""
    from .nn_lowering import proved
    data = ctx.tensor(0, "data")
    out_shape = ctx.result_shape()
    sizes = out_shape[2:]
    k = len(sizes)
    align = ctx.attr("align_corners")
    ctx.require_equal(data.shape[1], k, "the matrices' rows and the spatial rank")
    ctx.require_equal(data.shape[2], k + 1, "the matrices' columns and the spatial rank plus 1")
    for s in sizes if align else ():
        at_least_two = P.GE(s, i64(2), BOOL)
        if not proved(at_least_two):
            ctx.require(at_least_two, "invalid_value",
                        f"align_corners needs every size >= 2, found {ctx.show(s)}")
    dt = data.dtype

    def start_step(s):
        if isinstance(s, P.IntImm):
            if s.value == 0:
                return te.const(0.0, dt), te.const(0.0, dt)
            a, b = _grid_steps(s.value, align)
            return te.const(float(numpy_dtype(dt).type(a)), dt), \
                te.const(float(numpy_dtype(dt).type(b)), dt)
        f = te.cast(FLOAT64, s)
        if align:
            step = te.div(te.const(2.0 - 1e-7, FLOAT64), f - te.const(1.0, FLOAT64))
            return te.const(-1.0, dt), te.cast(dt, step)
        return (te.cast(dt, te.const(-1.0, FLOAT64) + te.div(te.const(1.0, FLOAT64), f)),
                te.cast(dt, te.div(te.const(2.0, FLOAT64), f)))

    def formula(n, d, *i):
        val = data[(n, d, i64(k))]
        for r in range(k):
            start, step = start_step(sizes[r])
            val = val + data[(n, d, i64(k - 1 - r))] * (start + te.cast(dt, i[r]) * step)
        return val
    out = te.compute(out_shape, formula, name="affine_grid", axis_prefix="ax")
    return ctx.call_te(out, "affine_grid")


def _bind_affine_size(args: dict) -> dict:
    """SI-call-3: one number as ``size`` is a square 2-d size (TVM's Python function)."""
    size = args.get("size")
    if isinstance(size, rx.PrimValue):
        args["size"] = rx.Tuple((size, size), span=size.span)
    return args


def _register_all() -> None:
    register(OpDef("relax.image.grid_sample", (Operand("data"), Operand("grid")),
                   (Attr("method", "bilinear", one_of("nearest", "bilinear", "bicubic")),
                    Attr("layout", "NCHW", to_str),
                    Attr("padding_mode", "zeros", one_of(*_PADDINGS)),
                    Attr("align_corners", False, to_bool)),
                   deduce=deduce_grid_sample, compute=_grid_sample, family=FAMILY,
                   spec_rule="SI-image-grid_sample-1", legalize=_legalize_grid_sample))
    register(OpDef("relax.image.affine_grid", (Operand("data"), Operand("size", "shape")),
                   (Attr("align_corners", True, to_bool),),
                   deduce=deduce_affine_grid, compute=_affine_grid, family=FAMILY,
                   spec_rule="SI-image-affine_grid-1", bind=_bind_affine_size,
                   legalize=_legalize_affine_grid))


_register_all()
