"""Helpers for legalization tests (spec/passes.md PASS-legalize-*, spec/te.md).

``check_lowered(text, op)`` parses and checks a module, runs LegalizeOps through the
differential harness (``check_pass``: interpreter before vs after on random inputs at
the symbolic values 1, 0, 2, 3 where the signature allows them, and well-formedness of
the result), asserts that no call of ``op`` is left, and returns the lowered module.
``module(params, body, ret)`` writes the text of a one-function module.
"""
from __future__ import annotations

import relax_ref
from relax_ref.ir import relax as rx
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.verify import check_pass


def module(params: str, body: str, ret: str = "y") -> str:
    """``def main(<params>):`` with ``body`` (one statement per line) returning ``ret``."""
    lines = "\n".join(f"        {line}" for line in body.strip().splitlines())
    return f'''
@I.ir_module
class Module:
    @R.function
    def main({params}):
{lines}
        return {ret}
'''


def op_calls(mod: rx.IRModule) -> list[rx.Call]:
    """Every call of an op in the module's Relax functions, in order."""
    found: list[rx.Call] = []

    def walk(e) -> None:
        if isinstance(e, rx.Call):
            if isinstance(e.op, rx.Op):
                found.append(e)
            for a in e.args:
                walk(a)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for bd in b.bindings:
                    walk(bd.value)
            walk(e.body)
        elif isinstance(e, rx.Function):
            walk(e.body)
        elif isinstance(e, rx.If):
            walk(e.true_branch), walk(e.false_branch)
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                walk(f)

    for f in mod.functions.values():
        if isinstance(f, rx.Function):
            walk(f)
    return found


def calls_of(mod: rx.IRModule, op_name: str) -> int:
    """How many calls of ``op_name`` the module's Relax functions hold."""
    return sum(1 for c in op_calls(mod) if c.op.name == op_name)


def check_lowered(text: str, op: str, *, trials: int = 4, seed: int = 0,
                  lowered: bool = True) -> rx.IRModule:
    """LegalizeOps on ``text`` verified by ``check_pass``; with ``lowered`` (default) no
    call of ``op`` (``relax.<name>``) may remain, without it every call must remain."""
    mod = relax_ref.check(relax_ref.from_source(text))
    assert calls_of(mod, op) > 0, f"the module has no call of {op}"
    check_pass(legalize_ops, mod, trials=trials, seed=seed)
    out = legalize_ops(mod)
    left = calls_of(out, op)
    if lowered:
        assert left == 0, f"{op} was not lowered:\n{out.script()}"
    else:
        assert left == calls_of(mod, op), f"{op} was lowered:\n{out.script()}"
    return out
