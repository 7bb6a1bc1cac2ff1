"""bucketize and median (spec/ops/search.md SI-search-bucketize-1, SI-search-median-1..2,
their EXEC rules, TE-leg-search-1..2): deduction, NumPy semantics against independent
formulas (NumPy's searchsorted, a sort written out), lowering at n = 1, 0, 2, 3 (an
empty median row traps on both sides)."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import struct_info as si

from .helpers import assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module

N = sym("n")


def test_bucketize_deduction():
    x, b = tensor((N, 3)), tensor((5,))
    assert_tensor(deduce("bucketize", [x, b]), (N, 3), "int64")
    assert_tensor(deduce("bucketize", [x, b], out_int32=True), (N, 3), "int32")
    assert_ndim(deduce("bucketize", [tensor(2), b]), 2, "int64")
    fails("SI-search-bucketize-1", "bucketize", [x, tensor((2, 2))])
    fails("SI-op-dtype-1", "bucketize", [x, tensor((5,), "int32")])


def test_bucketize_counts_boundaries_below():
    b = np.array([1.0, 3.0, 5.0, 7.0], "float32")
    x = np.array([[0.0, 1.0, 3.5], [7.0, 9.0, np.nan]], "float32")
    for right in (False, True):
        got = compute("bucketize", x, b, right=right)
        want = np.searchsorted(b, x, side="right" if right else "left")
        want[1, 2] = 0  # a NaN value counts no boundary (TVM's binary search gives 0 too)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.int64
    assert compute("bucketize", x, b, out_int32=True).dtype == np.int32
    # unsorted boundaries: still the count
    np.testing.assert_array_equal(compute("bucketize", np.array([2.0], "float32"),
                                          np.array([5.0, 1.0, 3.0], "float32")), [1])


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_lowers(right):
    text = module('x: R.Tensor(("n", 3), "int32"), b: R.Tensor(("m",), "int32")',
                  f"y = R.bucketize(x, b, right={right})")
    check_lowered(text, "relax.bucketize")


def test_median_deduction():
    x = tensor((N, 3, 2))
    assert_tensor(deduce("median", [x]), ())
    assert_tensor(deduce("median", [x], keepdims=True), (1, 1, 1))
    out = deduce("median", [x], axis=(1,))
    assert isinstance(out, si.TupleStructInfo)
    assert_tensor(out.fields[0], (N, 2))
    assert_tensor(out.fields[1], (N, 2), "int64")
    out = deduce("median", [x], axis=(-1,), keepdims=True)
    assert_tensor(out.fields[1], (N, 3, 1), "int64")
    assert_tensor(deduce("median", [x], axis=(0, 2)), (3,))
    assert_ndim(deduce("median", [tensor(3)], axis=(0, 1)), 1)
    fails("SI-op-axis-1", "median", [x], axis=(3,))
    fails("SI-op-axis-2", "median", [x], axis=(0, -3))
    fails("SI-search-median-1", "median", [x], axis=())


def _lower_median_ref(x, axis):
    """Sort each row (NaN last), take the element at (count - 1) // 2."""
    rows = np.moveaxis(x, axis, -1)
    order = np.argsort(rows, axis=-1, kind="stable")
    k = (rows.shape[-1] - 1) // 2
    return np.take_along_axis(rows, order[..., k:k + 1], -1)[..., 0], order[..., k]


def test_median_is_the_lower_median_with_its_index():
    x = np.array([[3.0, 1.0, 2.0, 2.0], [np.nan, 4.0, -1.0, 0.0], [5.0, 5.0, 5.0, 1.0]],
                 "float32")
    values, index = compute("median", x, axis=(1,))
    want_v, want_i = _lower_median_ref(x, 1)
    np.testing.assert_array_equal(values, want_v)
    np.testing.assert_array_equal(index, want_i)
    assert list(values) == [2.0, 0.0, 5.0] and list(index) == [2, 3, 0]
    assert compute("median", x).item() == np.sort(x.reshape(-1))[(x.size - 1) // 2]
    kept = compute("median", x, axis=(0, 1), keepdims=True)
    assert kept.shape == (1, 1)


def test_median_of_no_elements_traps():
    with traps("index_out_of_bounds", "EXEC-search-median-1"):
        compute("median", np.zeros((2, 0), "float32"), axis=(1,))
    values, index = compute("median", np.zeros((0, 3), "float32"), axis=(1,))
    assert values.shape == index.shape == (0,)


@pytest.mark.parametrize("axis,keepdims", [("None", False), ("None", True), ("[1]", False),
                                           ("[0]", True), ("[0, 2]", False)])
def test_median_lowers(axis, keepdims):
    text = module('x: R.Tensor(("n", 3, 2), "float32")',
                  f"y = R.median(x, axis={axis}, keepdims={keepdims})")
    check_lowered(text, "relax.median")


def test_median_lowers_with_ties():
    text = module('x: R.Tensor((5, "n"), "int8")', "y = R.median(x, axis=[0])")
    check_lowered(text, "relax.median")
