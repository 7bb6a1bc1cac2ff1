"""The canonical simplifier (spec/struct_info.md, "Symbolic expressions").

The property tests are the main check: for random integer expressions and random
assignments, ``simplify(e)`` has the value of ``e`` wherever ``e`` has one (SYM-trap-1),
with ``evaluate_int`` as the definition of TIR integer semantics.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from relax_ref.ir.dtype import BOOL, INT32, INT64, parse_dtype
from relax_ref.ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Cast, Div, FloorDiv, FloorMod, IntImm, Let, Max,
    Min, Mod, Mul, Not, Or, Select, Sub, Var,
)
from relax_ref.solver.evaluate import EvaluationError, evaluate_int
from relax_ref.solver.simplify import (
    canonical_equal, canonical_poly, expr_text, simplify, structural_key,
)

X, Y, Z = Var("x"), Var("y"), Var("z")
S = Var("s", size_var=True)
VARS = [X, Y, Z, S]
# RELAX_REF_EXAMPLES=20000 runs a longer search.
SETTINGS = settings(max_examples=int(os.environ.get("RELAX_REF_EXAMPLES", 200)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def c(v: int, dtype=INT64) -> IntImm:
    return IntImm(v, dtype)


def text(e) -> str:
    return expr_text(simplify(e))


# ---------------------------------------------------------------------------
# Random expressions
# ---------------------------------------------------------------------------

_leaves = st.one_of(st.sampled_from(VARS), st.integers(-9, 9).map(c))
_divisors = st.one_of(st.integers(-9, 9).map(c), _leaves)
_ARITH = [Add, Sub, Mul, Min, Max]
_DIVS = [FloorDiv, FloorMod, Div, Mod]
_CMPS = [EQ, NE, LT, LE, GT, GE]


def _extend(inner):
    arith = st.builds(lambda op, a, b: op(a, b, INT64), st.sampled_from(_ARITH), inner, inner)
    div = st.builds(lambda op, a, b: op(a, b, INT64), st.sampled_from(_DIVS), inner,
                    st.one_of(_divisors, inner))
    cond = st.builds(lambda op, a, b: op(a, b, BOOL), st.sampled_from(_CMPS), inner, inner)
    select = st.builds(lambda cnd, a, b: Select(cnd, a, b, INT64), cond, inner, inner)
    cast = st.builds(lambda d, a: Cast(INT64, Cast(parse_dtype(d), a)),
                     st.sampled_from(["int8", "uint8", "int32", "int64"]), inner)
    return st.one_of(arith, arith, div, div, select, cast)


int_exprs = st.recursive(_leaves, _extend, max_leaves=12)


def _bool_extend(inner):
    return st.one_of(
        st.builds(lambda a, b: And(a, b, BOOL), inner, inner),
        st.builds(lambda a, b: Or(a, b, BOOL), inner, inner),
        st.builds(lambda a: Not(a, BOOL), inner),
    )


bool_exprs = st.recursive(
    st.builds(lambda op, a, b: op(a, b, BOOL), st.sampled_from(_CMPS), int_exprs, int_exprs),
    _bool_extend, max_leaves=4)

assignments = st.fixed_dictionaries({
    X: st.integers(-20, 20), Y: st.integers(-20, 20), Z: st.integers(-20, 20),
    S: st.integers(0, 20),
})
nonneg_assignments = st.fixed_dictionaries({v: st.integers(0, 40) for v in VARS})


def value_or_trap(e, env):
    try:
        return evaluate_int(e, env)
    except EvaluationError:
        return None


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

@SETTINGS
@given(int_exprs, assignments)
def test_simplify_preserves_integer_value(e, env):
    before = value_or_trap(e, env)
    assume(before is not None)
    after = simplify(e)
    assert after.dtype == e.dtype
    assert evaluate_int(after, env) == before, (expr_text(e), expr_text(after))


@SETTINGS
@given(int_exprs, nonneg_assignments)
def test_simplify_preserves_value_on_nonneg_assignments(e, env):
    before = value_or_trap(e, env)
    assume(before is not None)
    assert evaluate_int(simplify(e), env) == before


@SETTINGS
@given(bool_exprs, assignments)
def test_simplify_preserves_boolean_value(e, env):
    before = value_or_trap(e, env)
    assume(before is not None)
    after = simplify(e)
    assert after.dtype == BOOL
    assert evaluate_int(after, env) == before, (expr_text(e), expr_text(after))


@SETTINGS
@given(int_exprs)
def test_simplify_is_idempotent_up_to_canonical_form(e):
    once = simplify(e)
    assert canonical_equal(once, e)
    assert structural_key(simplify(once)) == structural_key(once), expr_text(once)


@SETTINGS
@given(int_exprs, int_exprs, assignments)
def test_canonical_equal_implies_equal_values(a, b, env):
    if canonical_equal(a, b):
        va, vb = value_or_trap(a, env), value_or_trap(b, env)
        if va is not None and vb is not None:
            assert va == vb


# ---------------------------------------------------------------------------
# Examples: the identities TVM users rely on
# ---------------------------------------------------------------------------

n, m, x, y = Var("n"), Var("m"), Var("x"), Var("y")


@pytest.mark.parametrize("expr, expected", [
    ((x * 4) // 4, "x"),                                   # SYM-floordiv-3
    ((x * 4) % 4, "0"),                                    # SYM-floormod-1
    ((x * 8 + y * 4) // 4, "(x * 2) + y"),
    ((x * 8 + y * 4 + 3) // 8, "x + (y // 2)"),            # SYM-floordiv-4
    ((x // 4) // 8, "x // 32"),                            # SYM-floordiv-5
    ((x % 8) % 4, "x % 4"),
    (x // 4 * 4 + x % 4, "x"),
    ((n * 4) // 2 % 2, "0"),
    ((x + 5) // 4, "(x + 5) // 4"),
    (Div(x * 4 + 8, c(4), INT64), "x + 2"),                # SYM-trunc-1
    (Mod(x * 6, c(3), INT64), "0"),
    (Min(x + 1, x, INT64), "x"),                           # SYM-minmax-2
    (Max(Max(x, c(3), INT64), c(5), INT64), "max(x, 5)"),  # SYM-minmax-1
    (((x + y) * (x + y)) - x * x - 2 * x * y - y * y, "0"),
    (Select(LT(x, x + 1, BOOL), x, y, INT64), "x"),
    (Cast(INT64, Cast(INT32, c(2**31 + 5))), str(-(2**31) + 5)),   # SYM-cast-2
    (Let(n, x + 1, n * 2, INT64), "(x * 2) + 2"),
])
def test_integer_identities(expr, expected):
    assert text(expr) == expected


@pytest.mark.parametrize("expr, expected", [
    (EQ(n * 4, 4 * n, BOOL), "True"),
    (LT(x - x, c(1), BOOL), "True"),
    (LT(c(3), c(2), BOOL), "False"),
    (LE(n - 1, n, BOOL), "True"),
    (EQ(2 * n, 2 * m + 1, BOOL), "False"),                 # SYM-cmp-3 parity
    (GE(x * 2, c(7), BOOL), "x >= 4"),                     # SYM-cmp-2
    (LT(x, y, BOOL), "x <= (y - 1)"),
    (Not(LT(x, y, BOOL), BOOL), "y <= x"),
    (And(LT(x, y, BOOL), GE(x, y, BOOL), BOOL), "False"),
    (Or(LT(x, y, BOOL), GE(x, y, BOOL), BOOL), "True"),
    (And(LE(x, c(3), BOOL), LE(x, c(5), BOOL), BOOL), "x <= 3"),
])
def test_boolean_identities(expr, expected):
    assert text(expr) == expected


def test_division_by_zero_is_never_folded():
    # SYM-trap-1: floordiv(x, 0) has no value; it must stay a division.
    for op in (FloorDiv, FloorMod, Div, Mod):
        out = simplify(op(x, c(0), INT64))
        assert isinstance(out, op), expr_text(out)
        out = simplify(op(c(7), c(0), INT64))
        assert isinstance(out, op), expr_text(out)


def test_negative_divisors_follow_tir_semantics():
    env = {x: -7}
    for op in (FloorDiv, FloorMod, Div, Mod):
        for d in (-3, 3):
            e = op(x, c(d), INT64)
            assert evaluate_int(simplify(e), env) == evaluate_int(e, env)


def test_canonical_equal_is_not_fooled():
    assert canonical_equal(n * m, m * n)
    assert not canonical_equal(n // m * m, n)
    assert not canonical_equal(x // 2 * 2, x)
    assert canonical_equal(FloorDiv(x, c(0), INT64), FloorDiv(x, c(0), INT64))
    assert canonical_poly(x * 4 + 4) == canonical_poly(4 * (x + 1))


def test_variables_compare_by_identity():
    other_n = Var("n")
    assert not canonical_equal(n, other_n)
    assert text(n - other_n) in ("n - n", "n - n")     # two distinct variables named n


def test_size_var_is_nonnegative():
    s = Var("s", size_var=True)
    assert text(Div(s, c(4), INT64)) == "s // 4"           # SYM-trunc-2
    assert text(GE(s, c(0), BOOL)) == "True"


def test_dtype_is_preserved():
    i = Var("i", INT32)
    out = simplify(i * IntImm(4, INT32) // IntImm(4, INT32))
    assert out is i
    assert simplify(EQ(i, i, BOOL)).dtype == BOOL
