"""The comparison every device test makes (tests/backends/kernels.py assert_same,
BE-run-1): exact, or for a kernel with inexact math within the ULP bound, where equal
infinities are no difference (the sweep with special values found them measured as NaN)."""
from __future__ import annotations

import numpy as np
import pytest

from .kernels import assert_same, legalized

EXP = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.exp(x)
        return y
"""


def test_equal_infinities_are_no_difference():
    (func,) = legalized(EXP).values()
    ref = [np.float32([np.inf, 1.0, np.nan])]
    one_ulp = np.nextafter(np.float32(1.0), np.float32(2.0))
    assert assert_same(ref, [np.float32([np.inf, one_ulp, np.nan])], func, "exp") == 1.0


def test_an_infinity_against_a_number_is_a_difference():
    (func,) = legalized(EXP).values()
    with pytest.raises(AssertionError, match="ULP"):
        assert_same([np.float32([np.inf, 1.0])], [np.float32([3e38, 1.0])], func, "exp")
