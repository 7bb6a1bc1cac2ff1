"""Vision ops (spec/ops/vision.md): roi_pool and roi_align deduction and semantics
(equal to TVM 0.27's kernels bit for bit on the checked inputs), roi_pool's lowering
checked by check_pass at several numbers of rois."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import struct_info as si

from .helpers import assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module

R_ = sym("r")
X = np.arange(2 * 2 * 4 * 5, dtype="float32").reshape(2, 2, 4, 5) % 7 - 3


def test_roi_deduction():
    assert_tensor(deduce("vision.roi_pool", [tensor((2, 3, 8, 8)), tensor((R_, 5))],
                         pooled_size=(2, 3), spatial_scale=1.0), (R_, 3, 2, 3))
    assert_tensor(deduce("vision.roi_align", [tensor((2, 8, 8, 3)), tensor((R_, 5))],
                         pooled_size=2, spatial_scale=1.0, layout="NHWC"), (R_, 2, 2, 3))
    assert_ndim(deduce("vision.roi_pool", [tensor(4), tensor((R_, 5))], pooled_size=2,
                       spatial_scale=1.0), 4)
    fails("SI-vision-roi-1", "vision.roi_pool", [tensor((2, 3, 8)), tensor((R_, 5))],
          pooled_size=2, spatial_scale=1.0)
    fails("SI-vision-roi-1", "vision.roi_pool", [tensor((2, 3, 8, 8)), tensor((R_, 4))],
          pooled_size=2, spatial_scale=1.0)
    fails("SI-vision-roi-1", "vision.roi_pool", [tensor((2, 3, 8, 8)), tensor((R_, 5))],
          pooled_size=2, spatial_scale=1.0, layout="NHWC")
    fails("SI-vision-roi-2", "vision.roi_align",
          [tensor((2, 3, 8, 8), "float16"), tensor((R_, 5))], pooled_size=2,
          spatial_scale=1.0)


def test_roi_pool_takes_the_maximum_of_each_bin():
    rois = np.array([[1, 0, 0, 3, 1], [0, 2, 1, 2, 1]], "float32")
    out = compute("vision.roi_pool", X, rois, pooled_size=(1, 2), spatial_scale=1.0)
    np.testing.assert_array_equal(out[0, :, 0, 0], X[1, :, 0:2, 0:2].max(axis=(1, 2)))
    np.testing.assert_array_equal(out[0, :, 0, 1], X[1, :, 0:2, 2:4].max(axis=(1, 2)))
    # a 1x1 roi: both bins of width 1/2 cover the same pixel
    np.testing.assert_array_equal(out[1, :, 0, 0], X[0, :, 1, 2])
    with traps("index_out_of_bounds", "EXEC-vision-roi-1"):
        compute("vision.roi_pool", X, np.array([[2, 0, 0, 1, 1]], "float32"),
                pooled_size=1, spatial_scale=1.0)


def test_roi_align_samples_bilinearly():
    rois = np.array([[0, 1, 1, 3, 3]], "float32")
    out = compute("vision.roi_align", X, rois, pooled_size=1, spatial_scale=1.0,
                  sample_ratio=1)
    # one sample at the roi's centre (2, 2): a pixel centre, so the pixel itself
    np.testing.assert_array_equal(out[0, :, 0, 0], X[0, :, 2, 2])
    nhwc = compute("vision.roi_align", np.transpose(X, (0, 2, 3, 1)).copy(), rois,
                   pooled_size=1, spatial_scale=1.0, sample_ratio=1, layout="NHWC")
    np.testing.assert_array_equal(nhwc[0, 0, 0], X[0, :, 2, 2])
    empty = compute("vision.roi_align", X, np.array([[0, 3, 3, 1, 1]], "float32"),
                    pooled_size=2, spatial_scale=1.0, aligned=True)
    assert not empty.any()  # an inverted aligned roi has no samples: 0


def test_roi_pool_lowering():
    """check_pass draws several numbers of rois (0 and 1 among them) and random rois."""
    text = module('x: R.Tensor((2, 2, 4, 5), dtype="float32"), '
                  'r: R.Tensor(("r", 5), dtype="float32")',
                  "y = R.vision.roi_pool(x, r, pooled_size=(2, 2), spatial_scale=0.5)")
    check_lowered(text, "relax.vision.roi_pool")


@pytest.mark.parametrize("layout,extra", [("NCHW", ", sample_ratio=2"),
                                          ("NHWC", ', sample_ratio=1, aligned=True, mode="max"'),
                                          ("NCHW", ", aligned=True"), ("NHWC", ', mode="max"')])
def test_roi_align_lowering(layout, extra):
    """A fixed grid (te, TE-leg-vision-3) and an adaptive one (TIR, TE-leg-vision-7)."""
    shape = "(2, 2, 4, 5)" if layout == "NCHW" else "(2, 4, 5, 2)"
    check_lowered(module(f'x: R.Tensor({shape}, dtype="float32"), '
                         'r: R.Tensor(("r", 5), dtype="float32")',
                         f"y = R.vision.roi_align(x, r, pooled_size=(2, 1), spatial_scale=0.5, "
                         f'layout="{layout}"{extra})'), "relax.vision.roi_align")


def test_roi_result_is_4d_when_shapes_are_unknown():
    s = deduce("vision.roi_align", [tensor(None), tensor(None)], pooled_size=2,
               spatial_scale=1.0)
    assert isinstance(s, si.TensorStructInfo) and s.ndim == 4


BOXES = np.array([[[0, 0.6, 5, 5, 6, 6], [0, 0.8, 0, 0, 2, 1.9],
                   [0, 0.9, 0, 0, 2, 2], [1, 0.7, 0, 0, 2, 2]]], "float32")


def test_box_deduction():
    d = tensor((2, R_, 6))
    s = deduce("vision.get_valid_counts", [d])
    assert [f.ndim for f in s.fields] == [1, 3, 2]
    s = deduce("vision.non_max_suppression", [d, tensor((2,), "int32"),
                                              tensor((2, R_), "int32")])
    assert_tensor(s.fields[0], (2, R_), "int32")
    assert_tensor(s.fields[1], (2, 1), "int32")
    s = deduce("vision.non_max_suppression", [d, tensor((2,), "int32"),
                                              tensor((2, R_), "int32")], soft_nms_sigma=0.5)
    assert len(s.fields) == 3
    assert_tensor(deduce("vision.non_max_suppression", [d, tensor((2,), "int32"),
                                                        tensor((2, R_), "int32")],
                         return_indices=False), (2, R_, 6))
    fails("SI-vision-box-2", "vision.non_max_suppression",
          [d, tensor((3,), "int32"), tensor((2, R_), "int32")])
    fails("SI-vision-box-2", "vision.non_max_suppression",
          [d, tensor((2,), "int32"), tensor((2, R_), "int32")], coord_start=3)
    fails("SI-vision-box-1", "vision.get_valid_counts", [d], id_index=-2)


def test_get_valid_counts_moves_valid_rows_up():
    rows = BOXES.copy()
    rows[0, 1, 0] = -1  # no class: invalid unless id_index = -1
    count, out, idx = compute("vision.get_valid_counts", rows, score_threshold=0.65)
    assert count.tolist() == [2] and idx.tolist() == [[2, 3, -1, -1]]
    np.testing.assert_array_equal(out[0, :2], rows[0, [2, 3]])
    assert (out[0, 2:] == -1).all()
    count, _, idx = compute("vision.get_valid_counts", rows, score_threshold=0.65, id_index=-1)
    assert idx.tolist() == [[1, 2, 3, -1]]


@pytest.mark.parametrize("id_index", [0, -1])
def test_get_valid_counts_lowering(id_index):
    check_lowered(module('d: R.Tensor((2, "n", 6), dtype="float32")',
                         f"y = R.vision.get_valid_counts(d, score_threshold=0.1, "
                         f"id_index={id_index})"), "relax.vision.get_valid_counts")


def test_hard_nms_suppresses_overlaps_of_one_class():
    ids = np.array([[13, 11, 10, 12]], "int32")
    box, count = compute("vision.non_max_suppression", BOXES, np.array([4], "int32"), ids)
    assert box.tolist() == [[10, 12, 13, -1]] and count.tolist() == [[3]]
    box, count = compute("vision.non_max_suppression", BOXES, np.array([4], "int32"), ids,
                         max_output_size=1)
    assert box.tolist() == [[10, -1, -1, -1]]
    out = compute("vision.non_max_suppression", BOXES, np.array([4], "int32"), ids,
                  return_indices=False, invalid_to_bottom=True)
    np.testing.assert_array_equal(out[0, :3, 1], np.float32([0.9, 0.7, 0.6]))
    with traps("index_out_of_bounds", "EXEC-vision-box-2"):
        compute("vision.non_max_suppression", BOXES, np.array([5], "int32"), ids)


@pytest.mark.parametrize("extra", ["", ", top_k=2, force_suppress=True",
                                   ", max_output_size=1, id_index=-1",
                                   ", return_indices=False, invalid_to_bottom=True",
                                   ", soft_nms_sigma=0.5, score_threshold=0.1",
                                   ", soft_nms_sigma=0.5, return_indices=False"])
def test_nms_lowering(extra):
    check_lowered(module('d: R.Tensor((2, "n", 6), dtype="float32"), '
                         'v: R.Tensor((2,), dtype="int32"), i: R.Tensor((2, "n"), dtype="int32")',
                         f"y = R.vision.non_max_suppression(d, v, i, iou_threshold=0.3{extra})"),
                  "relax.vision.non_max_suppression")


def test_soft_nms_decays_overlapping_scores():
    ids = np.arange(4, dtype="int32")[None]
    out, box, count = compute("vision.non_max_suppression", BOXES, np.array([4], "int32"),
                              ids, soft_nms_sigma=0.5, iou_threshold=0.99,
                              score_threshold=0.1)
    # A first; B (IoU 0.95 with A, under the threshold) decays below C and D
    assert count.tolist() == [[4]] and box.tolist() == [[2, 3, 0, 1]]
    iou = np.float32(3.8) / np.float32(4.0)
    assert out[0, 3, 1] == np.float32(0.8) * np.exp(np.float32(-1.0) * iou * iou)
    assert out[0, 2, 1] == np.float32(0.6)  # D does not overlap A: exp(0) = 1


def test_all_class_nms_per_class_choice():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.8], [2, 2, 3, 3]]], "float32")
    scores = np.array([[[0.9, 0.8, 0.3], [0.1, 0.6, 0.7]]], "float32")
    one = np.array(1, "int64")
    rows, count = compute("vision.all_class_non_max_suppression", boxes, scores, one,
                          np.array(0.5, "float32"), np.array(0.2, "float32"))
    # at most one box per class: the best of each
    assert count.tolist() == [2] and rows[:2].tolist() == [[0, 0, 0], [0, 1, 2]]
    assert not rows[2:].any()
    rows, count = compute("vision.all_class_non_max_suppression", boxes, scores,
                          np.array(3, "int64"), np.array(0.0, "float32"),
                          np.array(0.2, "float32"))
    assert count.tolist() == [0]  # iou_threshold <= 0 chooses nothing (TVM's kernel)
    with traps("shape_mismatch", "EXEC-vision-box-4"):
        compute("vision.all_class_non_max_suppression", boxes, scores, one,
                np.array([0.5, 0.5], "float32"), np.array(0.2, "float32"))
    s = deduce("vision.all_class_non_max_suppression",
               [tensor((2, R_, 4)), tensor((2, 3, R_)), tensor((), "int64"), tensor(()),
                tensor(())], output_format="tensorflow")
    assert [f.ndim for f in s.fields] == [3, 2, 1]


@pytest.mark.parametrize("fmt", ["onnx", "tensorflow"])
def test_all_class_nms_lowering(fmt):
    check_lowered(module('b: R.Tensor((2, "n", 4), dtype="float32"), '
                         's: R.Tensor((2, 3, "n"), dtype="float32"), '
                         'm: R.Tensor((), dtype="int64"), it: R.Tensor((), dtype="float32"), '
                         'st: R.Tensor((1,), dtype="float32")',
                         f"y = R.vision.all_class_non_max_suppression(b, s, m, it, st, "
                         f'output_format="{fmt}")'), "relax.vision.all_class_non_max_suppression")


def test_multibox_transform_loc():
    cls = np.array([[[0.0, 2.0], [1.0, 0.0]]], "float32")
    loc = np.array([[0.5, 0.0, 0.0, 0.0, 0.0, 0.0, np.log(2), 0.0]], "float32")
    anchor = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0]]], "float32")
    boxes, scores = compute("vision.multibox_transform_loc", cls, loc, anchor)
    # anchor 0 moved right by half its width; anchor 1 twice as wide
    np.testing.assert_allclose(boxes[0, 0], [0.0, 0.5, 1.0, 1.5])
    np.testing.assert_allclose(boxes[0, 1], [0.0, -1.0, 2.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, rtol=1e-6)
    fails("SI-vision-multibox-1", "vision.multibox_transform_loc",
          [tensor((1, 2, 2)), tensor((1, 6)), tensor((1, 2, 4))])
    check_lowered(module('c: R.Tensor((2, 3, "n"), dtype="float32"), '
                         'l: R.Tensor((2, "n * 4"), dtype="float32"), '
                         'a: R.Tensor((1, "n", 4), dtype="float32")',
                         "y = R.vision.multibox_transform_loc(c, l, a, clip=True, "
                         "threshold=0.2, keep_background=False)"),
                  "relax.vision.multibox_transform_loc")


def test_multibox_transform_loc_without_softmax_keeps_the_logits():
    """TVM 0.27's apply_softmax=False: the scores are cls_pred, masked by the threshold."""
    cls = np.array([[[0.25, 2.0], [1.0, 0.0]]], "float32")
    loc = np.zeros((1, 8), "float32")
    anchor = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0]]], "float32")
    _, scores = compute("vision.multibox_transform_loc", cls, loc, anchor,
                        apply_softmax=False, threshold=0.5)
    np.testing.assert_array_equal(scores, [[[0.0, 2.0], [1.0, 0.0]]])
    check_lowered(module('c: R.Tensor((1, 2, "n"), dtype="float32"), '
                         'l: R.Tensor((1, "n * 4"), dtype="float32"), '
                         'a: R.Tensor((1, "n", 4), dtype="float32")',
                         "y = R.vision.multibox_transform_loc(c, l, a, threshold=0.5, "
                         "apply_softmax=False)"),
                  "relax.vision.multibox_transform_loc")


def test_nan_follows_tirs_max():
    """A max folds as TIR's select(acc > v, acc, v): a NaN is replaced by what follows."""
    from relax_ref.ops.vision import select_max_fold

    v = np.array([[1.0, np.nan, 0.5], [1.0, 2.0, np.nan], [3.0, 1.0, 2.0]], "float32")
    np.testing.assert_array_equal(select_max_fold(v), np.float32([0.5, np.nan, 3.0]))
    x = X.copy()
    x[0, 0, 0, 0] = np.nan  # the first pixel of the bin: replaced by the next ones
    out = compute("vision.roi_pool", x, np.array([[0, 0, 0, 1, 0]], "float32"),
                  pooled_size=1, spatial_scale=1.0)
    assert out[0, 0, 0, 0] == X[0, 0, 0, 1]
