"""Pipelines of passes and the IR forms they require and produce (spec/passes.md,
PASS-pipe-*).

    pipe = Pipeline(["LambdaLift", "ToNonDataflow", "DeadCodeElimination"])
    out = pipe(mod)                            # every form claim checked on the way
    out, steps = pipe.run(mod, check=c)        # and each pass through c(pass, module)

The forms (``registry.FORMS``) are properties of a whole module; ``Pass.requires`` lists
those a pass needs on its input, ``Pass.produces`` those it promises on its output. A
pipeline checks both at every step, so a pass run out of order fails with the form that
is missing and the pass that should have made it, and a pass that breaks its own promise
is caught where it does so. The differential check lives above the passes
(``relax_ref.verify.verify_pipeline`` passes ``check_pass`` as ``check``), so no pass
module imports the harness.

``Pipeline.as_pass()`` is the pipeline as one Pass (TVM's ``Sequential``): exact when
every pass is, its requirements those of the first pass that needs each form and no
earlier pass makes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from relax_ref.ir import relax as rx

from .registry import FORMS, Pass, all_passes, cycle_collection_paused, get_pass, missing_form


class PipelineError(ValueError):
    """A form a pass requires is missing, or a pass did not produce what it claims."""


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
        with cycle_collection_paused():
            return self.run(mod)[0]

    def run(self, mod: rx.IRModule, *, check: Callable | None = None,
            on_step: Callable[[StepReport], None] | None = None,
            after_step: Callable[[Pass, rx.IRModule], None] | None = None,
            ) -> tuple[rx.IRModule, list[StepReport]]:
        """Run every pass. ``check(pass, module)``, when given, is called on the module
        each pass receives before the pass runs (``relax_ref.verify.check_pass`` with its
        options; it raises on a failure) and returns a report whose trial counts the
        step keeps. ``on_step`` sees each step's report as soon as the pass has run;
        ``after_step(pass, module)`` sees the module each pass returns."""
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
            if check is not None:
                r = check(p, mod)
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
            if after_step is not None:
                after_step(p, mod)
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
    return [p for p in all_passes().values() if form in p.produces]


#: PASS-pipe-4: named pipelines (``relax-ref opt --pipeline NAME``), TVM's pass order.
PIPELINES: dict[str, tuple[str, ...]] = {
    # Lowering and fusion (paper Fig. 13, its first half).
    "fuse": ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"),
    # TVM 0.27's default build pipeline (lowering_stages.TVM_DEFAULT_ORDER, PASS-pipe-5),
    # less RewriteCUDAGraph (TVM's is a no-op off CUDA targets; "default_cuda_graph" below
    # has it).
    "default": ("DispatchSampling", "DispatchSortScan", "LegalizeOps", "RewriteDataflowReshape",
                "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite",
                "StaticPlanBlockMemory", "LowerAllocTensor", "KillAfterLastUse",
                "LowerRuntimeBuiltin", "ComputePrimValue", "VMShapeLower",
                "AttachGlobalSymbol"),
}
# PASS-cudagraph-7: TVM's default pipeline for CUDA with relax.backend.use_cuda_graph.
PIPELINES["default_cuda_graph"] = tuple(
    p for name in PIPELINES["default"]
    for p in ((name, "RewriteCUDAGraph") if name == "StaticPlanBlockMemory" else (name,)))
