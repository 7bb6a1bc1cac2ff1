"""Which loop nests the vectorized TIR path runs (spec/tir_semantics.md,
EXEC-tir-vec-1), read from the IR alone and kept per node: the nest's loops, its store
and block, and for a reduction its combiner, update and factors; and the affine forms of
its indices."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import DataType
from relax_ref.ir.equal import structural_equal

from relax_ref.semantics.tir_exprs import (
    _EVAL, _VECTOR_INTRINSICS, _NodeCache, _constant, _intrinsic_name,
)
from relax_ref.semantics.tir_vector_arrays import _range


# ---------------------------------------------------------------------------------------
# Which nests the vectorized path runs (EXEC-tir-vec-1), and the forms of their indices
# ---------------------------------------------------------------------------------------

@dataclass(eq=False)
class _Nest:
    """A perfect nest of loops around one store (plain or a block's body)."""

    loops: tuple[tir.For, ...]
    store: tir.BufferStore
    realize: tir.SBlockRealize | None
    kind: str                                   # "spatial" or "reduction"
    reads: tuple[tir.Buffer, ...]               # buffers loaded, the stored one aside
    self_read: bool = False                     # spatial: loads its own element
    combiner: type | None = None                # reduction: Add, Sub, Mul, Max or Min
    acc_first: bool = True                      # reduction: op(X[idx], u), not op(u, X[idx])
    update: P.PrimExpr | None = None            # reduction: u
    init_value: P.PrimExpr | None = None        # reduction: the init block's value
    cell_loops: tuple[int, ...] = ()            # reduction: loops the stored index uses
    fold_loops: tuple[int, ...] = ()            # reduction: the others, folded in order
    iter_of_loop: tuple[tir.IterVar, ...] = ()  # block iter var bound to each loop
    factors: tuple[tir.BufferLoad, ...] = ()    # reduction: u as a product of loads (vec-7)
    memo: dict = field(default_factory=dict)    # _memo: the grid's axes per loop bounds


_analysed = _NodeCache(lambda s: _analyse_nest(s))


def vectorizable(s: tir.For) -> bool:
    """Whether the vectorized path may run the nest at ``s`` (EXEC-tir-vec-1)."""
    return _analysed(s) is not None


def _axis_form(e: P.PrimExpr) -> tuple | None:
    """``(v, c, lo, hi)`` when ``e`` is ``v``, ``v + c``, ``c + v`` or ``v - c`` (as
    ``v + (-c)``) for an integer Var ``v`` and an IntImm ``c`` of ``e``'s type, whose
    range is ``[lo, hi]``; else None."""
    dt = e.dtype
    if dt.lanes != 1 or not dt.is_integer:
        return None
    lo, hi = _range(dt)
    if type(e) is P.Var:
        return e, 0, lo, hi
    if type(e) is P.Add or type(e) is P.Sub:
        a, b = e.a, e.b
        if type(e) is P.Add and type(a) is P.IntImm:
            a, b = b, a
        if type(a) is P.Var and type(b) is P.IntImm and a.dtype == dt and b.dtype == dt:
            c = int(_constant(b))  # as the scalar path reads it (wrapped)
            return a, c if type(e) is P.Add else -c, lo, hi
    return None


_ORDERINGS: dict[type, Callable] = {P.LT: np.less, P.LE: np.less_equal,
                                     P.GT: np.greater, P.GE: np.greater_equal}
_AFFINE_OPS = frozenset({P.Add, P.Sub, P.Mul, P.FloorDiv, P.FloorMod, P.Div, P.Mod})
_axis_forms = _NodeCache(_axis_form)  # per index expression
_iter_forms = _NodeCache(lambda realize: [_axis_forms(v) for v in realize.iter_values])
_index_forms = _NodeCache(lambda node: [_axis_forms(i) for i in node.indices])  # per access


def _analyse_nest(s: tir.For) -> _Nest | None:
    loops: list[tir.For] = []
    cur: tir.Stmt = s
    while isinstance(cur, tir.For):
        loops.append(cur)
        cur = cur.body
    loop_vars = {lp.loop_var for lp in loops}
    for lp in loops:
        for bound in (lp.min, lp.extent):
            if _loads(bound) or set(P.free_vars(bound)) & loop_vars:
                return None
    realize, init = None, None
    if isinstance(cur, tir.BufferStore):
        store = cur
    elif isinstance(cur, tir.SBlockRealize):
        realize, block = cur, cur.block
        if block.alloc_buffers or block.match_buffers or \
                not isinstance(block.body, tir.BufferStore):
            return None
        store = block.body
        init = block.init
        if init is not None and not (isinstance(init, tir.BufferStore)
                                     and init.buffer is store.buffer
                                     and structural_equal(init.indices, store.indices)):
            return None
    else:
        return None
    target = store.buffer
    # Expressions outside the store's value: none may load the stored buffer.
    around: list[P.PrimExpr] = list(store.indices)
    if realize is not None:
        around += [realize.predicate, *realize.iter_values]
        for iv in realize.block.iter_vars:
            around += [iv.dom.min, iv.dom.extent]
        if init is not None:
            around.append(init.value)
    everything = around + [store.value]
    if not all(_vectorizable(e) for e in everything):
        return None
    if any(ld.buffer is target for e in around for ld in _loads(e)):
        return None
    reads = tuple({id(ld.buffer): ld.buffer for e in everything for ld in _loads(e)
                   if ld.buffer is not target}.values())
    reduction = _match_reduction(loops, store, realize, init, reads)
    if reduction is not None:
        return reduction
    if init is not None:
        return None
    own = [ld for ld in _loads(store.value) if ld.buffer is target]
    if not all(structural_equal(ld.indices, store.indices) for ld in own):
        return None
    return _Nest(tuple(loops), store, realize, "spatial", reads, self_read=bool(own))


def _match_reduction(loops, store, realize, init, reads) -> _Nest | None:
    """``X[idx] = op(X[idx], u)`` with u not loading X, idx using some loops (the cells)
    and not the others (the fold, at least one loop), each loop bound to one block iter
    var; with an init, the fold loops are exactly the reduction (R) iter vars."""
    v = store.value
    if type(v) not in (P.Add, P.Sub, P.Mul, P.Max, P.Min):
        return None
    target = store.buffer
    for acc_first, (acc, update) in ((True, (v.a, v.b)), (False, (v.b, v.a))):
        if isinstance(acc, tir.BufferLoad) and acc.buffer is target and \
                structural_equal(acc.indices, store.indices):
            break
    else:
        return None
    if any(ld.buffer is target for ld in _loads(update)):
        return None
    index_vars = {x for i in store.indices for x in P.free_vars(i)}
    iter_of_loop: list = []
    if realize is not None:
        by_var = {}
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            if not isinstance(value, P.Var) or value in by_var:
                return None
            by_var[value] = iv
        if len(by_var) != len(loops) or any(lp.loop_var not in by_var for lp in loops):
            return None
        iter_of_loop = [by_var[lp.loop_var] for lp in loops]
        used = [iv.var in index_vars or lp.loop_var in index_vars
                for iv, lp in zip(iter_of_loop, loops)]
    else:
        used = [lp.loop_var in index_vars for lp in loops]
    cells = tuple(j for j, u in enumerate(used) if u)
    folds = tuple(j for j, u in enumerate(used) if not u)
    if not folds:
        return None
    if init is not None:
        reduce_vars = {iv.var for iv in realize.block.iter_vars if iv.kind == "R"}
        if reduce_vars != {iter_of_loop[j].var for j in folds}:
            return None
    return _Nest(tuple(loops), store, realize, "reduction", reads, combiner=type(v),
                 acc_first=acc_first, update=update,
                 init_value=None if init is None else init.value, cell_loops=cells,
                 fold_loops=folds, iter_of_loop=tuple(iter_of_loop),
                 factors=_sum_of_products(type(v), update, target.dtype))


def _sum_of_products(op: type, update: P.PrimExpr, dt: DataType) -> tuple:
    """EXEC-tir-vec-7: the loads ``u`` multiplies when the reduction is a float32 or
    float64 sum of ``u = A[...]`` or ``u = A[...] * B[...]`` (loads of the stored type);
    else ()."""
    if op is not P.Add or str(dt) not in ("float32", "float64"):
        return ()
    factors = (update.a, update.b) if type(update) is P.Mul else (update,)
    if all(type(f) is tir.BufferLoad and f.dtype == dt for f in factors):
        return factors
    return ()


def _loads(e: P.PrimExpr) -> list[tir.BufferLoad]:
    out: list[tir.BufferLoad] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tir.BufferLoad):
            out.append(x)
        stack.extend(P.children(x))
    return out


def _vectorizable(e: P.PrimExpr) -> bool:
    """No construct the vectorized path cannot evaluate on arrays (vector lanes,
    ``T.ret``, intrinsics outside the table)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if type(x) not in _EVAL or x.dtype.lanes != 1:
            return False
        if isinstance(x, P.Call) and _intrinsic_name(x.op) not in _VECTOR_INTRINSICS:
            return False
        stack.extend(P.children(x))
    return True
