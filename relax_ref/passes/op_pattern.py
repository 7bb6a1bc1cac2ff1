"""The operator pattern of a PrimFunc (TVM's ``OpPatternKind``), read from the loads and
stores of its blocks, never from its name (spec/passes.md, PASS-pattern-*; paper
Algorithm 1). FuseOps decides what may fuse from these kinds.

Each block (the root block aside) is classified from its store and its loads
(PASS-pattern-2..4); the function's kind combines its blocks' kinds in program order
(PASS-pattern-5). Two index expressions are "the same" only when they are the same
variable: TVM compares index nodes by identity, and after parsing only variables are
shared nodes, so a constant index never matches another (PASS-pattern-2).

Where TVM's rules would claim facts the code does not have, the function is Opaque
(PASS-pattern-6): stores or calls outside blocks, blocks inside blocks, views
(``match_buffer``) in a block, a block that reads what it writes at another index, a
reduction whose store index uses a reduction variable.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir


class OpPattern(enum.IntEnum):
    """TVM's kinds and numbers; a larger number claims less."""

    ELEM_WISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_EWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


def op_pattern(func: tir.PrimFunc) -> OpPattern:
    """PASS-pattern-1..6: the kind of ``func``, from one walk over its statements (a
    block's body is walked once, for its accesses and for blocks nested in it)."""
    params = {id(buffer) for _, buffer in func.buffer_map}
    kind = OpPattern.ELEM_WISE
    body = func.body
    if isinstance(body, tir.SBlockRealize) and body.block.name == "root":
        body = body.block.body
    for node in _statements(body):
        if isinstance(node, tir.SBlock):
            block_kind = _block_kind(node)
            if block_kind is None:
                return OpPattern.OPAQUE
            writes_param = any(id(w.buffer) in params for w in node.writes)
            if block_kind <= OpPattern.INJECTIVE and writes_param \
                    and kind == OpPattern.COMM_REDUCE:
                kind = OpPattern.OUT_EWISE_FUSABLE  # PASS-pattern-5: a reduction, then its epilogue
            else:
                kind = max(kind, block_kind)
        elif isinstance(node, tir.BufferStore) or _calls_for_effect(node):
            return OpPattern.OPAQUE  # PASS-pattern-6: a store or a call outside every block
    return kind


# -- statements ----------------------------------------------------------------------------------

def _calls_for_effect(node: tir.Stmt) -> bool:
    return isinstance(node, tir.Evaluate) and not isinstance(node.value, P.IntImm)


def _statements(stmt: tir.Stmt):
    """The statements under ``stmt`` in program order, not descending into blocks (a
    block is yielded, its body is not)."""
    pending = [stmt]
    while pending:
        node = pending.pop()
        if node is None:
            continue
        yield node
        t = type(node)
        if t is tir.For:  # the statements met most, first
            pending.append(node.body)
            continue
        if t is tir.BufferStore or isinstance(node, tir.SBlock):
            continue
        if isinstance(node, tir.SBlockRealize):
            pending.append(node.block)
        elif isinstance(node, tir.SeqStmt):
            pending.extend(reversed(node.seq))
        elif isinstance(node, tir.IfThenElse):
            pending.extend((node.else_case, node.then_case))
        elif isinstance(node, (tir.LetStmt, tir.While, tir.For, tir.Allocate, tir.DeclBuffer,
                               tir.AttrStmt)):
            pending.append(node.body)
        elif isinstance(node, tir.AssertStmt):
            pending.append(node.body)


# -- one block ---------------------------------------------------------------------------------

@dataclass
class _Accesses:
    stores: list[tir.BufferStore] = field(default_factory=list)
    loads: list[tir.BufferLoad] = field(default_factory=list)
    calls_for_effect: bool = False
    nested_block: bool = False


def _accesses(block: tir.SBlock) -> _Accesses:
    """The stores and loads of a block's body and its init, in program order, and
    whether a block is nested in it."""
    found = _Accesses()
    for part in (block.init, block.body):
        if part is None:
            continue
        for node in _statements(part):
            if isinstance(node, tir.BufferStore):
                _collect_loads(node.value, found.loads)
                for index in node.indices:
                    _collect_loads(index, found.loads)
                found.stores.append(node)
                continue
            for e in _statement_exprs(node):
                _collect_loads(e, found.loads)
            if isinstance(node, tir.SBlock):
                found.nested_block = True
            elif _calls_for_effect(node):
                found.calls_for_effect = True
    return found


def _statement_exprs(node: tir.Stmt) -> tuple[P.PrimExpr, ...]:
    if isinstance(node, tir.BufferStore):
        return (node.value, *node.indices)
    if isinstance(node, tir.Evaluate):
        return (node.value,)
    if isinstance(node, (tir.IfThenElse, tir.While, tir.AssertStmt)):
        return (node.condition,)
    if isinstance(node, tir.LetStmt):
        return (node.value,)
    if isinstance(node, tir.For):
        return (node.min, node.extent)
    if isinstance(node, tir.Allocate):
        return (*node.extents, node.condition)
    if isinstance(node, tir.AttrStmt):
        return (node.value,)
    return ()


# leaves of index and value expressions: nothing to look into
_LEAVES = frozenset({P.Var, P.IntImm, P.FloatImm, P.StringImm})


def _collect_loads(e: P.PrimExpr, out: list[tir.BufferLoad]) -> None:
    """Append the loads in ``e`` to ``out``, in program order."""
    if type(e) in _LEAVES:
        return
    pending = [e]
    while pending:
        x = pending.pop()
        t = type(x)
        if t in _LEAVES:
            continue
        if t is tir.BufferLoad:
            out.append(x)
            pending.extend(reversed(x.indices))
        elif issubclass(t, P.BinaryOp):
            pending.append(x.b)
            pending.append(x.a)
        else:
            pending.extend(reversed(P.children(x)))


def _block_kind(block: tir.SBlock) -> OpPattern | None:
    """PASS-pattern-2..4 and 6: the block's kind; None where the function is Opaque."""
    if block.match_buffers:
        return None  # PASS-pattern-6: indices into a view are not positions in the buffer
    acc = _accesses(block)
    if acc.nested_block:
        return None  # PASS-pattern-6: blocks inside a block
    if not acc.stores or acc.calls_for_effect:
        return None  # PASS-pattern-2, -6: an extern call computes it
    store = acc.stores[-1]
    for s in acc.stores:
        if not _same_indices(s.indices, store.indices):  # a constant index fails
            return None  # PASS-pattern-2: one store position per block
    written = {_storage(s.buffer) for s in acc.stores}
    for load in acc.loads:
        if _storage(load.buffer) in written and not _same_indices(load.indices, store.indices):
            return None  # PASS-pattern-6: reads its own output elsewhere (a scan)
    reduce_vars = [iv.var for iv in block.iter_vars if iv.kind == "R"]
    if reduce_vars:
        reduce_ids = {id(v) for v in reduce_vars}
        if any(_uses(index, reduce_ids) for index in store.indices):
            return None  # PASS-pattern-6: the store position moves with the reduction
    pattern = _index_pattern(store, acc.loads)
    if pattern is not None:
        return pattern
    if not reduce_vars:
        return None
    # PASS-pattern-4
    if _is_multiply_add(block.body):
        return OpPattern.OUT_EWISE_FUSABLE
    if not all(_pure_reduction(load.indices, reduce_vars) for load in acc.loads):
        return OpPattern.OUT_EWISE_FUSABLE
    return OpPattern.COMM_REDUCE


def _storage(buffer: tir.Buffer) -> int:
    """Buffers that share a data variable are views of one storage."""
    return id(buffer.data if buffer.data is not None else buffer)


def _index_pattern(store: tir.BufferStore, loads: list[tir.BufferLoad]) -> OpPattern | None:
    """PASS-pattern-3: the loosest of the loads' relations to the store, each elementwise,
    broadcast or injective; None when one is none of them. Elementwise loads beside
    broadcast ones keep the block elementwise (``C[i, j] = A[i, j] + B[j]``)."""
    worst = OpPattern.ELEM_WISE
    any_elementwise = False
    for load in loads:
        if _same_indices(load.indices, store.indices):
            any_elementwise = True
        elif _is_broadcast(store, load):
            worst = max(worst, OpPattern.BROADCAST)
        elif _is_injective(store, load):
            worst = max(worst, OpPattern.INJECTIVE)
        else:
            return None
    if worst == OpPattern.BROADCAST and any_elementwise:
        return OpPattern.ELEM_WISE
    return worst


# -- index relations -----------------------------------------------------------------------------

def _as_var(e: P.PrimExpr) -> P.Var | None:
    """The variable ``e`` is, seeing through the identities TVM folds while it builds an
    expression (``x + 0``, ``x - 0``, ``x * 1``, ``x // 1``: TVM's parser reads
    ``v // T.int64(1)`` as ``v``); None when ``e`` is no variable."""
    while True:
        if isinstance(e, P.Var):
            return e
        if isinstance(e, (P.Add, P.Sub, P.Mul, P.FloorDiv, P.Div)):
            unit = 0 if isinstance(e, (P.Add, P.Sub)) else 1
            if _is_int(e.b, unit):
                e = e.a
                continue
            if isinstance(e, (P.Add, P.Mul)) and _is_int(e.a, unit):
                e = e.b
                continue
        return None


def _is_int(e: P.PrimExpr, value: int) -> bool:
    return isinstance(e, P.IntImm) and e.value == value


def _same(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """PASS-pattern-2: the same index only when the same variable."""
    if a is b:
        return type(a) is P.Var or _as_var(a) is not None
    var = _as_var(a)
    return var is not None and var is _as_var(b)


def _same_indices(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not (x is y and type(x) is P.Var) and not _same(x, y):
            return False
    return True


def _is_unit_axis(buffer: tir.Buffer, i: int, index: P.PrimExpr) -> bool:
    return _is_int(buffer.shape[i], 1) and _is_int(index, 0)


def _is_broadcast(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    """Each load index, unit axes read at 0 aside, is a store index, in the store's order."""
    j = 0
    for i, index in enumerate(load.indices):
        if i < len(load.buffer.shape) and _is_unit_axis(load.buffer, i, index):
            continue
        while j < len(store.indices) and not _same(store.indices[j], index):
            j += 1
        if j == len(store.indices):
            return False
    return True


def _store_vars(store: tir.BufferStore) -> set[int] | None:
    """The ids of the store's index variables; None when an index is not a variable."""
    found = [_as_var(i) for i in store.indices]
    if any(v is None for v in found):
        return None
    return {id(v) for v in found}


def _is_injective(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    """The store indices are variables and the load indices use no other variable and
    read no buffer (a data-dependent index is not injective)."""
    allowed = _store_vars(store)
    if allowed is None:
        return False
    return not any(_uses_other(index, allowed) for index in load.indices)


def _walk(e: P.PrimExpr):
    pending = [e]
    while pending:
        x = pending.pop()
        yield x
        pending.extend(P.children(x))


def _uses(e: P.PrimExpr, var_ids: set[int]) -> bool:
    t = type(e)
    if t is P.Var:
        return id(e) in var_ids
    if t is P.IntImm:
        return False
    return any(isinstance(x, P.Var) and id(x) in var_ids for x in _walk(e))


def _uses_other(e: P.PrimExpr, allowed: set[int]) -> bool:
    """``e`` uses a variable outside ``allowed``, or loads from a buffer."""
    t = type(e)
    if t is P.Var:
        return id(e) not in allowed
    if t is P.IntImm:
        return False
    return any((isinstance(x, P.Var) and id(x) not in allowed) or isinstance(x, tir.BufferLoad)
               for x in _walk(e))


def _strip_casts(e: P.PrimExpr) -> P.PrimExpr:
    while isinstance(e, P.Cast):
        e = e.value
    return e


def _is_multiply_add(body: tir.Stmt) -> bool:
    """``C[i, j] = C[i, j] + A[..] * B[..]`` (casts allowed around each part), where each
    factor leaves out some store variable, so its elements are reused (matmul, conv)."""
    if not isinstance(body, tir.BufferStore):
        return False
    add = _strip_casts(body.value)
    if not isinstance(add, P.Add):
        return False
    acc, mul = _strip_casts(add.a), _strip_casts(add.b)
    if not isinstance(mul, P.Mul) or not isinstance(acc, tir.BufferLoad):
        return False
    if acc.buffer is not body.buffer or not _same_indices(acc.indices, body.indices):
        return False
    factors = (_strip_casts(mul.a), _strip_casts(mul.b))
    return all(isinstance(f, tir.BufferLoad) and _reuses(body, f) for f in factors)


def _reuses(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    """Some store variable does not occur in the load's indices."""
    missing = _store_vars(store)
    if missing is None:
        return False
    for index in load.indices:
        for x in _walk(index):
            if isinstance(x, P.Var):
                missing.discard(id(x))
    return bool(missing)


def _pure_reduction(indices, reduce_vars: list[P.Var]) -> bool:
    """Every index that uses a reduction variable is that variable alone."""
    ids = {id(v) for v in reduce_vars}
    return all(not _uses(index, ids) or id(_as_var(index)) in ids for index in indices)
