"""Fuzzing a pass against the interpreter (DESIGN.md decision 8; `relax-ref fuzz`).

``run_campaign(pass_name, seconds, seed, out_dir, programs=N)`` generates random well-formed modules
(``testing.strategies``), runs ``relax_ref.verify.check_pass`` on each, and saves each
distinct failure, shrunk, as

- ``<out>/<pass>-<k>.py``: the module the pass fails on (TVMScript, ``print_module``);
- ``<out>/<pass>-<k>.npz``: the failing inputs ``in_0, in_1, ...`` (the samples'
  convention: tuples flattened, a scalar as a 0-d array, a shape as an int64 array), so
  ``relax-ref run <k>.py --args <k>.npz`` replays them;
- ``<out>/<pass>-<k>.txt``: the error and how to reproduce it.

Deterministic for a seed: program ``i`` is drawn from ``default_rng([seed, i])`` and its
inputs from ``check_pass(..., seed=i)``, so the same seed finds the same failures in the
same order. With a ``programs`` budget the whole campaign is deterministic; with a time
budget, how many programs fit differs from run to run (and machine load).

Shrinking works on the record of the generator's choices, as Hypothesis does: replaying an
edited record always gives a well-formed module (``ReplayChoices``), so the shrinker
deletes whole groups of choices (a binding, a parameter, the if/else), then runs of
choices, and lowers single choices, for as long as the pass still fails the same way
(same kind: ill-formed output, wrong result, trap mismatch, crash). Lower choices mean
fewer bindings and simpler ops, so the saved module is small.

Failures are told apart by their message with numbers, shapes and names left out
(``_signature``): a failure like one already shrunk counts as a duplicate and is neither
shrunk nor saved again, so one frequent bug does not eat the campaign's time.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from relax_ref.ir import relax as rx
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.verify import PassVerificationError, check_pass
from relax_ref.errors import RelaxError

from .strategies import GenOptions, RandomChoices, ReplayChoices, build_module, generate_text

__all__ = ["CampaignResult", "Failure", "run_campaign", "shrink_record"]


@dataclass
class Failure:
    """One saved counterexample."""

    index: int                 # the program's number in the campaign
    kind: str                  # "ill-formed output", "wrong result", "trap mismatch", "crash: T"
    message: str
    module_path: Path
    inputs_path: Path
    report_path: Path
    choices: int = 0           # length of the shrunk choice record
    original_choices: int = 0


@dataclass
class CampaignResult:
    pass_name: str
    seed: int
    seconds: float             # wall time of the whole campaign, shrinking included
    check_seconds: float       # time spent generating and checking programs
    programs: int = 0
    passed: int = 0
    trials: int = 0            # interpreter comparisons run (before vs after)
    failing_programs: int = 0  # programs on which the pass failed
    failures: list[Failure] = field(default_factory=list)  # the distinct ones, saved
    duplicates: int = 0        # failing programs not saved: like one saved, or over the limit
    invalid: int = 0           # generated modules that did not build (generator bugs)
    instances: int = 0         # programs checked with a random instance (PASS-fuzz-2)
    notes: list[str] = field(default_factory=list)

    @property
    def programs_per_second(self) -> float:
        return self.programs / self.check_seconds if self.check_seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        return self.failing_programs == 0 and self.invalid == 0

    def summary(self) -> str:
        lines = [f"{self.pass_name}: {self.programs} programs in {self.seconds:.1f} s "
                 f"({self.programs_per_second:.1f} programs/s, {self.trials} runs compared, "
                 f"seed {self.seed})"]
        if self.instances:
            lines.append(f"  {self.instances} program(s) checked with a random instance of "
                         f"the pass (the others: nothing to bind, the identity)")
        if self.invalid:
            lines.append(f"  {self.invalid} generated module(s) did not build "
                         f"(a generator bug): {self.notes[0] if self.notes else ''}")
        if not self.failing_programs:
            lines.append("  no failures")
            return "\n".join(lines)
        lines.append(f"  {self.failing_programs} failing program(s), "
                     f"{len(self.failures)} saved"
                     + (f", {self.duplicates} duplicate(s)" if self.duplicates else ""))
        for f in self.failures:
            first = f.message.splitlines()[0] if f.message else ""
            lines.append(f"  [{f.kind}] {f.module_path} (+ .npz, .txt): {first}")
        return "\n".join(lines)


# -- one program --------------------------------------------------------------------------

@dataclass
class _Problem:
    kind: str
    message: str
    error: BaseException
    module: rx.IRModule


class _InvalidProgram(Exception):
    """The generated module itself is bad (not the pass's fault)."""


def _build(text: str) -> rx.IRModule:
    try:
        return build_module(text)
    except RelaxError as err:
        raise _InvalidProgram(str(err)) from err


def _classify(err: BaseException) -> str:
    if isinstance(err, PassVerificationError):
        if "errors" in err.details:
            return "ill-formed output"
        if isinstance(err.details.get("before"), RelaxError) or \
                isinstance(err.details.get("after"), RelaxError):
            return "trap mismatch"
        return "wrong result"
    return f"crash: {type(err).__name__}"


def _signature(problem: _Problem) -> str:
    """What tells two failures apart before shrinking them: the kind, the rule IDs and
    the message's problem lines with numbers, shapes and names left out (the same bug
    on another program is a duplicate, not worth another shrink)."""
    lines = problem.message.splitlines()
    keep = [lines[0].split(":", 1)[-1]] if lines else []
    keep += [ln.split(":", 1)[-1] for ln in lines[1:] if "trap" in ln]
    text = " | ".join(keep)
    while re.search(r"\([^()]*\)|\[[^\[\]]*\]", text):
        text = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", text)
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\d+(\.\d+)?(e-?\d+)?", "N", text)
    rules = sorted(set(re.findall(r"\[([A-Z]+-[\w-]+)\]", problem.message)))
    return f"{problem.kind} {rules} {text}"


_IDENTITY = Pass("Identity", lambda mod: mod)


def _check(p: Pass, mod: rx.IRModule, trials: int, seed: int,
           instances: list | None = None) -> tuple[_Problem | None, int]:
    """Run the differential check; (problem or None, runs compared). A pass registered
    with an empty default (BindParams, BindSymbolicVars) is checked as a random instance
    for ``mod`` (PASS-fuzz-2), drawn from ``seed`` so shrinking redraws the same kind.
    A pass that works on lowered modules gets ``mod`` lowered first (PASS-fuzz-3); the
    problem then names the lowered module, which is what reproduces it."""
    if p.fuzz_inputs is not None:
        try:
            mod = p.fuzz_inputs(mod)
        except Exception as err:  # noqa: BLE001 - lowering is not the pass under test
            raise _InvalidProgram(f"preparing the input of {p.name}: {err}") from err
    if p.instantiate is not None:
        try:
            instance = p.instantiate(mod, np.random.default_rng(seed))
        except Exception as err:  # noqa: BLE001 - choosing an instance is part of the pass
            return _Problem(f"crash: {type(err).__name__}", f"choosing an instance of "
                            f"{p.name}: {err}", err, mod), 0
        if instance is not None:
            if instances is not None:
                instances.append(instance.doc)
            problem, runs = _check(instance, mod, trials, seed)
            if problem is not None:
                problem.message = f"{instance.doc}\n{problem.message}"
            return problem, runs
    try:
        report = check_pass(p, mod, trials=trials, seed=seed)
    except RecursionError as err:
        return _Problem("crash: RecursionError", "recursion too deep", err, mod), 0
    except Exception as err:  # noqa: BLE001 - any exception of the pass is a finding
        if not isinstance(err, PassVerificationError):
            # Is it the pass, or does the generated module itself not run?
            try:
                check_pass(_IDENTITY, mod, trials=trials, seed=seed)
            except Exception as own:  # noqa: BLE001
                raise _InvalidProgram(f"{type(own).__name__}: {own}") from own
        return _Problem(_classify(err), str(err), err, mod), 0
    return None, report.compared + report.traps_matched


# -- shrinking ------------------------------------------------------------------------------

def shrink_record(record: list[int], spans: list[tuple[int, int]],
                  fails: Callable[[list[int]], tuple[list[int], list] | None],
                  deadline: float) -> list[int]:
    """The smallest record (shortest, then least) for which ``fails`` still holds.

    ``fails(candidate)`` returns the record as the generator consumed it and its spans
    (the groups of choices that make one binding, one parameter, the if/else) when the
    candidate still fails, else None. Passes, repeated while one succeeds: delete whole
    groups, largest first; set single choices to 0 (stops a loop, picks the simplest
    op); delete runs of 2 and 1 choices; lower single choices by halving and by one.
    """
    best, best_spans = list(record), list(spans)
    tried: set[tuple[int, ...]] = set()

    def attempt(cand: list[int]) -> bool:
        nonlocal best, best_spans
        key = tuple(cand)
        if key in tried or time.monotonic() > deadline:
            return False
        tried.add(key)
        got = fails(cand)
        if got is None:
            return False
        used = _trim(got[0])
        if (len(used), used) < (len(best), best):
            best, best_spans = used, list(got[1])
            return True
        return False

    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        progress = True
        while progress and time.monotonic() < deadline:
            progress = False
            for a, b in sorted(best_spans, key=lambda s: s[0] - s[1]):
                if attempt(best[:a] + best[b:]):
                    improved = progress = True
                    break
        i = 0
        while i < len(best):
            if best[i] and attempt(best[:i] + [0] + best[i + 1:]):
                improved = True
            i += 1
        for size in (2, 1):
            i = len(best) - size
            while i >= 0:
                if attempt(best[:i] + best[i + size:]):
                    improved = True
                    i = min(i, len(best) - size)
                else:
                    i -= 1
        i = 0
        while i < len(best):  # a lower choice may shorten the record the generator reads
            for smaller in (best[i] // 2, best[i] - 1):
                if 0 <= smaller < best[i] and attempt(best[:i] + [smaller] + best[i + 1:]):
                    improved = True
                    break
            i += 1
    return best


def _trim(record: list[int]) -> list[int]:
    """Trailing zeros are what a replay gives anyway."""
    end = len(record)
    while end and record[end - 1] == 0:
        end -= 1
    return list(record[:end])


# -- saving -----------------------------------------------------------------------------------

def _input_arrays(args: list) -> dict[str, np.ndarray]:
    from relax_ref.ir.numpy_dtype import numpy_dtype
    from relax_ref.values import PrimScalar, ShapeValue

    flat: list[np.ndarray] = []

    def add(v) -> None:
        if isinstance(v, tuple):
            for x in v:
                add(x)
        elif isinstance(v, PrimScalar):
            flat.append(np.asarray(v.value, dtype=numpy_dtype(v.dtype)))
        elif isinstance(v, ShapeValue):
            flat.append(np.asarray(v.dims, dtype=np.int64))
        else:
            flat.append(np.asarray(v))

    for a in args:
        add(a)
    return {f"in_{i}": arr for i, arr in enumerate(flat)}


def _sample_inputs(mod: rx.IRModule, seed: int) -> tuple[dict, list]:
    """Inputs for ``main`` as check_pass's first trial draws them (for failures that
    have none, such as ill-formed output)."""
    from relax_ref.verify import SYM_CHOICES
    from relax_ref.semantics.inputs import random_value, symbols_needed

    func = mod["main"]
    env = {v: SYM_CHOICES[k % len(SYM_CHOICES)] for k, v in enumerate(symbols_needed(func))}
    rng = np.random.default_rng(seed)
    args = [random_value(p.struct_info, env, rng, what=p.name_hint) for p in func.params]
    return {v.name: x for v, x in env.items()}, args


def _save(problem: _Problem, p: Pass, out_dir: Path, k: int, *, index: int, seed: int,
          text: str) -> tuple[Path, Path, Path]:
    base = out_dir / f"{p.name}-{k}"
    module_path, inputs_path, report_path = (base.with_suffix(s) for s in (".py", ".npz", ".txt"))
    module_path.write_text(text)
    err = problem.error
    details = getattr(err, "details", {}) or {}
    if "inputs" in details:
        symbols, args = details.get("symbols", {}), details["inputs"]
        note = "the inputs on which the results differ"
    else:
        symbols, args = _sample_inputs(problem.module, index)
        note = "sample inputs (this failure does not depend on them)"
    np.savez(inputs_path, **_input_arrays(args))
    sym_text = ", ".join(f"{n}={v}" for n, v in symbols.items()) or "none"
    report_path.write_text(
        f"pass: {p.name}\nkind: {problem.kind}\n"
        f"campaign seed: {seed}, program {index}\n"
        f"symbolic variables: {sym_text}\n"
        f"inputs ({inputs_path.name}): {note}\n\n"
        f"{problem.message}\n\n"
        f"reproduce:\n"
        f"  relax-ref opt {module_path.name} --passes {p.name} --verify 4\n"
        f"  relax-ref run {module_path.name} --args {inputs_path.name}\n")
    return module_path, inputs_path, report_path


def _next_index(out_dir: Path, name: str) -> int:
    k = 1
    while any((out_dir / f"{name}-{k}{s}").exists() for s in (".py", ".npz", ".txt")):
        k += 1
    return k


# -- the campaign --------------------------------------------------------------------------------

def run_campaign(pass_name: str | Pass, seconds: float | None = None, seed: int = 0,
                 out_dir: str | Path = "fuzz-failures", progress: bool = True, *,
                 trials: int = 3, programs: int | None = None, max_saved: int = 10,
                 shrink_seconds: float = 20.0,
                 options: GenOptions | None = None) -> CampaignResult:
    """Fuzz a pass (a registered name, or a Pass object); see the module docstring.

    The budget is ``programs`` programs (deterministic: the same programs for a seed on
    any machine), or ``seconds`` of generating and checking, or whichever ends first
    when both are given. ``trials`` is check_pass's number of input sets per program; at
    most ``max_saved`` failures are shrunk and saved, each shrunk for at most
    ``shrink_seconds`` (and, with a time budget, at most 5 s past the campaign's end).
    ``programs_per_second`` counts the time spent generating and checking programs, not
    shrinking. ValueError for a budget that would check nothing (CLI-budget-1)."""
    _check_budget(seconds, programs, trials, seed)
    p = pass_name if isinstance(pass_name, Pass) else get_pass(pass_name)
    campaign = _Campaign(p, seed, Path(out_dir), trials, max_saved, shrink_seconds, options)
    # Load the parser's grammar before the clock starts: a one-time cost, not a rate.
    build_module(generate_text(ReplayChoices([])))
    start = time.monotonic()
    deadline = start + seconds if seconds is not None else math.inf
    bar = _ProgressBar(p.name, seconds, programs) if progress else None
    try:
        i = 0
        while time.monotonic() < deadline and (programs is None or i < programs):
            campaign.program(i, deadline, bar)
            i += 1
            if bar:
                bar.update(campaign.result)
    finally:
        campaign.result.seconds = time.monotonic() - start
        if bar:
            bar.close(campaign.result)
    return campaign.result


def _check_budget(seconds, programs, trials, seed) -> None:
    """CLI-budget-1: a campaign that would check nothing is refused, not reported OK."""
    if seconds is None and programs is None:
        raise ValueError("give the campaign a budget: seconds or programs")
    if seconds is not None and not (isinstance(seconds, (int, float))
                                    and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive finite number, not {seconds!r}")
    for name, value in (("programs", programs), ("trials", trials)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise ValueError(f"{name} must be a positive integer, not {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")


class _Campaign:
    def __init__(self, p: Pass, seed: int, out: Path, trials: int, max_saved: int,
                 shrink_seconds: float, options: GenOptions | None):
        self.p, self.seed, self.out, self.trials = p, seed, out, trials
        self.max_saved, self.shrink_seconds, self.options = max_saved, shrink_seconds, options
        self.result = CampaignResult(p.name, seed, 0.0, 0.0)
        self.signatures: set[str] = set()  # failures shrunk already (before and after)
        self.saved: set[str] = set()       # saved modules' texts

    def program(self, i: int, deadline: float, bar: "_ProgressBar | None") -> None:
        """Generate and check program ``i``; shrink and save it if the pass fails."""
        result = self.result
        t0 = time.monotonic()
        drawn = RandomChoices(np.random.default_rng([self.seed, i]))
        text = generate_text(drawn, self.options)
        try:
            chosen: list = []
            problem, runs = _check(self.p, _build(text), self.trials, i, chosen)
            result.instances += len(chosen)
        except _InvalidProgram as err:
            result.invalid += 1
            if len(result.notes) < 5:
                result.notes.append(f"program {i}: {str(err).splitlines()[0]}")
            problem, runs = None, 0
        result.check_seconds += time.monotonic() - t0
        result.programs += 1
        result.trials += runs
        if problem is None:
            result.passed += runs > 0
            return
        result.failing_programs += 1
        signature = _signature(problem)
        if len(result.failures) >= self.max_saved or signature in self.signatures:
            result.duplicates += 1
            return
        self.signatures.add(signature)
        if bar:
            bar.update(result, f"shrinking a failure ({problem.kind})")
        budget = min(self.shrink_seconds, max(deadline - time.monotonic(), 5.0))
        small, small_problem = _shrink(self.p, drawn, problem, self.trials, i, self.options,
                                       time.monotonic() + budget)
        self.save(i, small_problem, signature, len(small), len(_trim(drawn.record)))

    def save(self, i: int, problem: _Problem, found_as: str, choices: int,
             original_choices: int) -> None:
        """Save a shrunk failure, unless it shrank into one saved already."""
        from relax_ref.parser.printer import print_module

        text = print_module(problem.module)
        signature = _signature(problem)
        if text in self.saved or (signature != found_as and signature in self.signatures):
            self.result.duplicates += 1
            return
        self.saved.add(text)
        self.signatures.add(signature)
        self.out.mkdir(parents=True, exist_ok=True)
        k = _next_index(self.out, self.p.name)
        header = (f"# relax-ref fuzz: {self.p.name} fails on this module ({problem.kind}); "
                  f"see {self.p.name}-{k}.txt\n")
        paths = _save(problem, self.p, self.out, k, index=i, seed=self.seed,
                      text=header + text)
        self.result.failures.append(Failure(i, problem.kind, problem.message, *paths,
                                            choices=choices,
                                            original_choices=original_choices))


def _shrink(p: Pass, drawn: RandomChoices, problem: _Problem, trials: int, index: int,
            options: GenOptions | None, deadline: float) -> tuple[list[int], _Problem]:
    found: dict[tuple[int, ...], _Problem] = {}

    def fails(cand: list[int]) -> tuple[list[int], list] | None:
        choices = ReplayChoices(cand)
        text = generate_text(choices, options)
        try:
            mod = _build(text)
            got, _ = _check(p, mod, trials, index)
        except _InvalidProgram:
            return None
        if got is None or got.kind != problem.kind:
            return None
        used = _trim(choices.used)
        found[tuple(used)] = got
        return used, choices.spans

    best = shrink_record(drawn.record, drawn.spans, fails, deadline)
    return best, found.get(tuple(best), problem)


class _ProgressBar:
    """A rich progress bar over the campaign's budget (programs, else time), with
    programs per second."""

    def __init__(self, name: str, seconds: float | None, programs: int | None):
        from rich.console import Console
        from rich.progress import (BarColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[programs]} programs"),
            TextColumn("{task.fields[rate]:.1f}/s"),
            TextColumn("[red]{task.fields[failures]} failing"),
            TimeElapsedColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=False)
        self.name, self.by_programs = name, programs is not None
        self.start = time.monotonic()
        self.progress.start()
        self.task = self.progress.add_task(f"fuzz {name}",
                                           total=programs if self.by_programs else seconds,
                                           programs=0, rate=0.0, failures=0)

    def update(self, result: CampaignResult, status: str | None = None) -> None:
        done = result.programs if self.by_programs else time.monotonic() - self.start
        self.progress.update(self.task, completed=done,
                             programs=result.programs, rate=result.programs_per_second,
                             failures=result.failing_programs,
                             description=f"fuzz {self.name}" + (f": {status}" if status else ""))

    def close(self, result: CampaignResult) -> None:
        self.update(result)
        self.progress.update(self.task, completed=self.progress.tasks[0].total)
        self.progress.stop()
