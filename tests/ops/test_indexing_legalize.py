"""Lowering of the indexing ops (spec/ops/indexing.md TE-leg-index-*): take in every
mode and strided_slice with constant, negative, out-of-range and symbolic bounds keep
their results and their traps (an index out of range is a load out of bounds, which
traps ``index_out_of_bounds`` as the op does) through LegalizeOps."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RuntimeCheckError, same_check
from relax_ref.passes.legalize_ops import legalize_ops

from .legalize_helpers import check_lowered, module

_SETTINGS = settings(max_examples=20, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.sampled_from(["fast", "clip", "wrap", "nan"]),
       st.sampled_from([0, 1, -1]),
       st.sampled_from(["int32", "int64", "uint8"]),
       st.sampled_from(['("m",)', '(2, "m")', "()", "(0,)"]))
def test_take_in_every_mode(mode, axis, index_dtype, index_shape):
    # Random indices are mostly out of range: "fast" traps on both sides.
    text = module(f'x: R.Tensor(("n", 4), "float32"), i: R.Tensor({index_shape}, '
                  f'"{index_dtype}")', f'y = R.take(x, i, axis={axis}, mode="{mode}")')
    check_lowered(text, "relax.take")


@_SETTINGS
@given(st.sampled_from(["fast", "clip", "wrap"]), st.sampled_from([0, 1]))
def test_take_of_in_range_indices(mode, axis):
    # floor_mod by the length puts every index in range, so "fast" computes values.
    text = module('x: R.Tensor((4, 4), "int32"), i: R.Tensor(("m", 3), "int64")',
                  f'''k = R.floor_mod(i, R.const(4, "int64"))
y = R.take(x, k, axis={axis}, mode="{mode}")''')
    check_lowered(text, "relax.take")


def test_take_of_a_prim_index_and_axis_none():
    text = module('x: R.Tensor(("n",), "float32"), j: R.Tensor((5,), "int64")',
                  '''a = R.take(x, R.prim_value(T.int64(2)), mode="clip")
b = R.take(x, j, axis=None, mode="wrap")
y = (a, b)''')
    check_lowered(text, "relax.take")


def _run(text: str, *args):
    mod = relax_ref.check(relax_ref.from_source(text))
    out = legalize_ops(mod)
    return [relax_ref.run(m, *args) for m in (mod, out)]


def test_take_out_of_range_traps_in_the_lowered_code_too():
    text = module('x: R.Tensor((3, 2), "float32"), i: R.Tensor((1,), "int64")',
                  "y = R.take(x, i, axis=0)")
    x = np.zeros((3, 2), "float32")
    for mod in (relax_ref.check(relax_ref.from_source(text)),
                legalize_ops(relax_ref.check(relax_ref.from_source(text)))):
        with pytest.raises(RuntimeCheckError) as err:
            relax_ref.run(mod, x, np.array([3], "int64"))
        assert err.value.check == "index_out_of_bounds"


def test_take_with_an_empty_result_uses_no_index():
    # x has no columns: nothing is read, so the bad index 7 does not trap (EXEC-index-take-1).
    text = module('x: R.Tensor((3, 0), "float32"), i: R.Tensor((1,), "int64")',
                  "y = R.take(x, i, axis=0)")
    before, after = _run(text, np.zeros((3, 0), "float32"), np.array([7], "int64"))
    assert before.shape == after.shape == (1, 0)


@pytest.mark.parametrize("mode", ["fast", "clip", "wrap", "nan"])
def test_take_of_an_r_prim_index_of_any_sign(mode):
    # The index is a scalar parameter; under "fast" the guard checks 0 <= k < n unless
    # the result is empty (m = 0), under "clip" and "wrap" that n > 0.
    text = module('x: R.Tensor(("n", "m"), "float32"), p: R.Prim(value="k")',
                  f'k = T.int64()\ny = R.take(x, R.prim_value(k), axis=0, mode="{mode}")')
    out = check_lowered(text, "relax.take")
    before = relax_ref.check(relax_ref.from_source(text))
    for shape, k in (((3, 2), -1), ((3, 2), 5), ((3, 0), 7), ((0, 2), 0), ((3, 2), 1)):
        x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
        results = []
        for mod in (before, out):
            try:
                results.append(relax_ref.run(mod, x, k))
            except RuntimeCheckError as err:
                results.append(err.check)
        if isinstance(results[0], str):
            assert results == [results[0]] * 2, (shape, k, results)
        else:
            np.testing.assert_array_equal(results[0], results[1])


def test_take_of_uint64_indices_with_clip_stays():
    text = module('x: R.Tensor((4,), "float32"), i: R.Tensor((2,), "uint64")',
                  'y = R.take(x, i, axis=0, mode="clip")')
    check_lowered(text, "relax.take", lowered=False)


_BOUND = st.integers(-12, 12)


@_SETTINGS
@given(st.lists(st.tuples(st.sampled_from([0, 1]), _BOUND, _BOUND,
                          st.sampled_from([1, 2, 3, -1, -2])),
                min_size=1, max_size=2, unique_by=lambda t: t[0]),
       st.booleans())
def test_strided_slice_with_python_slicing(slices, with_strides):
    if not with_strides:
        slices = [(a, b, e, 1) for a, b, e, _ in slices]
    axes, begin, end, strides = ([s[k] for s in slices] for k in range(4))
    tail = f", {tuple(strides)}" if with_strides else ""
    text = module('x: R.Tensor(("n", 10), "float32")',
                  f"y = R.strided_slice(x, {tuple(axes)}, {tuple(begin)}, {tuple(end)}{tail})")
    check_lowered(text, "relax.strided_slice")


@_SETTINGS
@given(st.integers(-3, 3), st.integers(-3, 3), st.sampled_from([1, 2, -1]))
def test_strided_slice_with_symbolic_bounds(begin_offset, end_offset, stride):
    # Bounds that use the dimensions n and m, negative for small n and m.
    text = module('x: R.Tensor(("n", "m"), "float32")',
                  f'''n = T.int64()
m = T.int64()
y = R.strided_slice(x, (0,), (m + {begin_offset},), (n + {end_offset},), ({stride},))''')
    check_lowered(text, "relax.strided_slice")


def test_strided_slice_with_an_r_prim_bound_stays():
    # k may be negative, and deduction's canonical begin assumes it is not, so its
    # length may be wrong for a negative k (TE-leg-manip-8).
    text = module('x: R.Tensor(("n", 3), "float32"), b: R.Prim(value="k")',
                  '''k = T.int64()
y = R.strided_slice(x, (0,), (k,), (k + 2,))''')
    check_lowered(text, "relax.strided_slice", lowered=False)


def test_strided_slice_assume_inbound_of_an_r_prim_bound_is_guarded():
    # The begin is used as given: the guard checks k and k + 1 lie in [0, n).
    text = module('x: R.Tensor(("n", 3), "float32"), b: R.Prim(value="k")',
                  '''k = T.int64()
y = R.strided_slice(x, (0,), (k,), (k + 2,), assume_inbound=True)''')
    out = check_lowered(text, "relax.strided_slice")
    x = np.arange(12, dtype="float32").reshape(4, 3)
    np.testing.assert_array_equal(relax_ref.run(out, x, 2), x[2:4])
    for k in (-1, 3):
        with pytest.raises(RuntimeCheckError) as err:
            relax_ref.run(out, x, k)
        assert err.value.check == "index_out_of_bounds"


@_SETTINGS
@given(st.integers(0, 4), st.integers(0, 3), st.sampled_from([1, 2, 3]))
def test_strided_slice_assume_inbound(begin, length, stride):
    # Reads past n (small n) trap on both sides; none is read when n's axis is 0 long.
    end = begin + length * stride
    text = module('x: R.Tensor(("n", "m"), "float32")',
                  f"y = R.strided_slice(x, (0,), ({begin},), ({end},), ({stride},), "
                  f"assume_inbound=True)")
    check_lowered(text, "relax.strided_slice")


def test_strided_slice_assume_inbound_of_symbolic_bounds():
    # m:m + 2 on axis 0 of length n: the reads trap unless m + 2 <= n.
    text = module('x: R.Tensor(("n", "m"), "float32")',
                  '''m = T.int64()
y = R.strided_slice(x, (0,), (m,), (m + 2,), assume_inbound=True)''')
    check_lowered(text, "relax.strided_slice")


@pytest.mark.parametrize("bounds", ["(k,), (4,), (2,)", "(k,), (k + 5,), (2,)",
                                    "(4,), (k,), (-1,)", "(k,), (k * 2,), (3,)"])
def test_strided_slice_assume_inbound_agrees_at_negative_r_prim_values(bounds):
    # check_pass tries k >= 0 only; the op and its lowering agree below 0 too (results,
    # or traps of the same check, CONF-pass-2).
    text = module('x: R.Tensor(("n", 3), "float32"), b: R.Prim(value="k")',
                  f"k = T.int64()\ny = R.strided_slice(x, (0,), {bounds}, "
                  f"assume_inbound=True)")
    before = relax_ref.check(relax_ref.from_source(text))
    after = check_lowered(text, "relax.strided_slice")
    x = np.arange(18, dtype="float32").reshape(6, 3)
    for k in (-3, -1, 1, 3, 7):
        got = []
        for mod in (before, after):
            try:
                got.append(relax_ref.run(mod, x, k))
            except RuntimeCheckError as err:
                got.append(err)
        if isinstance(got[0], RuntimeCheckError):
            assert isinstance(got[1], RuntimeCheckError), (k, got)
            assert same_check(got[0].check, got[1].check, got[1].rule), (k, got)
        else:
            np.testing.assert_array_equal(got[0], got[1])


def test_strided_slice_assume_inbound_of_a_maybe_negative_length_lowers():
    # n - 2 elements: negative for n < 2, where the op traps invalid_value and the
    # lowered call traps allocating its result (TE-leg-7); check_pass tries n = 1, 0.
    text = module('x: R.Tensor(("n", 2), "float32")',
                  '''n = T.int64()
y = R.strided_slice(x, (0,), (1,), (n - 1,), assume_inbound=True)''')
    check_lowered(text, "relax.strided_slice")


_BOUNDS = st.lists(st.integers(-9, 9), min_size=2, max_size=2)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BOUNDS, _BOUNDS, st.lists(st.sampled_from([-3, -2, -1, 0, 1, 2, 3]), min_size=2,
                                  max_size=2), st.integers(0, 3))
def test_dynamic_strided_slice_computes_its_lengths_at_run_time(begin, end, strides, rows):
    """TE-leg-index-3: a shape function, tensor_to_shape, a match_cast and the kernel:
    Python's slicing of every axis, a zero stride traps invalid_value as the op does."""
    text = module('x: R.Tensor(("n", 5), "float32"), b: R.Tensor((2,), "int64"), '
                  'e: R.Tensor((2,), "int64"), s: R.Tensor((2,), "int64")',
                  "y = R.dynamic_strided_slice(x, b, e, s)")
    out = check_lowered(text, "relax.dynamic_strided_slice", trials=2)
    x = np.arange(rows * 5, dtype="float32").reshape(rows, 5)
    args = [x] + [np.array(v, "int64") for v in (begin, end, strides)]
    if 0 in strides:
        with pytest.raises(RuntimeCheckError) as err:
            relax_ref.run(out, *args)
        assert err.value.check == "invalid_value"
        return
    want = x[begin[0]:end[0]:strides[0], begin[1]:end[1]:strides[1]]
    np.testing.assert_array_equal(relax_ref.run(out, *args), want)


def test_dynamic_strided_slice_bounds_of_another_length_trap_shape_mismatch():
    text = module('x: R.Tensor((4, 5), "float32"), b: R.Tensor(("k",), "int64"), '
                  'e: R.Tensor(("k",), "int64"), s: R.Tensor(("k",), "int64")',
                  "y = R.dynamic_strided_slice(x, b, e, s)")
    out = legalize_ops(relax_ref.check(relax_ref.from_source(text)))
    one = np.array([1], "int64")
    with pytest.raises(RuntimeCheckError) as err:
        relax_ref.run(out, np.zeros((4, 5), "float32"), one, one, one)
    assert err.value.check == "shape_mismatch"
