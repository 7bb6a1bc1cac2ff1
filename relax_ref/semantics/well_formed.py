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

This module holds the rules' table, the drivers and the annotation check; the walks are
``well_formed_relax`` (Relax functions) and ``well_formed_tir`` (PrimFuncs).
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.span import Span
from relax_ref.errors import RelaxError, WellFormedError
from relax_ref.semantics.well_formed_relax import FORCE_PURE, _RelaxChecker
from relax_ref.semantics.well_formed_tir import _TirChecker

__all__ = ["RULES", "FORCE_PURE", "check_well_formed", "assert_well_formed"]

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
