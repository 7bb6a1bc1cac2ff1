"""The Python part of bench/gpu_check.sh: our CUDA kernels on an NVIDIA GPU, compared
with the interpreter (spec/backends.md BE-host-3, BE-host-4, BE-run-1).

1. The Llama-style layer (examples/llama_layer.py, n = --n) compiled as ``relax-ref run
   --target cuda`` compiles it, run with every kernel on the GPU (NVRTC cubins loaded
   with cuda-bindings), each PrimFunc call checked against the TIR interpreter on the
   same inputs; prints the largest ULP per PrimFunc, the end-to-end difference, and the
   kernel times (CUDA events).
2. The conformance kernels (every legalized PrimFunc of conformance/ops the default
   schedule takes, run under the device schedule ``relax-ref run`` uses, BE-sched-9),
   each on random inputs the interpreter runs without a trap, compared
   exactly (4 ULP where the kernel calls inexact math); stops at ``--budget`` seconds and
   says how far it got.

``prepare`` and ``conformance_prepared`` do everything up to the launches without a
GPU (tests/backends/test_gpu_check.py runs them); ``main`` says why and exits 2 when
there is no GPU.

    python bench/gpu_check.py [--n 8] [--budget 300] [--cases N]
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import relax_ref  # noqa: E402
from relax_ref.backends.run_device import compile_for_device  # noqa: E402
from relax_ref.backends.runtime_cuda import cuda_device, launch_plan, run_cuda  # noqa: E402
from relax_ref.backends.runtime_host import (  # noqa: E402
    ULP_BOUND, DeviceInterpreter, DeviceRunner, difference, uses_inexact_math,
)
from relax_ref.errors import RelaxError  # noqa: E402
from relax_ref.ir import tir  # noqa: E402
from relax_ref.semantics.inputs import random_value  # noqa: E402
from relax_ref.semantics.interpreter import Interpreter  # noqa: E402

LLAMA = REPO / "examples" / "llama_layer.py"


def llama(n: int):
    """The layer (checked), its lowered form, and inputs for sequence length ``n``."""
    mod = relax_ref.check(relax_ref.from_source(LLAMA.read_text()))
    ref = Interpreter(mod)
    main = ref.mod["main"]
    env = {v: n for v in _symbols(main)}
    rng = np.random.default_rng(0)
    values = [random_value(p.struct_info, env, rng) for p in main.params]
    return ref, compile_for_device(ref.mod), values


def _symbols(func):
    from relax_ref.semantics.inputs import symbols_needed
    return symbols_needed(func)


def conformance_kernels(limit: int | None = None):
    """(case/name, PrimFunc) for the conformance kernels our default schedule takes."""
    from relax_ref.backends.gpu_schedule import ScheduleError, default_gpu_schedule
    from tests.backends.kernels import case_prim_funcs, conformance_cases
    out = []
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                default_gpu_schedule(func)
            except ScheduleError:
                continue
            out.append((f"{case}/{name}", func))
            if limit is not None and len(out) >= limit:
                return out
    return out


def conformance_prepared(cases: int | None):
    """Per conformance kernel, lazily: (label, PrimFunc, compiled by NVRTC, arguments
    the interpreter runs without a trap, the interpreter's result), its launch plan
    checked (no GPU needed)."""
    from tests.backends.kernels import args_and_reference
    rng = np.random.default_rng(1)
    for label, func in conformance_kernels(cases):
        compiled = DeviceRunner("cuda").prepare(label.replace("/", "__"), func)
        if compiled.program is None:
            continue
        try:
            args, expected = args_and_reference(func, rng)
        except AssertionError:  # the interpreter traps on every draw: nothing to compare
            continue
        launch_plan(compiled, copy.deepcopy(args))  # the arguments fit the kernels
        yield label, func, compiled, args, expected


def prepare(n: int):
    """The layer before the first launch, no GPU needed: lowered, every PrimFunc
    compiled by NVRTC."""
    ref, lowered, values = llama(n)
    runner = DeviceRunner("cuda", check=True, times={})
    for name, f in lowered.items():
        if isinstance(f, tir.PrimFunc):
            runner.prepare(name, f)
    return ref, lowered, values, runner


def check_llama(ref, lowered, values, runner) -> bool:
    t0 = time.perf_counter()
    got = DeviceInterpreter(lowered, runner).run("main", copy.deepcopy(values))
    wall = time.perf_counter() - t0
    want = ref.run("main", copy.deepcopy(values))
    worst_abs, worst_ulp, _ = difference(want, got)
    print(f"Llama-style layer on the GPU: {wall:.2f} s wall (copies included); end to end "
          f"largest |difference| {worst_abs:.3g}, {worst_ulp:.3g} ULP (reported)")
    for name, ulp in runner.worst.items():
        print(f"  {name}: {runner.calls.get(name, 0)} calls, largest {ulp:.3g} ULP")
    for name, reason in runner.on_host.items():
        print(f"  on the host: {name}: {reason}")
    print("  kernel times (CUDA events, all calls):")
    for kname, seconds in sorted(runner.times.items(), key=lambda kv: -kv[1]):
        print(f"    {kname}: {seconds * 1e6:.1f} us")
    print(f"  total kernel time {sum(runner.times.values()) * 1e6:.1f} us")
    for line in runner.failures:
        print(f"  OUTSIDE THE BOUND: {line}")
    return not runner.failures


def check_conformance(kernels, budget: float) -> bool:
    start = time.perf_counter()
    failed, worst, done, times = [], 0.0, 0, {}
    stopped = False
    for label, func, compiled, args, expected in kernels:
        if time.perf_counter() - start > budget:
            stopped = True
            break
        got = copy.deepcopy(args)
        try:
            run_cuda(compiled, got, times)
        except (RelaxError, RuntimeError) as err:
            failed.append(f"{label}: {str(err).splitlines()[0]}")
            continue
        done += 1
        inexact = uses_inexact_math(func)
        for k, (x, y) in enumerate(zip(expected, got)):
            if not isinstance(x, np.ndarray):
                continue
            _, ulp, ok = difference(x, y)
            if not inexact:
                ok = np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
            worst = max(worst, ulp)
            if not ok:
                failed.append(f"{label}: argument {k} {ulp:.3g} ULP "
                              f"({'bound ' + str(ULP_BOUND) if inexact else 'exact expected'})")
    print(f"conformance kernels: {done} run ({'stopped at' if stopped else 'all, within'} "
          f"the {budget:.0f} s budget; each compiled and its reference computed first), "
          f"largest difference {worst:.3g} ULP, {len(failed)} outside the bound, "
          f"kernel time {sum(times.values()) * 1e3:.2f} ms in all")
    for line in failed[:40]:
        print(f"  {line}")
    return not failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--budget", type=float, default=300.0,
                    help="seconds for the conformance kernels")
    ap.add_argument("--cases", type=int, default=None, help="at most this many kernels")
    args = ap.parse_args(argv)
    name, why = cuda_device()
    t0 = time.perf_counter()
    prepared = prepare(args.n)
    print(f"the layer's PrimFuncs compiled for sm_90 with NVRTC in "
          f"{time.perf_counter() - t0:.1f} s")
    if name is None:
        print(f"no CUDA device: {why}; nothing launched")
        return 2
    print(f"device: {name}")
    ok = check_llama(*prepared)
    ok &= check_conformance(conformance_prepared(args.cases), args.budget)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
