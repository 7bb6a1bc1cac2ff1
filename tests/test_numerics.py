"""The scalar rules shared by the ops and the TIR interpreter (relax_ref/numerics.py)."""
from __future__ import annotations

import math

import numpy as np

from relax_ref import numerics
from relax_ref.ir.dtype import parse_dtype


def test_truncating_division_and_remainder_round_toward_zero():
    a = np.array([7, -7, 7, -7, np.iinfo(np.int32).min], np.int32)
    b = np.array([2, 2, -2, -2, -1], np.int32)
    with np.errstate(over="ignore"):
        assert numerics.trunc_div(a, b).tolist() == [3, -3, -3, 3, np.iinfo(np.int32).min]
    assert numerics.trunc_mod(a[:4], b[:4]).tolist() == [1, -1, 1, -1]


def test_scalars_stay_scalars():
    q = numerics.trunc_div(np.int32(-7), np.int32(2))
    assert isinstance(q, np.int32) and q == -3
    assert isinstance(numerics.erf(np.float32(0.5)), np.float64)
    assert numerics.erf(np.zeros((2, 0))).shape == (2, 0)


def test_float_floor_division_rounds_the_quotient_first():
    # NumPy's floor_divide gives 9.0 here (through fmod); TVM lowers floor(1.0 / 0.1).
    assert np.floor_divide(1.0, 0.1) == 9.0
    assert numerics.float_floor_div(1.0, 0.1) == 10.0
    assert numerics.float_floor_mod(np.float32(-1.0), np.float32(4.0)) == 3.0


def test_float_to_int_gives_x86s_value_out_of_range():
    v = np.array([2.9, -2.9, np.nan, np.inf, 3e9], np.float32)
    assert numerics.float_to_int(v, np.dtype(np.int32)).tolist() == \
        [2, -2, -2**31, -2**31, -2**31]
    assert numerics.out_of_range_int(parse_dtype("uint8")) == 255
    assert numerics.erf(np.array([1.0]))[0] == math.erf(1.0)


def test_integers_wrap_into_their_type_by_one_formula_for_ints_and_z3_terms():
    import z3

    int8, uint8 = parse_dtype("int8"), parse_dtype("uint8")
    assert [numerics.wrap_int(v, int8) for v in (127, 128, -129, 300)] == [127, -128, 127, 44]
    assert numerics.wrap_int(-1, uint8) == 255
    x = z3.Int("x")
    assert z3.simplify(z3.substitute(numerics.wrap_int(x, int8), (x, z3.IntVal(128)))) == -128
