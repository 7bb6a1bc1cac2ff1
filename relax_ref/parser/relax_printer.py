"""Relax functions -> TVMScript text in the TVM 0.27 dialect (spec/syntax.md, "Printing").

One ``RelaxPrinter`` prints one function and the functions nested in it; PrimExprs and
struct info print through the shared ``PrimPrinter`` (ir/text.py). Each function is one
namespace: two distinct variables that share a name print as ``x`` and ``x_1``, and a
symbolic variable shares that namespace with the Relax variables, as in TVM.
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.attr_values import IndexMap, Target, VDevice
from relax_ref.ir.call_kinds import call_kind
from relax_ref.ir.dtype import INT64, DataType, DTypeError, parse_dtype
from relax_ref.ir.equal import structural_equal
from relax_ref.ir.text import (INDENT, Names, PrimPrinter, PrintError, TextContext,
                               identifier, python_float, quote, same_expr)

from .relax_annotations import alloc_tensor_struct_info

# How a call prints follows its call kind (ir/call_kinds.py): destination-passing calls
# as R.<op>(callee, (args...), out_ty=..., [tir_vars=...]), packed calls with the function
# first, a format operand as ``format=``.


class RelaxPrinter(PrimPrinter):
    """Prints one Relax function (and the functions nested in it)."""

    def __init__(self, ctx: TextContext, names: Names | None = None):
        super().__init__(ctx, names)
        self.declared: list[str] = []    # symbolic variables first met in the body
        self.uses_module = False         # a GlobalVar is referenced: print ``cls = Module``
        self.used: set[int] = set()      # ids of the Relax variables that are referenced
        self.in_return_annotation = False

    def first_use(self, var: P.Var) -> str:
        body = not self.in_signature or self.in_return_annotation
        hint = var.name if body else self.ctx.type_var_hint(var.name)
        name = self.names.define(var, hint, root=True)
        if self.in_signature:
            self.ctx.type_vars.add(name)
        if body:
            # Not bound by a parameter: declared at the top of the body (a variable first
            # seen in the return annotation is defined by the body, e.g. a match_cast).
            self.declared.append(f"{name} = {self.t(str(var.dtype))}()")
            self.ctx.body_declared.add(name)
        return name

    # -- functions ----------------------------------------------------------------------
    def function(self, func: rx.Function, name: str, indent: int,
                 nested: bool = False) -> list[str]:
        self.ctx.uses_relax = True
        self.used |= _referenced_vars(func)
        saved = self.in_signature
        self.in_signature = True
        params = [self._param(p) for p in func.params]
        ret = ""
        if func.ret_struct_info is not None:
            self.in_return_annotation = True
            ret = f" -> {self.struct_info(func.ret_struct_info)}"
            self.in_return_annotation = False
        self.in_signature = False
        body: list[str] = []
        self._seq_body(func.body, indent + 1, body)
        self.in_signature = saved

        options = []
        if not func.is_pure:
            options.append("pure=False")
        if func.is_private:
            options.append("private=True")
        pad = INDENT * indent
        lines = [pad + "@R.function" + (f"({', '.join(options)})" if options else ""),
                 pad + f"def {name}({', '.join(params)}){ret}:"]
        inner = INDENT * (indent + 1)
        if len(func.attrs):
            lines.append(inner + f"R.func_attr({self.attr_value(func.attrs)})")
        if not nested:
            # TVM's order: R.func_attr, then symbolic variable declarations, then cls.
            lines.extend(inner + d for d in self.declared)
            if self.uses_module:
                lines.append(inner + f"cls = {self.ctx.module_name}")
        lines.extend(body)
        return lines

    def _param(self, p: rx.Var) -> str:
        s = p.struct_info
        if isinstance(s, si.PrimStructInfo) and isinstance(s.value, P.Var) \
                and s.value.dtype == s.dtype and self.names.get(p) is None:
            # ``k: T.int64`` binds the parameter and the symbolic variable ``k`` at once.
            want = identifier(p.name_hint)
            sym_name = self.names.get(s.value)
            if sym_name is None and identifier(s.value.name) == want and self.names.is_free(want):
                self.names.define(s.value, want, root=True)
                sym_name = want
            if sym_name == want:
                self.names.share(p, want)
                return f"{want}: {self.t(str(s.dtype))}"
        ann = f": {self.struct_info(s)}" if s is not None else ""
        return f"{self.names.define(p, p.name_hint)}{ann}"

    # -- bindings -----------------------------------------------------------------------
    def _seq_body(self, seq: rx.SeqExpr, indent: int, out: list[str]) -> None:
        for block in seq.blocks:
            self._block(block, indent, out)
        out.append(INDENT * indent + f"return {self.expr(seq.body)}")

    def _block(self, block: rx.BindingBlock, indent: int, out: list[str]) -> None:
        if not isinstance(block, rx.DataflowBlock):
            for b in block.bindings:
                self._binding(b, indent, out)
            return
        out.append(INDENT * indent + "with R.dataflow():")
        outputs = []
        for b in block.bindings:
            named = self._binding(b, indent + 1, out, dataflow=True)
            if named is not None and not isinstance(b.var, rx.DataflowVar):
                outputs.append(named)
        out.append(INDENT * (indent + 1) + f"R.output({', '.join(outputs)})")

    def _binding(self, b: rx.Binding, indent: int, out: list[str],
                 dataflow: bool = False) -> str | None:
        """Print one binding; the name its variable printed under (None when it printed
        as an expression statement)."""
        pad = INDENT * indent
        var = b.var
        if isinstance(b, rx.MatchCast):
            value = f"R.match_cast({self.expr(b.value)}, {self.struct_info(b.struct_info)})"
            return self._assign(var, value, pad, out)
        if not isinstance(b, rx.VarBinding):
            raise PrintError(f"cannot print the binding {type(b).__name__}")
        value = b.value
        if isinstance(value, rx.Function):
            name = self.names.define(var, var.name_hint)
            out.extend(self.function(value, name, indent, nested=True))
            out.append("")
            return name
        if isinstance(value, rx.If):
            return self._if(var, value, indent, out)
        if _is_expression_statement(var, value, self.used) \
                and isinstance(var, rx.DataflowVar) == dataflow:
            out.append(pad + self.expr(value))
            return None
        deduced = _holds_prim_value(var.struct_info) and value.struct_info is not None \
            and structural_equal(var.struct_info, value.struct_info)
        return self._assign(var, self.expr(value, top=True), pad, out, annotate=not deduced)

    def _assign(self, var: rx.Var, value: str, pad: str, out: list[str],
                annotate: bool = True) -> str:
        """PRINT-prim-3: ``annotate=False`` leaves the annotation out."""
        name = self.names.define(var, var.name_hint)
        ann = f": {self.struct_info(var.struct_info)}" \
            if annotate and var.struct_info is not None else ""
        out.append(f"{pad}{name}{ann} = {value}")
        return name

    def _if(self, var: rx.Var, node: rx.If, indent: int, out: list[str]) -> str:
        """``if c:`` / ``else:``; each branch ends by binding the if's variable to the
        branch's result (like if_else_call.py)."""
        pad = INDENT * indent
        cond = self.expr(node.cond)
        name = self.names.define(var, var.name_hint)
        ann = f": {self.struct_info(var.struct_info)}" if var.struct_info is not None else ""
        out.append(f"{pad}if {cond}:")
        for keyword_line, branch in ((None, node.true_branch), ("else:", node.false_branch)):
            if keyword_line:
                out.append(pad + keyword_line)
            if not isinstance(branch, rx.SeqExpr):
                raise PrintError("an if branch must be a SeqExpr")
            for block in branch.blocks:
                self._block(block, indent + 1, out)
            out.append(f"{pad}{INDENT}{name}{ann} = {self.expr(branch.body, top=True)}")
        return name

    # -- expressions --------------------------------------------------------------------
    def expr(self, e: rx.Expr, top: bool = False) -> str:
        """A Relax expression; ``top`` is the value of a binding, where a tuple of two or
        more fields prints without parentheses as TVM prints it."""
        if isinstance(e, rx.Var):
            return self.names.get(e) or self.names.define(e, e.name_hint, root=True)
        if isinstance(e, rx.GlobalVar):
            self.uses_module = True
            return f"cls.{e.name_hint}"
        if isinstance(e, rx.Constant):
            return self._constant(e)
        if isinstance(e, rx.Tuple):
            fields = [self.expr(f) for f in e.fields]
            if len(fields) == 1:
                return f"({fields[0]},)"
            if top and fields:
                return ", ".join(fields)
            if not fields:
                return "R.tuple()"  # PRINT-tuple-1: as TVM prints void; `()` in an op's
                # operand would read as an empty shape there
            return f"({', '.join(fields)})"
        if isinstance(e, rx.TupleGetItem):
            return f"{self.expr(e.tuple_value)}[{e.index}]"
        if isinstance(e, rx.ShapeExpr):
            return f"R.shape([{', '.join(self.prim(v) for v in e.values)}])"
        if isinstance(e, rx.PrimValue):
            if isinstance(e.value, P.Var):
                # PRINT-dev: a bare name would read back as the Relax variable of that
                # name (``k: T.int64`` binds both), so the value is wrapped.
                return f"R.prim_value({self.prim(e.value)})"
            return self.prim(e.value)
        if isinstance(e, rx.StringImm):
            return f"R.str({quote(e.value)})"
        if isinstance(e, rx.DataTypeImm):
            return f"R.dtype({quote(str(e.value))})"
        if isinstance(e, rx.Call):
            return self._call_expr(e)
        if isinstance(e, rx.ExternFunc):
            if _written_callable(e.struct_info):
                # A written annotation (TVM writes one that carries a derive function);
                # not the opaque impure one normalization gives a bare name.
                return f"R.ExternFunc({quote(e.global_symbol)}, {self.struct_info(e.struct_info)})"
            return f"R.ExternFunc({quote(e.global_symbol)})"
        if isinstance(e, rx.Op):
            return "R." + _op_name(e.name)
        if isinstance(e, rx.If):
            raise PrintError("an If prints only as the value of a binding (`y = if ...`)")
        if isinstance(e, rx.Function):
            raise PrintError("a nested Function prints only as the value of a binding")
        if isinstance(e, rx.SeqExpr):
            raise PrintError("a SeqExpr prints only as a function or branch body")
        raise PrintError(f"cannot print the expression {type(e).__name__}")

    def _call_expr(self, c: rx.Call) -> str:
        op = c.op
        args = list(c.args)
        sinfo_args = c.sinfo_args
        if isinstance(op, rx.Op):
            name = _op_name(op.name)
            kind = call_kind(op.name)
            if kind.dps and 2 <= len(args) <= 3:
                # R.call_tir(cls.f, (x, y), out_ty=..., [attrs], [tir_vars=...])
                parts = [self._callee(args[0]), self._operands(args[1])]
                parts += self._out_ty(sinfo_args) + self._kwargs(c.attrs)
                if len(args) == 3:
                    parts.append(f"tir_vars={self.expr(args[2])}")
                return f"R.{name}({', '.join(parts)})"
            if kind.named_callee and args:
                # R.call_pure_packed("f", x, ..., [attrs], ty_args=(...)); likewise
                # R.call_builtin_with_ctx("vm.builtin.f", (args...), ty_args=(...))
                parts = [self._callee(args[0])] + [self.expr(a) for a in args[1:]]
                return f"R.{name}({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
            k = kind.format_position
            if k is not None and len(args) > k and isinstance(args[k], rx.StringImm):
                # R.print(values..., format=R.str(f)) and R.assert_op(cond, args...,
                # format=R.str(f)): the format is an operand (SYN-relax-12).
                parts = [self.expr(a) for a in args[:k] + args[k + 1:]]
                if name == "assert_op" and len(args) > 3:
                    # PRINT-assert-1: several format arguments as one list, which TVM 0.27
                    # reads (it cannot read them spread out, as it prints them).
                    parts = [parts[0], f"[{', '.join(parts[1:])}]"]
                parts.append(f"format={self.expr(args[k])}")
                return f"R.{name}({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
            if name == "builtin.alloc_tensor" and _alloc_sinfo_derivable(c):
                # PRINT-dev: TVM 0.27 prints ty_args= here but cannot read it; the struct
                # info follows from the shape and dtype arguments.
                sinfo_args = ()
            parts = [self._operand(a) for a in args] + self._trailer(c.attrs, sinfo_args)
            return f"R.{name}({', '.join(parts)})"
        if isinstance(op, rx.ExternFunc) and _written_callable(op.struct_info):
            parts = [self.expr(a) for a in args] + self._trailer(c.attrs, sinfo_args)
            return f"{self.expr(op)}({', '.join(parts)})"
        if isinstance(op, rx.ExternFunc):
            parts = [quote(op.global_symbol)] + [self.expr(a) for a in args]
            return f"R.call_packed({', '.join(parts + self._trailer(c.attrs, sinfo_args))})"
        if isinstance(op, (rx.GlobalVar, rx.Var)):
            parts = [self.expr(a) for a in args] + self._trailer(c.attrs, sinfo_args)
            return f"{self.expr(op)}({', '.join(parts)})"
        raise PrintError(f"cannot print a call of {type(op).__name__}")

    def _operand(self, a: rx.Expr) -> str:
        """PRINT-str-1: a string operand that names a dtype (a call kept as written,
        ``R.zeros(s, "int32")``) prints as a plain literal: TVM refuses ``R.str(...)`` where
        its op takes a dtype and reads the literal either way; we read both alike. Other
        strings print as ``R.str(...)``, as TVM prints them (``R.str("global")``)."""
        if isinstance(a, rx.StringImm) and _names_dtype(a.value):
            return quote(a.value)
        return self.expr(a)

    def _trailer(self, attrs: rx.Attrs, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        """The keyword arguments of a call: its attributes, then ``ty_args=``."""
        return self._kwargs(attrs) + self._ty_args(sinfo_args)

    def _callee(self, e: rx.Expr) -> str:
        if isinstance(e, rx.ExternFunc):
            return quote(e.global_symbol)
        return self.expr(e)

    def _operands(self, e: rx.Expr) -> str:
        """The argument tuple of a DPS call, parenthesized even with two fields."""
        if isinstance(e, rx.Tuple) and len(e.fields) != 1:
            return f"({', '.join(self.expr(f) for f in e.fields)})"
        return self.expr(e)

    def _out_ty(self, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        if not sinfo_args:
            return []
        if len(sinfo_args) == 1:
            return [f"out_ty={self.struct_info(sinfo_args[0])}"]
        return [f"out_ty=[{', '.join(self.struct_info(s) for s in sinfo_args)}]"]

    def _ty_args(self, sinfo_args: tuple[si.StructInfo, ...]) -> list[str]:
        """``ty_args=(...)``: TVM 0.27's keyword (``sinfo_args=`` before it), always a
        tuple as TVM prints it."""
        if not sinfo_args:
            return []
        items = [self.struct_info(s) for s in sinfo_args]
        return [f"ty_args=({items[0]},)" if len(items) == 1 else f"ty_args=({', '.join(items)})"]

    def _kwargs(self, attrs: rx.Attrs) -> list[str]:
        return [f"{key}={self.attr_value(value)}" for key, value in attrs.items]

    def attr_value(self, v) -> str:
        """An attribute value: Python literals, dtype strings, lists (TVM prints every
        sequence as a list), dicts, PrimExprs, struct info and Relax leaf values."""
        if v is None:
            return "None"
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            return python_float(float(v))
        if isinstance(v, str):
            return quote(v)
        if isinstance(v, DataType):
            # An unspecified dtype attribute (void) is written None, as TVM writes it:
            # TVM reads the string "void" as the void type itself (PRINT-attr-1).
            return "None" if v.is_void else quote(str(v))
        if isinstance(v, (tuple, list)):
            return f"[{', '.join(self.attr_value(x) for x in v)}]"
        if isinstance(v, rx.Attrs):
            return "{" + ", ".join(f"{quote(k)}: {self.attr_value(x)}" for k, x in v.items) + "}"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{quote(str(k))}: {self.attr_value(x)}"
                                   for k, x in v.items()) + "}"
        if isinstance(v, P.PrimExpr):
            if isinstance(v, P.IntImm):
                # A bare 3 would read back as the Python int 3, not as an IntImm.
                return self._typed(v)
            return self.prim(v)
        if isinstance(v, si.StructInfo):
            return self.struct_info(v)
        if isinstance(v, rx.Expr):
            return self.expr(v)
        if isinstance(v, VDevice):
            return (f"I.vdevice({self.attr_value(v.target)}, {v.vdevice_id}, "
                    f"{quote(v.memory_scope)})")
        if isinstance(v, IndexMap):
            return self.index_map(v)
        if isinstance(v, Target):
            host = "" if v.host is None else f", host={self.attr_value(v.host)}"
            return f"{self.t('target')}({self.attr_value(v.config)}{host})"
        raise PrintError(f"cannot print the attribute value {v!r}")

    def index_map(self, m: IndexMap) -> str:
        """``T.index_map(lambda i, j: (i // 4, j))``, with ``index_dtype=`` unless int64
        (SYN-index-map-1)."""
        self.names.push()
        names = [self.names.define(p, p.name) for p in m.params]
        results = [self.prim(r) for r in m.results]
        self.names.pop()
        body = f"({results[0]},)" if len(results) == 1 else f"({', '.join(results)})"
        dtype = m.params[0].dtype if m.params else INT64
        extra = "" if dtype == INT64 else f", index_dtype={quote(str(dtype))}"
        return f"{self.t('index_map')}(lambda {', '.join(names)}: {body}{extra})"

    def _constant(self, c: rx.Constant) -> str:
        """``R.const(value, "dtype")``, non-scalars as nested lists (PRINT-dev: TVM 0.27
        prints them as metadata references, which it cannot print back)."""
        from relax_ref.ir.numpy_dtype import dtype_of_numpy

        data = c.data
        dtype = dtype_of_numpy(data.dtype)
        if data.size == 0 and 0 in data.shape[:-1] and data.ndim > 1:
            raise PrintError(f"a constant of shape {data.shape} cannot be written as a "
                             f"nested list")
        return f"R.const({_nested_list(data, dtype)}, {quote(str(dtype))})"


def _nested_list(arr: np.ndarray, dtype: DataType) -> str:
    if arr.ndim == 0:
        value = arr[()]
        if dtype.is_bool:
            return "True" if bool(value) else "False"
        if dtype.is_float:
            return python_float(float(value))
        return str(int(value))
    return "[" + ", ".join(_nested_list(arr[i], dtype) for i in range(arr.shape[0])) + "]"


def _is_expression_statement(var: rx.Var, value: rx.Expr, used: set[int]) -> bool:
    """A binding to an unused ``_`` of unknown struct info, or whose variable and value
    are both known void, prints as its value alone (``cls.matmul1(lv, w2, alloc1)``), as
    TVM prints it (PRINT-misc-1). A ``_: R.Tuple() = ...`` written on a value whose
    struct info is not yet deduced keeps its annotation: the statement would read back
    without it."""
    if var.name_hint != "_" or id(var) in used:
        return False
    sinfo = var.struct_info
    if sinfo is None:
        return True
    return _is_void(sinfo) and _is_void(getattr(value, "struct_info", None))


def _is_void(sinfo) -> bool:
    return isinstance(sinfo, si.TupleStructInfo) and not sinfo.fields


def _op_name(name: str) -> str:
    """``relax.nn.softmax`` -> ``nn.softmax``."""
    return name[len("relax."):] if name.startswith("relax.") else name


def _written_callable(s) -> bool:
    """Whether an ExternFunc's struct info says more than a bare name's (SI-extern-1)."""
    return isinstance(s, si.FuncStructInfo) and (
        s.derive_func is not None or s.purity or s.params is not None
        or not isinstance(s.ret, si.ObjectStructInfo))


def _alloc_sinfo_derivable(c: rx.Call) -> bool:
    """Whether ``R.builtin.alloc_tensor``'s struct info argument is exactly what its
    shape and dtype imply, so that the reader derives it back (PRINT-alloc-1)."""
    implied = alloc_tensor_struct_info(c.args, c.attrs)
    if implied is None or len(c.sinfo_args) != 1:
        return False
    s = c.sinfo_args[0]
    return (isinstance(s, si.TensorStructInfo) and s.vdevice is None
            and s.dtype == implied.dtype and s.shape is not None
            and len(s.shape) == len(implied.shape)
            and all(same_expr(a, b) for a, b in zip(s.shape, implied.shape)))


def _referenced_vars(func: rx.Function) -> set[int]:
    """Ids of the Relax variables used (not merely bound) anywhere in ``func``."""
    used: set[int] = set()

    def expr(e) -> None:
        if isinstance(e, rx.Var):
            used.add(id(e))
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                expr(f)
        elif isinstance(e, rx.TupleGetItem):
            expr(e.tuple_value)
        elif isinstance(e, rx.Call):
            expr(e.op)
            for a in e.args:
                expr(a)
            for _, v in e.attrs.items:
                if isinstance(v, rx.Expr):
                    expr(v)
        elif isinstance(e, rx.If):
            expr(e.cond)
            expr(e.true_branch)
            expr(e.false_branch)
        elif isinstance(e, rx.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    expr(b.value)
            expr(e.body)
        elif isinstance(e, rx.Function):
            expr(e.body)

    expr(func.body)
    return used




def _names_dtype(text: str) -> bool:
    try:
        parse_dtype(text)
    except DTypeError:
        return False
    return True


def _holds_prim_value(s: si.StructInfo | None) -> bool:
    """Whether ``s`` mentions ``R.Prim(value=...)``, which TVM 0.27 cannot read."""
    if isinstance(s, si.PrimStructInfo):
        return s.value is not None
    if isinstance(s, si.TupleStructInfo):
        return any(_holds_prim_value(f) for f in s.fields)
    return False
