"""FuseOpsByPattern (TVM's name): each match of a named pattern inside a dataflow block
becomes a call of a private function marked ``Composite`` (the pattern's name) and
``Primitive`` holding the matched bindings (spec/passes.md, PASS-pattern-match-*).

Patterns are tried in the order given; within one, bindings in program order; a binding
already in a match joins no other (PASS-pattern-match-4). A match is lifted only when the
values it computes before its last binding are read nowhere else (PASS-pattern-match-5)
and every symbolic variable it mentions is defined by the shapes of what it reads
(PASS-pattern-match-6); otherwise it is left as it is. Nothing is computed differently,
so the pass is exact.
"""
from __future__ import annotations

from typing import Callable, Sequence

from relax_ref.ir import relax as rx
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.analyzer import Analyzer

from .added_functions import AddedFunctions, finish_with_lifted
from .patterns import MatchState, Pattern, match_binding
from .references import arg_sinfo
from .registry import Pass, register_pass
from .rewrite import Rewriter, finish, used_var_list
from .symbols import fresh_symbols, substitute_symbols, symbols_of

#: (name, pattern) or (name, pattern, check); ``check(state)`` may refuse a match.
PatternEntry = tuple


def fuse_ops_by_pattern(patterns: Sequence[PatternEntry], bind_constants: bool = True,
                        annotate_codegen: bool = False) -> Pass:
    """FuseOpsByPattern with TVM's options. ``bind_constants=False`` passes the matched
    constants as parameters; ``annotate_codegen=True`` wraps each Composite function in a
    public function marked ``Codegen`` (PASS-pattern-match-8)."""
    entries = [_entry(p) for p in patterns]

    def run(mod: rx.IRModule) -> rx.IRModule:
        return _fuse(mod, entries, bind_constants, annotate_codegen)

    return Pass("FuseOpsByPattern", run, exact=True,
                doc=f"FuseOpsByPattern({[e[0] for e in entries]}"
                    f"{', annotate_codegen=True' if annotate_codegen else ''})",
                options={"patterns": [e[0] for e in entries],
                         "bind_constants": bind_constants,
                         "annotate_codegen": annotate_codegen})


def _entry(p) -> tuple[str, Pattern, Callable[[MatchState], bool] | None]:
    if len(p) == 2:
        return p[0], p[1], None
    if len(p) == 3:
        return p[0], p[1], p[2]
    raise ValueError(f"a FuseOpsByPattern pattern is (name, pattern) or (name, pattern, "
                     f"check), found {p!r}")


def _library_instance(mod: rx.IRModule, rng) -> Pass:
    """PASS-fuzz-2: fuzzing runs the pass with the library table's patterns and a few
    drawn from the program itself (so that most programs hold a match)."""
    from .drawn_patterns import drawn_patterns
    from .library import library_patterns
    return fuse_ops_by_pattern(list(library_patterns()) + drawn_patterns(mod, rng))


@register_pass("FuseOpsByPattern", exact=True, instantiate=_library_instance)
def _fuse_nothing(mod: rx.IRModule) -> rx.IRModule:
    """FuseOpsByPattern with no patterns (the identity); build one with
    ``fuse_ops_by_pattern(patterns)``."""
    return finish(mod)


def _fuse(mod: rx.IRModule, entries, bind_constants: bool,
          annotate_codegen: bool = False) -> rx.IRModule:
    mod = normalize(mod)
    fusor = _Fusor(mod, entries, bind_constants, annotate_codegen)
    out = fusor.module(mod)
    if not fusor.added:
        return out
    # a Codegen function's Composite function gets its return annotation too
    return finish_with_lifted(out, fusor.added, _annotate_local if annotate_codegen else None)


def _annotate_local(body: rx.SeqExpr) -> rx.SeqExpr:
    """The Codegen function's body with its Composite function's return annotated."""
    first = body.blocks[0]
    b = first.bindings[0]
    f = b.value
    local = rx.Function(f.params, f.body, f.body.struct_info, f.is_pure, f.attrs,
                        f.is_private, span=f.span)
    block = type(first)((rx.VarBinding(b.var, local, span=b.span),) + first.bindings[1:],
                        span=first.span)
    return rx.SeqExpr((block,) + body.blocks[1:], body.body, span=body.span)


def _skipped(func: rx.Function) -> bool:
    return any(func.attrs.get(k) is not None for k in ("Primitive", "Composite", "Codegen"))


class _Fusor(Rewriter):
    def __init__(self, mod: rx.IRModule, entries, bind_constants: bool,
                 annotate_codegen: bool = False):
        super().__init__()
        self.mod, self.entries, self.bind_constants = mod, entries, bind_constants
        self.annotate_codegen = annotate_codegen
        self.added = AddedFunctions(mod)
        self.analyzer = Analyzer()

    def function(self, func: rx.Function) -> rx.Function:
        return func if _skipped(func) else super().function(func)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        block = super().block(block)  # local functions inside first
        if not isinstance(block, rx.DataflowBlock) or not self.entries:
            return block
        bindings = list(block.bindings)
        groups = self.groups(bindings)
        if not groups:
            return block
        out: list[rx.Binding] = []
        member_of = {m: root for root, (members, _) in groups.items() for m in members}
        for i, b in enumerate(bindings):
            if i in groups:
                members, name = groups[i]
                out.append(self.lift([bindings[m] for m in members], name))
            elif i not in member_of:
                out.append(b)
        return rx.DataflowBlock(tuple(out), span=block.span)

    def groups(self, bindings: list[rx.Binding]) -> dict[int, tuple[list[int], str]]:
        """PASS-pattern-match-4, -5: root index -> (member indices, pattern name)."""
        index = {id(b.var): i for i, b in enumerate(bindings)}
        bound = {id(b.var): b.value for b in bindings if isinstance(b, rx.VarBinding)}
        readers: dict[int, set[int]] = {}
        for i, b in enumerate(bindings):
            for v in used_var_list(b.value):
                if id(v) in index:
                    readers.setdefault(index[id(v)], set()).add(i)
        claimed: set[int] = set()
        found: dict[int, tuple[list[int], str]] = {}
        for name, pattern, check in self.entries:
            for i, b in enumerate(bindings):
                if i in claimed or not isinstance(b, rx.VarBinding):
                    continue
                state = match_binding(pattern, b.var, bound, self.analyzer)
                if state is None or id(b.var) not in state.taken:
                    continue
                members = sorted(index[k] for k in state.taken)
                if members[-1] != i or claimed.intersection(members):
                    continue
                inner_ok = all(isinstance(bindings[m].var, rx.DataflowVar)
                               and readers.get(m, set()) <= set(members)
                               for m in members if m != i)
                if not inner_ok or (check is not None and not check(state)):
                    continue
                if not self.symbols_defined([bindings[m] for m in members]):
                    continue
                claimed.update(members)
                found[i] = (members, name)
        return found

    def symbols_defined(self, members: list[rx.Binding]) -> bool:
        """PASS-pattern-match-6: the parameters' shapes define every symbolic variable."""
        func = self.build(members, "")[0]
        defined = {id(v) for v in defined_symbols(p.struct_info for p in func.params
                                                  if p.struct_info is not None)}
        return all(k in defined for k in symbols_of(func).used)

    def build(self, members: list[rx.Binding], name: str):
        """The lifted function and the arguments its call passes."""
        member_ids = {id(b.var) for b in members}
        arguments: list[rx.Expr] = []
        params: list[rx.Var] = []
        renames: dict[int, rx.Expr] = {}
        constants: list[tuple[rx.Constant, rx.Var]] = []

        for b in members:
            for v in used_var_list(b.value):
                if id(v) not in member_ids and id(v) not in renames:
                    p = rx.Var(v.name_hint, v.struct_info, span=v.span)
                    renames[id(v)] = p
                    arguments.append(v)
                    params.append(p)
            if not self.bind_constants:
                for c in _constants(b.value):
                    if not any(c is k for k, _ in constants):
                        p = rx.Var(f"param_{len(constants)}", arg_sinfo(c, self.mod))
                        constants.append((c, p))
                        arguments.append(c)
                        params.append(p)
        root = members[-1].var
        for b in members:
            renames[id(b.var)] = rx.Var("gv", span=b.var.span) if b.var is root \
                else rx.DataflowVar(b.var.name_hint, span=b.var.span)

        class _Lift(Rewriter):
            def expr(self, e):
                for c, p in constants:
                    if c is e:
                        return p
                return super().expr(e)

        lift = _Lift()
        lift.var_map.update(renames)
        body = [nb for b in members for nb in lift.binding(b)]
        attrs = rx.Attrs.of({"Composite": name, "Primitive": True})
        seq = rx.SeqExpr((rx.DataflowBlock(tuple(body)),), renames[id(root)])
        func = rx.Function(tuple(params), seq, None, True, attrs, True)
        return func, arguments

    def lift(self, members: list[rx.Binding], name: str) -> rx.Binding:
        """PASS-pattern-match-1: the call of the Composite function for one match."""
        func, arguments = self.build(members, name)
        func = substitute_symbols(func, fresh_symbols(symbols_of(func).used.values()),
                                  fresh=False)
        label = "_".join(_label(b.value) for b in members)
        hint = f"fused_{label}"
        if self.annotate_codegen:
            codegen = name.split(".")[0]
            func, hint = _codegen_function(func, codegen), f"{hint}_{codegen}"
        gv = self.add_function(hint, func)
        return rx.VarBinding(members[-1].var, rx.Call(gv, tuple(arguments)))

    def add_function(self, name_hint: str, func) -> rx.GlobalVar:
        return self.added.add(name_hint, func)


def _codegen_function(composite: rx.Function, codegen: str) -> rx.Function:
    """PASS-pattern-match-8: TVM's ``annotate_codegen=True`` form. A public function marked
    ``Codegen`` (the pattern name's first component) whose body binds the Composite
    function (marked ``Composite`` only) as a local function and returns its call."""
    params = tuple(rx.Var(p.name_hint, p.struct_info, span=p.span) for p in composite.params)
    inner = rx.Function(composite.params, composite.body, None, True,
                        rx.Attrs.of({"Composite": composite.attrs.get("Composite")}), False)
    local = rx.Var("local_func")
    output = rx.Var("output")
    block = rx.BindingBlock((rx.VarBinding(local, inner),
                             rx.VarBinding(output, rx.Call(local, params))))
    return rx.Function(params, rx.SeqExpr((block,), output), None, True,
                       rx.Attrs.of({"Codegen": codegen}), False)


def _label(value: rx.Expr) -> str:
    if isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
        if value.op.name == "relax.call_tir" and isinstance(value.args[0], rx.GlobalVar):
            return value.args[0].name_hint
        return value.op.name.replace(".", "_")
    return type(value).__name__.lower()


def _constants(e: rx.Expr) -> list[rx.Constant]:
    found: list[rx.Constant] = []

    class _Walk(Rewriter):
        def expr(self, x):
            if isinstance(x, rx.Constant) and not any(x is c for c in found):
                found.append(x)
            return super().expr(x)
    _Walk().expr(e)
    return found
