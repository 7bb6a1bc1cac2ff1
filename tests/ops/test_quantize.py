"""quantize and dequantize (spec/ops/quantize.md SI-quant-1..2, EXEC-quant-1..3,
TE-leg-quant-1..3): deduction, NumPy semantics against hand-computed values, lowering at
n = 1, 0, 2, 3 for per-tensor and per-channel parameters."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module

N = sym("n")


def test_deduction():
    x = tensor((N, 3))
    assert_tensor(deduce("quantize", [x, tensor(()), tensor((), "int8")]), (N, 3), "int8")
    assert_tensor(deduce("quantize", [x, tensor((3,)), tensor((1,), "uint8")],
                         out_dtype="uint8"), (N, 3), "uint8")
    assert_tensor(deduce("dequantize", [tensor((N, 3), "int8"), tensor((N,)),
                                        tensor((), "int8")], axis=0), (N, 3))
    assert_ndim(deduce("dequantize", [tensor(2, "int32"), tensor(1), tensor((), "int32")],
                       out_dtype="float16"), 2, "float16")
    fails("SI-quant-1", "quantize", [x, tensor(()), tensor((), "int8")], out_dtype="int32")
    fails("SI-quant-1", "quantize", [tensor((3,), "int8"), tensor(()), tensor((), "int8")])
    fails("SI-quant-1", "dequantize", [tensor((3,), "int8"), tensor((), "int8"),
                                       tensor((), "int8")])
    fails("SI-quant-2", "quantize", [x, tensor((2,)), tensor((), "int8")])
    fails("SI-quant-2", "quantize", [x, tensor((3, 2)), tensor((), "int8")])
    fails("SI-quant-2", "quantize", [x, tensor(()), tensor((), "int8")], axis=2)
    fails("SI-quant-2", "quantize", [tensor(()), tensor((3,)), tensor((), "int8")])


def test_quantize_rounds_half_to_even_and_clamps():
    x = np.array([0.25, 0.75, -0.75, 1e6, -1e6, np.nan], "float32")
    got = compute("quantize", x, np.array(0.5, "float32"), np.array(1, "int8"))
    np.testing.assert_array_equal(got, [1, 3, -1, 127, -128, 127])
    assert got.dtype == np.int8
    per_channel = compute("quantize", np.ones((2, 2), "float16"),
                          np.array([0.5, 0.25], "float16"), np.array([0, 250], "uint8"),
                          axis=1, out_dtype="uint8")
    np.testing.assert_array_equal(per_channel, [[2, 254], [2, 254]])
    with traps("shape_mismatch", "EXEC-quant-1"):
        compute("quantize", np.ones((2, 3), "float32"), np.ones(2, "float32"),
                np.array(0, "int8"))


def test_dequantize_subtracts_in_int32_and_clamps_float16():
    x = np.array([[-128, 127], [0, 5]], "int8")
    got = compute("dequantize", x, np.array([0.5, 2.0], "float32"),
                  np.array([1, -1], "int8"), axis=1)
    np.testing.assert_array_equal(got, [[-64.5, 256.0], [-0.5, 12.0]])
    big = compute("dequantize", np.array([30000, -30000], "int32"), np.array(4.0, "float16"),
                  np.array(0, "int32"), out_dtype="float16")
    np.testing.assert_array_equal(big, np.array([65504.0, -65504.0], "float16"))
    nan = compute("dequantize", np.array([np.nan], "float32"), np.array(1.0, "float32"),
                  np.array(0, "float16"), out_dtype="float16")
    assert np.isnan(nan[0])


@pytest.mark.parametrize("dtype,scale,zp,axis,out", [
    ("float32", "()", '(), "int8"', -1, "int8"),
    ("float16", "(3,)", '(3,), "uint8"', 1, "uint8"),
    ("float32", '("n",)', '(1,), "int32"', 0, "int16"),
    ("float32", "()", '(), "float16"', -1, "float8_e4m3fn"),
])
def test_quantize_lowers(dtype, scale, zp, axis, out):
    text = module(f'x: R.Tensor(("n", 3), "{dtype}"), s: R.Tensor({scale}, "{dtype}"), '
                  f"z: R.Tensor({zp})",
                  f'y = R.quantize(x, s, z, axis={axis}, out_dtype="{out}")')
    check_lowered(text, "relax.quantize")


@pytest.mark.parametrize("dtype,scale,zp,out", [
    ("int8", '(3,), "float32"', '(3,), "int8"', "float32"),
    ("int32", '(), "float16"', '(), "float16"', "float16"),
    ("float32", '(1, 1), "float16"', '(), "int32"', "float16"),
])
def test_dequantize_lowers(dtype, scale, zp, out):
    text = module(f'x: R.Tensor(("n", 3), "{dtype}"), s: R.Tensor({scale}), z: R.Tensor({zp})',
                  f'y = R.dequantize(x, s, z, axis=1, out_dtype="{out}")')
    check_lowered(text, "relax.dequantize")


def test_a_parameter_of_unknown_shape_stays():
    text = module('x: R.Tensor(("n", 3), "int8"), s: R.Tensor(dtype="float32", ndim=1), '
                  'z: R.Tensor((), "int8")', "y = R.dequantize(x, s, z)")
    check_lowered(text, "relax.dequantize", lowered=False)
