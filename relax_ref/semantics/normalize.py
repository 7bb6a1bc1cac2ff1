"""Normalization: A-normal form with struct info on every expression (spec/struct_info.md,
section "Deduction"; paper section 4.1).

``normalize(mod)`` returns a new module in which

- every call's operands, every tuple's fields, every ``if`` condition and every
  ``TupleGetItem`` operand are leaves (variables, constants, shape/prim/string/dtype
  values, global functions); nested expressions are bound to fresh variables (``lv``,
  ``lv1``, ...) in the enclosing block (SI-anf-1);
- every op call is canonical (operands and attributes bound as TVM binds them,
  defaults filled; SI-call-1);
- every expression carries its deduced struct info, and every binding's variable carries
  its annotation when the text wrote one (checked against deduction: it may be coarser,
  never contradictory or finer; SI-ann-1, SI-ann-2) or else the deduced struct info;
- every function carries a FuncStructInfo; a function without a return annotation
  returns the erasure of its body's struct info to the symbols its parameters define
  (SI-erase-1).

Deduction is forward and local: each binding is deduced once from its operands, so the
cost is linear in the size of the program. A binding that an earlier normalization
produced, whose operands are still the same variables, is not deduced again
(NORM-incremental-1), so a pass that rewrites a few bindings pays little to end in normal
form.
"""
from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL
from relax_ref.ir.numpy_dtype import dtype_of_numpy
from relax_ref.ops.registry import canonicalize_call, deduce_call_sinfo, lookup
from relax_ref.ops.structural import VOID_SINFO
from relax_ref.errors import RelaxWarning, StructInfoError, WellFormedError
from relax_ref.semantics.sinfo_relations import (
    Check, base_check, bind_symbolic, defined_symbols, erase, join, substitute,
)
from relax_ref.solver.analyzer import Analyzer

LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
          rx.GlobalVar, rx.ExternFunc, rx.Op)


def normalize(mod: rx.IRModule) -> rx.IRModule:
    """The normal form of ``mod`` (a new module; ``mod`` is unchanged).

    A module whose Relax functions are the very objects an earlier normalization
    produced, beside PrimFuncs of the same names and return types, is its own normal
    form and is returned as it is (NORM-fixpoint-1): normalizing a Relax function reads
    only the function, the other Relax functions and the PrimFuncs' names and return
    types, and normalization is idempotent. (A pass that only rewrites PrimFuncs, such
    as AnnotateTIROpPattern, then pays nothing to end in normal form.)"""
    key, objects = _fixpoint_key(mod)
    if _FIXPOINTS.get(key) == objects:
        return mod
    out = Normalizer(mod).run()
    out_key, out_objects = _fixpoint_key(out)
    if len(_FIXPOINTS) >= 64:
        _FIXPOINTS.pop(next(iter(_FIXPOINTS)))
    _FIXPOINTS[out_key] = out_objects
    return out


# NORM-fixpoint-1: key -> what identifies a normalized module's Relax functions and
# attributes: weak references to the functions (a dead function's id may be reused, but
# its reference is then dead), the attribute objects themselves (small).
_FIXPOINTS: dict[tuple, tuple] = {}

# NORM-incremental-1: the bindings a normalization produced -> the deduction context
# (the analyzer's facts) they were deduced under. Weak: forgetting one only costs time.
_NORMAL_BINDINGS: "weakref.WeakKeyDictionary[rx.Binding, tuple]" = weakref.WeakKeyDictionary()
# Leaves whose struct info is their own (set when they were normalized).
_SELF_TYPED = (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
               rx.ExternFunc, rx.Op)


def _fixpoint_key(mod: rx.IRModule) -> tuple[tuple, tuple]:
    parts, refs = [], []
    for name, f in mod.functions.items():
        if isinstance(f, tir.PrimFunc):
            parts.append(("T", name, str(f.ret_type)))
        else:
            parts.append(("R", name, id(f)))
            refs.append(_Same(f))
    return (tuple(parts), id(mod.attrs), id(mod.global_infos)), tuple(refs) + (
        _Same(mod.attrs), _Same(mod.global_infos))


class _Same:
    """Equal to another exactly when both refer to the same live object; holds a weak
    reference where the object allows one."""

    __slots__ = ("ref",)

    def __init__(self, obj: object) -> None:
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = lambda obj=obj: obj

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Same):
            return NotImplemented
        mine = self.ref()
        return mine is not None and mine is other.ref()

    __hash__ = None


def print_sinfo(s: si.StructInfo) -> str:
    from relax_ref.ir.text import print_struct_info

    try:
        return print_struct_info(s)
    except Exception:  # noqa: BLE001 - a description must never fail
        return type(s).__name__


@dataclass
class _FunctionScope:
    """What is in scope while normalizing one function (nested functions chain)."""

    analyzer: Analyzer
    defined_syms: set[int]
    names: set[str]
    parent: "_FunctionScope | None" = None
    var_map: dict[int, rx.Var] = field(default_factory=dict)
    # What deduction depends on besides the operands: the analyzer's facts (NORM-incremental-1)
    context: tuple = ()
    hits: set[int] = field(default_factory=set)  # variables looked up (for recursion)
    counters: dict[str, int] = field(default_factory=dict)  # next suffix per name hint

    def __post_init__(self) -> None:
        if self.parent is not None:
            self.hits = self.parent.hits  # one set per outermost function

    def lookup(self, var: rx.Var) -> rx.Var | None:
        scope: _FunctionScope | None = self
        while scope is not None:
            hit = scope.var_map.get(id(var))
            if hit is not None:
                self.hits.add(id(hit))
                return hit
            scope = scope.parent
        return None

    def fresh_name(self, hint: str) -> str:
        if hint not in self.names:
            self.names.add(hint)
            return hint
        # Continue numbering where the last fresh name of this hint stopped, so naming
        # stays linear in the number of bindings.
        i = self.counters.get(hint, 1)
        while f"{hint}{i}" in self.names:
            i += 1
        name = f"{hint}{i}"
        self.names.add(name)
        self.counters[hint] = i + 1
        return name


@dataclass
class _Emitter:
    """Where bindings produced while normalizing one block go."""

    scope: _FunctionScope
    dataflow: bool
    bindings: list[rx.Binding] = field(default_factory=list)

    def emit(self, value: rx.Expr, hint: str = "lv") -> rx.Var:
        cls = rx.DataflowVar if self.dataflow else rx.Var
        var = cls(self.scope.fresh_name(hint), value.struct_info, span=value.span)
        self.append(rx.VarBinding(var, value, span=value.span))
        return var

    def append(self, b: rx.Binding) -> None:
        """``b``, in normal form, joins the block (and is remembered as normal under the
        deduction context of its function: NORM-incremental-1)."""
        _NORMAL_BINDINGS[b] = self.scope.context
        self.bindings.append(b)


# Python's record of the warnings shown once per place (``warnings.warn_explicit``).
_WARNED: dict = {}


class Normalizer:
    def __init__(self, mod: rx.IRModule):
        self.mod = mod
        self.global_vars: dict[str, rx.GlobalVar] = {}
        self.func_sinfo: dict[str, si.StructInfo] = {}
        self.done: dict[str, object] = {}
        self.in_progress: set[str] = set()
        # ids of the variables bound so far: a variable object bound twice (in one function
        # or two) gets a fresh copy the second time, so the output binds each once
        self.bound: set[int] = set()

    def run(self) -> rx.IRModule:
        for name in self.mod.functions:
            self.global_function(name)
        return self.mod.with_functions({name: self.done[name] for name in self.mod.functions})

    # -- functions ---------------------------------------------------------------------------
    def global_function(self, name: str):
        if name in self.done:
            return self.done[name]
        func = self.mod.functions[name]
        if isinstance(func, tir.PrimFunc):
            self.done[name] = func
            return func
        self.in_progress.add(name)
        new = self.function(func, None)
        self.in_progress.discard(name)
        self.done[name] = new
        self.func_sinfo[name] = new.struct_info
        return new

    def signature_sinfo(self, name: str) -> si.StructInfo:
        """The struct info of a module function for its callers."""
        func = self.mod.functions.get(name)
        if func is None:
            return si.ObjectStructInfo()
        if isinstance(func, tir.PrimFunc):
            ret = VOID_SINFO if func.ret_type is None else si.PrimStructInfo(func.ret_type)
            return si.FuncStructInfo(None, ret, False)
        if name in self.func_sinfo:
            return self.func_sinfo[name]
        if name in self.in_progress:
            # A recursive call before the body is known: the written signature, or an
            # opaque function when the return is not annotated.
            params = tuple(p.struct_info for p in func.params)
            ret = func.ret_struct_info or si.ObjectStructInfo()
            return si.FuncStructInfo(params, ret, func.is_pure)
        return self.global_function(name).struct_info

    def function(self, func: rx.Function, parent: _FunctionScope | None) -> rx.Function:
        analyzer = parent.analyzer if parent is not None else Analyzer()
        context = parent.context if parent is not None else self._add_bounds(analyzer, func)
        names = _names_in(func) if parent is None else parent.names
        defined = set(parent.defined_syms) if parent is not None else set()
        for p in func.params:
            if p.struct_info is None:
                raise StructInfoError(f"parameter {p.name_hint!r} has no annotation", p.span,
                                      rule="SI-ann-3")
        param_sinfo = tuple(p.struct_info for p in func.params)
        for v in defined_symbols(param_sinfo):
            defined.add(id(v))
        scope = _FunctionScope(analyzer, defined, names, parent, context=context)
        for p in func.params:
            scope.var_map[id(p)] = p
            self.bound.add(id(p))
        body = self.seq_expr(func.body, scope, body_hint="gv", function_body=True)
        ret = func.ret_struct_info
        if ret is None:
            ret = erase(body.struct_info, scope_syms_of_params(param_sinfo, parent))
        elif base_check(ret, body.struct_info, analyzer) is Check.FAIL:
            # SI-ann-4: allowed, as in TVM; every return of the body fails its check
            # (EXEC-call-4), so say so now.
            span = ret.span or func.span
            # Issued at the program's own file and line, so Python shows (and counts
            # once) the place in the user's text, not a line of ours.
            warnings.warn_explicit(RelaxWarning(
                f"the function's return annotation {print_sinfo(ret)} contradicts the "
                f"deduced {print_sinfo(body.struct_info)}: a call of it fails its return "
                f"check at run time", span, rule="SI-ann-4"), RelaxWarning,
                span.source if span is not None and span.source else "<relax>",
                span.line if span is not None else 0, registry=_WARNED)
        sinfo = si.FuncStructInfo(param_sinfo, ret, func.is_pure)
        return rx.Function(func.params, body, func.ret_struct_info, func.is_pure, func.attrs,
                           func.is_private, sinfo, span=func.span)

    def _add_bounds(self, analyzer: Analyzer, func: rx.Function) -> tuple:
        """``tir_var_upper_bound`` facts (SYM-assume-2); returns them as the deduction
        context of the function's bindings (NORM-incremental-1)."""
        bounds = func.attrs.get("tir_var_upper_bound")
        if not isinstance(bounds, rx.Attrs):
            return ()
        syms = {v.name: v for v in defined_symbols(p.struct_info for p in func.params
                                                   if p.struct_info is not None)}
        facts = []
        for key, value in bounds.items:
            if key in syms and isinstance(value, int):
                analyzer.add_upper_bound(syms[key], value)
                facts.append((id(syms[key]), value))
        return tuple(facts)

    # -- blocks -----------------------------------------------------------------------------------
    def seq_expr(self, seq: rx.SeqExpr, scope: _FunctionScope, body_hint: str,
                 function_body: bool = False) -> rx.SeqExpr:
        """A SeqExpr's symbols (from match_cast inside it) are local to it: its struct
        info is erased to the symbols defined outside (SI-erase-2)."""
        outer_syms = set(scope.defined_syms)
        blocks: list[rx.BindingBlock] = []
        for block in seq.blocks:
            dataflow = isinstance(block, rx.DataflowBlock)
            emitter = _Emitter(scope, dataflow)
            for b in block.bindings:
                self.binding(b, emitter)
            if emitter.bindings:
                cls = rx.DataflowBlock if dataflow else rx.BindingBlock
                blocks.append(cls(tuple(emitter.bindings), span=block.span))
        tail = _Emitter(scope, False)
        body = self.expr(seq.body, tail)
        if not _is_leaf_or_leaf_tuple(body):
            body = tail.emit(body, body_hint)
        if tail.bindings:
            # Joined to a preceding plain block, as the parser reads such text.
            if blocks and type(blocks[-1]) is rx.BindingBlock:
                last = blocks.pop()
                blocks.append(rx.BindingBlock(last.bindings + tuple(tail.bindings),
                                              span=last.span))
            else:
                blocks.append(rx.BindingBlock(tuple(tail.bindings)))
        sinfo = self.sinfo_of(body)
        if not function_body:
            sinfo = erase(sinfo, outer_syms)
            scope.defined_syms.intersection_update(outer_syms)
        return rx.SeqExpr(tuple(blocks), body, sinfo, span=seq.span)

    def binding(self, b: rx.Binding, em: _Emitter) -> None:
        scope = em.scope
        if _NORMAL_BINDINGS.get(b) == scope.context and id(b.var) not in self.bound \
                and self.unchanged(b.value, scope):
            # NORM-incremental-1: deducing it again would give the same binding.
            self.bound.add(id(b.var))
            scope.var_map[id(b.var)] = b.var
            if isinstance(b, rx.MatchCast):
                for v in _bare_symbols(b.struct_info):
                    scope.defined_syms.add(id(v))
            em.bindings.append(b)
            return
        if isinstance(b, rx.MatchCast):
            value = self.leaf(b.value, em)
            target = b.struct_info
            check = base_check(target, value.struct_info, scope.analyzer)
            if check is Check.FAIL:
                raise StructInfoError(
                    f"R.match_cast can never succeed: {print_sinfo(value.struct_info)} "
                    f"cannot match {print_sinfo(target)}", b.span, rule="SI-cast-1")
            for v in _bare_symbols(target):
                scope.defined_syms.add(id(v))
            sinfo = target
            if b.var.struct_info is not None and b.var.struct_info is not target:
                self.check(b.var.struct_info, target, b.span,
                           f"the annotation of {b.var.name_hint!r}", scope.analyzer)
                sinfo = b.var.struct_info
            var = self.bind_var(b.var, sinfo, scope)
            em.append(rx.MatchCast(var, value, target, span=b.span))
            return
        hint = b.var.name_hint
        if isinstance(b.value, rx.Function):
            self.local_function_binding(b, em)
            return
        value = self.expr(b.value, em, if_var_hint=hint)
        deduced = self.sinfo_of(value)
        sinfo = deduced
        if b.var.struct_info is not None:
            if self.check(b.var.struct_info, deduced, b.span, f"the annotation of {hint!r}",
                          scope.analyzer, allow_runtime=True) is Check.RUNTIME:
                # SI-ann-2: a finer annotation is checked where the value is bound.
                if not isinstance(value, LEAVES):
                    value = em.emit(value, f"{hint}_value")
                var = self.bind_var(b.var, b.var.struct_info, scope)
                em.append(rx.MatchCast(var, value, b.var.struct_info, span=b.span))
                return
            sinfo = b.var.struct_info
        var = self.bind_var(b.var, sinfo, scope)
        em.append(rx.VarBinding(var, value, span=b.span))

    def bind_var(self, var: rx.Var, sinfo: si.StructInfo, scope: _FunctionScope) -> rx.Var:
        """The variable of a normalized binding: ``var`` itself where it already carries
        ``sinfo`` and is bound nowhere else (so that the bindings reading it stay as they
        are, NORM-incremental-1), else a copy carrying it."""
        new = var
        if var.struct_info is not sinfo or id(var) in self.bound:
            new = type(var)(var.name_hint, sinfo, span=var.span)
        self.bound.add(id(new))
        scope.var_map[id(var)] = new
        return new

    def unchanged(self, e: rx.Expr, scope: _FunctionScope) -> bool:
        """NORM-incremental-1: whether deducing ``e`` (a value an earlier normalization
        produced) again reads exactly what it read then: it is a leaf, a tuple, a tuple
        item or a call of an operator or packed function, and every variable it reads
        is still itself in scope (so carries the same struct info). A call of a Relax
        function is deduced again (its signature may have changed); a direct call of a
        PrimFunc returning nothing is void in any module."""
        t = type(e)
        if t is rx.Call:
            op = e.op
            if isinstance(op, rx.GlobalVar):
                if not (self.void_prim_func(op) and e.struct_info is VOID_SINFO):
                    return False
            elif not isinstance(op, (rx.Op, rx.ExternFunc)):
                return False
            operands = e.args
        elif t is rx.TupleGetItem:
            operands = (e.tuple_value,)
        else:
            operands = (e,)
        for a in operands:
            if isinstance(a, rx.Var):
                if scope.lookup(a) is not a:
                    return False
            elif not isinstance(a, _SELF_TYPED) and not self.unchanged_composite(a, scope):
                return False
        return True

    def unchanged_composite(self, e: rx.Expr, scope: _FunctionScope) -> bool:
        """An operand other than a variable or a self-typed leaf."""
        if isinstance(e, rx.Tuple):
            return all(scope.lookup(f) is f if isinstance(f, rx.Var) else
                       isinstance(f, _SELF_TYPED) or self.unchanged_composite(f, scope)
                       for f in e.fields)
        if isinstance(e, rx.GlobalVar):  # call_tir's callee
            return self.void_prim_func(e)
        return False

    def void_prim_func(self, gv: rx.GlobalVar) -> bool:
        f = self.mod.functions.get(gv.name_hint)
        return isinstance(f, tir.PrimFunc) and f.ret_type is None

    def local_function_binding(self, b: rx.VarBinding, em: _Emitter) -> None:
        """A local function may call itself: its variable is in scope in its own body,
        with the struct info of its signature (SI-fn-local-1). When the body does not
        use it, the variable gets the fully deduced struct info instead."""
        scope = em.scope
        func = b.value
        params = tuple(p.struct_info for p in func.params)
        signature = si.FuncStructInfo(params, func.ret_struct_info or si.ObjectStructInfo(),
                                      func.is_pure)
        own = type(b.var)(b.var.name_hint, b.var.struct_info or signature, span=b.var.span)
        scope.var_map[id(b.var)] = own
        scope.hits.discard(id(own))
        value = self.function(func, scope)
        if id(own) in scope.hits:
            var = own
        else:
            sinfo = value.struct_info
            if b.var.struct_info is not None:
                self.check(b.var.struct_info, sinfo, b.span,
                           f"the annotation of {b.var.name_hint!r}", scope.analyzer)
                sinfo = b.var.struct_info
            var = type(b.var)(b.var.name_hint, sinfo, span=b.var.span)
            scope.var_map[id(b.var)] = var
        em.bindings.append(rx.VarBinding(var, value, span=b.span))

    def check(self, annotation: si.StructInfo, deduced: si.StructInfo, span, what: str,
              analyzer: Analyzer, allow_runtime: bool = False) -> Check:
        """A written annotation may be coarser than what is deduced, never contradictory
        (SI-ann-1); finer only where the caller checks it at run time (SI-ann-2)."""
        result = base_check(annotation, deduced, analyzer)
        if result is Check.FAIL:
            raise StructInfoError(f"{what} {print_sinfo(annotation)} contradicts the deduced "
                                  f"{print_sinfo(deduced)}", span, rule="SI-ann-1")
        if result is Check.RUNTIME and not allow_runtime:
            raise StructInfoError(f"{what} {print_sinfo(annotation)} is finer than what can be "
                                  f"deduced ({print_sinfo(deduced)}); use R.match_cast to check "
                                  f"it at run time", span, rule="SI-ann-2")
        return result

    # -- expressions --------------------------------------------------------------------------
    def leaf(self, e: rx.Expr, em: _Emitter, hint: str = "lv") -> rx.Expr:
        """``e`` normalized and, unless it is a leaf, bound to a fresh variable."""
        value = self.expr(e, em)
        if isinstance(value, LEAVES):
            return value
        return em.emit(value, hint)

    def expr(self, e: rx.Expr, em: _Emitter, if_var_hint: str | None = None) -> rx.Expr:
        scope = em.scope
        if isinstance(e, rx.Var):
            mapped = scope.lookup(e)
            if mapped is None:
                raise WellFormedError(f"variable {e.name_hint!r} is used before it is defined",
                                      e.span, rule="WF-var-1")
            return mapped
        if isinstance(e, rx.Call):
            return self.call(e, em)
        if isinstance(e, rx.GlobalVar):
            if e.name_hint not in self.mod.functions:
                raise WellFormedError(f"the module has no function {e.name_hint!r}", e.span,
                                      rule="WF-global-1")
            return e
        if isinstance(e, rx.Constant):
            return rx.Constant(e.data, constant_sinfo(e), span=e.span)
        if isinstance(e, rx.ShapeExpr):
            return rx.ShapeExpr(e.values, si.ShapeStructInfo(e.values), span=e.span)
        if isinstance(e, rx.PrimValue):
            return rx.PrimValue(e.value, si.PrimStructInfo(e.value.dtype, e.value), span=e.span)
        if isinstance(e, rx.StringImm):
            return rx.StringImm(e.value, si.ObjectStructInfo(), span=e.span)
        if isinstance(e, rx.DataTypeImm):
            return rx.DataTypeImm(e.value, si.ObjectStructInfo(), span=e.span)
        if isinstance(e, rx.ExternFunc):
            # SI-extern-1: a written R.Callable is kept (its purity decides WF-pure-*);
            # else nothing is known, and a packed function may have effects.
            sinfo = e.struct_info if isinstance(e.struct_info, si.FuncStructInfo) else \
                si.FuncStructInfo(None, si.ObjectStructInfo(), False)
            return rx.ExternFunc(e.global_symbol, sinfo, span=e.span)
        if isinstance(e, rx.Op):
            return e
        if isinstance(e, rx.Tuple):
            fields = tuple(self.leaf(f, em) for f in e.fields)
            return rx.Tuple(fields, si.TupleStructInfo(tuple(self.sinfo_of(f) for f in fields)),
                            span=e.span)
        if isinstance(e, rx.TupleGetItem):
            tup = self.leaf(e.tuple_value, em)
            ts = tup.struct_info
            if isinstance(ts, si.TupleStructInfo):
                if not 0 <= e.index < len(ts.fields):
                    raise StructInfoError(f"index {e.index} is out of range for a tuple of "
                                          f"{len(ts.fields)} fields", e.span, rule="SI-tuple-1")
                sinfo = ts.fields[e.index]
            elif isinstance(ts, si.ObjectStructInfo):
                sinfo = si.ObjectStructInfo()
            else:
                raise StructInfoError(f"only tuples can be indexed, not {print_sinfo(ts)}",
                                      e.span, rule="SI-tuple-1")
            return rx.TupleGetItem(tup, e.index, sinfo, span=e.span)
        if isinstance(e, rx.If):
            return self.if_expr(e, em, if_var_hint or "lv")
        if isinstance(e, rx.SeqExpr):
            return self.seq_expr(e, scope, body_hint="lv")
        if isinstance(e, rx.Function):
            return self.function(e, scope)
        raise StructInfoError(f"cannot normalize {type(e).__name__}", getattr(e, "span", None),
                              rule="SI-anf-1")

    def call(self, e: rx.Call, em: _Emitter) -> rx.Call:
        scope = em.scope
        op = e.op
        if isinstance(op, rx.Op):
            opdef = lookup(op.name)
            if opdef is None:
                raise StructInfoError(f"unknown operator {op.name.replace('relax.', 'R.')}",
                                      e.span, rule="SI-op-unknown-1")
            canonical = canonicalize_call(e)
            args = tuple(self.operand(a, em) for a in canonical.args)
            final_def = lookup(canonical.op.name) or opdef
            if final_def.call_kind.dps and len(args) > 1 and \
                    not isinstance(self.sinfo_of(args[1]), si.TupleStructInfo):
                # SI-struct-dps-2: one argument that is not a tuple is the tuple of it,
                # as TVM's _wrap_inline_arg_tuple makes it once its struct info is known.
                wrapped = rx.Tuple((args[1],), si.TupleStructInfo((self.sinfo_of(args[1]),)),
                                   span=args[1].span)
                args = (args[0], wrapped) + args[2:]
            # The canonical op may differ from the written one (SI-call-4).
            new = rx.Call(canonical.op, args, canonical.attrs, canonical.sinfo_args, span=e.span)
            sinfo = deduce_call_sinfo(new, [self.sinfo_of(a) for a in args], scope.analyzer)
            new = _with_sinfo(new, sinfo)
            if final_def.finalize is not None:
                new = final_def.finalize(new, sinfo)
            return new
        callee = self.expr(op, em) if not isinstance(op, rx.GlobalVar) else op
        if isinstance(op, rx.GlobalVar) and op.name_hint not in self.mod.functions:
            raise WellFormedError(f"the module has no function {op.name_hint!r}", op.span,
                                  rule="WF-global-1")
        args = tuple(self.leaf(a, em) for a in e.args)
        new = rx.Call(callee, args, e.attrs, e.sinfo_args, span=e.span)
        if isinstance(callee, rx.ExternFunc):
            sinfo = e.sinfo_args[0] if len(e.sinfo_args) == 1 else (
                si.TupleStructInfo(tuple(e.sinfo_args)) if e.sinfo_args else si.ObjectStructInfo())
            return _with_sinfo(new, sinfo)
        fsinfo = self.signature_sinfo(op.name_hint) if isinstance(op, rx.GlobalVar) \
            else callee.struct_info
        return _with_sinfo(new, self.derive_call(fsinfo, args, e, scope))

    def sinfo_of(self, e: rx.Expr) -> si.StructInfo:
        """The struct info of a normalized expression (global functions have theirs in
        the module)."""
        if isinstance(e, rx.GlobalVar):
            return self.signature_sinfo(e.name_hint)
        if isinstance(e, rx.Op):
            return si.ObjectStructInfo()
        return e.struct_info

    def operand(self, a: rx.Expr, em: _Emitter) -> rx.Expr:
        """An op operand: a leaf, or a tuple of leaves (e.g. call_tir's arguments)."""
        if isinstance(a, rx.Tuple):
            return self.expr(a, em)
        return self.leaf(a, em)

    def derive_call(self, fsinfo, args: tuple[rx.Expr, ...], call: rx.Call,
                    scope: _FunctionScope) -> si.StructInfo:
        """The result of calling a function of struct info ``fsinfo`` (SI-call-fn-1..3):
        its return with the callee's symbols replaced by the caller's expressions; what
        cannot be expressed in the caller's terms is erased."""
        if not isinstance(fsinfo, si.FuncStructInfo):
            if isinstance(fsinfo, si.ObjectStructInfo):
                return si.ObjectStructInfo()
            raise StructInfoError(f"{print_sinfo(fsinfo)} is not callable", call.span,
                                  rule="SI-call-fn-1")
        if fsinfo.params is None:
            return fsinfo.ret
        if len(fsinfo.params) != len(args):
            # The arity rule is WF-call-1 (well_formed.py); normalization, which may run
            # on IR that was never checked, enforces the same rule.
            raise StructInfoError(f"the function takes {len(fsinfo.params)} arguments but is "
                                  f"called with {len(args)}", call.span, rule="WF-call-1")
        arg_sinfo = [self.sinfo_of(a) for a in args]
        mapping = bind_symbolic(fsinfo.params, arg_sinfo)
        for i, (p, a) in enumerate(zip(fsinfo.params, arg_sinfo)):
            p = substitute(p, mapping)
            if base_check(p, a, scope.analyzer) is Check.FAIL:
                raise StructInfoError(f"argument {i} has struct info {print_sinfo(a)}, which "
                                      f"can never match the parameter's {print_sinfo(p)}",
                                      call.span, rule="SI-call-fn-2")
        callee_syms = {id(v) for v in defined_symbols(fsinfo.params)}
        ret = substitute(fsinfo.ret, mapping)
        # Symbols of the callee that the arguments did not determine are unknown here.
        known = (scope.defined_syms - callee_syms) | {
            id(v) for e in mapping.values() for v in P.free_vars(e)}
        known |= {id(v) for v in _all_caller_symbols(arg_sinfo)}
        return erase(ret, known)

    def if_expr(self, e: rx.If, em: _Emitter, var_hint: str) -> rx.If:
        scope = em.scope
        cond = self.leaf(e.cond, em)
        cs = cond.struct_info
        ok = (isinstance(cs, si.TensorStructInfo) and _may_hold_one_element(cs)
              and (cs.dtype.is_bool or cs.dtype.is_void)) or \
             (isinstance(cs, si.PrimStructInfo) and cs.dtype == BOOL) or \
             isinstance(cs, si.ObjectStructInfo)
        if not ok:
            raise StructInfoError(f"the condition of an if must be a bool scalar, not "
                                  f"{print_sinfo(cs)}", e.span, rule="SI-if-1")
        then_b = self.seq_expr(e.true_branch, scope, body_hint=f"{var_hint}_then")
        else_b = self.seq_expr(e.false_branch, scope, body_hint=f"{var_hint}_else")
        sinfo = join(then_b.struct_info, else_b.struct_info, scope.analyzer)
        return rx.If(cond, then_b, else_b, sinfo, span=e.span)


def _may_hold_one_element(t: si.TensorStructInfo) -> bool:
    """SI-if-1: a tensor condition holds one element: 0-d, or every dimension 1 (TVM's
    ONNX importer writes ``R.Tensor((1,), "bool")``), or not known statically (then the
    interpreter checks it, EXEC-if-1). A static dimension other than 1 is an error, where
    TVM's VM would silently read the first element."""
    if t.shape is None:
        return True
    return all(not isinstance(d, P.IntImm) or d.value == 1 for d in t.shape)


def constant_sinfo(c: rx.Constant) -> si.TensorStructInfo:
    dims = tuple(P.IntImm(d) for d in c.data.shape)
    return si.TensorStructInfo(dims, dtype_of_numpy(c.data.dtype))


def scope_syms_of_params(param_sinfo, parent: _FunctionScope | None) -> set[int]:
    out = {id(v) for v in defined_symbols(param_sinfo)}
    if parent is not None:
        out |= parent.defined_syms
    return out


def _bare_symbols(s: si.StructInfo) -> list[P.Var]:
    return defined_symbols([s])


def _all_caller_symbols(arg_sinfo) -> list[P.Var]:
    from relax_ref.semantics.sinfo_relations import free_symbols

    out = []
    for a in arg_sinfo:
        out.extend(free_symbols(a))
    return out


def _is_leaf_or_leaf_tuple(e: rx.Expr) -> bool:
    if isinstance(e, LEAVES):
        return True
    if isinstance(e, rx.Tuple):
        return all(isinstance(f, LEAVES) for f in e.fields)
    return False


def _with_sinfo(call: rx.Call, sinfo: si.StructInfo) -> rx.Call:
    return rx.Call(call.op, call.args, call.attrs, call.sinfo_args, sinfo, span=call.span)


def _names_in(func: rx.Function) -> set[str]:
    """Every variable name bound anywhere in ``func``, so fresh names never collide."""
    names: set[str] = set()
    _names_in_value(func, names)
    return names


def _names_in_value(e, names: set[str]) -> None:
    if isinstance(e, rx.SeqExpr):
        for block in e.blocks:
            for b in block.bindings:
                names.add(b.var.name_hint)
                _names_in_value(b.value, names)
        _names_in_value(e.body, names)
    elif isinstance(e, rx.If):
        _names_in_value(e.true_branch, names)
        _names_in_value(e.false_branch, names)
    elif isinstance(e, rx.Function):
        for p in e.params:
            names.add(p.name_hint)
        _names_in_value(e.body, names)
