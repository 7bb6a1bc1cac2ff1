"""Canonical forms of integer and boolean PrimExprs (spec/struct_info.md, "Symbolic
expressions", rules SYM-canon-*, SYM-floordiv-*, SYM-floormod-*, SYM-trunc-*, SYM-minmax-*,
SYM-cmp-*, SYM-bool-*).

An integer expression becomes a polynomial with integer coefficients over *atoms*:
variables and the nodes a polynomial cannot express (a floordiv by a constant, min, max,
select, cast, call, ...), each atom holding the canonical form of its own operands. Two
expressions with the same polynomial are equal for every assignment (where both are
defined, SYM-trap-1), which is what shape comparison needs most of the time, without
Z3. A boolean expression becomes a small normal form over ``p <= 0`` and ``p == 0``.

A ``Context`` lets a caller (the Analyzer) contribute what it assumes: variable bounds,
equalities used as rewrite rules, divisibility. The default context assumes only what
the types say.

This module is the simplifier; the algebra of its forms is ``polynomial.py`` and the
keys, text form and traversal it shares with its callers are ``expr_utils.py``.
"""
from __future__ import annotations

import math
from functools import reduce
from typing import Iterable

from ..ir.dtype import BOOL, DataType
from ..ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Cast, Div, FloorDiv, FloorMod, IntImm, Let, Max, Min,
    Mod, Mul, Not, Or, PrimExpr, Select, Sub, Var,
)
from .evaluate import cast_int, cast_keeps_value, dtype_range
from .expr_utils import MEMO_LIMIT, map_children, structural_key
from .expr_utils import expr_text, substitute  # noqa: F401  (importers read them here)
from .polynomial import (
    FALSE, INF, MAX_PRODUCT_TERMS, TRUE, UNBOUNDED, Atom, BoolAtom, Ext, Form, Interval,
    Monomial, Poly, ext_to_opt, form_const, form_to_expr, imul, intern_atom, intersect,
    ipow, iscale, mono_common, mono_divide, mono_order, poly_to_expr, refold, union,
    var_atom, xadd, xfloordiv,
)

# The canonicalizer recurses a few frames per expression level. Expressions nested
# beyond Python's recursion limit are left as they are by the analyzer (it answers
# "cannot prove"), rather than raising the process-wide limit.


# ===========================================================================
# What a simplifier may assume
# ===========================================================================

class Context:
    """Assumptions available to a Simplifier. This default assumes only what the types
    say (SYM-assume-1): a SizeVar or an unsigned variable is non-negative. The Analyzer
    subclasses it with bounds, equalities and divisibility facts."""

    #: True when ``rewrite``/``is_divisible`` can change a polynomial.
    rewrites = False

    def var_bounds(self, var: Var) -> Interval:
        if var.size_var or var.dtype.is_uint:
            return (0, INF)
        return UNBOUNDED

    def monomial_bounds(self, m: Monomial) -> Interval | None:
        return None

    def rewrite(self, p: Poly) -> Poly:
        """``p`` rewritten by assumed equalities (identity here)."""
        return p

    def is_divisible(self, p: Poly, c: int) -> bool:
        """True when ``p`` is assumed (or known) to be a multiple of ``c``."""
        return False

    def nonpositive_facts(self) -> list[Poly]:
        """Polynomials assumed ``<= 0`` beyond single-monomial bounds (e.g. from the
        fact ``past + seq <= 4096``)."""
        return []


# ===========================================================================
# The simplifier
# ===========================================================================

def _is_int_scalar(dtype: DataType) -> bool:
    return dtype.lanes == 1 and dtype.is_integer


def _is_bool_scalar(dtype: DataType) -> bool:
    return dtype.lanes == 1 and dtype.is_bool


_COMPARE_OPS = (EQ, NE, LT, LE, GT, GE)


class Simplifier:
    """Canonicalizes PrimExprs under a Context. Results are memoized per node (nodes are
    immutable); make a new Simplifier when the context changes."""

    def __init__(self, context: Context | None = None) -> None:
        self.context = context or Context()
        self._poly_memo: dict[int, tuple[PrimExpr, Poly]] = {}
        self._form_memo: dict[int, tuple[PrimExpr, Form]] = {}
        self._expr_memo: dict[int, tuple[PrimExpr, PrimExpr]] = {}
        self._atom_iv: dict[Atom, Interval] = {}
        self._poly_iv: dict[Poly, Interval] = {}

    # ---- public API -------------------------------------------------------

    def simplify(self, e: PrimExpr) -> PrimExpr:
        """The canonical PrimExpr of ``e`` (same dtype, same value wherever ``e`` has
        one)."""
        hit = self._expr_memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        dtype = e.dtype
        if _is_int_scalar(dtype):
            out = poly_to_expr(self.poly(e), dtype)
        elif _is_bool_scalar(dtype):
            out = form_to_expr(self.bool_form(e))
        elif type(e) is Let:
            out = self.simplify(substitute(e.body, {e.var: e.value}))
        else:
            # Floats, vectors, handles: only their integer/boolean parts are simplified;
            # float arithmetic is left alone (rounding, NaN).
            out = map_children(e, self.simplify)
        self._remember(self._expr_memo, e, out)
        return out

    def poly(self, e: PrimExpr) -> Poly:
        """The canonical polynomial of an integer expression."""
        return self.finish(self._poly_raw(e))

    def bool_form(self, e: PrimExpr) -> Form:
        """The canonical form of a boolean expression."""
        hit = self._form_memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        f = self._form_uncached(e)
        self._remember(self._form_memo, e, f)
        return f

    def interval(self, p: Poly) -> Interval:
        """Sound bounds of ``p`` (interval arithmetic over atom bounds, SYM-bound-1)."""
        hit = self._poly_iv.get(p)
        if hit is not None:
            return hit
        q = refold(p)
        lo = hi = q.constant
        for m, k in q.nonconst():
            mlo, mhi = self._mono_interval(m)
            tlo, thi = iscale(k, (mlo, mhi))
            lo, hi = xadd(lo, tlo), xadd(hi, thi)
        iv = (lo, hi)
        if len(self._poly_iv) >= MEMO_LIMIT:
            self._poly_iv.clear()
        self._poly_iv[p] = iv
        return iv

    def bounds(self, e: PrimExpr) -> tuple[int | None, int | None]:
        """Constant bounds of an integer expression (None = unbounded)."""
        lo, hi = self.interval(self.poly(e))
        return ext_to_opt(lo), ext_to_opt(hi)

    def finish(self, p: Poly) -> Poly:
        """Apply the context's rewrites (assumed equalities, exact divisions)."""
        if not self.context.rewrites or p.is_const():
            return p
        for _ in range(8):
            q = self._expand_exact_divisions(self.context.rewrite(p))
            if q == p:
                break
            p = q
        return p

    # ---- integer expressions ---------------------------------------------

    @staticmethod
    def _remember(memo: dict, e: PrimExpr, value: object) -> None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[id(e)] = (e, value)

    def _poly_raw(self, e: PrimExpr) -> Poly:
        hit = self._poly_memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        p = self._poly_uncached(e)
        self._remember(self._poly_memo, e, p)
        return p

    def _poly_uncached(self, e: PrimExpr) -> Poly:
        t = type(e)
        if t is IntImm:
            return Poly.const(e.value)
        if not _is_int_scalar(e.dtype):
            return self._non_int_operand(e)
        if t is Var:
            return Poly.of_atom(var_atom(e))
        if t is Add:
            return self._poly_raw(e.a) + self._poly_raw(e.b)
        if t is Sub:
            return self._poly_raw(e.a) - self._poly_raw(e.b)
        if t is Mul:
            return self._mul(self._poly_raw(e.a), self._poly_raw(e.b), e.dtype)
        if t in (FloorDiv, FloorMod, Div, Mod):
            if not (_is_int_scalar(e.a.dtype) and _is_int_scalar(e.b.dtype)):
                return self._opaque(e)
            a, b = self.poly(e.a), self.poly(e.b)
            if t is FloorDiv:
                return self._floordiv(a, b, e.dtype)
            if t is FloorMod:
                return self._floormod(a, b, e.dtype)
            if t is Div:
                return self._truncdiv(a, b, e.dtype)
            return self._truncmod(a, b, e.dtype)
        if t is Min or t is Max:
            return self._minmax(e, Atom.MIN if t is Min else Atom.MAX)
        if t is Select:
            return self._select(e)
        if t is Cast:
            return self._cast(e)
        if t is Let:
            return self._poly_raw(substitute(e.body, {e.var: e.value}))
        return self._opaque(e)

    def _non_int_operand(self, e: PrimExpr) -> Poly:
        """A bool used as an integer is 0 or 1; anything else is opaque."""
        if _is_bool_scalar(e.dtype):
            c = form_const(self.bool_form(e))
            if c is not None:
                return Poly.const(int(c))
        return self._opaque(e)

    def _opaque(self, e: PrimExpr) -> Poly:
        """SYM-canon-3: nodes without algebraic rules are atoms over simplified operands."""
        expr = map_children(e, self.simplify)
        key = structural_key(expr)
        return Poly.of_atom(intern_atom(Atom.OPAQUE, (key,), e.dtype, lambda: expr))

    def _mul(self, a: Poly, b: Poly, dtype: DataType) -> Poly:
        if len(a.terms) * len(b.terms) > MAX_PRODUCT_TERMS:
            a, b = sorted((self.finish(a), self.finish(b)), key=Poly.sort_key)
            atom = intern_atom(Atom.PRODUCT, (a, b), dtype, lambda: Mul(
                poly_to_expr(a, dtype), poly_to_expr(b, dtype), dtype))
            return Poly.of_atom(atom)
        return a.times(b)

    # SYM-floordiv-*: floordiv by a constant ------------------------------------

    def _floordiv(self, a: Poly, b: Poly, dtype: DataType) -> Poly:
        if b.is_const():
            c = b.constant
            if c == 0:
                return self._sym_atom(Atom.FLOORDIV_SYM, a, b, dtype)   # SYM-trap-1
            if a.is_const():
                return Poly.const(a.constant // c)                    # SYM-floordiv-1
            if c < 0:
                # SYM-floordiv-2: floor(a / c) = floor(-a / -c)
                a, c = -a, -c
            return self._floordiv_pos(a, c, dtype)
        quotient = self._exact_quotient(a, b)
        if quotient is not None and self._nonzero(b):
            return quotient                                           # SYM-floordiv-6
        if self._in_zero_to_divisor(a, b):
            return Poly.const(0)                                      # SYM-floordiv-7
        return self._sym_atom(Atom.FLOORDIV_SYM, a, b, dtype)

    def _floordiv_pos(self, p: Poly, c: int, dtype: DataType) -> Poly:
        """floordiv(p, c) for a constant c > 0 (SYM-floordiv-3..5)."""
        if c == 1:
            return p
        # SYM-floordiv-3: floordiv(c*Q + R, c) = Q + floordiv(R, c) for any integer Q.
        q_terms: dict = {}
        r_terms: dict = {}
        for m, k in p.terms.items():
            if not m:
                qk, rk = divmod(k, c)
                if qk:
                    q_terms[m] = qk
                if rk:
                    r_terms[m] = rk
            elif k % c == 0:
                q_terms[m] = k // c
            else:
                r_terms[m] = k
        quotient, rest = Poly(q_terms), Poly(r_terms)
        if rest.is_const():                   # 0 <= rest < c
            return quotient
        # SYM-floordiv-4: floordiv(g*S + r, g*c') = floordiv(S + r//g, c') when g divides
        # every non-constant coefficient and c (the dropped r%g is below g).
        g = math.gcd(rest.content(), c)
        if g > 1:
            r0 = rest.constant
            rest = Poly({m: k // g for m, k in rest.terms.items() if m}) + Poly.const(r0 // g)
            c //= g
        rlo, rhi = self.interval(rest)
        if not isinstance(rlo, float) and not isinstance(rhi, float) and rlo // c == rhi // c:
            return quotient + Poly.const(rlo // c)                     # SYM-floordiv-7
        # SYM-floordiv-5: floordiv(floordiv(S, a) + r, c) = floordiv(S + a*r, a*c) for
        # constants a, c > 0.
        inner = rest.nonconst()
        if len(inner) == 1 and inner[0][1] == 1 and len(inner[0][0]) == 1:
            atom = inner[0][0][0]
            if atom.kind == Atom.FLOORDIV:
                s, a = atom.args
                merged = self.finish(s + Poly.const(a * rest.constant))
                return quotient + self._floordiv_pos(merged, a * c, dtype)
        rest = self.finish(rest)
        atom = intern_atom(Atom.FLOORDIV, (rest, c), dtype, lambda: FloorDiv(
            poly_to_expr(rest, dtype), IntImm(c, dtype), dtype))
        return quotient + Poly.of_atom(atom)

    # SYM-floormod-*: floormod is expressed through floordiv ----------------------

    def _floormod(self, a: Poly, b: Poly, dtype: DataType) -> Poly:
        if b.is_const():
            c = b.constant
            if c == 0:
                return self._sym_atom(Atom.FLOORMOD_SYM, a, b, dtype)  # SYM-trap-1
            if a.is_const():
                return Poly.const(a.constant % c)
            if c > 0:
                # SYM-floormod-1: floormod(a, c) = a - c*floordiv(a, c)
                return a - self._floordiv_pos(a, c, dtype).scale(c)
            # SYM-floormod-2: floormod(a, c) = -floormod(-a, -c) for c < 0
            return a + self._floordiv_pos(-a, -c, dtype).scale(-c)
        if self._exact_quotient(a, b) is not None and self._nonzero(b):
            return Poly.const(0)
        if self._in_zero_to_divisor(a, b):
            return a
        return self._sym_atom(Atom.FLOORMOD_SYM, a, b, dtype)

    # SYM-trunc-*: truncating division (TIR Div/Mod on integers) ------------------

    def _truncdiv(self, a: Poly, b: Poly, dtype: DataType) -> Poly:
        if b.is_const() and b.constant != 0:
            c = b.constant
            if a.is_const():
                q = abs(a.constant) // abs(c)
                return Poly.const(q if (a.constant >= 0) == (c > 0) else -q)
            if all(k % c == 0 for k in a.terms.values()):
                return Poly({m: k // c for m, k in a.terms.items()})    # SYM-trunc-1
            sign = 1 if c > 0 else -1
            lo, hi = self.interval(a)
            if lo >= 0:                                                # SYM-trunc-2
                return self._floordiv_pos(a, abs(c), dtype).scale(sign)
            if hi <= 0:
                return self._floordiv_pos(-a, abs(c), dtype).scale(-sign)
        elif not b.is_const():
            quotient = self._exact_quotient(a, b)
            if quotient is not None and self._nonzero(b):
                return quotient
        return self._sym_atom(Atom.TRUNCDIV, a, b, dtype)

    def _truncmod(self, a: Poly, b: Poly, dtype: DataType) -> Poly:
        if b.is_const() and b.constant != 0:
            c = abs(b.constant)
            if a.is_const():
                r = abs(a.constant) % c
                return Poly.const(r if a.constant >= 0 else -r)
            if all(k % c == 0 for k in a.terms.values()):
                return Poly.const(0)                                   # SYM-trunc-1
            lo, hi = self.interval(a)
            if lo >= 0:                                                # SYM-trunc-2
                return a - self._floordiv_pos(a, c, dtype).scale(c)
            if hi <= 0:
                return a + self._floordiv_pos(-a, c, dtype).scale(c)
        elif not b.is_const():
            if self._exact_quotient(a, b) is not None and self._nonzero(b):
                return Poly.const(0)
        return self._sym_atom(Atom.TRUNCMOD, a, b, dtype)

    _SYM_NODES = {Atom.FLOORDIV_SYM: FloorDiv, Atom.FLOORMOD_SYM: FloorMod,
                  Atom.TRUNCDIV: Div, Atom.TRUNCMOD: Mod}

    def _sym_atom(self, kind: str, a: Poly, b: Poly, dtype: DataType) -> Poly:
        node = self._SYM_NODES[kind]
        atom = intern_atom(kind, (a, b), dtype, lambda: node(
            poly_to_expr(a, dtype), poly_to_expr(b, dtype), dtype))
        return Poly.of_atom(atom)

    def _exact_quotient(self, a: Poly, b: Poly) -> Poly | None:
        """q with a == q*b as polynomials, when b is one term or a multiple of a."""
        nonconst = b.nonconst()
        if len(b.terms) == 1 and nonconst:
            (bm, bk), = nonconst
            q: dict = {}
            for m, k in a.terms.items():
                rest = mono_divide(m, bm)
                if rest is None or k % bk:
                    return None
                q[rest] = k // bk
            return Poly(q)
        if not a.terms:
            return Poly({})
        m0, k0 = next(iter(b.terms.items()))
        ka = a.terms.get(m0, 0)
        if ka and ka % k0 == 0 and b.scale(ka // k0) == a:
            return Poly.const(ka // k0)
        return None

    def _nonzero(self, p: Poly) -> bool:
        lo, hi = self.interval(p)
        return lo > 0 or hi < 0

    def _in_zero_to_divisor(self, a: Poly, b: Poly) -> bool:
        """0 <= a < b, so floordiv(a, b) = 0 and floormod(a, b) = a."""
        return (self.interval(a)[0] >= 0 and self.interval(b)[0] >= 1
                and self.interval(b - a)[0] >= 1)

    def _expand_exact_divisions(self, p: Poly) -> Poly:
        """SYM-floordiv-8: c*floordiv(S, c) = S when S is a known multiple of c."""
        for m in list(p.terms):
            k = p.terms.get(m)
            if k is None:        # merged away by an earlier replacement
                continue
            for i, atom in enumerate(m):
                if atom.kind != Atom.FLOORDIV:
                    continue
                s, c = atom.args
                if k % c == 0 and self.context.is_divisible(s, c):
                    rest = m[:i] + m[i + 1:]
                    p = p - Poly({m: k}) + s.times(Poly({rest: k // c}))
                    break
        return p

    # SYM-minmax-* -----------------------------------------------------------

    def _minmax(self, e: PrimExpr, kind: str) -> Poly:
        args: list[Poly] = []
        for child in (e.a, e.b):
            p = self.poly(child)
            nonconst = p.nonconst()
            if (len(p.terms) == 1 and nonconst and nonconst[0][1] == 1
                    and len(nonconst[0][0]) == 1 and nonconst[0][0][0].kind == kind
                    and nonconst[0][0][0].dtype == e.dtype):
                args.extend(nonconst[0][0][0].args[0])        # SYM-minmax-1: flatten
            else:
                args.append(p)
        unique: list[Poly] = []
        for p in args:
            if p not in unique:
                unique.append(p)
        # SYM-minmax-2: drop an argument another one provably dominates.
        keep: list[Poly] = []
        for i, x in enumerate(unique):
            dominated = False
            for j, y in enumerate(unique):
                if i == j:
                    continue
                d = y - x if kind == Atom.MIN else x - y      # d <= 0: y wins over x
                if self.interval(d)[1] <= 0:
                    tie = self.interval(d)[0] >= 0
                    if not tie or j < i:
                        dominated = True
                        break
            if not dominated:
                keep.append(x)
        if len(keep) == 1:
            return keep[0]
        keep.sort(key=Poly.sort_key)
        args_t = tuple(keep)
        node = Min if kind == Atom.MIN else Max
        dtype = e.dtype
        atom = intern_atom(kind, (args_t,), dtype, lambda: reduce(
            lambda x, y: node(x, y, dtype), (poly_to_expr(q, dtype) for q in args_t)))
        return Poly.of_atom(atom)

    def _select(self, e: Select) -> Poly:
        cond = self.bool_form(e.condition)
        c = form_const(cond)
        if c is not None:
            return self._poly_raw(e.true_value if c else e.false_value)
        t, f = self.poly(e.true_value), self.poly(e.false_value)
        if t == f:
            return t
        dtype = e.dtype
        atom = intern_atom(Atom.SELECT, (cond, t, f), dtype, lambda: Select(
            form_to_expr(cond), poly_to_expr(t, dtype), poly_to_expr(f, dtype), dtype))
        return Poly.of_atom(atom)

    # SYM-cast-* -------------------------------------------------------------

    def _cast(self, e: Cast) -> Poly:
        src, dst = e.value.dtype, e.dtype
        if _is_bool_scalar(src):
            form = self.bool_form(e.value)
            c = form_const(form)
            if c is not None:
                return Poly.const(int(c))
            atom = intern_atom(Atom.CAST, (src, form), dst,
                                lambda: Cast(dst, form_to_expr(form)))
            return Poly.of_atom(atom)
        if not _is_int_scalar(src):
            return self._opaque(e)
        p = self.poly(e.value)
        if p.is_const():
            return Poly.const(cast_int(p.constant, src, dst))
        if src == dst:
            return p
        atom = intern_atom(Atom.CAST, (src, p), dst,
                            lambda: Cast(dst, poly_to_expr(p, src)))
        return Poly.of_atom(atom)

    # ---- intervals ------------------------------------------------------------

    def _mono_interval(self, m: Monomial) -> Interval:
        iv: Interval | None = None
        i = 0
        while i < len(m):
            j = i
            while j < len(m) and m[j] is m[i]:
                j += 1
            part = ipow(self._atom_interval(m[i]), j - i)
            iv = part if iv is None else imul(iv, part)
            i = j
        extra = self.context.monomial_bounds(m)
        return intersect(iv, extra) if extra is not None else iv

    def _atom_interval(self, a: Atom) -> Interval:
        hit = self._atom_iv.get(a)
        if hit is None:
            hit = self._atom_interval_uncached(a)
            extra = self.context.monomial_bounds((a,))
            if extra is not None:
                hit = intersect(hit, extra)
            if len(self._atom_iv) >= MEMO_LIMIT:
                self._atom_iv.clear()
            self._atom_iv[a] = hit
        return hit

    def _atom_interval_uncached(self, a: Atom) -> Interval:
        kind = a.kind
        if kind == Atom.VAR:
            return self.context.var_bounds(a.args[0])
        if kind == Atom.FLOORDIV:
            s, c = a.args
            lo, hi = self.interval(s)
            return (xfloordiv(lo, c), xfloordiv(hi, c))
        if kind == Atom.FLOORMOD:
            s, c = a.args
            lo, hi = self.interval(s)
            if lo >= 0 and hi <= c - 1:
                return (lo, hi)
            return (0, c - 1)
        if kind == Atom.FLOORDIV_SYM:
            return self._floordiv_interval(self.interval(a.args[0]), self.interval(a.args[1]))
        if kind == Atom.FLOORMOD_SYM:
            blo, bhi = self.interval(a.args[1])
            if blo >= 1:
                alo, ahi = self.interval(a.args[0])
                return (0, min(bhi - 1, ahi) if alo >= 0 else bhi - 1)
            if bhi <= -1:
                return (blo + 1, 0)
            return UNBOUNDED
        if kind == Atom.TRUNCDIV:
            b = a.args[1]
            if b.is_const() and b.constant != 0:
                c = b.constant
                lo, hi = self.interval(a.args[0])
                ends = [_xtruncdiv(lo, c), _xtruncdiv(hi, c)]
                return (min(ends), max(ends))
            return UNBOUNDED
        if kind == Atom.TRUNCMOD:
            blo, bhi = self.interval(a.args[1])
            if isinstance(blo, float) or isinstance(bhi, float) or blo > bhi:
                return UNBOUNDED
            bound = max(abs(blo), abs(bhi)) - 1
            if bound < 0:
                return UNBOUNDED    # the divisor is always 0: always a trap
            alo, ahi = self.interval(a.args[0])
            return (0 if alo >= 0 else -bound, 0 if ahi <= 0 else bound)
        if kind in (Atom.MIN, Atom.MAX):
            ivs = [self.interval(p) for p in a.args[0]]
            pick = min if kind == Atom.MIN else max
            return (pick(iv[0] for iv in ivs), pick(iv[1] for iv in ivs))
        if kind == Atom.SELECT:
            return union(self.interval(a.args[1]), self.interval(a.args[2]))
        if kind == Atom.CAST:
            src, inner = a.args
            dst_range = dtype_range(a.dtype)
            if _is_bool_scalar(src):
                return (0, 1)
            iv = self.interval(inner)
            if cast_keeps_value(src, a.dtype) or (dst_range[0] <= iv[0] and iv[1] <= dst_range[1]):
                return iv
            return dst_range
        if kind == Atom.PRODUCT:
            return imul(self.interval(a.args[0]), self.interval(a.args[1]))
        # OPAQUE: a value of its type.
        if _is_int_scalar(a.dtype) or _is_bool_scalar(a.dtype):
            return dtype_range(a.dtype)
        return UNBOUNDED

    @staticmethod
    def _floordiv_interval(a: Interval, b: Interval) -> Interval:
        if a[0] > a[1] or b[0] > b[1]:
            return UNBOUNDED    # no value at all (contradictory bounds, or always a trap)
        if b[1] <= -1:          # floordiv(a, b) = floordiv(-a, -b)
            a, b = (-a[1], -a[0]), (-b[1], -b[0])
        if b[0] < 1:
            return UNBOUNDED
        # With b >= 1, floor(a/b) grows with a and moves toward 0 (or -1) as b grows.
        corners = [_xfloordiv_ext(x, y) for x in a for y in b]
        return (min(corners), max(corners))

    # ---- boolean expressions ------------------------------------------------

    def _form_uncached(self, e: PrimExpr) -> Form:
        t = type(e)
        if t is IntImm:
            return TRUE if e.value else FALSE
        if t in _COMPARE_OPS:
            a, b = e.a, e.b
            if _is_int_scalar(a.dtype) and _is_int_scalar(b.dtype):
                return self._compare(t, self.finish(self._poly_raw(a) - self._poly_raw(b)))
            if _is_bool_scalar(a.dtype) and _is_bool_scalar(b.dtype) and t in (EQ, NE):
                return self._bool_equality(t, a, b)
            return self._bool_atom(e)
        if t is And:
            return self.and_forms([self.bool_form(e.a), self.bool_form(e.b)])
        if t is Or:
            return self.or_forms([self.bool_form(e.a), self.bool_form(e.b)])
        if t is Not:
            return self.negate(self.bool_form(e.a))
        if t is Select and _is_bool_scalar(e.true_value.dtype):
            c = self.bool_form(e.condition)
            tf, ff = self.bool_form(e.true_value), self.bool_form(e.false_value)
            return self.or_forms([self.and_forms([c, tf]),
                                  self.and_forms([self.negate(c), ff])])
        if t is Cast and e.dtype.lanes == 1:
            src = e.value.dtype
            if _is_int_scalar(src):
                return self.negate(self._compare(EQ, self.poly(e.value)))
            if _is_bool_scalar(src):
                return self.bool_form(e.value)
        if t is Let:
            return self.bool_form(substitute(e.body, {e.var: e.value}))
        return self._bool_atom(e)

    def _bool_atom(self, e: PrimExpr) -> Form:
        return ("atom", BoolAtom(map_children(e, self.simplify)))

    def _bool_equality(self, t: type, a: PrimExpr, b: PrimExpr) -> Form:
        fa, fb = self.bool_form(a), self.bool_form(b)
        ca, cb = form_const(fa), form_const(fb)
        if fa == fb:
            same = TRUE
        elif ca is not None:
            same = fb if ca else self.negate(fb)
        elif cb is not None:
            same = fa if cb else self.negate(fa)
        else:
            x, y = sorted((form_to_expr(fa), form_to_expr(fb)), key=expr_text)
            same = ("atom", BoolAtom(EQ(x, y, BOOL)))
        return same if t is EQ else self.negate(same)

    def _compare(self, t: type, p: Poly) -> Form:
        """SYM-cmp-1: ``a op b`` becomes a form over ``p = a - b``."""
        one = Poly.const(1)
        if t is EQ:
            return self.eq_form(p)
        if t is NE:
            return self.negate(self.eq_form(p))
        if t is LE:
            return self.le_form(p)
        if t is LT:
            return self.le_form(p + one)          # a < b  <=>  a - b + 1 <= 0
        if t is GE:
            return self.le_form(-p)
        return self.le_form(one - p)              # a > b  <=>  b - a + 1 <= 0

    def le_form(self, p: Poly) -> Form:
        """``p <= 0`` normalized (SYM-cmp-2) and decided by bounds when possible."""
        if p.is_const():
            return TRUE if p.constant <= 0 else FALSE
        g = p.content()
        if g > 1:
            # g*S + c <= 0  <=>  S <= floor(-c/g)  <=>  S + ceil(c/g) <= 0
            p = Poly({m: k // g for m, k in p.terms.items() if m}) + Poly.const(-(-p.constant // g))
        lo, hi = self.interval(p)
        if hi <= 0:
            return TRUE
        if lo > 0:
            return FALSE
        if self._nonpositive(p, depth=0):
            return TRUE
        return ("le", p)

    # Relational steps tried when plain intervals cannot show p <= 0 (SYM-bound-3); the
    # depth and term limits keep them cheap, since they run on undecided comparisons.
    _MAX_RELATIONAL_DEPTH = 2
    _MAX_RELATIONAL_TERMS = 8

    def _nonpositive(self, p: Poly, depth: int) -> bool:
        """Whether p <= 0 follows from intervals after (a) dividing out a non-negative
        factor common to every term, (b) replacing min(x, y) (positive coefficient) or
        max(x, y) (negative coefficient) by one of its operands, which only makes the
        polynomial larger, or (c) subtracting a multiple of an assumed ``q <= 0``.
        Example: b*min(s, 512) - b*s <= 0."""
        if self.interval(p)[1] <= 0:
            return True
        terms = p.nonconst()
        if depth == 0 and terms:
            # (c) p = lam*q + r with an assumed q <= 0, lam > 0 and r <= 0 by intervals.
            for q in self.context.nonpositive_facts():
                lams = {1}
                for m, k in terms:
                    kq = q.terms.get(m)
                    if kq and k * kq > 0 and k % kq == 0:
                        lams.add(k // kq)
                for lam in sorted(lams):
                    if self.interval(p - q.scale(lam))[1] <= 0:
                        return True
        if (not terms or depth >= self._MAX_RELATIONAL_DEPTH
                or len(terms) > self._MAX_RELATIONAL_TERMS):
            return False
        # (a) p = G*q + c with G >= 0 and c <= 0: q <= 0 suffices.
        common = terms[0][0]
        for m, _ in terms[1:]:
            common = mono_common(common, m)
            if not common:
                break
        if common and p.constant <= 0 and self._mono_interval(common)[0] >= 0:
            q = Poly({mono_divide(m, common): k for m, k in terms})
            if self._nonpositive(q, depth + 1):
                return True
        # (b) an upper bound of p by substituting one operand of a min/max term.
        for m, k in terms:
            for i, atom in enumerate(m):
                widening = ((atom.kind == Atom.MIN and k > 0)
                            or (atom.kind == Atom.MAX and k < 0))
                if not widening or atom in m[:i] or atom in m[i + 1:]:
                    continue
                rest = m[:i] + m[i + 1:]
                if rest and self._mono_interval(rest)[0] < 0:
                    continue
                without = p - Poly({m: k})
                for arg in atom.args[0]:
                    if self._nonpositive(without + arg.times(Poly({rest: k})), depth + 1):
                        return True
        return False

    def eq_form(self, p: Poly) -> Form:
        """``p == 0`` normalized (SYM-cmp-3) and decided by bounds when possible."""
        if p.is_const():
            return TRUE if p.constant == 0 else FALSE
        g = p.content()
        if p.constant % g:
            return FALSE              # g divides the left side but not the constant
        if g > 1:
            p = Poly({m: k // g for m, k in p.terms.items()})
        first = min(p.nonconst(), key=lambda t: mono_order(t[0]))
        if first[1] < 0:
            p = -p
        lo, hi = self.interval(p)
        if lo > 0 or hi < 0:
            return FALSE
        if lo == 0 and hi == 0:
            return TRUE
        return ("eq", p)

    def negate(self, f: Form) -> Form:
        """SYM-bool-2: negation pushed inward (De Morgan); ``not p <= 0`` is ``1 - p <= 0``."""
        tag = f[0]
        if tag == "const":
            return FALSE if f[1] else TRUE
        if tag == "le":
            return self.le_form(Poly.const(1) - f[1])
        if tag == "not":
            return f[1]
        if tag == "and":
            return self.or_forms([self.negate(g) for g in f[1]])
        if tag == "or":
            return self.and_forms([self.negate(g) for g in f[1]])
        return ("not", f)

    def and_forms(self, forms: Iterable[Form]) -> Form:
        return self._junction("and", forms)

    def or_forms(self, forms: Iterable[Form]) -> Form:
        return self._junction("or", forms)

    def _junction(self, tag: str, forms: Iterable[Form]) -> Form:
        """SYM-bool-1: flatten, fold constants, drop duplicates, keep only the strongest
        (for and) or weakest (for or) of ``S + c <= 0`` with the same S, and detect a
        form next to its negation."""
        absorbing, neutral = (FALSE, TRUE) if tag == "and" else (TRUE, FALSE)
        flat: list[Form] = []
        for f in forms:
            if f[0] == tag:
                flat.extend(f[1])
            else:
                flat.append(f)
        items: set[Form] = set()
        best_le: dict[Poly, int] = {}
        for f in flat:
            if f == absorbing:
                return absorbing
            if f == neutral:
                continue
            if f[0] == "le":
                p = f[1]
                body = Poly({m: k for m, k in p.terms.items() if m})
                c = p.constant
                old = best_le.get(body)
                if old is None:
                    best_le[body] = c
                else:
                    best_le[body] = max(old, c) if tag == "and" else min(old, c)
                continue
            items.add(f)
        for body, c in best_le.items():
            items.add(("le", body + Poly.const(c)))
        for f in items:
            if self.negate(f) in items:
                return absorbing
        if not items:
            return neutral
        if len(items) == 1:
            return next(iter(items))
        return (tag, frozenset(items))


def _xtruncdiv(x: Ext, c: int) -> Ext:
    if isinstance(x, float):
        return x if c > 0 else -x
    q = abs(x) // abs(c)
    return q if (x >= 0) == (c > 0) else -q


def _xfloordiv_ext(x: Ext, y: Ext) -> Ext:
    """floor(x / y) for y >= 1 (y may be INF), used at interval corners."""
    if isinstance(y, float):
        if isinstance(x, float):
            return x          # INF / INF: keep the unbounded side
        return 0 if x >= 0 else -1
    return xfloordiv(x, y)


# ===========================================================================
# Module-level entry points (context-free)
# ===========================================================================

#: The shared context-free simplifier (memoized across calls).
CONTEXT_FREE = Simplifier()


def simplify(e: PrimExpr) -> PrimExpr:
    """The canonical form of ``e``, assuming nothing beyond the types (SYM-canon-1)."""
    return CONTEXT_FREE.simplify(e)


def canonical_poly(e: PrimExpr) -> Poly:
    """The canonical polynomial of an integer expression (context-free)."""
    return CONTEXT_FREE.poly(e)


def canonical_equal(a: PrimExpr, b: PrimExpr) -> bool:
    """True only when ``a`` and ``b`` have the same canonical form, hence the same value
    for every assignment where both are defined (SYM-canon-2). False means "not shown
    equal by canonical form", not "different"."""
    if a is b:
        return True
    if _is_int_scalar(a.dtype) and _is_int_scalar(b.dtype):
        return CONTEXT_FREE.poly(a) == CONTEXT_FREE.poly(b)
    if _is_bool_scalar(a.dtype) and _is_bool_scalar(b.dtype):
        return CONTEXT_FREE.bool_form(a) == CONTEXT_FREE.bool_form(b)
    return structural_key(CONTEXT_FREE.simplify(a)) == structural_key(CONTEXT_FREE.simplify(b))
