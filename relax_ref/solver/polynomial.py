"""The algebra of the simplifier's canonical forms (spec/struct_info.md, SYM-canon-*):
extended integers and intervals, atoms, polynomials with integer coefficients over atoms,
boolean normal forms over ``p <= 0`` and ``p == 0``, and the way back from these forms to
PrimExprs. ``simplify.py`` builds the forms; the Analyzer reads them.
"""
from __future__ import annotations

import math
import weakref
from functools import reduce
from itertools import count
from operator import attrgetter
from typing import Callable, Union

from ..ir.dtype import BOOL, DataType
from ..ir.prim_expr import (
    EQ, GE, LE, NE, Add, And, FloorDiv, FloorMod, IntImm, Mul, Not, Or, PrimExpr, Sub, Var,
)

from .expr_utils import expr_text, structural_key


# ===========================================================================
# Extended integers and intervals (None at the API boundary = unbounded)
# ===========================================================================

INF = float("inf")
Ext = Union[int, float]           # an int, or +-INF
Interval = tuple[Ext, Ext]
UNBOUNDED: Interval = (-INF, INF)


def xadd(x: Ext, y: Ext) -> Ext:
    # Callers only add lower bounds to lower bounds and upper to upper, so INF + -INF
    # never happens; Python would raise OverflowError on huge int + float, hence this.
    if isinstance(x, float):
        return x
    if isinstance(y, float):
        return y
    return x + y


def _xmul(x: Ext, y: Ext) -> Ext:
    if x == 0 or y == 0:
        return 0            # the limit convention: 0 * INF = 0 for interval products
    if isinstance(x, float) or isinstance(y, float):
        return INF if (x > 0) == (y > 0) else -INF
    return x * y


def iscale(k: int, iv: Interval) -> Interval:
    lo, hi = _xmul(k, iv[0]), _xmul(k, iv[1])
    return (lo, hi) if k >= 0 else (hi, lo)


def imul(a: Interval, b: Interval) -> Interval:
    products = [_xmul(x, y) for x in a for y in b]
    return (min(products), max(products))


def ipow(iv: Interval, n: int) -> Interval:
    result = iv
    for _ in range(n - 1):
        result = imul(result, iv)
    if n % 2 == 0 and result[0] < 0:
        result = (0, result[1])          # an even power is never negative
    return result


def intersect(a: Interval, b: Interval) -> Interval:
    return (max(a[0], b[0]), min(a[1], b[1]))


def union(a: Interval, b: Interval) -> Interval:
    return (min(a[0], b[0]), max(a[1], b[1]))


def xfloordiv(x: Ext, c: int) -> Ext:
    """floor(x / c) for c > 0, with infinities kept."""
    return x if isinstance(x, float) else x // c


def ext_to_opt(x: Ext) -> int | None:
    return None if isinstance(x, float) else x


# ===========================================================================
# Atoms and polynomials
# ===========================================================================

class Atom:
    """An indivisible operand of a polynomial, interned: two atoms with the same key are
    the same object, so atoms compare and hash by identity.

    ``kind`` is one of the class constants; ``args`` holds canonical operands (Polys,
    ints, bool forms, dtypes); ``expr`` is the canonical PrimExpr it stands for;
    ``order`` sorts atoms deterministically (variables first, then by text)."""

    __slots__ = ("kind", "args", "dtype", "expr", "order", "__weakref__")

    VAR = "var"
    FLOORDIV = "floordiv"          # (S: Poly, c: int > 0)
    FLOORMOD = "floormod"          # (S: Poly, c: int > 0); only in refolded output
    FLOORDIV_SYM = "floordiv_sym"  # (a: Poly, b: Poly) divisor not a non-zero constant
    FLOORMOD_SYM = "floormod_sym"
    TRUNCDIV = "truncdiv"          # (a: Poly, b: Poly)
    TRUNCMOD = "truncmod"
    MIN = "min"                    # (tuple of Polys,)
    MAX = "max"
    SELECT = "select"              # (cond form, t: Poly, f: Poly)
    CAST = "cast"                  # (source dtype, Poly | form | key of other source)
    PRODUCT = "product"            # (p, q): a product kept unexpanded (too many terms)
    OPAQUE = "opaque"              # (structural key,): calls, loads, anything else

    def __repr__(self) -> str:
        return f"Atom({expr_text(self.expr)})"


_ATOMS: "weakref.WeakValueDictionary[tuple, Atom]" = weakref.WeakValueDictionary()
_SERIAL = count()
_atom_order = attrgetter("order")


def intern_atom(kind: str, args: tuple, dtype: DataType,
                 build: Callable[[], PrimExpr]) -> Atom:
    key = (kind, dtype, args)
    atom = _ATOMS.get(key)
    if atom is None:
        atom = Atom()
        atom.kind, atom.args, atom.dtype = kind, args, dtype
        atom.expr = build()
        rank = 0 if kind == Atom.VAR else 1
        atom.order = (rank, expr_text(atom.expr), next(_SERIAL))
        _ATOMS[key] = atom
    return atom


def var_atom(v: Var) -> Atom:
    return intern_atom(Atom.VAR, (v,), v.dtype, lambda: v)


Monomial = tuple  # a sorted tuple of Atoms (repeated for powers); () is the constant


def _mono_mul(m1: Monomial, m2: Monomial) -> Monomial:
    if not m1:
        return m2
    if not m2:
        return m1
    return tuple(sorted(m1 + m2, key=_atom_order))


def mono_divide(m: Monomial, d: Monomial) -> Monomial | None:
    """``m / d`` when ``d`` divides ``m`` as a multiset of atoms, else None."""
    rest = list(m)
    for a in d:
        for i, b in enumerate(rest):
            if b is a:
                del rest[i]
                break
        else:
            return None
    return tuple(rest)


def mono_common(m1: Monomial, m2: Monomial) -> Monomial:
    """The largest monomial dividing both (multiset intersection)."""
    rest = list(m2)
    out = []
    for a in m1:
        for i, b in enumerate(rest):
            if b is a:
                out.append(a)
                del rest[i]
                break
    return tuple(out)


def mono_order(m: Monomial) -> tuple:
    """Graded order: higher degree first, then by atom order."""
    return (-len(m), tuple(a.order for a in m))


class Poly:
    """A polynomial with integer coefficients: ``terms`` maps each Monomial to its
    non-zero coefficient. Immutable by convention; equal polys compare equal."""

    __slots__ = ("terms", "_hash")

    def __init__(self, terms: dict) -> None:
        self.terms = terms
        self._hash: int | None = None

    @staticmethod
    def const(c: int) -> "Poly":
        return Poly({(): c} if c else {})

    @staticmethod
    def of_atom(a: Atom) -> "Poly":
        return Poly({(a,): 1})

    def is_const(self) -> bool:
        return not self.terms or (len(self.terms) == 1 and () in self.terms)

    @property
    def constant(self) -> int:
        return self.terms.get((), 0)

    def nonconst(self) -> list[tuple[Monomial, int]]:
        return [(m, k) for m, k in self.terms.items() if m]

    def atoms(self) -> set[Atom]:
        return {a for m in self.terms for a in m}

    def __add__(self, other: "Poly") -> "Poly":
        if not other.terms:
            return self
        if not self.terms:
            return other
        terms = dict(self.terms)
        for m, k in other.terms.items():
            s = terms.get(m, 0) + k
            if s:
                terms[m] = s
            else:
                terms.pop(m, None)
        return Poly(terms)

    def __neg__(self) -> "Poly":
        return Poly({m: -k for m, k in self.terms.items()})

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def scale(self, k: int) -> "Poly":
        if k == 0:
            return Poly({})
        if k == 1:
            return self
        return Poly({m: c * k for m, c in self.terms.items()})

    def times(self, other: "Poly") -> "Poly":
        terms: dict = {}
        for m1, k1 in self.terms.items():
            for m2, k2 in other.terms.items():
                m = _mono_mul(m1, m2)
                s = terms.get(m, 0) + k1 * k2
                if s:
                    terms[m] = s
                else:
                    terms.pop(m, None)
        return Poly(terms)

    def content(self) -> int:
        """The gcd of the non-constant coefficients (0 for a constant)."""
        return reduce(math.gcd, (abs(k) for m, k in self.terms.items() if m), 0)

    def sort_key(self) -> tuple:
        return tuple(sorted((mono_order(m), k) for m, k in self.terms.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self.terms.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"Poly({expr_text(poly_to_expr(self, _poly_dtype(self)))})"


# A term count beyond which a product is kept as one atom: expanding (a+b+...)**k can
# grow exponentially, and canonicity there is not worth the time (Z3 remains).
MAX_PRODUCT_TERMS = 256


# ===========================================================================
# Boolean normal forms
# ===========================================================================

class BoolAtom:
    """An opaque boolean (a bool variable, a float comparison, a call); equal when the
    simplified expressions are structurally equal."""

    __slots__ = ("key", "expr")

    def __init__(self, expr: PrimExpr) -> None:
        self.expr = expr
        self.key = structural_key(expr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoolAtom) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


# Forms are tuples: ("const", bool) | ("le", Poly) meaning poly <= 0 | ("eq", Poly)
# meaning poly == 0 | ("not", form) over eq/atom | ("and", frozenset) | ("or", frozenset)
# | ("atom", BoolAtom).
Form = tuple
TRUE: Form = ("const", True)
FALSE: Form = ("const", False)


def form_const(f: Form) -> bool | None:
    return f[1] if f[0] == "const" else None


# ===========================================================================
# From canonical forms back to PrimExprs
# ===========================================================================

def _poly_dtype(p: Poly) -> DataType:
    for m in p.terms:
        for a in m:
            return a.dtype
    from ..ir.dtype import INT64
    return INT64


def refold(p: Poly) -> Poly:
    """SYM-floormod-1 read backwards: ``k*S - k*c*floordiv(S, c)`` is ``k*floormod(S, c)``.
    Canonical polys hold no floormod (it is ``S - c*floordiv(S, c)``); output and interval
    reasoning want it back, the first for readability, the second because floormod has
    the tight range [0, c-1]."""
    # Sorted, so that equal polys built in different orders refold alike.
    for m in sorted(p.terms, key=mono_order):
        if len(m) != 1 or m[0].kind != Atom.FLOORDIV or m not in p.terms:
            continue
        atom = m[0]
        s, c = atom.args
        k = p.terms[m]
        if k % c:
            continue
        mult = -k // c
        if all(p.terms.get(sm) == mult * sk for sm, sk in s.terms.items() if sm):
            fm = intern_atom(Atom.FLOORMOD, (s, c), atom.dtype, lambda: FloorMod(
                poly_to_expr(s, atom.dtype), IntImm(c, atom.dtype), atom.dtype))
            p = p - (s.scale(mult) - Poly({m: c * mult})) + Poly({(fm,): mult})
    return p


def _mono_expr(m: Monomial, dtype: DataType) -> PrimExpr:
    out = m[0].expr
    for a in m[1:]:
        out = Mul(out, a.expr, dtype)
    return out


def poly_to_expr(p: Poly, dtype: DataType) -> PrimExpr:
    """The canonical PrimExpr of a polynomial: positive terms, then negative ones, then
    the constant; ``x % c`` patterns refolded."""
    p = refold(p)
    const = p.constant
    terms = sorted(p.nonconst(), key=lambda t: mono_order(t[0]))
    if not terms:
        return IntImm(const, dtype)
    # For display only: SYM-floordiv-3 moved constants out of a floordiv; when there is
    # one floordiv term k*((S) // c) and k divides the constant, put it back, so that
    # (x + 5) // 4 prints as written rather than as (x + 1) // 4 + 1.
    override: dict[Monomial, PrimExpr] = {}
    fd_terms = [(m, k) for m, k in terms if len(m) == 1 and m[0].kind == Atom.FLOORDIV]
    if const and len(fd_terms) == 1 and const % fd_terms[0][1] == 0:
        (m, k), = fd_terms
        s, c = m[0].args
        merged = s + Poly.const(c * (const // k))
        override[m] = FloorDiv(poly_to_expr(merged, dtype), IntImm(c, dtype), dtype)
        const = 0
    pos = [(m, k) for m, k in terms if k > 0]
    neg = [(m, -k) for m, k in terms if k < 0]

    def term(m: Monomial, k: int) -> PrimExpr:
        e = override[m] if m in override else _mono_expr(m, dtype)
        return e if k == 1 else Mul(e, IntImm(k, dtype), dtype)

    if pos:
        out = term(*pos[0])
        rest_pos = pos[1:]
    elif const > 0:
        out, const = IntImm(const, dtype), 0
        rest_pos = []
    else:
        m, k = neg.pop(0)
        lead = override[m] if m in override else _mono_expr(m, dtype)
        out = Mul(lead, IntImm(-k, dtype), dtype)
        rest_pos = []
    for m, k in rest_pos:
        out = Add(out, term(m, k), dtype)
    for m, k in neg:
        out = Sub(out, term(m, k), dtype)
    if const > 0:
        out = Add(out, IntImm(const, dtype), dtype)
    elif const < 0:
        out = Sub(out, IntImm(-const, dtype), dtype)
    return out


def form_to_expr(f: Form) -> PrimExpr:
    """The canonical PrimExpr of a boolean form: comparisons keep positive terms on the
    left and the constant on the right (``n <= m + 3``)."""
    tag = f[0]
    if tag == "const":
        return IntImm(int(f[1]), BOOL)
    if tag in ("le", "eq"):
        p = f[1]
        dtype = _poly_dtype(p)
        lhs = Poly({m: k for m, k in p.terms.items() if m and k > 0})
        rhs = Poly({m: -k for m, k in p.terms.items() if m and k < 0}) + Poly.const(-p.constant)
        if tag == "le":
            if lhs.terms:
                return LE(poly_to_expr(lhs, dtype), poly_to_expr(rhs, dtype), BOOL)
            # no positive term: -R + c <= 0, i.e. R >= c
            r = Poly({m: k for m, k in rhs.terms.items() if m})
            return GE(poly_to_expr(r, dtype), IntImm(p.constant, dtype), BOOL)
        return EQ(poly_to_expr(lhs, dtype), poly_to_expr(rhs, dtype), BOOL)
    if tag == "not":
        inner = f[1]
        if inner[0] == "eq":
            e = form_to_expr(inner)
            return NE(e.a, e.b, BOOL)
        return Not(form_to_expr(inner), BOOL)
    if tag == "atom":
        return f[1].expr
    parts = sorted((form_to_expr(g) for g in f[1]), key=expr_text)
    node = And if tag == "and" else Or
    return reduce(lambda a, b: node(a, b, BOOL), parts)
