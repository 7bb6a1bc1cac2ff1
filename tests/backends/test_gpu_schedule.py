"""DefaultGPUSchedule (spec/backends.md BE-sched-*): each scheduled module computes what
the legalized one computes, checked by the differential harness (check_pass: random
inputs at several values of each symbolic variable, poison on), and each scheduled
PrimFunc by the TIR interpreter against the unscheduled one."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.backends.gpu_schedule import (
    ScheduleError, default_gpu_schedule, is_scheduled, schedule_module,
)
from relax_ref.errors import RelaxError
from relax_ref.ir import tir
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.passes.registry import Pass
from relax_ref.verify import check_pass

from .kernels import (
    SAMPLE, args_and_reference, assert_same, case_prim_funcs, conformance_cases, copy_args,
    legalized, symbolic_vars,
)
from relax_ref.semantics.tir_interp import run_prim_func

SCHEDULE = Pass("DefaultGPUSchedule", lambda m: schedule_module(m, "opencl"))


def lowered(text: str):
    return legalize_ops(relax_ref.check(relax_ref.from_source(text)))


ADD_SYMBOLIC = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4,), "float32")):
        z = R.add(x, y)
        return z
"""

SUM_ROWS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5, 7), "float32")):
        z = R.sum(x, axis=[1])
        w = R.max(x)
        return (z, w)
"""


def thread_loops(func: tir.PrimFunc) -> list[tuple[str, object]]:
    from relax_ref.ir.uses import tir_nodes
    return [(n.thread_tag, n.extent) for n in tir_nodes(func.body)
            if isinstance(n, tir.For) and n.kind == "thread_binding"]


def test_symbolic_elementwise_module_is_unchanged_in_meaning():
    mod = lowered(ADD_SYMBOLIC)
    check_pass(SCHEDULE, mod, trials=4)
    (func,) = [f for f in SCHEDULE(mod).functions.values() if isinstance(f, tir.PrimFunc)]
    assert is_scheduled(func)
    # BE-sched-2: a symbolic extent gets 256 blocks of 256 threads and a serial loop.
    tags = [(tag, e.value) for tag, e in thread_loops(func)]
    assert tags == [("blockIdx.x", 256), ("threadIdx.x", 256)]


def test_reductions_keep_a_serial_loop_per_thread():
    mod = lowered(SUM_ROWS)
    check_pass(SCHEDULE, mod, trials=2)
    funcs = [f for f in SCHEDULE(mod).functions.values() if isinstance(f, tir.PrimFunc)]
    extents = {tuple(e.value for _, e in thread_loops(f)) for f in funcs}
    # sum over rows: 5 outputs, one block of 5 threads; each of the full max's three
    # nests (NaN flag, maximum, result): one thread.
    assert extents == {(1, 5), (1, 1, 1, 1, 1, 1)}


def test_large_constant_extent_splits_with_a_guard():
    funcs = legalized(ADD_SYMBOLIC.replace('("n", 4)', "(300, 4)"))
    (func,) = funcs.values()
    g = default_gpu_schedule(func, max_threads=64)
    assert [(t, e.value) for t, e in thread_loops(g)] == [("blockIdx.x", 19), ("threadIdx.x", 64)]
    args, ref = args_and_reference(func, np.random.default_rng(0))
    out = copy_args(args)
    run_prim_func(g, out)
    assert_same(ref, out, func, "scheduled")


def test_scheduling_twice_changes_nothing():
    (func,) = legalized(ADD_SYMBOLIC).values()
    once = default_gpu_schedule(func)
    assert default_gpu_schedule(once) is once


def test_a_nest_the_schedule_does_not_know_is_declined():
    text = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(1)
"""
    func = relax_ref.from_source(text)["f"]
    with pytest.raises(ScheduleError, match="BE-sched-1"):
        default_gpu_schedule(func)


def _check_scheduled(func, what=""):
    args, ref = args_and_reference(func, np.random.default_rng(1))
    # (7, 3): blocks that overshoot the extent (BE-sched-3) and, past 21 elements, the
    # serial loop around the blocks (BE-sched-2). A symbolic extent launches
    # threads * blocks threads: (7, 3) only, to keep the interpreter quick.
    configs = ((7, 3),) if symbolic_vars(func) else ((256, 256), (7, 3))
    for threads, blocks in configs:
        out = copy_args(args)
        run_prim_func(default_gpu_schedule(func, threads, blocks), out, mode="ordered")
        assert_same(ref, out, func, f"{what} scheduled with {threads} threads")


@pytest.mark.parametrize("case", SAMPLE)
def test_conformance_kernels_sample(case):
    for name, func in case_prim_funcs(case):
        _check_scheduled(func)


@pytest.mark.slow
def test_every_conformance_kernel():
    declined, failed = [], []
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                default_gpu_schedule(func)
            except ScheduleError as err:  # an honest decline, listed below
                declined.append(f"{case}/{name}: {err}")
                continue
            try:
                _check_scheduled(func, f"{case}/{name}")
            except (AssertionError, RelaxError) as err:
                failed.append(f"{case}/{name}: {str(err).splitlines()[0]}")
    print("\n".join(["declined:", *declined]) if declined else "none declined")
    assert not failed, "\n".join(failed)
