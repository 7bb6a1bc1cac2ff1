"""DeadCodeElimination (TVM's name): drop bindings nobody uses and private functions no
public function reaches (spec/passes.md, PASS-dce-*).

A binding is kept when any of these holds (PASS-dce-1):
- its variable is used later, or leaves its dataflow block through R.output and is used;
- its value has an effect: an impure op, a packed call, a direct call of a PrimFunc
  (destination passing), or a call of an impure function;
- it is a match_cast whose check could fail at run time, or that defines symbolic
  variables (DESIGN.md section 7: removing such a match_cast leaves uses of its
  variables undefined, or skips a check the program relies on).
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import relax as rx
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import Check, base_check, defined_symbols
from relax_ref.solver.analyzer import Analyzer

from .registry import Pass, register_pass
from .rewrite import Rewriter, finish, has_effect, used_vars


class _DeadBindings(Rewriter):
    def __init__(self, mod: rx.IRModule):
        super().__init__()
        self.mod = mod
        self.analyzer = Analyzer()

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        # Walk blocks backwards, keeping what later code (or the body) needs.
        live = used_vars(s.body)
        new_blocks: list[rx.BindingBlock] = []
        for block in reversed(s.blocks):
            kept: list[rx.Binding] = []
            for b in reversed(block.bindings):
                value = self.expr(b.value)
                if self._needed(b, value, live):
                    live |= used_vars(value)
                    kept.append(b if value is b.value else _rebind(b, value))
            kept.reverse()
            if kept:
                new_blocks.append(type(block)(tuple(kept), span=block.span))
        new_blocks.reverse()
        return rx.SeqExpr(tuple(new_blocks), s.body, span=s.span)

    def _needed(self, b: rx.Binding, value: rx.Expr, live: set[int]) -> bool:
        if id(b.var) in live:
            return True
        if has_effect(value, self.mod):
            return True
        if isinstance(b, rx.MatchCast):
            if defined_symbols([b.struct_info]):
                return True
            source = b.value.struct_info
            if source is None or base_check(b.struct_info, source, self.analyzer) is not Check.PASS:
                return True
        return False


def _rebind(b: rx.Binding, value: rx.Expr) -> rx.Binding:
    if isinstance(b, rx.MatchCast):
        return rx.MatchCast(b.var, value, b.struct_info, span=b.span)
    return rx.VarBinding(b.var, value, span=b.span)


def _reachable(mod: rx.IRModule, entry_functions: tuple[str, ...] = ()) -> set[str]:
    """PASS-dce-3: functions reachable from the public ones and ``entry_functions``."""
    todo = [name for name, f in mod.functions.items()
            if not (getattr(f, "is_private", False)) or name in entry_functions]
    seen = set(todo)
    while todo:
        f = mod.functions[todo.pop()]
        if isinstance(f, rx.Function):
            for name in _global_refs(f):
                if name in mod.functions and name not in seen:
                    seen.add(name)
                    todo.append(name)
    return seen


def _global_refs(func: rx.Function) -> set[str]:
    refs: set[str] = set()

    class _Refs(Rewriter):
        def expr(self, e):
            if isinstance(e, rx.GlobalVar):
                refs.add(e.name_hint)
            return super().expr(e)

        def call(self, e):
            if isinstance(e.op, rx.GlobalVar):
                refs.add(e.op.name_hint)
            return super().call(e)

    _Refs().function(func)
    return refs


@register_pass("DeadCodeElimination", exact=True, may_remove_traps=True)
def dead_code_elimination(mod: rx.IRModule) -> rx.IRModule:
    """Remove unused bindings without effects and unreachable private functions."""
    return _run(mod, ())


def dead_code_elimination_with(entry_functions=None) -> Pass:
    """The pass with TVM's option: ``entry_functions`` are roots of PASS-dce-3 besides
    the public functions (a name the module lacks is an error, as in TVM)."""
    entries = tuple(entry_functions or ())
    if not entries:
        return dead_code_elimination

    def run(mod: rx.IRModule) -> rx.IRModule:
        missing = [n for n in entries if n not in mod.functions]
        if missing:
            raise ValueError(f"PASS-dce-3: the module has no function {missing[0]!r}")
        return _run(mod, entries)

    return dataclasses.replace(dead_code_elimination, run=run,
                               options={"entry_functions": list(entries)})


def _run(mod: rx.IRModule, entry_functions: tuple[str, ...]) -> rx.IRModule:
    mod = normalize(mod)
    out = _DeadBindings(mod).module(mod)
    keep = _reachable(out, entry_functions)
    out = out.with_functions({k: v for k, v in out.functions.items() if k in keep})
    return finish(out)
