"""hamming_window (spec/ops/create.md SI-create-hamming-1, EXEC-create-hamming-1,
TE-leg-create-5): deduction, the window against NumPy's (to rounding) and its written-out
steps, lowering at window sizes 1, 0, 2, 3."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.prim_expr import IntImm

from .helpers import PrimScalar, assert_ndim, assert_tensor, compute, deduce, fails, sym
from .legalize_helpers import check_lowered, module

I64, F64, BOOL = parse_dtype("int64"), parse_dtype("float64"), parse_dtype("bool")


def _prims(n, periodic=1):
    size = si.PrimStructInfo(I64, IntImm(n) if isinstance(n, int) else n)
    return [size, si.PrimStructInfo(I64, IntImm(periodic)), si.PrimStructInfo(F64),
            si.PrimStructInfo(F64)]


def test_deduction():
    n = sym("n")
    assert_tensor(deduce("hamming_window", _prims(8), dtype="float32"), (8,))
    assert_tensor(deduce("hamming_window", _prims(n), dtype="float16"), (n,), "float16")
    assert_ndim(deduce("hamming_window", [si.PrimStructInfo(I64)] + _prims(1)[1:],
                       dtype="float32"), 1)
    fails("SI-create-hamming-1", "hamming_window", _prims(0), dtype="float32")
    fails("SI-create-hamming-1", "hamming_window", _prims(4), dtype="int32")
    fails("SI-create-hamming-1", "hamming_window", [si.PrimStructInfo(F64)] + _prims(1)[1:],
          dtype="float32")


def _window(n, periodic, dtype="float32"):
    return compute("hamming_window", PrimScalar(n, I64), PrimScalar(periodic, BOOL),
                   PrimScalar(0.54, F64), PrimScalar(0.46, F64), dtype=dtype)


def test_window_values():
    np.testing.assert_allclose(_window(8, False), np.hamming(8), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_window(8, True), np.hamming(9)[:8], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(_window(1, True), [1.0])
    assert _window(0, False).shape == (0,)
    # the steps rounded in float16, the cosine once from float64
    i = np.arange(5).astype(np.float16)
    t = (np.float16(2 * np.pi) * i / np.float16(4)).astype(np.float16)
    c = np.cos(t.astype(np.float64)).astype(np.float16).astype(np.float64)
    want = (0.54 - 0.46 * c).astype(np.float16)
    np.testing.assert_array_equal(_window(5, False, "float16"), want)


@pytest.mark.parametrize("periodic", ["0", "1", "R.prim_value(T.bool(True))"])
def test_lowers_at_symbolic_sizes(periodic):
    text = module('x: R.Tensor(("n",), "float32")',
                  f"n = T.int64()\ny = R.hamming_window(n, {periodic}, T.float64(0.54), "
                  'T.float64(0.46), dtype="float32")')
    check_lowered(text, "relax.hamming_window")
