"""Reading ``@R.function`` definitions (spec/syntax.md, section "Relax functions").

Each Relax function has its own symbolic variables: a module-level ``n = TypeVar("n")``
only declares the name, and the first use of ``n`` inside a function creates that
function's variable (DESIGN.md section 3.1). Nested functions see their parent's.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import replace

import numpy as np
from lark import Tree

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.call_kinds import call_kind
from relax_ref.ir.dtype import INT64, DataType, parse_dtype

from .syntax import statements
from .relax_annotations import Annotations, _describe, alloc_tensor_struct_info
from .scope import ModuleEnv, ModuleRef, Namespace, special_float

# Keywords that carry the struct info of a call's result (``Call.sinfo_args``).
SINFO_KEYWORDS = ("out_ty", "out_sinfo", "sinfo_args", "ty_args")
# Names under R. that build struct info.
SINFO_CONSTRUCTORS = ("Tensor", "Shape", "Prim", "Tuple", "Object", "Any", "Callable")


def build_relax_function(funcdef: Tree, decorators: list[Tree], env: ModuleEnv,
                         parent: "RelaxReader | None" = None) -> rx.Function:
    reader = RelaxReader(env, parent)
    return reader.function(funcdef, decorators)


class RelaxReader(Annotations):
    default_int = INT64

    def __init__(self, env: ModuleEnv, parent: "RelaxReader | None" = None):
        super().__init__(env)
        if parent is None:
            self.sym_vars: ChainMap = ChainMap()
            self.scope: ChainMap = ChainMap()
        else:
            self.sym_vars = parent.sym_vars.new_child()
            self.scope = parent.scope.new_child()
        self.declared_syms: set[str] = set()  # names declared by ``n = T.int64()``
        self.aliases: set[str] = set()  # names bound to the module (``cls = Module``)
        self.attrs = rx.EMPTY_ATTRS
        self.in_dataflow = False
        self.shape_mode = False  # names resolve to symbolic variables first

    # -- functions ---------------------------------------------------------------------
    def function(self, funcdef: Tree, decorators: list[Tree]) -> rx.Function:
        name_tok, params_node, ret_node, suite = funcdef.children
        pure, private = self.decorator_options(decorators)
        params = []
        seen = set()
        if params_node is not None:
            for p in params_node.children:
                if p is None:
                    continue
                pname = str(p.children[0])
                if pname in seen:
                    raise self.error(f"parameter {pname!r} is given twice", p, rule="SYN-func-2")
                seen.add(pname)
                if p.children[1] is None:
                    raise self.error(f"parameter {pname!r} needs an annotation", p,
                                     rule="SYN-func-2")
                sinfo = self.struct_info(p.children[1], param_name=pname)
                params.append(rx.Var(pname, sinfo, span=self.ctx.span(p)))
        for v in params:
            self.scope[v.name_hint] = v
        if isinstance(ret_node, Tree) and ret_node.data == "none":
            ret_node = None  # ``-> None`` leaves the result to deduction, as in TVM
        ret = self.struct_info(ret_node) if ret_node is not None else None
        body = self.body(suite, funcdef)
        return rx.Function(tuple(params), body, ret, is_pure=pure, attrs=self.attrs,
                           is_private=private, span=self.ctx.span(funcdef))

    def decorator_options(self, decorators: list[Tree]) -> tuple[bool, bool]:
        pure, private = True, False
        dec = decorators[0] if decorators else None
        if isinstance(dec, Tree) and dec.data == "call":
            args, kwargs = self.split_args(dec.children[1])
            if args:
                raise self.error("@R.function takes only keyword options", args[0],
                                 rule="SYN-func-1")
            for key, vnode in kwargs:
                value = self.value(vnode)
                if key not in ("pure", "private", "check_well_formed") or not isinstance(value, bool):
                    raise self.error(f"unknown option {key}={value!r} of @R.function "
                                     f"(expected pure=, private= with True or False)", vnode,
                                     rule="SYN-func-1")
                if key == "pure":
                    pure = value
                elif key == "private":
                    private = value
        return pure, private

    # -- statements ---------------------------------------------------------------------
    def body(self, suite: Tree, owner: Tree) -> rx.SeqExpr:
        stmts = statements(suite)
        blocks: list[rx.BindingBlock] = []
        bindings: list[rx.Binding] = []
        result = None
        for i, stmt in enumerate(stmts):
            if result is not None:
                raise self.error("statements after return", stmt, rule="SYN-relax-1")
            kind = stmt.data
            if kind == "return_stmt":
                if stmt.children[0] is None:
                    raise self.error("a Relax function must return a value", stmt,
                                     rule="SYN-relax-1")
                result = self.expr(stmt.children[0])
            elif kind == "with_stmt":
                self._check_dataflow_head(stmt)
                if self.in_dataflow:
                    raise self.error("dataflow blocks cannot nest", stmt, rule="SYN-relax-2")
                if bindings:
                    blocks.append(rx.BindingBlock(tuple(bindings)))
                    bindings = []
                blocks.append(self.dataflow_block(stmt))
            else:
                self.statement(stmt, bindings)
        if result is None:
            raise self.error("a Relax function body must end with `return`", owner,
                             rule="SYN-relax-1")
        if bindings:
            blocks.append(rx.BindingBlock(tuple(bindings)))
        return rx.SeqExpr(tuple(blocks), result, span=self.ctx.span(suite))

    def statement(self, stmt: Tree, bindings: list, dataflow_outputs: set | None = None) -> None:
        """One statement of a binding block: appends zero or more bindings."""
        kind = stmt.data
        if kind in ("assign", "ann_assign"):
            self.assignment(stmt, bindings, dataflow_outputs)
        elif kind == "expr_stmt":
            value_node = stmt.children[0]
            if isinstance(value_node, Tree) and value_node.data == "strings":
                return  # a docstring
            callee = self.dotted(value_node.children[0]) if value_node.data == "call" else None
            if callee == "R.func_attr":
                self.func_attr(value_node)
                return
            if callee == "R.output":
                raise self.error("R.output may only end a dataflow block", stmt,
                                 rule="SYN-relax-3")
            value = self.expr(value_node)
            # Emitted in a dataflow block, the statement's variable is a DataflowVar, as
            # TVM's R.emit makes it (SYN-relax-4).
            var_cls = rx.Var
            if dataflow_outputs is not None and "_" not in dataflow_outputs:
                var_cls = rx.DataflowVar
            var = var_cls("_", None, span=self.ctx.span(stmt))
            bindings.append(rx.VarBinding(var, value, span=self.ctx.span(stmt)))
        elif kind == "if_stmt":
            bindings.append(self.if_binding(stmt, dataflow_outputs))
        elif kind == "decorated":
            bindings.append(self.local_function(stmt, dataflow_outputs))
        elif kind == "pass_stmt":
            return
        elif kind == "aug_assign":
            raise self.error(f"`{stmt.children[1]}` is not part of a Relax function: bindings "
                             f"are immutable; bind a new name (y = R.add(x, 1))", stmt,
                             rule="SYN-relax-1")
        elif kind == "simple_stmt":
            for small in stmt.children:
                if small is not None:
                    self.statement(small, bindings, dataflow_outputs)
        else:
            raise self.error("this statement is not part of a Relax function", stmt,
                             rule="SYN-relax-1")

    def assignment(self, stmt: Tree, bindings: list, dataflow_outputs: set | None) -> None:
        if stmt.data == "assign":
            target, value_node = stmt.children
            ann_node = None
        else:
            target, ann_node, value_node = stmt.children
            if value_node is None:
                raise self.error("an annotation needs a value: `x: R.Tensor(...) = value`",
                                 stmt, rule="SYN-relax-4")
        # Declarations of symbolic variables, which bind no Relax variable (SYN-sym-2).
        decls = self.declarations(target, value_node) if ann_node is None else None
        if decls is not None:
            for name, dtype, node in decls:
                if dtype is None:
                    self.bind_meta(name, node)
                else:
                    self.declare_sym(name, dtype, node)
            return
        if not (isinstance(target, Tree) and target.data == "name"):
            raise self.error("the left side of a Relax binding must be one name", target,
                             rule="SYN-relax-4")
        name = str(target.children[0])
        if ann_node is None and isinstance(value_node, Tree) and value_node.data == "name" \
                and str(value_node.children[0]) in (self.env.module_name, "cls") \
                and not self._is_relax_name(str(value_node.children[0])):
            self.aliases.add(name)
            return
        ann = self.struct_info(ann_node) if ann_node is not None else None
        var_cls = rx.Var
        if dataflow_outputs is not None and name not in dataflow_outputs:
            var_cls = rx.DataflowVar
        span = self.ctx.span(stmt)
        if isinstance(value_node, Tree) and value_node.data == "call" and \
                self.dotted(value_node.children[0]) == "R.match_cast":
            args, kwargs = self.split_args(value_node.children[1])
            if len(args) != 2 or kwargs:
                raise self.error("R.match_cast takes (value, struct_info)", value_node,
                                 rule="SYN-relax-5")
            value = self.expr(args[0])
            cast_to = self.struct_info(args[1])
            var = var_cls(name, ann if ann is not None else cast_to, span=span)
            bindings.append(rx.MatchCast(var, value, cast_to, span=span))
        else:
            if isinstance(value_node, Tree) and value_node.data in ("decorated",):
                raise self.error("unexpected function", value_node, rule="SYN-relax-4")
            value = self.expr(value_node)
            var = var_cls(name, ann, span=span)
            bindings.append(rx.VarBinding(var, value, span=span))
        self.scope[name] = var

    def dataflow_block(self, stmt: Tree) -> rx.DataflowBlock:
        stmts = statements(stmt.children[2])
        if not stmts:
            raise self.error("empty dataflow block", stmt, rule="SYN-relax-3")
        last = stmts[-1]
        outputs: list[str] = []
        if _is_call_stmt(last, "R.output", self):
            call = last.children[0]
            args, kwargs = self.split_args(call.children[1])
            for a in args:
                if not (isinstance(a, Tree) and a.data == "name"):
                    raise self.error("R.output takes variable names", a, rule="SYN-relax-3")
                outputs.append(str(a.children[0]))
            stmts = stmts[:-1]
        self.in_dataflow = True
        bindings: list[rx.Binding] = []
        try:
            for s in stmts:
                if s.data == "with_stmt":
                    raise self.error("dataflow blocks cannot nest", s, rule="SYN-relax-2")
                if s.data == "return_stmt":
                    raise self.error("return inside a dataflow block", s, rule="SYN-relax-3")
                self.statement(s, bindings, set(outputs))
        finally:
            self.in_dataflow = False
        bound = {b.var.name_hint for b in bindings}
        for name, a in zip(outputs, _call_arg_nodes(last)):
            if name not in bound:
                raise self.error(f"R.output names {name!r}, which this dataflow block does "
                                 f"not bind", a, rule="SYN-relax-3")
        # DataflowVars are local to the block: they leave scope at its end.
        for b in bindings:
            if isinstance(b.var, rx.DataflowVar) and self.scope.get(b.var.name_hint) is b.var:
                del self.scope[b.var.name_hint]
        return rx.DataflowBlock(tuple(bindings), span=self.ctx.span(stmt))

    def if_binding(self, stmt: Tree, dataflow_outputs: set | None) -> rx.VarBinding:
        cond_node, then_suite, elifs, else_suite = stmt.children
        if elifs is not None and elifs.children:
            raise self.error("elif is not part of Relax; nest an if inside else", elifs.children[0],
                             rule="SYN-relax-6")
        if else_suite is None:
            raise self.error("an if in a Relax function needs an else branch", stmt,
                             rule="SYN-relax-6")
        cond = self.expr(cond_node)
        then_seq, then_name, then_ann = self.branch(then_suite, dataflow_outputs, "then")
        else_seq, else_name, else_ann = self.branch(else_suite, dataflow_outputs, "else")
        if then_name != else_name:
            raise self.error(f"both branches of an if must end by assigning the same variable "
                             f"(then assigns {then_name!r}, else assigns {else_name!r})", stmt,
                             rule="SYN-relax-6")
        ann = then_ann if then_ann is not None else else_ann
        var_cls = rx.Var
        if dataflow_outputs is not None and then_name not in dataflow_outputs:
            var_cls = rx.DataflowVar
        span = self.ctx.span(stmt)
        var = var_cls(then_name, ann, span=span)
        self.scope[then_name] = var
        return rx.VarBinding(var, rx.If(cond, then_seq, else_seq, span=span), span=span)

    def branch(self, suite: Tree, dataflow_outputs: set | None, side: str):
        """One branch of an if: binding blocks and dataflow blocks (when the if is not
        itself inside a dataflow block), then the assignment of the result. A result
        given by ``R.match_cast`` is bound in the branch to ``NAME_then`` /
        ``NAME_else`` (TVM's names), which is then the branch's value."""
        stmts = statements(suite)
        outer = self.scope
        self.scope = outer.new_child()
        try:
            if not stmts or stmts[-1].data not in ("assign", "ann_assign", "with_stmt",
                                                   "expr_stmt"):
                raise self.error("each branch of an if must end by assigning its result to a "
                                 "variable", stmts[-1] if stmts else suite, rule="SYN-relax-6")
            last = stmts[-1]
            ends_in_statement = last.data in ("with_stmt", "expr_stmt")
            blocks: list[rx.BindingBlock] = []
            bindings: list[rx.Binding] = []
            for s in (stmts if ends_in_statement else stmts[:-1]):
                if s.data == "return_stmt":
                    raise self.error("return inside an if branch is not part of Relax", s,
                                     rule="SYN-relax-6")
                if s.data == "with_stmt":
                    if dataflow_outputs is not None or self.in_dataflow:
                        raise self.error("dataflow blocks cannot nest", s, rule="SYN-relax-2")
                    self._check_dataflow_head(s)
                    if bindings:
                        blocks.append(rx.BindingBlock(tuple(bindings)))
                        bindings = []
                    blocks.append(self.dataflow_block(s))
                    continue
                self.statement(s, bindings, dataflow_outputs)
            if ends_in_statement:
                return self._branch_ending_in_statement(last, blocks, bindings, suite, side)
            target = last.children[0]
            if not (isinstance(target, Tree) and target.data == "name"):
                raise self.error("the left side of a Relax binding must be one name", target,
                                 rule="SYN-relax-4")
            ann = None
            if last.data == "ann_assign":
                ann = self.struct_info(last.children[1])
                value_node = last.children[2]
                if value_node is None:
                    raise self.error("an annotation needs a value", last, rule="SYN-relax-4")
            else:
                value_node = last.children[1]
            name = str(target.children[0])
            if isinstance(value_node, Tree) and value_node.data == "call" and \
                    self.dotted(value_node.children[0]) == "R.match_cast":
                inner = Tree("assign", [Tree("name", [f"{name}_{side}"]), value_node],
                             meta=last.meta)
                self.assignment(inner, bindings, dataflow_outputs)
                body = bindings[-1].var
            else:
                body = self.expr(value_node)
            if bindings:
                blocks.append(rx.BindingBlock(tuple(bindings)))
            return rx.SeqExpr(tuple(blocks), body, span=self.ctx.span(suite)), name, ann
        finally:
            self.scope = outer

    def _branch_ending_in_statement(self, last: Tree, blocks: list, bindings: list,
                                    suite: Tree, side: str):
        """SYN-relax-6, TVM's other two branch endings. A branch that ends in an
        expression statement (``R.print(...)``) has that statement's value as its result,
        and the if binds ``_``. A branch that ends in a dataflow block has the block's last
        binding as its result: that binding must be an output, it is renamed ``NAME_then``
        / ``NAME_else`` (TVM's names) and the if binds ``NAME``."""
        if last.data == "expr_stmt":
            if not bindings or bindings[-1].var.name_hint != "_":
                raise self.error("each branch of an if must end by assigning its result to a "
                                 "variable", last, rule="SYN-relax-6")
            blocks.append(rx.BindingBlock(tuple(bindings)))
            return rx.SeqExpr(tuple(blocks), bindings[-1].var, span=self.ctx.span(suite)), \
                "_", None
        block = blocks[-1] if blocks and not bindings else None
        tail = block.bindings[-1] if isinstance(block, rx.DataflowBlock) and block.bindings \
            else None
        if tail is None or isinstance(tail.var, rx.DataflowVar):
            raise self.error("a branch that ends in a dataflow block takes the block's last "
                             "binding as its result, which must be one of its R.output "
                             "variables", last, rule="SYN-relax-6")
        name = tail.var.name_hint
        renamed = rx.Var(f"{name}_{side}", tail.var.struct_info, span=tail.var.span)
        blocks[-1] = rx.DataflowBlock(block.bindings[:-1] + (replace(tail, var=renamed),),
                                      span=block.span)
        return rx.SeqExpr(tuple(blocks), renamed, span=self.ctx.span(suite)), name, None

    def _check_dataflow_head(self, stmt: Tree) -> None:
        """SYN-relax-2: the only `with` is `with R.dataflow():`."""
        head = stmt.children[0]
        if not (isinstance(head, Tree) and head.data == "call"
                and self.dotted(head.children[0]) == "R.dataflow"
                and head.children[1] is None) or stmt.children[1] is not None:
            raise self.error("only `with R.dataflow():` blocks may appear in a Relax "
                             "function", stmt, rule="SYN-relax-2")

    def local_function(self, stmt: Tree, dataflow_outputs: set | None) -> rx.VarBinding:
        decorators = [d.children[0] for d in stmt.children[:-1]]
        target = stmt.children[-1]
        if target.data != "funcdef" or len(decorators) != 1 or \
                (self.dotted(decorators[0]) or self.dotted(getattr(decorators[0], "children", [None])[0])) \
                != "R.function":
            raise self.error("only @R.function may be defined inside a Relax function", stmt,
                             rule="SYN-relax-7")
        name = str(target.children[0])
        var_cls = rx.DataflowVar if (dataflow_outputs is not None and name not in dataflow_outputs) else rx.Var
        # The function's own name is in scope in its body, so it may recurse (SI-fn-local-1).
        var = var_cls(name, None, span=self.ctx.span(target))
        self.scope[name] = var
        inner = RelaxReader(self.env, self)
        inner.aliases = set(self.aliases)
        func = inner.function(target, decorators)
        return rx.VarBinding(var, func, span=self.ctx.span(stmt))

    def func_attr(self, call: Tree) -> None:
        args, kwargs = self.split_args(call.children[1])
        if len(args) != 1 or kwargs:
            raise self.error("R.func_attr takes one dict", call, rule="SYN-relax-8")
        value = self.attr_value(args[0])
        if not isinstance(value, rx.Attrs):
            raise self.error("R.func_attr takes a dict", args[0], rule="SYN-relax-8")
        self.attrs = rx.Attrs(self.attrs.items + value.items)

    # -- names ---------------------------------------------------------------------------
    def _is_relax_name(self, name: str) -> bool:
        return name in self.scope

    def declare_sym(self, name: str, dtype: DataType, node) -> P.Var:
        if name in self.declared_syms:
            raise self.error(f"symbolic variable {name!r} is declared twice", node,
                             rule="SYN-sym-1")
        existing = self.sym_vars.maps[0].get(name)
        if existing is not None:
            # Already created by a use in the signature ("n" or a TypeVar name).
            if existing.dtype != dtype:
                raise self.error(f"symbolic variable {name!r} is used as {existing.dtype} "
                                 f"but declared as {dtype}", node, rule="SYN-sym-1")
            self.declared_syms.add(name)
            return existing
        var = P.Var(name, dtype, span=self.ctx.span(node))
        self.sym_vars[name] = var
        self.declared_syms.add(name)
        return var

    def sym(self, name: str, node, create: bool) -> P.Var | None:
        var = self.sym_vars.get(name)
        if var is None and (create or name in self.env.type_vars):
            var = P.Var(name, INT64, span=self.ctx.span(node))
            self.sym_vars[name] = var
        return var

    def lookup(self, name: str, node):
        if self.shape_mode:
            var = self.sym(name, node, create=False)
            if var is not None:
                return var
        if name in self.scope:
            return self.scope[name]
        var = self.sym(name, node, create=False)
        if var is not None:
            return var
        if name in self.aliases:
            return ModuleRef()
        return super().lookup(name, node)

    def dotted(self, node) -> str | None:
        if isinstance(node, Tree) and node.data in ("name", "getattr"):
            try:
                return self.dotted_name(node)
            except Exception:
                return None
        return None

    # -- Relax expressions ---------------------------------------------------------------
    def expr(self, node) -> rx.Expr:
        return self.to_expr(self.value(node), node)

    def to_expr(self, value, node) -> rx.Expr:
        span = self.ctx.span(node)
        if isinstance(value, rx.Expr):
            return value
        if isinstance(value, P.PrimExpr):
            return rx.PrimValue(value, span=span)
        if isinstance(value, (bool, int, float)):
            return rx.PrimValue(self.to_prim(value, node), span=span)
        if isinstance(value, str):
            return rx.StringImm(value, span=span)
        if isinstance(value, (tuple, list)):
            return rx.Tuple(tuple(self.to_expr(v, node) for v in value), span=span)
        if isinstance(value, DataType):
            return rx.DataTypeImm(value, span=span)
        raise self.error(f"expected a Relax value, found {_describe(value)}", node,
                         rule="SYN-expr-1")

    def binary(self, op: str, a, b, node):
        """Operators on tensors call the Relax op of that name (``x + y`` is
        ``R.add(x, y)``); on scalars they build symbolic expressions."""
        if _is_tensorish(a) or _is_tensorish(b):
            name = _RELAX_BINARY_OPS.get(op)
            if name is None:
                raise self.error(f"operator {op!r} is not defined on Relax values", node,
                                 rule="SYN-expr-2")
            return rx.Call(rx.Op(f"relax.{name}"), (self.to_expr(a, node), self.to_expr(b, node)),
                           span=self.ctx.span(node))
        return super().binary(op, a, b, node)

    def unary(self, op: str, a, node):
        if _is_tensorish(a) and op == "-":
            return rx.Call(rx.Op("relax.negative"), (a,), span=self.ctx.span(node))
        return super().unary(op, a, node)

    def attribute(self, base, name: str, node):
        """``x.struct_info`` (or ``x.ty``, TVM's newer name) of a Relax variable is its
        annotation (SYN-expr-4)."""
        if isinstance(base, rx.Var) and name in ("struct_info", "ty"):
            if base.struct_info is None:
                raise self.error(f"{base.name_hint!r} has no annotation to take", node,
                                 rule="SYN-expr-4")
            return base.struct_info
        return super().attribute(base, name, node)

    def subscript(self, base, subs: list, node):
        if isinstance(base, rx.Expr) and not isinstance(base, (rx.GlobalVar, rx.Op)):
            if len(subs) != 1:
                raise self.error("a tuple is indexed by one integer", node, rule="SYN-expr-3")
            index = self.value(subs[0])
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error("a tuple index must be an integer literal", subs[0],
                                 rule="SYN-expr-3")
            return rx.TupleGetItem(base, index, span=self.ctx.span(node))
        if isinstance(base, (tuple, list)) and len(subs) == 1:
            index = self.value(subs[0])
            if isinstance(index, int) and -len(base) <= index < len(base):
                return base[index]
        return super().subscript(base, subs, node)

    def call(self, callee, args: list, kwargs: list, node):
        span = self.ctx.span(node)
        if isinstance(callee, Namespace):
            path = callee.path
            if path[0] == "R" and len(path) >= 2:
                return self.r_call(".".join(path[1:]), args, kwargs, node)
            if path[0] == "T" and len(path) == 2:
                return self.t_call(path[1], args, kwargs, node)
            if path[0] == "tvm" and len(path) == 2 and path[1] in _TVM_DEVICES:
                return self.device_call(path[1], args, kwargs, node)
            raise self.error(f"unknown function {callee.dotted}", node, rule="SYN-call-3")
        if isinstance(callee, (rx.GlobalVar, rx.Var, rx.ExternFunc)):
            if kwargs:
                raise self.error("calls of functions take no keyword arguments", node,
                                 rule="SYN-call-1")
            return rx.Call(callee, tuple(self.expr(a) for a in args), span=span)
        raise self.error(f"{_describe(callee)} cannot be called", node, rule="SYN-call-2")

    def device_call(self, kind: str, args: list, kwargs: list, node) -> rx.Call:
        """``tvm.cpu(0)``, ``tvm.cuda(1)``: the device that TVM prints as
        ``R.device(device_type=1, index=0)`` (SYN-relax-9)."""
        index_node = args[0] if args else dict(kwargs).get("dev_id")
        if len(args) > 1 or any(k != "dev_id" for k, _ in kwargs):
            raise self.error(f"tvm.{kind} takes the device index", node, rule="SYN-relax-9")
        index = self.value(index_node) if index_node is not None else 0
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise self.error(f"the device index of tvm.{kind} is a non-negative integer", node,
                             rule="SYN-relax-9")
        attrs = rx.Attrs((("device_type", _TVM_DEVICES[kind]), ("index", index)))
        return rx.Call(rx.Op("relax.device"), (), attrs, (), span=self.ctx.span(node))

    def t_call(self, name: str, args: list, kwargs: list, node):
        """``T.int64(5)``, ``T.Cast``, ``T.max`` and the like inside Relax: scalar
        expressions, built by the rules TIR uses (Reader.prim_function)."""
        return self.prim_function((name,), args, kwargs, node)

    def r_call(self, name: str, args: list, kwargs: list, node):
        span = self.ctx.span(node)
        head = name.split(".")[-1] if "." not in name else None
        if name in SINFO_CONSTRUCTORS:
            return self.sinfo_call(name, args, kwargs, node)
        if name == "const":
            return self.const(args, kwargs, node)
        if name in ("emit_te", "emit_te_with_grad"):
            raise self.error(f"R.{name} builds a PrimFunc from a TE compute by running Python "
                             f"(topi); relax_ref reads no TE: write the PrimFunc with "
                             f"@T.prim_func and call it with R.call_tir", node,
                             rule="SYN-relax-9")
        if name in ("shape", "ShapeExpr"):  # R.ShapeExpr([n]) is TVM's constructor of R.shape
            if len(args) != 1 or kwargs:
                raise self.error("R.shape takes one list of dimensions", node, rule="SYN-relax-9")
            dims = self.shape_dims(args[0])
            if dims is None:
                raise self.error("R.shape needs a list of dimensions", node, rule="SYN-relax-9")
            return rx.ShapeExpr(dims, span=span)
        if name == "prim_value":
            if len(args) != 1 or kwargs:
                raise self.error("R.prim_value takes one value", node, rule="SYN-relax-9")
            return rx.PrimValue(self.prim_from_node(args[0], define=False), span=span)
        if name == "str":
            value = self.value(args[0]) if len(args) == 1 and not kwargs else None
            if not isinstance(value, str):
                raise self.error("R.str takes one string", node, rule="SYN-relax-9")
            return rx.StringImm(value, span=span)
        if name == "dtype":
            if len(args) != 1 or kwargs:
                raise self.error("R.dtype takes one dtype string", node, rule="SYN-relax-9")
            return rx.DataTypeImm(self.dtype_arg(args[0]), span=span)
        if name == "tuple":
            if kwargs:
                raise self.error("R.tuple takes only fields", node, rule="SYN-relax-9")
            return rx.Tuple(tuple(self.expr(a) for a in args), span=span)
        if name == "ExternFunc":
            # R.ExternFunc("name"[, struct_info]): the struct info is a R.Callable
            value = self.value(args[0]) if 1 <= len(args) <= 2 and not kwargs else None
            if not isinstance(value, str):
                raise self.error("R.ExternFunc takes the function's name and optionally its "
                                 "R.Callable annotation", node, rule="SYN-relax-9")
            sinfo = self.struct_info(args[1]) if len(args) == 2 else None
            if sinfo is not None and not isinstance(sinfo, si.FuncStructInfo):
                raise self.error("the annotation of R.ExternFunc is a R.Callable", args[1],
                                 rule="SYN-relax-9")
            return rx.ExternFunc(value, sinfo, span=span)
        if name in ("match_cast", "output", "func_attr", "dataflow", "function"):
            raise self.error(f"R.{name} cannot be used as a value here", node, rule="SYN-relax-10")
        attrs, sinfo_args = self.keyword_args(kwargs, node)
        if name == "call_packed":
            if not args:
                raise self.error("R.call_packed takes the function's name first", node,
                                 rule="SYN-relax-9")
            fname = self.value(args[0])
            if not isinstance(fname, str):
                raise self.error("R.call_packed takes the function's name (a string) first",
                                 args[0], rule="SYN-relax-9")
            callee = rx.ExternFunc(fname, span=self.ctx.span(args[0]))
            return rx.Call(callee, tuple(self.expr(a) for a in args[1:]), attrs, sinfo_args,
                           span=span)
        kind = call_kind(name)  # how the operands are written (ir/call_kinds.py)
        if kind.named_callee:
            if not args:
                raise self.error(f"R.{name} takes the function's name first", node,
                                 rule="SYN-relax-9")
            first = self.value(args[0])
            callee = rx.ExternFunc(first, span=self.ctx.span(args[0])) if isinstance(first, str) \
                else self.to_expr(first, args[0])
            rest = tuple(self.expr(a) for a in args[1:])
            return rx.Call(rx.Op(f"relax.{name}"), (callee,) + rest, attrs, sinfo_args, span=span)
        if kind.dps:
            return self.dps_call(name, args, kwargs, node)
        exprs = tuple(self.expr(a) for a in args)
        if kind.format_position is not None:
            return self.format_call(name, exprs, attrs, sinfo_args, node)
        if name == "builtin.alloc_tensor" and not sinfo_args:
            # ty_args may be omitted where the shape and dtype give it (PRINT-alloc-1).
            implied = alloc_tensor_struct_info(exprs, attrs)
            sinfo_args = (implied,) if implied is not None else ()
        return rx.Call(rx.Op(f"relax.{name}"), exprs, attrs, sinfo_args, span=span)

    def format_call(self, name: str, exprs: tuple, attrs: rx.Attrs, sinfo_args: tuple,
                    node) -> rx.Call:
        """SYN-relax-12: ``R.print(values..., format=f)`` is ``relax.print(f, values...)``
        and ``R.assert_op(cond, args..., format=f)`` is ``relax.assert_op(cond, f,
        args...)``, the format a StringImm operand ("" when not written), as TVM builds
        them; one written list or tuple of format arguments is spread."""
        extra = [k for k, _ in attrs.items if k != "format"]
        if extra or sinfo_args:
            raise self.error(f"R.{name} takes only format= as a keyword (found "
                             f"{', '.join(extra) or 'ty_args'})", node, rule="SYN-relax-12")
        fmt = attrs.get("format", "")
        if isinstance(fmt, str):
            fmt = rx.StringImm(fmt, span=self.ctx.span(node))
        if not isinstance(fmt, rx.StringImm):
            raise self.error(f"the format of R.{name} must be a string", node,
                             rule="SYN-relax-12")
        if call_kind(name).format_position == 0:  # R.print: the format, then the values
            args = (fmt,) + exprs
        else:  # R.assert_op: the condition, the format, then the format arguments
            if not exprs:
                raise self.error("R.assert_op takes a condition first", node,
                                 rule="SYN-relax-12")
            rest = exprs[1:]
            if len(rest) == 1 and isinstance(rest[0], rx.Tuple):
                rest = rest[0].fields  # a written list or tuple of format arguments
            args = (exprs[0], fmt) + tuple(rest)
        return rx.Call(rx.Op(f"relax.{name}"), args, rx.Attrs(()), (),
                       span=self.ctx.span(node))

    def keyword_args(self, kwargs: list, node) -> tuple[rx.Attrs, tuple]:
        attrs = []
        sinfo_args: tuple = ()
        for key, vnode in kwargs:
            if key in SINFO_KEYWORDS:
                value = self.value(vnode)
                if isinstance(value, (tuple, list)):
                    sinfo_args = tuple(self.to_struct_info(v, vnode) for v in value)
                else:
                    sinfo_args = (self.to_struct_info(value, vnode),)
                continue
            attrs.append((key, self.attr_value(vnode)))
        return rx.Attrs(tuple(attrs)), sinfo_args

    def dps_call(self, name: str, args: list, kwargs: list, node):
        """SYN-relax-11: ``R.call_tir(f, args, out_ty, ...)`` and the other DPS calls, each
        parameter after ``args`` positional or by keyword as TVM's Python signature allows
        (``CallKind.dps_params``)."""
        span = self.ctx.span(node)
        if not args:
            raise self.error(f"R.{name} takes the function to call first", node, rule="SYN-relax-11")
        params = call_kind(name).dps_params
        if len(args) > 2 + len(params):
            raise self.error(f"too many arguments to R.{name}: it takes (func, args, "
                             f"{', '.join(params)})", args[2 + len(params)], rule="SYN-relax-11")
        named = list(kwargs)
        for param, anode in zip(params, args[2:]):
            spellings = SINFO_KEYWORDS if param == "out_ty" else (param,)
            if any(k in spellings for k, _ in kwargs):
                raise self.error(f"{param} of R.{name} given twice (by position and by keyword)",
                                 anode, rule="SYN-relax-11")
            named.append((param, anode))
        attrs, sinfo_args = self.keyword_args(named, node)
        first = self.value(args[0])
        if isinstance(first, str):
            callee = rx.ExternFunc(first, span=self.ctx.span(args[0]))
        elif isinstance(first, (rx.GlobalVar, rx.Var, rx.ExternFunc)):
            callee = first
        else:
            raise self.error(f"R.{name} calls a function of the module (cls.f) or an "
                             f"external function by name", args[0], rule="SYN-relax-11")
        operands = self.value(args[1]) if len(args) > 1 else ()
        if isinstance(operands, rx.Tuple):
            pass
        elif isinstance(operands, (tuple, list)):
            operands = rx.Tuple(tuple(self.to_expr(v, args[1]) for v in operands),
                                span=self.ctx.span(args[1]))
        else:
            operands = self.to_expr(operands, args[1])
            if operands.struct_info is not None and \
                    not isinstance(operands.struct_info, si.TupleStructInfo):
                # One argument that is not a tuple is the tuple of it, as TVM's
                # _wrap_inline_arg_tuple makes it (SYN-relax-11).
                operands = rx.Tuple((operands,), span=self.ctx.span(args[1]))
        call_args = [callee, operands]
        tir_vars = attrs.get("tir_vars")
        if tir_vars is not None:
            attrs = attrs.without("tir_vars")
            call_args.append(tir_vars if isinstance(tir_vars, rx.Expr) else self.to_expr(tir_vars, node))
        if not sinfo_args:
            raise self.error(f"R.{name} needs the output's struct info (out_ty=...)", node,
                             rule="SYN-relax-11")
        return rx.Call(rx.Op(f"relax.{name}"), tuple(call_args), attrs, sinfo_args, span=span)

    def const(self, args: list, kwargs: list, node) -> rx.Constant:
        kw = dict(kwargs)
        self._check_keywords(kw, ("value", "dtype"), "R.const", node)
        value_node = args[0] if args else kw.get("value")
        dtype_node = args[1] if len(args) > 1 else kw.get("dtype")
        if value_node is None or len(args) > 2:
            raise self.error("R.const takes (value, dtype)", node, rule="SYN-const-1")
        value = self.value(value_node)
        if isinstance(value, rx.Constant):
            return value
        value = self._special_floats(value, value_node)
        dtype = self.dtype_arg(dtype_node) if dtype_node is not None else None
        data = _constant_array(value, dtype)
        if isinstance(data, str):
            raise self.error(data, value_node, rule="SYN-const-1")
        return rx.Constant(data, span=self.ctx.span(node))

    def _special_floats(self, value, node):
        """SYN-const-1: the strings "nan", "inf" and "-inf" in an R.const value are those
        floats, as TVM's R.const reads them through NumPy; other strings are errors."""
        if isinstance(value, str):
            return special_float(value, node, self)
        if isinstance(value, (tuple, list)):
            return type(value)(self._special_floats(v, node) for v in value)
        return value

    def namespace_attr(self, value: Namespace, node):
        if value.path in (("R", "Tensor"), ("R", "Object"), ("R", "Any"), ("R", "Shape")):
            return self.to_struct_info(value, node)
        return super().namespace_attr(value, node)


# tvm.<kind>(index) -> TVM's DLPack device type (python/tvm/runtime/_tensor.py).
_TVM_DEVICES = {"cpu": 1, "cuda": 2, "gpu": 2, "opencl": 4, "vulkan": 7, "metal": 8,
                "rocm": 10}

_RELAX_BINARY_OPS = {
    "+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
    "%": "floor_mod", "**": "power", "<": "less", "<=": "less_equal", ">": "greater",
    ">=": "greater_equal", "==": "equal", "!=": "not_equal", "&": "bitwise_and",
    "|": "bitwise_or", "^": "bitwise_xor", "<<": "left_shift", ">>": "right_shift",
}


def _is_tensorish(v) -> bool:
    """A Relax value that is not a scalar usable in a symbolic expression."""
    if isinstance(v, rx.Var):
        return not (isinstance(v.struct_info, si.PrimStructInfo) and v.struct_info.value is not None)
    return isinstance(v, (rx.Call, rx.Constant, rx.TupleGetItem))


def _is_call_stmt(stmt: Tree, dotted: str, reader: RelaxReader) -> bool:
    return (stmt.data == "expr_stmt" and isinstance(stmt.children[0], Tree)
            and stmt.children[0].data == "call"
            and reader.dotted(stmt.children[0].children[0]) == dotted)


def _call_arg_nodes(stmt: Tree) -> list:
    if stmt.data != "expr_stmt":
        return []
    call = stmt.children[0]
    arglist = call.children[1] if isinstance(call, Tree) and call.data == "call" else None
    return [] if arglist is None else [a for a in arglist.children if a is not None]


def _constant_array(value, dtype: DataType | None):
    """The ndarray of an ``R.const`` value, or an error message."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    if isinstance(value, (bool, int, float)):
        pass
    elif isinstance(value, (tuple, list)):
        if not _is_rectangular_numbers(value):
            return "R.const takes a number or a rectangular nested list of numbers"
    else:
        return f"R.const takes a number or a nested list of numbers, not {_describe(value)}"
    try:
        if dtype is None:
            # Python floats are float32 and ints int32, as in TVM (SYN-const-1).
            arr = np.array(value)
            if arr.dtype == np.float64:
                dtype = parse_dtype("float32")
            elif arr.dtype == np.int64:
                dtype = parse_dtype("int32")
            elif arr.dtype.kind in "bu":  # bools; ints in [2**63, 2**64) are uint64
                return arr
            else:  # an int beyond uint64, which NumPy holds as a Python object
                return ("a value of the constant is beyond every integer dtype (int64 and "
                        "uint64); give the constant a dtype it fits in")
        np_dtype = numpy_dtype(dtype)
        arr = np.array(value, dtype=np.float64 if dtype.is_float else object)
        if not dtype.is_float:
            flat = [int(v) for v in np.ravel(arr)] if arr.size else []
            info = np.iinfo(np_dtype) if np.issubdtype(np_dtype, np.integer) else None
            if info is not None and any(not info.min <= v <= info.max for v in flat):
                return f"a value of the constant does not fit in {dtype}"
            return np.array(value, dtype=np_dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            out = arr.astype(np_dtype)
            lost = np.isfinite(arr) & ~np.isfinite(out.astype(np.float64))
        if lost.any():
            # A finite value beyond the type's range would become an infinity (or NaN).
            bad = float(arr[lost].flat[0]) if arr.ndim else float(arr)
            return (f"the constant {bad!r} is beyond the range of {dtype} (largest finite "
                    f"value {float(np.finfo(np_dtype).max)!r})")
        return out
    except (ValueError, TypeError, OverflowError) as err:
        return f"bad constant: {err}"


def _is_rectangular_numbers(value) -> bool:
    if isinstance(value, (bool, int, float)):
        return True
    if not isinstance(value, (tuple, list)):
        return False
    if not value:
        return True
    lengths = {len(v) if isinstance(v, (tuple, list)) else -1 for v in value}
    if len(lengths) != 1:
        return False
    return all(_is_rectangular_numbers(v) for v in value)
