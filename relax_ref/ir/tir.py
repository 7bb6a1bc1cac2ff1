"""TIR: the loop-level tensor programs (``T.prim_func``) that Relax calls with call_tir.

Expressions are the shared PrimExpr language (``ir.prim_expr``) plus ``BufferLoad``.
Statements follow TVM's TIR with S-TIR blocks (``T.sblock`` in 0.27, ``T.block`` before).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dtype import DataType, FLOAT32
from .prim_expr import PrimExpr, Var
from .relax import EMPTY_ATTRS, Attrs
from .span import Span

_node = dataclass(frozen=True, slots=True, eq=False)


@_node
class Buffer:
    """A multi-dimensional view of memory. ``data`` is its handle variable; ``strides``
    empty means compact row-major; ``elem_offset`` None means 0."""

    name: str
    shape: tuple[PrimExpr, ...]
    dtype: DataType = FLOAT32
    data: Var | None = None
    strides: tuple[PrimExpr, ...] = ()
    elem_offset: PrimExpr | None = None
    scope: str = "global"
    align: int = -1
    offset_factor: int = 0
    axis_separators: tuple[int, ...] = ()
    span: Span | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        return f"Buffer({self.name})"


@_node
class BufferLoad(PrimExpr):
    buffer: Buffer
    indices: tuple[PrimExpr, ...]
    dtype: DataType
    span: Span | None = field(default=None, kw_only=True)


@_node
class Range:
    """The integer interval [min, min + extent)."""

    min: PrimExpr
    extent: PrimExpr
    span: Span | None = field(default=None, kw_only=True)


@_node
class BufferRegion:
    """``A[vi, 0:8]``: a rectangular region of a buffer, one Range per dimension."""

    buffer: Buffer
    region: tuple[Range, ...]
    span: Span | None = field(default=None, kw_only=True)


@_node
class MatchBufferRegion:
    """``B = T.match_buffer(A[vi, 0:8], (8,))`` inside a block."""

    buffer: Buffer
    source: BufferRegion
    span: Span | None = field(default=None, kw_only=True)


@_node
class Stmt:
    """Base of all TIR statements."""


@_node
class BufferStore(Stmt):
    buffer: Buffer
    value: PrimExpr
    indices: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, kw_only=True)


@_node
class Evaluate(Stmt):
    value: PrimExpr
    span: Span | None = field(default=None, kw_only=True)


@_node
class SeqStmt(Stmt):
    seq: tuple[Stmt, ...]
    span: Span | None = field(default=None, kw_only=True)


@_node
class IfThenElse(Stmt):
    condition: PrimExpr
    then_case: Stmt
    else_case: Stmt | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class LetStmt(Stmt):
    var: Var
    value: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, kw_only=True)


@_node
class AssertStmt(Stmt):
    condition: PrimExpr
    message: str
    body: Stmt | None = None
    # TVM 0.27's error kind (``assert c, ("ValueError", [parts])``); "" when written as a
    # plain message (SYN-tir-assert-1).
    error_kind: str = field(default="", kw_only=True)
    span: Span | None = field(default=None, kw_only=True)


@_node
class While(Stmt):
    condition: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, kw_only=True)


FOR_KINDS = ("serial", "parallel", "vectorized", "unroll", "thread_binding")


@_node
class For(Stmt):
    """``for v in T.serial(min, extent)`` and friends; ``kind`` is one of FOR_KINDS and
    ``thread_tag`` names the thread axis of a ``thread_binding`` loop."""

    loop_var: Var
    min: PrimExpr
    extent: PrimExpr
    kind: str
    body: Stmt
    thread_tag: str | None = None
    annotations: Attrs = EMPTY_ATTRS
    span: Span | None = field(default=None, kw_only=True)


@_node
class Allocate(Stmt):
    """``T.allocate([extents], dtype, scope)``: a fresh buffer behind ``buffer_var``."""

    buffer_var: Var
    dtype: DataType
    extents: tuple[PrimExpr, ...]
    condition: PrimExpr
    body: Stmt
    scope: str = "global"
    annotations: Attrs = EMPTY_ATTRS
    span: Span | None = field(default=None, kw_only=True)


@_node
class DeclBuffer(Stmt):
    """``T.decl_buffer(...)`` / ``T.alloc_buffer`` outside blocks: declares a buffer
    (allocating it when it has no existing data variable)."""

    buffer: Buffer
    body: Stmt
    span: Span | None = field(default=None, kw_only=True)


@_node
class AttrStmt(Stmt):
    """``T.attr(node, key, value)`` and ``T.launch_thread``."""

    node: Any
    attr_key: str
    value: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, kw_only=True)


# Kinds of block iteration variables as T.axis.remap spells them.
ITER_KINDS = {"S": "spatial", "R": "reduce", "O": "opaque", "C": "scan"}


@_node
class IterVar:
    """A block iteration variable ranging over ``dom``; ``kind`` is a key of ITER_KINDS."""

    var: Var
    dom: Range
    kind: str
    span: Span | None = field(default=None, kw_only=True)


@_node
class SBlock(Stmt):
    """``with T.sblock(name):`` -- iteration domain, declared reads and writes,
    optional ``T.init()`` run on the first reduction iteration, and the body."""

    name: str
    iter_vars: tuple[IterVar, ...]
    reads: tuple[BufferRegion, ...]
    writes: tuple[BufferRegion, ...]
    body: Stmt
    init: Stmt | None = None
    alloc_buffers: tuple[Buffer, ...] = ()
    match_buffers: tuple[MatchBufferRegion, ...] = ()
    annotations: Attrs = EMPTY_ATTRS
    span: Span | None = field(default=None, kw_only=True)


@_node
class SBlockRealize(Stmt):
    """An SBlock instance: the value bound to each iter var, and a predicate."""

    iter_values: tuple[PrimExpr, ...]
    predicate: PrimExpr
    block: SBlock
    span: Span | None = field(default=None, kw_only=True)


@_node
class PrimFunc:
    """A TIR function. ``params`` are handle or scalar Vars; ``buffer_map`` maps handle
    params to the buffers they are viewed as; ``body`` is a Stmt (wrapped in a root
    SBlockRealize when the function uses blocks)."""

    params: tuple[Var, ...]
    buffer_map: tuple[tuple[Var, Buffer], ...]
    body: Stmt
    ret_type: DataType | None = None
    attrs: Attrs = EMPTY_ATTRS
    is_private: bool = False
    s_tir: bool = False
    span: Span | None = field(default=None, kw_only=True)

    def buffer_of(self, param: Var) -> Buffer | None:
        for p, b in self.buffer_map:
            if p is param:
                return b
        return None
