"""Building PrimExprs from TVMScript: literals, arithmetic with TVM's dtype matching,
and the ``T.*`` expression functions (spec/syntax.md, section "TIR expressions")."""
from __future__ import annotations

import math

import ml_dtypes

from relax_ref.ir import prim_expr as P
from relax_ref.ir.dtype import BOOL, INT32, INT64, DataType, DTypeError, parse_dtype
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.ir.text import (BOOL_INTRINSICS, DTYPE_LAST_INTRINSICS, FIXED_DTYPE_INTRINSICS,
                               INTRINSIC_ALIASES, SAME_DTYPE_INTRINSICS)

FLOAT32 = parse_dtype("float32")

# Python operator token -> PrimExpr node class.
BINARY_NODES = {
    "+": P.Add, "-": P.Sub, "*": P.Mul, "/": P.Div, "//": P.FloorDiv, "%": P.FloorMod,
    "<": P.LT, "<=": P.LE, ">": P.GT, ">=": P.GE, "==": P.EQ, "!=": P.NE,
}

# T.<name>(a, b) functions that build a two-operand node.
BINARY_FUNCS = {
    "floordiv": P.FloorDiv, "floormod": P.FloorMod, "truncdiv": P.Div, "truncmod": P.Mod,
    "Div": P.Div, "Mod": P.Mod, "FloorDiv": P.FloorDiv, "FloorMod": P.FloorMod,
    "min": P.Min, "max": P.Max, "Min": P.Min, "Max": P.Max,
    "And": P.And, "Or": P.Or, "EQ": P.EQ, "NE": P.NE, "LT": P.LT, "LE": P.LE,
    "GT": P.GT, "GE": P.GE, "Add": P.Add, "Sub": P.Sub, "Mul": P.Mul,
}

class PrimBuildError(ValueError):
    """An invalid PrimExpr construction; the builder adds the span."""


def fits(value: int, dtype: DataType) -> bool:
    """Whether the integer ``value`` is a value of the integer type ``dtype``."""
    lo, hi = dtype.int_range()
    return lo <= value <= hi


def int_literal_dtype(value: int, default: DataType) -> DataType:
    """SYN-prim-1: the type of an untyped integer literal: ``default`` when the value fits
    it (int32 in TIR), else int32 or else int64, the first that holds it, as TVM's
    ``tvm.runtime.const`` types a Python int; a value beyond int64 is an error, as in
    TVM."""
    if default.is_integer and default.lanes == 1 and fits(value, default):
        return default
    for dtype in (INT32, INT64):
        if fits(value, dtype):
            return dtype
    raise PrimBuildError(f"integer literal {value} does not fit int64 (the widest type an "
                         f"untyped integer literal takes)")


def float_const(value, dtype: DataType) -> P.FloatImm:
    """A float constant of ``dtype``. A finite value beyond the type's largest is an
    error, as TVM's "Literal value ... exceeds maximum of float32" (SYN-prim-1); infinities
    are written as strings, ``T.float32("inf")``."""
    value = float(value)
    if math.isfinite(value) and dtype.lanes == 1:
        try:
            biggest = float(ml_dtypes.finfo(numpy_dtype(dtype)).max)
        except (DTypeError, ValueError, TypeError):  # no NumPy type: nothing to check
            biggest = math.inf
        if abs(value) > biggest:
            raise PrimBuildError(f"float literal {value!r} is beyond the largest {dtype} "
                                 f"({biggest!r}); TVM refuses it too")
    return P.FloatImm(value, dtype)


def literal(value, dtype: DataType) -> P.PrimExpr:
    """A constant of ``dtype`` for a Python bool, int or float. An integer must be a value
    of an integer ``dtype`` (SYN-prim-1; TVM: "Literal value ... exceeds range")."""
    if isinstance(value, bool):
        return P.IntImm(int(value), BOOL if dtype.is_bool or not dtype.is_float else dtype)
    if dtype.is_float:
        return float_const(value, dtype)
    if isinstance(value, float):
        if not value.is_integer():
            raise PrimBuildError(f"float literal {value!r} where an integer of type {dtype} is expected")
        value = int(value)
    value = int(value)
    if dtype.is_integer and not fits(value, dtype):
        lo, hi = dtype.int_range()
        raise PrimBuildError(f"integer literal {value} does not fit {dtype}: expected a value "
                             f"in [{lo}, {hi}]")
    return P.IntImm(value, dtype)


def typed_const(dtype: DataType, value) -> P.PrimExpr:
    """``T.float32(0.0)``, ``T.int64(16)``, ``T.bool(True)``."""
    if dtype.is_float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PrimBuildError(f"T.{dtype}() needs a number")
        return float_const(value, dtype)
    if dtype.is_bool:
        if not isinstance(value, (bool, int)):
            raise PrimBuildError("T.bool() needs True or False")
        return P.IntImm(int(bool(value)), BOOL)
    if isinstance(value, float):
        if not value.is_integer():
            raise PrimBuildError(f"T.{dtype}() needs an integer, got {value!r}")
        value = int(value)
    if not isinstance(value, int):
        raise PrimBuildError(f"T.{dtype}() needs a number")
    if dtype.is_integer and dtype.lanes == 1 and not fits(value, dtype):
        lo, hi = dtype.int_range()
        raise PrimBuildError(f"T.{dtype}({value}): the value is outside the range of "
                             f"{dtype}, [{lo}, {hi}] (TVM refuses it too)")
    return P.IntImm(int(value), dtype)


def as_expr(value, default: DataType) -> P.PrimExpr:
    if isinstance(value, P.PrimExpr):
        return value
    if isinstance(value, (bool, int, float)):
        if isinstance(value, float) and not default.is_float:
            return float_const(value, FLOAT32)
        if isinstance(value, int) and not isinstance(value, bool) and not default.is_float \
                and not default.is_bool:
            return literal(value, int_literal_dtype(value, default))
        return literal(value, default)
    raise PrimBuildError(f"expected a scalar expression, found {describe(value)}")


def describe(value) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (tuple, list)):
        return "a tuple"
    if value is None:
        return "None"
    return type(value).__name__


def _is_literal(x) -> bool:
    return isinstance(x, (P.IntImm, P.FloatImm)) and x.dtype.lanes == 1


def match_types(a: P.PrimExpr, b: P.PrimExpr) -> tuple[P.PrimExpr, P.PrimExpr]:
    """Bring two operands to one dtype as TVM's binary operators do: a literal takes the
    other side's type, an integer meets a float as that float, narrower integers widen,
    bool meets an integer as that integer."""
    da, db = a.dtype, b.dtype
    if da == db:
        return a, b
    if _is_literal(b) and not _is_literal(a) and _retypes(b, da):
        return a, _retype_literal(b, da)
    if _is_literal(a) and not _is_literal(b) and _retypes(a, db):
        return _retype_literal(a, db), b
    if da.is_float and not db.is_float:
        return a, P.Cast(da, b)
    if db.is_float and not da.is_float:
        return P.Cast(db, a), b
    if da.is_bool and db.is_integer:
        return P.Cast(db, a), b
    if db.is_bool and da.is_integer:
        return a, P.Cast(da, b)
    if da.bits >= db.bits:
        return a, (_retype_literal(b, da) if _retypes(b, da) else P.Cast(da, b))
    return (_retype_literal(a, db) if _retypes(a, db) else P.Cast(db, a)), b


def _retypes(x: P.PrimExpr, dtype: DataType) -> bool:
    """Whether the literal ``x`` can take ``dtype`` keeping its value (SYN-prim-1): an
    integer literal that does not fit an integer type keeps its own type, and the other
    rules apply (as TVM, where the literal is typed first, SYN-prim-1)."""
    if not _is_literal(x):
        return False
    if dtype.is_integer and dtype.lanes == 1:
        if isinstance(x, P.FloatImm):  # a fraction becomes a cast, as before
            return not math.isfinite(x.value) or not x.value.is_integer() or \
                fits(int(x.value), dtype)
        return x.dtype.is_bool or fits(x.value, dtype)
    return True


def _retype_literal(x: P.PrimExpr, dtype: DataType) -> P.PrimExpr:
    if isinstance(x, P.FloatImm):
        if dtype.is_float:
            return P.FloatImm(x.value, dtype)
        return P.Cast(dtype, x) if not x.value.is_integer() else P.IntImm(int(x.value), dtype)
    if isinstance(x, P.IntImm):
        if dtype.is_float:
            return P.FloatImm(float(x.value), dtype)
        if dtype.is_bool:
            return P.IntImm(int(bool(x.value)), BOOL)
        return P.IntImm(x.value, dtype)
    return x


def binary(node_cls, a, b, default: DataType = INT32) -> P.PrimExpr:
    """``a <op> b`` with dtype matching; comparisons and logic give bool."""
    a = as_expr(a, default if not isinstance(b, P.PrimExpr) else _literal_default(b.dtype))
    b = as_expr(b, a.dtype if not a.dtype.is_bool else default)
    if node_cls in (P.And, P.Or):
        a, b = _to_bool(a), _to_bool(b)
        return node_cls(a, b, BOOL)
    a, b = match_types(a, b)
    if node_cls in P.COMPARE_OPS:
        return node_cls(a, b, BOOL.with_lanes(a.dtype.lanes))
    return node_cls(a, b, a.dtype)


def _literal_default(dtype: DataType) -> DataType:
    return dtype if not dtype.is_bool else INT32


def _to_bool(x: P.PrimExpr) -> P.PrimExpr:
    return x if x.dtype.is_bool else P.NE(x, literal(0, x.dtype), BOOL)


def negate(a, default: DataType) -> P.PrimExpr:
    a = as_expr(a, default)
    if isinstance(a, P.IntImm) and not a.dtype.is_bool:
        return P.IntImm(-a.value, a.dtype)
    if isinstance(a, P.FloatImm):
        return P.FloatImm(-a.value, a.dtype)
    zero = P.FloatImm(0.0, a.dtype) if a.dtype.is_float else P.IntImm(0, a.dtype)
    return P.Sub(zero, a, a.dtype)


def logical_not(a) -> P.PrimExpr:
    a = as_expr(a, BOOL)
    return P.Not(_to_bool(a), BOOL)


def cast(dtype: DataType, value, default: DataType = INT32) -> P.PrimExpr:
    value = as_expr(value, default)
    if value.dtype == dtype:
        return value
    return P.Cast(dtype, value)


def select(cond, t, f, default: DataType = INT32) -> P.PrimExpr:
    cond = _to_bool(as_expr(cond, BOOL))
    t = as_expr(t, default if not isinstance(f, P.PrimExpr) else f.dtype)
    f = as_expr(f, t.dtype)
    t, f = match_types(t, f)
    return P.Select(cond, t, f, t.dtype)


def intrinsic(name: str, args: list, dtype: DataType | None, default: DataType = INT32) -> P.PrimExpr:
    """A call of the TIR intrinsic ``tir.<name>``."""
    name = INTRINSIC_ALIASES.get(name, name)
    exprs = [a if isinstance(a, P.PrimExpr) else (P.StringImm(a) if isinstance(a, str)
             else as_expr(a, default)) for a in args]
    if name == "if_then_else":
        if len(exprs) != 3:
            raise PrimBuildError("T.if_then_else takes (cond, then, else)")
        t, f = match_types(exprs[1], exprs[2])
        return P.Call("tir.if_then_else", (_to_bool(exprs[0]), t, f), t.dtype)
    if dtype is None:
        if name in BOOL_INTRINSICS:
            dtype = BOOL
        elif name in FIXED_DTYPE_INTRINSICS:
            dtype = FIXED_DTYPE_INTRINSICS[name]
        elif exprs and name in SAME_DTYPE_INTRINSICS:
            if len(exprs) == 2 and name not in ("ldexp", "shift_left", "shift_right"):
                a, b = match_types(exprs[0], exprs[1])
                exprs = [a, b]
            dtype = exprs[0].dtype
        else:
            raise PrimBuildError(f"the result type of T.{name} is not known; "
                                 f"write it as T.call_pure_extern or give dtype=")
    return P.Call(f"tir.{name}", tuple(exprs), dtype)


def extreme_value(kind: str, dtype: DataType) -> P.PrimExpr:
    """``T.max_value(dtype)`` / ``T.min_value(dtype)`` / ``T.infinity(dtype)`` folded to
    the constant TVM folds them to."""
    if dtype.is_float:
        if kind == "infinity":
            return P.FloatImm(math.inf, dtype)
        if kind == "neg_infinity":
            return P.FloatImm(-math.inf, dtype)
        import numpy as np

        from relax_ref.ir.numpy_dtype import numpy_dtype

        info = np.finfo(numpy_dtype(dtype))
        value = float(info.max) if kind == "max_value" else float(info.min)
        return P.FloatImm(value, dtype)
    if dtype.is_bool:
        return P.IntImm(1 if kind == "max_value" else 0, BOOL)
    if not dtype.is_integer:
        raise PrimBuildError(f"T.{kind} is not defined for {dtype}")
    lo, hi = dtype.int_range()
    if kind in ("infinity", "neg_infinity"):
        raise PrimBuildError(f"T.{kind} is not defined for {dtype}")
    return P.IntImm(hi if kind == "max_value" else lo, dtype)


def dtype_from_name(name: str) -> DataType:
    try:
        return parse_dtype(name)
    except DTypeError as err:
        raise PrimBuildError(str(err)) from None


__all__ = ["BINARY_NODES", "BINARY_FUNCS", "PrimBuildError", "literal", "typed_const",
           "as_expr", "binary", "negate", "logical_not", "cast", "select", "intrinsic",
           "extreme_value", "dtype_from_name", "match_types", "fits", "int_literal_dtype",
           "INT64", "INT32", "BOOL"]
