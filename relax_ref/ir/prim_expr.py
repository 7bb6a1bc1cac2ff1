"""The one expression language of shape dimensions and TIR (paper section 3.1).

A shape dimension such as ``n * 4`` and a TIR index such as ``v_i0 * 8 + v_k`` are both
PrimExprs. Nodes are immutable; ``==`` is identity (variables are compared by identity,
as in TVM); structural comparison lives in ``ir.equal``. The arithmetic operators build
nodes (``n * 4`` gives ``Mul(n, IntImm(4))``) and never simplify; the solver does that.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Union

from .dtype import BOOL, INT64, DataType, parse_dtype
from .span import Span

_node = dataclass(frozen=True, slots=True, eq=False)


class PrimExpr:
    """Base of all scalar expressions; every node has a dtype. The one slot not a field
    holds the node's structural key once computed (``solver.expr_utils.structural_key``),
    so the key lives and dies with the node."""

    __slots__ = ("_structural_key",)

    def __add__(self, other): return Add(self, as_prim(other, self.dtype), self.dtype)
    def __radd__(self, other): return Add(as_prim(other, self.dtype), self, self.dtype)
    def __sub__(self, other): return Sub(self, as_prim(other, self.dtype), self.dtype)
    def __rsub__(self, other): return Sub(as_prim(other, self.dtype), self, self.dtype)
    def __mul__(self, other): return Mul(self, as_prim(other, self.dtype), self.dtype)
    def __rmul__(self, other): return Mul(as_prim(other, self.dtype), self, self.dtype)
    def __floordiv__(self, other): return FloorDiv(self, as_prim(other, self.dtype), self.dtype)
    def __rfloordiv__(self, other): return FloorDiv(as_prim(other, self.dtype), self, self.dtype)
    def __mod__(self, other): return FloorMod(self, as_prim(other, self.dtype), self.dtype)
    def __rmod__(self, other): return FloorMod(as_prim(other, self.dtype), self, self.dtype)
    def __neg__(self): return Sub(IntImm(0, self.dtype) if not self.dtype.is_float
                                  else FloatImm(0.0, self.dtype), self, self.dtype)


@_node
class IntImm(PrimExpr):
    value: int
    dtype: DataType = INT64
    span: Span | None = field(default=None, kw_only=True)


@_node
class FloatImm(PrimExpr):
    value: float
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class StringImm(PrimExpr):
    """A string operand of a TIR intrinsic call (e.g. the name in ``T.call_extern``)."""

    value: str
    dtype: DataType = field(default_factory=lambda: parse_dtype("handle"))
    span: Span | None = field(default=None, kw_only=True)


@_node
class Var(PrimExpr):
    """A scalar variable: a symbolic shape variable, a loop variable, a block iter var.

    ``size_var`` marks a variable known to be non-negative (TVM's SizeVar)."""

    name: str
    dtype: DataType = INT64
    size_var: bool = False
    span: Span | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        return f"Var({self.name}:{self.dtype})"


@_node
class BinaryOp(PrimExpr):
    """Base of the two-operand nodes; ``symbol`` is how TVMScript spells the operator
    (or the T.* function name for min/max/truncdiv/truncmod)."""

    a: PrimExpr
    b: PrimExpr
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)
    symbol: ClassVar[str] = "?"


class Add(BinaryOp): symbol = "+"
class Sub(BinaryOp): symbol = "-"
class Mul(BinaryOp): symbol = "*"
class Div(BinaryOp):
    """``/``: true division for floats, truncating division for integers (TIR Div)."""
    symbol = "/"
class Mod(BinaryOp):
    """``T.truncmod``: remainder with the sign of the dividend (TIR Mod)."""
    symbol = "truncmod"
class FloorDiv(BinaryOp): symbol = "//"
class FloorMod(BinaryOp): symbol = "%"
class Min(BinaryOp): symbol = "min"
class Max(BinaryOp): symbol = "max"
class EQ(BinaryOp): symbol = "=="
class NE(BinaryOp): symbol = "!="
class LT(BinaryOp): symbol = "<"
class LE(BinaryOp): symbol = "<="
class GT(BinaryOp): symbol = ">"
class GE(BinaryOp): symbol = ">="
class And(BinaryOp): symbol = "and"
class Or(BinaryOp): symbol = "or"


ARITH_OPS = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max)
COMPARE_OPS = (EQ, NE, LT, LE, GT, GE)
LOGIC_OPS = (And, Or)


@_node
class Not(PrimExpr):
    a: PrimExpr
    dtype: DataType = BOOL
    span: Span | None = field(default=None, kw_only=True)


@_node
class Select(PrimExpr):
    """``T.Select(cond, t, f)``: both arms are evaluated; the condition picks one."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class Cast(PrimExpr):
    dtype: DataType
    value: PrimExpr
    span: Span | None = field(default=None, kw_only=True)


@_node
class Let(PrimExpr):
    var: Var
    value: PrimExpr
    body: PrimExpr
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class Call(PrimExpr):
    """A call of a TIR intrinsic by its TVM name, e.g. ``tir.exp``, ``tir.if_then_else``,
    ``tir.call_extern``. The result dtype is stored, not derived."""

    op: str
    args: tuple[PrimExpr, ...]
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class Ramp(PrimExpr):
    """``T.Ramp(base, stride, lanes)``: the vector base, base+stride, ..."""

    base: PrimExpr
    stride: PrimExpr
    lanes: int
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class Broadcast(PrimExpr):
    value: PrimExpr
    lanes: int
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


PrimLike = Union[PrimExpr, int, float, bool]


def as_prim(value: PrimLike, dtype: DataType = INT64) -> PrimExpr:
    """A PrimExpr for a Python scalar (taking ``dtype`` for ints and floats)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool):
        return IntImm(int(value), BOOL)
    if isinstance(value, int):
        return IntImm(value, dtype if not dtype.is_float else INT64)
    if isinstance(value, float):
        return FloatImm(value, dtype if dtype.is_float else parse_dtype("float32"))
    raise TypeError(f"cannot make a PrimExpr from {value!r}")


def const(value: int, dtype: DataType = INT64) -> IntImm:
    return IntImm(value, dtype)


def is_zero_literal(e: object) -> bool:
    """Whether ``e`` is the integer literal 0 (as written: nothing is simplified)."""
    return isinstance(e, IntImm) and e.value == 0


def is_one_literal(e: object) -> bool:
    """Whether ``e`` is the integer literal 1 (as written)."""
    return isinstance(e, IntImm) and e.value == 1


def is_true_literal(e: object) -> bool:
    """Whether ``e`` is a nonzero integer (or true boolean) literal (as written)."""
    return isinstance(e, IntImm) and bool(e.value)


def literal_product(exprs, dtype: DataType = INT64) -> PrimExpr:
    """``1 * e0 * e1 * ...`` as nodes, unsimplified (the solver simplifies)."""
    out: PrimExpr = IntImm(1, dtype)
    for e in exprs:
        out = out * e
    return out


def children(e: PrimExpr) -> tuple[PrimExpr, ...]:
    """The direct sub-expressions of ``e`` (for generic traversals)."""
    if isinstance(e, BinaryOp):
        return (e.a, e.b)
    if isinstance(e, Not):
        return (e.a,)
    if isinstance(e, Select):
        return (e.condition, e.true_value, e.false_value)
    if isinstance(e, Cast):
        return (e.value,)
    if isinstance(e, Let):
        return (e.var, e.value, e.body)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Ramp):
        return (e.base, e.stride)
    if isinstance(e, Broadcast):
        return (e.value,)
    indices = getattr(e, "indices", None)  # tir.BufferLoad
    if indices is not None:
        return tuple(indices)
    return ()


def free_vars(e: PrimExpr) -> list[Var]:
    """Variables occurring in ``e`` that no Let inside ``e`` binds, in first-seen order."""
    t = type(e)
    if t is IntImm:  # the common cases of shape dimensions, answered without a walk
        return []
    if t is Var:
        return [e]
    seen: dict[int, Var] = {}
    _free_vars_into(e, seen, set())
    return list(seen.values())


def _free_vars_into(x: PrimExpr, seen: dict[int, Var], bound: set[int]) -> None:
    if isinstance(x, Var):
        if id(x) not in bound and id(x) not in seen:
            seen[id(x)] = x
        return
    if isinstance(x, Let):
        _free_vars_into(x.value, seen, bound)
        bound.add(id(x.var))
        _free_vars_into(x.body, seen, bound)
        return
    for c in children(x):
        _free_vars_into(c, seen, bound)
