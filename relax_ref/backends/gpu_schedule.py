"""The default GPU schedule (spec/backends.md BE-sched-*): thread-bound loops for the
PrimFuncs LegalizeOps writes, as TVM's DefaultGPUSchedule binds them.

Invariant: a scheduled PrimFunc runs every block instance the unscheduled one runs, with
the same iter var values, once each, and the threads of one nest write disjoint outputs,
so the TIR interpreter (which runs thread loops one thread after another) gives the same
memory for both; the tests check exactly that on random inputs.

Per nest (loops around one leaf block, BE-sched-1): the spatial loops are fused into one
index ``f`` over ``E`` = the product of their extents; ``f`` is split into
``blockIdx.x`` x ``threadIdx.x`` (x an outer serial loop when ``E`` is symbolic or
larger than ``max_threads * max_blocks``, BE-sched-2), a predicate ``f < E`` guards the
block where the split overshoots (BE-sched-3), and the reduction loops stay inside,
serial: one thread per output element (BE-sched-4).
"""
from __future__ import annotations

import dataclasses

from relax_ref.errors import RelaxError
from relax_ref.ir import prim_expr as P
from relax_ref.ir.prim_expr import (
    is_one_literal as _is_one,
    is_true_literal as _is_true,
    is_zero_literal as _is_zero,
    literal_product as _product,
)
from relax_ref.ir import tir
from relax_ref.ir.relax import Attrs, IRModule
from relax_ref.solver.simplify import simplify

__all__ = ["ScheduleError", "TARGET_THREADS", "default_gpu_schedule", "schedule_module",
           "is_scheduled"]

#: ``max_num_threads`` of TVM's targets: threads per block the split uses (BE-sched-2).
TARGET_THREADS = {"cuda": 1024, "opencl": 256}
#: TVM's ``max_threadblocks``: blocks of the split when the extent is large or symbolic.
MAX_BLOCKS = 256


class ScheduleError(RelaxError):
    """A PrimFunc the default schedule cannot bind (it declines rather than guess)."""


def is_scheduled(func: tir.PrimFunc) -> bool:
    return bool(func.attrs.get("tirx.is_scheduled", False))


def schedule_module(mod: IRModule, target: str = "opencl") -> IRModule:
    """Every PrimFunc of ``mod`` scheduled for ``target`` (a key of TARGET_THREADS)."""
    threads = TARGET_THREADS[target]
    funcs = {name: default_gpu_schedule(f, threads) if isinstance(f, tir.PrimFunc) else f
             for name, f in mod.items()}
    return mod.with_functions(funcs)


def default_gpu_schedule(func: tir.PrimFunc, max_threads: int = 1024,
                         max_blocks: int = MAX_BLOCKS) -> tir.PrimFunc:
    """``func`` with each loop nest around a leaf block bound to GPU threads (BE-sched-1);
    unchanged when already scheduled (attribute ``tirx.is_scheduled``, as TVM 0.27)."""
    if is_scheduled(func):
        return func
    root = func.body
    if (isinstance(root, tir.SBlockRealize) and not root.block.iter_vars
            and root.block.name != "root" and not _has_child_block(root.block.body)):
        # A 0-d computation whose block is the whole body (TVM wraps it alike): one
        # thread runs it.
        root = tir.SBlockRealize((), P.IntImm(1, P.BOOL), tir.SBlock(
            "root", (), (), (), root))
    if not isinstance(root, tir.SBlockRealize) or root.block.iter_vars:
        raise ScheduleError(f"the default GPU schedule needs a PrimFunc whose body is its "
                            f"root block, found {type(root).__name__}", func.span,
                            rule="BE-sched-1")
    block = root.block
    body = block.body
    nests = flat_seq(body)
    bound = tuple(_bind_nest(s, max_threads, max_blocks) for s in nests)
    new_body = bound[0] if len(bound) == 1 else tir.SeqStmt(bound)
    new_root = dataclasses.replace(root, block=dataclasses.replace(block, body=new_body))
    attrs = Attrs(tuple((k, v) for k, v in func.attrs.items if k != "tirx.is_scheduled")
                  + (("tirx.is_scheduled", True),))
    return dataclasses.replace(func, body=new_root, attrs=attrs)


def _bind_nest(s: tir.Stmt, max_threads: int, max_blocks: int) -> tir.Stmt:
    if isinstance(s, tir.AssertStmt) and s.body is None:
        return s  # a guard of the PrimFunc's scalars: the host checks it (BE-lower-4)
    loops: list[tir.For] = []
    inner = s
    while isinstance(inner, tir.For):
        loops.append(inner)
        inner = inner.body
    if any(l.kind == "thread_binding" for l in loops):
        return s  # bound already (TVM skips such blocks too)
    if not isinstance(inner, tir.SBlockRealize) or _has_child_block(inner.block.body):
        raise ScheduleError("the default GPU schedule binds loop nests around one leaf "
                            f"block; found a nest ending in {type(inner).__name__}",
                            getattr(inner, "span", None), rule="BE-sched-1")
    realize, block = inner, inner.block
    # BE-sched-1: each iter var is bound to its own loop's variable, loops start at 0.
    if not loops and all(isinstance(v, P.IntImm) for v in realize.iter_values):
        pass  # a 0-d block (iter vars bound to constants): one thread, as TVM's unit loop
    elif len(realize.iter_values) != len(loops) or any(
            v is not l.loop_var for v, l in zip(realize.iter_values, loops)) or any(
            not _is_zero(l.min) for l in loops):
        raise ScheduleError(f"block {block.name!r}: the default GPU schedule needs each "
                            f"iter var bound to its own loop (from 0), in loop order",
                            realize.span, rule="BE-sched-1")
    spatial = [l for l, iv in zip(loops, block.iter_vars) if iv.kind == "S"]
    reduce = [l for l, iv in zip(loops, block.iter_vars) if iv.kind != "S"]
    if any(iv.kind not in ("S", "R") for iv in block.iter_vars) or (
            spatial and reduce and loops.index(reduce[0]) < loops.index(spatial[-1])):
        raise ScheduleError(f"block {block.name!r}: spatial loops must come before the "
                            f"reduction loops", realize.span, rule="BE-sched-4")
    dtype = loops[0].loop_var.dtype if loops else P.INT64
    extent = simplify(_product([l.extent for l in spatial], dtype))
    name = "_".join(l.loop_var.name for l in spatial) + "_fused" if spatial else "u_fused"
    bx = P.Var(f"{name}_b", dtype)
    tx = P.Var(f"{name}_t", dtype)
    total = extent.value if isinstance(extent, P.IntImm) else None
    outer = None
    if total is not None and total <= max_threads * max_blocks:
        # BE-sched-2: one thread per element, blocks of min(E, max_threads) threads.
        t = max(1, min(total, max_threads))
        grid = P.IntImm(-(-total // t), dtype)
        fused = bx * P.IntImm(t, dtype) + tx
        guard = total % t != 0
    else:
        t = max_threads
        grid = P.IntImm(max_blocks, dtype)
        span = max_blocks * max_threads
        outer = P.Var(f"{name}_o", dtype)
        fused = outer * P.IntImm(span, dtype) + bx * P.IntImm(t, dtype) + tx
        guard = total is None or total % span != 0
    # The spatial iter vars from the fused index, row-major (BE-sched-1).
    values: dict[int, P.PrimExpr] = {}
    stride: P.PrimExpr = P.IntImm(1, dtype)
    for l in reversed(spatial):
        values[id(l.loop_var)] = _div_mod(fused, stride, l.extent, dtype)
        stride = simplify(stride * l.extent)
    iter_values = tuple(values.get(id(v), v) for v in realize.iter_values)
    predicate = realize.predicate
    if guard:  # BE-sched-3
        bound = P.LT(fused, extent, P.BOOL)
        predicate = bound if _is_true(predicate) else P.And(bound, predicate, P.BOOL)
    stmt: tir.Stmt = dataclasses.replace(realize, iter_values=iter_values,
                                         predicate=predicate)
    for l in reversed(reduce):  # BE-sched-4: serial, inside the thread
        stmt = dataclasses.replace(l, body=stmt)
    if outer is not None:
        stmt = tir.For(outer, P.IntImm(0, dtype), P.IntImm(-(-total // (max_blocks * t)), dtype)
                       if total is not None else _ceil_div(extent, max_blocks * t, dtype),
                       "serial", stmt)
    stmt = tir.For(tx, P.IntImm(0, dtype), P.IntImm(t, dtype), "thread_binding", stmt,
                   thread_tag="threadIdx.x")
    return tir.For(bx, P.IntImm(0, dtype), grid, "thread_binding", stmt,
                   thread_tag="blockIdx.x")


def flat_seq(s: tir.Stmt) -> list[tir.Stmt]:
    """The statements of nested sequences, in order (FuseTIR may nest them)."""
    if not isinstance(s, tir.SeqStmt):
        return [s]
    return [x for part in s.seq for x in flat_seq(part)]


def _div_mod(fused, stride, extent, dtype) -> P.PrimExpr:
    """``fused // stride % extent`` without the trivial parts."""
    e = fused if _is_one(stride) else P.FloorDiv(fused, stride, dtype)
    return P.FloorMod(e, extent, dtype)


def _ceil_div(e: P.PrimExpr, k: int, dtype) -> P.PrimExpr:
    return simplify(P.FloorDiv(e + P.IntImm(k - 1, dtype), P.IntImm(k, dtype), dtype))


def _has_child_block(s: tir.Stmt) -> bool:
    if isinstance(s, tir.SBlockRealize):
        return True
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, tir.Stmt) and _has_child_block(v):
            return True
        if isinstance(v, tuple) and any(isinstance(x, tir.Stmt) and _has_child_block(x)
                                        for x in v):
            return True
    return False


