"""Reading ``@T.prim_func`` definitions (spec/syntax.md, section "TIR functions").

Both dialects are read: ``T.sblock`` / ``T.sblock_alloc_buffer`` / ``T.sblock_attr``
(TVM 0.27) and ``T.block`` / ``T.alloc_buffer`` / ``T.block_attr`` (earlier releases).
A function whose body uses blocks or allocates buffers at its top level gets the
implicit root block that TVM gives it (printed as the comment ``# with T.sblock("root"):``).
"""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass

from lark import Tree

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.dtype import HANDLE, INT32, INT64, DataType, DTypeError, parse_dtype
from relax_ref.errors import ParseError

from . import prim_builder as pb
from .syntax import statements
from .scope import is_scalar_dtype_name, ModuleEnv, Namespace, Reader
from .tir_blocks import TRUE, LoopsAndBlocks, _BlockFrame, _sub

ALLOC_NAMES = ("sblock_alloc_buffer", "alloc_buffer")
#: SYN-tir-alloc-1: statement-level allocations in a memory scope, by name.
SCOPED_ALLOCS = {"alloc_local": "local", "alloc_shared": "shared"}
BLOCK_ATTR_NAMES = ("sblock_attr", "block_attr")


def build_prim_func(funcdef: Tree, decorators: list[Tree], env: ModuleEnv) -> tir.PrimFunc:
    return TirReader(env).function(funcdef, decorators)


class TirReader(LoopsAndBlocks, Reader):
    default_int = INT32

    def __init__(self, env: ModuleEnv):
        super().__init__(env)
        self.names: dict[str, object] = {}
        self.loops: dict[int, tuple[P.PrimExpr, P.PrimExpr]] = {}  # id(loop var) -> (min, extent)
        self.frames: list[_BlockFrame] = []
        self.attrs = rx.EMPTY_ATTRS
        self.buffer_map: list[tuple[P.Var, tir.Buffer]] = []
        self.params: list[P.Var] = []
        self.saw_block = False
        # suites of loops and branches entered inside the current block (SYN-tir-alloc-1)
        self.nested = 0
        self.forward_syms: set[int] = set()  # names first seen in a quoted buffer dimension
        self.signature_syms: dict[str, P.Var] = {}

    # -- the function ---------------------------------------------------------------------
    def function(self, funcdef: Tree, decorators: list[Tree]) -> tir.PrimFunc:
        name_tok, params_node, ret_node, suite = funcdef.children
        private, s_tir = self.decorator_options(decorators)
        # The body's top-level declarations (``n, m = T.int32(), T.int32()``) name the
        # variables the signature's quoted dimensions refer to, with their dtype, as TVM
        # prints them (SYN-sym-2); they are read again, as declarations, in the body.
        for stmt in statements(suite):
            if stmt.data == "assign":
                try:
                    decls = self.declarations(*stmt.children)
                except ParseError:
                    decls = None  # reported where the body reads it
                for name, dtype, node in decls or ():
                    if dtype is not None:
                        self.names.setdefault(name, P.Var(name, dtype, span=self.ctx.span(node)))
        if params_node is not None:
            for p in params_node.children:
                if p is not None:
                    self.param(p)
        ret_type = None
        if ret_node is not None:
            ret = self.value(ret_node)
            if isinstance(ret, Namespace) and len(ret.path) == 2 and ret.path[0] == "T":
                ret_type = self.dtype_of(ret.path[1], ret_node)
            elif ret is not None:
                raise self.error("a prim_func returns a dtype such as T.int32", ret_node,
                                 rule="SYN-tir-1")
        # Symbolic variables the signature introduced (quoted buffer dimensions, TypeVar
        # names): the body may declare each once more, as TVM prints them (SYN-sym-2).
        params = {id(p) for p in self.params}
        self.signature_syms = {name: v for name, v in self.names.items()
                               if isinstance(v, P.Var) and id(v) not in params}
        root = _BlockFrame()
        self.frames.append(root)
        body = self.block_body(statements(suite), top_level=True)
        self.frames.pop()
        if root.alloc_buffers or self.saw_block:
            block = tir.SBlock("root", (), (), (), body, alloc_buffers=tuple(root.alloc_buffers))
            body = tir.SBlockRealize((), TRUE, block)
        # The earlier dialect has no s_tir flag: a function with blocks is S-TIR there.
        s_tir = s_tir or self.saw_block
        order = {id(p): i for i, p in enumerate(self.params)}
        buffer_map = sorted(self.buffer_map, key=lambda pb_: order[id(pb_[0])])
        return tir.PrimFunc(tuple(self.params), tuple(buffer_map), body, ret_type,
                            _canonical_func_attrs(self.attrs), is_private=private, s_tir=s_tir,
                            span=self.ctx.span(funcdef))

    def decorator_options(self, decorators: list[Tree]) -> tuple[bool, bool]:
        private, s_tir = False, False
        dec = decorators[0]
        if isinstance(dec, Tree) and dec.data == "call":
            args, kwargs = self.split_args(dec.children[1])
            if args:
                raise self.error("@T.prim_func takes only keyword options", args[0],
                                 rule="SYN-func-1")
            for key, vnode in kwargs:
                value = self.value(vnode)
                if key not in ("private", "s_tir", "check_well_formed") or not isinstance(value, bool):
                    raise self.error(f"unknown option {key}={value!r} of @T.prim_func", vnode,
                                     rule="SYN-func-1")
                if key == "private":
                    private = value
                elif key == "s_tir":
                    s_tir = value
        return private, s_tir

    def param(self, p: Tree) -> None:
        name = str(p.children[0])
        if name in self.names and not (id(self.names[name]) in self.forward_syms):
            raise self.error(f"parameter {name!r} is given twice", p, rule="SYN-func-2")
        if p.children[1] is None:
            raise self.error(f"parameter {name!r} needs an annotation", p, rule="SYN-func-2")
        ann = self.value(p.children[1])
        span = self.ctx.span(p)
        if isinstance(ann, tir.Buffer):
            var = P.Var(name, HANDLE, span=span)
            buf = _rename_buffer(ann, name)
            self.params.append(var)
            self.buffer_map.append((var, buf))
            self.names[name] = buf
            return
        if isinstance(ann, Namespace) and len(ann.path) == 2 and ann.path[0] == "T":
            if ann.path[1] == "handle":
                var = P.Var(name, HANDLE, span=span)
            else:
                dtype = self.dtype_of(ann.path[1], p.children[1])
                earlier = self.names.get(name)
                if earlier is not None:
                    # A buffer shape written before this parameter already named it.
                    if earlier.dtype != dtype:
                        raise self.error(f"parameter {name!r} is {dtype} but an earlier buffer "
                                         f"shape uses it as {earlier.dtype}", p, rule="SYN-func-2")
                    self.forward_syms.discard(id(earlier))
                    var = earlier
                else:
                    var = P.Var(name, dtype, span=span)
            self.params.append(var)
            self.names[name] = var
            return
        raise self.error("a prim_func parameter is T.Buffer(...), T.handle or a scalar type "
                         "such as T.int64", p.children[1], rule="SYN-tir-2")

    # -- names ------------------------------------------------------------------------------
    def lookup(self, name: str, node):
        if name in self.names:
            value = self.names[name]
            if isinstance(value, _LocalScalar):  # reads the mutable scalar (SYN-tir-16)
                return tir.BufferLoad(value.buffer, (pb.literal(0, INT32),), value.buffer.dtype,
                                      span=self.ctx.span(node))
            return value
        if name in self.env.type_vars:
            var = P.Var(name, INT64, span=self.ctx.span(node))
            self.names[name] = var
            return var
        if name == "range":
            return Namespace(("T", "serial"))
        return super().lookup(name, node)

    def dtype_of(self, name: str, node) -> DataType:
        try:
            return parse_dtype(name)
        except DTypeError:
            raise self.error(f"unknown dtype {name!r}", node, rule="SYN-dtype-1") from None

    def dtype_arg(self, node) -> DataType:
        value = self.value(node)
        if isinstance(value, Namespace) and len(value.path) == 2 and value.path[0] == "T":
            return self.dtype_of(value.path[1], node)
        if isinstance(value, str):
            return self.dtype_of(value, node)
        raise self.error(f"expected a dtype such as \"float32\", found {pb.describe(value)}",
                         node, rule="SYN-dtype-1")

    def bind(self, name: str, value, node) -> None:
        self.names[name] = value

    # -- statements -------------------------------------------------------------------------
    def block_body(self, stmts: list[Tree], top_level: bool = False) -> tir.Stmt:
        """The statements of a suite as one Stmt. Statements that scope over the rest of
        the suite (LetStmt, DeclBuffer, Allocate) take it as their body."""
        out: list[tir.Stmt] = []
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            result = self.statement(stmt, stmts[i + 1:], top_level)
            if isinstance(result, _TakesRest):
                out.append(result.stmt)
                break
            if result is not None:
                out.append(result)
            i += 1
        if not out:
            return tir.Evaluate(P.IntImm(0, INT32))
        if len(out) == 1:
            return out[0]
        return tir.SeqStmt(tuple(out))

    def nested_body(self, suite) -> tir.Stmt:
        """The suite of a loop or a branch: what it allocates is allocated there."""
        self.nested += 1
        try:
            return self.block_body(statements(suite))
        finally:
            self.nested -= 1

    def statement(self, stmt: Tree, rest: list[Tree], top_level: bool):
        kind = stmt.data
        span = self.ctx.span(stmt)
        if kind == "expr_stmt":
            callee = self._callee_path(stmt.children[0])
            if callee in (("T", "attr"), ("T", "launch_thread")):
                return _TakesRest(self.attr_statement(callee[1], stmt.children[0], rest, stmt))
            return self.expr_statement(stmt.children[0], top_level)
        if kind in ("assign", "ann_assign"):
            return self.assignment(stmt, rest, top_level)
        if kind == "aug_assign":
            return self.augmented_store(stmt)
        if kind == "for_stmt":
            return self.for_loop(stmt)
        if kind == "with_stmt":
            return self.with_statement(stmt)
        if kind == "if_stmt":
            cond_node, then_suite, elifs, else_suite = stmt.children
            cond = self.prim(cond_node)
            then_s = self.nested_body(then_suite)
            else_s = self.nested_body(else_suite) if else_suite is not None else None
            for elif_node in reversed(elifs.children if elifs is not None else []):
                c = self.prim(elif_node.children[0])
                else_s = tir.IfThenElse(c, self.nested_body(elif_node.children[1]),
                                        else_s, span=self.ctx.span(elif_node))
            return tir.IfThenElse(cond, then_s, else_s, span=span)
        if kind == "while_stmt":
            return tir.While(self.prim(stmt.children[0]),
                             self.nested_body(stmt.children[1]), span=span)
        if kind == "assert_stmt":
            cond = self.prim(stmt.children[0])
            msg = self.value(stmt.children[1]) if stmt.children[1] is not None else ""
            kind = ""
            if (isinstance(msg, (tuple, list)) and len(msg) == 2 and isinstance(msg[0], str)
                    and isinstance(msg[1], (tuple, list))
                    and all(isinstance(m, str) for m in msg[1])):
                # TVM 0.27 prints an error kind and message parts (SYN-tir-assert-1).
                kind, msg = msg[0], "".join(msg[1])
            if not isinstance(msg, str):
                raise self.error("an assert message must be a string, or an error kind and "
                                 "a list of strings as TVM prints it: "
                                 "(\"RuntimeError\", [\"...\"])", stmt.children[1],
                                 rule="SYN-tir-3")
            return tir.AssertStmt(cond, msg, error_kind=kind, span=span)
        if kind == "pass_stmt":
            return None
        if kind == "return_stmt":
            if stmt.children[0] is None:
                raise self.error("`return` without a value in a prim_func; use T.ret(value)",
                                 stmt, rule="SYN-tir-3")
            value = self.prim(stmt.children[0])
            return tir.Evaluate(P.Call("tir.ret", (value,), value.dtype), span=span)
        raise self.error("this statement is not part of a prim_func", stmt, rule="SYN-tir-3")

    def expr_statement(self, node, top_level: bool):
        if isinstance(node, Tree) and node.data == "strings":
            return None  # docstring
        callee = self._callee_path(node)
        frame = self.frames[-1]
        if callee is not None and callee[0] == "T" and len(callee) == 2:
            name = callee[1]
            args, kwargs = self.split_args(node.children[1])
            if name == "func_attr":
                if not top_level or len(args) != 1:
                    raise self.error("T.func_attr({...}) belongs at the top of a prim_func", node,
                                     rule="SYN-tir-4")
                value = self.attr_value(args[0])
                if not isinstance(value, rx.Attrs):
                    raise self.error("T.func_attr takes a dict", args[0], rule="SYN-tir-4")
                self.attrs = rx.Attrs(self.attrs.items + value.items)
                return None
            if name in ("reads", "writes"):
                regions = self.regions(args, node)
                if name == "reads":
                    frame.reads = regions
                else:
                    frame.writes = regions
                return None
            if name == "where":
                if len(args) != 1:
                    raise self.error("T.where takes one condition", node, rule="SYN-tir-5")
                frame.predicate = self.prim(args[0])
                return None
            if name in BLOCK_ATTR_NAMES:
                value = self.attr_value(args[0]) if len(args) == 1 else None
                if not isinstance(value, rx.Attrs):
                    raise self.error(f"T.{name} takes a dict", node, rule="SYN-tir-5")
                frame.annotations = rx.Attrs(frame.annotations.items + value.items)
                return None
            if name == "evaluate":
                if len(args) != 1:
                    raise self.error("T.evaluate takes one expression", node, rule="SYN-tir-3")
                return tir.Evaluate(self.prim(args[0]), span=self.ctx.span(node))
        value = self.value(node)
        if isinstance(value, (P.PrimExpr, int, bool)):
            return tir.Evaluate(self.as_prim(value, node), span=self.ctx.span(node))
        raise self.error("this expression does nothing as a statement", node, rule="SYN-tir-3")

    def augmented_store(self, stmt: Tree) -> tir.Stmt:
        """``A[i] += v`` is ``A[i] = A[i] + v`` (SYN-tir-6); only buffer elements and
        mutable local scalars (SYN-tir-16) are updated in place."""
        target, op_token, value_node = stmt.children
        is_scalar = isinstance(target, Tree) and target.data == "name" and \
            isinstance(self.names.get(str(target.children[0])), _LocalScalar)
        if not (isinstance(target, Tree) and target.data == "getitem") and not is_scalar:
            raise self.error(f"`{op_token}` updates a buffer element (A[i] {op_token} v); "
                             f"TIR variables are immutable", target, rule="SYN-tir-6")
        load = self.value(target)
        if not isinstance(load, tir.BufferLoad):
            raise self.error("only buffer elements can be assigned", target, rule="SYN-tir-6")
        value = self.binary(str(op_token)[:-1], load, self.value(value_node), stmt)
        value = self.as_prim(value, value_node, load.dtype)
        if value.dtype != load.dtype and value.dtype.lanes == load.dtype.lanes:
            value = P.Cast(load.dtype, value)  # SYN-tir-3: as a plain store does
        return tir.BufferStore(load.buffer, value, load.indices, span=self.ctx.span(stmt))

    def assignment(self, stmt: Tree, rest: list[Tree], top_level: bool):
        if stmt.data == "assign":
            target, value_node = stmt.children
            ann_node = None
        else:
            target, ann_node, value_node = stmt.children
            if value_node is None:
                raise self.error("an annotated name needs a value", stmt, rule="SYN-tir-6")
        span = self.ctx.span(stmt)
        # A[i, j] = value
        if isinstance(target, Tree) and target.data == "getitem":
            buf = self.value(target.children[0])
            if not isinstance(buf, tir.Buffer):
                raise self.error("only buffer elements can be assigned", target, rule="SYN-tir-6")
            indices = self.indices(buf, target.children[1], target)
            value = self.as_prim(self.value(value_node), value_node, buf.dtype)
            if isinstance(value, P.PrimExpr) and value.dtype != buf.dtype and \
                    isinstance(value, (P.IntImm, P.FloatImm)):
                value = pb.literal(value.value, buf.dtype)
            if value.dtype != buf.dtype and value.dtype.lanes == buf.dtype.lanes:
                value = P.Cast(buf.dtype, value)  # SYN-tir-3: as TVM builds the store
            return tir.BufferStore(buf, value, indices, span=span)
        # n = T.int64(), or n, m = T.int64(), T.int64(): free scalar variables (SYN-sym-2)
        decls = self.declarations(target, value_node) if ann_node is None else None
        if decls is not None:
            for name, dtype, node in decls:
                if dtype is None:
                    self.bind_meta(name, node)
                    continue
                existing = self.names.get(name)
                if existing is not None and self.signature_syms.get(name) is existing:
                    del self.signature_syms[name]  # the signature's variable, declared once
                    if existing.dtype != dtype:
                        raise self.error(f"symbolic variable {name!r} is used as "
                                         f"{existing.dtype} but declared as {dtype}", node,
                                         rule="SYN-sym-1")
                    continue
                if existing is not None:
                    raise self.error(f"{name!r} is already defined", node, rule="SYN-sym-1")
                self.names[name] = P.Var(name, dtype, span=self.ctx.span(node))
            return None
        callee = self._callee_path(value_node)
        # vi, vj, vk = T.axis.remap("SSR", [i, j, k])
        if isinstance(target, Tree) and target.data == "tuple_bare":
            if callee == ("T", "axis", "remap"):
                names = [c for c in target.children if c is not None]
                self.axis_remap(names, value_node)
                return None
            raise self.error("tuple assignment is only for T.axis.remap", stmt, rule="SYN-tir-6")
        if not (isinstance(target, Tree) and target.data == "name"):
            raise self.error("the left side of an assignment must be a name or a buffer element",
                             target, rule="SYN-tir-6")
        name = str(target.children[0])
        if callee is not None and len(callee) >= 2 and callee[0] == "T":
            args, kwargs = self.split_args(value_node.children[1])
            fname = ".".join(callee[1:])
            if fname == "axis.remap":
                self.axis_remap([target], value_node)
                return None
            if callee[1] == "axis" and len(callee) == 3:
                self.axis(name, callee[2], args, kwargs, value_node)
                return None
            if fname in ALLOC_NAMES and not (fname == "alloc_buffer" and self.nested):
                buf = self.buffer_decl(name, args, kwargs, value_node, "alloc")
                self.frames[-1].alloc_buffers.append(buf)
                self.bind(name, buf, target)
                if not self.frames or len(self.frames) == 1:
                    pass
                return None
            if fname == "match_buffer":
                self.match_buffer(name, args, kwargs, value_node, top_level)
                return None
            if fname == "decl_buffer":
                buf = self.buffer_decl(name, args, kwargs, value_node, "decl")
                self.bind(name, buf, target)
                return _TakesRest(tir.DeclBuffer(buf, self.block_body(rest), span=span))
            if fname in SCOPED_ALLOCS or fname == "alloc_buffer":
                # SYN-tir-alloc-1: TVM 0.27's statement-level allocation (``T.alloc_local``,
                # ``T.alloc_shared``, ``T.alloc_buffer`` inside a loop or a branch): a
                # buffer allocated for the rest of the enclosing body (T.decl_buffer's
                # form: with data= it views that).
                buf = self.buffer_decl(name, args, kwargs, value_node, "decl")
                if fname in SCOPED_ALLOCS and not any(k == "scope" for k, _ in kwargs) \
                        and len(args) <= 5:
                    buf = dataclasses.replace(buf, scope=SCOPED_ALLOCS[fname])
                self.bind(name, buf, target)
                return _TakesRest(tir.DeclBuffer(buf, self.block_body(rest), span=span))
            if fname == "allocate":
                return _TakesRest(self.allocate(name, args, kwargs, value_node, rest, span))
            if fname == "Buffer":
                buf = self.buffer_decl(name, args, kwargs, value_node, "decl")
                self.bind(name, buf, target)
                return _TakesRest(tir.DeclBuffer(buf, self.block_body(rest), span=span))
            if is_scalar_dtype_name(callee[1]) and len(callee) == 2 and not args and not kwargs:
                if ann_node is not None:
                    raise self.error("a symbolic variable declaration takes no annotation", stmt,
                                     rule="SYN-tir-6")
                if name in self.names:
                    raise self.error(f"{name!r} is already defined", target, rule="SYN-sym-1")
                self.names[name] = P.Var(name, parse_dtype(callee[1]), span=span)
                return None
        # x: T.int32 = value  (a LetStmt over the rest of the suite)
        value = self.value(value_node)
        if isinstance(value, tir.Buffer):
            self.bind(name, value, target)
            return None
        local = self.names.get(name)
        if ann_node is None and isinstance(local, _LocalScalar):
            # acc = acc + A[k]: a store into the mutable scalar (SYN-tir-16)
            expr = self.as_prim(value, value_node, local.buffer.dtype)
            if expr.dtype != local.buffer.dtype:
                expr = pb.cast(local.buffer.dtype, expr)
            return tir.BufferStore(local.buffer, expr, (pb.literal(0, INT32),), span=span)
        dtype = None
        if ann_node is not None:
            dtype = self.let_annotation(ann_node)
        expr = self.as_prim(value, value_node, dtype or self.default_int)
        if dtype is not None and expr.dtype != dtype:
            expr = pb.cast(dtype, expr)
        if dtype is not None and not _is_let_annotation(ann_node, self) \
                and _assigned_later(name, rest):
            return _TakesRest(self.local_scalar(name, expr, rest, span))
        var = P.Var(name, expr.dtype, span=span)
        saved = self.names.get(name)
        self.names[name] = var
        body = self.block_body(rest)
        if saved is not None:
            self.names[name] = saved
        return _TakesRest(tir.LetStmt(var, expr, body, span=span))

    def local_scalar(self, name: str, init: P.PrimExpr, rest: list, span) -> tir.Stmt:
        """SYN-tir-16: ``x: T.int32 = v`` followed by assignments to ``x`` is TVM 0.27's
        mutable local scalar: a one-element local buffer, stored to by ``x = ...`` and
        ``x += ...`` and loaded where ``x`` is read."""
        buf = tir.Buffer(name, (pb.literal(1, INT32),), init.dtype, scope="local", span=span)
        saved = self.names.get(name)
        self.names[name] = _LocalScalar(buf)
        first = tir.BufferStore(buf, init, (pb.literal(0, INT32),), span=span)
        body = self.block_body(rest)
        if saved is not None:
            self.names[name] = saved
        else:
            self.names.pop(name, None)
        seq = (first,) + (body.seq if isinstance(body, tir.SeqStmt) else (body,))
        return tir.DeclBuffer(buf, tir.SeqStmt(seq), span=span)

    # -- buffers ------------------------------------------------------------------------------
    def buffer_decl(self, name: str, args: list, kwargs: list, node, kind: str) -> tir.Buffer:
        kw = dict(kwargs)
        allowed = ("shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
                   "offset_factor", "buffer_type", "axis_separators")
        for key in kw:
            if key not in allowed:
                raise self.error(f"unknown buffer option {key!r}", kw[key], rule="SYN-tir-7")
        positional = ("shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
                      "offset_factor", "buffer_type", "axis_separators")
        for i, a in enumerate(args):
            if i >= len(positional):
                raise self.error("too many buffer arguments", a, rule="SYN-tir-7")
            if positional[i] in kw:
                raise self.error(f"buffer option {positional[i]!r} given twice", a, rule="SYN-tir-7")
            kw[positional[i]] = a
        if "shape" not in kw:
            raise self.error("a buffer needs a shape", node, rule="SYN-tir-7")
        shape = self.shape(kw["shape"])
        dtype = self.dtype_arg(kw["dtype"]) if "dtype" in kw else parse_dtype("float32")
        scope = "global"
        if "scope" in kw:
            scope = self.value(kw["scope"])
            if not isinstance(scope, str):
                raise self.error("scope must be a string", kw["scope"], rule="SYN-tir-7")
        strides: tuple = ()
        if "strides" in kw:
            sv = self.value(kw["strides"])
            if sv is not None:
                if not isinstance(sv, (tuple, list)):
                    sv = (sv,)
                strides = tuple(self.as_prim(s, kw["strides"]) for s in sv)
        elem_offset = None
        if "elem_offset" in kw:
            ev = self.value(kw["elem_offset"])
            if ev is not None:
                elem_offset = self.as_prim(ev, kw["elem_offset"])
        align = self._int_option(kw, "align", -1)
        offset_factor = self._int_option(kw, "offset_factor", 0)
        data = None
        if "data" in kw:
            dv = self.value(kw["data"])
            if dv is not None:
                if not isinstance(dv, P.Var):
                    raise self.error("data must be a handle variable", kw["data"], rule="SYN-tir-7")
                data = dv
        return tir.Buffer(name, shape, dtype, data, strides, elem_offset, scope, align,
                          offset_factor, span=self.ctx.span(node))

    def _int_option(self, kw: dict, key: str, default: int) -> int:
        if key not in kw:
            return default
        v = self.value(kw[key])
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.error(f"{key} must be an integer", kw[key], rule="SYN-tir-7")
        return v

    def shape(self, node) -> tuple[P.PrimExpr, ...]:
        value = self.value(node)
        if not isinstance(value, (tuple, list)):
            value = (value,)
        return tuple(self.dim(v, node) for v in value)

    def dim(self, value, node) -> P.PrimExpr:
        """A buffer dimension; a string holds an expression whose names may be declared
        later in the signature (TVM quotes such forward references: ``("n", 4)``)."""
        if isinstance(value, str):
            tree = self.parse_expr_string(value, node)
            for sub in tree.iter_subtrees():
                if sub.data == "name":
                    name = str(sub.children[0])
                    if name not in self.names and name not in ("T", "R"):
                        var = P.Var(name, INT64, span=self.ctx.span(node))
                        self.names[name] = var
                        self.forward_syms.add(id(var))
            from .relax_annotations import _relocate

            return self.as_prim(self.value(_relocate(tree, node)), node)
        return self.as_prim(value, node)

    def match_buffer(self, name: str, args: list, kwargs: list, node, top_level: bool) -> None:
        if not args:
            raise self.error("T.match_buffer takes (param_or_region, shape, dtype, ...)", node,
                             rule="SYN-tir-8")
        source = self.value(args[0])
        buf = self.buffer_decl(name, args[1:], kwargs, node, "match")
        if isinstance(source, P.Var) and source.dtype.is_handle:
            if not top_level:
                raise self.error("T.match_buffer of a handle belongs at the top of a prim_func",
                                 node, rule="SYN-tir-8")
            if any(p is source for p, _ in self.buffer_map):
                raise self.error(f"parameter {source.name!r} is already matched to a buffer",
                                 node, rule="SYN-tir-8")
            if not any(p is source for p in self.params):
                raise self.error("T.match_buffer matches a parameter of the function", args[0],
                                 rule="SYN-tir-8")
            self.buffer_map.append((source, buf))
        else:
            region = self.to_region(source, args[0])
            self.frames[-1].match_buffers.append(tir.MatchBufferRegion(buf, region))
        self.bind(name, buf, node)

    def allocate(self, name: str, args: list, kwargs: list, node, rest: list, span):
        kw = dict(kwargs)
        names = ("extents", "dtype", "scope", "condition", "annotations")
        for i, a in enumerate(args):
            if i >= len(names):
                raise self.error("too many arguments to T.allocate", a, rule="SYN-tir-7")
            kw[names[i]] = a
        if "extents" not in kw or "dtype" not in kw:
            raise self.error("T.allocate takes (extents, dtype, scope)", node, rule="SYN-tir-7")
        extents = self.shape(kw["extents"])
        dtype = self.dtype_arg(kw["dtype"])
        scope = self.value(kw["scope"]) if "scope" in kw else "global"
        cond = self.prim(kw["condition"]) if "condition" in kw else TRUE
        var = P.Var(name, HANDLE, span=span)
        self.names[name] = var
        body = self.block_body(rest)
        return tir.Allocate(var, dtype, extents, cond, body, scope=scope, span=span)

    def indices(self, buf: tir.Buffer, subs_node: Tree, node) -> tuple[P.PrimExpr, ...]:
        subs = [c for c in subs_node.children if c is not None]
        if len(subs) == 1 and isinstance(subs[0], Tree) and subs[0].data == "empty_tuple":
            subs = []  # A[()] on a 0-d buffer
        out = []
        for s in subs:
            if isinstance(s, Tree) and s.data == "slice_":
                raise self.error("a slice cannot be stored to or loaded here", s, rule="SYN-tir-9")
            out.append(self.as_prim(self.value(s), s))
        if len(out) != len(buf.shape):
            raise self.error(f"buffer {buf.name!r} has {len(buf.shape)} dimensions but is "
                             f"indexed with {len(out)}", node, rule="SYN-tir-9")
        return tuple(out)

    def attribute(self, base, name: str, node):
        """A buffer's fields, as TVM's Buffer has them: ``A.shape``, ``A.dtype``,
        ``A.data``, ``A.strides``, ``A.elem_offset``, ``A.scope`` (SYN-tir-7, SYN-tir-data-1)."""
        if isinstance(base, tir.Buffer):
            if name == "shape":
                return tuple(base.shape)
            if name == "strides":
                return tuple(base.strides)
            if name == "dtype":
                return str(base.dtype)
            if name == "scope":
                return base.scope
            if name == "elem_offset":
                return base.elem_offset if base.elem_offset is not None else pb.literal(0, INT32)
            if name == "data":
                return buffer_data(base)
        return super().attribute(base, name, node)

    def subscript(self, base, subs: list, node):
        if isinstance(base, tir.Buffer):
            if len(subs) == 1 and isinstance(subs[0], Tree) and subs[0].data == "empty_tuple":
                subs = []  # A[()] on a 0-d buffer
            if any(isinstance(s, Tree) and s.data == "slice_" for s in subs):
                return self.region_of(base, subs, node)
            indices = tuple(self.as_prim(self.value(s), s) for s in subs)
            if len(indices) != len(base.shape):
                raise self.error(f"buffer {base.name!r} has {len(base.shape)} dimensions but is "
                                 f"indexed with {len(indices)}", node, rule="SYN-tir-9")
            return tir.BufferLoad(base, indices, base.dtype, span=self.ctx.span(node))
        return super().subscript(base, subs, node)

    def region_of(self, buf: tir.Buffer, subs: list, node) -> tir.BufferRegion:
        if len(subs) != len(buf.shape):
            raise self.error(f"buffer {buf.name!r} has {len(buf.shape)} dimensions but the "
                             f"region has {len(subs)}", node, rule="SYN-tir-9")
        ranges = []
        for s, extent in zip(subs, buf.shape):
            if isinstance(s, Tree) and s.data == "slice_":
                lo_n, hi_n, step_n = s.children
                if step_n is not None:
                    raise self.error("strided regions are not supported", s, rule="SYN-tir-9")
                lo = self.as_prim(self.value(lo_n), lo_n) if lo_n is not None else \
                    pb.literal(0, extent.dtype)
                hi = self.as_prim(self.value(hi_n), hi_n) if hi_n is not None else extent
                ranges.append(tir.Range(lo, _sub(hi, lo)))
            else:
                idx = self.as_prim(self.value(s), s)
                ranges.append(tir.Range(idx, pb.literal(1, idx.dtype)))
        return tir.BufferRegion(buf, tuple(ranges), span=self.ctx.span(node))

    def to_region(self, value, node) -> tir.BufferRegion:
        if isinstance(value, tir.BufferRegion):
            return value
        if isinstance(value, tir.BufferLoad):
            return tir.BufferRegion(value.buffer, tuple(
                tir.Range(i, pb.literal(1, i.dtype)) for i in value.indices),
                span=self.ctx.span(node))
        if isinstance(value, tir.Buffer):
            return tir.BufferRegion(value, tuple(
                tir.Range(pb.literal(0, d.dtype), d) for d in value.shape), span=self.ctx.span(node))
        raise self.error(f"expected a buffer region such as A[i, 0:8], found "
                         f"{pb.describe(value)}", node, rule="SYN-tir-9")

    def regions(self, args: list, node) -> tuple[tir.BufferRegion, ...]:
        values = [self.value(a) for a in args]
        if len(values) == 1 and isinstance(values[0], (list, tuple)):
            values = list(values[0])
        return tuple(self.to_region(v, node) for v in values)

    # -- expressions ------------------------------------------------------------------------------
    def prim(self, node) -> P.PrimExpr:
        return self.as_prim(self.value(node), node)

    def scalar(self, value, node, dtype: DataType | None = None) -> P.PrimExpr:
        return self.as_prim(value, node, dtype)

    def as_prim(self, value, node, dtype: DataType | None = None) -> P.PrimExpr:
        if isinstance(value, (P.PrimExpr, bool, int, float)):
            return Reader.scalar(self, value, node, dtype)
        if isinstance(value, str):
            return P.StringImm(value)
        raise self.error(f"expected a scalar expression, found {pb.describe(value)}", node,
                         rule="SYN-prim-1")

    def call(self, callee, args: list, kwargs: list, node):
        if isinstance(callee, Namespace) and callee.path[0] == "T":
            return self.t_call(callee.path[1:], args, kwargs, node)
        if isinstance(callee, Namespace):
            raise self.error(f"{callee.dotted} is not part of TIR (a prim_func takes "
                             f"T.Buffer(...) parameters and T.* functions)", node,
                             rule="SYN-call-3")
        return super().call(callee, args, kwargs, node)

    def t_call(self, path: tuple, args: list, kwargs: list, node):
        if path in (("Buffer",), ("buffer",)):
            return self.buffer_decl("", args, kwargs, node, "param")
        return self.prim_function(path, args, kwargs, node)

    def let_annotation(self, node) -> DataType | None:
        """The dtype of ``x: ANN = value``, a LetStmt (SYN-tir-6): ``T.int32``, or TVM's
        explicit ``T.let[T.int32]`` / ``T.let[T.int32()]``; bare ``T.let`` takes the
        value's dtype (None)."""
        if isinstance(node, Tree) and node.data == "getitem" and \
                self._path_of(node.children[0]) == ("T", "let"):
            subs = [c for c in node.children[1].children if c is not None]
            inner = subs[0] if len(subs) == 1 else None
            if isinstance(inner, Tree) and inner.data == "call" and inner.children[1] is None:
                inner = inner.children[0]  # T.let[T.int32()] names the type as T.int32 does
            path = self._path_of(inner)
            if path is None or len(path) != 2 or path[0] != "T":
                raise self.error("T.let[...] takes a dtype such as T.int32", node,
                                 rule="SYN-tir-6")
            return self.dtype_of(path[1], inner)
        ann = self.value(node)
        if ann == Namespace(("T", "let")):
            return None
        if isinstance(ann, Namespace) and len(ann.path) == 2 and ann.path[0] == "T":
            return self.dtype_of(ann.path[1], node)
        raise self.error("a TIR variable's annotation is a dtype such as T.int32 or "
                         "T.let[T.int32]", node, rule="SYN-tir-6")

    def _path_of(self, node) -> tuple | None:
        if isinstance(node, Tree) and node.data in ("name", "getattr"):
            try:
                return tuple(self.dotted_name(node).split("."))
            except ParseError:
                return None
        return None

    def _callee_path(self, node) -> tuple | None:
        if isinstance(node, Tree) and node.data == "call":
            try:
                return tuple(self.dotted_name(node.children[0]).split("."))
            except Exception:
                return None
        return None


# Function attributes the earlier dialect spells under ``tir.`` (SYN-tir-14).
_CLASSIC_ATTR_KEYS = {"tir.noalias": "tirx.noalias", "tir.is_scheduled": "tirx.is_scheduled",
                      "tir.is_entry_func": "tirx.is_entry_func"}


def _canonical_func_attrs(attrs: rx.Attrs) -> rx.Attrs:
    return rx.Attrs(tuple((_CLASSIC_ATTR_KEYS.get(k, k), v) for k, v in attrs.items))


@dataclass(frozen=True)
class _LocalScalar:
    """A name bound to a mutable local scalar (SYN-tir-16)."""

    buffer: tir.Buffer


def _is_let_annotation(node, reader: "TirReader") -> bool:
    """``T.let`` or ``T.let[...]``: an immutable binding whatever follows."""
    if isinstance(node, Tree) and node.data == "getitem":
        node = node.children[0]
    return reader._path_of(node) == ("T", "let")


def _assigned_later(name: str, stmts: list) -> bool:
    """Whether a later statement assigns ``name`` again (``name = v``, ``name += v``)."""
    for stmt in stmts:
        for sub in ([stmt] if not isinstance(stmt, Tree) else stmt.iter_subtrees()):
            if isinstance(sub, Tree) and sub.data in ("assign", "aug_assign"):
                target = sub.children[0]
                if isinstance(target, Tree) and target.data == "name" and \
                        str(target.children[0]) == name:
                    return True
    return False


class _TakesRest:
    """A statement that took the rest of its suite as its body."""

    def __init__(self, stmt: tir.Stmt):
        self.stmt = stmt


def _rename_buffer(buf: tir.Buffer, name: str) -> tir.Buffer:
    return tir.Buffer(name, buf.shape, buf.dtype, buf.data, buf.strides, buf.elem_offset,
                      buf.scope, buf.align, buf.offset_factor, buf.axis_separators,
                      span=buf.span)


def buffer_data(buf: tir.Buffer) -> P.Var:
    """SYN-tir-data-1: ``A.data``, the handle of A's memory. In TVM every buffer has one;
    a buffer declared without ``data=`` (a parameter's ``T.Buffer``, a
    ``T.sblock_alloc_buffer``) gets its own handle variable at the first ``.data`` read,
    kept on the buffer so that every read is the same variable. The buffer is still
    being read (nothing outside this parse holds it) and nodes hash by identity, so
    completing it here changes no key; its declaration still prints without ``data=``
    and the variable prints as ``A.data``."""
    if buf.data is None:
        object.__setattr__(buf, "data", P.Var(buf.name, HANDLE, span=buf.span))
    return buf.data
