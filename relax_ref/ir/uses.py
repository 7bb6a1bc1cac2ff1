"""Which Relax variables a piece of IR reads.

``variable_uses(node)`` walks an expression, a binding block or a function and returns
the ids of the variables it reads (nested If branches and nested functions included)
and whether it contains a function literal. Passes use it for liveness and dead code;
the interpreter uses it to drop values after their last use.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx


def variable_uses(node) -> tuple[set[int], bool]:
    """``(ids of the variables read, whether a function literal occurs)``."""
    walker = _Uses()
    if isinstance(node, rx.BindingBlock):
        walker.block(node)
    else:
        walker.expr(node)  # a function counts as a literal (its body is walked)
    return walker.vars, walker.function


class _Uses:
    def __init__(self) -> None:
        self.vars: set[int] = set()
        self.function = False

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Var):
            self.vars.add(id(e))
        elif isinstance(e, rx.Call):
            if isinstance(e.op, (rx.Var, rx.Function)):  # a closure or a literal called
                self.expr(e.op)
            for a in e.args:
                self.expr(a)
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                self.expr(f)
        elif isinstance(e, rx.TupleGetItem):
            self.expr(e.tuple_value)
        elif isinstance(e, rx.If):
            self.expr(e.cond)
            self.seq(e.true_branch)
            self.seq(e.false_branch)
        elif isinstance(e, rx.SeqExpr):
            self.seq(e)
        elif isinstance(e, rx.Function):
            self.function = True
            self.seq(e.body)
        # the other leaves (constants, shapes, prim values, strings, globals, ops) read no
        # Relax variable

    def block(self, block: rx.BindingBlock) -> None:
        for b in block.bindings:
            self.expr(b.value)

    def seq(self, s: rx.SeqExpr) -> None:
        for block in s.blocks:
            self.block(block)
        self.expr(s.body)
