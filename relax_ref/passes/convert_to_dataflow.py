"""ConvertToDataflow (TVM's name): runs of pure bindings outside dataflow blocks become
dataflow blocks (spec/passes.md, PASS-to-df-*).

    convert_to_dataflow(min_size=2)(mod)     # the registered pass uses min_size=2

Contract:
- PASS-to-df-1: within each SeqExpr (function bodies and ``if`` branches, separately; a
  run never crosses an ``if``), a binding may join a dataflow block when its value is
  neither an ``if`` nor an impure call (PASS-dce-2's effects: impure ops, packed calls,
  direct PrimFunc calls, calls of impure functions). Maximal runs of such bindings,
  together with the dataflow blocks already adjacent to them, form one dataflow block.
- PASS-to-df-2: a run of fewer than ``min_size`` bindings that touches no existing
  dataflow block stays where it is; existing dataflow blocks are always kept (merged with
  their neighbours). Non-dataflow bindings keep their order and are gathered into one
  binding block between dataflow blocks.
- PASS-to-df-3: a variable bound in a new dataflow block becomes a DataflowVar when it
  is used only inside that block and not inside a nested function; the others stay Vars
  (they are the block's outputs). Existing DataflowVars stay.
- PASS-to-df-4: results are preserved exactly; the result is well formed (no impure call
  and no ``if`` inside a dataflow block, no DataflowVar used outside its block).
- PASS-to-df-5: no dataflow block is created inside an ``if`` branch. TVM creates them
  there, but relax_ref's parser rejects ``with R.dataflow()`` inside a branch
  (SYN-relax-6), so the printed result could not be read back. Local functions' bodies
  are function bodies and are converted.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx

from .rewrite import has_effect
from .registry import Pass, register_pass
from .rewrite import Rewriter, finish, used_vars

DEFAULT_MIN_SIZE = 2  # TVM's default

# PASS-to-df-5: until the parser reads dataflow blocks inside if branches.
DATAFLOW_IN_BRANCHES = False


class _Extractor(Rewriter):
    def __init__(self, mod: rx.IRModule, min_size: int):
        super().__init__()
        self.mod = mod
        self.min_size = min_size
        self.in_branch = False

    def function(self, func: rx.Function) -> rx.Function:
        saved, self.in_branch = self.in_branch, False
        try:
            return super().function(func)
        finally:
            self.in_branch = saved

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.If):
            saved, self.in_branch = self.in_branch, True
            try:
                return super().expr(e)
            finally:
                self.in_branch = saved
        return super().expr(e)

    def eligible(self, b: rx.Binding) -> bool:
        """PASS-to-df-1."""
        return not isinstance(b.value, rx.If) and not has_effect(b.value, self.mod)

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        out: list[rx.BindingBlock] = []
        plain: list[rx.Binding] = []
        run: list[rx.Binding] = []
        from_input_block = False

        def end_run() -> None:
            nonlocal from_input_block
            if not run:
                return
            if len(run) < self.min_size and not from_input_block:
                plain.extend(run)  # PASS-to-df-2
            else:
                if plain:
                    out.append(rx.BindingBlock(tuple(plain)))
                    plain.clear()
                out.append(rx.DataflowBlock(tuple(run)))
            run.clear()
            from_input_block = False

        if self.in_branch and not DATAFLOW_IN_BRANCHES:
            return super().seq(s)
        for block in s.blocks:
            bindings = [new for b in block.bindings for new in self.binding(b)]
            if isinstance(block, rx.DataflowBlock):
                run.extend(bindings)
                from_input_block = True
                continue
            for b in bindings:
                if self.eligible(b):
                    run.append(b)
                else:
                    end_run()
                    plain.append(b)
        end_run()
        if plain:
            out.append(rx.BindingBlock(tuple(plain)))
        body = self.expr(s.body)
        return rx.SeqExpr(_with_dataflow_vars(out, body), body, span=s.span)


def _with_dataflow_vars(blocks: list[rx.BindingBlock], body: rx.Expr) -> tuple:
    """PASS-to-df-3: make each dataflow block's purely local Vars DataflowVars."""
    out = list(blocks)
    used_later: set[int] = used_vars(body)
    for i in range(len(out) - 1, -1, -1):
        block = out[i]
        if isinstance(block, rx.DataflowBlock):
            in_functions: set[int] = set()
            for b in block.bindings:
                if isinstance(b.value, rx.Function):
                    in_functions |= used_vars(b.value)
            renames = {}
            for b in block.bindings:
                v = b.var
                if type(v) is rx.Var and id(v) not in used_later and id(v) not in in_functions:
                    renames[id(v)] = rx.DataflowVar(v.name_hint, v.struct_info, span=v.span)
            if renames:
                r = _Rename(renames)
                out[i] = r.block(block)
        used_later |= used_vars(block)
    return tuple(out)


class _Rename(Rewriter):
    def __init__(self, renames: dict[int, rx.Var]):
        super().__init__()
        self.var_map.update(renames)


def convert_to_dataflow(min_size: int = DEFAULT_MIN_SIZE) -> Pass:
    """ConvertToDataflow with TVM's ``min_size`` option (PASS-to-df-2)."""
    if min_size < 1:
        raise ValueError("min_size is at least 1")

    def run(mod: rx.IRModule) -> rx.IRModule:
        mod = finish(mod)
        return finish(_Extractor(mod, min_size).module(mod))

    return Pass("ConvertToDataflow", run, exact=True,
                doc=f"ConvertToDataflow(min_size={min_size})", options={"min_size": min_size})


@register_pass("ConvertToDataflow", exact=True)
def _convert_to_dataflow_default(mod: rx.IRModule) -> rx.IRModule:
    """Runs of pure bindings become dataflow blocks (min_size=2, TVM's default)."""
    mod = finish(mod)
    return finish(_Extractor(mod, DEFAULT_MIN_SIZE).module(mod))
