"""The row-reduction schedule (spec/backends.md BE-sched-5): one block of threads per
output element, a strided partial fold per thread, then a tree in shared memory.

Invariant: the kernel is a sequence of *phases*, thread loops over the same
``threadIdx.x`` extent inside one ``blockIdx.x`` loop, and a barrier separates
consecutive phases. The TIR interpreter runs each phase for every thread before the
next phase starts, which is what the barrier guarantees on a device, so the
interpreter's result is the device's result; the emitters print a barrier between
consecutive phases (BE-emit-6).

The fold is reassociated: exact for integer sums and for ``max``/``min`` of values
without NaN (a select-based max is not commutative with NaN), within float rounding for
float sums (the tests say how much).
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import prim_expr as P
from relax_ref.ir.prim_expr import is_one_literal as _is_one, literal_product as _product
from relax_ref.ir import tir
from relax_ref.ir.dtype import parse_dtype
from relax_ref.solver.simplify import canonical_equal, simplify

from .gpu_schedule import flat_seq, default_gpu_schedule, is_scheduled

__all__ = ["schedule_row_reductions", "is_row_reduction"]

HANDLE = parse_dtype("handle")
_OPS = (P.Add, P.Max, P.Min)


def schedule_row_reductions(func: tir.PrimFunc, max_threads: int = 256) -> tir.PrimFunc:
    """Row reductions of ``func`` as shared-memory trees, every other nest by the
    default schedule (BE-sched-1..4)."""
    if is_scheduled(func):
        return func
    root = func.body
    if not isinstance(root, tir.SBlockRealize) or root.block.iter_vars:
        return default_gpu_schedule(func, max_threads)
    parts = flat_seq(root.block.body)
    nests = [_tree(n, max_threads, parts[k - 1] if k else None) or n
             for k, n in enumerate(parts)]
    body = nests[0] if len(nests) == 1 else tir.SeqStmt(tuple(nests))
    staged = dataclasses.replace(func, body=dataclasses.replace(
        root, block=dataclasses.replace(root.block, body=body)))
    return default_gpu_schedule(staged, max_threads)


def is_row_reduction(nest: tir.Stmt, before: tir.Stmt | None = None) -> bool:
    return _match(nest, before) is not None


def _match(nest: tir.Stmt, before: tir.Stmt | None = None):
    """(loops, realize, output buffer, operator, init value, right operand) when
    ``nest`` is ``O[s] = init; O[s] = O[s] op rhs`` over spatial then reduction loops;
    the init may be the nest ``before`` it, when that sets all of ``O`` to a constant
    (TVM's separate-init stage, TE-func-4)."""
    loops: list[tir.For] = []
    s = nest
    while isinstance(s, tir.For):
        loops.append(s)
        s = s.body
    if not isinstance(s, tir.SBlockRealize) or not loops:
        return None
    block = s.block
    kinds = "".join(iv.kind for iv in block.iter_vars)
    if ("R" not in kinds or kinds != "S" * kinds.count("S") + "R" * kinds.count("R")
            or len(loops) != len(kinds) or block.alloc_buffers or block.match_buffers
            or not (isinstance(s.predicate, P.IntImm) and s.predicate.value)
            or any(v is not l.loop_var for v, l in zip(s.iter_values, loops))
            or any(not (isinstance(l.min, P.IntImm) and l.min.value == 0) for l in loops)
            or any(l.kind == "thread_binding" for l in loops)):
        return None
    init, body = block.init, block.body
    if init is None and isinstance(body, tir.BufferStore):
        init = _separate_init(before, body, [l for l, iv in zip(loops, block.iter_vars)
                                             if iv.kind == "S"], block)
    if not (isinstance(init, tir.BufferStore) and isinstance(body, tir.BufferStore)):
        return None
    out = body.buffer
    spatial = {id(iv.var) for iv in block.iter_vars if iv.kind == "S"}
    same = lambda idx: len(idx) == len(body.indices) and all(  # noqa: E731
        a is b for a, b in zip(idx, body.indices))
    if (init.buffer is not out or not same(init.indices)
            or any(not (isinstance(i, P.Var) and id(i) in spatial) for i in body.indices)):
        return None
    op = body.value
    if type(op) not in _OPS or not (isinstance(op.a, tir.BufferLoad) and op.a.buffer is out
                                    and same(op.a.indices)):
        return None
    rhs = op.b
    if _reads(rhs, out) or _reads(init.value, out) or out.dtype.is_bool:
        return None
    # Rows: every load of the reduced expression that moves with the reduction walks
    # its last axis with a reduction variable (softmax, norms, sums over the last axis;
    # not a matmul's column); a load that does not move (a row's maximum, inlined into
    # softmax's sum by BE-sched-6) is the same for the whole row.
    reduce_ids = {id(iv.var) for iv in block.iter_vars if iv.kind == "R"}
    moving = [l for l in _loads(rhs) if any(id(v) in reduce_ids for i in l.indices
                                              for v in P.free_vars(i))]
    if not moving or any(not any(id(v) in reduce_ids for v in P.free_vars(l.indices[-1]))
                         for l in moving):
        return None
    if isinstance(op, P.Add) and not (isinstance(init.value, (P.IntImm, P.FloatImm))
                                      and init.value.value == 0):
        return None  # the tree adds the initial value once per thread
    return loops, s, out, type(op), init.value, rhs


def _separate_init(before, body: tir.BufferStore, spatial_loops, block):
    """``O[s] = c`` as the reduction block would write it, when ``before`` is a nest
    over the same spatial extents storing the constant ``c`` into every ``O[s]`` (in
    the same index order); else None."""
    loops = []
    s = before
    while isinstance(s, tir.For):
        loops.append(s)
        s = s.body
    if not isinstance(s, tir.SBlockRealize) or s.block.init is not None:
        return None
    b = s.block
    store = b.body
    spatial_vars = [iv.var for iv in block.iter_vars if iv.kind == "S"]
    if (not isinstance(store, tir.BufferStore) or store.buffer is not body.buffer
            or not isinstance(store.value, (P.IntImm, P.FloatImm))
            or any(iv.kind != "S" for iv in b.iter_vars) or len(loops) != len(b.iter_vars)
            or len(loops) != len(spatial_loops)
            or any(v is not l.loop_var for v, l in zip(s.iter_values, loops))
            or not (isinstance(s.predicate, P.IntImm) and s.predicate.value)
            or len(store.indices) != len(b.iter_vars)
            or any(i is not iv.var for i, iv in zip(store.indices, b.iter_vars))
            or len(body.indices) != len(spatial_vars)
            or any(i is not v for i, v in zip(body.indices, spatial_vars))
            or any(not (isinstance(l.min, P.IntImm) and l.min.value == 0) for l in loops)
            or any(not canonical_equal(l.extent, m.extent)
                   for l, m in zip(loops, spatial_loops))):
        return None
    return tir.BufferStore(body.buffer, store.value, body.indices)


def _loads(e: P.PrimExpr) -> list[tir.BufferLoad]:
    found = [e] if isinstance(e, tir.BufferLoad) else []
    for c in P.children(e):
        found += _loads(c)
    return found


def _reads(e: P.PrimExpr, buf: tir.Buffer) -> bool:
    if isinstance(e, tir.BufferLoad) and e.buffer is buf:
        return True
    return any(_reads(c, buf) for c in P.children(e))


def _tree(nest: tir.Stmt, max_threads: int, before: tir.Stmt | None = None) -> tir.Stmt | None:
    found = _match(nest, before)
    if found is None:
        return None
    loops, realize, out, op, init, rhs = found
    block = realize.block
    dt = loops[0].loop_var.dtype
    ivs = list(zip(block.iter_vars, loops))
    spatial = [(iv, l) for iv, l in ivs if iv.kind == "S"]
    reduce = [(iv, l) for iv, l in ivs if iv.kind == "R"]
    rows = simplify(_product([l.extent for _, l in spatial], dt))
    length = simplify(_product([l.extent for _, l in reduce], dt))
    if isinstance(length, P.IntImm):
        t = 1
        while t < min(length.value, max_threads):
            t *= 2
    else:
        t = max_threads
    T = P.IntImm(t, dt)
    name = block.name
    bx = P.Var(f"{name}_row", dt)
    red = tir.Buffer(f"{name}_red", (T,), out.dtype, P.Var(f"{name}_red", HANDLE),
                     scope="shared")

    def combine(a, b):
        return op(a, b, out.dtype)

    def load(i):
        return tir.BufferLoad(red, (i,), out.dtype)

    def lets(pairs, index, body):
        stride: P.PrimExpr = P.IntImm(1, dt)
        bound = []
        for iv, l in reversed(pairs):
            e = index if _is_one(stride) else P.FloorDiv(index, stride, dt)
            bound.append((iv.var, P.FloorMod(e, l.extent, dt)))
            stride = simplify(stride * l.extent)
        for var, value in bound:
            body = tir.LetStmt(var, value, body)
        return body

    tx = P.Var(f"{name}_t", dt)  # one thread index for every phase (each its own loop)

    def phase(make):
        return tir.For(tx, P.IntImm(0, dt), T, "thread_binding", make(tx),
                       thread_tag="threadIdx.x")

    def partial(tx):
        chunks = simplify(P.FloorDiv(length + P.IntImm(t - 1, dt), T, dt))
        single = isinstance(chunks, P.IntImm) and chunks.value == 1
        r = P.Var(f"{name}_k", dt)
        k = tx if single else r * T + tx
        fold = tir.BufferStore(red, combine(load(tx), rhs), (tx,))
        step: tir.Stmt = lets(reduce, k, lets(spatial, bx, fold))
        if not (isinstance(length, P.IntImm) and length.value % t == 0):
            step = tir.IfThenElse(P.LT(k, length, P.BOOL), step)
        if not single:  # one element per thread needs no loop
            step = tir.For(r, P.IntImm(0, dt), chunks, "serial", step)
        return tir.SeqStmt((tir.BufferStore(red, init, (tx,)), step))

    phases = [phase(partial)]
    half = t // 2
    while half >= 1:
        h = P.IntImm(half, dt)
        phases.append(phase(lambda tx, h=h: tir.IfThenElse(
            P.LT(tx, h, P.BOOL),
            tir.BufferStore(red, combine(load(tx), load(tx + h)), (tx,)))))
        half //= 2
    zero = P.IntImm(0, dt)
    phases.append(phase(lambda tx: tir.IfThenElse(
        P.EQ(tx, zero, P.BOOL),
        lets(spatial, bx, tir.BufferStore(out, load(zero), realize.block.body.indices)))))
    body = tir.Allocate(red.data, out.dtype, (T,), P.IntImm(1, P.BOOL),
                        tir.DeclBuffer(red, tir.SeqStmt(tuple(phases))), scope="shared")
    return tir.For(bx, P.IntImm(0, dt), rows, "thread_binding", body,
                   thread_tag="blockIdx.x")


