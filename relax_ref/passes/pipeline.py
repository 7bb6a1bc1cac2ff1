"""Pipelines of passes and the IR forms they require and produce (spec/passes.md,
PASS-pipe-*).

    pipe = Pipeline(["LambdaLift", "ToNonDataflow", "DeadCodeElimination"])
    out = pipe(mod)                            # every form claim checked on the way
    out = pipe.run(mod, verify=3, seed=0)      # and each pass through check_pass

A *form* is a property of a whole module that some pass needs or establishes, named by a
short string (``FORMS``). ``Pass.requires`` lists the forms the pass needs on its input;
``Pass.produces`` those it promises on its output. A pipeline checks both at every step,
so a pass run out of order fails with the form that is missing and the pass that should
have made it, and a pass that breaks its own promise is caught where it does so.

``Pipeline.as_pass()`` is the pipeline as one Pass (TVM's ``Sequential``): exact when
every pass is, its requirements those of the first pass that needs each form and no
earlier pass makes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from relax_ref.ir import relax as rx

from .registry import Pass, get_pass
from .rewrite import Rewriter


class PipelineError(ValueError):
    """A form a pass requires is missing, or a pass did not produce what it claims."""


# -- forms ------------------------------------------------------------------------------------

def _find(mod: rx.IRModule, what: Callable[[object, bool], str | None]) -> str | None:
    """The first place (as text) where ``what(node, nested)`` objects, over every Relax
    function's blocks and expressions; ``nested`` says the node is inside a local
    function."""
    found: list[str] = []

    class _Walk(Rewriter):
        def __init__(self, name: str):
            super().__init__()
            self.name, self.depth = name, 0

        def note(self, node) -> None:
            if not found:
                why = what(node, self.depth > 0)
                if why:
                    found.append(f"{self.name}: {why}")

        def block(self, block):
            self.note(block)
            return super().block(block)

        def expr(self, e):
            self.note(e)
            if isinstance(e, rx.Function):
                self.depth += 1
                try:
                    return super().expr(e)
                finally:
                    self.depth -= 1
            return super().expr(e)

    for name, f in mod.functions.items():
        if isinstance(f, rx.Function) and not found:
            _Walk(name).function(f)
    return found[0] if found else None


def _no_dataflow_blocks(mod: rx.IRModule) -> str | None:
    return _find(mod, lambda n, _: "a dataflow block"
                 if isinstance(n, rx.DataflowBlock) else None)


def _no_local_functions(mod: rx.IRModule) -> str | None:
    return _find(mod, lambda n, _: f"the local function at {n.span}"
                 if isinstance(n, rx.Function) else None)


#: PASS-pipe-1: form name -> check (None when ``mod`` has the form, else where it does not).
FORMS: dict[str, Callable[[rx.IRModule], str | None]] = {
    "no dataflow blocks": _no_dataflow_blocks,
    "no local functions": _no_local_functions,
}


def missing_form(form: str, mod: rx.IRModule) -> str | None:
    """None when ``mod`` has ``form``, else where it does not."""
    check = FORMS.get(form)
    if check is None:
        raise KeyError(f"unknown IR form {form!r} (forms: {', '.join(sorted(FORMS))})")
    return check(mod)


# -- pipelines --------------------------------------------------------------------------------

@dataclass
class StepReport:
    name: str
    trials: int = 0       # check_pass's comparisons (0 without verify)
    compared: int = 0
    traps_matched: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class Pipeline:
    """Passes run in order (PASS-pipe-2); give them as Pass objects or TVM's names."""

    passes: list[Pass]

    def __init__(self, passes: Iterable[Pass | str]):
        self.passes = [p if isinstance(p, Pass) else get_pass(p) for p in passes]
        for p in self.passes:
            for form in (*p.requires, *p.produces):
                if form not in FORMS:
                    raise KeyError(f"pass {p.name} names the unknown IR form {form!r}")

    def __call__(self, mod: rx.IRModule) -> rx.IRModule:
        return self.run(mod)[0]

    def run(self, mod: rx.IRModule, *, verify: int = 0, seed: int = 0,
            on_step: Callable[[StepReport], None] | None = None
            ) -> tuple[rx.IRModule, list[StepReport]]:
        """Run every pass; with ``verify`` > 0 check each on the module it receives
        with ``check_pass(trials=verify)`` (PassVerificationError on a failure).
        ``on_step`` sees each step's report as soon as the pass has run."""
        from .verify import check_pass

        reports = []
        for k, p in enumerate(self.passes):
            for form in p.requires:
                where = missing_form(form, mod)
                if where:
                    makers = [q.name for q in self.passes[:k] if form in q.produces] or \
                        sorted(q.name for q in _producers(form))
                    raise PipelineError(
                        f"{p.name} requires {form!r}, but the module it receives has {where}; "
                        f"run {' or '.join(makers) or 'a pass that produces it'} first")
            step = StepReport(p.name)
            if verify > 0:
                r = check_pass(p, mod, trials=verify, seed=seed)
                step.trials, step.compared, step.traps_matched = r.trials, r.compared, \
                    r.traps_matched
                step.notes = list(r.notes)
            mod = p(mod)
            for form in p.produces:
                where = missing_form(form, mod)
                if where:
                    raise PipelineError(f"{p.name} claims to produce {form!r}, but its result "
                                        f"has {where} (a bug in {p.name})")
            reports.append(step)
            if on_step is not None:
                on_step(step)
        return mod, reports

    def as_pass(self, name: str | None = None) -> Pass:
        """The pipeline as one Pass (TVM's Sequential), checking forms as it runs. It
        requires what some pass needs before an earlier one makes it, and promises only
        what its last pass produces (a pass may undo a form an earlier one made:
        ConvertToDataflow after ToNonDataflow)."""
        requires: list[str] = []
        made: set[str] = set()
        for p in self.passes:
            requires += [f for f in p.requires if f not in made and f not in requires]
            made |= set(p.produces)
        return Pass(name or "Sequential[" + ",".join(p.name for p in self.passes) + "]",
                    self.__call__, exact=all(p.exact for p in self.passes),
                    requires=tuple(requires),
                    produces=self.passes[-1].produces if self.passes else (),
                    may_remove_traps=any(p.may_remove_traps for p in self.passes))


def _producers(form: str) -> list[Pass]:
    from .registry import all_passes

    return [p for p in all_passes().values() if form in p.produces]
