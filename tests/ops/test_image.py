"""Image ops (spec/ops/image.md): resize2d and resize3d deduction (static, symbolic,
unknown, errors), NumPy semantics (hand-computed values and TVM 0.27's compiled kernels,
bit for bit), lowering at several symbolic values, and TVM reading our printed calls."""
from __future__ import annotations


import numpy as np
import pytest

import relax_ref

from .helpers import compute, deduce, dims, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module
from .tvm_bridge import TvmBridge

N, H = sym("n"), sym("h")
RNG = np.random.default_rng(3)


def _shape_arg(values):
    from relax_ref.ir import relax as rx
    from relax_ref.ir.prim_expr import IntImm
    return rx.ShapeExpr(tuple(IntImm(v) if isinstance(v, int) else v for v in values))


def resize_deduce(op, x, size, **attrs):
    from relax_ref.ir import struct_info as si
    shape = _shape_arg(size)
    return deduce(op, [x, si.ShapeStructInfo(shape.values)], args=[None, shape], **attrs)


def test_resize_deduction():
    out = resize_deduce("image.resize2d", tensor((N, 3, H, 8)), (5, H))
    assert dims(out) == (N, 3, 5, H)
    assert dims(resize_deduce("image.resize2d", tensor((1, 4, 4, 3)), (2, 6), layout="NHWC",
                              out_dtype="float16")) == (1, 2, 6, 3)
    assert str(resize_deduce("image.resize2d", tensor((1, 4, 4, 3), "uint8"), (2, 6)).dtype) \
        == "uint8"
    assert dims(resize_deduce("image.resize3d", tensor((1, 2, 3, 4, 5)), (6, 7, 8))) \
        == (1, 2, 6, 7, 8)
    assert resize_deduce("image.resize2d", tensor(None), (2, 2)).ndim == 4
    fails("SI-image-resize-1", "image.resize2d", [tensor((1, 1, 2, 2)), tensor(None)],
          args=[None, _shape_arg((2, 2, 2))])
    fails("SI-image-resize-1", "image.resize2d", [tensor((1, 1, 2, 2)), tensor(None)],
          args=[None, _shape_arg((2, -1))])
    fails("SI-nn-layout-1", "image.resize2d", [tensor((1, 1, 2, 2)), tensor(None)],
          args=[None, _shape_arg((2, 2))], layout="NCHW4c4c")
    fails("SI-nn-layout-2", "image.resize3d", [tensor((1, 1, 2, 2)), tensor(None)],
          args=[None, _shape_arg((2, 2, 2))])
    fails("SI-call-1", "image.resize2d", [tensor((1, 1, 2, 2)), tensor(None)],
          args=[None, _shape_arg((2, 2))], method="bilinear")


def test_resize_by_hand():
    x = np.array([[[[0.0, 10.0], [20.0, 30.0]]]], "float32")
    # half_pixel linear 2x2 -> 4x4: source coordinates -0.25, 0.25, 0.75, 1.25 (clamped)
    got = compute("image.resize2d", x, (4, 4))
    np.testing.assert_allclose(got[0, 0, 0], [0.0, 2.5, 7.5, 10.0])
    np.testing.assert_allclose(got[0, 0, :, 0], [0.0, 5.0, 15.0, 20.0])
    near = compute("image.resize2d", x, (3, 3), method="nearest_neighbor",
                   coordinate_transformation_mode="asymmetric", rounding_method="floor")
    np.testing.assert_array_equal(near[0, 0], [[0, 0, 10], [0, 0, 10], [20, 20, 30]])
    ints = compute("image.resize2d", x.astype("int32"), (2, 3),
                   coordinate_transformation_mode="align_corners")
    np.testing.assert_array_equal(ints[0, 0], [[0, 5, 10], [20, 25, 30]])
    # align_corners onto one row divides 0 by 0: the coordinate and the result are NaN
    assert np.isnan(compute("image.resize2d", x, (1, 3),
                            coordinate_transformation_mode="align_corners")).all()
    crop = compute("image.resize2d", x, (2, 2), coordinate_transformation_mode="tf_crop_and_resize",
                   roi=(0.0, 0.0, 2.0, 1.0), extrapolation_value=-1.0)
    np.testing.assert_array_equal(crop[0, 0], [[0.0, 10.0], [-1.0, -1.0]])
    assert compute("image.resize2d", x, (0, 3)).shape == (1, 1, 0, 3)
    with traps("index_out_of_bounds", "EXEC-image-resize-2"):
        compute("image.resize2d", np.zeros((1, 1, 0, 2), "float32"), (2, 2))


CASES2 = [dict(method=m, coordinate_transformation_mode=c, rounding_method=r, cubic_exclude=e)
          for m, c, r, e in [
              ("linear", "half_pixel", "round", 0), ("linear", "align_corners", "", 0),
              ("linear", "pytorch_half_pixel", "", 0), ("nearest_neighbor", "asymmetric", "", 0),
              ("nearest_neighbor", "half_pixel", "round_prefer_ceil", 0),
              ("nearest_neighbor", "tf_half_pixel_for_nn", "ceil", 0),
              ("cubic", "half_pixel", "", 0), ("cubic", "asymmetric", "", 1)]]


def test_resize_agrees_with_tvm_bit_for_bit():
    b = TvmBridge()
    img = b.relax.op.image
    x2, x3 = RNG.standard_normal((1, 2, 5, 7)).astype("float32"), \
        RNG.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    cases = [(lambda d, kw=kw, s=s: img.resize2d(d, s, **kw), [x2], ("image.resize2d", s, kw))
             for kw in CASES2 for s in ((9, 4), (10, 21))]
    cases += [(lambda d, m=m, s=s: img.resize3d(d, s, method=m), [x3],
               ("image.resize3d", s, {"method": m}))
              for m in ("nearest_neighbor", "linear", "cubic") for s in ((4, 2, 7),)]
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _ in cases])
    for (_, arrays, (op, size, kw)), got in zip(cases, theirs):
        np.testing.assert_array_equal(compute(op, *arrays, size, **kw), got, err_msg=str(kw))


@pytest.mark.parametrize("dtype,attrs", [
    ("float32", 'method="cubic", cubic_exclude=1'),
    ("float16", 'coordinate_transformation_mode="align_corners"'),
    ("uint8", 'method="nearest_neighbor", coordinate_transformation_mode="asymmetric", '
              'rounding_method="floor"'),
    ("float32", 'coordinate_transformation_mode="tf_crop_and_resize", roi=[0.1, 0.2, 1.2, 0.9], '
                "extrapolation_value=2.0"),
])
def test_resize2d_lowers(dtype, attrs):
    check_lowered(module(f'x: R.Tensor(("n", 2, 3, 4), "{dtype}")',
                         f'y = R.image.resize2d(x, R.shape([4, 5]), {attrs})'),
                  "relax.image.resize2d")


def test_resize_symbolic_output_and_3d_lower():
    check_lowered(module('x: R.Tensor((1, 3, 4, 2), "float32"), s: R.Shape(["a", "b"])',
                         'a = T.int64()\nb = T.int64()\n'
                         'y = R.image.resize2d(x, R.shape([a, b]), layout="NHWC")'),
                  "relax.image.resize2d")
    check_lowered(module('x: R.Tensor(("n", 1, 2, 2, 3), "float32")',
                         'y = R.image.resize3d(x, R.shape([2, 3, 2]), method="cubic")'),
                  "relax.image.resize3d")


def test_resize_of_a_possibly_empty_image_guards_it():
    # h = 0 with a 2x2 output is EXEC-image-resize-2's index_out_of_bounds: the PrimFunc
    # asserts h > 0 unless the output may be empty too (n = 0 reads nothing)
    out = check_lowered(module('x: R.Tensor((1, 1, "h", 2), "float32")',
                               "y = R.image.resize2d(x, R.shape([2, 2]))"),
                        "relax.image.resize2d")
    assert "assert h > T.int64(0)," in out.script(), out.script()
    out = check_lowered(module('x: R.Tensor(("n", 1, "h", 2), "float32")',
                               'y = R.image.resize2d(x, R.shape([2, 3]), method="cubic")'),
                        "relax.image.resize2d")
    assert "assert h > T.int64(0) or n == T.int64(0)," in out.script(), out.script()


def test_tvm_reads_our_resize_calls():
    b = TvmBridge()
    text = relax_ref.check(relax_ref.from_source(module(
        'x: R.Tensor((1, 2, "h", 4), "float32")',
        'y = R.image.resize2d(x, 7, roi=0.5, layout="NHWC", method="cubic")'))).script()
    assert "roi=[T.float32(0.5), T.float32(0.5), T.float32(0.5), T.float32(0.5)]" in text
    theirs = b.tvm.script.from_source(text)
    assert "R.image.resize2d(x, R.shape([7, 7])" in theirs.script()
