"""``create_prim_func``: a set of te tensors written as one PrimFunc (spec/te.md, TE-func-*),
in the form TVM's ``te.create_prim_func`` prints:

    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((n, 4), "float32"), C: T.Buffer((n,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(n, 4):
            with T.sblock("C"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(A[v_i, v_k])
                T.writes(C[v_i])
                with T.init():
                    C[v_i] = T.float32(0.0)
                C[v_i] = C[v_i] + A[v_i, v_k]

One SBlock per compute stage, in dependency order, under the root block; stages that
are not arguments become ``T.sblock_alloc_buffer`` intermediates. Symbolic variables are
the function's own (fresh variables with the caller's names); those that no parameter
buffer has as a whole dimension become int64 scalar parameters after the inputs, which
the caller passes as ``R.prim_value`` arguments (TVM 0.27's form: its ``call_tir`` has
no ``tir_vars``).
"""
from __future__ import annotations

from dataclasses import dataclass

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT64
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import map_children, substitute

from .tensor import ComputeOp, Placeholder, Reduce, TEError, Tensor

_TRUE = P.IntImm(1, BOOL)
_ZERO = P.IntImm(0, INT64)
_ONE = P.IntImm(1, INT64)


@dataclass(frozen=True)
class CreatedFunc:
    """The PrimFunc and the caller's symbolic variables to pass as scalar arguments (in
    the order of its scalar parameters)."""

    func: tir.PrimFunc
    tir_vars: tuple[P.Var, ...]


def create_prim_func(args: list[Tensor], *, extra_vars: tuple[P.Var, ...] = (),
                     attrs: dict | None = None, scalars_at: int | None = None,
                     guards: tuple[tuple[P.PrimExpr, str], ...] = ()) -> CreatedFunc:
    """The PrimFunc computing the compute tensors among ``args`` from the placeholders
    among them (TE-func-1). ``extra_vars`` are symbolic variables to pass as scalars even
    when a buffer dimension could bind them. The scalar parameters come after the first
    ``scalars_at`` buffer parameters (the inputs, as TVM 0.27 places them), or last.
    ``guards`` are ``(condition, message)`` pairs asserted before the first stage
    (TE-func-5)."""
    stages = _stages(args)
    arg_ids = {id(t) for t in args}
    for t in args:
        if isinstance(t.op, Placeholder):
            continue
        if id(t.op) not in {id(s) for s in stages}:
            raise TEError(f"{t.name} is not computed")
    for s in stages:
        for inp in s.inputs:
            if isinstance(inp.op, Placeholder) and id(inp) not in arg_ids:
                raise TEError(f"{s.name} reads {inp.name}, which is not an argument")

    blocks: list[tir.Stmt] = []
    block_names: dict[str, int] = {}
    for s in stages:
        stmt = _stage(s, _unique(s.name, block_names))
        blocks.extend(stmt.seq if isinstance(stmt, tir.SeqStmt) else (stmt,))
    intermediates = tuple(t.buffer for s in stages for t in s.outputs
                          if id(t) not in arg_ids)
    blocks[:0] = [tir.AssertStmt(cond, message) for cond, message in guards]
    body_stmt = blocks[0] if len(blocks) == 1 else tir.SeqStmt(tuple(blocks))
    root = tir.SBlockRealize((), _TRUE, tir.SBlock("root", (), (), (), body_stmt,
                                                   alloc_buffers=intermediates))

    # Symbolic variables become the function's own (TE-func-2).
    shapes = [d for t in args for d in t.shape] + [d for b in intermediates for d in b.shape]
    symbolic: dict[int, P.Var] = {}
    for e in shapes + list(extra_vars):
        for v in P.free_vars(e):
            symbolic.setdefault(id(v), v)
    for v in _free_in_stmt(body_stmt):
        symbolic.setdefault(id(v), v)
    fresh = {v: P.Var(v.name, v.dtype) for v in symbolic.values()}

    buffers = {}
    for t in args:
        buffers[id(t.buffer)] = _fresh_buffer(t.buffer, fresh)
    for b in intermediates:
        buffers[id(b)] = _fresh_buffer(b, fresh)
    root = _rewrite_stmt(root, fresh, buffers)

    handles = tuple(P.Var(t.buffer.name, HANDLE) for t in args)
    buffer_map = tuple((h, buffers[id(t.buffer)]) for h, t in zip(handles, args))
    bound = {id(d) for _, b in buffer_map for d in b.shape if isinstance(d, P.Var)}
    passed = [v for v in extra_vars]
    for v in symbolic.values():
        if id(fresh[v]) not in bound and all(v is not w for w in passed):
            passed.append(v)
    at = len(handles) if scalars_at is None else scalars_at
    params = handles[:at] + tuple(fresh[v] for v in passed) + handles[at:]
    fattrs = {"tirx.noalias": True}
    fattrs.update(attrs or {})
    func = tir.PrimFunc(params, buffer_map, root, attrs=Attrs.of(fattrs),
                        is_private=True, s_tir=True)
    return CreatedFunc(func, tuple(passed))


def _unique(name: str, taken: dict[str, int]) -> str:
    if name not in taken:
        taken[name] = 0
        return name
    while True:
        taken[name] += 1
        candidate = f"{name}_{taken[name]}"
        if candidate not in taken:
            taken[candidate] = 0
            return candidate


def _stages(args: list[Tensor]) -> list[ComputeOp]:
    """Every compute stage the arguments depend on, inputs first."""
    order: list[ComputeOp] = []
    state: dict[int, int] = {}  # 1 visiting, 2 done
    stack: list[tuple[ComputeOp, int]] = []
    for t in args:
        if isinstance(t.op, ComputeOp) and id(t.op) not in state:
            stack.append((t.op, 0))
            state[id(t.op)] = 1
        while stack:
            op, k = stack.pop()
            deps = [i.op for i in op.inputs if isinstance(i.op, ComputeOp)]
            if k < len(deps):
                stack.append((op, k + 1))
                d = deps[k]
                if state.get(id(d)) == 1:
                    raise TEError(f"{d.name} depends on itself")
                if id(d) not in state:
                    state[id(d)] = 1
                    stack.append((d, 0))
                continue
            state[id(op)] = 2
            order.append(op)
    return order


def _stage(op: ComputeOp, block_name: str) -> tir.Stmt:
    """The loop nest and SBlock of one stage (TE-func-3)."""
    reduces = [b for b in op.body if isinstance(b, Reduce)]
    red_axes = reduces[0].axis if reduces else ()
    loop_vars = [P.Var(a.name, INT64) for a in op.axis] + \
                [P.Var(r.var.name, INT64) for r in red_axes]
    block_vars = [P.Var(f"v_{a.name}", INT64) for a in op.axis] + \
                 [P.Var(f"v_{r.var.name}", INT64) for r in red_axes]
    extents = list(op.shape) + [r.dom.extent for r in red_axes]
    mins = [_ZERO] * len(op.axis) + [r.dom.min for r in red_axes]
    mapping = {a: bv for a, bv in zip(op.axis, block_vars)}
    mapping.update({r.var: bv for r, bv in zip(red_axes, block_vars[len(op.axis):])})
    iter_vars = tuple(
        tir.IterVar(bv, tir.Range(mn, ext), "S" if k < len(op.axis) else "R")
        for k, (bv, mn, ext) in enumerate(zip(block_vars, mins, extents)))
    out_idx = tuple(block_vars[:len(op.axis)])
    outs = op.outputs

    init = None
    if reduces:
        red = reduces[0]
        comb = red.combiner
        cur = [tir.BufferLoad(t.buffer, out_idx, t.dtype) for t in outs]
        src = [substitute(s, mapping) for s in red.source]
        cm = {**{lv: c for lv, c in zip(comb.lhs, cur)},
              **{rv: s for rv, s in zip(comb.rhs, src)}}
        results = [substitute(r, cm) for r in comb.result]
        cond = substitute(red.condition, mapping)
        if not (isinstance(cond, P.IntImm) and cond.value == 1):
            results = [P.Call("tir.if_then_else", (cond, r, c), r.dtype)
                       for r, c in zip(results, cur)]
        if len(outs) == 1:
            body: tir.Stmt = tir.BufferStore(outs[0].buffer, results[0], out_idx)
        else:
            temps = [P.Var(f"v_{t.name}", t.dtype) for t in outs]
            stores = tuple(tir.BufferStore(t.buffer, tv, out_idx) for t, tv in zip(outs, temps))
            body = tir.SeqStmt(stores)
            for tv, r in reversed(list(zip(temps, results))):
                body = tir.LetStmt(tv, r, body)
        inits = tuple(tir.BufferStore(t.buffer, i, out_idx)
                      for t, i in zip(outs, comb.identity))
        init = inits[0] if len(inits) == 1 else tir.SeqStmt(inits)
        read_exprs = src + [cond]
    else:
        values = [substitute(b, mapping) for b in op.body]
        stores = tuple(tir.BufferStore(t.buffer, v, out_idx) for t, v in zip(outs, values))
        body = stores[0] if len(stores) == 1 else tir.SeqStmt(stores)
        read_exprs = values
    written = {id(t.buffer) for t in outs}
    reads = _regions(read_exprs, skip=written)
    writes = tuple(tir.BufferRegion(t.buffer, tuple(tir.Range(i, _ONE) for i in out_idx))
                   for t in outs)
    annotations = Attrs.of(op.attrs) if op.attrs else Attrs.of({})
    separate_init = init is not None and not all(
        isinstance(r.dom.extent, P.IntImm) and r.dom.extent.value > 0 for r in red_axes)
    block = tir.SBlock(block_name, iter_vars, reads, writes, body,
                       init=None if separate_init else init, annotations=annotations)
    stmt: tir.Stmt = tir.SBlockRealize(tuple(loop_vars), _TRUE, block)
    for lv, mn, ext in reversed(list(zip(loop_vars, mins, extents))):
        stmt = tir.For(lv, mn, ext, "serial", stmt)
    if not separate_init:
        return stmt
    # TE-func-4: ``T.init`` runs on a reduction's first iteration, so over an axis that may
    # be empty it may never run; the identity is then stored by a block of its own first.
    n = len(op.axis)
    init_loops = [P.Var(v.name, INT64) for v in loop_vars[:n]]
    init_vars = [P.Var(v.name, INT64) for v in block_vars[:n]]
    remap = dict(zip(block_vars[:n], init_vars))
    init_block = tir.SBlock(
        f"{block_name}_init",
        tuple(tir.IterVar(iv, tir.Range(_ZERO, ext), "S")
              for iv, ext in zip(init_vars, op.shape)),
        (), tuple(tir.BufferRegion(w.buffer, tuple(tir.Range(substitute(g.min, remap), g.extent)
                                                   for g in w.region)) for w in writes),
        _substitute_stmt(init, remap), annotations=annotations)
    init_stmt: tir.Stmt = tir.SBlockRealize(tuple(init_loops), _TRUE, init_block)
    for lv, ext in reversed(list(zip(init_loops, op.shape))):
        init_stmt = tir.For(lv, _ZERO, ext, "serial", init_stmt)
    return tir.SeqStmt((init_stmt, stmt))


def _substitute_stmt(s: tir.Stmt, mapping: dict) -> tir.Stmt:
    """An init statement (stores, a sequence of them) with its block variables renamed."""
    if isinstance(s, tir.SeqStmt):
        return tir.SeqStmt(tuple(_substitute_stmt(c, mapping) for c in s.seq))
    return tir.BufferStore(s.buffer, substitute(s.value, mapping),
                           tuple(substitute(i, mapping) for i in s.indices))


def _regions(exprs: list[P.PrimExpr], skip: set[int]) -> tuple[tir.BufferRegion, ...]:
    """The regions the formulas read, per buffer in first-read order: a point where every
    load of the buffer uses the same data-independent index in that dimension, else the
    whole dimension (a sound over-approximation of TVM's region analysis)."""
    loads: dict[int, list[tir.BufferLoad]] = {}
    order: list[tir.Buffer] = []
    for e in exprs:
        _collect_loads(e, skip, loads, order)
    from relax_ref.ir.equal import structural_equal

    out = []
    for buf in order:
        ls = loads[id(buf)]
        region = []
        for d, extent in enumerate(buf.shape):
            first = ls[0].indices[d]
            point = (not _has_load(first)) and all(
                structural_equal(first, other.indices[d], map_free_vars=False)
                for other in ls[1:])
            region.append(tir.Range(first, _ONE) if point else tir.Range(_ZERO, extent))
        out.append(tir.BufferRegion(buf, tuple(region)))
    return tuple(out)


def _collect_loads(e: P.PrimExpr, skip: set[int], loads: dict[int, list[tir.BufferLoad]],
                   order: list[tir.Buffer]) -> None:
    if isinstance(e, tir.BufferLoad):
        if id(e.buffer) not in skip:
            if id(e.buffer) not in loads:
                loads[id(e.buffer)] = []
                order.append(e.buffer)
            loads[id(e.buffer)].append(e)
    for c in P.children(e):
        _collect_loads(c, skip, loads, order)


def _has_load(e: P.PrimExpr) -> bool:
    if isinstance(e, tir.BufferLoad):
        return True
    return any(_has_load(c) for c in P.children(e))


# -- making the symbolic variables the function's own ----------------------------------------


def _fresh_buffer(b: tir.Buffer, fresh: dict) -> tir.Buffer:
    return tir.Buffer(b.name, tuple(substitute(d, fresh) for d in b.shape), b.dtype)


def _free_in_stmt(s: tir.Stmt) -> list[P.Var]:
    """Variables used in ``s`` that no loop, block or let inside it binds."""
    walk = _FreeInStmt()
    walk.stmt(s)
    return list(walk.found.values())


class _FreeInStmt:
    """The walk of ``_free_in_stmt`` (methods, not recursive closures: no reference
    cycle for the cycle collector)."""

    def __init__(self) -> None:
        self.bound: set[int] = set()
        self.found: dict[int, P.Var] = {}

    def expr(self, e) -> None:
        if e is None:
            return
        for v in P.free_vars(e):
            if id(v) not in self.bound:
                self.found.setdefault(id(v), v)

    def stmt(self, x) -> None:
        if isinstance(x, tir.For):
            self.expr(x.min), self.expr(x.extent)
            self.bound.add(id(x.loop_var))
            self.stmt(x.body)
        elif isinstance(x, tir.SBlockRealize):
            for v in x.iter_values:
                self.expr(v)
            self.expr(x.predicate)
            blk = x.block
            for iv in blk.iter_vars:
                self.expr(iv.dom.min), self.expr(iv.dom.extent)
                self.bound.add(id(iv.var))
            for b in blk.alloc_buffers:
                for d in b.shape:
                    self.expr(d)
            for r in blk.reads + blk.writes:
                for rg in r.region:
                    self.expr(rg.min), self.expr(rg.extent)
            if blk.init is not None:
                self.stmt(blk.init)
            self.stmt(blk.body)
        elif isinstance(x, tir.SeqStmt):
            for c in x.seq:
                self.stmt(c)
        elif isinstance(x, tir.LetStmt):
            self.expr(x.value)
            self.bound.add(id(x.var))
            self.stmt(x.body)
        elif isinstance(x, tir.AssertStmt):
            self.expr(x.condition)
        elif isinstance(x, tir.BufferStore):
            self.expr(x.value)
            for i in x.indices:
                self.expr(i)
        else:
            raise TEError(f"unexpected statement {type(x).__name__}")


def _rewrite_expr(e: P.PrimExpr, fresh: dict, buffers: dict) -> P.PrimExpr:
    if isinstance(e, tir.BufferLoad):
        return tir.BufferLoad(buffers.get(id(e.buffer), e.buffer),
                              tuple(_rewrite_expr(i, fresh, buffers) for i in e.indices),
                              e.dtype)
    if type(e) is P.Var:
        return fresh.get(e, e)
    return map_children(e, lambda c: _rewrite_expr(c, fresh, buffers))


def _rewrite_stmt(s: tir.Stmt, fresh: dict, buffers: dict) -> tir.Stmt:
    ex = lambda e: _rewrite_expr(e, fresh, buffers)  # noqa: E731
    buf = lambda b: buffers.get(id(b), b)  # noqa: E731
    if isinstance(s, tir.For):
        return tir.For(s.loop_var, ex(s.min), ex(s.extent), s.kind,
                       _rewrite_stmt(s.body, fresh, buffers))
    if isinstance(s, tir.SBlockRealize):
        b = s.block
        region = lambda r: tir.BufferRegion(  # noqa: E731
            buf(r.buffer), tuple(tir.Range(ex(g.min), ex(g.extent)) for g in r.region))
        block = tir.SBlock(
            b.name,
            tuple(tir.IterVar(iv.var, tir.Range(ex(iv.dom.min), ex(iv.dom.extent)), iv.kind)
                  for iv in b.iter_vars),
            tuple(region(r) for r in b.reads), tuple(region(r) for r in b.writes),
            _rewrite_stmt(b.body, fresh, buffers),
            init=None if b.init is None else _rewrite_stmt(b.init, fresh, buffers),
            alloc_buffers=tuple(buf(x) for x in b.alloc_buffers),
            annotations=b.annotations)
        return tir.SBlockRealize(tuple(ex(v) for v in s.iter_values), ex(s.predicate), block)
    if isinstance(s, tir.SeqStmt):
        return tir.SeqStmt(tuple(_rewrite_stmt(c, fresh, buffers) for c in s.seq))
    if isinstance(s, tir.LetStmt):
        return tir.LetStmt(s.var, ex(s.value), _rewrite_stmt(s.body, fresh, buffers))
    if isinstance(s, tir.BufferStore):
        return tir.BufferStore(buf(s.buffer), ex(s.value), tuple(ex(i) for i in s.indices))
    if isinstance(s, tir.AssertStmt) and s.body is None:
        return tir.AssertStmt(ex(s.condition), s.message)
    raise TEError(f"unexpected statement {type(s).__name__}")
