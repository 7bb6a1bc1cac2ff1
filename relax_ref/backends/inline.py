"""Inlining injective stages (spec/backends.md BE-sched-6): TVM's ``compute_inline`` for
the PrimFuncs LegalizeOps and FuseTIR write, so a fused chain of reshapes, transposes,
splits, concatenations and elementwise operations becomes one nest (one kernel).

A *producer* nest writes an intermediate ``B`` (a buffer of the root block) with one
spatial block, ``B[v0, ..., vn] = e`` over loops whose extents are ``B``'s shape: each
element of ``B`` is written exactly once, with the value of the pure expression ``e``.
Each load ``B[i0, ..., in]`` in a later nest is replaced by ``e`` with ``vk := ik``, and
the producer and ``B`` disappear. That is exact when, wherever the load is evaluated,
its indices lie in ``B``'s shape (then the producer computed ``e`` at that very point,
from inputs no nest changes in between, and ``e`` computes the same value again): the
analyzer must prove it from the consumer's iteration domain and the conditions of the
lazy ``if_then_else`` arms around the load; anything unproved keeps the producer.
Float operations of an element are the same operations in the same order (only where
``e`` is evaluated moves), so no rounding changes, float16 casts included.
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import prim_expr as P
from relax_ref.ir.prim_expr import is_true_literal as _is_true, is_zero_literal as _is_zero
from relax_ref.ir import tir
from relax_ref.ir.uses import tir_nodes
from relax_ref.semantics.tir_exprs import _INTRINSICS
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.expr_utils import substitute
from relax_ref.solver.simplify import canonical_equal

from .gpu_schedule import flat_seq
from .lower import map_tir

__all__ = ["inline_injective", "nest_parts", "is_noalias"]

#: Intrinsics that compute a value from their operands and nothing else ("ret" leaves
#: the function; packed and extern calls may do anything).
PURE_CALLS = frozenset(_INTRINSICS) - {"ret"}
#: The largest block (in IR nodes) inlining may write: a chain whose stages each read
#: the one before twice would otherwise grow exponentially.
MAX_NODES = 2000


def is_noalias(func: tir.PrimFunc) -> bool:
    """Parameters never share memory (``tirx.noalias``): moving a read of one past a
    write of another is then safe."""
    return bool(func.attrs.get("tirx.noalias", False))


def nest_parts(s: tir.Stmt):
    """(loops, realize) when ``s`` is loops from 0 around one leaf block whose iter vars
    are bound to the loop variables in order (BE-sched-1's form), else None."""
    loops: list[tir.For] = []
    while isinstance(s, tir.For):
        loops.append(s)
        s = s.body
    if not isinstance(s, tir.SBlockRealize) or len(s.iter_values) != len(loops):
        return None
    if any(l.kind == "thread_binding" or not _is_zero(l.min) for l in loops) or any(
            v is not l.loop_var for v, l in zip(s.iter_values, loops)):
        return None
    if any(isinstance(n, tir.SBlockRealize) for n in tir_nodes(s.block.body)):
        return None
    return loops, s


def inline_injective(func: tir.PrimFunc) -> tir.PrimFunc:
    """``func`` with every producer of BE-sched-6 that can be proved exact inlined into
    its readers (repeatedly, so chains collapse); ``func`` itself when none can."""
    root = func.body
    if (not is_noalias(func) or not isinstance(root, tir.SBlockRealize)
            or root.block.iter_vars or not root.block.alloc_buffers):
        return func
    nests = flat_seq(root.block.body)
    allocs = list(root.block.alloc_buffers)
    changed = False
    progress = True
    while progress:
        progress = False
        for k in range(len(nests)):
            done = _inline_one(nests, k, allocs)
            if done is not None:
                nests, allocs = done
                changed = progress = True
                break
    if not changed:
        return func
    body = nests[0] if len(nests) == 1 else tir.SeqStmt(tuple(nests))
    block = dataclasses.replace(root.block, body=body, alloc_buffers=tuple(allocs))
    return dataclasses.replace(func, body=dataclasses.replace(root, block=block))


def _inline_one(nests: list, k: int, allocs: list):
    """(nests, allocs) after inlining nest ``k`` into its readers, or None."""
    parts = nest_parts(nests[k])
    if parts is None:
        return None
    loops, realize = parts
    block = realize.block
    store = block.body
    if (block.init is not None or block.alloc_buffers or block.match_buffers
            or not _is_true(realize.predicate) or not isinstance(store, tir.BufferStore)
            or any(iv.kind != "S" for iv in block.iter_vars)):
        return None
    buf = store.buffer
    ivars = [iv.var for iv in block.iter_vars]
    if (not any(b is buf for b in allocs) or len(store.indices) != len(ivars)
            or any(i is not v for i, v in zip(store.indices, ivars))
            or len(buf.shape) != len(loops)
            or any(not canonical_equal(l.extent, d) for l, d in zip(loops, buf.shape))
            or any(not _is_zero(iv.dom.min) or not canonical_equal(iv.dom.extent, d)
                   for iv, d in zip(block.iter_vars, buf.shape))
            or store.value.dtype != buf.dtype or not _pure(store.value, buf)):
        return None
    loop_ids = {id(l.loop_var) for l in loops}
    if any(id(v) in loop_ids for v in P.free_vars(store.value)):
        return None
    value_reads = {id(n.buffer) for n in tir_nodes(store.value) if isinstance(n, tir.BufferLoad)}
    readers = []
    for j, nest in enumerate(nests):
        if j == k:
            continue
        written = _written(nest)
        if id(buf) in written:
            return None  # B written twice
        reads_b = _mentions(nest, buf)  # a load, or a region of T.reads
        if j < k and reads_b:
            return None  # read before it is written
        if j > k and written & value_reads:
            return None  # an input of e changes after the producer ran
        if reads_b:
            readers.append(j)
    if not readers:
        return None
    new = list(nests)
    for j in readers:
        replaced = _substitute_into(nests[j], buf, ivars, store.value, block.reads)
        if replaced is None or _mentions(replaced, buf):
            return None  # (a load outside the block's body: its predicate, an extent)
        new[j] = replaced
    del new[k]
    return new, [b for b in allocs if b is not buf]


def _substitute_into(nest: tir.Stmt, buf: tir.Buffer, ivars, value, value_regions):
    """``nest`` with each load of ``buf`` replaced by ``value`` at the load's indices,
    or None when a load cannot be proved in bounds where it is evaluated."""
    parts = nest_parts(nest)
    if parts is None:
        return None
    loops, realize = parts
    block = realize.block
    if block.match_buffers:
        return None
    analyzer = Analyzer()
    for iv, l in zip(block.iter_vars, loops):  # each iter var is its loop's variable
        analyzer.add_fact(P.LE(P.IntImm(0, iv.var.dtype), iv.var, P.BOOL))
        analyzer.add_fact(P.LT(iv.var, l.extent, P.BOOL))
    loads: list[tir.BufferLoad] = []
    for part in (block.init, block.body):
        if part is not None and not _stmt_loads(part, buf, [], loads):
            return None
    for load, conds in loads:
        for idx, dim in zip(load.indices, buf.shape):
            ok = P.And(P.LE(P.IntImm(0, idx.dtype), idx, P.BOOL), P.LT(idx, dim, P.BOOL),
                       P.BOOL)
            with analyzer.assuming(*conds):
                if not analyzer.can_prove(ok):
                    return None
    if _size(block.body) + _size(block.init) + len(loads) * _size(value) > MAX_NODES:
        return None
    regions = []

    def replace(e):
        if isinstance(e, tir.BufferLoad) and e.buffer is buf:
            mapping = dict(zip(ivars, e.indices))
            regions.extend(dataclasses.replace(r, region=tuple(
                tir.Range(substitute(g.min, mapping), substitute(g.extent, mapping))
                for g in r.region)) for r in value_regions)
            return substitute(value, mapping)
        return e

    body = map_tir(block.body, expr_fn=replace)
    init = map_tir(block.init, expr_fn=replace) if block.init is not None else None
    reads = tuple(r for r in block.reads if r.buffer is not buf) + tuple(regions)
    new_block = dataclasses.replace(block, body=body, init=init, reads=reads)
    stmt: tir.Stmt = dataclasses.replace(realize, block=new_block)
    for l in reversed(loops):
        stmt = dataclasses.replace(l, body=stmt)
    return stmt


def _stmt_loads(s: tir.Stmt, buf, conds: list, out: list) -> bool:
    """Collect (load, conditions) for the loads of ``buf`` in ``s``, the conditions
    being those of the ``if`` statements and lazy ``if_then_else`` arms around it (a
    ``Select`` evaluates both arms: no condition); False on a statement or a let this
    analysis does not reason about."""
    if isinstance(s, tir.SeqStmt):
        return all(_stmt_loads(x, buf, conds, out) for x in s.seq)
    if isinstance(s, tir.BufferStore):
        return all(_expr_loads(e, buf, conds, out) for e in (*s.indices, s.value))
    if isinstance(s, tir.IfThenElse):
        c = s.condition
        return (_expr_loads(c, buf, conds, out)
                and _stmt_loads(s.then_case, buf, conds + [c], out)
                and (s.else_case is None
                     or _stmt_loads(s.else_case, buf, conds + [P.Not(c, P.BOOL)], out)))
    if isinstance(s, tir.Evaluate):
        return _expr_loads(s.value, buf, conds, out)
    return False


def _expr_loads(e: P.PrimExpr, buf, conds: list, out: list) -> bool:
    if isinstance(e, P.Let):  # a let-bound index is not reasoned about
        return not any(isinstance(n, tir.BufferLoad) and n.buffer is buf
                       for n in tir_nodes(e))
    if isinstance(e, P.Call) and e.op in ("tir.if_then_else", "tirx.if_then_else"):
        c, t, f = e.args
        return (_expr_loads(c, buf, conds, out) and _expr_loads(t, buf, conds + [c], out)
                and _expr_loads(f, buf, conds + [P.Not(c, P.BOOL)], out))
    if isinstance(e, tir.BufferLoad) and e.buffer is buf:
        if not all(_expr_loads(i, buf, conds, out) for i in e.indices):
            return False
        if len(e.indices) != len(buf.shape) or any(i.dtype.lanes != 1 for i in e.indices):
            return False
        out.append((e, tuple(conds)))
        return True
    return all(_expr_loads(c, buf, conds, out) for c in P.children(e))


def _pure(e: P.PrimExpr, buf) -> bool:
    """Scalar, free of lets (a copy per use would bind one variable twice), of calls
    that are not plain math, and of reads of ``buf`` itself."""
    for n in tir_nodes(e):
        if isinstance(n, (P.Let, P.Ramp, P.Broadcast)) or n.dtype.lanes != 1:
            return False
        if isinstance(n, P.Call) and n.op.split(".", 1)[-1] not in PURE_CALLS:
            return False
        if isinstance(n, tir.BufferLoad) and n.buffer is buf:
            return False
    return True


def _mentions(node, buf) -> bool:
    return any(getattr(n, "buffer", None) is buf for n in tir_nodes(node))


def _size(node) -> int:
    return 0 if node is None else sum(1 for _ in tir_nodes(node))


def _written(s: tir.Stmt) -> set[int]:
    return {id(n.buffer) for n in tir_nodes(s) if isinstance(n, tir.BufferStore)}


