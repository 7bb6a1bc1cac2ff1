"""Exact evaluation of integer and boolean PrimExprs (spec/struct_info.md, "Symbolic
expressions", rules SYM-int-*, SYM-div-*, SYM-cast-*, SYM-trap-1).

This is the definition the simplifier, the Z3 bridge and the tests are checked against,
so it is written for clarity: one case per node kind, Python integers (unbounded), no
shortcuts. The interpreter reuses it for shape expressions.
"""
from __future__ import annotations

from typing import Mapping, Union

from ..ir.dtype import DataType
from ..numerics import wrap_int
from ..ir.prim_expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Call, Cast, Div, FloorDiv, FloorMod, IntImm, Let,
    Max, Min, Mod, Mul, Not, Or, PrimExpr, Select, Sub, Var,
)

IntOrBool = Union[int, bool]


class EvaluationError(Exception):
    """The expression has no integer value under the given assignment."""


class DivisionByZero(EvaluationError):
    """SYM-trap-1: a division or remainder by zero has no value (it traps)."""


class UnboundVariable(EvaluationError):
    """A free variable of the expression is missing from the environment."""


class UnsupportedExpr(EvaluationError):
    """A node outside the integer/boolean fragment (floats, unknown intrinsics, ...)."""


# ---------------------------------------------------------------------------
# Integer division, TIR style (SYM-div-1 .. SYM-div-4)
# ---------------------------------------------------------------------------

def floordiv(a: int, b: int) -> int:
    """SYM-div-1: the quotient rounded toward minus infinity (Python's ``//``)."""
    if b == 0:
        raise DivisionByZero(f"floordiv({a}, 0)")
    return a // b


def floormod(a: int, b: int) -> int:
    """SYM-div-2: ``a - b * floordiv(a, b)``; takes the sign of the divisor."""
    if b == 0:
        raise DivisionByZero(f"floormod({a}, 0)")
    return a % b


def truncdiv(a: int, b: int) -> int:
    """SYM-div-3: the quotient rounded toward zero (C's ``/``)."""
    if b == 0:
        raise DivisionByZero(f"truncdiv({a}, 0)")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def truncmod(a: int, b: int) -> int:
    """SYM-div-4: ``a - b * truncdiv(a, b)``; takes the sign of the dividend."""
    if b == 0:
        raise DivisionByZero(f"truncmod({a}, 0)")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


# ---------------------------------------------------------------------------
# Casts between integer types (SYM-cast-1, SYM-cast-2)
# ---------------------------------------------------------------------------

def dtype_range(dtype: DataType) -> tuple[int, int]:
    """The closed range of values of an integer or bool type (``DataType.int_range``)."""
    try:
        return dtype.int_range()
    except ValueError as err:
        raise UnsupportedExpr(str(err)) from None


def cast_keeps_value(src: DataType, dst: DataType) -> bool:
    """True when every value of ``src`` is a value of ``dst`` (a widening cast)."""
    slo, shi = dtype_range(src)
    dlo, dhi = dtype_range(dst)
    return dlo <= slo and shi <= dhi


def cast_int(value: int, src: DataType, dst: DataType) -> int:
    """SYM-cast-1: a widening cast keeps the value; SYM-cast-2: any other cast to an
    integer type wraps modulo 2**bits into the target's range (two's complement)."""
    if cast_keeps_value(src, dst):
        return value
    return wrap_int(value, dst)  # cast_keeps_value checked both have an integer range


# ---------------------------------------------------------------------------
# The evaluator
# ---------------------------------------------------------------------------

_ARITH = {
    Add: lambda a, b: a + b,
    Sub: lambda a, b: a - b,
    Mul: lambda a, b: a * b,
    FloorDiv: floordiv,
    FloorMod: floormod,
    Div: truncdiv,
    Mod: truncmod,
    Min: min,
    Max: max,
}
_COMPARE = {
    EQ: lambda a, b: a == b,
    NE: lambda a, b: a != b,
    LT: lambda a, b: a < b,
    LE: lambda a, b: a <= b,
    GT: lambda a, b: a > b,
    GE: lambda a, b: a >= b,
}


def _is_scalar_int_or_bool(dtype: DataType) -> bool:
    return dtype.lanes == 1 and (dtype.is_integer or dtype.is_bool)


def evaluate_int(e: PrimExpr, env: Mapping[Var, IntOrBool]) -> IntOrBool:
    """The value of ``e`` when each free variable takes its value in ``env`` (keyed by the
    Var object). Returns an ``int`` for integer dtypes and a ``bool`` for ``bool``.

    Arithmetic is on unbounded integers (SYM-int-1); only casts wrap (SYM-cast-2).
    Raises DivisionByZero, UnboundVariable or UnsupportedExpr (all EvaluationError)."""
    return _eval(e, env)


def _eval(e: PrimExpr, env: Mapping[Var, IntOrBool]) -> IntOrBool:
    if not _is_scalar_int_or_bool(e.dtype):
        raise UnsupportedExpr(f"{type(e).__name__} of type {e.dtype}")
    t = type(e)
    if t is IntImm:
        return bool(e.value) if e.dtype.is_bool else e.value
    if t is Var:
        if e not in env:
            raise UnboundVariable(e.name)
        value = env[e]
        return bool(value) if e.dtype.is_bool else int(value)
    if t in _ARITH:
        return _ARITH[t](_eval_int(e.a, env), _eval_int(e.b, env))
    if t in _COMPARE:
        if not (_is_scalar_int_or_bool(e.a.dtype) and _is_scalar_int_or_bool(e.b.dtype)):
            raise UnsupportedExpr(f"comparison of {e.a.dtype} values")
        return _COMPARE[t](_eval_int(e.a, env), _eval_int(e.b, env))
    if t is And:
        # Both operands are evaluated: TIR's And is not short-circuiting, so a trap in
        # either operand is a trap of the whole (SYM-trap-1).
        a, b = _eval_bool(e.a, env), _eval_bool(e.b, env)
        return a and b
    if t is Or:
        a, b = _eval_bool(e.a, env), _eval_bool(e.b, env)
        return a or b
    if t is Not:
        return not _eval_bool(e.a, env)
    if t is Select:
        # Select evaluates both arms (TIR semantics); if_then_else is the lazy one.
        c = _eval_bool(e.condition, env)
        tv, fv = _eval(e.true_value, env), _eval(e.false_value, env)
        return tv if c else fv
    if t is Cast:
        return _eval_cast(e, env)
    if t is Let:
        inner = dict(env)
        inner[e.var] = _eval(e.value, env)
        return _eval(e.body, inner)
    if t is Call:
        return _eval_call(e, env)
    raise UnsupportedExpr(type(e).__name__)


def _eval_int(e: PrimExpr, env: Mapping[Var, IntOrBool]) -> int:
    return int(_eval(e, env))


def _eval_bool(e: PrimExpr, env: Mapping[Var, IntOrBool]) -> bool:
    return bool(_eval(e, env))


def _eval_cast(e: Cast, env: Mapping[Var, IntOrBool]) -> IntOrBool:
    src = e.value.dtype
    if not _is_scalar_int_or_bool(src):
        raise UnsupportedExpr(f"cast from {src}")
    value = _eval(e.value, env)
    if e.dtype.is_bool:
        return value != 0
    return cast_int(int(value), src, e.dtype)


def _eval_call(e: Call, env: Mapping[Var, IntOrBool]) -> IntOrBool:
    """The integer intrinsics with a fixed meaning (SYM-call-1); others are unsupported."""
    op, args = e.op, e.args
    if op == "tir.if_then_else" and len(args) == 3:
        # Lazy: only the chosen arm is evaluated.
        return _eval(args[1], env) if _eval_bool(args[0], env) else _eval(args[2], env)
    if op in ("tir.shift_left", "tir.shift_right") and len(args) == 2:
        a, k = _eval_int(args[0], env), _eval_int(args[1], env)
        if k < 0:
            raise EvaluationError(f"{op} by a negative amount {k}")
        return a << k if op == "tir.shift_left" else a >> k
    if op in ("tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor") and len(args) == 2:
        a, b = _eval_int(args[0], env), _eval_int(args[1], env)
        if op == "tir.bitwise_and":
            return a & b
        return a | b if op == "tir.bitwise_or" else a ^ b
    if op == "tir.bitwise_not" and len(args) == 1:
        return ~_eval_int(args[0], env)
    raise UnsupportedExpr(f"call of {op}")
