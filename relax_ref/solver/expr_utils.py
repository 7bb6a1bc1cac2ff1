"""PrimExpr utilities the solver and its callers share: structural keys (hashable and
equal exactly for structurally equal expressions), the compact text form messages use,
and the generic traversal helpers (``map_children``, ``substitute``).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from ..ir.fields import child_fields
from ..ir.prim_expr import (
    BinaryOp, Call, Cast, FloatImm, IntImm, Let, Max, Min, Mod, Not, PrimExpr, Select,
    StringImm, Var,
)


# ===========================================================================
# Structural keys and a compact text form
# ===========================================================================

#: Bound of the solver's memo tables (simplify.py).
MEMO_LIMIT = 200_000


def structural_key(e: PrimExpr) -> tuple:
    """A hashable value equal for two expressions exactly when they are the same tree:
    same node kinds, dtypes and constants, and the same Var *objects* (variables are
    compared by identity, as in TVM). Used for caches, opaque atoms and union-find.
    Computed once per node and kept on it (nodes are immutable); a variable's key holds
    the variable, so it is made afresh rather than kept (no reference cycle)."""
    if type(e) is Var:
        return ("Var", e)
    try:
        return e._structural_key
    except AttributeError:
        key = _compute_key(e)
        object.__setattr__(e, "_structural_key", key)
        return key


def _field_key(value: object) -> object:
    if isinstance(value, PrimExpr):
        return structural_key(value)
    if isinstance(value, (tuple, list)):
        return tuple(_field_key(v) for v in value)
    if isinstance(value, float):
        return ("float", value.hex())
    try:
        hash(value)
    except TypeError:
        return _Identity(value)
    return value


def _compute_key(e: PrimExpr) -> tuple:
    t = type(e)
    if t is Var:
        return ("Var", e)
    if t is IntImm:
        return ("IntImm", e.value, e.dtype)
    if t is FloatImm:
        return ("FloatImm", float(e.value).hex(), e.dtype)
    if isinstance(e, BinaryOp):
        return (t.__name__, e.dtype, structural_key(e.a), structural_key(e.b))
    parts: list[object] = [t.__name__]
    for name in child_fields(t):
        parts.append(_field_key(getattr(e, name)))
    return tuple(parts)


_FUNC_STYLE = {Min: "min", Max: "max", Mod: "truncmod"}


def expr_text(e: PrimExpr) -> str:
    """A short human-readable form (for ordering atoms, messages and the benchmark);
    the real printer lives in parser/printer.py."""
    t = type(e)
    if t is IntImm:
        return str(bool(e.value)) if e.dtype.is_bool else str(e.value)
    if t is Var:
        return e.name
    if t is FloatImm:
        return repr(e.value)
    if t is StringImm:
        return repr(e.value)
    if t in _FUNC_STYLE:
        return f"{_FUNC_STYLE[t]}({expr_text(e.a)}, {expr_text(e.b)})"
    if isinstance(e, BinaryOp):
        return f"{_operand_text(e.a)} {e.symbol} {_operand_text(e.b)}"
    if t is Not:
        return f"not {_operand_text(e.a)}"
    if t is Select:
        return (f"select({expr_text(e.condition)}, {expr_text(e.true_value)}, "
                f"{expr_text(e.false_value)})")
    if t is Cast:
        return f"{e.dtype}({expr_text(e.value)})"
    if t is Let:
        return f"(let {e.var.name} = {expr_text(e.value)} in {expr_text(e.body)})"
    if t is Call:
        return f"{e.op}({', '.join(expr_text(a) for a in e.args)})"
    parts = []
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, PrimExpr):
            parts.append(expr_text(v))
    return f"{t.__name__}({', '.join(parts)})"


def _operand_text(e: PrimExpr) -> str:
    text = expr_text(e)
    if isinstance(e, BinaryOp) and type(e) not in _FUNC_STYLE:
        return f"({text})"
    return text


# ===========================================================================
# Generic traversal helpers
# ===========================================================================

def map_children(e: PrimExpr, fn: Callable[[PrimExpr], PrimExpr]) -> PrimExpr:
    """``e`` with ``fn`` applied to each direct PrimExpr operand (``e`` itself when
    nothing changes). Works for any dataclass node, including ones defined elsewhere."""
    changes: dict[str, object] = {}
    for name in child_fields(type(e)):
        v = getattr(e, name)
        if isinstance(v, PrimExpr):
            nv = fn(v)
            if nv is not v:
                changes[name] = nv
        elif isinstance(v, (tuple, list)) and v and all(isinstance(x, PrimExpr) for x in v):
            nvs = [fn(x) for x in v]
            if any(a is not b for a, b in zip(nvs, v)):
                changes[name] = type(v)(nvs)
    return dataclasses.replace(e, **changes) if changes else e


def substitute(e: PrimExpr, mapping: dict[Var, PrimExpr]) -> PrimExpr:
    """``e`` with each free occurrence of a Var in ``mapping`` replaced (Var identity)."""
    if not mapping:
        return e
    return _Substitution(mapping).walk(e, mapping)


class _Substitution:
    """One ``substitute`` (a class, not a recursive closure: a closure that calls itself
    is a reference cycle, garbage only the cycle collector frees)."""

    __slots__ = ("mapping", "memo")

    def __init__(self, mapping: dict[Var, PrimExpr]) -> None:
        self.mapping = mapping
        self.memo: dict[int, PrimExpr] = {}

    def walk(self, x: PrimExpr, live: dict[Var, PrimExpr]) -> PrimExpr:
        if type(x) is Var:
            return live.get(x, x)
        if type(x) is Let:
            value = self.walk(x.value, live)
            inner = {k: v for k, v in live.items() if k is not x.var}
            body = self.walk(x.body, inner) if inner else x.body
            if value is x.value and body is x.body:
                return x
            return dataclasses.replace(x, value=value, body=body)
        if live is self.mapping:
            hit = self.memo.get(id(x))
            if hit is not None:
                return hit
            out = map_children(x, lambda c: self.walk(c, live))
            self.memo[id(x)] = out
            return out
        return map_children(x, lambda c: self.walk(c, live))
