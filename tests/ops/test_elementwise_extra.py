"""atan2, log_add_exp and ewise_fma (spec/ops/elementwise.md SI-ew-binary-2, SI-ew-fma-1,
EXEC-ew-logaddexp-1, EXEC-ew-fma-1, TE-leg-ew-2): deduction, NumPy semantics against
independent formulas, and lowering at several values of a symbolic dimension."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module

N, M = sym("n"), sym("m")


def test_float_binaries_broadcast_and_need_floats():
    for op in ("atan2", "log_add_exp"):
        assert_tensor(deduce(op, [tensor((N, 3)), tensor((3,))]), (N, 3))
        assert_tensor(deduce(op, [tensor((2, 1), "float16"), tensor((1, 4), "float16")]),
                      (2, 4), "float16")
        fails("SI-ew-binary-2", op, [tensor((3,), "int32"), tensor((3,), "int32")])
        fails("SI-op-dtype-1", op, [tensor((3,), "float32"), tensor((3,), "float16")])
        fails("SI-broadcast-1", op, [tensor((3,)), tensor((4,))])


def test_atan2_is_float64_arctan2_rounded_once():
    y = np.array([1.0, -1.0, 0.0, -0.0, 3.0], "float32")
    x = np.array([-1.0, -1.0, -1.0, -1.0, 0.0], "float32")
    got = compute("atan2", y, x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.arctan2(y.astype("float64"), x.astype("float64"))
                                  .astype("float32"))
    assert np.signbit(got[3]) and got[3] == np.float32(-np.pi)


def test_log_add_exp_does_not_overflow():
    a = np.array([100.0, -np.inf, np.inf, 0.0, np.nan, 1.0], "float32")
    b = np.array([100.0, -np.inf, np.inf, -np.inf, 0.0, 2.0], "float32")
    got = compute("log_add_exp", a, b)
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(a.astype("float64"), b.astype("float64")).astype("float32")
    np.testing.assert_array_equal(got, want)
    assert got[0] == np.float32(100.0 + np.log(2.0)) and got[2] == np.inf


def test_ewise_fma_deduction():
    assert_tensor(deduce("ewise_fma", [tensor((N, 2))] * 3), (N, 2))
    assert_ndim(deduce("ewise_fma", [tensor((N, 2)), tensor(2), tensor(None)]), 2)
    fails("SI-ew-fma-1", "ewise_fma", [tensor((2, 3)), tensor((2, 3)), tensor((3,))])
    fails("SI-ew-fma-1", "ewise_fma", [tensor((2, 3)), tensor((2, 3)), tensor((2, 4))])
    # TVM's rule: a dimension not provably equal is an error (match_cast first).
    fails("SI-ew-fma-1", "ewise_fma", [tensor((N,)), tensor((M,)), tensor((N,))])
    fails("SI-op-dtype-1", "ewise_fma", [tensor((2,)), tensor((2,), "int32"), tensor((2,))])


def test_ewise_fma_semantics_rounds_each_step_and_wraps():
    a = np.array([1e8, 3.0], "float32")
    got = compute("ewise_fma", a, a, -a * a)
    np.testing.assert_array_equal(got, np.float32(a * a) - np.float32(a * a))
    i = np.array([2**30, 5], "int32")
    np.testing.assert_array_equal(compute("ewise_fma", i, np.array([4, 2], "int32"),
                                          np.array([1, 1], "int32")), [1, 11])
    with traps("shape_mismatch", "EXEC-ew-fma-1"):
        compute("ewise_fma", a, a, a[:1])


@pytest.mark.parametrize("op", ["atan2", "log_add_exp"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_float_binaries_lower(op, dtype):
    text = module(f'x: R.Tensor(("n", 3), "{dtype}"), z: R.Tensor(("n", 1), "{dtype}")',
                  f"y = R.{op}(x, z)")
    check_lowered(text, f"relax.{op}")


def test_ewise_fma_stays_through_legalize_ops():
    text = module('x: R.Tensor(("n", 3), "float32")', "y = R.ewise_fma(x, x, x)")
    check_lowered(text, "relax.ewise_fma", lowered=False)
