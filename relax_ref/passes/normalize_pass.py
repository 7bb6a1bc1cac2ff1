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
