"""conv3d and the transposed convolutions (spec/ops/nn.md "conv3d", "conv1d_transpose,
conv2d_transpose, conv3d_transpose"): deduction (static, symbolic, unknown, errors),
NumPy semantics against a loop reference of the scatter definition, lowering at several
symbolic values, and TVM 0.27's deduction and compiled kernels on the same calls."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from .helpers import compute, deduce, dims, fails, sym, tensor, texts, traps
from .legalize_helpers import check_lowered, module
from .tvm_bridge import TvmBridge

N = sym("n")
RNG = np.random.default_rng(7)


def randn(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def transpose_ref(x, w, s, p, op, d, groups):
    """Every input element times every kernel tap, added at i*s + k*d - p (NCHW, IOHW)."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    ig = w.shape[0] // groups
    outs = [(x.shape[2 + a] - 1) * s[a] - p[a] - p[a + nsp] + d[a] * (w.shape[2 + a] - 1)
            + op[a] + 1 for a in range(nsp)]
    out = np.zeros((n, og * groups, *outs))
    for b, ci in itertools.product(range(n), range(c)):
        g = ci // ig
        for i in itertools.product(*(range(v) for v in x.shape[2:])):
            for k in itertools.product(*(range(v) for v in w.shape[2:])):
                y = tuple(i[a] * s[a] + k[a] * d[a] - p[a] for a in range(nsp))
                if all(0 <= y[a] < outs[a] for a in range(nsp)):
                    for o in range(og):
                        out[(b, g * og + o, *y)] += float(x[(b, ci, *i)]) * float(w[(ci, o, *k)])
    return out


# -- conv3d ----------------------------------------------------------------------------------

def test_conv3d_deduction_and_semantics():
    assert dims(deduce("nn.conv3d", [tensor((1, 2, 4, 5, 6)), tensor((3, 2, 2, 2, 3))],
                       padding=1)) == (1, 3, 5, 6, 6)
    assert texts(deduce("nn.conv3d", [tensor((1, 2, N, 5, 6)), tensor((4, 1, 2, 2, 3))],
                        groups=2, strides=2)) == ["1", "4", "n // 2", "2", "2"]
    fails("SI-nn-conv-4", "nn.conv3d", [tensor((1, 2, 4, 4, 4)), tensor((3, 3, 1, 1, 1))])
    fails("SI-nn-layout-2", "nn.conv3d", [tensor((1, 2, 4, 4)), tensor((3, 2, 1, 1, 1))])
    x, w = randn(1, 2, 3, 4, 5), randn(4, 1, 2, 2, 2)
    got = compute("nn.conv3d", x, w, groups=2, strides=[1, 2, 1], padding=[0, 1, 0])
    xp = np.pad(x, [(0, 0), (0, 0), (0, 0), (1, 1), (0, 0)])
    want = np.zeros(got.shape)
    for o, z, h, v in np.ndindex(*got.shape[1:]):
        want[0, o, z, h, v] = (xp[0, o // 2, z:z + 2, 2 * h:2 * h + 2, v:v + 2] * w[o, 0]).sum()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv3d_lowers():
    check_lowered(module('x: R.Tensor((1, "d", 3, 3, 2), "float32"), '
                         'w: R.Tensor((2, 2, 1, 2, 2), "float32")',
                         "y = R.nn.conv3d(x, w, padding=[0, 1, 0], data_layout=\"NDHWC\", "
                         "out_layout=\"NCDHW\")"), "relax.nn.conv3d")


# -- transposed convolutions --------------------------------------------------------------------

def test_conv_transpose_deduction():
    x, w = tensor((1, 4, 3, 5)), tensor((4, 3, 3, 3))
    assert dims(deduce("nn.conv2d_transpose", [x, w], strides=2, padding=1, output_padding=1,
                       groups=2)) == (1, 6, 6, 10)
    assert texts(deduce("nn.conv1d_transpose", [tensor((1, 4, N)), tensor((4, 3, 3))],
                        strides=2, padding=1)) == ["1", "3", "(n * 2) - 1"]
    assert dims(deduce("nn.conv3d_transpose", [tensor((1, 1, 2, 3, 2)), tensor((2, 1, 1, 2, 2))],
                       data_layout="NDHWC", out_layout="NCDHW")) == (1, 1, 1, 3, 4)
    assert dims(deduce("nn.conv2d_transpose", [x, w], out_dtype="float16")) == (1, 3, 5, 7)
    out = deduce("nn.conv2d_transpose", [tensor(None), w])
    assert out.shape is None and out.ndim == 4
    fails("SI-nn-conv_transpose-1", "nn.conv2d_transpose", [x, w], strides=2, output_padding=2)
    fails("SI-nn-conv_transpose-1", "nn.conv2d_transpose", [x, w], dilation=0)
    fails("SI-nn-conv_transpose-4", "nn.conv2d_transpose", [x, tensor((3, 3, 3, 3))])
    fails("SI-nn-conv_transpose-5", "nn.conv2d_transpose", [x, w], groups=3)
    fails("SI-nn-conv_transpose-6", "nn.conv1d_transpose", [tensor((1, 4, 1)), tensor((4, 1, 1))],
          padding=1)
    fails("SI-nn-layout-1", "nn.conv2d_transpose", [x, w], kernel_layout="OIHW2o")
    fails("SI-nn-layout-2", "nn.conv1d_transpose", [x, tensor((4, 3, 3))])


@pytest.mark.parametrize("shape,wshape,s,p,op,d,g", [
    ((1, 4, 3, 5), (4, 3, 3, 2), [2, 1], [1, 0, 0, 1], [1, 0], [1, 2], 2),
    ((2, 2, 4), (2, 1, 3), [3], [2, 4], [2], [1], 1),
    ((1, 2, 0), (2, 2, 3), [1], [0, 0], [0], [1], 1),
    ((1, 2, 2, 2, 2), (2, 2, 2, 1, 2), [1, 2, 1], [0] * 6, [0, 1, 0], [1, 1, 2], 1)])
def test_conv_transpose_semantics(shape, wshape, s, p, op, d, g):
    x, w = randn(*shape), randn(*wshape)
    nsp = len(shape) - 2
    got = compute(f"nn.conv{nsp}d_transpose", x, w, strides=s, padding=p, output_padding=op,
                  dilation=d, groups=g)
    np.testing.assert_allclose(got, transpose_ref(x, w, s, p, op, d, g), rtol=1e-5, atol=1e-5)


def test_conv_transpose_integers_layouts_and_traps():
    x = RNG.integers(-9, 9, (1, 3, 4)).astype("int8")
    w = RNG.integers(-9, 9, (3, 2, 2)).astype("int8")
    got = compute("nn.conv1d_transpose", x, w, strides=2, out_dtype="int32")
    np.testing.assert_array_equal(got, transpose_ref(x, w, [2], [0, 0], [0], [1], 1))
    nwc = compute("nn.conv1d_transpose", np.transpose(x, (0, 2, 1)), np.transpose(w, (2, 0, 1)),
                  strides=2, data_layout="NWC", kernel_layout="WIO", out_dtype="int32")
    np.testing.assert_array_equal(np.transpose(nwc, (0, 2, 1)), got)
    with traps("shape_mismatch", "EXEC-nn-conv_transpose-1"):
        compute("nn.conv1d_transpose", randn(1, 2, 3), randn(3, 1, 1))
    with traps("invalid_value", "EXEC-nn-conv_transpose-2"):
        compute("nn.conv1d_transpose", randn(1, 2, 1), randn(2, 1, 1), padding=1)


@pytest.mark.parametrize("nsp,text", [
    (2, 'x: R.Tensor((1, 4, "h", 3), "float32"), w: R.Tensor((4, 3, 3, 2), "float32")|'
        "strides=[2, 1], padding=[1, 0, 0, 1], output_padding=[1, 0], dilation=[1, 2], "
        "groups=2"),
    (1, 'x: R.Tensor((1, "h", 2), "float16"), w: R.Tensor((3, 2, 3), "float16")|'
        'strides=2, padding=[0, 1], data_layout="NWC", kernel_layout="WIO"'),
    (1, 'x: R.Tensor((2, 3, 2), "int32"), w: R.Tensor((3, 1, "k"), "int32")|strides=2'),
    (3, 'x: R.Tensor((1, 2, "d", 2, 1), "float32"), w: R.Tensor((2, 1, 2, 1, 2), "float32")|'
        "strides=[1, 2, 1], output_padding=[0, 1, 0]"),
])
def test_conv_transpose_lowers(nsp, text):
    params, attrs = text.split("|")
    check_lowered(module(params, f"y = R.nn.conv{nsp}d_transpose(x, w, {attrs})"),
                  f"relax.nn.conv{nsp}d_transpose")


def test_conv_transpose_checks_its_channels_and_crop_when_lowered():
    """TE-leg-nn-10 with TE-leg-7: channels not provably the kernel's ``I`` (or not
    provably split into the groups) are the PrimFunc's shape_mismatch guards; a crop past
    the output (n < 2 here) traps where the result is allocated. check_pass runs the
    symbolic values where the checks pass and fail."""
    import relax_ref
    from relax_ref.passes.legalize_ops import legalize_ops

    check_lowered(module('x: R.Tensor((1, 2, "n"), "float32"), w: R.Tensor((2, 1, 1), "float32")',
                         "y = R.nn.conv1d_transpose(x, w, padding=1)"),
                  "relax.nn.conv1d_transpose")
    text = module('x: R.Tensor((1, "c", 3), "float32"), w: R.Tensor(("i", 2, 2), "float32")',
                  "y = R.nn.conv1d_transpose(x, w, strides=2, groups=2)")
    out = check_lowered(text, "relax.nn.conv1d_transpose")
    assert out.script().count("assert ") == 2, out.script()
    x, w = np.ones((1, 3, 3), "float32"), np.ones((3, 2, 2), "float32")
    with pytest.raises(relax_ref.RuntimeCheckError, match="split into groups") as err:
        relax_ref.run(legalize_ops(relax_ref.check(relax_ref.from_source(text))), x, w)
    assert err.value.check == "shape_mismatch"


def test_conv_transpose_agrees_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    x2, w2 = randn(1, 4, 3, 5), randn(4, 3, 3, 2)
    x1, w1 = randn(2, 2, 4), randn(2, 1, 3)
    x3, w3 = randn(1, 2, 2, 2, 2), randn(2, 2, 2, 1, 2)
    cases = [
        (lambda d, k: nn_.conv2d_transpose(d, k, strides=(2, 1), padding=(1, 0, 0, 1),
                                           output_padding=(1, 0), dilation=(1, 2), groups=2),
         [x2, w2], dict(strides=(2, 1), padding=(1, 0, 0, 1), output_padding=(1, 0),
                        dilation=(1, 2), groups=2)),
        (lambda d, k: nn_.conv1d_transpose(d, k, strides=3, padding=(2, 1), output_padding=2),
         [x1, w1], dict(strides=3, padding=(2, 1), output_padding=2)),
        (lambda d, k: nn_.conv3d_transpose(d, k, strides=(1, 2, 1), output_padding=(0, 1, 0),
                                           dilation=(1, 1, 2)),
         [x3, w3], dict(strides=(1, 2, 1), output_padding=(0, 1, 0), dilation=(1, 1, 2))),
        (lambda d, k: nn_.conv3d(d, k, padding=1, groups=2), [x3, randn(4, 1, 2, 1, 2)],
         dict(padding=1, groups=2)),
    ]
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _ in cases])
    names = ["nn.conv2d_transpose", "nn.conv1d_transpose", "nn.conv3d_transpose", "nn.conv3d"]
    for name, (_, arrays, attrs), got in zip(names, cases, theirs):
        ours = compute(name, *arrays, **attrs)
        np.testing.assert_allclose(ours, got, rtol=1e-5, atol=1e-5, err_msg=name)


def test_conv_transpose_deduction_agrees_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    attrs = dict(strides=2, padding=1, output_padding=1, groups=2)
    cases = [("conv2d_transpose", [tensor((1, 4, N, 5)), tensor((4, 3, 3, 2))], attrs),
             ("conv1d_transpose", [tensor((N, 2, 7)), tensor((2, 1, N))], {"dilation": 2}),
             ("conv3d_transpose", [tensor((1, 2, N, 2, 2)), tensor((2, 2, 1, 1, 2))],
              {"strides": (1, 2, 1)}),
             ("conv3d", [tensor((1, 2, N, 4, 4)), tensor((4, 1, 2, 1, 2))],
              {"groups": 2, "padding": 1})]
    for name, sinfos, kw in cases:
        build = getattr(nn_, name)
        b.assert_same_at(deduce(f"nn.{name}", sinfos, **kw),
                         b.deduce(lambda d, k, build=build, kw=kw: build(d, k, **kw), *sinfos))
