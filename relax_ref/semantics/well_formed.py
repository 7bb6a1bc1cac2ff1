"""Well-formedness: the static rules a module must satisfy before it is evaluated or
transformed (spec/well_formed.md, rules ``WF-*``).

``check_well_formed(mod)`` returns every problem it finds, each a ``WellFormedError`` or
a ``StructInfoError`` with a span and a rule ID; ``assert_well_formed(mod)`` raises.
Both accept parsed (un-normalized) IR and normalized IR; the A-normal-form rules
(WF-anf-*) apply only to normalized IR.

The check is one walk over each function, in program order, with the variables in
scope kept in dictionaries and an undo log (so leaving an ``if`` branch or a nested
function costs what entering it cost): linear in the size of the module. Annotation
consistency (WF-sinfo-1) is not re-implemented here: the normalizer decides it, and its
StructInfoErrors are collected. The checker never raises on odd IR: a node of an
unexpected kind is reported (WF-node-1), not crashed on.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.span import Span
from relax_ref.ops.registry import lookup
from relax_ref.errors import RelaxError, WellFormedError
from relax_ref.semantics.sinfo_relations import defined_symbols

# Every rule this module checks, with the one-line statement spec/well_formed.md expands.
RULES: dict[str, str] = {
    "WF-var-1": "a Relax variable is used only where it is in scope",
    "WF-var-2": "a Relax variable is defined once in the module",
    "WF-dataflow-1": "a DataflowVar is bound only inside a dataflow block",
    "WF-dataflow-2": "a DataflowVar is used only inside the dataflow block that binds it",
    "WF-dataflow-3": "a dataflow block contains no if",
    "WF-sym-1": "a symbolic variable is used only after its definition, in its scope",
    "WF-sym-2": "parameter annotations use only symbolic variables the parameters define",
    "WF-sym-3": "a return annotation uses only symbolic variables the parameters define",
    "WF-sym-4": "a symbolic or TIR variable belongs to one function of the module",
    "WF-shape-1": "the values of R.shape([...]) are integers",
    "WF-dtype-1": "a tensor's elements are scalars (no vector dtype such as float32x4)",
    "WF-pure-1": "a dataflow block contains no impure call",
    "WF-pure-2": "a pure function contains no impure call unless it forces purity",
    "WF-pure-3": "relax.force_pure is set only on a function declared pure",
    "WF-global-1": "a GlobalVar names a function of the module",
    "WF-global-2": "a function's global_symbol attribute equals its name",
    "WF-call-1": "a call of a function passes as many arguments as it has parameters",
    "WF-call-2": "R.call_tir calls a PrimFunc of the module",
    "WF-call-3": "R.call_tir's arguments, outputs and tir_vars match the PrimFunc's params",
    "WF-anf-1": "(normalized IR) an if condition is a leaf",
    "WF-anf-2": "(normalized IR) a call's callee and operands are leaves or tuples of leaves",
    "WF-anf-3": "(normalized IR) tuple fields, tuple-get-item operands and SeqExpr bodies are "
                "leaves; SeqExprs appear only as function bodies and if branches",
    "WF-anf-4": "(normalized IR) every variable and expression carries struct info",
    "WF-sinfo-1": "annotations agree with deduction (checked by normalization: SI-* rules)",
    "WF-node-1": "every node is of a kind allowed where it appears",
    "WF-limit-1": "the program is not nested beyond what the checker can hold",
    "WF-tir-1": "a loop, let, block or allocation variable is used only in its scope",
    "WF-tir-2": "a buffer is used only where it is declared",
    "WF-tir-3": "a block has one binding per iteration variable, not using its own iter vars",
    "WF-tir-4": "a block with iteration variables uses outer loop variables only in bindings",
    "WF-tir-5": "a buffer access has one index per buffer dimension",
    "WF-tir-6": "a symbolic variable of a PrimFunc is defined by its parameters",
    "WF-tir-7": "a TIR variable is defined once",
}

FORCE_PURE = "relax.force_pure"


def check_well_formed(mod: rx.IRModule, *, normalized: bool | None = None,
                      check_struct_info: bool = True) -> list[RelaxError]:
    """Every well-formedness problem of ``mod``, in source order (spec/well_formed.md).

    ``normalized``: whether to hold ``mod`` to the rules of normalized IR (WF-anf-*);
    None decides from the module (normalized IR gives every function its struct info).
    ``check_struct_info=False`` skips WF-sinfo-1 (re-normalizing the module), for a
    quick structural check."""
    if not isinstance(mod, rx.IRModule):
        return [WellFormedError(f"expected an IRModule, found {type(mod).__name__}",
                                rule="WF-node-1")]
    functions = mod.functions if isinstance(mod.functions, dict) else {}
    if normalized is None:
        relax_funcs = [f for f in functions.values() if isinstance(f, rx.Function)]
        normalized = bool(relax_funcs) and all(
            isinstance(f.struct_info, si.FuncStructInfo) for f in relax_funcs)
    checker = _ModuleChecker(mod, functions, normalized)
    return checker.run(check_struct_info)


def assert_well_formed(mod: rx.IRModule, *, normalized: bool | None = None,
                       check_struct_info: bool = True) -> None:
    """Raise the first problem ``check_well_formed`` finds; when there are several, its
    message lists the others and ``.errors`` holds them all."""
    errors = check_well_formed(mod, normalized=normalized, check_struct_info=check_struct_info)
    if not errors:
        return
    first = errors[0]
    if len(errors) > 1:
        rest = "\n".join(f"  {e}" for e in errors[1:])
        more = len(errors) - 1
        message = f"{first.message}\n(and {more} more problem{'s' if more > 1 else ''}:\n{rest})"
        try:
            first = type(first)(message, first.span, rule=first.rule,
                                source_text=first.source_text)
        except TypeError:
            first = WellFormedError(message, first.span, rule=first.rule)
    first.errors = errors
    raise first


# -- the module ---------------------------------------------------------------------------

class _Report:
    """The problems found so far, each tagged with the top-level function it is in."""

    def __init__(self) -> None:
        self.items: list[tuple[str | None, RelaxError]] = []
        self.function: str | None = None

    def __call__(self, rule: str, message: str, span: Span | None,
                 function: str | None = None) -> None:
        self.items.append((function or self.function,
                           WellFormedError(message, span, rule=rule)))

    def blocked_functions(self) -> set[str]:
        """The functions normalization cannot be trusted with: those with a problem of
        scope, symbols, calls or node kinds (purity problems and the like do not
        disturb deduction)."""
        return {f for f, e in self.items if f is not None and not e.rule.startswith(
            ("WF-pure-", "WF-dataflow-3", "WF-global-2", "WF-shape-", "WF-anf-"))}


class _ModuleChecker:
    def __init__(self, mod: rx.IRModule, functions: dict, normalized: bool):
        self.mod = mod
        self.functions = functions
        self.normalized = normalized
        self.report = _Report()
        # id of a symbolic or TIR variable -> the top-level function that defines it.
        self.symbol_owner: dict[int, str] = {}
        # name of a Relax function -> names of the module functions it references.
        self.references: dict[str, set[str]] = {}

    def run(self, check_struct_info: bool) -> list[RelaxError]:
        relax = _RelaxChecker(self)
        for name, func in self.functions.items():
            self.report.function = name
            span = getattr(func, "span", None)
            try:
                if isinstance(func, rx.Function):
                    self.references[name] = set()
                    relax.top_function(name, func)
                elif isinstance(func, tir.PrimFunc):
                    _TirChecker(self, name, func).run()
                elif not isinstance(func, rx.ExternFunc):
                    self.report("WF-node-1", f"module member {name!r} is a "
                                f"{type(func).__name__}, not a function", span)
            except RecursionError:
                self.report("WF-limit-1", f"function {name!r} is nested too deeply to check",
                            span)
                relax.leave_all()
            except (TypeError, AttributeError, ValueError, KeyError, IndexError) as err:
                # A field holding the wrong kind of thing (a node where a tuple belongs,
                # None where a node belongs): IR no parser makes, reported not crashed on.
                self.report("WF-node-1", f"function {name!r} holds a malformed node "
                            f"({type(err).__name__}: {err})", span)
                relax.leave_all()
        self.report.function = None
        relax.resolve_pending()
        errors = [e for _, e in self.report.items]
        if check_struct_info:
            errors += _annotation_errors(self.mod, self.functions, self.references,
                                         self.report.blocked_functions())
        return _in_source_order(_unique(errors))

    def define_symbol(self, var: P.Var, function: str, span: Span | None) -> None:
        """WF-sym-4: a symbolic or TIR variable is defined by one top-level function."""
        owner = self.symbol_owner.setdefault(id(var), function)
        if owner != function:
            self.report("WF-sym-4", f"the symbolic variable {var.name!r} is defined in function "
                        f"{owner!r} and again in {function!r}; each function needs its own "
                        f"variable", span)


def _unique(errors: list[RelaxError]) -> list[RelaxError]:
    seen: set = set()
    out = []
    for e in errors:
        key = (type(e), e.rule, e.span, e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _in_source_order(errors: list[RelaxError]) -> list[RelaxError]:
    def key(e: RelaxError):
        s = e.span
        if isinstance(s, Span):
            return (0, str(s.source), s.line, s.column)
        return (1, "", 0, 0)
    return sorted(errors, key=key)


# -- Relax ---------------------------------------------------------------------------------

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
            return f"the packed function {op.global_symbol!r} is called (use " \
                   f"R.call_pure_packed for a pure one)"
        if isinstance(op, rx.GlobalVar):
            target = self.functions.get(op.name_hint)
            if isinstance(target, tir.PrimFunc):
                self.arity(op.name_hint, len(target.params), len(args), span)
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
        if buf.data is not None:
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

def _annotation_errors(mod: rx.IRModule, functions: dict, references: dict[str, set[str]],
                       skip: set[str]) -> list[RelaxError]:
    """The StructInfoErrors normalization finds (WF-sinfo-1), function by function, callees
    first. Functions with structural errors are not normalized: their callers see their
    written signature, or are skipped too when it is incomplete."""
    from relax_ref.semantics.normalize import Normalizer

    normalizer = Normalizer(mod)
    blocked: set[str] = set()
    errors: list[RelaxError] = []

    def give_up(name: str) -> None:
        sig = _written_signature(functions[name])
        if sig is None:
            blocked.add(name)
        else:
            normalizer.func_sinfo[name] = sig

    for name in skip:
        if isinstance(functions.get(name), rx.Function):
            give_up(name)
    for name in _callees_first(references):
        if name in skip or name in normalizer.done:
            continue
        if any(g in blocked for g in references[name]):
            blocked.add(name)
            continue
        func = functions[name]
        try:
            normalizer.global_function(name)
            continue
        except RelaxError as err:
            errors.append(err)
        except RecursionError:
            errors.append(WellFormedError(f"function {name!r} is nested too deeply to "
                                          f"normalize", func.span, rule="WF-limit-1"))
        except Exception as err:  # noqa: BLE001 - a normalizer bug must not crash the check
            errors.append(WellFormedError(f"normalizing {name!r} failed unexpectedly: "
                                          f"{type(err).__name__}: {err}", func.span,
                                          rule="WF-sinfo-1"))
        give_up(name)
    return errors


def _written_signature(func: rx.Function) -> si.FuncStructInfo | None:
    if not isinstance(func.params, tuple):
        return None
    params = tuple(getattr(p, "struct_info", None) for p in func.params)
    if not all(isinstance(p, si.StructInfo) for p in params) or \
            not isinstance(func.ret_struct_info, si.StructInfo):
        return None
    return si.FuncStructInfo(params, func.ret_struct_info, bool(func.is_pure))


def _callees_first(references: dict[str, set[str]]) -> list[str]:
    """The Relax functions in an order where each comes after the functions it references
    (module order otherwise; recursion cycles are broken arbitrarily)."""
    order: list[str] = []
    state: dict[str, int] = {}
    for root in references:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(sorted(references[root])))]
        while stack:
            name, it = stack[-1]
            nxt = next((g for g in it if g in references and g not in state), None)
            if nxt is None:
                stack.pop()
                state[name] = 2
                order.append(name)
            else:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(references[nxt]))))
    return order


__all__ = ["check_well_formed", "assert_well_formed", "RULES"]
