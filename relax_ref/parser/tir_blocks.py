"""Loops and blocks of ``@T.prim_func`` bodies (spec/syntax.md, SYN-tir-10..13): ``for``
over ``T.grid``/``range``/the loop kinds, ``with T.sblock(...)`` and what a block's
statements declare (iteration variables, reads and writes, inits), and the regions TVM
infers for a block that does not state them. ``LoopsAndBlocks`` is a part of
``tir_builder.TirReader``, which supplies the names, statements and expressions.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Tree

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT32

from . import prim_builder as pb
from .syntax import statements

TRUE = P.IntImm(1, BOOL)
BLOCK_NAMES = ("sblock", "block")
LOOP_KINDS = {"serial": "serial", "parallel": "parallel", "vectorized": "vectorized",
              "unroll": "unroll", "thread_binding": "thread_binding"}
AXIS_KINDS = {"spatial": "S", "S": "S", "reduce": "R", "R": "R", "scan": "C", "opaque": "O"}


@dataclass
class _BlockFrame:
    """What the statements of one block declare about it, gathered while reading."""

    iter_vars: list = field(default_factory=list)
    iter_values: list = field(default_factory=list)
    reads: tuple | None = None
    writes: tuple | None = None
    predicate: P.PrimExpr | None = None
    annotations: rx.Attrs = rx.EMPTY_ATTRS
    init: tir.Stmt | None = None
    alloc_buffers: list = field(default_factory=list)
    match_buffers: list = field(default_factory=list)


class LoopsAndBlocks:
    """The loop and block statements of the TIR reader."""

    # -- loops and blocks -----------------------------------------------------------------------
    def for_loop(self, stmt: Tree) -> tir.Stmt:
        targets_node, iter_node, suite = stmt.children
        targets = [c for c in targets_node.children if c is not None]
        for t in targets:
            if not (isinstance(t, Tree) and t.data == "name"):
                raise self.error("loop variables must be names", t, rule="SYN-tir-10")
        callee = self._callee_path(iter_node)
        if callee == ("range",):
            callee = ("T", "serial")
        if callee is None or callee[0] != "T" or len(callee) != 2:
            raise self.error("a loop iterates over T.grid, T.serial, T.parallel, T.vectorized, "
                             "T.unroll, T.thread_binding or range", iter_node, rule="SYN-tir-10")
        kind = callee[1]
        args, kwargs = self.split_args(iter_node.children[1])
        kw = dict(kwargs)
        loops: list[tuple[str, P.PrimExpr, P.PrimExpr, str, str | None, rx.Attrs]] = []
        tuple_name = None
        if kind == "grid":
            names = [str(t.children[0]) for t in targets]
            if len(targets) == 1 and len(args) > 1:
                # for ivs in T.grid(a, b): ``ivs`` names the tuple of the loop variables
                tuple_name = names[0]
                names = [f"{tuple_name}_{k}" for k in range(len(args))]
            if kwargs or len(args) != len(names):
                raise self.error(f"T.grid has {len(args)} extents for {len(targets)} loop "
                                 f"variables", iter_node, rule="SYN-tir-10")
            for name, a in zip(names, args):
                extent = self.prim(a)
                loops.append((name, pb.literal(0, extent.dtype), extent,
                              "serial", None, rx.EMPTY_ATTRS))
        elif kind in LOOP_KINDS:
            if len(targets) != 1:
                raise self.error(f"T.{kind} binds one loop variable", targets_node,
                                 rule="SYN-tir-10")
            thread = None
            if kind == "thread_binding":
                if "thread" in kw:
                    thread = self.value(kw.pop("thread"))
                elif args and isinstance(args[-1], Tree) and args[-1].data == "strings":
                    thread = self.value(args[-1])
                    args = args[:-1]
                if not isinstance(thread, str):
                    raise self.error("T.thread_binding needs thread=\"threadIdx.x\" or the like",
                                     iter_node, rule="SYN-tir-10")
            annotations = rx.EMPTY_ATTRS
            if "annotations" in kw:
                annotations = self.attr_value(kw.pop("annotations"))
                if annotations is None:
                    annotations = rx.EMPTY_ATTRS
            if kw:
                raise self.error(f"unknown loop option {next(iter(kw))!r}", iter_node,
                                 rule="SYN-tir-10")
            if len(args) == 1:
                extent = self.prim(args[0])
                lo = pb.literal(0, extent.dtype)
            elif len(args) == 2:
                lo, hi = pb.match_types(self.prim(args[0]), self.prim(args[1]))
                extent = _sub(hi, lo)
            else:
                raise self.error(f"T.{kind} takes (extent) or (start, stop)", iter_node,
                                 rule="SYN-tir-10")
            loops.append((str(targets[0].children[0]), lo, extent, LOOP_KINDS[kind], thread,
                          annotations))
        else:
            raise self.error(f"unknown loop kind T.{kind}", iter_node, rule="SYN-tir-10")
        loop_vars = []
        saved = {}
        for name, lo, extent, _k, _t, _a in loops:
            var = P.Var(name, extent.dtype, span=self.ctx.span(stmt))
            saved[name] = self.names.get(name)
            self.names[name] = var
            self.loops[id(var)] = (lo, extent)
            loop_vars.append(var)
        if tuple_name is not None:
            saved.setdefault(tuple_name, self.names.get(tuple_name))
            self.names[tuple_name] = tuple(loop_vars)
        body = self.nested_body(suite)
        for (name, lo, extent, k, thread, annotations), var in reversed(list(zip(loops, loop_vars))):
            body = tir.For(var, lo, extent, k, body, thread, annotations, span=self.ctx.span(stmt))
        for name, old in saved.items():
            if old is None:
                self.names.pop(name, None)
            else:
                self.names[name] = old
        return body

    def with_statement(self, stmt: Tree) -> tir.Stmt:
        ctx_node, as_name, suite = stmt.children
        callee = self._callee_path(ctx_node)
        if callee is not None and callee[0] == "T" and len(callee) == 2:
            kind = callee[1]
            if kind in BLOCK_NAMES:
                return self.block(stmt, ctx_node, suite)
            if kind in ("attr", "launch_thread"):
                return self.attr_statement(kind, ctx_node, suite, stmt)
            if kind == "init":
                frame = self.frames[-1] if len(self.frames) > 1 else None
                if frame is None:
                    raise self.error("T.init() belongs inside a block", stmt, rule="SYN-tir-11")
                if frame.init is not None:
                    raise self.error("a block has one T.init()", stmt, rule="SYN-tir-11")
                frame.init = self.block_body(statements(suite))
                return None
        raise self.error("a `with` in a prim_func is T.sblock(...) (or T.block) or T.init()",
                         ctx_node, rule="SYN-tir-11")

    def attr_statement(self, kind: str, ctx_node: Tree, suite, stmt: Tree) -> tir.Stmt:
        """``with T.attr(node, "key", value):`` -- an annotation of its body (SYN-tir-15);
        ``with T.launch_thread("threadIdx.x", n):`` is ``T.attr(thread, "thread_extent", n)``.
        Written as a statement without ``with``, the body is the rest of the suite, as TVM
        reads it (``suite`` is then that list of statements)."""
        args, kwargs = self.split_args(ctx_node.children[1])
        if kwargs:
            raise self.error(f"T.{kind} takes positional arguments", ctx_node, rule="SYN-tir-15")
        if kind == "attr" and len(args) == 1:
            # T.attr({"k1": v1, "k2": v2}): nested AttrStmts on the node 0, as TVM sugars it
            items = self.attr_value(args[0])
            if not isinstance(items, rx.Attrs) or not len(items):
                raise self.error("T.attr takes (node, key, value) or a dict of keys and values",
                                 ctx_node, rule="SYN-tir-15")
            body = self.block_body(statements(suite) if isinstance(suite, Tree) else suite)
            for key, v in reversed(items.items):
                if isinstance(v, (bool, int, float)):
                    v = pb.literal(v, BOOL) if isinstance(v, bool) else self.as_prim(v, args[0])
                elif isinstance(v, str):
                    v = P.StringImm(v)
                elif not isinstance(v, P.PrimExpr):
                    raise self.error(f"the value of {key!r} is not a scalar", args[0],
                                     rule="SYN-tir-15")
                body = tir.AttrStmt(pb.literal(0, INT32), key, v, body,
                                    span=self.ctx.span(stmt))
            return body
        if kind == "attr":
            if len(args) != 3:
                raise self.error("T.attr takes (node, key, value)", ctx_node, rule="SYN-tir-15")
            node_value = self.value(args[0])
            key = self.value(args[1])
            if not isinstance(key, str):
                raise self.error("the key of T.attr is a string", args[1], rule="SYN-tir-15")
            value = self.prim(args[2])
        else:
            if len(args) != 2:
                raise self.error("T.launch_thread takes (thread, extent)", ctx_node,
                                 rule="SYN-tir-15")
            node_value = self.value(args[0])
            key, value = "thread_extent", self.prim(args[1])
        if isinstance(node_value, (int, float, bool)):
            node_value = self.prim(args[0])
        body = self.block_body(statements(suite) if isinstance(suite, Tree) else suite)
        return tir.AttrStmt(node_value, key, value, body, span=self.ctx.span(stmt))

    def block(self, stmt: Tree, ctx_node: Tree, suite: Tree) -> tir.Stmt:
        args, kwargs = self.split_args(ctx_node.children[1])
        name = ""
        if args:
            name = self.value(args[0])
            if not isinstance(name, str):
                raise self.error("a block's name is a string", args[0], rule="SYN-tir-11")
        self.saw_block = True
        frame = _BlockFrame()
        self.frames.append(frame)
        saved_names, saved_nested = dict(self.names), self.nested
        self.nested = 0  # a block's own suite allocates for the block
        try:
            body = self.block_body(statements(suite))
        finally:
            self.frames.pop()
            self.names, self.nested = saved_names, saved_nested
        reads, writes = frame.reads, frame.writes
        if reads is None or writes is None:
            inferred_reads, inferred_writes = infer_regions(body, frame.init,
                                                            frame.alloc_buffers,
                                                            frame.match_buffers)
            reads = inferred_reads if reads is None else reads
            writes = inferred_writes if writes is None else writes
        block = tir.SBlock(name, tuple(frame.iter_vars), reads, writes, body, frame.init,
                           tuple(frame.alloc_buffers), tuple(frame.match_buffers),
                           frame.annotations, span=self.ctx.span(stmt))
        return tir.SBlockRealize(tuple(frame.iter_values), frame.predicate or TRUE, block,
                                 span=self.ctx.span(stmt))

    def axis(self, name: str, kind: str, args: list, kwargs: list, node) -> None:
        if kind not in AXIS_KINDS:
            raise self.error(f"unknown axis kind T.axis.{kind}", node, rule="SYN-tir-12")
        if len(args) != 2:
            raise self.error(f"T.axis.{kind} takes (domain, binding)", node, rule="SYN-tir-12")
        dom_value = self.value(args[0])
        binding = self.as_prim(self.value(args[1]), args[1])
        if isinstance(dom_value, (tuple, list)) and len(dom_value) == 2:
            lo, hi = pb.match_types(self.as_prim(dom_value[0], args[0], binding.dtype),
                                    self.as_prim(dom_value[1], args[0], binding.dtype))
            dom = tir.Range(lo, _sub(hi, lo))
        else:
            extent = self.as_prim(dom_value, args[0], binding.dtype)
            dom = tir.Range(pb.literal(0, extent.dtype), extent)
        self.add_iter_var(name, dom, AXIS_KINDS[kind], binding, node)

    def axis_remap(self, targets: list, node) -> None:
        args, kwargs = self.split_args(node.children[1])
        if len(args) != 2:
            raise self.error("T.axis.remap takes (kinds, [loop variables])", node, rule="SYN-tir-12")
        kinds = self.value(args[0])
        loop_vars = self.value(args[1])
        if not isinstance(kinds, str) or not isinstance(loop_vars, (list, tuple)):
            raise self.error("T.axis.remap takes a string of kinds and a list of loop variables",
                             node, rule="SYN-tir-12")
        if not (len(kinds) == len(loop_vars) == len(targets)):
            raise self.error(f"T.axis.remap: {len(targets)} names, {len(kinds)} kinds and "
                             f"{len(loop_vars)} loop variables must agree", node, rule="SYN-tir-12")
        for t, k, lv in zip(targets, kinds, loop_vars):
            if k not in ("S", "R"):
                raise self.error(f"axis kind {k!r} is not S or R", args[0], rule="SYN-tir-12")
            if not isinstance(lv, P.Var) or id(lv) not in self.loops:
                raise self.error("T.axis.remap maps loop variables of enclosing loops", args[1],
                                 rule="SYN-tir-12")
            lo, extent = self.loops[id(lv)]
            self.add_iter_var(str(t.children[0]), tir.Range(lo, extent), k, lv, node)

    def add_iter_var(self, name: str, dom: tir.Range, kind: str, binding: P.PrimExpr, node) -> None:
        if len(self.frames) < 2:
            raise self.error("block iteration variables belong inside a block", node,
                             rule="SYN-tir-12")
        var = P.Var(name, binding.dtype, span=self.ctx.span(node))
        frame = self.frames[-1]
        frame.iter_vars.append(tir.IterVar(var, dom, kind, span=self.ctx.span(node)))
        frame.iter_values.append(binding)
        self.names[name] = var


def _sub(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a - b`` for a range's extent, undoing the ``lo + extent`` the printer writes."""
    from relax_ref.ir.equal import structural_equal

    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm):
        return P.IntImm(a.value - b.value, a.dtype)
    if isinstance(b, P.IntImm) and b.value == 0:
        return a
    if isinstance(a, P.Add) and structural_equal(a.a, b, map_free_vars=False):
        return a.b
    return pb.binary(P.Sub, a, b)


def infer_regions(body: tir.Stmt, init: tir.Stmt | None, allocated: list[tir.Buffer],
                  matched: list[tir.MatchBufferRegion] = ()):
    """The reads and writes of a block whose text omits T.reads / T.writes: every
    buffer it loads or stores, in order of first access, each access a point region,
    or the whole dimension where the index uses a variable bound inside the block
    (spec/syntax.md, SYN-tir-13). Buffers the block allocates are not listed; when the
    block has an init, the buffers it writes are not listed as reads (a reduction's
    accumulator), as TVM does. An access to a buffer a ``T.match_buffer`` of the block
    views is an access to the whole region it views."""
    reads: dict[int, list] = {}
    writes: dict[int, list] = {}
    own = {id(b) for b in allocated}
    views = {id(m.buffer): m.source for m in matched}

    def note(table: dict, buf: tir.Buffer, indices) -> None:
        source = views.get(id(buf))
        if source is not None:
            table.setdefault(id(source.buffer), [source.buffer, source.region])
        elif id(buf) not in own:
            table.setdefault(id(buf), [buf, tuple(indices)])
    inner: set[int] = set()  # variables bound inside the block: loops, inner iter vars, lets

    def visit_expr(e: P.PrimExpr) -> None:
        if isinstance(e, tir.BufferLoad):
            for i in e.indices:
                visit_expr(i)
            note(reads, e.buffer, e.indices)
            return
        for c in P.children(e):
            visit_expr(c)

    def visit(s: tir.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, tir.BufferStore):
            visit_expr(s.value)
            for i in s.indices:
                visit_expr(i)
            note(writes, s.buffer, s.indices)
        elif isinstance(s, tir.SeqStmt):
            for x in s.seq:
                visit(x)
        elif isinstance(s, tir.For):
            inner.add(id(s.loop_var))
            visit(s.body)
        elif isinstance(s, tir.IfThenElse):
            visit_expr(s.condition)
            visit(s.then_case)
            visit(s.else_case)
        elif isinstance(s, (tir.LetStmt,)):
            inner.add(id(s.var))
            visit_expr(s.value)
            visit(s.body)
        elif isinstance(s, tir.Evaluate):
            visit_expr(s.value)
        elif isinstance(s, tir.SBlockRealize):
            for iv in s.block.iter_vars:
                inner.add(id(iv.var))
            own.update(id(b) for b in s.block.alloc_buffers)
            views.update((id(m.buffer), m.source) for m in s.block.match_buffers)
            visit(s.block.init)
            visit(s.block.body)
        elif isinstance(s, (tir.DeclBuffer, tir.Allocate, tir.AttrStmt, tir.While)):
            visit(s.body)

    visit(init)
    visit(body)

    def region(entry) -> tir.BufferRegion:
        """A point per index; an index using a variable bound inside the block covers
        the whole dimension (a sound over-approximation of what TVM relaxes)."""
        buf, indices = entry
        ranges = []
        for i, extent in zip(indices, buf.shape):
            if isinstance(i, tir.Range):  # a viewed region
                if any(id(v) in inner for v in P.free_vars(i.min) + P.free_vars(i.extent)):
                    ranges.append(tir.Range(pb.literal(0, extent.dtype), extent))
                else:
                    ranges.append(i)
            elif any(id(v) in inner for v in P.free_vars(i)):
                ranges.append(tir.Range(pb.literal(0, extent.dtype), extent))
            else:
                ranges.append(tir.Range(i, pb.literal(1, i.dtype)))
        return tir.BufferRegion(buf, tuple(ranges))

    write_regions = tuple(region(v) for v in writes.values())
    read_regions = tuple(region(v) for k, v in reads.items()
                         if not (init is not None and k in writes))
    return read_regions, write_regions
