"""Well-formedness of Relax functions (spec/well_formed.md, WF-var-*, WF-dataflow-*,
WF-sym-*, WF-shape-1, WF-dtype-1, WF-pure-*, WF-global-*, WF-call-*, WF-anf-*,
WF-node-1): one walk over each function in program order, with the variables in scope
in dictionaries and an undo log. ``well_formed.check_well_formed`` drives it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.span import Span
from relax_ref.ir.text import print_struct_info
from relax_ref.ops.registry import lookup
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.evaluate import EvaluationError, evaluate_int
from relax_ref.semantics.tir_exprs import prim_func_is_pure

if TYPE_CHECKING:
    from relax_ref.semantics.well_formed import _ModuleChecker

FORCE_PURE = "relax.force_pure"


@dataclass
class _VarInfo:
    """A Relax variable in scope: the dataflow block binding it (DataflowVars only) and
    the local function it is bound to, if any (for purity and arity of its calls)."""

    dataflow: rx.DataflowBlock | None = None
    function: rx.Function | None = None


@dataclass(frozen=True)
class _Ctx:
    """Where the walk is: the function being checked and the dataflow block, if any."""

    function_name: str
    must_be_pure: bool
    dataflow: rx.DataflowBlock | None = None


_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
           rx.GlobalVar, rx.ExternFunc, rx.Op)


def _is_leaf(e) -> bool:
    return isinstance(e, _LEAVES)


def _is_leaf_or_tuple(e) -> bool:
    """A leaf, or a tuple whose fields are (recursively) leaves or tuples: what TVM's
    normal form allows as an operand."""
    if isinstance(e, rx.Tuple):
        return all(_is_leaf_or_tuple(f) for f in e.fields)
    return _is_leaf(e)


def _is_true(value) -> bool:
    if isinstance(value, P.IntImm):
        return value.value != 0
    return value is True or (isinstance(value, int) and value == 1)


def _line(span: Span | None) -> str:
    return f" (line {span.line})" if span is not None else ""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class _RelaxChecker:
    """Rules WF-var, WF-dataflow, WF-sym, WF-pure, WF-global, WF-call, WF-anf."""

    def __init__(self, module: _ModuleChecker):
        self.module = module
        self.functions = module.functions
        self.normalized = module.normalized
        self.report = module.report
        self.top = ""
        self.vars: dict[int, _VarInfo] = {}
        self.symbols: set[int] = set()
        self.log: list[tuple[str, int]] = []  # undo log of definitions: ("var"|"sym", id)
        self.gone: dict[int, str] = {}  # id of a variable out of scope -> why
        self.recursive: set[int] = set()  # a local function's variable, inside its body
        self.bound_at: dict[int, tuple[str, Span | None]] = {}  # id -> (function, span)
        self.pending: list[tuple[rx.Var, str, Span | None, str | None]] = []
        self.symbol_reported: set = set()

    # -- scopes ------------------------------------------------------------------------
    def mark(self) -> int:
        return len(self.log)

    def restore(self, mark: int, why: str) -> None:
        """Leave a scope: what it defined is no longer visible (``why`` says where it was)."""
        while len(self.log) > mark:
            kind, key = self.log.pop()
            if kind == "var":
                if self.vars.pop(key, None) is not None:
                    self.gone[key] = why
            else:
                self.symbols.discard(key)

    def leave_all(self) -> None:
        """Forget every scope (after a walk was cut short)."""
        self.restore(0, "function")
        self.recursive.clear()

    def define_var(self, var: rx.Var, ctx: _Ctx, span: Span | None,
                   function: rx.Function | None = None) -> None:
        key = id(var)
        previous = self.bound_at.get(key)
        if previous is not None:
            where = previous[0] if previous[0] != self.top else "this function"
            self.report("WF-var-2", f"variable {var.name_hint!r} is defined more than once "
                        f"(first in {where}{_line(previous[1])}); each binding needs its own "
                        f"variable", span)
        else:
            self.bound_at[key] = (self.top, span)
        if isinstance(var, rx.DataflowVar) and ctx.dataflow is None:
            self.report("WF-dataflow-1", f"DataflowVar {var.name_hint!r} is bound outside a "
                        f"dataflow block", span)
        dataflow = ctx.dataflow if isinstance(var, rx.DataflowVar) else None
        self.vars[key] = _VarInfo(dataflow, function)
        self.gone.pop(key, None)
        self.log.append(("var", key))

    def define_symbols(self, sinfos: list, span: Span | None) -> None:
        """The symbolic variables that appear bare in ``sinfos`` (SI-def-1) and are not
        yet defined become defined."""
        for v in defined_symbols(sinfos):
            if id(v) not in self.symbols:
                self.module.define_symbol(v, self.top, span)
                self.symbols.add(id(v))
                self.log.append(("sym", id(v)))

    # -- uses ----------------------------------------------------------------------------
    def use_var(self, var: rx.Var, ctx: _Ctx, span: Span | None) -> None:
        key = id(var)
        info = self.vars.get(key)
        if info is None:
            if key not in self.recursive:
                self.pending.append((var, self.top, span, self.gone.get(key)))
            return
        if isinstance(var, rx.DataflowVar) and info.dataflow is not ctx.dataflow:
            where = "inside a nested function" if ctx.dataflow is None or \
                info.dataflow is None else "in another dataflow block"
            self.report("WF-dataflow-2", f"DataflowVar {var.name_hint!r} is used {where}; it "
                        f"is visible only in the dataflow block that binds it", span)

    def resolve_pending(self) -> None:
        """Explain each use of a variable out of scope, now that every definition in the
        module is known (WF-var-1, WF-dataflow-2)."""
        for var, function, span, gone in self.pending:
            name = var.name_hint
            bound = self.bound_at.get(id(var))
            if gone == "dataflow":
                self.report("WF-dataflow-2", f"DataflowVar {name!r} is used after the dataflow "
                            f"block that binds it; only R.output variables leave a dataflow "
                            f"block", span, function)
                continue
            if bound is not None and bound[0] != function:
                why = f"defined in function {bound[0]!r}"
            elif gone == "branch":
                why = "defined inside a branch of an if, and visible only there"
            elif gone == "function":
                why = "local to a nested function"
            elif bound is not None:
                why = f"used before its definition{_line(bound[1])}"
            else:
                why = "not defined anywhere"
            self.report("WF-var-1", f"variable {name!r} is {why}", span, function)

    def symbol_uses(self, e, span: Span | None, rule: str, what: str) -> None:
        if not isinstance(e, P.PrimExpr):
            self.report("WF-node-1", f"{what} holds a {type(e).__name__}, not a scalar "
                        f"expression", span)
            return
        for v in P.free_vars(e):
            if id(v) not in self.symbols:
                self._undefined_symbol(v, span, rule, what)

    def _undefined_symbol(self, v: P.Var, span, rule: str, what: str) -> None:
        # One report per variable and line: a binding's annotation and its value's
        # deduced struct info often share the same missing variable.
        key = (rule, None if span is None else (span.source, span.line), id(v))
        if key in self.symbol_reported:
            return
        self.symbol_reported.add(key)
        if rule == "WF-sym-2":
            tail = "; a parameter annotation defines a variable only where it appears bare " \
                   "(as a whole dimension or an R.Prim value)"
        elif rule == "WF-sym-3":
            tail = "; only symbolic variables the parameters define may appear there " \
                   "(a variable a R.match_cast defines in the body may not)"
        else:
            tail = " (not defined by a parameter or an earlier R.match_cast in scope)"
        self.report(rule, f"{what} uses the symbolic variable {getattr(v, 'name', '?')!r}, "
                    f"which is not defined here{tail}", span)

    def sinfo_uses(self, s, span: Span | None, rule: str, what: str, *,
                   dtypes: bool = True) -> None:
        """Every symbolic variable in ``s`` is in scope, except those that a nested
        R.Callable's own parameters define; and (``dtypes``) every tensor in ``s`` has
        scalar elements (WF-dtype-1)."""
        if dtypes:
            for dtype in _vector_tensor_dtypes(s):
                self.report("WF-dtype-1", f"{what} is a tensor of {dtype}: a Relax tensor's "
                            f"elements are scalars (vector types such as {dtype} exist in "
                            f"PrimFuncs only); use R.Tensor(..., \"{dtype.element_of}\") "
                            f"with one more dimension of {dtype.lanes}", span)
        missing: dict[int, P.Var] = {}
        if not self._sinfo_free(s, frozenset(), missing, span, what):
            return
        for v in missing.values():
            self._undefined_symbol(v, span, rule, what)

    def _sinfo_free(self, s, local: frozenset, missing: dict, span, what: str) -> bool:
        exprs: tuple = ()
        if isinstance(s, si.PrimStructInfo):
            exprs = () if s.value is None else (s.value,)
        elif isinstance(s, si.ShapeStructInfo):
            exprs = s.values or ()
        elif isinstance(s, si.TensorStructInfo):
            exprs = s.shape or ()
        elif isinstance(s, si.TupleStructInfo):
            return all(self._sinfo_free(f, local, missing, span, what) for f in s.fields)
        elif isinstance(s, si.FuncStructInfo):
            params = tuple(s.params or ())
            inner = local | {id(v) for v in defined_symbols(params)}
            return all(self._sinfo_free(p, inner, missing, span, what) for p in params) and \
                self._sinfo_free(s.ret, inner, missing, span, what)
        elif not isinstance(s, si.ObjectStructInfo):
            self.report("WF-node-1", f"{what} is a {type(s).__name__}, not struct info", span)
            return False
        for e in exprs:
            if not isinstance(e, P.PrimExpr):
                self.report("WF-node-1", f"{what} holds a {type(e).__name__}, not a scalar "
                            f"expression", span)
                return False
            for v in P.free_vars(e):
                if id(v) not in self.symbols and id(v) not in local:
                    missing.setdefault(id(v), v)
        return True

    # -- functions -----------------------------------------------------------------------
    def top_function(self, name: str, func: rx.Function) -> None:
        self.top = name
        symbol = func.attrs.get("global_symbol") if isinstance(func.attrs, rx.Attrs) else None
        if isinstance(symbol, str) and symbol != name:
            self.report("WF-global-2", f"function {name!r} has global_symbol {symbol!r}; the "
                        f"two must be equal", func.span)
        self.function(func, name, func.span)

    def function(self, func: rx.Function, name: str, where: Span | None) -> None:
        span = func.span or where
        mark = self.mark()
        attrs = func.attrs if isinstance(func.attrs, rx.Attrs) else rx.EMPTY_ATTRS
        force = _is_true(attrs.get(FORCE_PURE))
        if force and not func.is_pure:
            self.report("WF-pure-3", f"function {name!r} sets relax.force_pure but is declared "
                        f"impure (pure=False); force_pure is only for pure functions", span)
        ctx = _Ctx(name, bool(func.is_pure) and not force)
        params = func.params
        if not isinstance(params, tuple):
            self.report("WF-node-1", f"the parameters of {name!r} are a "
                        f"{type(params).__name__}, not a tuple", span)
            params = ()
        self.define_symbols([p.struct_info for p in params if isinstance(p, rx.Var)
                             and isinstance(p.struct_info, si.StructInfo)], span)
        for p in params:
            if not isinstance(p, rx.Var):
                self.report("WF-node-1", f"a parameter of {name!r} is a {type(p).__name__}, "
                            f"not a variable", span)
                continue
            pspan = p.span or span
            self.define_var(p, ctx, pspan)
            if p.struct_info is not None:
                self.sinfo_uses(p.struct_info, pspan, "WF-sym-2",
                                f"the annotation of parameter {p.name_hint!r}")
            elif self.normalized:
                self.report("WF-anf-4", f"parameter {p.name_hint!r} has no struct info", pspan)
        if func.ret_struct_info is not None:
            self.sinfo_uses(func.ret_struct_info, span, "WF-sym-3",
                            f"the return annotation of {name!r}")
        if self.normalized:
            if isinstance(func.struct_info, si.FuncStructInfo):
                self.sinfo_uses(func.struct_info, span, "WF-sym-3",
                                f"the struct info of function {name!r}", dtypes=False)
            else:
                self.report("WF-anf-4", f"function {name!r} has no FuncStructInfo", span)
        if isinstance(func.body, rx.SeqExpr):
            self.seq(func.body, ctx, span)
        else:
            if self.normalized:
                self.report("WF-anf-3", f"the body of {name!r} is not a SeqExpr", span)
            self.expr(func.body, ctx, span)
        self.restore(mark, "function")

    # -- blocks and bindings ---------------------------------------------------------------
    def seq(self, seq: rx.SeqExpr, ctx: _Ctx, where: Span | None) -> None:
        span = seq.span or where
        for block in seq.blocks:
            if not isinstance(block, rx.BindingBlock):
                self.report("WF-node-1", f"a {type(block).__name__} where a binding block "
                            f"belongs", span)
                continue
            bctx = replace(ctx, dataflow=block) if isinstance(block, rx.DataflowBlock) else ctx
            local: list[int] = []
            for b in block.bindings:
                self.binding(b, bctx, block.span or span, local)
            if isinstance(block, rx.DataflowBlock):
                for key in local:  # DataflowVars leave scope with their block
                    if self.vars.pop(key, None) is not None:
                        self.gone[key] = "dataflow"
        if self.normalized and not _is_leaf_or_tuple(seq.body):
            self.report("WF-anf-3", f"the result of a SeqExpr is a {type(seq.body).__name__}, "
                        f"not a leaf", _span_of(seq.body) or span)
        self.expr(seq.body, ctx, span)
        if self.normalized:
            self.expr_sinfo(seq, span)

    def binding(self, b, ctx: _Ctx, where: Span | None, local: list[int]) -> None:
        span = getattr(b, "span", None) or where
        if not isinstance(b, (rx.VarBinding, rx.MatchCast)):
            self.report("WF-node-1", f"a {type(b).__name__} where a binding belongs", span)
            return
        var, value = b.var, b.value
        function = value if isinstance(value, rx.Function) else None
        if isinstance(b, rx.MatchCast):
            self.expr(value, ctx, span)
            if isinstance(b.struct_info, si.StructInfo):
                self.define_symbols([b.struct_info], span)
            self.sinfo_uses(b.struct_info, span, "WF-sym-1", "the R.match_cast target")
        else:
            if function is not None and isinstance(var, rx.Var):
                self.recursive.add(id(var))  # a local function may call itself
                self.function(function, var.name_hint, span)
                self.recursive.discard(id(var))
            else:
                self.expr(value, ctx, span)
        if not isinstance(var, rx.Var):
            self.report("WF-node-1", f"a binding defines a {type(var).__name__}, not a "
                        f"variable", span)
            return
        self.define_var(var, ctx, span, function)
        if isinstance(var, rx.DataflowVar):
            local.append(id(var))
        if var.struct_info is not None:
            self.sinfo_uses(var.struct_info, span, "WF-sym-1",
                            f"the annotation of {var.name_hint!r}")
        elif self.normalized:
            self.report("WF-anf-4", f"variable {var.name_hint!r} has no struct info", span)

    # -- expressions -----------------------------------------------------------------------
    def expr(self, e, ctx: _Ctx, where: Span | None) -> None:
        # A variable's own span is its definition, so a use is reported where it occurs.
        if isinstance(e, rx.Var):
            self.use_var(e, ctx, where)
            return
        span = _span_of(e) or where
        if isinstance(e, rx.GlobalVar):
            self.global_ref(e, span)
        elif isinstance(e, (rx.Constant, rx.StringImm, rx.DataTypeImm, rx.Op, rx.ExternFunc)):
            pass
        elif isinstance(e, rx.ShapeExpr):
            for d in e.values:
                self.symbol_uses(d, span, "WF-sym-1", "R.shape")
                if isinstance(d, P.PrimExpr) and not getattr(d.dtype, "is_integer", True):
                    self.report("WF-shape-1", f"a value of R.shape has dtype {d.dtype}; shape "
                                f"values are integers", span)
        elif isinstance(e, rx.PrimValue):
            self.symbol_uses(e.value, span, "WF-sym-1", "the scalar value")
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                if self.normalized and not _is_leaf_or_tuple(f):
                    self.report("WF-anf-3", f"a tuple field is a {type(f).__name__}, not a "
                                f"leaf", span)
                self.expr(f, ctx, span)
        elif isinstance(e, rx.TupleGetItem):
            if self.normalized and not _is_leaf_or_tuple(e.tuple_value):
                self.report("WF-anf-3", f"the tuple indexed is a "
                            f"{type(e.tuple_value).__name__}, not a leaf", span)
            self.expr(e.tuple_value, ctx, span)
        elif isinstance(e, rx.Call):
            self.call(e, ctx, span)
        elif isinstance(e, rx.If):
            self.if_expr(e, ctx, span)
            return  # its struct info is checked after its branches' scopes close
        elif isinstance(e, rx.SeqExpr):
            if self.normalized:
                self.report("WF-anf-3", "a SeqExpr appears inside an expression; it may only "
                            "be a function body or an if branch", span)
            mark = self.mark()
            self.seq(e, ctx, span)
            self.restore(mark, "branch")
            return
        elif isinstance(e, rx.Function):
            self.function(e, "(anonymous function)", span)
        else:
            self.report("WF-node-1", f"a {type(e).__name__} where a Relax expression belongs",
                        span)
            return
        if self.normalized:
            self.expr_sinfo(e, span)

    def expr_sinfo(self, e, span: Span | None) -> None:
        """Normalized IR: the expression carries struct info (WF-anf-4) whose symbolic
        variables are in scope (WF-sym-1)."""
        if not hasattr(e, "struct_info") or isinstance(e, (rx.ShapeExpr, rx.PrimValue,
                                                           rx.Function)):
            return  # a function's FuncStructInfo is checked with the function
        if e.struct_info is None:
            self.report("WF-anf-4", f"a {type(e).__name__} has no struct info", span)
        elif isinstance(e, (rx.Call, rx.If, rx.Tuple, rx.TupleGetItem, rx.SeqExpr)):
            self.sinfo_uses(e.struct_info, span, "WF-sym-1", "the deduced struct info")

    def global_ref(self, gv: rx.GlobalVar, span: Span | None) -> None:
        if gv.name_hint in self.functions:
            self.module.references[self.top].add(gv.name_hint)
        else:
            self.report("WF-global-1", f"the module has no function {gv.name_hint!r}", span)

    def if_expr(self, e: rx.If, ctx: _Ctx, span: Span | None) -> None:
        if ctx.dataflow is not None:
            self.report("WF-dataflow-3", "an if inside a dataflow block; dataflow blocks hold "
                        "no control flow", span)
        if self.normalized and not _is_leaf(e.cond):
            self.report("WF-anf-1", f"the condition of an if is a {type(e.cond).__name__}, "
                        f"not a leaf", span)
        self.expr(e.cond, ctx, span)
        for branch in (e.true_branch, e.false_branch):
            mark = self.mark()
            if isinstance(branch, rx.SeqExpr):
                self.seq(branch, ctx, span)
            else:
                if self.normalized:
                    self.report("WF-anf-3", "an if branch is not a SeqExpr", span)
                self.expr(branch, ctx, span)
            self.restore(mark, "branch")
        if self.normalized:
            self.expr_sinfo(e, span)

    # -- calls -------------------------------------------------------------------------------
    def call(self, call: rx.Call, ctx: _Ctx, span: Span | None) -> None:
        op = call.op
        args = call.args
        if not isinstance(args, tuple):
            self.report("WF-node-1", f"a call's operands are a {type(args).__name__}, not a "
                        f"tuple", span)
            args = ()
        if self.normalized:
            if not _is_leaf(op):
                self.report("WF-anf-2", f"the callee is a {type(op).__name__}, not a leaf", span)
            for a in args:
                if not _is_leaf_or_tuple(a):
                    self.report("WF-anf-2", f"a call operand is a {type(a).__name__}, not a "
                                f"leaf", span)
        self.expr(op, ctx, span)
        for a in args:
            self.expr(a, ctx, span)
        for s in call.sinfo_args:
            self.sinfo_uses(s, span, "WF-sym-1", "the call's output annotation")
        if isinstance(call.attrs, rx.Attrs):
            for _, value in call.attrs.items:
                self.attr_uses(value, ctx, span)
        impure = self.callee_checks(call, args, span)
        if impure is None:
            return
        if ctx.dataflow is not None:
            self.report("WF-pure-1", f"impure call inside a dataflow block: {impure}", span)
        elif ctx.must_be_pure:
            self.report("WF-pure-2", f"function {ctx.function_name!r} is pure but {impure}; "
                        f"declare it @R.function(pure=False), set relax.force_pure, or use "
                        f"a pure variant (e.g. R.call_pure_packed)", span)

    def attr_uses(self, value, ctx: _Ctx, span: Span | None) -> None:
        """Attributes written as values may hold symbolic expressions or variables."""
        if isinstance(value, P.PrimExpr):
            self.symbol_uses(value, span, "WF-sym-1", "an attribute")
        elif isinstance(value, si.StructInfo):
            self.sinfo_uses(value, span, "WF-sym-1", "an attribute")
        elif isinstance(value, rx.Var):
            self.expr(value, ctx, span)  # scoping only: attributes are not in ANF
        elif isinstance(value, rx.ShapeExpr):
            for d in value.values:
                self.symbol_uses(d, span, "WF-sym-1", "an attribute")
        elif isinstance(value, rx.PrimValue):
            self.symbol_uses(value.value, span, "WF-sym-1", "an attribute")
        elif isinstance(value, tuple):
            for v in value:
                self.attr_uses(v, ctx, span)

    def callee_checks(self, call: rx.Call, args: tuple, span: Span | None) -> str | None:
        """Arity (WF-call-1), call_tir (WF-call-2/3); returns why the call is impure, or
        None when it is pure (WF-pure-*)."""
        op = call.op
        if isinstance(op, rx.Op):
            opdef = lookup(op.name)
            if opdef is not None and opdef.call_kind.tir_callee:  # the call_tir family
                self.call_tir(call, op.name, span)
            if opdef is not None and not opdef.pure:
                return f"{opdef.short_name} has side effects"
            return None
        if isinstance(op, rx.ExternFunc):
            fs = op.struct_info  # SI-extern-1: a written R.Callable(..., purity=True)
            if isinstance(fs, si.FuncStructInfo) and fs.purity:
                return None
            return f"the packed function {op.global_symbol!r} is called (use " \
                   f"R.call_pure_packed for a pure one)"
        if isinstance(op, rx.GlobalVar):
            target = self.functions.get(op.name_hint)
            if isinstance(target, tir.PrimFunc):
                self.arity(op.name_hint, len(target.params), len(args), span)
                if prim_func_is_pure(target):  # WF-pure-4
                    return None
                return f"it calls the PrimFunc {op.name_hint!r} directly (destination-passing)"
            if isinstance(target, rx.Function):
                self.arity(op.name_hint, len(target.params), len(args), span)
                return None if target.is_pure else f"it calls the impure function {op.name_hint!r}"
            return None
        if isinstance(op, (rx.Var, rx.Function)):
            fn = op if isinstance(op, rx.Function) else None
            info = self.vars.get(id(op)) if isinstance(op, rx.Var) else None
            if info is not None and info.function is not None:
                fn = info.function
            name = op.name_hint if isinstance(op, rx.Var) else "the function"
            if fn is not None:
                self.arity(name, len(fn.params), len(args), span)
                return None if fn.is_pure else f"it calls the impure function {name!r}"
            fs = op.struct_info
            if isinstance(fs, si.FuncStructInfo):
                if fs.params is not None:
                    self.arity(name, len(fs.params), len(args), span)
                return None if fs.purity else f"it calls {name!r}, an impure R.Callable"
        return None

    def arity(self, name: str, n_params: int, n_args: int, span: Span | None) -> None:
        if n_params != n_args:
            self.report("WF-call-1", f"{name!r} takes {_count(n_params, 'argument')} but is "
                        f"called with {n_args}", span)

    def call_tir(self, call: rx.Call, op_name: str, span: Span | None) -> None:
        short = op_name.replace("relax.", "R.")
        if not call.args:
            return  # the op's deduction rule reports the missing operands
        callee = call.args[0]
        target = self.functions.get(callee.name_hint) if isinstance(callee, rx.GlobalVar) \
            else None
        if isinstance(callee, rx.GlobalVar) and target is None:
            return  # WF-global-1
        if not isinstance(target, tir.PrimFunc):
            if target is not None:
                what = f"the Relax function {callee.name_hint!r}"
            elif isinstance(callee, rx.ExternFunc):
                what = f"the external function {callee.global_symbol!r}"
            else:
                what = f"a {type(callee).__name__}"
            self.report("WF-call-2", f"{short} calls {what}; it calls a PrimFunc of the module "
                        f"(cls.f)", span)
            return
        n_args = _tuple_length(call.args[1]) if len(call.args) > 1 else None
        n_out = _output_count(call)
        n_vars = _shape_length(call.args[2]) if len(call.args) > 2 else 0
        if n_args is None or n_out is None or n_vars is None:
            return
        if n_args + n_out + n_vars != len(target.params):
            self.report("WF-call-3", f"{short} passes {_count(n_args, 'argument')}, "
                        f"{_count(n_out, 'output')} and {_count(n_vars, 'tir_var')} to "
                        f"{callee.name_hint!r}, which has "
                        f"{_count(len(target.params), 'parameter')}", span)
            return
        self.call_tir_types(call, short, callee.name_hint, target, span)

    def call_tir_types(self, call: rx.Call, short: str, name: str, target: tir.PrimFunc,
                       span: Span | None) -> None:
        """WF-call-4: what is statically known of each argument and output agrees with
        the parameter it binds (a buffer's ndim, dtype and constant dimensions; a
        scalar's dtype), and an in-place output agrees with the argument it reuses."""
        args = _tuple_sinfo(call.args[1])
        outs = call.sinfo_args
        if len(outs) == 1 and isinstance(outs[0], si.TupleStructInfo):
            outs = outs[0].fields
        inplace = call.attrs.get("inplace_indices") if isinstance(call.attrs, rx.Attrs) \
            else None
        if isinstance(inplace, int):
            inplace = (inplace,)
        if args is None or (inplace is not None and len(inplace) != len(outs)):
            return
        bound = [(f"argument {i}", a) for i, a in enumerate(args)]
        for j, out in enumerate(outs):
            k = inplace[j] if inplace is not None else -1
            if k < 0:  # an output that is not a tensor is SI-struct-dps-2's
                bound.append((f"output {j}", out if isinstance(out, si.TensorStructInfo)
                              else None))
            elif k < len(args):
                arg = args[k]
                why = _static_mismatch(out, arg.shape, arg.dtype, "the argument", {}) \
                    if isinstance(arg, si.TensorStructInfo) else None
                if why:
                    self.report("WF-call-4", f"{short}: output {j} reuses argument {k} in "
                                f"place, but {why}", span)
        env: dict = {}
        for (_, sinfo), param in zip(bound, target.params):
            _bind_buffer_symbols(sinfo, target.buffer_of(param), env)
        for (what, sinfo), param in zip(bound, target.params):
            why = _param_mismatch(sinfo, param, target.buffer_of(param), env)
            if why:
                self.report("WF-call-4", f"{short}: {what} for {name!r} parameter "
                            f"{param.name!r}: {why}", span)


def _vector_tensor_dtypes(s) -> list:
    """The dtypes with several lanes of the tensors in struct info ``s`` (WF-dtype-1)."""
    if isinstance(s, si.TensorStructInfo):
        return [s.dtype] if s.dtype.lanes > 1 else []
    if isinstance(s, si.TupleStructInfo):
        return [d for f in s.fields for d in _vector_tensor_dtypes(f)]
    if isinstance(s, si.FuncStructInfo):
        return [d for f in (s.params or ()) + (s.ret,) for d in _vector_tensor_dtypes(f)]
    return []


def _span_of(e) -> Span | None:
    span = getattr(e, "span", None)
    return span if isinstance(span, Span) else None


def _tuple_sinfo(e) -> tuple | None:
    if isinstance(e, rx.Tuple):
        return tuple(_written_sinfo(f) for f in e.fields)
    s = getattr(e, "struct_info", None)
    return s.fields if isinstance(s, si.TupleStructInfo) else None


def _written_sinfo(e):
    """The struct info of ``e`` before deduction: a nested literal tuple (``[[A]]``)
    has none yet, but is a tuple of what its fields are, and ``R.prim_value(v)`` is a
    prim of ``v``'s dtype (what deduction gives it, so that check's output, deduced,
    is judged as its input was)."""
    if getattr(e, "struct_info", None) is None:
        if isinstance(e, rx.Tuple):
            fields = tuple(_written_sinfo(f) for f in e.fields)
            return None if None in fields else si.TupleStructInfo(fields)
        if isinstance(e, rx.PrimValue):
            return si.PrimStructInfo(e.value.dtype)
    return getattr(e, "struct_info", None)


def _bind_buffer_symbols(s, buffer, env: dict) -> None:
    """WF-call-4: a buffer dimension that is a bare variable takes the argument's constant
    dimension at the same position, the first time it is met (EXEC-tir-bind-1's order)."""
    if buffer is None or not isinstance(s, si.TensorStructInfo) or s.shape is None \
            or len(s.shape) != len(buffer.shape):
        return
    for a, b in zip(s.shape, buffer.shape):
        if isinstance(b, P.Var) and isinstance(a, P.IntImm) and b not in env:
            env[b] = a.value


def _param_mismatch(s, param, buffer, env: dict) -> str | None:
    """Why struct info ``s`` can never bind PrimFunc parameter ``param`` (WF-call-4)."""
    if buffer is not None:
        if isinstance(s, si.TensorStructInfo):
            return _static_mismatch(s, buffer.shape, buffer.dtype, "the buffer", env)
        if isinstance(s, (si.PrimStructInfo, si.ShapeStructInfo, si.TupleStructInfo)):
            return f"a buffer takes a tensor, not {print_struct_info(s)}"
        return None
    if param.dtype.is_handle:
        return None
    if isinstance(s, si.PrimStructInfo) and not s.dtype.is_void and s.dtype != param.dtype:
        return f"the parameter is a {param.dtype} scalar, the argument a {s.dtype} one"
    if isinstance(s, (si.TensorStructInfo, si.ShapeStructInfo, si.TupleStructInfo)):
        return f"the parameter is a {param.dtype} scalar, not {print_struct_info(s)}"
    return None


def _static_mismatch(s, shape, dtype, other: str, env: dict) -> str | None:
    """Why tensor struct info ``s`` can never have ``shape`` and ``dtype``: an ndim, a
    dtype or a dimension that differ where both are known (a dimension of ``shape`` is
    known when its variables are bound in ``env``)."""
    if not isinstance(s, si.TensorStructInfo):
        return None
    text = print_struct_info(s)
    if s.ndim >= 0 and shape is not None and s.ndim != len(shape):
        return f"{text} has {s.ndim} dimensions, {other} {len(shape)}"
    if not s.dtype.is_void and not dtype.is_void and s.dtype != dtype:
        return f"{text} has dtype {s.dtype}, {other} {dtype}"
    if s.shape is None or shape is None:
        return None
    for i, (a, b) in enumerate(zip(s.shape, shape)):
        if not isinstance(a, P.IntImm):
            continue
        try:
            want = evaluate_int(b, env)
        except EvaluationError:
            continue
        if want != a.value:
            return f"{text} has {a.value} at dimension {i}, {other} {want}"
    return None


def _tuple_length(e) -> int | None:
    if isinstance(e, rx.Tuple):
        return len(e.fields)
    s = getattr(e, "struct_info", None)
    return len(s.fields) if isinstance(s, si.TupleStructInfo) else None


def _shape_length(e) -> int | None:
    if isinstance(e, rx.ShapeExpr):
        return len(e.values)
    s = getattr(e, "struct_info", None)
    if isinstance(s, si.ShapeStructInfo) and s.ndim >= 0:
        return s.ndim
    return None


def _output_count(call: rx.Call) -> int | None:
    """How many output buffers call_tir appends: one per output, except the outputs of
    call_tir_inplace that reuse an argument (inplace_indices >= 0)."""
    outs = call.sinfo_args
    if len(outs) == 1 and isinstance(outs[0], si.TupleStructInfo):
        outs = outs[0].fields
    inplace = call.attrs.get("inplace_indices") if isinstance(call.attrs, rx.Attrs) else None
    if isinstance(inplace, int):
        inplace = (inplace,)
    if isinstance(inplace, tuple):
        if not all(isinstance(i, int) for i in inplace):
            return None
        return sum(1 for i in inplace if i < 0)
    return len(outs)


# -- TIR -------------------------------------------------------------------------------------
