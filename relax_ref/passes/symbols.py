"""Symbolic variables in Relax IR, as the passes rewrite them: one walk over every place a
symbolic expression can occur (signatures, binding annotations, match_cast targets, call
output annotations, attributes, ``R.shape``/``R.prim_value`` values), substitution, and
the collection of the symbols a function defines and uses. Shared by BindSymbolicVars,
BindParams, CanonicalizeBindings, InlinePrivateFunctions, LambdaLift and
RemoveUnusedParameters.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.uses import ExprWalker
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.simplify import simplify
from relax_ref.solver.simplify import substitute as substitute_prim

from .rewrite import Rewriter


# -- the shared walk over symbolic expressions ---------------------------------------------

def map_sinfo(s: si.StructInfo | None, fn: Callable[[P.PrimExpr], P.PrimExpr]):
    """``s`` with ``fn`` applied to every symbolic expression (``s`` itself when nothing
    changes)."""
    if s is None:
        return None

    def dims(values):
        if values is None:
            return None
        new = tuple(fn(d) for d in values)
        return values if all(a is b for a, b in zip(new, values)) else new

    if isinstance(s, si.PrimStructInfo):
        value = None if s.value is None else fn(s.value)
        return s if value is s.value else si.PrimStructInfo(s.dtype, value, span=s.span)
    if isinstance(s, si.ShapeStructInfo):
        values = dims(s.values)
        return s if values is s.values else si.ShapeStructInfo(values, s.ndim, span=s.span)
    if isinstance(s, si.TensorStructInfo):
        shape = dims(s.shape)
        return s if shape is s.shape else si.TensorStructInfo(shape, s.dtype, s.ndim, s.vdevice,
                                                              span=s.span)
    if isinstance(s, si.TupleStructInfo):
        fields = tuple(map_sinfo(f, fn) for f in s.fields)
        if all(a is b for a, b in zip(fields, s.fields)):
            return s
        return si.TupleStructInfo(fields, span=s.span)
    if isinstance(s, si.FuncStructInfo):
        params = None if s.params is None else tuple(map_sinfo(p, fn) for p in s.params)
        ret = map_sinfo(s.ret, fn)
        if ret is s.ret and (params is None or all(a is b for a, b in zip(params, s.params))):
            return s
        return si.FuncStructInfo(params, ret, s.purity, s.derive_func, span=s.span)
    return s


def _map_attr(value, fn):
    if isinstance(value, P.PrimExpr):
        return fn(value)
    if isinstance(value, si.StructInfo):
        return map_sinfo(value, fn)
    if isinstance(value, rx.Attrs):
        items = tuple((k, _map_attr(v, fn)) for k, v in value.items)
        return value if all(a[1] is b[1] for a, b in zip(items, value.items)) else rx.Attrs(items)
    if isinstance(value, tuple):
        new = tuple(_map_attr(v, fn) for v in value)
        return value if all(a is b for a, b in zip(new, value)) else new
    return value


class SymbolRewriter(Rewriter):
    """Sends every symbolic expression of Relax IR through ``prim``: annotations of
    parameters and bindings, match_cast targets, return annotations, call output
    annotations (``out_ty``, ``ty_args``) and attributes, ``R.shape`` and ``R.prim_value``.

    A variable whose annotation changes is rebuilt (and every use remapped); with
    ``fresh`` every bound Relax variable is rebuilt, so the result can live beside the
    original in one module (WF-var-2)."""

    def __init__(self, fresh: bool = False) -> None:
        super().__init__()
        self.fresh = fresh

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        return e

    def sinfo(self, s):
        return map_sinfo(s, self.prim)

    def define(self, var: rx.Var) -> rx.Var:
        """The variable that replaces ``var`` where it is defined."""
        mapped = self.var_map.get(id(var))
        if isinstance(mapped, rx.Var):
            return mapped
        if mapped is not None:  # replaced by an expression (a bound parameter)
            return var
        sinfo = self.sinfo(var.struct_info)
        if sinfo is var.struct_info and not self.fresh:
            return var
        new = type(var)(var.name_hint, sinfo, span=var.span)
        self.var_map[id(var)] = new
        return new

    def param(self, p: rx.Var) -> rx.Var:
        return self.define(p)

    def bind_var(self, var: rx.Var) -> rx.Var:
        return self.define(var)

    def function(self, func: rx.Function) -> rx.Function:
        params = tuple(self.param(p) for p in func.params
                       if not self._replaced(p))
        ret = self.sinfo(func.ret_struct_info)
        body = self.seq(func.body)
        if body is func.body and ret is func.ret_struct_info and len(params) == len(func.params) \
                and all(a is b for a, b in zip(params, func.params)):
            return func
        return rx.Function(params, body, ret, func.is_pure, func.attrs, func.is_private,
                           span=func.span)

    def _replaced(self, p: rx.Var) -> bool:
        mapped = self.var_map.get(id(p))
        return mapped is not None and not isinstance(mapped, rx.Var)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        var = self.define(b.var)  # first: a local function may call itself
        value = self.expr(b.value)
        if isinstance(b, rx.MatchCast):
            target = self.sinfo(b.struct_info)
            if value is b.value and var is b.var and target is b.struct_info:
                return [b]
            return [rx.MatchCast(var, value, target, span=b.span)]
        if value is b.value and var is b.var:
            return [b]
        return [rx.VarBinding(var, value, span=b.span)]

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.ShapeExpr):
            values = tuple(self.prim(d) for d in e.values)
            if all(a is b for a, b in zip(values, e.values)):
                return e
            return rx.ShapeExpr(values, span=e.span)
        if isinstance(e, rx.PrimValue):
            value = self.prim(e.value)
            return e if value is e.value else rx.PrimValue(value, span=e.span)
        return super().expr(e)

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        sinfo_args = tuple(self.sinfo(s) for s in e.sinfo_args)
        attrs = _map_attr(e.attrs, self.prim)
        if all(a is b for a, b in zip(sinfo_args, e.sinfo_args)) and attrs is e.attrs:
            return new
        return rx.Call(new.op, new.args, attrs, sinfo_args, span=e.span)


class _Substitute(SymbolRewriter):
    def __init__(self, mapping: Mapping[P.Var, P.PrimExpr], fresh: bool):
        super().__init__(fresh)
        self.mapping = dict(mapping)
        # Renaming needs no simplification; binding to values does (as TVM's Bind).
        self.renaming = all(isinstance(v, P.Var) for v in self.mapping.values())

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        t = type(e)
        if not self.mapping or t is P.IntImm:
            return e
        # a dimension is most often a variable: looked up as the substitution would
        new = self.mapping.get(e, e) if t is P.Var else substitute_prim(e, self.mapping)
        if new is e or self.renaming:
            return new
        return simplify(new)


def substitute_sinfo(s: si.StructInfo, mapping: Mapping[P.Var, P.PrimExpr]) -> si.StructInfo:
    """``s`` with the symbolic variables of ``mapping`` replaced (simplified as in
    ``substitute_symbols``)."""
    return _Substitute(mapping, False).sinfo(s)


def substitute_symbols(func: rx.Function, mapping: Mapping[P.Var, P.PrimExpr], *,
                       replace: Mapping[int, rx.Expr] | None = None,
                       fresh: bool = False) -> rx.Function:
    """``func`` with each symbolic variable in ``mapping`` replaced by its expression.

    ``replace`` maps ids of parameters to the expressions that take their place; those
    parameters are dropped from the signature. ``fresh`` rebuilds every bound Relax
    variable, so the copy may live in the same module as ``func``."""
    sub = _Substitute(mapping, fresh)
    sub.var_map.update(replace or {})
    return sub.function(func)


@dataclass
class Symbols:
    """The symbolic variables of a piece of IR: those it defines (bare in a parameter
    annotation or a match_cast target, SI-def-1) and all those it mentions."""

    defined: dict[int, P.Var] = field(default_factory=dict)
    used: dict[int, P.Var] = field(default_factory=dict)

    def free(self) -> list[P.Var]:
        return [v for k, v in self.used.items() if k not in self.defined]


class _CollectSymbols(ExprWalker):
    """The walk of ``SymbolRewriter`` (the same places, in the same order), reading only:
    nothing is rebuilt."""

    def __init__(self) -> None:
        self.out = Symbols()

    def prim(self, e: P.PrimExpr) -> None:
        t = type(e)
        if t is P.Var:
            self.out.used.setdefault(id(e), e)
        elif t is not P.IntImm:
            for v in P.free_vars(e):
                self.out.used.setdefault(id(v), v)

    def sinfo(self, s: si.StructInfo | None) -> None:
        """As ``map_sinfo`` visits ``s``."""
        if isinstance(s, si.PrimStructInfo):
            if s.value is not None:
                self.prim(s.value)
        elif isinstance(s, si.ShapeStructInfo):
            for d in s.values or ():
                self.prim(d)
        elif isinstance(s, si.TensorStructInfo):
            for d in s.shape or ():
                self.prim(d)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                self.sinfo(f)
        elif isinstance(s, si.FuncStructInfo):
            for p in s.params or ():
                self.sinfo(p)
            self.sinfo(s.ret)

    def attr(self, value) -> None:
        """As ``_map_attr`` visits ``value``."""
        if isinstance(value, P.PrimExpr):
            self.prim(value)
        elif isinstance(value, si.StructInfo):
            self.sinfo(value)
        elif isinstance(value, rx.Attrs):
            for _, v in value.items:
                self.attr(v)
        elif isinstance(value, tuple):
            for v in value:
                self.attr(v)

    def function(self, func: rx.Function) -> None:
        for v in defined_symbols(p.struct_info for p in func.params
                                 if p.struct_info is not None):
            self.out.defined.setdefault(id(v), v)
        for p in func.params:
            self.sinfo(p.struct_info)
        self.sinfo(func.ret_struct_info)
        self.seq(func.body)

    def binding(self, b: rx.Binding) -> None:
        match_cast = isinstance(b, rx.MatchCast)
        if match_cast:
            for v in defined_symbols([b.struct_info]):
                self.out.defined.setdefault(id(v), v)
        self.sinfo(b.var.struct_info)
        self.expr(b.value)
        if match_cast:
            self.sinfo(b.struct_info)

    def leaf(self, e: rx.Expr) -> None:
        if isinstance(e, rx.ShapeExpr):
            for d in e.values:
                self.prim(d)
        elif isinstance(e, rx.PrimValue):
            self.prim(e.value)

    def call(self, e: rx.Call) -> None:
        super().call(e)
        for s in e.sinfo_args:
            self.sinfo(s)
        self.attr(e.attrs)


def symbols_of(e: rx.Function | rx.Expr) -> Symbols:
    """The symbolic variables ``e`` defines and mentions (nested functions included)."""
    c = _CollectSymbols()
    if isinstance(e, rx.Function):
        c.function(e)
    else:
        c.expr(e)
    return c.out


def sinfo_symbols(s: si.StructInfo | None) -> dict[int, P.Var]:
    """The symbolic variables ``s`` mentions (id -> variable), in the order
    ``map_sinfo`` meets them."""
    c = _CollectSymbols()
    c.sinfo(s)
    return c.out.used


def fresh_symbols(symbols) -> dict[P.Var, P.Var]:
    """A fresh variable, of the same name and kind, for each of ``symbols``."""
    return {v: P.Var(v.name, v.dtype, v.size_var, span=v.span) for v in symbols}
