"""RemovePurityChecking (TVM's name): stop tracking purity, for low-level code generation
(spec/passes.md, PASS-purity-*). TVM runs it after ToNonDataflow.

Contract:
- PASS-purity-1: every function declared pure, nested functions included, gets the
  attribute ``relax.force_pure = True``, so it may perform impure calls (WF-pure-2).
  Functions declared impure are left impure (WF-pure-3 forbids forcing them).
- PASS-purity-2: outside dataflow blocks, the pure-override calls are unwrapped:
  ``R.call_pure_packed(f, args..., ty_args=s)`` becomes ``R.call_packed(f, args...,
  ty_args=s)`` (a call of the external function itself), and
  ``R.call_inplace_packed(f, args..., inplace_indices=..., ty_args=s)`` becomes
  ``R.call_packed(f, args..., ty_args=s)`` (its own attributes dropped, as TVM does).
- PASS-purity-3: inside a dataflow block these calls stay as they are: unwrapped, they
  would be impure calls in a dataflow block (WF-pure-1). TVM unwraps them there too and
  produces IR its own well-formedness check rejects; run ToNonDataflow first to unwrap
  every call.
- PASS-purity-4: results are preserved exactly (a packed call computes the same value
  whichever way it is called).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir.call_kinds import call_kind
from relax_ref.semantics.well_formed import FORCE_PURE

from .registry import register_pass
from .rewrite import EffectScopeRewriter, finish


class _RemovePurity(EffectScopeRewriter):
    def function(self, func: rx.Function) -> rx.Function:
        new = super().function(func)
        if not func.is_pure or new.attrs.get(FORCE_PURE) is True:
            return new
        return rx.Function(new.params, new.body, new.ret_struct_info, new.is_pure,
                           new.attrs.with_item(FORCE_PURE, True), new.is_private, span=new.span)

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        # call_pure_packed / call_inplace_packed: a packed call declared pure
        if self.in_dataflow or not isinstance(new.op, rx.Op) or not call_kind(new.op.name).packed \
                or not new.args:
            return new
        # an in-place call's attributes name its in-place arguments, not the function's
        attrs = rx.EMPTY_ATTRS if call_kind(new.op.name).inplace else new.attrs
        return rx.Call(new.args[0], new.args[1:], attrs, new.sinfo_args, span=new.span)


@register_pass("RemovePurityChecking", exact=True)
def remove_purity_checking(mod: rx.IRModule) -> rx.IRModule:
    """Force purity of pure functions and unwrap call_pure_packed outside dataflow."""
    return finish(_RemovePurity().module(mod))
