"""instance_norm (spec/ops/nn.md "instance_norm"): deduction shared with group_norm,
NumPy semantics against a loop reference, and lowering at several symbolic values."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import compute, deduce, dims, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module

N, C = sym("n"), sym("c")


@np.errstate(all="ignore")
def _ref(x, gamma, beta, c_axis, axes, eps):
    x64 = x.astype(np.float64)
    count = np.prod([x.shape[a] for a in axes])
    mean = x64.sum(axis=tuple(axes), keepdims=True) / count
    var = (x64 * x64).sum(axis=tuple(axes), keepdims=True) / count - mean * mean
    shape = [1] * x.ndim
    shape[c_axis] = -1
    return (x64 - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


def test_instance_norm_deduction():
    x, p = tensor((2, 3, 4, 5)), tensor((3,))
    assert dims(deduce("nn.instance_norm", [x, p, p], channel_axis=1, axes=[2, 3])) \
        == (2, 3, 4, 5)
    xs = tensor((N, C, 7))
    assert dims(deduce("nn.instance_norm", [xs, tensor((C,)), tensor((C,))], channel_axis=1,
                       axes=[2])) == (N, C, 7)
    assert deduce("nn.instance_norm", [tensor(None), tensor(None), tensor(None)],
                  channel_axis=1, axes=[2]).ndim == -1
    fails("SI-nn-instance_norm-1", "nn.instance_norm", [x, p, p], channel_axis=1, axes=[1, 2])
    fails("SI-nn-instance_norm-1", "nn.instance_norm", [x, tensor((4,)), p], channel_axis=1,
          axes=[2, 3])
    fails("SI-nn-instance_norm-1", "nn.instance_norm", [x, tensor((3, 1)), p], channel_axis=1,
          axes=[2, 3])
    fails("SI-nn-norm-1", "nn.instance_norm", [tensor((2, 3, 4), "int32"),
                                               tensor((3,), "int32"), tensor((3,), "int32")],
          channel_axis=1, axes=[2])
    fails("SI-nn-norm-2", "nn.instance_norm", [x, tensor((3,), "float16"), p], channel_axis=1,
          axes=[2, 3])
    fails("SI-op-axis-1", "nn.instance_norm", [x, p, p], channel_axis=1, axes=[4])


@pytest.mark.parametrize("shape,c_axis,axes", [((2, 3, 4, 5), 1, [2, 3]),
                                                ((2, 4, 3), -1, [1]), ((1, 2, 0), 1, [2])])
def test_instance_norm_semantics(shape, c_axis, axes):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype("float32")
    c = shape[c_axis]
    gamma, beta = rng.standard_normal(c).astype("float32"), rng.standard_normal(c).astype(
        "float32")
    got = compute("nn.instance_norm", x, gamma, beta, channel_axis=c_axis, axes=axes,
                  epsilon=1e-5)
    np.testing.assert_allclose(got, _ref(x, gamma, beta, c_axis % len(shape), axes, 1e-5),
                               rtol=1e-4, atol=1e-4)


def test_instance_norm_without_scale_and_center_and_bad_gamma():
    x = np.array([[[1.0, 3.0]]], "float32")
    one = np.array([2.0], "float32")
    got = compute("nn.instance_norm", x, one, one, channel_axis=1, axes=[2], epsilon=0.0,
                  center=False, scale=False)
    np.testing.assert_allclose(got, [[[-1.0, 1.0]]])
    with traps("shape_mismatch", "EXEC-nn-norm-1"):
        compute("nn.instance_norm", x, np.ones(2, "float32"), one, channel_axis=1, axes=[2])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_instance_norm_lowers(dtype):
    check_lowered(module(f'x: R.Tensor(("n", 3, "h"), "{dtype}"), g: R.Tensor((3,), "{dtype}"), '
                         f'b: R.Tensor((3,), "{dtype}")',
                         "y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])"),
                  "relax.nn.instance_norm")


def test_instance_norm_with_symbolic_channels_lowers():
    check_lowered(module('x: R.Tensor((2, "h", "c"), "float32"), g: R.Tensor(("c",), "float32"), '
                         'b: R.Tensor(("c",), "float32")',
                         "y = R.nn.instance_norm(x, g, b, channel_axis=-1, axes=[1], "
                         "center=False)"), "relax.nn.instance_norm")
