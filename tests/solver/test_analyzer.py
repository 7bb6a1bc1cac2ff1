"""The Analyzer: proofs under assumptions, never unsound (SYM-prove-*, SYM-assume-*)."""
from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, And, Div, FloorDiv, FloorMod, IntImm, Max, Min, Mod, Not, Or,
    Var,
)
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.evaluate import EvaluationError, evaluate_int
from relax_ref.solver.simplify import expr_text

SETTINGS = settings(max_examples=int(os.environ.get("RELAX_REF_EXAMPLES", 200)),
                    deadline=None, suppress_health_check=[HealthCheck.too_slow])

n, m, a, b, k = Var("n"), Var("m"), Var("a"), Var("b"), Var("k")


def c(v: int) -> IntImm:
    return IntImm(v, INT64)


def eq(x, y):
    return EQ(x, y if not isinstance(y, int) else c(y), BOOL)


def le(x, y):
    return LE(x if not isinstance(x, int) else c(x), y if not isinstance(y, int) else c(y), BOOL)


def ge(x, y):
    return GE(x, y if not isinstance(y, int) else c(y), BOOL)


# ---------------------------------------------------------------------------
# Facts TVM's analyzer cannot prove, and that ours must
# ---------------------------------------------------------------------------

def test_commuted_product():
    assert Analyzer().prove_equal(n * m, m * n)


def test_exact_division_by_a_positive_variable():
    an = Analyzer()
    with an.assuming(ge(m, 1)):
        assert an.prove_equal((n * m) // m, n)
    # Without m >= 1, m may be 0 and the division has no value: not provable.
    assert not an.prove_equal((n * m) // m, n)


def test_square_of_a_sum():
    assert Analyzer().prove_equal((a + b) * (a + b), a * a + 2 * a * b + b * b)


def test_even_after_halving_a_multiple_of_four():
    assert Analyzer().can_prove(eq((n * 4) // 2 % 2, 0))


def test_product_bound_from_upper_bounds():
    an = Analyzer()
    an.add_upper_bound(n, 1024)            # tir_var_upper_bound = {"n": 1024, "m": 4096}
    an.add_upper_bound(m, 4096)
    assert an.can_prove(le(n * m, 1024 * 4096))
    assert not an.can_prove(le(n * m, 1024 * 4096 - 1))
    assert an.upper_bound(n * m) == 1024 * 4096
    assert an.const_bounds(n * m * 2 + 8) == (8, 2 * 1024 * 4096 + 8)


def test_padding_covers_the_size():
    assert Analyzer().can_prove(ge(FloorDiv(n + 3, c(4), INT64) * 4, n))


def test_split_halves_add_up():
    half = (m + 1) // 2
    assert Analyzer().prove_equal(half + (m - half), m)


# ---------------------------------------------------------------------------
# False facts are never proved
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cond", [
    eq(n // m * m, n),                      # needs divisibility
    ge(n - 1, 0),                           # n = 0 is a shape
    eq(n, m),
    le(n * m, 1000),
    eq((n + 1) // 2 * 2, n + 1),
    LT(n, n, BOOL),
    eq(n % 4, n),
    eq(Div(n - 5, c(2), INT64), FloorDiv(n - 5, c(2), INT64)),   # trunc vs floor
])
def test_false_facts_are_not_proved(cond):
    assert not Analyzer().can_prove(cond), expr_text(cond)


def test_negative_values_when_variables_may_be_negative():
    an = Analyzer(shape_vars_nonneg=False)
    assert not an.can_prove(ge(n, 0))
    assert not an.can_prove(eq(Div(n, c(2), INT64), FloorDiv(n, c(2), INT64)))
    assert Analyzer().can_prove(eq(Div(n, c(2), INT64), FloorDiv(n, c(2), INT64)))


# ---------------------------------------------------------------------------
# Assumptions
# ---------------------------------------------------------------------------

def test_equalities_rewrite():
    an = Analyzer()
    an.add_equal(k, n * m)
    assert an.prove_equal(k * 2, m * n * 2)
    assert expr_text(an.simplify(k - n * m + 1)) == "1"


def test_divisibility():
    an = Analyzer()
    an.add_divisible(n, 8)
    assert an.prove_equal(n // 8 * 8, n)
    assert an.is_divisible(n * m, 8)
    assert an.is_divisible(n + 16, 4)
    assert not an.is_divisible(n + 4, 8)
    assert not Analyzer().is_divisible(n, 8)


def test_scoped_facts_are_dropped_after_the_block():
    an = Analyzer()
    with an.assuming(le(n, 4), ge(n, 4)):
        assert an.prove_equal(n, 4)
        assert an.facts
    assert not an.prove_equal(n, 4)
    assert not an.facts


def test_bounds_of_eliminated_variables_are_kept():
    an = Analyzer()
    an.add_upper_bound(k, 10)
    an.add_equal(k, n + 1)                  # k is rewritten to n + 1
    assert an.can_prove(le(n, 9))
    assert an.upper_bound(n) == 9


def test_linear_facts_combine_without_z3():
    an = Analyzer()
    an.add_fact(le(n, m))                   # kept whole: SYM-bound-3 (c)
    an.add_fact(le(m, 10))
    assert an.can_prove(le(n, 10))
    assert an.stats.by_z3 == 0
    assert an.upper_bound(n) == 10          # via Z3's optimizer, confirmed by a proof
    assert an.stats.bound_z3_calls == 1


def test_nonlinear_fact_needs_z3():
    an = Analyzer()
    an.add_fact(le(n * n, 100))
    assert an.can_prove(le(n, 10))
    assert an.stats.by_z3 == 1 and an.stats.z3_proved == 1
    assert not an.can_prove(le(n, 9))


def test_cache_is_keyed_by_structure_and_assumptions():
    an = Analyzer()
    assert not an.can_prove(le(n, 3))
    assert not an.can_prove(le(n, 3))       # a structurally equal, new object
    assert an.stats.cache_hits == 1
    with an.assuming(le(n, 3)):
        assert an.can_prove(le(n, 3))
    assert not an.can_prove(le(n, 3))


def test_statistics_account_for_every_query():
    an = Analyzer()
    an.prove_equal(n * 4, 4 * n)
    an.can_prove(ge(n, 0))
    an.can_prove(eq(n, m))
    s = an.stats
    answered = s.by_simplifier + s.by_intervals + s.by_sampling + s.by_z3 + s.cache_hits
    assert s.queries == answered == 3
    assert "answered without Z3" in str(s)


def test_z3_unknown_means_not_proved():
    # A true but hard nonlinear fact under a 1 ms limit: False is the only sound answer
    # when Z3 gives up, and a True answer must still be a proof.
    an = Analyzer(timeout_ms=1)
    an.add_fact(eq(a * a * a + b * b * b, k * k * k))
    an.can_prove(NE(k, c(1), BOOL))         # whatever it answers, no exception
    assert not an.can_prove(eq(a, b + 1))


# ---------------------------------------------------------------------------
# Property: every True answer is confirmed by brute force
# ---------------------------------------------------------------------------

DOMAIN = range(0, 13)
_leaves = st.one_of(st.sampled_from([n, m]), st.integers(-4, 6).map(c))
_OPS = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
        lambda x, y: FloorDiv(x, y, INT64), lambda x, y: FloorMod(x, y, INT64),
        lambda x, y: Div(x, y, INT64), lambda x, y: Mod(x, y, INT64),
        lambda x, y: Min(x, y, INT64), lambda x, y: Max(x, y, INT64)]


def _extend(inner):
    return st.builds(lambda op, x, y: op(x, y), st.sampled_from(_OPS), inner,
                     st.one_of(inner, st.integers(1, 8).map(c)))


int_exprs = st.recursive(_leaves, _extend, max_leaves=6)
_CMPS = [EQ, NE, LT, LE, GT, GE]
atoms = st.builds(lambda op, x, y: op(x, y, BOOL), st.sampled_from(_CMPS), int_exprs, int_exprs)
conditions = st.one_of(
    atoms, atoms,
    st.builds(lambda x, y: And(x, y, BOOL), atoms, atoms),
    st.builds(lambda x, y: Or(x, y, BOOL), atoms, atoms),
    st.builds(lambda x: Not(x, BOOL), atoms),
)
FACTS = [
    ("upper", n, 8), ("upper", m, 5), ("lower", m, 1), ("lower", n, 2),
    ("divisible", n, 2), ("divisible", m, 3), ("fact", le(n, m), None),
    ("equal", n, m), ("equal", n, m + 1), ("fact", le(n * m, 12), None),
    ("equal", n * m, 12), ("equal", n // 2, m), ("fact", eq(n % 3, 1), None),
    ("fact", Or(le(n, 2), ge(m, 4), BOOL), None), ("equal", n * 2, m * 3),
]


def _apply(an: Analyzer, fact) -> None:
    kind, e, v = fact
    if kind == "upper":
        an.add_upper_bound(e, v)
    elif kind == "lower":
        an.add_lower_bound(e, v)
    elif kind == "divisible":
        an.add_divisible(e, v)
    elif kind == "equal":
        an.add_equal(e, v)
    else:
        an.add_fact(e)


def _holds(e, env) -> bool | None:
    try:
        return bool(evaluate_int(e, env))
    except EvaluationError:
        return None


@SETTINGS
@given(conditions, st.lists(st.sampled_from(FACTS), max_size=3, unique=True))
def test_proved_conditions_hold_by_brute_force(cond, facts):
    an = Analyzer(timeout_ms=50)
    for f in facts:
        _apply(an, f)
    proved = an.can_prove(cond)
    for nv, mv in itertools.product(DOMAIN, DOMAIN):
        env = {n: nv, m: mv}
        if not all(_holds(f, env) for f in an.facts):
            continue
        if proved:
            # Where the condition has a value, it is true (SYM-prove-1, SYM-trap-1).
            assert _holds(cond, env) in (True, None), (expr_text(cond), env)


@SETTINGS
@given(int_exprs, st.lists(st.sampled_from(FACTS[:6]), max_size=3, unique=True))
def test_const_bounds_are_sound(e, facts):
    an = Analyzer(timeout_ms=50)
    for f in facts:
        _apply(an, f)
    lo, hi = an.const_bounds(e)
    for nv, mv in itertools.product(DOMAIN, DOMAIN):
        env = {n: nv, m: mv}
        if not all(_holds(f, env) for f in an.facts):
            continue
        try:
            v = evaluate_int(e, env)
        except EvaluationError:
            continue
        assert lo is None or lo <= v, (expr_text(e), env, lo)
        assert hi is None or v <= hi, (expr_text(e), env, hi)


@SETTINGS
@given(int_exprs, st.lists(st.sampled_from(FACTS), max_size=3, unique=True))
def test_simplify_under_assumptions_preserves_value(e, facts):
    an = Analyzer(timeout_ms=50)
    for f in facts:
        _apply(an, f)
    out = an.simplify(e)
    for nv, mv in itertools.product(DOMAIN, DOMAIN):
        env = {n: nv, m: mv}
        if not all(_holds(f, env) for f in an.facts):
            continue
        try:
            v = evaluate_int(e, env)
        except EvaluationError:
            continue
        assert evaluate_int(out, env) == v, (expr_text(e), expr_text(out), env)
