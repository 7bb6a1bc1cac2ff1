"""Lowering of the reductions (spec/ops/reduce.md TE-leg-reduce-1..5, EXEC-reduce-6): each
op, drawn with its dtype, axes and keepdims over symbolic shapes, keeps its results
through LegalizeOps, empty rows and NaNs included."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import tir
from relax_ref.passes.legalize_ops import legalize_ops

from .legalize_helpers import check_lowered, module

REDUCE = ["sum", "prod", "max", "min", "mean", "variance", "std"]
ARG = ["argmax", "argmin"]
_SHAPES = ['("n", 3)', '("n", "m")', '(2, "n", 3)', "(4,)", "(2, 0)", "()"]
_SETTINGS = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _ndim(shape: str) -> int:
    return shape.count(",") + (shape != "()") - shape.endswith(",)")


@st.composite
def _reduction(draw):
    op = draw(st.sampled_from(REDUCE + ARG))
    shape = draw(st.sampled_from(_SHAPES))
    ndim = _ndim(shape)
    dtypes = ["float32", "int32", "int8", "float16"] + (
        ["bool"] if op in ("sum", "prod", "max", "min", "argmax", "argmin") else [])
    dtype = draw(st.sampled_from(dtypes))
    keepdims = draw(st.booleans())
    if op in ARG:
        axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) if ndim else None
        attrs = f"axis={axis}, keepdims={keepdims}"
    else:
        axes = draw(st.one_of(st.none(), st.lists(st.integers(0, ndim - 1), unique=True,
                                                  max_size=ndim) if ndim else st.none()))
        if axes is not None:
            axes = [a - ndim if draw(st.booleans()) else a for a in axes]
        attrs = f"axis={axes}, keepdims={keepdims}"
    return op, shape, dtype, attrs


@_SETTINGS
@given(_reduction())
def test_reductions_lower(case):
    op, shape, dtype, attrs = case
    text = module(f'x: R.Tensor({shape}, "{dtype}")', f"y = R.{op}(x, {attrs})")
    check_lowered(text, f"relax.{op}")


def _both(text: str, *args):
    """The results (or trap kinds) of the module and of its lowering."""
    mod = relax_ref.check(relax_ref.from_source(text))
    out = []
    for m in (mod, legalize_ops(mod)):
        try:
            out.append(relax_ref.run(m, *args))
        except RuntimeCheckError as err:
            out.append(err.check)
    return out


_SPECIAL = np.array([[1.0, np.nan, 3.0, np.nan],
                     [-np.inf, -np.inf, -np.inf, -np.inf],
                     [2.0, 5.0, 5.0, -1.0],
                     [np.inf, 0.0, np.nan, np.inf]], dtype="float32")


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin", "sum", "mean", "std"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_nan_infinities_and_ties_as_numpy(op, axis):
    """EXEC-reduce-4/6: NaN propagates (and is the extreme of argmax/argmin); ties give
    the first index; a row of -inf maxes to the lowest finite value."""
    attr = f"axis={axis}" if op in ARG or axis is None else f"axis=[{axis}]"
    text = module('x: R.Tensor((4, 4), "float32")', f"y = R.{op}(x, {attr})")
    before, after = _both(text, _SPECIAL)
    np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_an_empty_row_traps_as_the_op_does(op):
    """EXEC-reduce-6: zero elements into a non-empty result: index_out_of_bounds on
    both sides; an empty result is fine."""
    attr = "axis=0" if op in ARG else "axis=[0]"
    for dtype in ("float32", "int32"):
        text = module(f'x: R.Tensor(("n", 2), "{dtype}")', f"y = R.{op}(x, {attr})")
        assert _both(text, np.zeros((0, 2), dtype)) == ["index_out_of_bounds"] * 2
        text = module(f'x: R.Tensor(("n", 0), "{dtype}")', f"y = R.{op}(x, {attr})")
        before, after = _both(text, np.zeros((0, 0), dtype))
        assert before.shape == after.shape == (0,)


def test_empty_sums_are_identities_and_integer_means_trap():
    """TE-leg-reduce-1: a fold never writes an empty row; the identity is chosen."""
    for op, want in (("sum", 0), ("prod", 1)):
        text = module('x: R.Tensor(("n", 2), "int32")', f"y = R.{op}(x, axis=[0])")
        before, after = _both(text, np.zeros((0, 2), "int32"))
        np.testing.assert_array_equal(before, [want, want])
        np.testing.assert_array_equal(after, [want, want])
    text = module('x: R.Tensor(("n", 2), "int32")', "y = R.mean(x, axis=[0])")
    assert _both(text, np.zeros((0, 2), "int32")) == ["division_by_zero"] * 2


def _blocks(func) -> list[str]:
    names: list[str] = []

    def walk(s) -> None:
        if isinstance(s, tir.SBlockRealize):
            names.append(s.block.name)
            walk(s.block.body)
        elif isinstance(s, tir.For):
            walk(s.body)
        elif isinstance(s, tir.SeqStmt):
            for x in s.seq:
                walk(x)
    walk(func.body.block.body if isinstance(func.body, tir.SBlockRealize) else func.body)
    return names


def test_static_rows_lower_to_tvms_single_block():
    """A sum, or an integer max over rows that cannot be empty, is one fold named as
    TVM's (``x_red``); a float max adds its NaN fold and the choice."""
    mod = relax_ref.check(relax_ref.from_source(module(
        'x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("n", 4), "int32")',
        "a = R.sum(x, axis=[1])\nb = R.max(i, axis=[1])\nc = R.max(x, axis=[1])\n"
        "y = (a, b, c)")))
    out = legalize_ops(mod)
    assert _blocks(out.functions["sum"]) == ["x_red"]
    assert _blocks(out.functions["max"]) == ["i_red"]
    assert sorted(_blocks(out.functions["max1"])) == ["x_red", "x_red_isnan", "x_red_temp"]

