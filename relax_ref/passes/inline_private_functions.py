"""InlinePrivateFunctions (TVM's name): calls of private Relax functions are replaced by
copies of their bodies (spec/passes.md, PASS-inline-*).

Contract:
- PASS-inline-1: the candidates are the private Relax functions that are not recursive
  (on no cycle of the module's call graph, references by value included). Calls inside
  a candidate are inlined first, so inlining is transitive.
- PASS-inline-2: a call ``y = f(args)`` is inlined only when doing so keeps every check
  and rule the call obeyed:
  - each argument provably satisfies its parameter's struct info once the callee's
    symbolic variables are bound to the caller's expressions (a check the call would do
    at run time cannot be dropped);
  - the callee's return annotation, if written, provably holds of its body;
  - inside a dataflow block, the callee's body holds only what a dataflow block may
    hold (no ``if``, no nested function, no impure call: WF-dataflow-3, WF-pure-1);
  - in a pure function that does not force purity, the callee performs no impure call
    (WF-pure-2; a callee may force purity itself).
  Other calls stay calls.
- PASS-inline-3: the copy has fresh Relax variables and fresh symbolic variables for
  those the callee defines itself (in match_cast targets, nested functions); the
  symbolic variables its parameters define are replaced by the caller's expressions
  (and simplified); every match_cast of the callee is kept. The parameters are replaced
  by the arguments. The callee's blocks are spliced where the call was (into the
  dataflow block holding the call, or as blocks of their own), followed by
  ``y = <callee's result>``.
- PASS-inline-4: a candidate is removed once no remaining function refers to it.
- PASS-inline-5: results are preserved exactly.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import Check, base_check, bind_symbolic
from relax_ref.semantics.well_formed import FORCE_PURE
from relax_ref.solver.analyzer import Analyzer

from .references import arg_sinfo, global_uses, recursive_functions
from .registry import register_pass
from .rewrite import Rewriter, finish, has_effect
from .symbols import fresh_symbols, substitute_sinfo, substitute_symbols, symbols_of


def call_provably_checks(callee: rx.Function, args, mod: rx.IRModule,
                         analyzer: Analyzer) -> dict | None:
    """The callee's symbols bound to the caller's expressions when every argument
    provably satisfies its parameter (PASS-inline-2); None when some check is left to
    run time."""
    arg_infos = [arg_sinfo(a, mod) for a in args]
    params = [p.struct_info for p in callee.params]
    mapping = bind_symbolic(params, arg_infos)
    for p, a in zip(params, arg_infos):
        if base_check(substitute_sinfo(p, mapping), a, analyzer) is not Check.PASS:
            return None
    return mapping


# -- inlining ------------------------------------------------------------------------------

def _dataflow_eligible(b: rx.Binding, mod: rx.IRModule) -> bool:
    return not isinstance(b.value, (rx.If, rx.Function)) and not has_effect(b.value, mod)


def _performs_impure_call(seq: rx.SeqExpr, mod: rx.IRModule) -> bool:
    for block in seq.blocks:
        for b in block.bindings:
            if has_effect(b.value, mod):
                return True
            if isinstance(b.value, rx.If) and (_performs_impure_call(b.value.true_branch, mod)
                                               or _performs_impure_call(b.value.false_branch, mod)):
                return True
    return False


def _forces_purity(func: rx.Function) -> bool:
    return func.attrs.get(FORCE_PURE) is True


class _Inliner(Rewriter):
    def __init__(self, mod: rx.IRModule, candidates: set[str], inlined: "InlineState"):
        super().__init__()
        self.mod = mod
        self.candidates = candidates
        self.state = inlined
        self.analyzer = Analyzer()
        self.dataflow = False
        self.must_be_pure = False

    def function(self, func: rx.Function) -> rx.Function:
        saved = self.dataflow, self.must_be_pure
        self.dataflow = False
        self.must_be_pure = func.is_pure and not _forces_purity(func)
        try:
            return super().function(func)
        finally:
            self.dataflow, self.must_be_pure = saved

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        blocks: list[rx.BindingBlock] = []
        changed = False
        for block in s.blocks:
            dataflow = isinstance(block, rx.DataflowBlock)
            current: list[rx.Binding] = []

            def flush(kind=type(block)):
                if current:
                    blocks.append(kind(tuple(current), span=block.span))
                    current.clear()

            for b in block.bindings:
                saved = self.dataflow
                self.dataflow = dataflow
                pieces = self.inline(b)
                if pieces is None:
                    new = self.binding(b)
                    changed |= len(new) != 1 or new[0] is not b
                    current.extend(new)
                else:
                    changed = True
                    copied_blocks, alias = pieces
                    for cb in copied_blocks:
                        if dataflow or not isinstance(cb, rx.DataflowBlock):
                            current.extend(cb.bindings)
                        else:
                            flush()
                            blocks.append(cb)
                    current.append(alias)
                self.dataflow = saved
            flush()
        body = self.expr(s.body)
        if not changed and body is s.body:
            return s
        return rx.SeqExpr(tuple(blocks), body, span=s.span)

    def inline(self, b: rx.Binding):
        """(the copied blocks, ``y = result``) for an inlinable call, else None."""
        call = b.value
        if not isinstance(b, rx.VarBinding) or not isinstance(call, rx.Call) \
                or not isinstance(call.op, rx.GlobalVar) \
                or call.op.name_hint not in self.candidates:
            return None
        name = call.op.name_hint
        original = self.mod.functions[name]
        if len(call.args) != len(original.params):
            return None
        args = tuple(self.expr(a) for a in call.args)
        mapping = call_provably_checks(original, args, self.mod, self.analyzer)
        if mapping is None:
            return None
        ret = original.ret_struct_info
        if ret is not None and base_check(ret, original.body.struct_info,
                                          self.analyzer) is not Check.PASS:
            return None
        callee = self.state.inlined(name)
        if self.dataflow and not all(_dataflow_eligible(x, self.mod)
                                     for blk in callee.body.blocks for x in blk.bindings):
            return None
        if self.must_be_pure and _performs_impure_call(callee.body, self.mod):
            return None
        own = [v for v in symbols_of(callee).defined.values() if v not in mapping]
        mapping = {**mapping, **fresh_symbols(own)}
        copy = substitute_symbols(callee, mapping,
                                  replace={id(p): a for p, a in zip(callee.params, args)},
                                  fresh=True)
        body = copy.body
        if self.dataflow:
            # Spliced into a dataflow block, the copy's variables are used only there.
            body = _AsDataflowVars().seq(body)
        return body.blocks, rx.VarBinding(self.bind_var(b.var), body.body, span=b.span)


class _AsDataflowVars(Rewriter):
    def bind_var(self, var: rx.Var) -> rx.Var:
        if type(var) is rx.Var:
            new = rx.DataflowVar(var.name_hint, var.struct_info, span=var.span)
            self.var_map[id(var)] = new
            return new
        return super().bind_var(var)


class InlineState:
    """The candidates with their own calls inlined, computed once each."""

    def __init__(self, mod: rx.IRModule, candidates: set[str]):
        self.mod = mod
        self.candidates = candidates
        self.done: dict[str, rx.Function] = {}

    def inlined(self, name: str) -> rx.Function:
        if name not in self.done:
            self.done[name] = _Inliner(self.mod, self.candidates, self).function(
                self.mod.functions[name])
        return self.done[name]


@register_pass("InlinePrivateFunctions", exact=True)
def inline_private_functions(mod: rx.IRModule) -> rx.IRModule:
    """Inline calls of non-recursive private Relax functions; drop those left unused."""
    mod = normalize(mod)
    uses = global_uses(mod)
    recursive = recursive_functions(mod, uses)
    candidates = {name for name, f in mod.functions.items()
                  if isinstance(f, rx.Function) and f.is_private and name not in recursive}
    if not candidates:
        return finish(mod)
    state = InlineState(mod, candidates)
    functions = {}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function):
            functions[name] = state.inlined(name) if name in candidates else \
                _Inliner(mod, candidates, state).function(func)
        else:
            functions[name] = func
    out = mod.with_functions(functions)
    # PASS-inline-4: drop candidates nobody refers to any more (repeat: dropping one may
    # leave another without callers).
    while True:
        uses = global_uses(out)
        unused = [name for name in candidates if name in out.functions
                  and not [c for c in uses[name].calls + uses[name].values if c != name]]
        if not unused:
            break
        out = out.with_functions({k: v for k, v in out.functions.items() if k not in unused})
    return finish(out)
