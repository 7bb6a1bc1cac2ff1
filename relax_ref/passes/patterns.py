"""A small pattern language over the bindings of a Relax dataflow block (spec/passes.md,
PASS-pattern-match-1..4), what FuseOpsByPattern matches. Not TVM's whole dataflow pattern
language: calls of ops, call_tir of a PrimFunc, constants, wildcards, alternatives and
predicates.

    mm = is_op("relax.matmul")(wildcard(), wildcard()).has_dtype("float32")
    pattern = is_op("relax.nn.relu")(is_op("relax.add")(mm, wildcard()))

A call pattern's argument that is itself a call (or call_tir) pattern looks through a
variable bound earlier in the same block to its value; that binding then belongs to the
match (PASS-pattern-match-2). Shape predicates ask the analyzer and fail unless it proves
them (PASS-pattern-match-3).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.solver.analyzer import Analyzer


@dataclass
class MatchState:
    """What one attempt has bound so far: ``bound`` maps a block variable's id to its value
    (the bindings a pattern may look through), ``taken`` the ids of variables whose bindings
    the match absorbed, ``matched`` each named pattern's expression."""

    bound: Mapping[int, rx.Expr]
    analyzer: Analyzer
    taken: dict[int, rx.Var] = field(default_factory=dict)
    named: dict[str, rx.Expr] = field(default_factory=dict)

    def fork(self) -> "MatchState":
        return MatchState(self.bound, self.analyzer, dict(self.taken), dict(self.named))

    def restore(self, other: "MatchState") -> None:
        self.taken, self.named = other.taken, other.named


class Pattern:
    """Matches an expression (``match``); ``|`` gives alternatives, ``has_*`` predicates."""

    def match(self, e: rx.Expr, state: MatchState) -> bool:
        raise NotImplementedError

    def __or__(self, other: "Pattern") -> "Pattern":
        return AltPattern(self, other)

    def has_attr(self, attrs: Mapping[str, object]) -> "Pattern":
        """The matched call's attributes include ``attrs`` (strings compare with dtypes'
        text)."""
        return CheckedPattern(self, lambda e, st: _has_attrs(e, attrs))

    def has_dtype(self, dtype: str) -> "Pattern":
        return CheckedPattern(self, lambda e, st: _tensor_sinfo(e) is not None
                              and str(_tensor_sinfo(e).dtype) == dtype)

    def has_ndim(self, ndim: int) -> "Pattern":
        return CheckedPattern(self, lambda e, st: _tensor_sinfo(e) is not None
                              and _tensor_sinfo(e).ndim == ndim)

    def has_shape(self, dims: Sequence[int | P.PrimExpr]) -> "Pattern":
        """PASS-pattern-match-3: each dimension proved equal by the analyzer."""
        return CheckedPattern(self, lambda e, st: _proved_shape(e, dims, st.analyzer))

    def named(self, name: str) -> "Pattern":
        """Record the matched expression under ``name`` (for a check callback)."""
        return NamedPattern(self, name)


@dataclass(eq=False)
class Wildcard(Pattern):
    def match(self, e, state):
        return True


@dataclass(eq=False)
class ConstPattern(Pattern):
    def match(self, e, state):
        return isinstance(e, rx.Constant)


@dataclass(eq=False)
class AltPattern(Pattern):
    left: Pattern
    right: Pattern

    def match(self, e, state):
        saved = state.fork()
        if self.left.match(e, state):
            return True
        state.restore(saved)
        return self.right.match(e, state)


@dataclass(eq=False)
class CheckedPattern(Pattern):
    inner: Pattern
    check: Callable[[rx.Expr, MatchState], bool]

    def match(self, e, state):
        return self.inner.match(e, state) and bool(self.check(_value_of(e, state), state))


@dataclass(eq=False)
class NamedPattern(Pattern):
    inner: Pattern
    name: str

    def match(self, e, state):
        if not self.inner.match(e, state):
            return False
        state.named[self.name] = e
        return True


class _CallLike(Pattern):
    """Looks through a block variable to its bound value (PASS-pattern-match-2)."""

    def match(self, e, state):
        if isinstance(e, rx.Var):
            value = state.bound.get(id(e))
            if value is None or id(e) in state.taken:
                return False
            saved = state.fork()
            state.taken[id(e)] = e
            if self.match_value(value, state):
                return True
            state.restore(saved)
            return False
        return False

    def match_value(self, value: rx.Expr, state: MatchState) -> bool:
        raise NotImplementedError


@dataclass(eq=False)
class CallPattern(_CallLike):
    op: str
    args: tuple[Pattern, ...]

    def match_value(self, value, state):
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name == self.op and len(value.args) == len(self.args)):
            return False
        return all(p.match(a, state) for p, a in zip(self.args, value.args))


@dataclass(eq=False)
class CallTIRPattern(_CallLike):
    name: str | None
    args: tuple[Pattern, ...] | None

    def match_value(self, value, state):
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name == "relax.call_tir" and len(value.args) >= 2
                and isinstance(value.args[0], rx.GlobalVar)):
            return False
        if self.name is not None and value.args[0].name_hint != self.name:
            return False
        if self.args is None:
            return True
        fields = value.args[1].fields if isinstance(value.args[1], rx.Tuple) else None
        return fields is not None and len(fields) == len(self.args) \
            and all(p.match(a, state) for p, a in zip(self.args, fields))


class _OpHead:
    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Pattern) -> CallPattern:
        return CallPattern(self.name, tuple(args))


def is_op(name: str) -> _OpHead:
    """``is_op("relax.add")(p1, p2)``: a call of the op whose arguments match."""
    return _OpHead(name)


def wildcard() -> Pattern:
    return Wildcard()


def is_const() -> Pattern:
    return ConstPattern()


def is_call_tir(name: str | None = None, args: Sequence[Pattern] | None = None) -> Pattern:
    """A call_tir of the PrimFunc ``name`` (any when None) whose arguments match ``args``."""
    return CallTIRPattern(name, None if args is None else tuple(args))


def match_binding(pattern: Pattern, var: rx.Var, bound: Mapping[int, rx.Expr],
                  analyzer: Analyzer) -> MatchState | None:
    """PASS-pattern-match-1: match ``pattern`` at the binding of ``var``; the state (with
    the absorbed bindings) when it matches, else None."""
    state = MatchState(bound, analyzer)
    return state if isinstance(pattern, (_CallLike, AltPattern, CheckedPattern, NamedPattern)) \
        and pattern.match(var, state) and state.taken else None


# -- predicates ---------------------------------------------------------------------------

def _value_of(e: rx.Expr, state: MatchState) -> rx.Expr:
    return state.bound.get(id(e), e) if isinstance(e, rx.Var) and id(e) in state.taken else e


def _tensor_sinfo(e: rx.Expr) -> si.TensorStructInfo | None:
    s = e.struct_info
    return s if isinstance(s, si.TensorStructInfo) else None


def _has_attrs(e: rx.Expr, attrs: Mapping[str, object]) -> bool:
    if not isinstance(e, rx.Call):
        return False
    for k, want in attrs.items():
        if k not in e.attrs:
            return False
        got = e.attrs.get(k)
        if not (got == want or (isinstance(want, str) and str(got) == want)):
            return False
    return True


def _proved_shape(e: rx.Expr, dims, analyzer: Analyzer) -> bool:
    s = _tensor_sinfo(e)
    if s is None or s.shape is None or len(s.shape) != len(dims):
        return False
    return all(analyzer.prove_equal(a, b) for a, b in zip(s.shape, dims))
