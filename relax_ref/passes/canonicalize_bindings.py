"""CanonicalizeBindings (TVM's name): remove copies (spec/passes.md, PASS-canon-*).

Two steps, as in TVM (``CanonicalizeTIRVariables`` then ``CanonicalizeRelaxBindings``),
each followed by normalization:

1. Symbolic variables (PASS-canon-1). A ``match_cast`` that *defines* a symbolic
   variable whose value the struct info of the cast value already determines
   (``R.match_cast(x, R.Tensor((m,)))`` with ``x: R.Tensor((n * 2,))``) gets that
   expression substituted for the variable everywhere after it (``m`` becomes
   ``n * 2``). Only variables the cast defines are substituted: a cast that *uses* an
   already defined variable is a run-time check and stays one (TVM also substitutes
   there and so deletes the check; PASS-canon-7).
2. Relax bindings (PASS-canon-2..6). A binding is *trivial* when its value is a
   variable (directly, or through ``t[i]`` of a known tuple ``t = (a, b)``, or a tuple
   rebuilt field by field from another), or when it is a ``match_cast`` whose target
   equals the value's struct info. Uses of a trivially bound variable become uses of
   the variable it copies and the binding disappears, except that a DataflowVar never
   escapes its block: when an output ``y = lv`` copies a DataflowVar and ``y`` is used
   after the block, ``lv``'s own binding defines ``y`` instead. Uses of a variable bound
   to a constant become the constant. A non-dataflow variable bound in a dataflow block
   and used only inside it becomes a DataflowVar (it is no longer an output). A binding
   whose value changed gets the struct info of its new value (PASS-canon-6).

No binding moves, so nothing is used before its definition; a ``match_cast`` whose
symbolic variables are still used, or whose check is not statically known to pass,
stays (DESIGN.md section 7).
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.equal import structural_equal
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols, free_symbols
from relax_ref.solver.simplify import simplify, substitute

from .registry import register_pass
from .symbols import SymbolRewriter, map_sinfo
from .rewrite import RetypingRewriter, Rewriter, finish, used_vars


@register_pass("CanonicalizeBindings", exact=True)
def canonicalize_bindings(mod: rx.IRModule) -> rx.IRModule:
    """PASS-canon-1..7: substitute symbolic variables that a match_cast merely renames,
    then remove trivial bindings (``y = x``, redundant match_casts, tuple field copies),
    inline variables bound to constants, and demote outputs used only inside their
    dataflow block to DataflowVars. Results are unchanged bit for bit."""
    mod = normalize(mod)
    mod = finish(_SymbolicCanonicalizer().module(mod))
    planner = _Planner()
    planner.module(mod)
    return finish(_ApplyPlan(planner.plan()).module(mod))


# ==========================================================================================
# Step 1: symbolic variables a match_cast only renames (PASS-canon-1)
# ==========================================================================================

class _SymbolicCanonicalizer(SymbolRewriter):
    """Substitutes, after each match_cast, the expressions its value's struct info gives
    for the symbolic variables it defines. ``known`` and ``defined`` are scoped: a
    SeqExpr (function body, if branch) restores them when it ends."""

    def __init__(self) -> None:
        super().__init__()
        self.known: dict[P.Var, P.PrimExpr] = {}
        self.defined: set[int] = set()

    # -- scopes ---------------------------------------------------------------------------
    def function(self, func: rx.Function) -> rx.Function:
        saved = (dict(self.known), set(self.defined))
        params = tuple(self.define(p) for p in func.params)
        for v in defined_symbols(p.struct_info for p in params):
            self.defined.add(id(v))
        body = self.seq(func.body)
        ret = None if func.ret_struct_info is None else self.sinfo(func.ret_struct_info)
        self.known, self.defined = saved
        if body is func.body and ret is func.ret_struct_info and \
                all(a is b for a, b in zip(params, func.params)):
            return func
        return rx.Function(params, body, ret, func.is_pure, func.attrs, func.is_private,
                           span=func.span)

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        saved = (dict(self.known), set(self.defined))
        out = super().seq(s)
        self.known, self.defined = saved
        return out

    # -- bindings ---------------------------------------------------------------------------
    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        value = self.expr(b.value)
        if isinstance(b, rx.MatchCast):
            self._learn(b)
            target = self.sinfo(b.struct_info)
            var = self.define(b.var)
            if value is b.value and var is b.var and target is b.struct_info:
                return [b]
            return [rx.MatchCast(var, value, target, span=b.span)]
        var = self.define(b.var)
        if value is b.value and var is b.var:
            return [b]
        return [rx.VarBinding(var, value, span=b.span)]

    def _learn(self, b: rx.MatchCast) -> None:
        """The symbols ``b`` defines, with the value its source's struct info gives
        them (only symbols not defined before: a second occurrence is a check)."""
        new = [v for v in defined_symbols([b.struct_info]) if id(v) not in self.defined]
        source = b.value.struct_info
        if source is not None and new:
            found: dict[int, P.PrimExpr] = {}
            _infer(b.struct_info, self.sinfo(source), {id(v) for v in new}, found)
            for v in new:
                if id(v) in found:
                    self.known[v] = found[id(v)]
        for v in new:
            self.defined.add(id(v))

    # -- symbolic substitution ----------------------------------------------------------------
    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        if not self.known or not any(v in self.known for v in P.free_vars(e)):
            return e
        return simplify(substitute(e, self.known))

    def sinfo(self, s: si.StructInfo | None) -> si.StructInfo | None:
        if s is None or not self.known or not any(v in self.known for v in free_symbols(s)):
            return s
        return map_sinfo(s, self.prim)


def _infer(target: si.StructInfo, source: si.StructInfo, wanted: set[int],
           found: dict[int, P.PrimExpr]) -> None:
    """For each symbol in ``wanted`` standing bare in ``target``, the expression at the
    same place in ``source`` (the first place wins; TVM's InferSymbolicVarMap)."""
    def dims(ts, ss) -> None:
        if ts is None or ss is None or len(ts) != len(ss):
            return
        for t, s in zip(ts, ss):
            if isinstance(t, P.Var) and id(t) in wanted and id(t) not in found:
                found[id(t)] = s

    if isinstance(target, si.TensorStructInfo) and isinstance(source, si.TensorStructInfo):
        dims(target.shape, source.shape)
    elif isinstance(target, si.ShapeStructInfo) and isinstance(source, si.ShapeStructInfo):
        dims(target.values, source.values)
    elif isinstance(target, si.PrimStructInfo) and isinstance(source, si.PrimStructInfo):
        if source.value is not None:
            dims((target.value,), (source.value,))
    elif isinstance(target, si.TupleStructInfo) and isinstance(source, si.TupleStructInfo):
        if len(target.fields) == len(source.fields):
            for t, s in zip(target.fields, source.fields):
                _infer(t, s, wanted, found)


# ==========================================================================================
# Step 2: trivial Relax bindings (PASS-canon-2..6)
# ==========================================================================================

@dataclasses.dataclass
class _Plan:
    replace_usage: dict[int, rx.Var]    # id(var) -> the variable its uses become
    replace_binding: dict[int, rx.Var]  # id(var) -> the variable its binding defines instead
    remove: set[int]                    # ids of variables whose bindings go
    inline_constant: dict[int, rx.Constant]


class _Planner(Rewriter):
    """Reads a normalized module and records, per variable, what TVM's
    CanonicalizePlanner records: trivial copies, constants, the block that defines it,
    and whether it is used outside that block (which, for a dataflow variable, would
    be an escape)."""

    def __init__(self) -> None:
        super().__init__()
        self.trivial: dict[int, rx.Var] = {}        # id(var) -> the variable it copies
        self.var_of: dict[int, rx.Var] = {}
        self.known: dict[int, rx.Expr] = {}         # id(var) -> its value, unwrapped
        self.constant: dict[int, rx.Constant] = {}
        self.home: dict[int, rx.BindingBlock] = {}
        self.in_dataflow: dict[int, rx.Var] = {}    # defined inside a dataflow block
        self.used_outside: set[int] = set()
        self.current: rx.BindingBlock | None = None

    # -- context ----------------------------------------------------------------------------
    def function(self, func: rx.Function) -> rx.Function:
        # Variables a nested function captures count as used outside their block.
        saved, self.current = self.current, None
        self.used_outside |= _captured(func)
        super().function(func)
        self.current = saved
        return func

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        saved, self.current = self.current, None
        super().seq(s)
        self.current = saved
        return s

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        self.current = block
        super().block(block)
        self.current = None
        return block

    def _in_dataflow(self) -> bool:
        return isinstance(self.current, rx.DataflowBlock)

    # -- bindings ---------------------------------------------------------------------------
    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        value = self._unwrap_known(b.value)
        if value is None:
            value = b.value
        same = isinstance(b, rx.VarBinding) or structural_equal(
            b.var.struct_info, b.value.struct_info)
        key = id(b.var)
        self.var_of[key] = b.var
        # A DataflowVar from another block (reached through ``t[i]`` of a tuple built
        # there) cannot stand for this copy: it would be used outside its block.
        foreign = isinstance(value, rx.DataflowVar) and self.home.get(id(value)) is not self.current
        if isinstance(value, rx.Var) and same and not foreign:
            self.trivial[key] = value
        if isinstance(value, rx.Constant):
            self.constant[key] = value
        self.known[key] = value
        self.home[key] = self.current
        self.expr(b.value)
        if self._in_dataflow():
            self.in_dataflow.setdefault(key, b.var)
        return [b]

    def use(self, v: rx.Var) -> rx.Expr:
        home = self.home.get(id(v))
        if not self._in_dataflow() or (home is not None and self.current is not home):
            self.used_outside.add(id(v))
        return v

    def _chase(self, e: rx.Expr) -> rx.Expr:
        while isinstance(e, rx.Var) and id(e) in self.known and self.known[id(e)] is not e:
            e = self.known[id(e)]
        return e

    def _unwrap_known(self, value: rx.Expr) -> rx.Expr | None:
        """``t[i]`` of a known tuple is its field; a tuple rebuilt from ``t[0], t[1], ...``
        of one tuple ``t`` (all its fields, in order) is ``t``."""
        if isinstance(value, rx.TupleGetItem):
            tup = self._chase(value.tuple_value)
            if isinstance(tup, rx.Tuple) and 0 <= value.index < len(tup.fields):
                return tup.fields[value.index]
            return None
        if isinstance(value, rx.Tuple) and value.fields:
            first = self._chase(value.fields[0])
            if not isinstance(first, rx.TupleGetItem):
                return None
            ts = first.tuple_value.struct_info
            if not isinstance(ts, si.TupleStructInfo) or len(ts.fields) != len(value.fields):
                return None
            source = self._chase(first.tuple_value)
            for i, f in enumerate(value.fields):
                item = self._chase(f)
                if not (isinstance(item, rx.TupleGetItem) and item.index == i
                        and self._chase(item.tuple_value) is source):
                    return None
            return source
        return None

    # -- the plan (TVM's CanonicalizePlanner::Collect) -----------------------------------------
    def plan(self) -> _Plan:
        usage: dict[int, rx.Var] = {}
        rebind: dict[int, rx.Var] = {}
        remove: set[int] = set()
        # PASS-canon-5: an output used only inside its block becomes a DataflowVar.
        for key, var in self.in_dataflow.items():
            if not isinstance(var, rx.DataflowVar) and key not in self.used_outside:
                new = rx.DataflowVar(var.name_hint, var.struct_info, span=var.span)
                rebind[key] = new
                usage[key] = new
        for key, bound_to in self.trivial.items():
            bound_var = self.var_of[key]
            while id(bound_to) in self.trivial:
                bound_to = self.trivial[id(bound_to)]
            while id(bound_to) in rebind:
                bound_to = rebind[id(bound_to)]
            if isinstance(bound_var, rx.DataflowVar) or \
                    not isinstance(bound_to, rx.DataflowVar) or key not in self.used_outside:
                # PASS-canon-2: uses of the copy become uses of the original.
                usage[key] = bound_to
            else:
                # PASS-canon-3: an output copying a DataflowVar and used after the block:
                # the DataflowVar's binding defines the output instead.
                rebind[id(bound_to)] = bound_var
                usage[id(bound_to)] = bound_var
            remove.add(key)
        return _Plan(usage, rebind, remove, dict(self.constant))


def _captured(func: rx.Function) -> set[int]:
    """Ids of the variables ``func`` uses but does not define (its free variables)."""
    defined: set[int] = set()

    class _Defs(Rewriter):
        def param(self, p: rx.Var) -> rx.Var:
            defined.add(id(p))
            return p

        def bind_var(self, var: rx.Var) -> rx.Var:
            defined.add(id(var))
            return var

    _Defs().function(func)
    return used_vars(func) - defined


class _ApplyPlan(RetypingRewriter):
    def __init__(self, plan: _Plan) -> None:
        super().__init__()
        self.p = plan

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        if id(b.var) in self.p.remove:
            return []
        return super().binding(b)

    def bind_var(self, var: rx.Var) -> rx.Var:
        for _ in range(len(self.p.replace_binding) + 1):
            nxt = self.p.replace_binding.get(id(var))
            if nxt is None:
                break
            var = nxt
        return var

    def use(self, v: rx.Var) -> rx.Expr:
        for _ in range(len(self.p.replace_usage) + 1):
            nxt = self.p.replace_usage.get(id(v))
            if nxt is None:
                break
            v = nxt
        # PASS-canon-4: as TVM, a variable bound to a constant is looked up after
        # following the replacements.
        constant = self.p.inline_constant.get(id(v))
        return constant if constant is not None else self.var_map.get(id(v), v)
