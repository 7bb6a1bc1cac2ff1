"""The Z3 translation means what ``evaluate_int`` means (SYM-z3-1)."""
from __future__ import annotations

import os

import pytest
import z3
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from relax_ref.ir.dtype import BOOL, INT32, INT64, parse_dtype
from relax_ref.ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Call, Cast, Div, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Or, Select, Sub, Var,
)
from relax_ref.solver.evaluate import EvaluationError, evaluate_int
from relax_ref.solver.z3_bridge import Z3Translator, prove

SETTINGS = settings(max_examples=int(os.environ.get("RELAX_REF_EXAMPLES", 200)),
                    deadline=None, suppress_health_check=[HealthCheck.too_slow])
X, Y = Var("x"), Var("y")
B = Var("b", BOOL)
F32 = parse_dtype("float32")


def c(v: int, dtype=INT64) -> IntImm:
    return IntImm(v, dtype)


_leaves = st.one_of(st.sampled_from([X, Y]), st.integers(-9, 9).map(c))
_OPS = [Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max]
_CMPS = [EQ, NE, LT, LE, GT, GE]


def _extend(inner):
    binary = st.builds(lambda op, a, b: op(a, b, INT64), st.sampled_from(_OPS), inner, inner)
    select = st.builds(lambda op, a, b, t, f: Select(op(a, b, BOOL), t, f, INT64),
                       st.sampled_from(_CMPS), inner, inner, inner, inner)
    cast = st.builds(lambda d, a: Cast(INT64, Cast(parse_dtype(d), a)),
                     st.sampled_from(["int8", "uint8", "int16", "uint32", "int32"]), inner)
    return st.one_of(binary, binary, select, cast)


int_exprs = st.recursive(_leaves, _extend, max_leaves=10)


def z3_value(term, env):
    pairs = [(z3.Int(v.name), z3.IntVal(val)) for v, val in env.items()]
    out = z3.simplify(z3.substitute(term, *pairs))
    assert z3.is_int_value(out), out
    return out.as_long()


@SETTINGS
@given(int_exprs, st.integers(-30, 30), st.integers(-30, 30))
def test_translation_agrees_with_evaluation(e, xv, yv):
    env = {X: xv, Y: yv}
    try:
        expected = evaluate_int(e, env)
    except EvaluationError:
        assume(False)
    assert z3_value(Z3Translator().to_int(e), env) == expected


@pytest.mark.parametrize("op", [FloorDiv, FloorMod, Div, Mod])
@pytest.mark.parametrize("a", [-7, -6, 0, 6, 7])
@pytest.mark.parametrize("b", [-3, -2, 2, 3])
def test_division_semantics_for_every_sign(op, a, b):
    # Symbolic operands force the If-terms; constant ones the shortcuts.
    e = op(X, Y, INT64)
    assert z3_value(Z3Translator().to_int(e), {X: a, Y: b}) == evaluate_int(e, {X: a, Y: b})
    k = op(X, c(b), INT64)
    assert z3_value(Z3Translator().to_int(k), {X: a}) == evaluate_int(k, {X: a})


def test_division_by_zero_is_not_given_a_value():
    t = Z3Translator()
    goal = t.to_bool(EQ(FloorDiv(X, c(0), INT64), c(0), BOOL))
    assert prove(goal, []).status != "proved"
    goal = t.to_bool(EQ(FloorMod(X, Y, INT64), X, BOOL))
    assert prove(goal, [t.var(Y) == 0]).status != "proved"


def test_casts_wrap_or_keep():
    t = Z3Translator()
    narrow = Cast(INT64, Cast(parse_dtype("int8"), X))
    assert z3_value(t.to_int(narrow), {X: 200}) == -56
    assert z3_value(t.to_int(Cast(INT64, Cast(parse_dtype("uint8"), X))), {X: -1}) == 255
    i = Var("i", INT32)
    widened = t.to_int(Cast(INT64, i))
    assert z3.eq(z3.simplify(widened), t.var(i))          # SYM-cast-1: identity


def test_booleans_and_logic():
    t = Z3Translator()
    e = And(Or(LT(X, Y, BOOL), B, BOOL), Not(EQ(X, Y, BOOL), BOOL), BOOL)
    assert z3.is_bool(t.translate(e))
    assert prove(t.to_bool(Or(B, Not(B, BOOL), BOOL)), []).status == "proved"
    assert z3_value(t.to_int(Cast(INT64, LT(X, Y, BOOL))), {X: 1, Y: 2}) == 1


def test_opaque_terms_are_shared_by_structure():
    t = Z3Translator()
    f1 = Cast(INT64, Call("tir.exp", (Cast(F32, X),), F32))
    f2 = Cast(INT64, Call("tir.exp", (Cast(F32, X),), F32))     # a different object
    assert prove(t.to_bool(EQ(f1, f2, BOOL)), []).status == "proved"
    g = Cast(INT64, Call("tir.exp", (Cast(F32, Y),), F32))
    assert prove(t.to_bool(EQ(f1, g, BOOL)), []).status != "proved"


def test_known_intrinsics():
    t = Z3Translator()
    shl = Call("tir.shift_left", (X, c(3)), INT64)
    shr = Call("tir.shift_right", (X, c(2)), INT64)
    ite = Call("tir.if_then_else", (LT(X, c(0), BOOL), c(0), X), INT64)
    for v in (-9, 0, 13):
        for e in (shl, shr, ite):
            assert z3_value(t.to_int(e), {X: v}) == evaluate_int(e, {X: v})


def test_let_binds_its_variable():
    n = Var("n")
    e = Let(n, X + 1, n * n, INT64)
    assert z3_value(Z3Translator().to_int(e), {X: 4}) == 25


def test_timeout_means_unknown_not_proved():
    # With a 1 ms limit Z3 may give up on a true fact, but never "proves" a false one.
    t = Z3Translator()
    goal = t.to_bool(GE(X * X, c(0), BOOL))
    assert prove(goal, [], timeout_ms=1).status in ("unknown", "proved")
    false_goal = t.to_bool(LT(X * X, c(0), BOOL))
    assert prove(false_goal, [], timeout_ms=1).status != "proved"
