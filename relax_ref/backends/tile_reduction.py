"""Register-tiled reductions with their epilogue (spec/backends.md BE-sched-7, BE-sched-8):
the schedule for matmul, batch matmul and the other reduction nests LegalizeOps writes,
where the default schedule (one output per thread, BE-sched-4) re-reads both operands
for every output and keeps the running sum in memory.

A reduction nest ``B[s] = init; B[s] = f(B[s], ...)`` (spatial loops, then reduction
loops) is cut into tiles of ``rows x cols * threads`` outputs over its last two spatial
axes (``i``, ``j``): a block of ``threads`` threads per tile, thread ``t`` of it owning
rows ``i0 .. i0 + rows - 1`` and columns ``j0 + t + c * threads`` (``c < cols``), so
neighbouring threads read neighbouring columns (PoCL vectorizes across the threads of a
work-group; a GPU coalesces). Each thread keeps its ``rows * cols`` partial results in a
private array (of ``B``'s type) and runs the reduction loops once for all of them:

    acc[e] = init(e)                      for each element e of the thread
    for the reduction loops, in order:   acc[e] = f(acc[e], ...) for each e
    B[e] = acc[e]                         (or the epilogue, BE-sched-8)

Each element is the same operations in the same order as the unscheduled nest (the
reduction loops ascending, one rounding per step in ``B``'s type), so the result is bit
for bit the interpreter's. Where a tile overshoots an extent, its elements are guarded;
the guarded copy of the body runs only in threads that own such an element.
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import prim_expr as P
from relax_ref.ir.prim_expr import (
    is_one_literal as _is_one,
    is_true_literal as _is_true,
    is_zero_literal as _is_zero,
    literal_product as _product,
)
from relax_ref.ir import tir
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.uses import tir_nodes
from relax_ref.solver.expr_utils import substitute
from relax_ref.solver.simplify import canonical_equal, simplify

from .gpu_schedule import flat_seq
from .inline import is_noalias, nest_parts
from .lower import map_tir
from .row_reduction import _separate_init

__all__ = ["tile_reductions", "THREADS", "ROWS", "COLS"]

HANDLE = parse_dtype("handle")
#: The tile measured best on PoCL (bench/kernels.py): 64 threads, 8 rows x 4 columns.
THREADS, ROWS, COLS = 64, 8, 4
#: The most IR nodes the copies of the reduced expression in one tile may take.
MAX_NODES = 4000


def tile_reductions(func: tir.PrimFunc, skip=None, threads: int = THREADS,
                    rows: int = ROWS, cols: int = COLS) -> tir.PrimFunc:
    """``func`` with each reduction nest of BE-sched-7 tiled (and its epilogue fused,
    BE-sched-8); ``skip(nest, before)`` keeps a nest for another schedule (the row
    trees of BE-sched-5). Unchanged when nothing matches."""
    root = func.body
    if not isinstance(root, tir.SBlockRealize) or root.block.iter_vars:
        return func
    nests = flat_seq(root.block.body)
    allocs = list(root.block.alloc_buffers)
    out: list[tir.Stmt] = []
    changed = False
    k = 0
    while k < len(nests):
        nest = nests[k]
        before = nests[k - 1] if k and out and out[-1] is nests[k - 1] else None
        found = _match(nest, before)
        if found is not None and not (is_noalias(func) or any(x is found.out for x in allocs)):
            found = None  # B may be an input too: its partial sums could be read
        if found is None or (skip is not None and skip(nest, before)):
            out.append(nest)
            k += 1
            continue
        if found.separate_init:  # the tile writes every element: the stage goes
            out.pop()
        epilogue = _epilogue(func, nests, k, found, allocs) if k + 1 < len(nests) else None
        out.append(_tile(found, epilogue, threads, rows, cols))
        if epilogue is not None:
            allocs = [b for b in allocs if b is not found.out]
            k += 1
        changed = True
        k += 1
    if not changed:
        return func
    body = out[0] if len(out) == 1 else tir.SeqStmt(tuple(out))
    block = dataclasses.replace(root.block, body=body, alloc_buffers=tuple(allocs))
    return dataclasses.replace(func, body=dataclasses.replace(root, block=block))


@dataclasses.dataclass
class _Reduction:
    spatial: list          # (iter var, loop) of the spatial axes, in order
    reduce: list           # (iter var, loop) of the reduction axes, in order
    out: tir.Buffer        # B
    init: P.PrimExpr       # the init value
    value: P.PrimExpr      # f(B[s], ...)
    dtype: object          # the index type
    separate_init: bool    # the init is the nest before (TE-func-4's separate stage)

    def always_writes(self) -> bool:
        """Whether the unscheduled nests write every element of B (with no reduction
        step, only a separate init stage does)."""
        return self.separate_init or all(isinstance(l.extent, P.IntImm) and l.extent.value > 0
                                         for _, l in self.reduce)


def _match(nest: tir.Stmt, before: tir.Stmt | None = None) -> _Reduction | None:
    parts = nest_parts(nest)
    if parts is None:
        return None
    loops, realize = parts
    block = realize.block
    kinds = "".join(iv.kind for iv in block.iter_vars)
    ns = kinds.count("S")
    if (not ns or "R" not in kinds or kinds != "S" * ns + "R" * (len(kinds) - ns)
            or block.alloc_buffers or block.match_buffers or not _is_true(realize.predicate)
            or not isinstance(block.body, tir.BufferStore)):
        return None
    dt = loops[0].loop_var.dtype
    if any(l.loop_var.dtype != dt for l in loops):
        return None
    pairs = list(zip(block.iter_vars, loops))
    spatial, reduce = pairs[:ns], pairs[ns:]
    init, body = block.init, block.body
    separate = init is None and before is not None
    if separate:  # BE-sched-5's test: the nest before sets every B[s] to a constant
        init = _separate_init(before, body, loops[:ns], block)
    if not isinstance(init, tir.BufferStore):
        return None
    out = body.buffer
    svars = [iv.var for iv, _ in spatial]
    if (init.buffer is not out or not _identity(init.indices, svars)
            or not _identity(body.indices, svars) or out.dtype.lanes != 1
            or _loads_of(init.value, out) or any(not _identity(l.indices, svars)
                                                 for l in _loads_of(body.value, out))):
        return None
    loop_ids = {id(l.loop_var) for l in loops}
    if any(id(v) in loop_ids for e in (init.value, body.value) for v in P.free_vars(e)):
        return None  # a loop variable used directly (not through its iter var)
    if any(id(v) in loop_ids for _, l in reduce for v in P.free_vars(l.extent)):
        return None  # a reduction extent that depends on a spatial loop
    if any(not _is_zero(iv.dom.min) or not canonical_equal(iv.dom.extent, l.extent)
           for iv, l in pairs):
        return None
    return _Reduction(spatial, reduce, out, init.value, body.value, dt, separate)


@dataclasses.dataclass
class _Epilogue:
    ivars: list            # the consumer's iter vars (one per spatial axis)
    out: tir.Buffer        # O
    value: P.PrimExpr      # its value, reading B at its own iter vars


def _epilogue(func, nests, k, red: _Reduction, allocs) -> _Epilogue | None:
    """BE-sched-8: the nest after a reduction, when it is an elementwise consumer of the
    reduction's intermediate that can run in the reduction's thread."""
    b = red.out
    if not is_noalias(func) or not any(x is b for x in allocs):
        return None
    parts = nest_parts(nests[k + 1])
    if parts is None:
        return None
    loops, realize = parts
    block = realize.block
    store = block.body
    ivars = [iv.var for iv in block.iter_vars]
    if (block.init is not None or block.alloc_buffers or block.match_buffers
            or not _is_true(realize.predicate) or not isinstance(store, tir.BufferStore)
            or any(iv.kind != "S" for iv in block.iter_vars)
            or len(loops) != len(red.spatial)
            or any(not canonical_equal(l.extent, sl.extent)
                   for l, (_, sl) in zip(loops, red.spatial))
            or not _identity(store.indices, ivars) or store.buffer is b):
        return None
    o = store.buffer
    loop_ids = {id(l.loop_var) for l in loops}
    if (_loads_of(store.value, o) or _loads_of(red.value, o) or _loads_of(red.init, o)
            or not _loads_of(store.value, b)
            or any(not _identity(l.indices, ivars) for l in _loads_of(store.value, b))
            or any(id(v) in loop_ids for v in P.free_vars(store.value))):
        return None
    if not red.always_writes():
        return None  # an empty reduction leaves B unwritten: not provably the same
    own = (k - 1, k, k + 1) if red.separate_init else (k, k + 1)
    for j, nest in enumerate(nests):
        if j not in own and any(getattr(n, "buffer", None) is b
                                       for n in tir_nodes(nest)):
            return None  # B used elsewhere
    return _Epilogue(ivars, o, store.value)


def _tile(red: _Reduction, epi: _Epilogue | None, threads: int, rows: int,
          cols: int) -> tir.Stmt:
    dt = red.dtype

    def c(v: int) -> P.IntImm:
        return P.IntImm(v, dt)

    ext = [l.extent for _, l in red.spatial]
    J = ext[-1]
    I = ext[-2] if len(ext) >= 2 else c(1)
    batch = ext[:-2]
    L = min(threads, _pow2_at_least(J.value)) if isinstance(J, P.IntImm) else threads
    TJ = min(cols, -(-J.value // L)) if isinstance(J, P.IntImm) else cols
    TI = (min(rows, I.value) if isinstance(I, P.IntImm) else rows) if len(ext) >= 2 else 1
    L, TJ, TI = max(L, 1), max(TJ, 1), max(TI, 1)
    # A large reduced expression (a convolution's inlined padding) is copied once per
    # element of the tile: fewer elements keep the kernel's source small.
    size = _size(red.value) + (_size(epi.value) if epi is not None else 0)
    while TI * TJ > 1 and size * TI * TJ > MAX_NODES:
        if TI > 1:
            TI = (TI + 1) // 2
        else:
            TJ = (TJ + 1) // 2
    span_j = L * TJ
    nJ = _ceil_div(J, span_j, dt)
    nI = _ceil_div(I, TI, dt)
    nB = simplify(_product(batch, dt))
    grid = simplify(nB * nI * nJ)
    names = [iv.var.name for iv, _ in red.spatial]
    bx = P.Var(f"{names[-1]}_tile", dt)
    tx = P.Var(f"{names[-1]}_t", dt)
    lets: list[tuple[P.Var, P.PrimExpr]] = []
    jb = P.FloorMod(bx, nJ, dt) if not _is_one(nJ) else c(0)
    rest = P.FloorDiv(bx, nJ, dt) if not _is_one(nJ) else bx
    ib = P.FloorMod(rest, nI, dt) if not _is_one(nI) else c(0)
    rest = P.FloorDiv(rest, nI, dt) if not _is_one(nI) else rest
    batch_vals = []
    stride: P.PrimExpr = c(1)
    for (iv, l) in reversed(red.spatial[:-2]):
        v = P.Var(f"{iv.var.name}_b", dt)
        lets.append((v, simplify(P.FloorMod(rest if _is_one(stride) else
                                            P.FloorDiv(rest, stride, dt), l.extent, dt))))
        stride = simplify(stride * l.extent)
        batch_vals.insert(0, v)
    i_vals, j_vals = [], []
    if len(ext) >= 2:
        for a in range(TI):
            v = P.Var(f"{names[-2]}_{a}", dt)
            lets.append((v, simplify(ib * c(TI) + c(a))))
            i_vals.append(v)
    for b in range(TJ):
        v = P.Var(f"{names[-1]}_{b}", dt)
        lets.append((v, simplify(jb * c(span_j) + c(b * L) + tx)))
        j_vals.append(v)
    need_i = len(ext) >= 2 and not (isinstance(I, P.IntImm) and I.value % TI == 0)
    need_j = not (isinstance(J, P.IntImm) and J.value % span_j == 0)

    acc = tir.Buffer(f"{red.out.name}_acc", (c(TI * TJ),), red.out.dtype,
                     P.Var(f"{red.out.name}_acc", HANDLE), scope="local")
    elements = []  # (accumulator index, spatial values, guard)
    for a in range(TI):
        for b in range(TJ):
            vals = batch_vals + ([i_vals[a]] if i_vals else []) + [j_vals[b]]
            guard = []
            if need_i:
                guard.append(P.LT(i_vals[a], I, P.BOOL))
            if need_j:
                guard.append(P.LT(j_vals[b], J, P.BOOL))
            elements.append((a * TJ + b, vals, guard))

    def acc_load(e):
        return tir.BufferLoad(acc, (c(e),), red.out.dtype)

    def on_acc(expr, e, buffer):
        return map_tir(expr, expr_fn=lambda x: acc_load(e) if (
            isinstance(x, tir.BufferLoad) and x.buffer is buffer) else x)

    svars = [iv.var for iv, _ in red.spatial]

    def version(guarded: bool, tag: str) -> tir.Stmt:
        def guard(g, s):
            return tir.IfThenElse(_conj(g), s) if guarded and g else s

        init = [guard(g, tir.BufferStore(acc, substitute(red.init, dict(zip(svars, vals))),
                                         (c(e),)))
                for e, vals, g in elements]
        kvars = {id(iv.var): P.Var(f"{l.loop_var.name}{tag}", dt) for iv, l in red.reduce}
        steps = []
        for e, vals, g in elements:
            mapping = dict(zip(svars, vals))
            mapping.update({iv.var: kvars[id(iv.var)] for iv, _ in red.reduce})
            value = substitute(on_acc(red.value, e, red.out), mapping)
            steps.append(guard(g, tir.BufferStore(acc, value, (c(e),))))
        loop: tir.Stmt = _seq(steps)
        for iv, l in reversed(red.reduce):
            loop = tir.For(kvars[id(iv.var)], c(0), l.extent, "serial", loop)
        final = []
        for e, vals, g in elements:
            if epi is None:
                final.append(guard(g, tir.BufferStore(red.out, acc_load(e), tuple(vals))))
            else:
                value = substitute(on_acc(epi.value, e, red.out), dict(zip(epi.ivars, vals)))
                final.append(guard(g, tir.BufferStore(epi.out, value, tuple(vals))))
        done = _seq(final)
        nonempty = [] if red.always_writes() else [
            P.LT(c(0), l.extent, P.BOOL) for _, l in red.reduce
            if not (isinstance(l.extent, P.IntImm) and l.extent.value > 0)]
        if nonempty:  # no reduction step: the unscheduled nest never writes B
            done = tir.IfThenElse(_conj(nonempty), done)
        return _seq([*init, loop, done])

    if need_i or need_j:
        whole = [g for _, _, g in elements if g]
        last = elements[-1][2]  # the thread's last element is its largest i and j
        body = tir.IfThenElse(_conj(last), version(False, "_f"), version(True, "_g")) \
            if whole else version(False, "")
    else:
        body = version(False, "")
    stmt: tir.Stmt = tir.Allocate(acc.data, acc.dtype, (c(TI * TJ),), P.IntImm(1, P.BOOL),
                                  tir.DeclBuffer(acc, body), scope="local")
    for v, value in reversed(lets):
        stmt = tir.LetStmt(v, value, stmt)
    stmt = tir.For(tx, c(0), c(L), "thread_binding", stmt, thread_tag="threadIdx.x")
    return tir.For(bx, c(0), grid, "thread_binding", stmt, thread_tag="blockIdx.x")


def _size(e) -> int:
    return sum(1 for _ in tir_nodes(e))


def _identity(indices, ivars) -> bool:
    return len(indices) == len(ivars) and all(i is v for i, v in zip(indices, ivars))


def _loads_of(e, buf) -> list[tir.BufferLoad]:
    return [n for n in tir_nodes(e) if isinstance(n, tir.BufferLoad) and n.buffer is buf]


def _seq(stmts: list[tir.Stmt]) -> tir.Stmt:
    return stmts[0] if len(stmts) == 1 else tir.SeqStmt(tuple(stmts))


def _conj(conds: list) -> P.PrimExpr:
    out = conds[0]
    for x in conds[1:]:
        out = P.And(out, x, P.BOOL)
    return out


def _pow2_at_least(n: int) -> int:
    t = 1
    while t < n:
        t *= 2
    return t


def _ceil_div(e: P.PrimExpr, k: int, dtype) -> P.PrimExpr:
    if k == 1:
        return e
    return simplify(P.FloorDiv(e + P.IntImm(k - 1, dtype), P.IntImm(k, dtype), dtype))


