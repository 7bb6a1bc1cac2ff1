"""batch_flatten and pixel_shuffle (spec/ops/nn.md "Rearrangements"): deduction (static,
symbolic, unknown, errors), NumPy semantics against loop references, and lowering
through LegalizeOps at several values of each symbolic dimension."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import compute, deduce, dims, fails, sym, tensor, texts, traps
from .legalize_helpers import check_lowered, module

N, C = sym("n"), sym("c")


def test_batch_flatten_deduction():
    assert dims(deduce("nn.batch_flatten", [tensor((2, 3, 4))])) == (2, 12)
    assert texts(deduce("nn.batch_flatten", [tensor((N, 3, C))])) == ["n", "3 * c"]
    x2 = tensor((N, C))
    assert dims(deduce("nn.batch_flatten", [x2])) == (N, C)
    assert deduce("nn.batch_flatten", [tensor(None)]).ndim == 2
    assert deduce("nn.batch_flatten", [tensor(4)]).ndim == 2
    fails("SI-nn-batch_flatten-1", "nn.batch_flatten", [tensor((3,))])


def test_batch_flatten_semantics():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(compute("nn.batch_flatten", x), x.reshape(2, 12))
    assert compute("nn.batch_flatten", np.zeros((0, 3, 2), "int32")).shape == (0, 6)
    with traps("shape_mismatch", "EXEC-nn-batch_flatten-1"):
        compute("nn.batch_flatten", np.zeros(3, "float32"))


def test_batch_flatten_lowers():
    check_lowered(module('x: R.Tensor(("n", 3, "m"), "float32")',
                         "y = R.nn.batch_flatten(x)"), "relax.nn.batch_flatten")


def _shuffle_ref(x, r):
    *lead, c, h, w = x.shape
    out = np.zeros((*lead, c // (r * r), h * r, w * r), x.dtype)
    for idx in np.ndindex(*out.shape):
        *b, co, ho, wo = idx
        ci = co * r * r + (ho % r) * r + wo % r
        out[idx] = x[(*b, ci, ho // r, wo // r)]
    return out


def test_pixel_shuffle_deduction():
    assert dims(deduce("nn.pixel_shuffle", [tensor((1, 8, 2, 3))], upscale_factor=2)) \
        == (1, 2, 4, 6)
    assert texts(deduce("nn.pixel_shuffle", [tensor((18, 2, N))], upscale_factor=3)) \
        == ["2", "6", "n * 3"]
    assert deduce("nn.pixel_shuffle", [tensor(None)], upscale_factor=2).ndim == -1
    fails("SI-nn-pixel_shuffle-1", "nn.pixel_shuffle", [tensor((4, 4))], upscale_factor=2)
    fails("SI-nn-pixel_shuffle-1", "nn.pixel_shuffle", [tensor((4, 4, 4))], upscale_factor=0)
    fails("SI-nn-pixel_shuffle-2", "nn.pixel_shuffle", [tensor((1, 6, 2, 2))],
          upscale_factor=2)


@pytest.mark.parametrize("shape,r", [((1, 8, 2, 3), 2), ((9, 2, 1), 3), ((2, 2, 4, 1, 1), 1)])
def test_pixel_shuffle_semantics(shape, r):
    x = np.arange(np.prod(shape), dtype="int32").reshape(shape)
    np.testing.assert_array_equal(compute("nn.pixel_shuffle", x, upscale_factor=r),
                                  _shuffle_ref(x, r))


def test_pixel_shuffle_traps_on_indivisible_channels():
    with traps("shape_mismatch", "EXEC-nn-pixel_shuffle-1"):
        compute("nn.pixel_shuffle", np.zeros((1, 3, 2, 2), "float32"), upscale_factor=2)


def test_pixel_shuffle_lowers():
    check_lowered(module('x: R.Tensor(("b", 8, "h", 3), "float32")',
                         "y = R.nn.pixel_shuffle(x, upscale_factor=2)"), "relax.nn.pixel_shuffle")


def test_pixel_shuffle_guards_symbolic_channels():
    # c not a multiple of 4 (1, 2, 3 among check_pass's values) traps shape_mismatch
    # in the PrimFunc's guard, as the op does (TE-leg-nn-9)
    out = check_lowered(module('x: R.Tensor((1, "c", 2, 2), "float32")',
                               "y = R.nn.pixel_shuffle(x, upscale_factor=2)"),
                        "relax.nn.pixel_shuffle")
    assert "c % T.int64(4) == T.int64(0)" in out.script(), out.script()
