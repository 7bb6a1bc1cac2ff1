"""Normalize (TVM's name): normalization as a pass (spec/passes.md, PASS-norm-*).

The result is ``semantics.normalize.normalize`` of the input, nothing more:

- A-normal form: nested calls, tuples and conditions are bound to fresh variables in the
  enclosing block (SI-anf-1); empty blocks are dropped (PASS-norm-1);
- every op call is canonical: operands and attributes bound as TVM binds them, defaults
  filled (SI-call-1..5);
- every expression carries its deduced struct info, every variable its annotation or
  the deduced struct info (PASS-norm-2).

It is idempotent (PASS-norm-3): normalized IR is its own normal form. Every other pass
ends with the same step (``rewrite.finish``), so this one is what a pipeline runs when
it needs the normal form on its own (after parsing, or before an analysis).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx

from .registry import register_pass
from .rewrite import Rewriter, finish


@register_pass("Normalize", exact=True)
def normalize_pass(mod: rx.IRModule) -> rx.IRModule:
    """PASS-norm-1..3: the normal form of ``mod`` (A-normal form, canonical calls,
    struct info everywhere). Results are unchanged bit for bit."""
    # The identity traversal returns ``mod``'s own nodes; ``finish`` does the work.
    return finish(Rewriter().module(mod))


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
