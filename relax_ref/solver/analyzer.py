"""The symbolic analyzer: proofs about PrimExprs under assumptions (spec/struct_info.md,
"Symbolic expressions", rules SYM-assume-*, SYM-prove-*, SYM-bound-*).

Every question goes through the same layers, cheapest first (DESIGN.md decision 5):

1. the context-free canonical form (simplify.py) -- ``n*4 == 4*n``;
2. the canonical form under the assumptions: equalities as rewrite rules, divisibility,
   and interval bounds -- ``n*m <= 1024*4096`` given ``n <= 1024, m <= 4096``;
3. evaluation at a few sample points that satisfy the assumptions, which can only
   *refute* (answer "cannot prove"), never prove;
4. Z3 with a time limit; "unknown" and timeouts mean "cannot prove".

A True answer is always a proof; False means "not proved" (SYM-prove-1, SYM-prove-2).
"""
from __future__ import annotations

import math
import random
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

import z3

from ..ir.dtype import BOOL
from ..ir.prim_expr import EQ, LE, NE, FloorMod, IntImm, PrimExpr, Var, as_prim, free_vars
from .evaluate import EvaluationError, evaluate_int
from .expr_utils import structural_key
from .polynomial import (
    UNBOUNDED, Atom, Form, Interval, Monomial, Poly, form_const, mono_divide, poly_to_expr,
    var_atom,
)
from .simplify import CONTEXT_FREE, Context, Simplifier
from .z3_bridge import DEFAULT_TIMEOUT_MS, Z3Translator, maximize, prove

_CACHE_LIMIT = 100_000


# ===========================================================================
# Statistics
# ===========================================================================

@dataclass
class AnalyzerStats:
    """Where answers came from. ``queries`` counts can_prove/prove_equal calls; each
    uncached query is answered by exactly one of the four layers."""

    queries: int = 0
    cache_hits: int = 0
    by_simplifier: int = 0
    by_intervals: int = 0
    by_sampling: int = 0
    by_z3: int = 0
    z3_proved: int = 0
    z3_refuted: int = 0
    z3_unknown: int = 0
    z3_time: float = 0.0
    bound_queries: int = 0
    bound_z3_calls: int = 0

    @property
    def answered_without_z3(self) -> float:
        """The fraction of queries answered without calling Z3 (cache hits included)."""
        return 1.0 if not self.queries else 1.0 - self.by_z3 / self.queries

    def __str__(self) -> str:
        rows = [
            ("queries", self.queries),
            ("  cache hits", self.cache_hits),
            ("  by simplifier", self.by_simplifier),
            ("  by assumptions+intervals", self.by_intervals),
            ("  refuted by sampling", self.by_sampling),
            ("  by Z3", self.by_z3),
            ("    proved", self.z3_proved),
            ("    refuted", self.z3_refuted),
            ("    unknown/timeout", self.z3_unknown),
            ("answered without Z3", f"{100 * self.answered_without_z3:.1f}%"),
            ("Z3 time", f"{1000 * self.z3_time:.1f} ms"),
            ("bound queries", self.bound_queries),
            ("  with Z3", self.bound_z3_calls),
        ]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


# ===========================================================================
# The assumption set (a Context for the simplifier)
# ===========================================================================

class _Assumptions(Context):
    """What the analyzer assumes. ``facts`` is the ground truth (every assumption as a
    boolean PrimExpr, given to Z3 and checked at sample points); ``bounds``, ``rules``
    and the divisor tables are derived from it for the cheap layers."""

    rewrites = True

    def __init__(self, shape_vars_nonneg: bool) -> None:
        self.shape_vars_nonneg = shape_vars_nonneg
        self.facts: list[PrimExpr] = []
        self.bounds: dict[Monomial, Interval] = {}
        self.rules: list[tuple[Monomial, Poly]] = []
        self.mono_divisors: dict[Monomial, int] = {}
        self.poly_divisors: dict[Poly, int] = {}
        self.le_facts: list[Poly] = []
        self._key: frozenset | None = None

    def copy(self) -> "_Assumptions":
        other = _Assumptions(self.shape_vars_nonneg)
        other.facts = list(self.facts)
        other.bounds = dict(self.bounds)
        other.rules = list(self.rules)
        other.mono_divisors = dict(self.mono_divisors)
        other.poly_divisors = dict(self.poly_divisors)
        other.le_facts = list(self.le_facts)
        other._key = self._key
        return other

    def key(self) -> frozenset:
        """The assumption set by content (part of every cache key)."""
        if self._key is None:
            self._key = frozenset([("nonneg", self.shape_vars_nonneg)]
                                  + [structural_key(f) for f in self.facts])
        return self._key

    def add_fact_expr(self, fact: PrimExpr) -> None:
        self.facts.append(fact)
        self._key = None

    # ---- Context hooks ----------------------------------------------------------

    def var_bounds(self, var: Var) -> Interval:
        lo, hi = super().var_bounds(var)
        if self.shape_vars_nonneg and var.dtype.is_integer:
            lo = max(lo, 0)                                      # SYM-assume-1
        return (lo, hi)

    def monomial_bounds(self, m: Monomial) -> Interval | None:
        return self.bounds.get(m)

    def nonpositive_facts(self) -> list[Poly]:
        return self.le_facts

    def rewrite(self, p: Poly) -> Poly:
        """Rewrite with the equalities (SYM-assume-3): each rule replaces a monomial by
        an equal polynomial. Bounded iterations keep it terminating whatever the rules."""
        if not self.rules:
            return p
        for _ in range(16):
            changed = False
            out: dict = {}
            for m, k in p.terms.items():
                replacement = None
                for lhs, rhs in self.rules:
                    rest = mono_divide(m, lhs) if m else None
                    if rest is not None:
                        replacement = rhs.times(Poly({rest: k}))
                        break
                if replacement is None:
                    replacement = Poly({m: k})
                else:
                    changed = True
                for rm, rk in replacement.terms.items():
                    s = out.get(rm, 0) + rk
                    if s:
                        out[rm] = s
                    else:
                        out.pop(rm, None)
            p = Poly(out)
            if not changed:
                break
        return p

    def is_divisible(self, p: Poly, c: int) -> bool:
        """SYM-assume-4: p is a multiple of c by registered divisibility facts."""
        known = self.poly_divisors.get(p)
        if known is not None and known % c == 0:
            return True
        if not self.mono_divisors or p.constant % c:
            return False
        for m, k in p.nonconst():
            if (abs(k) * self._mono_divisor(m)) % c:
                return False
        return True

    def _mono_divisor(self, m: Monomial) -> int:
        by_atoms = math.prod(self.mono_divisors.get((a,), 1) for a in m)
        return math.lcm(by_atoms, self.mono_divisors.get(m, 1))

    def eliminated_vars(self) -> list[tuple[Var, Poly]]:
        """Variables that a rule defines (``n -> rhs``), in rule order."""
        return [(lhs[0].args[0], rhs) for lhs, rhs in self.rules
                if len(lhs) == 1 and lhs[0].kind == Atom.VAR]


def _atom_mentions(atom: Atom, targets: set[Atom]) -> bool:
    """Whether any of ``targets`` occurs inside ``atom``'s operands (at any depth)."""
    stack = [atom]
    seen: set[int] = set()
    while stack:
        a = stack.pop()
        if id(a) in seen:
            continue
        seen.add(id(a))
        for arg in a.args:
            polys = arg if isinstance(arg, tuple) else (arg,)
            for p in polys:
                if isinstance(p, Poly):
                    for m in p.terms:
                        for inner in m:
                            if inner in targets:
                                return True
                            stack.append(inner)
    return False


# ===========================================================================
# The analyzer
# ===========================================================================

class Analyzer:
    """Proves facts about integer PrimExprs under assumptions.

    ``shape_vars_nonneg``: every integer Var is assumed >= 0 (shape variables are sizes;
    SYM-assume-1). ``timeout_ms``: the Z3 time limit per query. ``use_z3``: turn the
    last layer off (everything it would have decided becomes "cannot prove")."""

    def __init__(self, *, shape_vars_nonneg: bool = True,
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, use_z3: bool = True,
                 seed: int = 0) -> None:
        self._state = _Assumptions(shape_vars_nonneg)
        self.timeout_ms = timeout_ms
        self.use_z3 = use_z3
        self.stats = AnalyzerStats()
        self._translator = Z3Translator()
        self._cache: dict[tuple, object] = {}
        self._simplifiers: dict[frozenset, Simplifier] = {}
        self._fact_vars: dict[tuple, list[Var]] = {}
        self._rng = random.Random(seed)

    # ---- assumptions ------------------------------------------------------------

    @property
    def facts(self) -> tuple[PrimExpr, ...]:
        """Every assumption added so far (scoped ones included while in scope)."""
        return tuple(self._state.facts)

    def add_fact(self, cond: PrimExpr) -> None:
        """Assume a boolean PrimExpr (SYM-assume-2)."""
        if not (cond.dtype.is_bool and cond.dtype.lanes == 1):
            raise TypeError(f"a fact must be a boolean PrimExpr, got {cond.dtype}")
        form = self._context_simplifier().bool_form(cond)
        self._state.add_fact_expr(cond)
        self._absorb(form)
        self._simplifiers.pop(self._state.key(), None)

    def add_upper_bound(self, e: PrimExpr, ub: int) -> None:
        """Assume ``e <= ub`` (inclusive, as TVM's ``tir_var_upper_bound``)."""
        self.add_fact(LE(e, IntImm(int(ub), e.dtype), BOOL))

    def add_lower_bound(self, e: PrimExpr, lb: int) -> None:
        """Assume ``lb <= e``."""
        self.add_fact(LE(IntImm(int(lb), e.dtype), e, BOOL))

    def add_bounds(self, e: PrimExpr, lo: int | None = None, hi: int | None = None) -> None:
        if lo is not None:
            self.add_lower_bound(e, lo)
        if hi is not None:
            self.add_upper_bound(e, hi)

    def add_equal(self, a: PrimExpr | int, b: PrimExpr | int) -> None:
        """Assume ``a == b``."""
        a, b = _as_int_exprs(a, b)
        self.add_fact(EQ(a, b, BOOL))

    def add_divisible(self, e: PrimExpr, k: int) -> None:
        """Assume ``e`` is a multiple of the constant ``k`` (``floormod(e, k) == 0``)."""
        k = abs(int(k))
        if k == 0:
            raise ValueError("divisibility by 0 is not a fact")
        if k == 1:
            return
        self._state.add_fact_expr(EQ(FloorMod(e, IntImm(k, e.dtype), e.dtype),
                                     IntImm(0, e.dtype), BOOL))
        p = self._context_simplifier().poly(e)
        nonconst = p.nonconst()
        if len(p.terms) == 1 and nonconst:
            (m, coeff), = nonconst
            need = k // math.gcd(k, abs(coeff))
            self._state.mono_divisors[m] = math.lcm(self._state.mono_divisors.get(m, 1), need)
        elif not p.is_const():
            self._state.poly_divisors[p] = math.lcm(self._state.poly_divisors.get(p, 1), k)
        self._simplifiers.pop(self._state.key(), None)

    @contextmanager
    def assuming(self, *facts: PrimExpr) -> Iterator["Analyzer"]:
        """Facts that hold only inside the ``with`` block."""
        saved = self._state.copy()
        try:
            for f in facts:
                self.add_fact(f)
            yield self
        finally:
            self._state = saved

    def _absorb(self, form: Form) -> None:
        """Derive cheap-layer knowledge from a fact's canonical form."""
        tag = form[0]
        if tag == "and":
            for f in form[1]:
                self._absorb(f)
        elif tag == "le":
            self._absorb_bound(form[1])
        elif tag == "eq":
            self._absorb_equality(form[1])

    def _absorb_bound(self, p: Poly) -> None:
        """``k*M + c <= 0`` with a single monomial M bounds M (SYM-assume-2); other
        linear facts are kept whole for the relational step of the simplifier."""
        nonconst = p.nonconst()
        if len(nonconst) != 1:
            if p not in self._state.le_facts and len(self._state.le_facts) < 16:
                self._state.le_facts.append(p)      # used by SYM-bound-3 (c)
            return
        (m, k), c = nonconst[0], p.constant
        old = self._state.bounds.get(m, UNBOUNDED)
        if k > 0:
            new = (old[0], min(old[1], (-c) // k))          # M <= floor(-c / k)
        else:
            new = (max(old[0], -((-c) // -k)), old[1])       # M >= ceil(c / |k|)
        self._state.bounds[m] = new

    def _absorb_equality(self, p: Poly) -> None:
        """``p == 0`` becomes a rewrite rule ``M -> rhs`` for a monomial M of coefficient
        +-1 that occurs nowhere else in p (SYM-assume-3); variables are preferred, so
        that ``k == n*m`` rewrites k, not n*m."""
        terms = p.nonconst()
        candidates = []
        for m, k in terms:
            if abs(k) != 1:
                continue
            atoms = set(m)
            others = [m2 for m2, _ in terms if m2 != m]
            if any(mono_divide(m2, m) is not None for m2 in others):
                continue
            if any(_atom_mentions(a, atoms) for m2 in others for a in m2):
                continue
            if any(_atom_mentions(a, atoms) for a in m):
                continue
            is_var = len(m) == 1 and m[0].kind == Atom.VAR
            candidates.append(((is_var, mono_order_desc(m)), m, k))
        if not candidates:
            return
        _, lhs, k = max(candidates, key=lambda c: c[0])
        rhs = (Poly({lhs: k}) - p).scale(k)
        state = self._state
        # Keep rules reduced: no right-hand side mentions the new left-hand side.
        single = _Assumptions(state.shape_vars_nonneg)
        single.rules = [(lhs, rhs)]
        state.rules = [(l, single.rewrite(r)) for l, r in state.rules] + [(lhs, rhs)]
        state.le_facts = [single.rewrite(q) for q in state.le_facts]
        old_bounds = state.bounds.pop(lhs, None)
        divisor = state.mono_divisors.pop(lhs, None)
        self._simplifiers.pop(state.key(), None)
        if divisor is not None and not rhs.is_const():
            rhs_terms = rhs.nonconst()
            if len(rhs.terms) == 1:
                (m, coeff), = rhs_terms
                need = divisor // math.gcd(divisor, abs(coeff))
                state.mono_divisors[m] = math.lcm(state.mono_divisors.get(m, 1), need)
            else:
                state.poly_divisors[rhs] = math.lcm(state.poly_divisors.get(rhs, 1), divisor)
        if old_bounds is not None:
            # The bound on the eliminated monomial now bounds its replacement.
            simp = self._context_simplifier()
            lo, hi = old_bounds
            if not isinstance(hi, float):
                self._absorb(simp.le_form(rhs - Poly.const(hi)))
            if not isinstance(lo, float):
                self._absorb(simp.le_form(Poly.const(lo) - rhs))
            self._simplifiers.pop(state.key(), None)

    # ---- queries --------------------------------------------------------------

    def simplify(self, e: PrimExpr) -> PrimExpr:
        """The canonical form of ``e`` under the assumptions (same value wherever the
        assumptions hold and ``e`` is defined)."""
        try:
            return self._context_simplifier().simplify(e)
        except RecursionError:
            return e

    def prove_equal(self, a: PrimExpr | int, b: PrimExpr | int) -> bool:
        """True only if ``a == b`` holds wherever the assumptions hold."""
        a, b = _as_int_exprs(a, b)
        if a is b:
            self.stats.queries += 1
            self.stats.by_simplifier += 1
            return True
        return self.can_prove(EQ(a, b, BOOL))

    def prove_not_equal(self, a: PrimExpr | int, b: PrimExpr | int) -> bool:
        """True only if ``a != b`` holds wherever the assumptions hold (two constants
        are compared directly)."""
        a, b = _as_int_exprs(a, b)
        if isinstance(a, IntImm) and isinstance(b, IntImm):
            return a.value != b.value
        return self.can_prove(NE(a, b, BOOL))

    def is_divisible(self, e: PrimExpr, k: int) -> bool:
        """True only if ``e`` is provably a multiple of ``k``."""
        k = abs(int(k))
        if k == 0:
            return False
        return self.can_prove(EQ(FloorMod(e, IntImm(k, e.dtype), e.dtype),
                                 IntImm(0, e.dtype), BOOL))

    def can_prove(self, cond: PrimExpr) -> bool:
        """True only if ``cond`` holds for every assignment satisfying the assumptions
        (where it is defined, SYM-trap-1). False means "cannot prove"."""
        if not (cond.dtype.is_bool and cond.dtype.lanes == 1):
            raise TypeError(f"can_prove needs a boolean PrimExpr, got {cond.dtype}")
        self.stats.queries += 1
        key = ("prove", structural_key(cond), self._state.key())
        hit = self._cache.get(key)
        if hit is not None:
            self.stats.cache_hits += 1
            return hit
        try:
            result = self._prove(cond)
        except RecursionError:
            result = False  # too deep to reason about: "cannot prove" (SYM-prove-2)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = result
        return result

    def _prove(self, cond: PrimExpr) -> bool:
        decided = form_const(CONTEXT_FREE.bool_form(cond))               # layer 1
        if decided is not None:
            self.stats.by_simplifier += 1
            return decided
        decided = form_const(self._context_simplifier().bool_form(cond))  # layer 2
        if decided is not None:
            self.stats.by_intervals += 1
            return decided
        facts = self._relevant_facts(cond)
        if self._refuted_by_sampling(cond, facts):                        # layer 3
            self.stats.by_sampling += 1
            return False
        self.stats.by_z3 += 1                                             # layer 4
        if not self.use_z3:
            self.stats.z3_unknown += 1
            return False
        goal = self._translator.to_bool(cond)
        result = prove(goal, self._z3_assumptions(cond, facts), self.timeout_ms)
        self.stats.z3_time += result.seconds
        if result.status == "proved":
            self.stats.z3_proved += 1
            return True
        if result.status == "refuted":
            self.stats.z3_refuted += 1
        else:
            self.stats.z3_unknown += 1
        return False

    # ---- bounds ---------------------------------------------------------------

    def const_bounds(self, e: PrimExpr, *, tighten: bool = False) -> tuple[int | None, int | None]:
        """Sound constant bounds ``(lo, hi)`` of an integer expression under the
        assumptions; None where no bound was found (SYM-bound-1, SYM-bound-2).

        Interval arithmetic first; Z3 only for a side the intervals leave unbounded, or
        for both sides with ``tighten=True``. Every Z3 bound is confirmed by a proof."""
        if not (e.dtype.is_integer and e.dtype.lanes == 1):
            raise TypeError(f"const_bounds needs an integer PrimExpr, got {e.dtype}")
        self.stats.bound_queries += 1
        key = ("bounds", structural_key(e), self._state.key(), tighten)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        simp = self._context_simplifier()
        lo, hi = simp.interval(simp.poly(e))
        lo_opt = None if isinstance(lo, float) else lo
        hi_opt = None if isinstance(hi, float) else hi
        if self.use_z3 and lo_opt != hi_opt:
            if hi_opt is None or tighten:
                hi_opt = self._z3_extreme(e, +1, hi_opt)
            if lo_opt is None or tighten:
                neg = self._z3_extreme(e, -1, None if lo_opt is None else -lo_opt)
                lo_opt = None if neg is None else -neg
        result = (lo_opt, hi_opt)
        self._cache[key] = result
        return result

    def upper_bound(self, e: PrimExpr, *, tighten: bool = False) -> int | None:
        """A constant ``ub`` with ``e <= ub`` provable, or None."""
        return self.const_bounds(e, tighten=tighten)[1]

    def lower_bound(self, e: PrimExpr, *, tighten: bool = False) -> int | None:
        return self.const_bounds(e, tighten=tighten)[0]

    def _z3_extreme(self, e: PrimExpr, sign: int, known: int | None) -> int | None:
        """The maximum of ``sign * e`` via Z3's optimizer, confirmed by a proof; falls
        back to ``known`` (a bound already proved) when Z3 finds nothing better."""
        self.stats.bound_z3_calls += 1
        facts = self._relevant_facts(e)
        assumptions = self._z3_assumptions(e, facts)
        term = self._translator.to_int(e)
        term = term if sign > 0 else -term
        candidate, seconds = maximize(term, assumptions, self.timeout_ms)
        self.stats.z3_time += seconds
        if candidate is None or (known is not None and candidate >= known):
            return known
        check = prove(term <= candidate, assumptions, self.timeout_ms)
        self.stats.z3_time += check.seconds
        return candidate if check.status == "proved" else known

    # ---- internals --------------------------------------------------------------

    def _context_simplifier(self) -> Simplifier:
        key = self._state.key()
        simp = self._simplifiers.get(key)
        if simp is None:
            if len(self._simplifiers) >= 16:
                self._simplifiers.clear()
            simp = Simplifier(self._state.copy())
            self._simplifiers[key] = simp
        return simp

    def _vars_of(self, e: PrimExpr) -> list[Var]:
        key = structural_key(e)
        vs = self._fact_vars.get(key)
        if vs is None:
            vs = free_vars(e)
            if len(self._fact_vars) >= _CACHE_LIMIT:
                self._fact_vars.clear()
            self._fact_vars[key] = vs
        return vs

    def _relevant_facts(self, e: PrimExpr) -> list[PrimExpr]:
        """The facts connected to ``e`` through shared variables. Dropping the others
        only weakens the assumptions, so it cannot make a proof unsound."""
        live = set(self._vars_of(e))
        pending = list(self._state.facts)
        chosen: list[PrimExpr] = []
        changed = True
        while changed:
            changed = False
            rest = []
            for f in pending:
                vs = self._vars_of(f)
                if not vs or live.intersection(vs):
                    chosen.append(f)
                    live.update(vs)
                    changed = True
                else:
                    rest.append(f)
            pending = rest
        return chosen

    def _z3_assumptions(self, e: PrimExpr, facts: Sequence[PrimExpr]) -> list[z3.BoolRef]:
        """The facts, plus SYM-assume-1 for every integer variable involved."""
        out = [self._translator.to_bool(f) for f in facts]
        seen: set[Var] = set()
        for x in (e, *facts):
            for v in self._vars_of(x):
                if v in seen or not v.dtype.is_integer:
                    continue
                seen.add(v)
                if v.dtype.is_uint or v.size_var or self._state.shape_vars_nonneg:
                    out.append(self._translator.var(v) >= 0)
        return out

    # Sample values tried for each variable: the ends of its range and small sizes.
    _SAMPLE_VALUES = (0, 1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 100, 1024)

    def _refuted_by_sampling(self, cond: PrimExpr, facts: Sequence[PrimExpr],
                             points: int = 48) -> bool:
        """Whether some assignment satisfying every relevant fact makes ``cond`` false
        (SYM-prove-3). Only ever used to answer "cannot prove"."""
        eliminated = dict(self._state.eliminated_vars())
        simp = self._context_simplifier()
        variables: list[Var] = []
        seen: set[Var] = set()
        for e in (cond, *facts):
            for v in self._vars_of(e):
                if v not in seen:
                    seen.add(v)
                    variables.append(v)
        definitions = []
        for v, rhs in eliminated.items():
            if v in seen:
                rhs_expr = poly_to_expr(rhs, v.dtype)
                definitions.append((v, rhs_expr))
                for w in free_vars(rhs_expr):
                    if w not in seen:
                        seen.add(w)
                        variables.append(w)
        free = [v for v in variables if v not in eliminated]
        choices = {v: self._sample_choices(v, simp) for v in free}
        for env in self._sample_points(free, choices, points):
            try:
                for v, rhs_expr in definitions:
                    env[v] = evaluate_int(rhs_expr, env)
                if not all(evaluate_int(f, env) for f in facts):
                    continue
                if not self._defaults_hold(env):
                    continue
                if not evaluate_int(cond, env):
                    return True
            except EvaluationError:
                continue
        return False

    def _sample_points(self, free: list[Var], choices: dict[Var, list],
                       count: int) -> Iterator[dict[Var, int | bool]]:
        """Assignments to try, most telling first: every variable at its largest values
        (where upper bounds are tight); one variable large (or middling) and the others
        at their smallest positive or smallest values (where sizes compare differently); all variables at the same small index (equal
        dimensions); then random picks."""
        def small(v: Var):
            positive = [x for x in choices[v] if x is True or x > 0]
            return positive[0] if positive else choices[v][0]

        def at(index: int) -> dict:
            return {v: choices[v][min(index, len(choices[v]) - 1)] for v in free}

        produced = 0
        for rank in (1, 2):
            yield {v: choices[v][-min(rank, len(choices[v]))] for v in free}
            produced += 1
        for low in (small, lambda v: choices[v][0]):
            for pick in (-1, None):          # the largest value, then a middle one
                for big in free[:6]:
                    env = {v: low(v) for v in free}
                    opts = choices[big]
                    env[big] = opts[-1] if pick == -1 else _middle(opts)
                    yield env
                    produced += 1
        for index in range(6):
            yield at(index)
            produced += 1
        rng = self._rng
        while produced < count:
            yield {v: rng.choice(choices[v]) for v in free}
            produced += 1

    def _defaults_hold(self, env: dict[Var, int | bool]) -> bool:
        for v, value in env.items():
            if v.dtype.is_integer and value < 0 and (
                    self._state.shape_vars_nonneg or v.size_var or v.dtype.is_uint):
                return False
        return True

    def _sample_choices(self, v: Var, simp: Simplifier) -> list:
        """Candidate values of ``v``, ascending, within its known bounds and, when it is
        known to be a multiple of d, mostly multiples of d."""
        if v.dtype.is_bool:
            return [False, True]
        lo, hi = simp.interval(Poly.of_atom(var_atom(v)))
        values = list(self._SAMPLE_VALUES) + [-1, -2, -8]
        d = self._state.mono_divisors.get((var_atom(v),), 1)
        if d > 1:
            values = [x * d for x in values] + values[:4]
        if not isinstance(lo, float):
            values += [lo, lo + 1, lo + 2, lo + d]
        if not isinstance(hi, float):
            values += [hi, hi - 1, hi - hi % d]
            if not isinstance(lo, float):
                mid = (lo + hi) // 2
                values.append(mid - mid % d)
        kept = sorted({x for x in values if lo <= x <= hi})
        return kept or ([lo] if not isinstance(lo, float) else [0])


def _middle(options: list) -> object:
    """The option nearest the middle of the range the options span."""
    if isinstance(options[0], bool):
        return options[-1]
    target = (options[0] + options[-1]) // 2
    return min(options, key=lambda x: abs(x - target))


def mono_order_desc(m: Monomial) -> tuple:
    """Larger for "bigger" monomials: higher degree, then later atoms."""
    return (len(m), tuple(a.order for a in m))


def _as_int_exprs(a: PrimExpr | int, b: PrimExpr | int) -> tuple[PrimExpr, PrimExpr]:
    if isinstance(a, PrimExpr):
        return a, as_prim(b, a.dtype)
    if isinstance(b, PrimExpr):
        return as_prim(a, b.dtype), b
    return as_prim(a), as_prim(b)
