"""Which variables a piece of IR reads, and which storage a PrimFunc writes.

``variable_uses(node)`` walks an expression, a binding block or a function and returns
the ids of the variables it reads (nested If branches and nested functions included)
and whether it contains a function literal. Passes use it for liveness and dead code;
the interpreter uses it to drop values after their last use.

``tir_nodes(stmt)`` walks every node of a TIR statement. ``stored_storage(func)`` is
the storage a PrimFunc may store into: the data variable (or, without one, the buffer)
of every buffer a ``BufferStore`` targets, directly or through a ``match_buffer`` view.
The interpreter uses it to keep read-only arguments (module constants) from being
written.
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.fields import child_fields


class ExprWalker:
    """The one read-only walk of Relax IR: the places ``passes.rewrite.Rewriter`` visits,
    in its order, with nothing rebuilt. A subclass overrides the hooks it is about
    (``var``, ``leaf``, ``call``, ``binding``, ``function``); the call's callee is left to
    ``call`` (a Rewriter does not visit it as an expression)."""

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Var):
            self.var(e)
        elif isinstance(e, rx.Call):
            self.call(e)
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
            self.function(e)
        else:
            self.leaf(e)

    def var(self, v: rx.Var) -> None:
        pass

    def leaf(self, e: rx.Expr) -> None:
        """Constants, shapes, prim values, strings, dtypes, globals, extern functions, ops."""

    def call(self, e: rx.Call) -> None:
        for a in e.args:
            self.expr(a)

    def function(self, func: rx.Function) -> None:
        self.seq(func.body)

    def seq(self, s: rx.SeqExpr) -> None:
        for block in s.blocks:
            self.block(block)
        self.expr(s.body)

    def block(self, block: rx.BindingBlock) -> None:
        for b in block.bindings:
            self.binding(b)

    def binding(self, b: rx.Binding) -> None:
        self.expr(b.value)


def variable_uses(node) -> tuple[set[int], bool]:
    """``(ids of the variables read, whether a function literal occurs)``."""
    walker = _Uses()
    if isinstance(node, rx.BindingBlock):
        walker.block(node)
    else:
        walker.expr(node)  # a function counts as a literal (its body is walked)
    return walker.vars, walker.has_function


class _Uses(ExprWalker):
    def __init__(self) -> None:
        self.vars: set[int] = set()
        self.has_function = False

    def var(self, v: rx.Var) -> None:
        self.vars.add(id(v))

    def call(self, e: rx.Call) -> None:
        if isinstance(e.op, (rx.Var, rx.Function)):  # a closure or a literal called
            self.expr(e.op)
        super().call(e)

    def function(self, func: rx.Function) -> None:
        self.has_function = True
        super().function(func)


def walk_bindings(seq: rx.SeqExpr):
    """Every binding of ``seq``, in order, those in the branches of an ``if`` included
    (not those inside local functions)."""
    for block in seq.blocks:
        for b in block.bindings:
            yield b
            if isinstance(b.value, rx.If):
                yield from walk_bindings(b.value.true_branch)
                yield from walk_bindings(b.value.false_branch)


def tir_nodes(root):
    """Every node under a TIR statement or expression, the root included: statements,
    expressions, buffer regions, ranges and iteration variables, depth-first (buffers'
    own shapes are not descended into)."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, (tuple, list)):
            pending.extend(reversed(node))
        elif isinstance(node, _TIR_NODES):
            yield node
            pending.extend(reversed([getattr(node, name)
                                     for name in child_fields(type(node))]))


_TIR_NODES = (tir.Stmt, P.PrimExpr, tir.IterVar, tir.Range, tir.BufferRegion,
              tir.MatchBufferRegion)


_STORED_MEMO: dict[int, tuple[tir.Stmt, frozenset]] = {}


def stored_storage(func: tir.PrimFunc) -> frozenset:
    """The data variables (or buffers without one) that ``func`` may store into.
    Remembered per function body (the IR is immutable; the answer reads only the body, so
    a copy with other attributes shares it): the interpreter asks on every call."""
    body = func.body
    hit = _STORED_MEMO.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    if len(_STORED_MEMO) >= 4096:
        _STORED_MEMO.clear()
    result = frozenset(_stored_storage(func))
    # The memo holds the body so that its id cannot be reused while it is cached.
    _STORED_MEMO[id(body)] = (body, result)
    return result


def _stored_storage(func: tir.PrimFunc) -> set:
    stored: set = set()
    views: list[tir.MatchBufferRegion] = []
    for node in tir_nodes(func.body):
        if isinstance(node, tir.BufferStore):
            stored.add(_storage_key(node.buffer))
        elif isinstance(node, P.Call) and node.op == "tir.call_packed":
            # A packed call may write every array it is given (EXEC-tir-packed-1).
            stored.update(a.args[0] for a in node.args if isinstance(a, P.Call) and
                          a.op == "tir.tvm_stack_make_array" and a.args)
        elif isinstance(node, tir.MatchBufferRegion):
            views.append(node)
    # A store into a match_buffer view stores into the region's buffer (views of views
    # included).
    changed = True
    while changed:
        changed = False
        for view in views:
            source = _storage_key(view.source.buffer)
            if _storage_key(view.buffer) in stored and source not in stored:
                stored.add(source)
                changed = True
    return stored


def _storage_key(buffer: tir.Buffer):
    return buffer.data if buffer.data is not None else buffer
