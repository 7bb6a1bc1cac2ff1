"""Well-formedness of PrimFuncs (spec/well_formed.md, WF-tir-*): one walk over each
PrimFunc's body with the TIR variables and buffers in scope. ``well_formed.
check_well_formed`` drives it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.span import Span
from relax_ref.semantics.well_formed_relax import _count, _span_of

if TYPE_CHECKING:
    from relax_ref.semantics.well_formed import _ModuleChecker


@dataclass(frozen=True)
class _TirVar:
    kind: str  # "param", "symbol", "loop", "let", "iter", "alloc", "thread"
    level: int  # how many blocks enclose its definition


class _TirChecker:
    """Rules WF-tir-1..7 for one PrimFunc."""

    def __init__(self, module: _ModuleChecker, name: str, func: tir.PrimFunc):
        self.module = module
        self.report = module.report
        self.name = name
        self.func = func
        self.vars: dict[int, _TirVar] = {}
        self.buffers: set[int] = set()
        self.defined: set[int] = set()  # every variable defined anywhere in the function
        self.log: list[tuple[str, int]] = []
        self.pending: list[tuple[P.Var, Span | None]] = []
        self.silenced: set[int] = set()
        self.level = 0  # enclosing blocks
        self.barrier = 0  # level of the innermost block with iteration variables
        self.barrier_block: tir.SBlock | None = None
        self.reported_loops: set[tuple[int, int]] = set()

    def run(self) -> None:
        func = self.func
        span = func.span
        params = func.params if isinstance(func.params, tuple) else ()
        for p in params:
            if isinstance(p, P.Var):
                self.define(p, "param", span)
            else:
                self.report("WF-node-1", f"a parameter of {self.name!r} is a "
                            f"{type(p).__name__}", span)
        param_ids = {id(p) for p in params}
        buffers = []
        for entry in func.buffer_map:
            param, buf = entry if isinstance(entry, tuple) and len(entry) == 2 else (None, None)
            if not isinstance(buf, tir.Buffer):
                self.report("WF-node-1", "a buffer_map entry is not (param, Buffer)", span)
                continue
            if id(param) not in param_ids:
                self.report("WF-tir-2", f"buffer {buf.name!r} is matched to "
                            f"{getattr(param, 'name', param)!r}, which is not a parameter", span)
            buffers.append(buf)
        # A bare variable in a parameter buffer's shape, strides or offset defines it;
        # every parameter buffer may then use it (as a parameter annotation does in Relax).
        for buf in buffers:
            self.define_bare(buf, buf.span or span)
        for buf in buffers:
            self.declare_buffer(buf, buf.span or span)
        self.stmt(func.body, span)
        self.resolve_pending()

    # -- scopes ------------------------------------------------------------------------------
    def define(self, var: P.Var, kind: str, span: Span | None) -> None:
        key = id(var)
        if key in self.defined and kind != "symbol":
            self.report("WF-tir-7", f"variable {var.name!r} is defined more than once in "
                        f"{self.name!r}", span)
        self.defined.add(key)
        self.module.define_symbol(var, self.name, span)
        self.vars[key] = _TirVar(kind, self.level)
        self.log.append(("var", key))

    def define_bare(self, buf: tir.Buffer, span: Span | None) -> None:
        for e in (*buf.shape, *buf.strides, buf.elem_offset):
            if isinstance(e, P.Var) and id(e) not in self.vars:
                self.define(e, "symbol", span)

    def declare_buffer(self, buf: tir.Buffer, span: Span | None) -> None:
        for e in (*buf.shape, *buf.strides):
            self.expr(e, span)
        if buf.elem_offset is not None:
            self.expr(buf.elem_offset, span)
        if buf.data is not None and id(buf.data) not in self.defined:
            self.define(buf.data, "data", span)  # the buffer's own handle (SYN-tir-data-1)
        elif buf.data is not None:
            self.expr(buf.data, span)
        self.buffers.add(id(buf))
        self.log.append(("buf", id(buf)))

    def mark(self) -> int:
        return len(self.log)

    def restore(self, mark: int) -> None:
        while len(self.log) > mark:
            kind, key = self.log.pop()
            if kind == "var":
                self.vars.pop(key, None)
            else:
                self.buffers.discard(key)

    def resolve_pending(self) -> None:
        for var, span in self.pending:
            if id(var) in self.defined:
                self.report("WF-tir-1", f"variable {var.name!r} is used outside the loop, let, "
                            f"block or allocation that defines it", span)
            else:
                self.report("WF-tir-6", f"variable {var.name!r} is not defined in "
                            f"{self.name!r}: a symbolic variable must appear bare in a "
                            f"parameter buffer's shape or be a scalar parameter", span)

    # -- uses --------------------------------------------------------------------------------
    def use(self, var: P.Var, span: Span | None) -> None:
        info = self.vars.get(id(var))
        if info is None:
            if id(var) not in self.silenced:
                self.pending.append((var, span))
            return
        if info.kind == "loop" and info.level < self.barrier and \
                (id(var), id(self.barrier_block)) not in self.reported_loops:
            self.reported_loops.add((id(var), id(self.barrier_block)))
            self.report("WF-tir-4", f"loop variable {var.name!r} is used inside a block with "
                        f"iteration variables; a block sees outer loops only through its "
                        f"iter var bindings", span)

    def buffer_use(self, buf, n_indices: int, span: Span | None) -> None:
        if not isinstance(buf, tir.Buffer):
            self.report("WF-node-1", f"a {type(buf).__name__} where a buffer belongs", span)
            return
        if id(buf) not in self.buffers:
            self.report("WF-tir-2", f"buffer {buf.name!r} is used where it is not declared (by "
                        f"a parameter, an enclosing block's alloc_buffer or match_buffer, or "
                        f"an enclosing decl_buffer)", span)
        if n_indices != len(buf.shape):
            self.report("WF-tir-5", f"buffer {buf.name!r} has "
                        f"{_count(len(buf.shape), 'dimension')} but is accessed with "
                        f"{n_indices} {'index' if n_indices == 1 else 'indices'}", span)

    def region(self, r, span: Span | None) -> None:
        if not isinstance(r, tir.BufferRegion):
            self.report("WF-node-1", f"a {type(r).__name__} where a buffer region belongs", span)
            return
        self.buffer_use(r.buffer, len(r.region), span)
        for rng in r.region:
            self.expr(rng.min, span)
            self.expr(rng.extent, span)

    def expr(self, e, span: Span | None) -> None:
        if isinstance(e, P.Var):
            self.use(e, span)
        elif isinstance(e, tir.BufferLoad):
            where = e.span or span
            self.buffer_use(e.buffer, len(e.indices), where)
            for i in e.indices:
                self.expr(i, where)
        elif isinstance(e, P.Let):
            self.expr(e.value, span)
            mark = self.mark()
            self.define(e.var, "let", span)
            self.expr(e.body, span)
            self.restore(mark)
        elif isinstance(e, P.PrimExpr):
            for c in P.children(e):
                self.expr(c, span)
        else:
            self.report("WF-node-1", f"a {type(e).__name__} where a TIR expression belongs", span)

    # -- statements --------------------------------------------------------------------------
    def stmt(self, s, where: Span | None) -> None:
        span = _span_of(s) or where
        if isinstance(s, tir.BufferStore):
            self.buffer_use(s.buffer, len(s.indices), span)
            for i in s.indices:
                self.expr(i, span)
            self.expr(s.value, span)
        elif isinstance(s, tir.Evaluate):
            self.expr(s.value, span)
        elif isinstance(s, tir.SeqStmt):
            for x in s.seq:
                self.stmt(x, span)
        elif isinstance(s, tir.IfThenElse):
            self.expr(s.condition, span)
            self.stmt(s.then_case, span)
            if s.else_case is not None:
                self.stmt(s.else_case, span)
        elif isinstance(s, tir.LetStmt):
            self.expr(s.value, span)
            self.scoped(s.body, span, (s.var, "let"))
        elif isinstance(s, tir.AssertStmt):
            self.expr(s.condition, span)
            if s.body is not None:
                self.stmt(s.body, span)
        elif isinstance(s, tir.While):
            self.expr(s.condition, span)
            self.stmt(s.body, span)
        elif isinstance(s, tir.For):
            self.expr(s.min, span)
            self.expr(s.extent, span)
            self.scoped(s.body, span, (s.loop_var, "loop"))
        elif isinstance(s, tir.Allocate):
            for e in s.extents:
                self.expr(e, span)
            self.expr(s.condition, span)
            self.scoped(s.body, span, (s.buffer_var, "alloc"))
        elif isinstance(s, tir.DeclBuffer):
            mark = self.mark()
            self.declare_buffer(s.buffer, span)
            self.stmt(s.body, span)
            self.restore(mark)
        elif isinstance(s, tir.AttrStmt):
            self.expr(s.value, span)
            node = s.node
            self.scoped(s.body, span, (node.var, "thread") if isinstance(node, tir.IterVar)
                        else None)
        elif isinstance(s, tir.SBlockRealize):
            self.realize(s, span)
        else:
            self.report("WF-node-1", f"a {type(s).__name__} where a TIR statement belongs", span)

    def scoped(self, body, span: Span | None, definition) -> None:
        mark = self.mark()
        if definition is not None:
            var, kind = definition
            if isinstance(var, P.Var):
                self.define(var, kind, span)
            else:
                self.report("WF-node-1", f"a {type(var).__name__} where a variable belongs", span)
        self.stmt(body, span)
        self.restore(mark)

    def realize(self, r: tir.SBlockRealize, span: Span | None) -> None:
        block = r.block
        if not isinstance(block, tir.SBlock):
            self.report("WF-node-1", f"a block realize of a {type(block).__name__}", span)
            return
        span = block.span or span
        own = {id(iv.var): iv.var for iv in block.iter_vars}
        if len(r.iter_values) != len(block.iter_vars):
            self.report("WF-tir-3", f"block {block.name!r} has "
                        f"{_count(len(block.iter_vars), 'iteration variable')} but "
                        f"{_count(len(r.iter_values), 'binding')}", span)
        # Bindings and the predicate are evaluated outside the block (WF-tir-3, WF-tir-4).
        for value in (*r.iter_values, r.predicate):
            for v in P.free_vars(value) if isinstance(value, P.PrimExpr) else ():
                if id(v) in own:
                    self.report("WF-tir-3", f"a binding of block {block.name!r} uses its own "
                                f"iteration variable {v.name!r}", span)
            self.silenced = set(own)
            self.expr(value, span)
            self.silenced = set()
        mark, level, barrier, barrier_block = self.mark(), self.level, self.barrier, \
            self.barrier_block
        self.level += 1
        if block.iter_vars:
            self.barrier = self.level
            self.barrier_block = block
        for iv in block.iter_vars:
            self.expr(iv.dom.min, span)
            self.expr(iv.dom.extent, span)
        for iv in block.iter_vars:
            self.define(iv.var, "iter", span)
        for buf in block.alloc_buffers:
            self.declare_buffer(buf, buf.span or span)
        for m in block.match_buffers:
            self.region(m.source, span)
            self.define_bare(m.buffer, span)
            self.declare_buffer(m.buffer, span)
        if block.init is not None:
            self.stmt(block.init, span)
        self.stmt(block.body, span)
        for rgn in (*block.reads, *block.writes):
            self.region(rgn, span)
        self.restore(mark)
        self.level, self.barrier, self.barrier_block = level, barrier, barrier_block


# -- annotation consistency (WF-sinfo-1) -------------------------------------------------------
