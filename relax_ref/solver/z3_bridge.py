"""PrimExpr -> Z3, exactly (spec/struct_info.md, "Symbolic expressions", SYM-z3-*).

Integers become unbounded Z3 ``Int`` terms and booleans ``Bool`` terms, with the same
meaning as ``evaluate.evaluate_int``: floordiv/floormod round toward minus infinity for
any divisor sign, Div/Mod on integers truncate toward zero, widening casts keep the value
and other integer casts wrap. A division by zero is left to Z3's own ``div``/``mod`` by
zero, which Z3 treats as an unspecified (but fixed) function: nothing is provable about
its value, matching SYM-trap-1.

Nodes outside this fragment (float arithmetic, unknown intrinsics, buffer loads) become
fresh uninterpreted constants, one per distinct structure (SYM-z3-2), so that equal
sub-terms still map to the same Z3 term.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable

import z3

from ..ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Call, Cast, Div, FloorDiv, FloorMod, IntImm, Let,
    Max, Min, Mod, Mul, Not, Or, PrimExpr, Select, Sub, Var,
)
from ..numerics import wrap_int
from .evaluate import cast_keeps_value
from .simplify import structural_key

#: Per-query solver time limit in milliseconds (SYM-z3-3).
DEFAULT_TIMEOUT_MS = 200


def _is_int(e: PrimExpr) -> bool:
    return e.dtype.lanes == 1 and e.dtype.is_integer


def _is_bool(e: PrimExpr) -> bool:
    return e.dtype.lanes == 1 and e.dtype.is_bool


def z3_floordiv(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """TIR floordiv. SMT-LIB ``div`` is Euclidean (remainder >= 0), which equals floor
    division for a positive divisor; for a negative one, floor(a/b) = floor(-a/-b)."""
    if z3.is_int_value(b):
        v = b.as_long()
        if v > 0:
            return a / b
        if v < 0:
            return (-a) / (-b)
    return z3.If(b >= 0, a / b, (-a) / (-b))


def z3_floormod(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """TIR floormod: the sign of the divisor."""
    if z3.is_int_value(b):
        v = b.as_long()
        if v > 0:
            return a % b
        if v < 0:
            return -((-a) % (-b))
    return z3.If(b >= 0, a % b, -((-a) % (-b)))


def _z3_abs(x: z3.ArithRef) -> z3.ArithRef:
    if z3.is_int_value(x):
        return z3.IntVal(abs(x.as_long()))
    return z3.If(x >= 0, x, -x)


def z3_truncdiv(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Rounding toward zero: the quotient of the magnitudes, signed."""
    q = _z3_abs(a) / _z3_abs(b)
    return z3.If((a >= 0) == (b >= 0), q, -q)


def z3_truncmod(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """The sign of the dividend."""
    r = _z3_abs(a) % _z3_abs(b)
    return z3.If(a >= 0, r, -r)


class Z3Translator:
    """Translates PrimExprs into one Z3 context. Variables are keyed by Var identity and
    opaque nodes by structure, so every formula built by one translator shares terms."""

    def __init__(self) -> None:
        self._vars: dict[Var, z3.ExprRef] = {}
        self._opaque: dict[tuple, z3.ExprRef] = {}
        self._memo: dict[int, tuple[PrimExpr, z3.ExprRef]] = {}
        self._names: dict[str, int] = {}

    # ---- public -------------------------------------------------------------

    def to_int(self, e: PrimExpr) -> z3.ArithRef:
        t = self.translate(e)
        return z3.If(t, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(t) else t

    def to_bool(self, e: PrimExpr) -> z3.BoolRef:
        t = self.translate(e)
        return t if z3.is_bool(t) else t != 0

    def translate(self, e: PrimExpr) -> z3.ExprRef:
        """An Int term for integer expressions, a Bool term for boolean ones."""
        return self._translate(e, {})

    def var(self, v: Var) -> z3.ExprRef:
        """The Z3 constant standing for ``v`` (created on first use)."""
        t = self._vars.get(v)
        if t is None:
            n = self._names.get(v.name, 0)
            self._names[v.name] = n + 1
            name = v.name if n == 0 else f"{v.name}!{n}"
            t = z3.Bool(name) if _is_bool(v) else z3.Int(name)
            self._vars[v] = t
        return t

    # ---- translation ------------------------------------------------------------

    def _translate(self, e: PrimExpr, env: dict[Var, z3.ExprRef]) -> z3.ExprRef:
        # Only terms outside any Let are memoized: inside one, a Var means its binding.
        if env:
            return self._translate_node(e, env)
        hit = self._memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = self._translate_node(e, env)
        if len(self._memo) >= 200_000:
            self._memo.clear()
        self._memo[id(e)] = (e, out)
        return out

    def _translate_node(self, e: PrimExpr, env: dict[Var, z3.ExprRef]) -> z3.ExprRef:
        if not (_is_int(e) or _is_bool(e)):
            return self._opaque_term(e)
        t = type(e)
        if t is IntImm:
            return z3.BoolVal(bool(e.value)) if _is_bool(e) else z3.IntVal(e.value)
        if t is Var:
            return env[e] if e in env else self.var(e)
        if t in (Add, Sub, Mul, FloorDiv, FloorMod, Div, Mod, Min, Max):
            if not (_is_int(e.a) or _is_bool(e.a)) or not (_is_int(e.b) or _is_bool(e.b)):
                return self._opaque_term(e)
            a, b = self._int(e.a, env), self._int(e.b, env)
            return _ARITH[t](a, b)
        if t in (EQ, NE, LT, LE, GT, GE):
            if not ((_is_int(e.a) or _is_bool(e.a)) and (_is_int(e.b) or _is_bool(e.b))):
                return self._opaque_term(e)
            if _is_bool(e.a) and _is_bool(e.b) and t in (EQ, NE):
                a, b = self._bool(e.a, env), self._bool(e.b, env)
            else:
                a, b = self._int(e.a, env), self._int(e.b, env)
            return _COMPARE[t](a, b)
        if t is And:
            return z3.And(self._bool(e.a, env), self._bool(e.b, env))
        if t is Or:
            return z3.Or(self._bool(e.a, env), self._bool(e.b, env))
        if t is Not:
            return z3.Not(self._bool(e.a, env))
        if t is Select:
            c = self._bool(e.condition, env)
            if _is_bool(e):
                return z3.If(c, self._bool(e.true_value, env), self._bool(e.false_value, env))
            return z3.If(c, self._int(e.true_value, env), self._int(e.false_value, env))
        if t is Cast:
            return self._cast(e, env)
        if t is Let:
            inner = dict(env)
            inner[e.var] = self._translate(e.value, env)
            return self._translate(e.body, inner)
        if t is Call:
            return self._call(e, env)
        return self._opaque_term(e)

    def _int(self, e: PrimExpr, env: dict) -> z3.ArithRef:
        t = self._translate(e, env)
        return z3.If(t, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(t) else t

    def _bool(self, e: PrimExpr, env: dict) -> z3.BoolRef:
        t = self._translate(e, env)
        return t if z3.is_bool(t) else t != 0

    def _cast(self, e: Cast, env: dict) -> z3.ExprRef:
        src = e.value.dtype
        if not (_is_int(e.value) or _is_bool(e.value)):
            return self._opaque_term(e)
        if _is_bool(e):
            return self._bool(e.value, env)
        v = self._int(e.value, env)
        if cast_keeps_value(src, e.dtype):
            return v                                   # SYM-cast-1
        return wrap_int(v, e.dtype)                    # SYM-cast-2: wrap

    def _call(self, e: Call, env: dict) -> z3.ExprRef:
        """SYM-call-1: the intrinsics with an integer meaning; the rest are opaque."""
        op, args = e.op, e.args
        if op == "tir.if_then_else" and len(args) == 3 and _is_int(e):
            return z3.If(self._bool(args[0], env), self._int(args[1], env),
                         self._int(args[2], env))
        if op == "tir.if_then_else" and len(args) == 3 and _is_bool(e):
            return z3.If(self._bool(args[0], env), self._bool(args[1], env),
                         self._bool(args[2], env))
        if (op in ("tir.shift_left", "tir.shift_right") and len(args) == 2
                and isinstance(args[1], IntImm) and args[1].value >= 0 and _is_int(e)):
            a, scale = self._int(args[0], env), z3.IntVal(1 << args[1].value)
            return a * scale if op == "tir.shift_left" else a / scale   # shift = floor
        return self._opaque_term(e)

    def _opaque_term(self, e: PrimExpr) -> z3.ExprRef:
        """SYM-z3-2: one fresh uninterpreted constant per distinct structure."""
        key = structural_key(e)
        t = self._opaque.get(key)
        if t is None:
            name = f"opaque!{len(self._opaque)}"
            t = z3.Bool(name) if _is_bool(e) else z3.Int(name)
            self._opaque[key] = t
        return t


_ARITH = {
    Add: lambda a, b: a + b,
    Sub: lambda a, b: a - b,
    Mul: lambda a, b: a * b,
    FloorDiv: z3_floordiv,
    FloorMod: z3_floormod,
    Div: z3_truncdiv,
    Mod: z3_truncmod,
    Min: lambda a, b: z3.If(a <= b, a, b),
    Max: lambda a, b: z3.If(a >= b, a, b),
}
_COMPARE = {
    EQ: lambda a, b: a == b,
    NE: lambda a, b: a != b,
    LT: lambda a, b: a < b,
    LE: lambda a, b: a <= b,
    GT: lambda a, b: a > b,
    GE: lambda a, b: a >= b,
}


# ---------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Z3Result:
    """``status`` is "proved" (the negation is unsat), "refuted" (a counterexample
    exists) or "unknown" (timeout or incompleteness). Only "proved" may be trusted as a
    yes (SYM-prove-2)."""

    status: str
    seconds: float


def prove(goal: z3.BoolRef, assumptions: Iterable[z3.BoolRef],
          timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Z3Result:
    """Whether ``assumptions`` imply ``goal``, within ``timeout_ms``."""
    start = time.perf_counter()
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    for a in assumptions:
        solver.add(a)
    solver.add(z3.Not(goal))
    r = solver.check()
    status = "proved" if r == z3.unsat else "refuted" if r == z3.sat else "unknown"
    return Z3Result(status, time.perf_counter() - start)


def maximize(term: z3.ArithRef, assumptions: Iterable[z3.BoolRef],
             timeout_ms: int = DEFAULT_TIMEOUT_MS) -> tuple[int | None, float]:
    """A candidate maximum of ``term`` from Z3's optimizer (None when unbounded or not
    found). Not trusted by itself: callers confirm it with ``prove`` (SYM-bound-2)."""
    start = time.perf_counter()
    opt = z3.Optimize()
    opt.set("timeout", int(timeout_ms))
    for a in assumptions:
        opt.add(a)
    handle = opt.maximize(term)
    value = None
    if opt.check() == z3.sat:
        v = handle.value()
        if z3.is_int_value(v):
            value = v.as_long()
    return value, time.perf_counter() - start
