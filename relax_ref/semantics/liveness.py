"""When the interpreter may let go of a variable's value.

A function activation keeps the value of every parameter and binding in its frame.
Holding them until the function returns makes the peak memory of a run the sum of all
its intermediates; dropping each value after its last use keeps it near what the
program needs live at once (a NumPy script that reuses its temporaries behaves so).
Dropping is never observable: a dropped value is one no later expression reads.

``release_plan(func)`` says, per top-level binding of the body, which variables are
read for the last time there. It declines (None) for a body that creates a local
function, since a closure reads its frame when called, which may be later than any
use in the text.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir.uses import variable_uses

# A plan per function, by id, with the function kept so that the id stays its own.
_PLANS: dict[int, tuple[rx.Function, dict[int, tuple[int, ...]] | None]] = {}


def release_plan(func: rx.Function) -> dict[int, tuple[int, ...]] | None:
    """``{id(binding): ids of the variables to drop after it}`` for the top-level
    bindings of ``func``'s body, or None when values must be kept (see the module
    doc). A variable the body's result reads is never dropped; one nothing reads is
    dropped right after its binding (parameters: after the first binding)."""
    cached = _PLANS.get(id(func))
    if cached is not None and cached[0] is func:
        return cached[1]
    plan = _plan(func)
    if len(_PLANS) >= 10_000:
        _PLANS.clear()
    _PLANS[id(func)] = (func, plan)
    return plan


def _plan(func: rx.Function) -> dict[int, tuple[int, ...]] | None:
    body = func.body
    if not isinstance(body, rx.SeqExpr):
        return None
    bindings = [b for block in body.blocks for b in block.bindings]
    if not bindings:
        return None
    last: dict[int, int] = {id(p): 0 for p in func.params}  # var id -> binding index
    for i, b in enumerate(bindings):
        uses, has_function = variable_uses(b.value)
        if has_function:
            return None
        for v in uses:
            if v in last:
                last[v] = i
        last[id(b.var)] = i
    kept, has_function = variable_uses(body.body)
    if has_function:
        return None
    drops: dict[int, list[int]] = {}
    for v, i in last.items():
        if v not in kept:
            drops.setdefault(id(bindings[i]), []).append(v)
    return {k: tuple(v) for k, v in drops.items()}
