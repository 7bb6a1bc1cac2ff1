"""The differential harness (DESIGN.md decision 8, spec/passes.md "Verification").

``check_pass(p, mod, trials=N, seed=S)`` runs the pass, checks that its result is well
formed and has the forms the pass claims to produce (``passes/registry.FORMS``), then
runs both modules in the interpreter on random inputs, at several values of each symbolic
variable (respecting declared bounds, 0 and 1 included where legal), and compares:

- integers and bools exactly;
- floats within tolerance (exact for passes that claim ``exact``), NaN positions equal;
- traps must match: a trap of the same kind on both sides.

A failure raises ``PassVerificationError`` naming the pass, the function, the symbolic
values, the inputs and both outcomes.

A pass that changes a public signature (BindParams, BindSymbolicVars) carries an
``Adapter`` per changed function (PASS-adapt-1): inputs are drawn from one side's
signature and mapped to each side's argument list, and the outputs the rewritten function
still returns are selected from the original's. ``check_pass`` uses the pass's own
adapters (``Pass.adapters``) and any given to it.

``verify_pipeline(pipeline, mod, ...)`` runs a pipeline with every step checked this way
on the module it receives. The harness lives here, above the passes it runs, so that no
pass module imports it (DESIGN.md section 2).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import ml_dtypes
import numpy as np

from relax_ref.ir import relax as rx
from relax_ref.errors import RelaxError, ResourceError, RuntimeCheckError, same_check
from relax_ref.semantics.inputs import InputError, random_value, symbols_needed
from relax_ref.semantics.interpreter import Interpreter, Limits, flatten_values
from relax_ref.values import PrimScalar, ShapeValue, describe_value
from relax_ref.semantics.well_formed import check_well_formed

from relax_ref.passes.pipeline import Pipeline, StepReport
from relax_ref.passes.registry import Adapter, Pass, missing_form

FLOAT_RTOL, FLOAT_ATOL = 1e-5, 1e-6
SYM_CHOICES = (1, 0, 2, 3, 5, 8)  # values tried for symbolic variables, in this order


class PassVerificationError(AssertionError):
    """The pass broke well-formedness or changed a result."""

    def __init__(self, message: str, *, pass_name: str, details: dict):
        super().__init__(message)
        self.pass_name = pass_name
        self.details = details


@dataclass
class Report:
    pass_name: str
    functions: list[str]
    trials: int = 0
    compared: int = 0
    traps_matched: int = 0
    ill_conditioned: int = 0  # trials not compared (PASS-verify-6)
    notes: list[str] = field(default_factory=list)


def check_pass(p: Pass, mod: rx.IRModule, *, trials: int = 4, seed: int = 0,
               entries: list[str] | None = None,
               adapters: Mapping[str, Adapter] | None = None,
               limits: Limits | None = None, rtol: float = FLOAT_RTOL,
               atol: float = FLOAT_ATOL) -> Report:
    """Verify pass ``p`` on ``mod`` (see the module docstring); returns a Report.
    ``adapters`` (function name -> Adapter) add to the pass's own (``p.adapters(mod)``);
    ``limits`` are the interpreter's on both sides (TIR mode, step budget, sizes);
    ``rtol``/``atol`` the float tolerance of a pass that is not exact (PASS-verify-2: a
    long float pipeline on random inputs may need more than the default)."""
    after = p(mod)
    errors = check_well_formed(after)
    if errors:
        raise PassVerificationError(
            f"{p.name} produced ill-formed IR:\n" + "\n".join(e.render() for e in errors[:5]),
            pass_name=p.name, details={"errors": errors})
    for form in p.produces:
        where = missing_form(form, after)
        if where:
            raise PassVerificationError(
                f"{p.name} claims to produce {form!r}, but its result has {where}",
                pass_name=p.name, details={"errors": [], "form": form})
    adapt = {**(p.adapters(mod) if p.adapters else {}), **(adapters or {})}
    interp = {"before": Interpreter(mod, limits=limits),
              "after": Interpreter(after, limits=limits)}
    if entries is None:
        entries = [name for name, f in interp["before"].mod.functions.items()
                   if isinstance(f, rx.Function) and not f.is_private and
                   (adapt.get(name, _SAME).after_name or name) in after.functions]
    report = Report(p.name, list(entries))
    rng = np.random.default_rng(seed)
    for name in entries:
        a = adapt.get(name, _SAME)
        after_name = a.after_name or name
        func = interp[a.draw_from].mod.functions[name if a.draw_from == "before"
                                                 else after_name]
        symbols = symbols_needed(func)
        bounds = _upper_bounds(func)
        for trial in range(trials):
            env = {}
            for k, v in enumerate(symbols):
                choices = [c for c in SYM_CHOICES if c <= bounds.get(v.name, c)]
                env[v] = choices[(trial + k) % len(choices)] if trial < len(choices) \
                    else int(rng.integers(0, min(bounds.get(v.name, 9), 9) + 1))
            try:
                args = [random_value(param.struct_info, env, rng, what=param.name_hint)
                        for param in func.params]
            except InputError as err:
                report.notes.append(f"{name}: cannot make inputs ({err})")
                break
            report.trials += 1
            expected = _outcome(interp["before"], name, a.to_before(_copy(args)))
            got = _outcome(interp["after"], after_name, a.to_after(_copy(args)))
            if not isinstance(expected, RelaxError):
                expected = a.select(expected)
            problem = _compare(expected, got, exact=p.exact,
                               may_remove_traps=p.may_remove_traps, tol=(rtol, atol))
            sym_text = ", ".join(f"{v.name}={x}" for v, x in env.items())
            if problem is not None and not p.exact and not isinstance(expected, RelaxError) \
                    and not isinstance(got, RelaxError):
                # PASS-verify-6: where the original amplifies rounding, a pass that only
                # reorders float arithmetic may differ past any tolerance.
                masks = _conditioning_masks(interp["before"], name, a.to_before(_copy(args)),
                                            expected, rng, (rtol, atol), a.select)
                rest = problem if masks is None else _compare_masked(expected, got, masks,
                                                                     (rtol, atol))
                if rest is None:
                    report.notes.append(f"{name} ({sym_text or 'no symbols'}): "
                                        f"ill-conditioned results not compared ({problem})")
                    report.ill_conditioned += 1
                    continue
                problem = rest
            if problem is not None:
                raise PassVerificationError(
                    f"{p.name} changed the result of {name} ({sym_text or 'no symbols'}): "
                    f"{problem}\n  inputs: {[describe_value(a) for a in args]}\n"
                    f"  before: {_describe_outcome(expected)}\n  after:  {_describe_outcome(got)}",
                    pass_name=p.name,
                    details={"function": name, "symbols": {v.name: x for v, x in env.items()},
                             "inputs": args, "before": expected, "after": got, "module": after})
            if isinstance(expected, RelaxError):
                report.traps_matched += 1
            else:
                report.compared += 1
    return report


def verify_pipeline(pipeline: Pipeline, mod: rx.IRModule, *, trials: int = 4, seed: int = 0,
                    on_step: Callable[[StepReport], None] | None = None,
                    after_step: Callable[[Pass, rx.IRModule], None] | None = None,
                    limits: Limits | None = None,
                    ) -> tuple[rx.IRModule, list[StepReport]]:
    """``pipeline.run`` with each pass checked by ``check_pass`` on the module it
    receives (PassVerificationError on the first failure)."""
    return pipeline.run(mod, check=lambda p, m: check_pass(p, m, trials=trials, seed=seed,
                                                           limits=limits),
                        on_step=on_step, after_step=after_step)


_SAME = Adapter()


def _upper_bounds(func: rx.Function) -> dict[str, int]:
    bounds = func.attrs.get("tir_var_upper_bound")
    out = {}
    if isinstance(bounds, rx.Attrs):
        for key, value in bounds.items:
            if isinstance(value, int):
                out[key] = value
    return out


def _copy(args: list) -> list:
    """Fresh copies, so a pass that mutates an input in place cannot hide it."""
    def one(v):
        if isinstance(v, np.ndarray):
            return v.copy()
        if isinstance(v, tuple):
            return tuple(one(x) for x in v)
        return v
    return [one(a) for a in args]


def _outcome(interp: Interpreter, name: str, args: list):
    try:
        return flatten_values(interp.run(name, _copy(args)))
    except (RuntimeCheckError, ResourceError) as err:
        return err


def _conditioning_masks(interp: Interpreter, name: str, args: list, expected: list,
                        rng: np.random.Generator, tol: tuple[float, float],
                        select: Callable[[list], list], tries: int = 3) -> list | None:
    """PASS-verify-6: per result of the original, which elements are ill-conditioned:
    those that move by more than a sixteenth of their tolerance (and two units in their
    last place) when every float input moves one unit in its last place, up or down at
    random (a few times: a rounded sum often absorbs one move). True for a whole
    non-tensor result that moves; None when a move makes the original trap."""
    floats = [i for i, v in enumerate(args)
              if isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size]
    masks: list = [np.zeros(v.shape, bool) if isinstance(v, np.ndarray) else False
                   for v in expected]
    for _ in range(tries if floats else 0):
        moved = list(args)
        for i in floats:
            v = args[i]
            up = rng.integers(0, 2, v.shape).astype(bool)
            inf = np.array(np.inf, v.dtype)
            moved[i] = np.where(up, np.nextafter(v, inf), np.nextafter(v, -inf)).astype(v.dtype)
        again = _outcome(interp, name, moved)
        if isinstance(again, RelaxError):
            return None
        again = select(again)
        if len(again) != len(expected):
            return None
        for k, (x, y) in enumerate(zip(expected, again)):
            if isinstance(masks[k], np.ndarray) and isinstance(y, np.ndarray) \
                    and y.shape == x.shape and y.dtype == x.dtype:
                masks[k] |= _moved(x, y, tol)
            elif _compare_value(x, y, exact=False, tol=tol) is not None:
                masks[k] = True
    return masks


def _rtol(dtype, tol: tuple[float, float]) -> float:
    """The relative tolerance for floats of ``dtype``: at least two last places of a
    narrow type (float16's place is ~1e-3 relative), since a pass within tolerance may
    round once where NumPy rounded twice (PASS-verify-2)."""
    return max(tol[0], 2 * float(ml_dtypes.finfo(dtype).eps))


def _moved(a: np.ndarray, b: np.ndarray, tol: tuple[float, float]) -> np.ndarray:
    if a.dtype.kind not in "fV":
        return a != b
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    scale = np.abs(fa)
    limit = np.maximum((_rtol(a.dtype, tol) * scale + tol[1]) / 16,
                       2 * float(ml_dtypes.finfo(a.dtype).eps) * scale)
    with np.errstate(invalid="ignore"):
        far = ~(np.abs(fa - fb) <= limit)  # NaN differences (inf - inf) count as moved
    return far & ~(np.isnan(fa) & np.isnan(fb))


def _compare_masked(expected: list, got: list, masks: list,
                    tol: tuple[float, float]) -> str | None:
    """``_compare`` of the elements no mask marks (PASS-verify-6)."""
    if len(expected) != len(got):
        return f"{len(expected)} results before, {len(got)} after"
    for i, (a, b, m) in enumerate(zip(expected, got, masks)):
        if m is True:
            continue
        if isinstance(m, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape:
            a, b = a[~m], b[~m]
        problem = _compare_value(a, b, False, tol)
        if problem:
            return f"result {i}: {problem} (where the original is well-conditioned)"
    return None


def _kind(err: RelaxError) -> str:
    return err.check if isinstance(err, RuntimeCheckError) else "resource"


def _compare(expected, got, *, exact: bool, may_remove_traps: bool = False,
             tol: tuple[float, float] = (FLOAT_RTOL, FLOAT_ATOL)) -> str | None:
    if isinstance(expected, RelaxError) or isinstance(got, RelaxError):
        if isinstance(expected, RelaxError) and isinstance(got, RelaxError):
            if _kind(expected) == _kind(got) or (
                    isinstance(got, RuntimeCheckError)
                    and same_check(_kind(expected), got.check, got.rule)):
                return None  # PASS-verify-5: the same check, perhaps found earlier
            return f"traps differ: {_kind(expected)} before, {_kind(got)} after"
        if may_remove_traps and (isinstance(expected, ResourceError) or (
                isinstance(expected, RuntimeCheckError)
                and expected.check not in ("match_cast", "signature", "return", "assert"))):
            return None  # PASS-verify-4: a dead pure computation's trap went away
        return "one side trapped and the other did not"
    if len(expected) != len(got):
        return f"{len(expected)} results before, {len(got)} after"
    for i, (a, b) in enumerate(zip(expected, got)):
        problem = _compare_value(a, b, exact, tol)
        if problem:
            return f"result {i}: {problem}"
    return None


def _compare_value(a, b, exact: bool,
                   tol: tuple[float, float] = (FLOAT_RTOL, FLOAT_ATOL)) -> str | None:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{describe_value(a)} before, {describe_value(b)} after"
        if a.dtype.kind in "fcV":
            fa, fb = a.astype(np.float64), b.astype(np.float64)
            if not np.array_equal(np.isnan(fa), np.isnan(fb)):
                return "NaN positions differ"
            mask = ~np.isnan(fa)
            if exact:
                ok = np.array_equal(fa[mask], fb[mask])
            else:
                ok = np.allclose(fa[mask], fb[mask], rtol=_rtol(a.dtype, tol), atol=tol[1])
            if not ok:
                with np.errstate(invalid="ignore"):  # inf - inf: the error is nan
                    err = np.max(np.abs(fa[mask] - fb[mask])) if mask.any() else 0.0
                return f"values differ (max abs error {err:.3g})"
            return None
        if not np.array_equal(a, b):
            return f"{int(np.sum(a != b))} of {a.size} values differ"
        return None
    if isinstance(a, (PrimScalar, ShapeValue)) or isinstance(b, (PrimScalar, ShapeValue)):
        return None if a == b else f"{describe_value(a)} before, {describe_value(b)} after"
    if type(a) is not type(b):
        return f"{describe_value(a)} before, {describe_value(b)} after"
    return None


def _describe_outcome(o) -> str:
    if isinstance(o, RelaxError):
        return f"trap {_kind(o)}: {o.message}"
    return ", ".join(describe_value(v) for v in o)
