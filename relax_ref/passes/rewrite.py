"""The one traversal every pass uses (STYLE.md: passes do not write their own).

``Rewriter`` rebuilds Relax IR bottom-up. A subclass overrides only what its pass is
about (``binding``, ``call``, ``use``...). Unchanged subtrees are returned as the same
objects, and variables are remapped consistently through ``var_map``. Rebuilt
expressions carry no struct info: a pass ends with ``normalize`` (``finish``), which
deduces it again, so no pass can leave stale facts behind.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.uses import variable_uses
from relax_ref.ops.registry import lookup
from relax_ref.semantics.tir_exprs import prim_func_is_pure


class Rewriter:
    def __init__(self) -> None:
        self.var_map: dict[int, rx.Expr] = {}

    # -- module and functions ---------------------------------------------------------------
    def module(self, mod: rx.IRModule) -> rx.IRModule:
        funcs = {}
        for name, f in mod.functions.items():
            funcs[name] = self.global_function(name, f) if isinstance(f, rx.Function) else \
                self.prim_func(name, f)
        return mod.with_functions({k: v for k, v in funcs.items() if v is not None})

    def global_function(self, name: str, func: rx.Function) -> rx.Function | None:
        return self.function(func)

    def prim_func(self, name: str, func: tir.PrimFunc) -> tir.PrimFunc | None:
        return func

    def function(self, func: rx.Function) -> rx.Function:
        params = tuple(self.param(p) for p in func.params)
        body = self.seq(func.body)
        if body is func.body and all(a is b for a, b in zip(params, func.params)):
            return func
        return rx.Function(params, body, func.ret_struct_info, func.is_pure, func.attrs,
                           func.is_private, span=func.span)

    def param(self, p: rx.Var) -> rx.Var:
        return p

    # -- blocks and bindings ----------------------------------------------------------------
    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        blocks = []
        changed = False
        for block in s.blocks:
            new = self.block(block)
            changed |= new is not block
            if new is not None and new.bindings:
                blocks.append(new)
            elif new is not None or block.bindings:
                changed = True
        body = self.expr(s.body)
        if not changed and body is s.body:
            return s
        return rx.SeqExpr(tuple(blocks), body, span=s.span)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        out: list[rx.Binding] = []
        changed = False
        for b in block.bindings:
            new = self.binding(b)
            if len(new) != 1 or new[0] is not b:
                changed = True
            out.extend(new)
        if not changed:
            return block
        return type(block)(tuple(out), span=block.span)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        """The bindings that replace ``b`` (none to drop it)."""
        value = self.expr(b.value)
        var = self.bind_var(b.var)
        if value is b.value and var is b.var:
            return [b]
        if isinstance(b, rx.MatchCast):
            return [rx.MatchCast(var, value, b.struct_info, span=b.span)]
        return [rx.VarBinding(var, value, span=b.span)]

    def bind_var(self, var: rx.Var) -> rx.Var:
        """The variable a binding defines (a pass may rename or retype it)."""
        mapped = self.var_map.get(id(var))
        return mapped if isinstance(mapped, rx.Var) else var

    # -- expressions --------------------------------------------------------------------------
    def use(self, v: rx.Var) -> rx.Expr:
        return self.var_map.get(id(v), v)

    def expr(self, e: rx.Expr) -> rx.Expr:
        t = type(e)
        if t in _LEAF_TYPES:  # the common case first: no isinstance chain
            return e
        if isinstance(e, rx.Var):
            return self.use(e)
        if isinstance(e, rx.Call):
            return self.call(e)
        if isinstance(e, rx.Tuple):
            fields = tuple(self.expr(f) for f in e.fields)
            if all(a is b for a, b in zip(fields, e.fields)):
                return e
            return rx.Tuple(fields, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            t = self.expr(e.tuple_value)
            return e if t is e.tuple_value else rx.TupleGetItem(t, e.index, span=e.span)
        if isinstance(e, rx.If):
            cond = self.expr(e.cond)
            then_b, else_b = self.seq(e.true_branch), self.seq(e.false_branch)
            if cond is e.cond and then_b is e.true_branch and else_b is e.false_branch:
                return e
            return rx.If(cond, then_b, else_b, span=e.span)
        if isinstance(e, rx.SeqExpr):
            return self.seq(e)
        if isinstance(e, rx.Function):
            return self.function(e)
        return e  # leaves: constants, shapes, prim values, strings, globals, ops

    def call(self, e: rx.Call) -> rx.Expr:
        op = self.expr(e.op) if isinstance(e.op, rx.Var) else e.op
        expr = self.expr
        changed = op is not e.op
        args = []
        for a in e.args:
            new = expr(a)
            changed |= new is not a
            args.append(new)
        if not changed:
            return e
        return rx.Call(op, tuple(args), e.attrs, e.sinfo_args, span=e.span)


# Leaves a Rewriter returns as they are (exact types: a subclass takes the general path).
_LEAF_TYPES = frozenset({rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm,
                         rx.DataTypeImm, rx.GlobalVar, rx.ExternFunc, rx.Op})


def may_have_effects(func: rx.Function) -> bool:
    """Whether ``func``'s ordinary blocks may hold impure calls (WF-pure-2..3)."""
    from relax_ref.semantics.well_formed import FORCE_PURE

    return not func.is_pure or func.attrs.get(FORCE_PURE) is True


class EffectScopeRewriter(Rewriter):
    """A Rewriter that knows, at each binding, whether an effect may go there: inside a
    function that may have effects (``effects_allowed``) and outside dataflow blocks
    (``in_dataflow``), WF-pure-2..3. The lowering passes that introduce effects
    (allocations, kills, packed calls) rewrite only where both allow it."""

    def __init__(self) -> None:
        super().__init__()
        self.effects_allowed = False
        self.in_dataflow = False

    def function(self, func: rx.Function) -> rx.Function:
        saved = self.effects_allowed, self.in_dataflow
        self.effects_allowed, self.in_dataflow = may_have_effects(func), False
        try:
            return super().function(func)
        finally:
            self.effects_allowed, self.in_dataflow = saved

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        saved = self.in_dataflow
        self.in_dataflow = isinstance(block, rx.DataflowBlock)
        try:
            return super().block(block)
        finally:
            self.in_dataflow = saved


class RetypingRewriter(Rewriter):
    """A Rewriter under which a variable binding whose value changed binds a fresh
    variable without struct info, so that ``finish`` deduces it from the new value
    (TVM's ``ExprMutator::ReEmitBinding`` re-types the variable the same way, written
    annotation or not). Without this, the struct info the previous normalization put on
    the variable would act as an annotation and keep facts the rewrite made finer
    coarse (``z: R.Tensor(ndim=2) = R.add(R.const(...), x)`` after a reshape folds).

    Bindings of function literals keep their variable: a local function may call itself
    through it. Overrides of ``use`` must return ``self.var_map.get(id(v), v)`` for the
    variables they do not replace themselves."""

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        out = super().binding(b)
        if not (isinstance(b, rx.VarBinding) and len(out) == 1
                and isinstance(out[0], rx.VarBinding) and out[0].value is not b.value
                and not isinstance(b.value, rx.Function)):
            return out
        var = out[0].var
        fresh = type(var)(var.name_hint, None, span=var.span)
        self.var_map[id(b.var)] = fresh
        self.var_map[id(var)] = fresh
        return [rx.VarBinding(fresh, out[0].value, span=out[0].span)]


def finish(mod: rx.IRModule) -> rx.IRModule:
    """A pass's result in normal form, with every struct info deduced again."""
    from relax_ref.semantics.normalize import normalize

    return normalize(mod)


def used_vars(e) -> set[int]:
    """The ids of every Relax variable used anywhere inside ``e`` (an expression, a
    binding block or a function), including inside nested functions."""
    return variable_uses(e)[0]


def used_var_list(e: rx.Expr) -> list[rx.Var]:
    """The Relax variables ``e`` reads (nested functions included), each once, in the
    order the traversal meets them."""
    if isinstance(e, rx.Call) and not isinstance(e.op, rx.Var):
        # the common case, a call in normal form: its operands are leaves or tuples
        found: dict[int, rx.Var] = {}
        for a in e.args:
            if isinstance(a, rx.Var):
                found.setdefault(id(a), a)
            elif isinstance(a, rx.Tuple):
                for f in a.fields:
                    if isinstance(f, rx.Var):
                        found.setdefault(id(f), f)
                    elif not isinstance(f, _NO_VARS):
                        return _collect_vars(e)
            elif not isinstance(a, _NO_VARS):
                return _collect_vars(e)
        return list(found.values())
    return _collect_vars(e)


# leaves that read no variable
_NO_VARS = (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
            rx.GlobalVar, rx.ExternFunc, rx.Op)


class _VarCollector(Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self.found: dict[int, rx.Var] = {}

    def use(self, v: rx.Var) -> rx.Expr:
        self.found.setdefault(id(v), v)
        return v


def _collect_vars(e: rx.Expr) -> list[rx.Var]:
    walk = _VarCollector()
    walk.expr(e)
    return list(walk.found.values())


def has_effect(value: rx.Expr, mod: rx.IRModule) -> bool:
    """PASS-dce-2 (shared by every pass that must not move or drop effects): whether evaluating ``value`` may do more than compute a value."""
    if not isinstance(value, rx.Call):
        return False
    op = value.op
    if isinstance(op, rx.Op):
        opdef = lookup(op.name)
        return opdef is None or not opdef.pure
    if isinstance(op, rx.GlobalVar):
        f = mod.functions.get(op.name_hint)
        if isinstance(f, tir.PrimFunc):
            return not prim_func_is_pure(f)  # WF-pure-4: one that stores into its arguments
        return isinstance(f, rx.Function) and not f.is_pure
    s = op.struct_info
    return not (isinstance(s, si.FuncStructInfo) and s.purity)
