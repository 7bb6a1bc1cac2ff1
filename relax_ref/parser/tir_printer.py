"""PrimFuncs -> TVMScript text in the TVM 0.27 dialect (spec/syntax.md, "Printing").

One ``TirPrinter`` prints one PrimFunc. TIR names are released when their scope (loop,
block, let) ends, as TVM does, so sibling loops may both bind ``ax0``. Attribute dicts
print with the Relax printer's attribute spelling and TIR literals.
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.dtype import FLOAT32, INT64, DataType
from relax_ref.ir.text import (INDENT, Names, PrintError, TextContext, TirPrimPrinter,
                               is_true, is_zero, plus, quote, same_expr)

from .relax_printer import RelaxPrinter

class TirPrinter(TirPrimPrinter):
    """Prints one PrimFunc."""

    def __init__(self, ctx: TextContext, names: Names | None = None):
        super().__init__(ctx, names)
        self.params: set[int] = set()
        self.pending_params: set[int] = set()                 # parameters not yet printed
        self.declared: list[str] = []                          # free variables of the body
        self.loops: dict[int, tir.For] = {}                    # enclosing loops by loop var
        self.data_owner: dict[int, str] = {}                   # data var -> "Buf.data"
        self.quote_dim = False           # a dimension declares a body variable: quote it

    def first_use(self, var: P.Var) -> str:
        type_var = self.in_signature and id(var) not in self.params and var.dtype == INT64
        hint = self.ctx.type_var_hint(var.name) if type_var else var.name
        name = self.names.define(var, hint, root=True)
        if type_var:
            self.ctx.type_vars.add(name)
        elif self.in_signature and id(var) not in self.params:
            # A TypeVar reads back as an int64: any other dtype is declared in the body
            # and its first dimension quoted, as TVM prints it (PRINT-tir-3, SYN-sym-2).
            self.declared.append(f"{name} = {self.t(str(var.dtype))}()")
            self.quote_dim = True
        elif not self.in_signature and not var.dtype.is_handle:
            self.declared.append(f"{name} = {self.t(str(var.dtype))}()")
        return name

    def var_name(self, var: P.Var) -> str:
        # A buffer's data handle read in an expression prints as ``A.data`` (SYN-tir-data-1).
        if var.dtype.is_handle and self.names.get(var) is None and id(var) in self.data_owner:
            return self.data_owner[id(var)]
        return super().var_name(var)

    def dim(self, e: P.PrimExpr) -> str:
        # A scalar parameter used by an earlier parameter's buffer is quoted, as TVM
        # quotes it: the name is not bound yet where it is read.
        if self.in_signature and isinstance(e, P.Var) and id(e) in self.pending_params:
            return quote(self.prim(e))
        self.quote_dim = False
        text = super().dim(e)
        return quote(text) if self.quote_dim and not text.startswith('"') else text

    def function(self, f: tir.PrimFunc, name: str, indent: int) -> list[str]:
        self.ctx.uses_tir = True
        self.params = {id(p) for p in f.params}
        self.pending_params = set(self.params)
        self.in_signature = True
        params = []
        for p in f.params:
            self.pending_params.discard(id(p))
            buf = f.buffer_of(p)
            if buf is not None:
                ann = self._buffer_call("Buffer", buf, always_dtype=True)
                params.append(f"{self._define_buffer(buf)}: {ann}")
            elif p.dtype.is_handle:
                params.append(f"{self.names.define(p, p.name)}: {self.t('handle')}")
            else:
                params.append(f"{self.names.define(p, p.name)}: {self.t(str(p.dtype))}")
        self.in_signature = False
        ret = ""
        if f.ret_type is not None and not f.ret_type.is_void:
            ret = f" -> {self.t(str(f.ret_type))}"

        inner = INDENT * (indent + 1)
        body: list[str] = []
        root = _root_block(f.body)
        if root is not None:
            body.append(inner + '# with T.sblock("root"):')
            for buf in root.alloc_buffers:
                body.append(inner + self._alloc_line(buf))
            self.stmt(root.body, indent + 1, body)
        else:
            self.stmt(f.body, indent + 1, body)

        options = []
        if f.is_private:
            options.append("private=True")
        if f.s_tir:
            options.append("s_tir=True")
        pad = INDENT * indent
        lines = [pad + "@T.prim_func" + (f"({', '.join(options)})" if options else ""),
                 pad + f"def {name}({', '.join(params)}){ret}:"]
        if len(f.attrs):
            lines.append(inner + f"T.func_attr({self._attrs(f.attrs)})")
        lines.extend(inner + d for d in self.declared)
        lines.extend(body)
        return lines

    # -- buffers ------------------------------------------------------------------------
    def _define_buffer(self, buf: tir.Buffer) -> str:
        name = self.names.define(buf, buf.name)
        if buf.data is not None:
            self.data_owner.setdefault(id(buf.data), f"{name}.data")
        return name

    def _buffer_call(self, func: str, buf: tir.Buffer, always_dtype: bool,
                     prefix: str = "", with_data: bool = False) -> str:
        """``T.<func>(prefix, shape, "dtype", options...)``; float32 is left out unless
        ``always_dtype`` (TVM omits it except on parameters)."""
        parts = [prefix] if prefix else []
        parts.append(self.shape_tuple(buf.shape))
        if always_dtype or buf.dtype != FLOAT32:
            parts.append(quote(str(buf.dtype)))
        if with_data and buf.data is not None:
            parts.append(f"data={self._data_ref(buf.data)}")
        if buf.strides:
            parts.append(f"strides={self.shape_tuple(buf.strides)}")
        if buf.elem_offset is not None:
            parts.append(f"elem_offset={self.dim(buf.elem_offset)}")
        if buf.scope != "global":
            parts.append(f"scope={quote(buf.scope)}")
        if buf.align != -1:
            parts.append(f"align={buf.align}")
        if buf.offset_factor != 0:
            parts.append(f"offset_factor={buf.offset_factor}")
        if buf.axis_separators:
            parts.append(f"axis_separators=[{', '.join(str(a) for a in buf.axis_separators)}]")
        return f"{self.t(func)}({', '.join(parts)})"

    def _data_ref(self, var: P.Var) -> str:
        name = self.names.get(var)
        if name is not None:
            return name
        return self.data_owner.get(id(var)) or self.var_name(var)

    def _alloc_line(self, buf: tir.Buffer) -> str:
        call = self._buffer_call("sblock_alloc_buffer", buf, always_dtype=False)
        return f"{self._define_buffer(buf)} = {call}"

    def _region(self, region: tir.BufferRegion) -> str:
        name = self.names.get(region.buffer) or self._define_buffer(region.buffer)
        if not region.region:
            return f"{name}[()]"
        items = []
        for r in region.region:
            if isinstance(r.extent, P.IntImm) and r.extent.value == 1:
                items.append(self.prim(r.min))
            else:
                items.append(f"{self.prim(r.min)}:{self.prim(plus(r.min, r.extent))}")
        return f"{name}[{', '.join(items)}]"

    def _attrs(self, attrs: rx.Attrs) -> str:
        return _RelaxAttrs(self).attr_value(attrs)

    # -- statements ---------------------------------------------------------------------
    def stmt(self, s: tir.Stmt, indent: int, out: list[str]) -> None:
        pad = INDENT * indent
        if isinstance(s, tir.SeqStmt):
            for x in s.seq:
                self.stmt(x, indent, out)
        elif isinstance(s, tir.BufferStore):
            name = self.names.get(s.buffer) or self._define_buffer(s.buffer)
            out.append(f"{pad}{name}[{self._indices(s.indices)}] = {self.prim(s.value)}")
        elif isinstance(s, tir.Evaluate):
            # A call stands alone as a statement; anything else needs T.evaluate.
            text = self.prim(s.value)
            if not isinstance(s.value, P.Call):
                text = f"{self.t('evaluate')}({text})"
            out.append(pad + text)
        elif isinstance(s, tir.IfThenElse):
            out.append(f"{pad}if {self.prim(s.condition)}:")
            self._scoped(s.then_case, indent + 1, out)
            if s.else_case is not None:
                out.append(pad + "else:")
                self._scoped(s.else_case, indent + 1, out)
        elif isinstance(s, tir.For):
            self._for(s, indent, out)
        elif isinstance(s, tir.SBlockRealize):
            self._block(s, indent, out)
        elif isinstance(s, tir.LetStmt):
            # Flat, as TVM prints it: the rest of the suite is the body.
            value = self.prim(s.value)
            self.names.push()
            name = self.names.define(s.var, s.var.name)
            # PRINT-stmt-2: TVM 0.27 writes a let as ``x: T.let[T.int32] = v``; it reads
            # ``x: T.int32 = v`` as a mutable local scalar instead.
            out.append(f"{pad}{name}: {self.t('let')}[{self.t(str(s.var.dtype))}] = {value}")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.AssertStmt):
            message = (f"({quote(s.error_kind)}, [{quote(s.message)}])" if s.error_kind
                       else quote(s.message))
            out.append(f"{pad}assert {self.prim(s.condition)}, {message}")
            if s.body is not None:
                self.stmt(s.body, indent, out)
        elif isinstance(s, tir.While):
            out.append(f"{pad}while {self.prim(s.condition)}:")
            self._scoped(s.body, indent + 1, out)
        elif isinstance(s, tir.Allocate):
            extents = ", ".join(self.prim(e) for e in s.extents)
            parts = [f"[{extents}]", quote(str(s.dtype)), quote(s.scope)]
            if not is_true(s.condition):
                parts.append(self.prim(s.condition))
            if len(s.annotations):
                parts.append(f"annotations={self._attrs(s.annotations)}")
            self.names.push()
            name = self.names.define(s.buffer_var, s.buffer_var.name)
            out.append(f"{pad}{name} = {self.t('allocate')}({', '.join(parts)})")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.DeclBuffer):
            # A data variable not met before is the buffer's own handle (SYN-tir-data-1):
            # the declaration makes it, so it prints without ``data=``.
            data = s.buffer.data
            own = data is not None and self.names.get(data) is None and \
                id(data) not in self.data_owner
            call = self._buffer_call("decl_buffer", s.buffer, always_dtype=False,
                                     with_data=not own)
            self.names.push()
            out.append(f"{pad}{self._define_buffer(s.buffer)} = {call}")
            self.stmt(s.body, indent, out)
            self.names.pop()
        elif isinstance(s, tir.AttrStmt):
            out.append(f"{pad}with {self.t('attr')}({self._attr_node(s.node)}, "
                       f"{quote(s.attr_key)}, {self.prim(s.value)}):")
            self._scoped(s.body, indent + 1, out)
        else:
            raise PrintError(f"cannot print the statement {type(s).__name__}")

    def _scoped(self, s: tir.Stmt, indent: int, out: list[str]) -> None:
        self.names.push()
        self.stmt(s, indent, out)
        self.names.pop()

    def _attr_node(self, node) -> str:
        if isinstance(node, P.PrimExpr):
            return self.prim(node)
        if isinstance(node, tir.IterVar):
            return self.var_name(node.var)
        if isinstance(node, tir.Buffer):
            return self.names.get(node) or self._define_buffer(node)
        if isinstance(node, str):
            return quote(node)
        if node is None:
            return "None"
        raise PrintError(f"cannot print the attribute node {type(node).__name__}")

    # -- loops --------------------------------------------------------------------------
    def _for(self, loop: tir.For, indent: int, out: list[str]) -> None:
        pad = INDENT * indent
        if _plain_serial(loop):
            chain = [loop]
            while isinstance(chain[-1].body, tir.For) and _plain_serial(chain[-1].body):
                inner = chain[-1].body
                bound = {id(l.loop_var) for l in chain}
                if any(id(v) in bound for v in P.free_vars(inner.extent)):
                    break
                chain.append(inner)
            extents = [self.prim(l.extent) for l in chain]
            self.names.push()
            names = [self.names.define(l.loop_var, l.loop_var.name) for l in chain]
            if len(chain) == 1:
                out.append(f"{pad}for {names[0]} in range({extents[0]}):")
            else:
                grid = f"{self.t('grid')}({', '.join(extents)})"
                out.append(f"{pad}for {', '.join(names)} in {grid}:")
        else:
            chain = [loop]
            args = [self.prim(loop.extent)] if is_zero(loop.min) else \
                [self.prim(loop.min), self.prim(plus(loop.min, loop.extent))]
            if loop.kind == "thread_binding":
                args.append(f"thread={quote(loop.thread_tag or '')}")
            if len(loop.annotations):
                args.append(f"annotations={self._attrs(loop.annotations)}")
            if loop.kind == "serial" and not len(loop.annotations):
                iterator = f"range({', '.join(args)})"
            else:
                iterator = f"{self.t(loop.kind)}({', '.join(args)})"
            self.names.push()
            name = self.names.define(loop.loop_var, loop.loop_var.name)
            out.append(f"{pad}for {name} in {iterator}:")
        for l in chain:
            self.loops[id(l.loop_var)] = l
        self.stmt(chain[-1].body, indent + 1, out)
        for l in chain:
            self.loops.pop(id(l.loop_var), None)
        self.names.pop()

    # -- blocks -------------------------------------------------------------------------
    def _block(self, realize: tir.SBlockRealize, indent: int, out: list[str]) -> None:
        blk = realize.block
        pad, inner = INDENT * indent, INDENT * (indent + 1)
        out.append(f"{pad}with {self.t('sblock')}({quote(blk.name)}):")
        self.names.push()
        self._iter_vars(blk.iter_vars, realize.iter_values, inner, out)
        if not is_true(realize.predicate):
            out.append(f"{inner}{self.t('where')}({self.prim(realize.predicate)})")
        out.append(f"{inner}{self.t('reads')}({', '.join(self._region(r) for r in blk.reads)})")
        out.append(f"{inner}{self.t('writes')}({', '.join(self._region(r) for r in blk.writes)})")
        if len(blk.annotations):
            out.append(f"{inner}{self.t('sblock_attr')}({self._attrs(blk.annotations)})")
        for buf in blk.alloc_buffers:
            out.append(inner + self._alloc_line(buf))
        for mb in blk.match_buffers:
            source = self._region(mb.source)
            call = self._buffer_call("match_buffer", mb.buffer, always_dtype=False, prefix=source)
            out.append(f"{inner}{self._define_buffer(mb.buffer)} = {call}")
        if blk.init is not None:
            out.append(f"{inner}with {self.t('init')}():")
            self._scoped(blk.init, indent + 2, out)
        self.stmt(blk.body, indent + 1, out)
        self.names.pop()

    def _iter_vars(self, iter_vars, values, pad: str, out: list[str]) -> None:
        """``T.axis.remap`` for each run of two or more iter vars bound to enclosing loop
        variables over the loops' own ranges (spatial or reduce), as TVM prints them;
        ``T.axis.<kind>(dom, value)`` for the others."""
        run: list[tuple[tir.IterVar, P.PrimExpr]] = []

        def flush() -> None:
            if len(run) >= 2:
                bindings = [self.prim(v) for _, v in run]
                names = [self.names.define(iv.var, iv.var.name) for iv, _ in run]
                kinds = "".join(iv.kind for iv, _ in run)
                out.append(f"{pad}{', '.join(names)} = {self.t('axis.remap')}"
                           f"({quote(kinds)}, [{', '.join(bindings)}])")
            else:
                for iv, v in run:
                    self._single_axis(iv, v, pad, out)
            run.clear()

        for iv, value in zip(iter_vars, values):
            if self._remappable(iv, value):
                run.append((iv, value))
            else:
                flush()
                self._single_axis(iv, value, pad, out)
        flush()

    def _remappable(self, iv: tir.IterVar, value: P.PrimExpr) -> bool:
        if iv.kind not in ("S", "R") or not isinstance(value, P.Var):
            return False
        loop = self.loops.get(id(value))
        return (loop is not None and iv.var.dtype == value.dtype
                and same_expr(loop.min, iv.dom.min) and same_expr(loop.extent, iv.dom.extent))

    def _single_axis(self, iv: tir.IterVar, value: P.PrimExpr, pad: str, out: list[str]) -> None:
        kind = tir.ITER_KINDS.get(iv.kind)
        if kind is None:
            raise PrintError(f"unknown iter var kind {iv.kind!r}")
        if is_zero(iv.dom.min):
            dom = self.prim(iv.dom.extent)
        else:
            dom = f"({self.prim(iv.dom.min)}, {self.prim(plus(iv.dom.min, iv.dom.extent))})"
        binding = self.prim(value)
        name = self.names.define(iv.var, iv.var.name)
        out.append(f"{pad}{name} = {self.t('axis.' + kind)}({dom}, {binding})")


class _RelaxAttrs(RelaxPrinter):
    """Attribute dicts inside a PrimFunc: Relax attribute spelling, TIR literals."""

    def __init__(self, owner: TirPrinter):
        super().__init__(owner.ctx, owner.names)
        self._owner = owner

    def prim(self, e: P.PrimExpr) -> str:
        return self._owner.prim(e)

    def _typed(self, e: P.PrimExpr) -> str:
        return self._owner._typed(e)

    def attr_value(self, v) -> str:
        # Annotations may hold the function's buffers and regions of them (PRINT-attr-2).
        if isinstance(v, tir.Buffer):
            return self._owner.names.get(v) or self._owner._define_buffer(v)
        if isinstance(v, tir.BufferRegion):
            return self._owner._region(v)
        if isinstance(v, DataType) and not v.is_void:
            return self.t(str(v))  # T.float32 reads back as the dtype, "float32" as a string
        return super().attr_value(v)


def _plain_serial(loop: tir.For) -> bool:
    """A loop TVM folds into ``range(n)`` / ``T.grid``: serial from 0, no annotations."""
    return (loop.kind == "serial" and is_zero(loop.min) and not len(loop.annotations)
            and loop.thread_tag is None)


def _root_block(body: tir.Stmt) -> tir.SBlock | None:
    """The implicit root block TVM prints as the comment ``# with T.sblock("root"):``."""
    if not isinstance(body, tir.SBlockRealize):
        return None
    blk = body.block
    if (blk.name == "root" and not blk.iter_vars and not body.iter_values
            and is_true(body.predicate) and not blk.reads and not blk.writes
            and blk.init is None and not blk.match_buffers and not len(blk.annotations)):
        return blk
    return None

