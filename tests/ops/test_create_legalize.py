"""Lowering of the creation ops (spec/ops/create.md TE-leg-create-1..4): each op, drawn
with its dtypes, sizes and offsets over symbolic shapes, keeps its results through
LegalizeOps; symbolic operands that could be negative stay as they are."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.passes.legalize_ops import legalize_ops

from .legalize_helpers import check_lowered, module

_DTYPES = ["float32", "float16", "int32", "int8", "int64", "bool"]
_SHAPES = ['("n", 3)', '("n", "m")', "(2, 0)", "()", '(2, "n", 3)']
_SETTINGS = settings(max_examples=30, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _prim(value, dtype: str = "int64") -> str:
    return f"R.prim_value(T.{dtype}({value}))"


@_SETTINGS
@given(st.sampled_from(["full", "ones", "zeros"]), st.sampled_from(_SHAPES),
       st.sampled_from(_DTYPES), st.sampled_from(["float32", "int32", "bool"]))
def test_full_ones_zeros_lower(op, shape, dtype, fill_dtype):
    shape_arg = f"R.shape([{shape.strip('()').rstrip(',')}])"
    params = f'x: R.Tensor({shape}, "float32"), f: R.Tensor((), "{fill_dtype}")'
    call = f'R.full({shape_arg}, f, "{dtype}")' if op == "full" else \
        f'R.{op}({shape_arg}, "{dtype}")'
    check_lowered(module(params, f"y = {call}"), f"relax.{op}")


@_SETTINGS
@given(st.sampled_from(["full_like", "ones_like", "zeros_like"]), st.sampled_from(_SHAPES),
       st.sampled_from(_DTYPES + [None]))
def test_like_forms_lower(op, shape, dtype):
    args = "x, f" if op == "full_like" else "x"
    dtype_arg = "" if dtype is None else f', "{dtype}"'
    text = module(f'x: R.Tensor({shape}, "int32"), f: R.Tensor((), "float32")',
                  f"y = R.{op}({args}{dtype_arg})")
    check_lowered(text, f"relax.{op}")


@_SETTINGS
@given(st.integers(0, 4), st.integers(0, 4), st.integers(-5, 5), st.sampled_from(_DTYPES))
def test_eye_lowers(n, m, k, dtype):
    text = module('x: R.Tensor(("n", "m"), "float32")',
                  f'y = R.eye({_prim(n)}, {_prim(m, "int32")}, {_prim(k)}, "{dtype}")')
    check_lowered(text, "relax.eye")


@_SETTINGS
@given(st.sampled_from([_prim(-2), _prim(0, "int32"), _prim(3), "R.prim_value(n)"]),
       st.sampled_from(["tril", "triu", "eye_like"]),
       st.sampled_from(['("n", "m")', '(3, "n", 4)', "(0, 2)"]))
def test_offsets_lower(k, op, shape):
    """``k`` constant, or a dimension of the operand (never negative, so it may be
    passed in ``tir_vars``)."""
    if op == "eye_like" and shape.count(",") != 1:
        shape = '("n", 4)'
    if "n" not in shape and k.endswith("(n)"):
        k = _prim(1)
    text = module(f'x: R.Tensor({shape}, "int32")', f"y = R.{op}(x, {k})")
    check_lowered(text, f"relax.{op}")


_ARANGE_DTYPES = ["int64", "int32", "int8", "float32", "float16"]


@_SETTINGS
@given(st.integers(-20, 20), st.integers(-20, 20),
       st.integers(-7, 7).filter(lambda s: s != 0), st.sampled_from(_ARANGE_DTYPES + [None]))
def test_arange_lowers_with_integer_operands(start, end, step, dtype):
    """Negative steps and empty ranges (EXEC-create-arange-1) included."""
    dtype_arg = "" if dtype is None else f', dtype="{dtype}"'
    text = module('x: R.Tensor(("n",), "float32")',
                  f"y = R.arange({_prim(start)}, {_prim(end, 'int32')}, {_prim(step)}"
                  f"{dtype_arg})")
    check_lowered(text, "relax.arange")


@_SETTINGS
@given(st.sampled_from([0.5, -1.25, 3.2, 0.1]), st.sampled_from([2.0, -4.5, 7.3]),
       st.sampled_from([0.3, -0.7, 1.5]), st.sampled_from(["float32", "float16", "int32"]))
def test_arange_lowers_with_float_operands(start, end, step, dtype):
    """Element ``i`` is ``start + step * i`` rounded in the result dtype, the length
    from the operands' float32 values."""
    text = module('x: R.Tensor(("n",), "float32")',
                  f"y = R.arange({_prim(start, 'float32')}, {_prim(end, 'float32')}, "
                  f"{_prim(step, 'float32')}, dtype=\"{dtype}\")")
    check_lowered(text, "relax.arange")


def test_r_prim_operands_that_may_be_negative():
    """TE-leg-create-1: ``R.prim_value(k)`` of a prim parameter may be negative; it
    reaches the PrimFunc as a scalar argument, and tril's formula is exact for any value
    (check_pass tries k at 1, 0, 2, 3; tril is run at -2 too). arange(0, k) stays: its
    deduced length ``k`` assumed k >= 0 (SYM-assume-1), where the op's is max(k, 0);
    arange(0, n) of a size lowers."""
    text = module('x: R.Tensor(("n", 2), "float32"), p: R.Prim(value="k")',
                  "a = R.arange(R.prim_value(0), R.prim_value(k), R.prim_value(1))\n"
                  "b = R.tril(x, R.prim_value(k))\n"
                  "c = R.triu(x, R.prim_value(n))\n"
                  "d = R.arange(R.prim_value(0), R.prim_value(n), R.prim_value(2))\n"
                  "y = (a, b, c, d)")
    out = check_lowered(text, "relax.tril")
    script = out.script()
    assert script.count("R.arange(") == 1 and "R.triu" not in script, script
    text = module('x: R.Tensor(("n", 2), "float32"), p: R.Prim(value="k")',
                  "y = R.tril(x, R.prim_value(k))")
    x = np.arange(6, dtype="float32").reshape(3, 2)
    out = check_lowered(text, "relax.tril")
    np.testing.assert_array_equal(relax_ref.run(out, x, -2), np.tril(x, -2))


def test_values_as_numpy():
    text = module('x: R.Tensor((3, 4), "float32")',
                  "a = R.arange(R.prim_value(10), R.prim_value(0), R.prim_value(-3))\n"
                  'b = R.eye(R.prim_value(2), R.prim_value(3), R.prim_value(1), "int32")\n'
                  "c = R.triu(x, R.prim_value(-1))\n"
                  'd = R.full(R.shape([2]), R.const(-2.7, "float32"), "int8")\n'
                  "y = (a, b, c, d)")
    x = np.arange(12, dtype="float32").reshape(3, 4)
    a, b, c, d = relax_ref.run(legalize_ops(relax_ref.check(relax_ref.from_source(text))), x)
    np.testing.assert_array_equal(a, [10, 7, 4, 1])
    np.testing.assert_array_equal(b, np.eye(2, 3, 1, dtype="int32"))
    np.testing.assert_array_equal(c, np.triu(x, -1))
    np.testing.assert_array_equal(d, [-2, -2])
