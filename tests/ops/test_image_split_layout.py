"""resize2d / resize3d in split layouts (spec/ops/image.md SI-image-resize-2, -3,
EXEC-image-resize-1, TE-leg-image-1): ``NCHW16c`` as TVM 0.27 legalizes it, a split of
N, and a split spatial axis (``NCHW4h``). Deduction, the NumPy semantics against the
unsplit resize and a reshape written here, TVM's compiled kernels bit for bit, and the
lowering at several symbolic values."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref

from .helpers import compute, deduce, dims, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module
from .test_image import resize_deduce
from .tvm_bridge import TvmBridge

N, C, H = sym("n"), sym("c"), sym("h")
RNG = np.random.default_rng(5)


def _nchw4c(x: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N, C/4, H, W, 4): channel c at [c // 4, ..., c % 4]."""
    n, c, h, w = x.shape
    return x.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2)


def _nchw4h(x: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N, C, H/4, W, 4): row y at [y // 4, ..., y % 4]."""
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 4, 4, w).transpose(0, 1, 2, 4, 3)


def test_deduction_keeps_the_split():
    assert dims(resize_deduce("image.resize2d", tensor((1, 2, 5, 6, 16)), (7, 8),
                              layout="NCHW16c")) == (1, 2, 7, 8, 16)
    assert dims(resize_deduce("image.resize2d", tensor((N, C, H, 3, 16)), (7, 8),
                              layout="NCHW16c")) == (N, C, 7, 8, 16)
    assert dims(resize_deduce("image.resize2d", tensor((2, 3, 4, 5, 4)), (8, 6),
                              layout="NCHW4h")) == (2, 3, 2, 6, 4)
    assert dims(resize_deduce("image.resize3d", tensor((1, 2, 3, 4, 5, 4)), (2, 3, 4),
                              layout="NCDHW4c")) == (1, 2, 2, 3, 4, 4)
    assert resize_deduce("image.resize2d", tensor(None), (2, 2), layout="NHWC8c").ndim == 5
    # an inner axis of another extent, a size that does not split by its factor
    fails("SI-nn-layout-2", "image.resize2d", [tensor((1, 2, 5, 6, 8)), tensor(None)],
          args=[None, _shape((7, 8))], layout="NCHW16c")
    fails("SI-nn-layout-2", "image.resize2d", [tensor((1, 2, 1, 6, 4)), tensor(None)],
          args=[None, _shape((7, 8))], layout="NCHW4h")
    fails("SI-nn-layout-2", "image.resize2d", [tensor((1, 2, 5, 6)), tensor(None)],
          args=[None, _shape((7, 8))], layout="NCHW16c")


def test_split_deduction_agrees_with_tvm():
    # TVM writes a split length as (L + f - 1) // f; it must divide at run time anyway
    from relax_ref.ir import struct_info as si
    b = TvmBridge()
    for layout, data, size in (("NCHW2w", (1, 3, "h", 3, 2), (8, "a")),
                               ("NCHW16c", ("n", "c", "h", "w", 16), ("a", 4)),
                               ("NCHW2n2h", ("n", 3, 2, 5, 2, 2), (8, "a"))):
        x = b.tensor(data)
        ours_size, their_size = b.shape(size)
        ours = deduce("image.resize2d", [x[0], si.ShapeStructInfo(ours_size.values)],
                      args=[None, ours_size], layout=layout)
        b.assert_same(ours, b.deduce(lambda d, s=their_size, lay=layout:
                                     b.relax.op.image.resize2d(d, s, layout=lay), x[0]))


def _shape(values):
    from relax_ref.ir import relax as rx
    from relax_ref.ir.prim_expr import IntImm
    return rx.ShapeExpr(tuple(IntImm(v) for v in values))


@pytest.mark.parametrize("attrs", [
    dict(method="linear"), dict(method="cubic", cubic_exclude=1),
    dict(method="nearest_neighbor", coordinate_transformation_mode="asymmetric"),
    dict(coordinate_transformation_mode="tf_crop_and_resize", roi=(0.1, 0.2, 1.3, 0.8),
         extrapolation_value=-2.0)])
def test_split_layouts_are_the_unsplit_resize_reshaped(attrs):
    x = RNG.standard_normal((2, 8, 4, 8)).astype("float32")
    plain = compute("image.resize2d", x, (8, 5), **attrs)
    np.testing.assert_array_equal(
        compute("image.resize2d", _nchw4c(x), (8, 5), layout="NCHW4c", **attrs), _nchw4c(plain))
    np.testing.assert_array_equal(
        compute("image.resize2d", _nchw4h(x), (8, 5), layout="NCHW4h", **attrs), _nchw4h(plain))


def test_split_layout_run_time_checks():
    with traps("shape_mismatch", "EXEC-image-resize-1"):
        compute("image.resize2d", np.zeros((1, 1, 2, 2, 8), "float32"), (2, 2),
                layout="NCHW4c")
    with traps("shape_mismatch", "EXEC-image-resize-1"):
        compute("image.resize2d", np.zeros((1, 1, 1, 2, 4), "float32"), (6, 2),
                layout="NCHW4h")


def test_split_layouts_agree_with_tvm_bit_for_bit():
    # TVM's kernels take NCHWxc and NCHW<i>n<x>c (topi's layouts), NCDHWxc for 3-d
    b = TvmBridge()
    img = b.relax.op.image
    x4c = RNG.standard_normal((1, 2, 5, 7, 4)).astype("float32")
    x2n = RNG.standard_normal((1, 2, 5, 7, 2, 4)).astype("float32")
    x3 = RNG.standard_normal((1, 1, 3, 4, 5, 8)).astype("float32")
    cases = [("image.resize2d", x4c, (9, 4), "NCHW4c", dict(method="cubic")),
             ("image.resize2d", x4c, (3, 10), "NCHW4c",
              dict(method="nearest_neighbor", rounding_method="round_prefer_ceil")),
             ("image.resize2d", x2n, (6, 3), "NCHW2n4c", dict(method="linear")),
             ("image.resize3d", x3, (2, 5, 3), "NCDHW8c", dict(method="linear"))]
    builds = [(lambda d, op=op, s=s, lay=lay, kw=kw:
               getattr(img, op.split(".")[1])(d, s, layout=lay, **kw), [x])
              for op, x, s, lay, kw in cases]
    theirs = b.run_legalized_many(builds)
    for (op, x, s, lay, kw), got in zip(cases, theirs):
        np.testing.assert_array_equal(compute(op, x, s, layout=lay, **kw), got, err_msg=lay)


def test_tvm_legalize_ops_case_lowers():
    # TVM's own LegalizeOps test: NCHW16c, nearest asymmetric, every dimension symbolic
    out = check_lowered(module(
        'dumb_param: R.Tensor(("oh", "ow")), x: R.Tensor(("n", "c", "h", "w", 16), "float32")',
        'oh = T.int64()\now = T.int64()\n'
        'y = R.image.resize2d(x, R.shape([oh, ow]), layout="NCHW16c", '
        'method="nearest_neighbor", coordinate_transformation_mode="asymmetric")'),
        "relax.image.resize2d")
    TvmBridge().tvm.script.from_source(out.script())


@pytest.mark.parametrize("params,call", [
    ('x: R.Tensor(("n", 2, "h", 3, 4), "float32")',
     'R.image.resize2d(x, R.shape([4, 5]), layout="NCHW4c", method="cubic")'),
    ('x: R.Tensor((1, 3, 2, 2, "k"), "float32")',
     'R.image.resize2d(x, R.shape([3, 2]), layout="NHWC2c")'),
    ('x: R.Tensor((1, 1, "h", 3, 2), "float32")',
     'R.image.resize2d(x, R.shape([4, 5]), layout="NCHW2h", method="cubic", cubic_exclude=1)'),
    ('x: R.Tensor(("n", 1, 2, 3, 2), "float32")',
     'R.image.resize2d(x, R.shape([4, 3]), layout="NCHW2h", '
     'coordinate_transformation_mode="tf_crop_and_resize", roi=[0.1, 0.2, 1.3, 0.8])'),
    ('x: R.Tensor((1, 1, 2, 3, 2, 2), "float32")',
     'R.image.resize3d(x, R.shape([2, 4, 3]), layout="NCDHW2d", method="nearest_neighbor")'),
])
def test_split_layouts_lower(params, call):
    op = "relax.image.resize3d" if "resize3d" in call else "relax.image.resize2d"
    out = check_lowered(module(params, f"y = {call}"), op)
    TvmBridge().tvm.script.from_source(out.script())


def test_split_spatial_size_guard():
    # a symbolic size under NCHW2h must be even: the PrimFunc asserts it
    out = check_lowered(module('x: R.Tensor((1, 1, 2, 3, 2), "float32"), '
                               's: R.Shape(["a", "b"])',
                               'a = T.int64()\nb = T.int64()\n'
                               'y = R.image.resize2d(x, R.shape([a, b]), layout="NCHW2h")'),
                        "relax.image.resize2d")
    assert '"shape_mismatch: ' in out.script(), out.script()
    assert "a % T.int64(2) == T.int64(0)" in out.script(), out.script()


# -- grid_sample: TVM's deduction takes any 2-d layout of NCHW's letters -----------------------

def test_grid_sample_layouts_deduce_as_tvm():
    b = TvmBridge()
    g = b.tensor((1, 2, 7, "h"))
    for layout, data in (("NHWC", (1, 5, 6, 3)), ("NCHW4c", ("n", 2, 5, 6, 4)),
                         ("NCHW2w", (1, 3, 5, 3, 2)), ("HWNC", (5, 6, 1, 3))):
        x = b.tensor(data)
        b.assert_same(deduce_sampling([x[0], g[0]], layout),
                      b.deduce(lambda d, e, lay=layout: b.relax.op.image.grid_sample(
                          d, e, layout=lay), x[0], g[0]))
    fails("SI-nn-layout-2", "image.grid_sample", [tensor((1, 2, 5, 6, 8)),
                                                  tensor((1, 2, 7, 8))], layout="NCHW4c")
    fails("SI-nn-layout-2", "image.grid_sample", [tensor((1, 3, 5, 3, 2)),
                                                  tensor((1, 2, 7, 7))], layout="NCHW2w")
    fails("SI-image-grid_sample-2", "image.grid_sample", [tensor((1, 2, 5, 6, 4)),
                                                          tensor((2, 2, 7, 8))], layout="NCHW2n2c")


def deduce_sampling(sinfos, layout):
    return deduce("image.grid_sample", sinfos, layout=layout)


@pytest.mark.parametrize("kw", [dict(method="bilinear"),
                                dict(method="bicubic", padding_mode="border"),
                                dict(method="nearest", padding_mode="reflection",
                                     align_corners=True)])
def test_grid_sample_layouts_are_the_nchw_sample_rearranged(kw):
    x = RNG.standard_normal((2, 8, 4, 8)).astype("float32")
    g = RNG.uniform(-1.2, 1.2, (2, 2, 4, 3)).astype("float32")
    plain = compute("image.grid_sample", x, g, **kw)
    nhwc = np.transpose(x, (0, 2, 3, 1))
    np.testing.assert_array_equal(compute("image.grid_sample", nhwc, g, layout="NHWC", **kw),
                                  np.transpose(plain, (0, 2, 3, 1)))
    np.testing.assert_array_equal(
        compute("image.grid_sample", _nchw4c(x), g, layout="NCHW4c", **kw), _nchw4c(plain))
    np.testing.assert_array_equal(
        compute("image.grid_sample", _nchw4h(x), g, layout="NCHW4h", **kw), _nchw4h(plain))
    with traps("shape_mismatch", "EXEC-image-grid_sample-1"):
        compute("image.grid_sample", _nchw4h(x), g[:, :, :3], layout="NCHW4h", **kw)


@pytest.mark.parametrize("params,layout", [
    ('x: R.Tensor(("n", 2, 3, 4, 4), "float32"), g: R.Tensor(("n", 2, "h", 3), "float32")',
     "NCHW4c"),
    ('x: R.Tensor((1, 3, "w", 2), "float32"), g: R.Tensor((1, 2, 2, 3), "float32")', "NHWC"),
    ('x: R.Tensor((1, 2, 3, "w", 2), "float32"), g: R.Tensor((1, 2, 3, "v"), "float32")',
     "NCHW2w"),
])
def test_grid_sample_layouts_lower(params, layout):
    out = check_lowered(module(params, f'y = R.image.grid_sample(x, g, layout="{layout}", '
                                       'padding_mode="border")'), "relax.image.grid_sample")
    TvmBridge().tvm.script.from_source(out.script())
