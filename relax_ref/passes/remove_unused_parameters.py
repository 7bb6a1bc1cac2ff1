"""RemoveUnusedParameters (TVM's name): private functions lose the parameters their body
does not use, and their calls the matching arguments (spec/passes.md, PASS-unused-params-*).

Contract:
- PASS-unused-params-1: a private Relax function is rewritten only when every reference
  to it in the module is a direct call (a function used as a value keeps its
  signature) and some parameter is not used by its body (nested functions included).
- PASS-unused-params-2: a removed parameter may have defined symbolic variables. Each
  one the function still mentions (kept parameters' annotations, return annotation,
  body, match_cast targets included) that no kept parameter defines gets a new trailing
  parameter ``param_<n>: R.Shape([n])``, and each call passes ``R.shape([e])``, ``e``
  being the caller's expression for ``n`` (TVM's scheme; TVM skips a variable that a
  match_cast in the body mentions bare, which then defines it instead of checking it).
- PASS-unused-params-3: the run-time checks of a removed parameter must be unnecessary:
  at every call the argument provably satisfies the parameter's annotation, with the
  callee's symbols bound as the rewritten function binds them (from the kept arguments,
  then from the ``R.shape`` arguments). Otherwise the function is left as it is, since
  removing the parameter would remove a trap (e.g. the check that two arguments share
  a dimension ``n``).
- PASS-unused-params-4: calls keep the arguments of the kept parameters, in order,
  followed by the ``R.shape`` arguments. Bindings that only computed removed arguments
  stay (TVM also removes them; run DeadCodeElimination for that).
- PASS-unused-params-5: results of public functions are preserved exactly; the private
  function gives, on the kept arguments (and shapes), what it gave on all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import Check, base_check, bind_symbolic, defined_symbols
from relax_ref.solver.analyzer import Analyzer

from .references import arg_sinfo, global_uses
from .symbols import substitute_sinfo, symbols_of
from .registry import register_pass
from .rewrite import Rewriter, finish, used_vars


@dataclass
class _Plan:
    keep: list[bool]          # one per original parameter
    shape_syms: list          # symbolic variables passed as R.Shape([n])
    func: rx.Function         # the rewritten function


def _plan(func: rx.Function) -> _Plan | None:
    """PASS-unused-params-1/2 for one function (the call sites are checked later)."""
    used = used_vars(func.body)
    keep = [id(p) in used for p in func.params]
    if all(keep):
        return None
    kept = tuple(p for p, k in zip(func.params, keep) if k)
    trial = rx.Function(kept, func.body, func.ret_struct_info, func.is_pure, func.attrs,
                        func.is_private, span=func.span)
    # The symbols only removed parameters defined. One the body mentions, even bare in
    # a match_cast target, must stay defined: that match_cast checks it, and would
    # define it instead (dropping the check) if nothing else did.
    by_removed = {id(v) for p, k in zip(func.params, keep) if not k
                  for v in defined_symbols([p.struct_info])}
    by_kept = {id(v) for v in defined_symbols(p.struct_info for p in kept)}
    shape_syms = [v for key, v in symbols_of(trial).used.items()
                  if key in by_removed and key not in by_kept]
    extra = tuple(rx.Var(f"param_{v.name}", si.ShapeStructInfo((v,))) for v in shape_syms)
    new = rx.Function(kept + extra, func.body, func.ret_struct_info, func.is_pure, func.attrs,
                      func.is_private, span=func.span)
    return _Plan(keep, shape_syms, new)


class _CallSites(Rewriter):
    """Collects (check=True) or rewrites the calls of the planned functions."""

    def __init__(self, mod: rx.IRModule, plans: dict[str, _Plan], check: bool):
        super().__init__()
        self.mod = mod
        self.plans = plans
        self.check = check
        self.analyzer = Analyzer()
        self.refused: set[str] = set()

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        if not isinstance(e.op, rx.GlobalVar) or e.op.name_hint not in self.plans:
            return new
        name = e.op.name_hint
        plan = self.plans[name]
        original = self.mod.functions[name]
        if self.check:
            if len(e.args) != len(plan.keep) or not self.removable(original, plan, e.args):
                self.refused.add(name)
            return new
        mapping = bind_symbolic([p.struct_info for p in original.params],
                                [arg_sinfo(a, self.mod) for a in e.args])
        args = tuple(a for a, k in zip(new.args, plan.keep) if k)
        args += tuple(rx.ShapeExpr((mapping[v],)) for v in plan.shape_syms)
        return rx.Call(new.op, args, new.attrs, new.sinfo_args, span=new.span)


    def removable(self, original: rx.Function, plan: _Plan, args) -> bool:
        """PASS-unused-params-3: each removed argument provably satisfies its parameter,
        with the symbols bound as the rewritten function binds them (from the kept
        arguments, then the shape arguments)."""
        infos = [arg_sinfo(a, self.mod) for a in args]
        params = [p.struct_info for p in original.params]
        everything = bind_symbolic(params, infos)
        kept = bind_symbolic([p for p, k in zip(params, plan.keep) if k],
                             [a for a, k in zip(infos, plan.keep) if k])
        for v in plan.shape_syms:
            if v not in everything:
                return False
        mapping = {**{v: everything[v] for v in plan.shape_syms}, **kept}
        for p, a, k in zip(params, infos, plan.keep):
            if not k and base_check(substitute_sinfo(p, mapping), a, self.analyzer) \
                    is not Check.PASS:
                return False
        return True


@register_pass("RemoveUnusedParameters", exact=True)
def remove_unused_parameters(mod: rx.IRModule) -> rx.IRModule:
    """Drop parameters private functions do not use (symbols they define are passed as
    shapes), updating every call."""
    mod = normalize(mod)
    uses = global_uses(mod)
    plans: dict[str, _Plan] = {}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function) and func.is_private and uses[name].only_called:
            plan = _plan(func)
            if plan is not None:
                plans[name] = plan
    checker = _CallSites(mod, plans, check=True)
    for func in mod.functions.values():
        if isinstance(func, rx.Function):
            checker.function(func)
    plans = {k: v for k, v in plans.items() if k not in checker.refused}
    if not plans:
        return finish(mod)
    functions = {}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function):
            func = plans[name].func if name in plans else func
            func = _CallSites(mod, plans, check=False).function(func)
        functions[name] = func
    return finish(mod.with_functions(functions))
