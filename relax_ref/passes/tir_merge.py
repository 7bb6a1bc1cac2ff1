"""Copying TIR bodies into another PrimFunc (FuseTIR, spec/passes.md PASS-fusetir-*).

``TirCopier`` rebuilds a statement with given variables and buffers replaced. Everything
the statement itself defines (loop and block variables, let variables, the buffers its
blocks allocate or view) becomes a fresh copy, so one PrimFunc body inlined twice into
the same function defines distinct variables; block and allocated buffer names are made
unique in the function being built.
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.fields import child_fields

_NODES = (P.PrimExpr, tir.Stmt, tir.Range, tir.BufferRegion, tir.MatchBufferRegion,
          tir.IterVar)

# what a copy keeps as it is: no variable or buffer inside
_ATOMS = frozenset({type(None), int, float, str, bool, P.IntImm, P.FloatImm, P.StringImm})


class Names:
    """Names already taken in the function being built; ``unique`` gives the next free
    one (``name``, ``name_1``...; blocks use ``name1``... as TVM prints them)."""

    def __init__(self, sep: str = "_") -> None:
        self.taken: set[str] = set()
        self.sep = sep

    def unique(self, name: str) -> str:
        out, k = name, 0
        while out in self.taken:
            k += 1
            out = f"{name}{self.sep}{k}"
        self.taken.add(out)
        return out


class TirCopier:
    """``stmt(s)``: ``s`` with the variables of ``variables`` (id -> expression) and the
    buffers of ``buffers`` (id -> buffer) replaced, its own definitions fresh."""

    def __init__(self, variables: dict[int, P.PrimExpr], buffers: dict[int, tir.Buffer],
                 block_names: Names, buffer_names: Names):
        self.variables = dict(variables)
        self.buffers = dict(buffers)
        self.block_names = block_names
        self.buffer_names = buffer_names

    # -- definitions -----------------------------------------------------------------------
    def fresh_var(self, v: P.Var) -> None:
        self.variables[id(v)] = P.Var(v.name, v.dtype, v.size_var, span=v.span) \
            if type(v) is P.Var else dataclasses.replace(v)

    def fresh_buffer(self, b: tir.Buffer) -> tir.Buffer:
        """A copy of an allocated buffer under a unique name (its shape mapped)."""
        if b.data is not None:
            self.fresh_var(b.data)
        new = self.rebuild_buffer(b, self.buffer_names.unique(b.name))
        self.buffers[id(b)] = new
        return new

    def rebuild_buffer(self, b: tir.Buffer, name: str) -> tir.Buffer:
        return dataclasses.replace(
            b, name=name, shape=self.map(b.shape), strides=self.map(b.strides),
            elem_offset=self.map(b.elem_offset),
            data=self.map(b.data) if b.data is not None else None)

    def define(self, node) -> None:
        if isinstance(node, tir.For):
            self.fresh_var(node.loop_var)
        elif isinstance(node, tir.LetStmt):
            self.fresh_var(node.var)
        elif isinstance(node, P.Let):
            self.fresh_var(node.var)
        elif isinstance(node, tir.Allocate):
            self.fresh_var(node.buffer_var)
        elif isinstance(node, tir.DeclBuffer):
            self.fresh_buffer(node.buffer)
        elif isinstance(node, tir.SBlock):
            for iv in node.iter_vars:
                self.fresh_var(iv.var)
            for b in node.alloc_buffers:
                self.fresh_buffer(b)
            for m in node.match_buffers:
                self.fresh_buffer(m.buffer)

    # -- the copy ----------------------------------------------------------------------------
    def stmt(self, s: tir.Stmt) -> tir.Stmt:
        return self.map(s)

    def map_tuple(self, x: tuple) -> tuple:
        """``map`` of a tuple (variables, most elements of index tuples, looked up here)."""
        variables = self.variables
        new = [c if (t := type(c)) is P.IntImm else variables.get(id(c), c) if t is P.Var
               else self.map(c) for c in x]
        for a, b in zip(new, x):
            if a is not b:
                return tuple(new)
        return x

    def map(self, x):
        t = type(x)
        if t is P.Var:
            return self.variables.get(id(x), x)
        if t in _ATOMS:
            return x
        if issubclass(t, P.BinaryOp):  # the most common node: no definitions inside
            a, b = self.map(x.a), self.map(x.b)
            return x if a is x.a and b is x.b else t(a, b, x.dtype, span=x.span)
        if t is tuple:
            return self.map_tuple(x)
        if t is tir.Buffer:
            hit = self.buffers.get(id(x))
            if hit is not None:
                return hit
        fast = _FAST_COPY.get(t)
        if fast is not None:
            return fast(self, x)
        if isinstance(x, tir.Buffer):
            hit = self.buffers.get(id(x))
            if hit is None:  # a buffer seen only through loads and stores: same name
                hit = self.rebuild_buffer(x, x.name)
                self.buffers[id(x)] = hit
            return hit
        if isinstance(x, tuple):
            new = tuple(self.map(c) for c in x)
            return x if all(a is b for a, b in zip(new, x)) else new
        if not isinstance(x, _NODES):
            return x
        self.define(x)
        changes = {}
        for name in child_fields(type(x)):
            old = getattr(x, name)
            new = self.map(old)
            if new is not old:
                changes[name] = new
        if isinstance(x, tir.SBlock) and x.name != "root":
            changes["name"] = self.block_names.unique(x.name)
        return dataclasses.replace(x, **changes) if changes else x


# The node types met most, copied field by field: what ``map`` does for them (their other
# fields hold no variable or buffer), without its generic walk over every field.

def _copy_load(c: TirCopier, x: tir.BufferLoad):
    buffer, indices = c.map(x.buffer), c.map(x.indices)
    if buffer is x.buffer and indices is x.indices:
        return x
    return tir.BufferLoad(buffer, indices, x.dtype, span=x.span)


def _copy_store(c: TirCopier, x: tir.BufferStore):
    buffer, value, indices = c.map(x.buffer), c.map(x.value), c.map(x.indices)
    if buffer is x.buffer and value is x.value and indices is x.indices:
        return x
    return tir.BufferStore(buffer, value, indices, span=x.span)


def _copy_cast(c: TirCopier, x: P.Cast):
    value = c.map(x.value)
    return x if value is x.value else P.Cast(x.dtype, value, span=x.span)


def _copy_call(c: TirCopier, x: P.Call):
    args = c.map(x.args)
    return x if args is x.args else P.Call(x.op, args, x.dtype, span=x.span)


def _copy_range(c: TirCopier, x: tir.Range):
    lo, extent = x.min, x.extent  # most often constants or variables: answered here
    if type(lo) is not P.IntImm:
        lo = c.variables.get(id(lo), lo) if type(lo) is P.Var else c.map(lo)
    if type(extent) is not P.IntImm:
        extent = c.variables.get(id(extent), extent) if type(extent) is P.Var \
            else c.map(extent)
    return x if lo is x.min and extent is x.extent else tir.Range(lo, extent, span=x.span)


def _copy_region(c: TirCopier, x: tir.BufferRegion):
    buffer, region = c.map(x.buffer), c.map(x.region)
    if buffer is x.buffer and region is x.region:
        return x
    return tir.BufferRegion(buffer, region, span=x.span)


def _copy_iter_var(c: TirCopier, x: tir.IterVar):
    var, dom = c.map(x.var), c.map(x.dom)
    return x if var is x.var and dom is x.dom else tir.IterVar(var, dom, x.kind, span=x.span)


def _copy_for(c: TirCopier, x: tir.For):
    c.fresh_var(x.loop_var)
    loop_var, lo, extent, body = c.map(x.loop_var), c.map(x.min), c.map(x.extent), \
        c.map(x.body)
    return tir.For(loop_var, lo, extent, x.kind, body, x.thread_tag, x.annotations,
                   span=x.span)


def _copy_realize(c: TirCopier, x: tir.SBlockRealize):
    values, predicate, block = c.map(x.iter_values), c.map(x.predicate), c.map(x.block)
    if values is x.iter_values and predicate is x.predicate and block is x.block:
        return x
    return tir.SBlockRealize(values, predicate, block, span=x.span)


def _copy_seq(c: TirCopier, x: tir.SeqStmt):
    seq = c.map(x.seq)
    return x if seq is x.seq else tir.SeqStmt(seq, span=x.span)


_FAST_COPY = {tir.BufferLoad: _copy_load, tir.BufferStore: _copy_store, P.Cast: _copy_cast,
              P.Call: _copy_call, tir.Range: _copy_range, tir.BufferRegion: _copy_region,
              tir.IterVar: _copy_iter_var, tir.For: _copy_for, tir.SBlockRealize: _copy_realize,
              tir.SeqStmt: _copy_seq}


# the fields of the node types met most that can hold a variable or a buffer, in order
_WALKED_FIELDS = {
    tir.BufferLoad: ("buffer", "indices"), tir.BufferStore: ("buffer", "value", "indices"),
    P.Cast: ("value",), P.Call: ("args",), tir.Range: ("min", "extent"),
    tir.BufferRegion: ("buffer", "region"), tir.IterVar: ("var", "dom"),
    tir.For: ("loop_var", "min", "extent", "body"),
    tir.SBlockRealize: ("iter_values", "predicate", "block"), tir.SeqStmt: ("seq",),
}


def free_vars(func_body: tir.Stmt, buffers: list[tir.Buffer]) -> list[P.Var]:
    """Variables ``func_body`` and the shapes of ``buffers`` use that nothing inside
    defines (loops, block variables, lets), in first-seen order."""
    walk = _FreeVars()
    for b in buffers:
        walk.buffer(b)
    walk.walk(func_body)
    return [v for k, v in walk.used.items() if k not in walk.defined]


class _FreeVars:
    """The walk of ``free_vars`` (methods, not recursive closures: no reference cycle)."""

    def __init__(self) -> None:
        self.defined: set[int] = set()
        self.used: dict[int, P.Var] = {}
        self.seen_buffers: set[int] = set()

    def buffer(self, b: tir.Buffer) -> None:
        if id(b) in self.seen_buffers:
            return
        self.seen_buffers.add(id(b))
        for d in b.shape + b.strides + ((b.elem_offset,) if b.elem_offset is not None else ()):
            self.walk(d)

    def walk(self, x) -> None:
        t = type(x)
        if t is P.Var:
            self.used.setdefault(id(x), x)
            return
        if t in _ATOMS:
            return
        if issubclass(t, P.BinaryOp):
            self.walk(x.a)
            self.walk(x.b)
            return
        fields = _WALKED_FIELDS.get(t)
        if fields is not None:  # a node met often: only its fields that hold variables
            if t is tir.For:
                self.defined.add(id(x.loop_var))
            elif t is tir.IterVar:
                self.defined.add(id(x.var))
            for name in fields:
                self.walk(getattr(x, name))
            return
        if isinstance(x, tir.Buffer):
            self.buffer(x)
            return
        if isinstance(x, (tuple, list)):
            for c in x:
                self.walk(c)
            return
        if not isinstance(x, _NODES):
            return
        if isinstance(x, tir.For):
            self.defined.add(id(x.loop_var))
        elif isinstance(x, (tir.LetStmt, P.Let)):
            self.defined.add(id(x.var))
        elif isinstance(x, tir.Allocate):
            self.defined.add(id(x.buffer_var))
        elif isinstance(x, tir.IterVar):
            self.defined.add(id(x.var))
        for name in child_fields(type(x)):
            self.walk(getattr(x, name))
