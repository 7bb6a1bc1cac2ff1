"""The Oclgrind sweep (spec/backends.md BE-run-4): every legalized op kernel of the
conformance suite and every fused kernel of the examples and the samples, run at small
sizes on the Oclgrind simulator and compared with the TIR interpreter. A report (an
invalid access, a data race, a barrier error, an uninitialized value) or a difference
from the interpreter fails the kernel.

Each PrimFunc runs under each schedule that changes it (``SCHEDULES``): the default
schedule (BE-sched-1..4); the row-reduction trees (BE-sched-5); for the conformance
kernels, the device schedule's inlining and register tiles (BE-sched-6..8) with small
tiles, so that a small output has several tiles and a partial one; the device schedule
as shipped (BE-sched-9: its tiles, row trees); and, where the PrimFunc has symbolic
extents and multi-versioning writes a variant without bounds checks (BE-mv-1), that
variant at sizes where its guard holds. Small on purpose, so that several work-groups
and a partial last group are exercised in a slow simulator: ``THREADS`` threads per
group and at most ``BLOCKS`` groups, symbolic dimensions from 1 to 5. The conformance
kernels run once more with SPECIAL float values (NaN, infinities, signed zeros,
subnormals) among their inputs.

    python -m tests.backends.oclgrind_sweep [conformance|models|all] [-k TEXT] [-v]
"""
from __future__ import annotations

import dataclasses
import itertools
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from relax_ref.errors import RelaxError
from relax_ref.ir import tir

from .kernels import (INT_RANGES, args_and_reference, assert_same, case_prim_funcs,
                      conformance_cases, copy_args, random_args, reference, symbolic_vars)

THREADS, BLOCKS, TREE_THREADS = 7, 3, 8
#: Register tiles of BE-sched-7 at small sizes: 4 threads, each 2 rows x 3 columns.
TILE = {"threads": 4, "rows": 2, "cols": 3}
#: The divisible variants run on 2 groups of 4 threads, so that a guard
#: ``E % 8 == 0`` holds at small sizes.
VARIANT_THREADS, VARIANT_BLOCKS = 4, 2
#: Values of a kernel's symbolic variables, in order (sizes that are not multiples of
#: the group size, two variables with different values), then backwards (from 1).
SIZES = (3, 5, 2, 4, 1)
#: A model's, once: its static sizes are large, and Oclgrind's time grows with the work.
MODEL_SIZES = (2, 3, 1)
SCHEDULES = ("default", "tree", "tiled", "device", "divisible")


@dataclass(frozen=True)
class Item:
    """One PrimFunc to sweep: where it comes from and which schedule it gets."""

    source: str     # "conformance", "example" or "sample"
    where: str      # the case or the file
    name: str       # the PrimFunc
    func: tir.PrimFunc | None  # None: the module did not legalize and fuse
    schedule: str = "default"

    @property
    def label(self) -> str:
        tag = "" if self.schedule == "default" else f" [{self.schedule}]"
        return f"{self.source}:{self.where}/{self.name}{tag}"


@dataclass
class Summary:
    clean: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> labels
    seconds: float = 0.0
    platform: str = "Oclgrind"

    def line(self) -> str:
        skipped = sum(map(len, self.skipped.values()))
        reasons = "; ".join(f"{len(v)} {k}" for k, v in sorted(self.skipped.items()))
        return (f"{self.platform} sweep: {len(self.clean) + len(self.failed) + skipped} kernels, "
                f"{len(self.clean)} clean, {len(self.failed)} failed, {skipped} skipped "
                f"({reasons or 'none'}) in {self.seconds:.0f} s")


# ---------------------------------------------------------------------------------------
# What is swept
# ---------------------------------------------------------------------------------------

def conformance_items(select: str = "") -> list[Item]:
    """The PrimFuncs LegalizeOps writes for each conformance case that runs."""
    items = []
    for case in conformance_cases():
        if select in case:
            for name, func in case_prim_funcs(case, strict=False):
                items += _schedules(Item("conformance", case, name, func))
    return items


def model_items(select: str = "", sources=("example", "sample")) -> list[Item]:
    """The fused PrimFuncs of each example and sample (LegalizeOps, AnnotateTIROpPattern,
    FuseOps, FuseTIR, as ``relax-ref emit --fuse``) whose file name contains ``select``."""
    import relax_ref
    from relax_ref.passes.pipeline import PIPELINES, Pipeline
    from relax_ref.semantics.normalize import normalize
    from tests.conftest import example_files, sample_files
    items = []
    for source, files in (("example", example_files()), ("sample", sample_files())):
        for path in files if source in sources else ():
            if select not in path.stem:
                continue
            try:
                mod = Pipeline(PIPELINES["fuse"]).as_pass("sweep")(
                    normalize(relax_ref.check(relax_ref.from_source(path.read_text()))))
            except RelaxError as err:
                items.append(Item(source, path.stem, f"({_first(err)})", None))
                continue
            for name, func in mod.items():
                if isinstance(func, tir.PrimFunc):
                    items += _schedules(Item(source, path.stem, name, func))
    return items


def _schedules(item: Item) -> list[Item]:
    """``item`` under each schedule of SCHEDULES that changes it (the divisible variants
    are looked for when run)."""
    from relax_ref.backends.row_reduction import schedule_row_reductions
    out = [item]
    try:
        if _shared(schedule_row_reductions(item.func, TREE_THREADS)):
            out.append(dataclasses.replace(item, schedule="tree"))
        if _staged(item.func) is not item.func:
            if item.source == "conformance":  # a model's shapes give partial tiles
                out.append(dataclasses.replace(item, schedule="tiled"))
            out.append(dataclasses.replace(item, schedule="device"))
    except RelaxError:
        pass  # the default schedule's run says why
    if symbolic_vars(item.func):
        out.append(dataclasses.replace(item, schedule="divisible"))
    return out


def _staged(func: tir.PrimFunc) -> tir.PrimFunc:
    """BE-sched-6 and 7 with the small tiles (``func`` itself when neither applies)."""
    from relax_ref.backends.inline import inline_injective
    from relax_ref.backends.tile_reduction import tile_reductions
    return tile_reductions(inline_injective(func), **TILE)


def schedule(item: Item) -> tir.PrimFunc:
    from relax_ref.backends.gpu_schedule import default_gpu_schedule
    from relax_ref.backends.row_reduction import schedule_row_reductions
    from relax_ref.backends.schedule import device_schedule
    func = item.func
    if item.schedule == "tree":
        return schedule_row_reductions(func, TREE_THREADS)
    if item.schedule == "tiled":
        return default_gpu_schedule(_staged(func), THREADS, BLOCKS)
    if item.schedule == "device":
        return device_schedule(func, TREE_THREADS, row_reductions=True)
    if item.schedule == "divisible":
        return default_gpu_schedule(_staged(func), VARIANT_THREADS, VARIANT_BLOCKS)
    return default_gpu_schedule(func, THREADS, BLOCKS)


def _shared(func: tir.PrimFunc) -> list[tir.Allocate]:
    from relax_ref.ir.uses import tir_nodes
    return [n for n in tir_nodes(func.body)
            if isinstance(n, tir.Allocate) and n.scope == "shared"]


def _first(err: Exception) -> str:
    return str(err).splitlines()[0][:160] if str(err) else type(err).__name__


# ---------------------------------------------------------------------------------------
# Running one
# ---------------------------------------------------------------------------------------

def size_sets(item: Item) -> list[dict[str, int]]:
    """The values the symbolic variables of ``item`` take: SIZES in order, then SIZES
    backwards; a model's, MODEL_SIZES."""
    names = [v.name for v in symbolic_vars(item.func)]
    if not names:
        return [{}]
    orders = (SIZES, SIZES[::-1]) if item.source == "conformance" else (MODEL_SIZES,)
    return [{n: order[k % len(order)] for k, n in enumerate(names)} for order in orders]


def divisible_sizes(func: tir.PrimFunc, variants: dict) -> dict[str, int] | None:
    """The smallest sizes (1..8 for up to three variables, the others 1) at which every
    variant's guard holds, else at which one does; None if none."""
    from relax_ref.solver.evaluate import evaluate_int
    names = symbolic_vars(func)
    best = None
    for values in sorted(itertools.product(range(1, 9), repeat=min(len(names), 3)),
                         key=sum):
        env = {v: (values[k] if k < len(values) else 1) for k, v in enumerate(names)}
        held = [bool(evaluate_int(v.guard, env)) for v in variants.values()]
        if all(held):
            return {v.name: x for v, x in env.items()}
        if any(held) and best is None:
            best = {v.name: x for v, x in env.items()}
    return best


def prepare(item: Item):
    """(scheduled PrimFunc, DeviceProgram, variants, OpenCL source, size sets), or a
    reason to skip (a string)."""
    from relax_ref.backends import lower as L
    from relax_ref.backends.gpu_schedule import ScheduleError, default_gpu_schedule
    from relax_ref.backends.multiversion import specialize_program
    from relax_ref.backends.opencl import opencl_source
    if item.func is None:
        return "the module does not legalize and fuse"
    try:
        scheduled = schedule(item)
    except ScheduleError as err:
        return f"the schedule declines ({err.rule})"
    prog = L.lower_for_device(scheduled, item.name)
    variants, sizes = {}, size_sets(item)
    if item.schedule == "divisible":
        variants = specialize_program(prog)
        if not variants:  # none of the inlined or tiled kernels: of the default's?
            scheduled = default_gpu_schedule(item.func, VARIANT_THREADS, VARIANT_BLOCKS)
            prog = L.lower_for_device(scheduled, item.name)
            variants = specialize_program(prog)
        if not variants:
            return "no divisible variant (BE-mv-1)"
        one = divisible_sizes(item.func, variants)
        if one is None:
            return "no small sizes meet the variant's guard"
        sizes = [one]
    programs = [prog]
    if variants:  # printed beside the originals, as the device host does (BE-mv-1)
        programs.append(dataclasses.replace(
            prog, kernels=tuple(v.kernel for v in variants.values())))
    return scheduled, prog, variants, opencl_source(programs), sizes


def run_item(item: Item, platform: str, seen: dict | None = None) -> tuple[str, str]:
    """("clean" | "failed" | "skipped", detail). ``seen``: the sources already run (a
    sample and its ``.src`` twin, a module before and after fusion share kernels): a
    kernel whose source, up to its name, was run is skipped."""
    from relax_ref.backends.runtime_opencl import DeviceCheckError, run_opencl
    try:
        prepared = prepare(item)
    except RelaxError as err:
        return "failed", f"lowering or emitting: {_first(err)}"
    if isinstance(prepared, str):
        return "skipped", prepared
    scheduled, prog, variants, source, sizes = prepared
    if seen is not None:
        key = source.replace(f"// {item.name}, kernel", "// <name>, kernel") \
            .replace(f" {item.name}_kernel", " <name>_kernel")
        if key in seen:
            return "skipped", "the same kernel as one run before"
        seen[key] = item.label
    trees = any(a.dtype.is_float for a in _shared(scheduled))  # a tree's float fold
    # The conformance kernels once more with special values, where the fold keeps its
    # order (a tree's max of a NaN depends on the order, BE-sched-5).
    runs = [(size, False) for size in sizes]
    if item.source == "conformance" and not trees:
        runs.append((sizes[0], True))
    ran = 0
    for size, special in runs:
        try:
            args, ref = inputs(item.func, size, special)
        except AssertionError:
            continue  # the interpreter traps at these sizes (an empty slice, ...)
        ran += 1
        out = copy_args(args)
        what = item.label + (f" at {size}" if size else "") + \
            (" with special values" if special else "")
        try:
            run_opencl(prog, source, out, platform, variants=variants)
        except DeviceCheckError as err:
            return "failed", f"{what}: {err.report[:2000]}"
        except Exception as err:  # a build or launch failure
            return "failed", f"{type(err).__name__}: {str(err)[:2000]}"
        try:
            if trees:
                from .test_row_reduction import assert_close  # BE-sched-5's bound
                assert_close(ref, out, item.func, what, exact=False, sizes=size)
            else:
                assert_same(ref, out, item.func, what)
        except AssertionError as err:
            return "failed", _first(err)
    if not ran:
        return "skipped", "the interpreter traps on every input drawn"
    return "clean", ""


#: Float inputs with these in about a third of their elements: NaN, infinities, signed
#: zeros, float32 subnormals, half's largest, huge values, ties for rounding.
SPECIAL = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40, 65504.0, 1e30, -1e30, 0.5,
           1.5, 2.5, -2.5)


def inputs(func: tir.PrimFunc, sizes: dict, special: bool = False):
    """Arguments the interpreter runs without a trap, and its result (kernels.py's),
    or with SPECIAL values among the floats."""
    rng = np.random.default_rng(7)
    if not special:
        return args_and_reference(func, rng, sizes)
    for ints in INT_RANGES:
        args = random_args(func, rng, sizes, ints[:2], unit_floats=len(ints) > 2)
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
                where = rng.random(a.shape) < 0.3
                values = np.array(SPECIAL)[rng.integers(0, len(SPECIAL), a.shape)]
                with np.errstate(over="ignore"):  # 1e30 in float16 is infinity
                    a[where] = values[where].astype(a.dtype)
        ref = reference(func, args)
        if ref is not None:
            return args, ref
    raise AssertionError("the interpreter traps on every input drawn")


def sweep(items: list[Item], platform: str, log=None) -> Summary:
    """Run every item; ``log`` (a file) gets a line per kernel."""
    summary = Summary(platform=platform)
    start = time.monotonic()
    seen: dict[str, str] = {}
    for item in items:
        began = time.monotonic()
        status, detail = run_item(item, platform, seen)
        if status == "clean":
            summary.clean.append(item.label)
        elif status == "failed":
            summary.failed.append(f"{item.label}: {detail}")
        else:
            summary.skipped.setdefault(detail, []).append(item.label)
        if log is not None:
            first = detail.splitlines()[0] if detail else ""
            print(f"{status:7s} {time.monotonic() - began:6.2f}s {item.label} {first}",
                  file=log, flush=True)
    summary.seconds = time.monotonic() - start
    return summary


def main(argv: list[str]) -> int:
    import argparse

    from relax_ref.backends.runtime_opencl import OCLGRIND, available
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="all", choices=("conformance", "models", "all"))
    ap.add_argument("-k", default="", help="only cases or files whose name contains this")
    ap.add_argument("-v", action="store_true", help="a line per kernel")
    ap.add_argument("--platform", default=OCLGRIND,
                    help="another OpenCL platform to run the same kernels on (PoCL's "
                         "optimized builds: no reports, the comparison only)")
    opts = ap.parse_args(argv)
    if not available(opts.platform):
        print(f"{opts.platform} (the opencl extra) is not installed or does not build",
              file=sys.stderr)
        return 2
    items = []
    if opts.what in ("conformance", "all"):
        items += conformance_items(opts.k)
    if opts.what in ("models", "all"):
        items += model_items(opts.k)
    summary = sweep(items, opts.platform, sys.stdout if opts.v else None)
    for f in summary.failed:
        print("FAILED", f)
    for reason, labels in sorted(summary.skipped.items()):
        print(f"skipped ({reason}): {', '.join(labels[:5])}{' ...' if len(labels) > 5 else ''}")
    print(summary.line())
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
