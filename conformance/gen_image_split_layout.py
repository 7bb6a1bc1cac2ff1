"""Conformance cases of the `ops` area for resize2d / resize3d in split layouts
(spec/ops/image.md SI-image-resize-2, -3, EXEC-image-resize-1; TVM's NCHW16c and
NCHW2n4c, and a split spatial axis), and grid_sample in the 2-d layouts TVM deduces
(SI-image-grid_sample-1, -3: NHWC, NCHW4c). Expected outputs: the unsplit case's reference
formulas (gen_ops_extra_nn) on the data unsplit by a reshape written here, the result
split back the same way. Run lowered with
``relax-ref conformance --passes LegalizeOps -k _split_`` (and ``-k grid_sample_layout``)."""
from __future__ import annotations

import numpy as np

from generate import Case, ok, shape, trap
from gen_ops import AREA, T_, ann, fdata, module
from gen_ops_extra_nn import _bilinear_sample_ref, _nearest_floor_ref, _resize_linear_ref

F32 = np.float32


def _unsplit_c(x: np.ndarray) -> np.ndarray:
    """(N, C0, *sp, f) -> (N, C0 * f, *sp): channel c0 * f + ci."""
    moved = np.moveaxis(x, -1, 2)
    return moved.reshape(x.shape[0], -1, *x.shape[2:-1])


def _split_c(y: np.ndarray, f: int) -> np.ndarray:
    """(N, C, *sp) -> (N, C / f, *sp, f)."""
    n, c, *sp = y.shape
    return np.ascontiguousarray(np.moveaxis(y.reshape(n, c // f, f, *sp), 2, -1))


def _unsplit_h(x: np.ndarray) -> np.ndarray:
    """(N, C, H0, W, f) -> (N, C, H0 * f, W): row h0 * f + hi."""
    n, c, h0, w, f = x.shape
    return x.transpose(0, 1, 2, 4, 3).reshape(n, c, h0 * f, w)


def _split_h(y: np.ndarray, f: int) -> np.ndarray:
    n, c, h, w = y.shape
    return np.ascontiguousarray(y.reshape(n, c, h // f, f, w).transpose(0, 1, 2, 4, 3))


def _nearest_round_ref(x: np.ndarray, outs) -> np.ndarray:
    """asymmetric nearest resizing with round (half to even) where ``L / O`` is exact:
    output index o reads round(o * L / O), clamped."""
    sizes = x.shape[2:]
    idx = [[min(int(np.round(o * sizes[a] / outs[a])), sizes[a] - 1) for o in range(outs[a])]
           for a in range(len(outs))]
    return x[(slice(None), slice(None), *np.ix_(*idx))]


def _case(out, name, params, body, runs, covers, desc, sym=()):
    out.append(Case(AREA, name, module(params, body, sym=sym), list(runs), "ok", None, desc,
                    ["relax.image." + body.split("R.image.")[1].split("(")[0]] + list(covers)))


def _invalid(out, name, params, body, rule, desc):
    out.append(Case(AREA, name, module(params, body), [], "invalid", rule, desc,
                    ["relax.image.resize2d", rule]))


def cases() -> list[Case]:
    out: list[Case] = []
    # TVM's own LegalizeOps case: NCHW16c, nearest asymmetric, symbolic everything
    x = fdata((1, 1, 2, 3, 16), 3601)
    _case(out, "resize2d_split_nchw16c_nearest",
          [("dumb_param", ann(("oh", "ow"))), ("x", ann(("n", "c", "h", "w", 16)))],
          'y = R.image.resize2d(x, R.shape([oh, ow]), layout="NCHW16c", '
          'method="nearest_neighbor", coordinate_transformation_mode="asymmetric")',
          [ok([T_(np.zeros((4, 6), F32)), T_(x)],
              [T_(_split_c(_nearest_round_ref(_unsplit_c(x), (4, 6)), 16))])],
          ["SI-image-resize-2", "SI-image-resize-3", "EXEC-image-resize-1"],
          "nearest asymmetric resize of NCHW16c data (TVM's LegalizeOps test), every "
          "dimension symbolic: channel c0 * 16 + ci, output split back",
          sym=("n", "c", "h", "w", "oh", "ow"))
    x = fdata((1, 2, 3, 4, 4), 3602)
    _case(out, "resize2d_split_nchw4c_linear", [("x", ann((1, 2, 3, 4, 4)))],
          'y = R.image.resize2d(x, R.shape([5, 7]), layout="NCHW4c")',
          [ok([T_(x)], [T_(_split_c(_resize_linear_ref(_unsplit_c(x), (5, 7)).astype(F32), 4))],
              rtol=1e-5, atol=1e-5)],
          ["SI-image-resize-3", "EXEC-image-resize-1"],
          "bilinear half-pixel resize 3x4 -> 5x7 of NCHW4c data")
    # NCHW2n4c: N split too (topi's packed layout); the batch is n0 * 2 + ni
    x = fdata((1, 2, 2, 3, 2, 4), 3603)
    canon = np.moveaxis(x, (4, 5), (1, 3)).reshape(2, 8, 2, 3)
    y = _nearest_floor_ref(canon, (4, 6)).reshape(1, 2, 2, 4, 4, 6)
    _case(out, "resize2d_split_nchw2n4c_nearest", [("x", ann((1, 2, 2, 3, 2, 4)))],
          'y = R.image.resize2d(x, R.shape([4, 6]), layout="NCHW2n4c", '
          'method="nearest_neighbor", coordinate_transformation_mode="asymmetric", '
          'rounding_method="floor")',
          [ok([T_(x)], [T_(np.ascontiguousarray(np.moveaxis(y, (1, 3), (4, 5))))])],
          ["SI-image-resize-3", "EXEC-image-resize-1"],
          "nearest upsampling by 2 of NCHW2n4c data (N and C split)")
    # a split spatial axis: TVM deduces it, its kernel (topi) does not take it
    x = fdata((1, 1, 2, 3, 2), 3604)
    _case(out, "resize2d_split_nchw2h_linear", [("x", ann(("n", 1, 2, 3, 2)))],
          'y = R.image.resize2d(x, R.shape([6, 5]), layout="NCHW2h")',
          [ok([T_(x)], [T_(_split_h(_resize_linear_ref(_unsplit_h(x), (6, 5)).astype(F32), 2))],
              rtol=1e-5, atol=1e-5)],
          ["SI-image-resize-3", "EXEC-image-resize-1"],
          "bilinear resize of NCHW2h data (H split: row h0 * 2 + hi) 4x3 -> 6x5",
          sym=("n",))
    x = fdata((1, 1, 2, 3, 2, 4), 3605)
    y = _resize_linear_ref(np.moveaxis(x, -1, 2).reshape(1, 4, 2, 3, 2), (3, 4, 3))
    _case(out, "resize3d_split_ncdhw4c_linear", [("x", ann((1, 1, 2, 3, 2, 4)))],
          'y = R.image.resize3d(x, R.shape([3, 4, 3]), layout="NCDHW4c")',
          [ok([T_(x)], [T_(_split_c(y.astype(F32), 4))], rtol=1e-5, atol=1e-5)],
          ["SI-image-resize-3", "EXEC-image-resize-1"],
          "trilinear resize 2x3x2 -> 3x4x3 of NCDHW4c data")
    # NCDHW2d: TVM's kernel reads any other 3-d layout as NCDHW<x>c, a split depth too
    x = fdata((1, 1, 2, 2, 2, 2), 3606)
    canon = np.moveaxis(x, -1, 3).reshape(1, 1, 4, 2, 2)
    y = _nearest_floor_ref(canon, (8, 4, 2)).reshape(1, 1, 4, 2, 4, 2)
    _case(out, "resize3d_split_ncdhw2d_nearest", [("x", ann((1, 1, 2, 2, 2, 2)))],
          'y = R.image.resize3d(x, R.shape([8, 4, 2]), layout="NCDHW2d", '
          'method="nearest_neighbor", coordinate_transformation_mode="asymmetric")',
          [ok([T_(x)], [T_(np.ascontiguousarray(np.moveaxis(y, 3, -1)))])],
          ["SI-image-resize-3", "EXEC-image-resize-1"],
          "nearest upsampling of NCDHW2d data (depth split: d0 * 2 + di) 4x2x2 -> 8x4x2")
    # run-time checks of a split layout
    _case(out, "resize2d_split_inner_extent_trap", [("x", ann((1, 1, 2, 2, "k")))],
          'y = R.image.resize2d(x, R.shape([3, 3]), layout="NCHW4c")',
          [trap([T_(np.zeros((1, 1, 2, 2, 2), F32))], "shape_mismatch")],
          ["SI-nn-layout-2", "EXEC-image-resize-1"],
          "NCHW4c data whose inner channel axis is 2 at run time", sym=("k",))
    _case(out, "resize2d_split_size_indivisible_trap",
          [("x", ann((1, 1, 2, 2, 2))), ("s", "R.Shape([a, b])")],
          'y = R.image.resize2d(x, R.shape([a, b]), layout="NCHW2h")',
          [trap([T_(np.zeros((1, 1, 2, 2, 2), F32)), shape((3, 2))], "shape_mismatch")],
          ["SI-nn-layout-2", "EXEC-image-resize-1"],
          "NCHW2h resize to a symbolic height that is odd (3) at run time: the output "
          "rows do not split by 2", sym=("a", "b"))
    _invalid(out, "resize2d_split_size_indivisible", [("x", ann((1, 1, 2, 2, 2)))],
             'y = R.image.resize2d(x, R.shape([3, 2]), layout="NCHW2h")', "SI-nn-layout-2",
             "NCHW2h resize to height 3, which does not split by 2")
    _invalid(out, "resize2d_split_inner_extent", [("x", ann((1, 1, 2, 2, 8)))],
             'y = R.image.resize2d(x, R.shape([3, 2]), layout="NCHW16c")', "SI-nn-layout-2",
             "NCHW16c data whose inner channel axis is 8")
    _grid_sample_cases(out)
    return out


def _grid_sample_cases(out) -> None:
    rng = np.random.default_rng(3607)
    x = fdata((1, 8, 3, 4), 3608)
    g = np.round(rng.uniform(-1.1, 1.1, (1, 2, 2, 3)) * 64).astype(F32) / F32(64)
    ref = _bilinear_sample_ref(x, g, True).astype(F32)
    _case(out, "grid_sample_layout_nhwc_bilinear",
          [("x", ann((1, 3, 4, 8))), ("g", ann((1, 2, 2, 3)))],
          'y = R.image.grid_sample(x, g, layout="NHWC", align_corners=True)',
          [ok([T_(np.ascontiguousarray(x.transpose(0, 2, 3, 1))), T_(g)],
              [T_(np.ascontiguousarray(ref.transpose(0, 2, 3, 1)))], rtol=1e-5, atol=1e-5)],
          ["SI-image-grid_sample-1", "SI-image-grid_sample-3", "EXEC-image-grid_sample-1"],
          "bilinear grid_sample (aligned corners, zero padding) of NHWC data: the result "
          "is NHWC too, the grid stays (N, 2, Ho, Wo)")
    _case(out, "grid_sample_split_nchw4c_bilinear",
          [("x", ann(("n", 2, 3, 4, 4))), ("g", ann(("n", 2, 2, 3)))],
          'y = R.image.grid_sample(x, g, layout="NCHW4c", align_corners=True)',
          [ok([T_(_split_c(x, 4)), T_(g)], [T_(_split_c(ref, 4))], rtol=1e-5, atol=1e-5)],
          ["SI-image-grid_sample-1", "SI-image-grid_sample-3", "EXEC-image-grid_sample-1"],
          "bilinear grid_sample of NCHW4c data with a symbolic batch: channel c0 * 4 + ci",
          sym=("n",))
