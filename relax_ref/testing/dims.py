"""Tensor dims as canonical polynomials over symbolic names, so that the generator knows
which operands fit an op (equal dims, or a static 1 for broadcasting) without asking
the deducer.
"""
from __future__ import annotations


# -- dims as canonical polynomials ------------------------------------------------------------
# A dim is a sorted tuple of (monomial, coefficient); a monomial is a sorted tuple of
# symbol names. ``()`` is 0, ``(((), 4),)`` is 4, ``((("n",), 4),)`` is n * 4.

Dim = tuple


def const(c: int) -> Dim:
    return (((), c),) if c else ()


def sym(name: str) -> Dim:
    return (((name,), 1),)


def _canon(acc: dict) -> Dim:
    return tuple(sorted((m, c) for m, c in acc.items() if c))


def dim_add(a: Dim, b: Dim) -> Dim:
    acc = dict(a)
    for m, c in b:
        acc[m] = acc.get(m, 0) + c
    return _canon(acc)


def dim_mul(a: Dim, b: Dim) -> Dim:
    acc: dict = {}
    for m1, c1 in a:
        for m2, c2 in b:
            m = tuple(sorted(m1 + m2))
            acc[m] = acc.get(m, 0) + c1 * c2
    return _canon(acc)


def static_value(d: Dim) -> int | None:
    if not d:
        return 0
    if len(d) == 1 and d[0][0] == ():
        return d[0][1]
    return None


def dim_symbols(d: Dim) -> set[str]:
    return {s for m, _ in d for s in m}


def dim_text(d: Dim) -> str:
    if not d:
        return "0"
    terms = []
    for m, c in sorted(d, key=lambda mc: (-len(mc[0]), mc[0])):
        factors = list(m) + ([str(c)] if c != 1 or not m else [])
        terms.append(" * ".join(factors))
    return " + ".join(terms)


def _is_one(d: Dim) -> bool:
    return static_value(d) == 1


def broadcast(a: tuple, b: tuple) -> tuple | None:
    """NumPy broadcasting of two shapes with dims compared syntactically."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else const(1)
        y = b[-i] if i <= len(b) else const(1)
        if x == y or _is_one(y):
            out.append(x)
        elif _is_one(x):
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def product(shape: tuple) -> Dim:
    out = const(1)
    for d in shape:
        out = dim_mul(out, d)
    return out


def factorizations(d: Dim) -> list[tuple[Dim, Dim]]:
    """Ways to write the monomial dim ``d`` as a product of two dims (for reshape)."""
    if len(d) != 1:
        return []
    (m, c), = d
    out = []
    for s in dict.fromkeys(m):
        rest = list(m)
        rest.remove(s)
        out.append((sym(s), ((tuple(rest), c),)))
    for f in range(2, c + 1):
        if c % f == 0 and (f < c or m):
            out.append((const(f), ((m, c // f),)))
    return out
