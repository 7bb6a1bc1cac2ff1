"""Emitted OpenCL kernels run and equal the TIR interpreter (spec/backends.md BE-run-1):
exactly, or within the ULP bound where a kernel calls a transcendental function.
Needs the opencl extra (pyopencl with PoCL, or Oclgrind)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyopencl", reason="the opencl extra (pyopencl[pocl]) is not installed")

import relax_ref  # noqa: E402
from relax_ref.backends import lower as L  # noqa: E402
from relax_ref.backends.gpu_schedule import ScheduleError, default_gpu_schedule  # noqa: E402
from relax_ref.backends.opencl import opencl_source  # noqa: E402
from relax_ref.backends.runtime_opencl import default_platform, run_opencl  # noqa: E402
from relax_ref.errors import RelaxError  # noqa: E402

from .kernels import (  # noqa: E402
    SAMPLE, args_and_reference, assert_same, case_prim_funcs, conformance_cases, copy_args,
    SCATTER, legalized, multiply_add,
)

if default_platform() is None:
    pytest.skip("no OpenCL platform here builds kernels", allow_module_level=True)


def run_and_compare(func, name="f", sizes=None, threads=256, blocks=256, seed=3) -> float:
    args, ref = args_and_reference(func, np.random.default_rng(seed), sizes)
    prog = L.lower_for_device(default_gpu_schedule(func, threads, blocks), name)
    source = opencl_source([prog])
    out = copy_args(args)
    run_opencl(prog, source, out)
    return assert_same(ref, out, func, f"{name} on OpenCL")


@pytest.mark.parametrize("case", SAMPLE)
def test_conformance_kernels_sample(case):
    for name, func in case_prim_funcs(case):
        run_and_compare(func, name)




@pytest.mark.parametrize("n", [0, 1, 7])
def test_symbolic_extent_is_a_kernel_argument(n):
    func = multiply_add()
    prog = L.lower_for_device(default_gpu_schedule(func, 4, 2), "f")
    source = opencl_source([prog])
    assert "long n)" in source and "FP_CONTRACT OFF" in source
    run_and_compare(func, sizes={"n": n}, threads=4, blocks=2)


def test_contraction_off_keeps_multiply_add_exact():
    # x * y + y in float32 with FMA would round once; the interpreter rounds twice.
    func = multiply_add()
    assert run_and_compare(func, sizes={"n": 64}, threads=8, blocks=4, seed=11) == 0.0


def test_half_arithmetic_rounds_every_operation():
    text = """
@I.ir_module
class Module:
    @T.prim_func
    def f(x: T.Buffer((T.int64(64),), "float16"), y: T.Buffer((T.int64(64),), "float16"), z: T.Buffer((T.int64(64),), "float16")):
        for i in range(T.int64(64)):
            with T.sblock("z"):
                vi = T.axis.remap("S", [i])
                z[vi] = (x[vi] * y[vi] + x[vi]) / y[vi] - T.float16(0.1)
"""
    func = relax_ref.from_source(text)["f"]
    assert run_and_compare(func) == 0.0


@pytest.mark.slow
def test_every_conformance_kernel():
    failed, worst = [], 0.0
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                default_gpu_schedule(func)
            except ScheduleError:
                continue  # listed by test_gpu_schedule's sweep
            try:
                worst = max(worst, run_and_compare(func, name, threads=7, blocks=3))
            except (AssertionError, RelaxError) as err:
                failed.append(f"{case}/{name}: {str(err).splitlines()[0]}")
    print(f"largest ULP distance: {worst}")
    assert not failed, "\n".join(failed)


def _on_oclgrind(source_edit):
    from relax_ref.backends.runtime_opencl import OCLGRIND, available
    if not available(OCLGRIND):
        pytest.skip("Oclgrind (the opencl extra) is not installed")
    func = multiply_add()
    args, ref = args_and_reference(func, np.random.default_rng(0), {"n": 5})
    prog = L.lower_for_device(default_gpu_schedule(func, 4, 2), "f")
    source = opencl_source([prog])
    out = copy_args(args)
    run_opencl(prog, source, out, OCLGRIND)  # the emitted kernel runs clean
    assert_same(ref, out, func, "on Oclgrind")
    broken = source_edit(source)
    assert broken != source
    run_opencl(prog, broken, copy_args(args), OCLGRIND)


def test_oclgrind_catches_an_off_by_one_store():
    from relax_ref.backends.runtime_opencl import DeviceCheckError
    with pytest.raises(DeviceCheckError, match="Invalid write"):
        _on_oclgrind(lambda s: s.replace("var_z[vi * 3L + vj]",
                                         "var_z[vi * 3L + vj + 1]"))


def test_oclgrind_catches_a_data_race():
    from relax_ref.backends.runtime_opencl import DeviceCheckError
    with pytest.raises(DeviceCheckError, match="race"):
        _on_oclgrind(lambda s: s.replace("var_z[vi * 3L + vj]", "var_z[vj]"))


def test_minimum_divided_by_minus_one_wraps_as_in_tir():
    # C overflows (x86 traps) on INT_MIN / -1; TIR wraps to INT_MIN, and so must we.
    text = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32"), C: T.Buffer((4,), "int32"), D: T.Buffer((4,), "int32"), E: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.sblock("c"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] // B[vi]
                D[vi] = A[vi] % B[vi]
                E[vi] = T.truncdiv(A[vi], B[vi])
"""
    from .kernels import reference
    func = relax_ref.from_source(text)["f"]
    args = [np.array([-2**31, -2**31, 7, -7], np.int32), np.array([-1, 3, -1, 2], np.int32),
            *(np.zeros(4, np.int32) for _ in range(3))]
    ref = reference(func, args)
    assert ref[4][0] == -2**31
    prog = L.lower_for_device(default_gpu_schedule(func), "f")
    out = copy_args(args)
    run_opencl(prog, opencl_source([prog]), out)
    assert_same(ref, out, func, "division by -1")


def test_double_to_half_rounds_once():
    # Just above or below a midpoint between two halves: rounding to float first
    # (nearest) would land on the midpoint and then round to even, the wrong way.
    text = """
@I.ir_module
class Module:
    @T.prim_func
    def f(x: T.Buffer((T.int64(16),), "float64"), y: T.Buffer((T.int64(16),), "float16")):
        for i in range(T.int64(16)):
            with T.sblock("y"):
                vi = T.axis.remap("S", [i])
                y[vi] = T.Cast("float16", x[vi])
"""
    from relax_ref.backends.runtime_opencl import OCLGRIND, available
    func = relax_ref.from_source(text)["f"]
    tiny = 2.0**-40
    x = np.array([1 + 2**-11 + tiny, 1 + 2**-11 - tiny, 1 + 2**-11, 1 + 3 * 2**-11,
                  -(1 + 2**-11 + tiny), 2**-25 + 2**-60, 2**-25, -2**-25 - 2**-60,
                  65520 - tiny * 2**16, 65520, 1e300, 1e-300, np.nan, -np.inf, 0.0, -0.0])
    args = [x, np.zeros(16, np.float16)]
    from .kernels import reference
    ref = reference(func, args)
    assert ref[1][0] == np.float16(1 + 2**-10)  # up, not to even
    prog = L.lower_for_device(default_gpu_schedule(func, 8, 2), "f")
    source = opencl_source([prog])
    for platform in {default_platform(), OCLGRIND if available(OCLGRIND) else None} - {None}:
        out = copy_args(args)
        run_opencl(prog, source, out, platform)
        assert_same(ref, out, func, f"double to half on {platform}")



def test_a_kernels_assert_is_a_flag_the_host_reads():
    """BE-lower-5: the scatter's in-range assert (data-dependent, so no host guard) is a
    store into the error flag; in range the kernel scatters as the interpreter does, out
    of range the call traps with the assert's kind, on the device and in the split form
    alike, and no store leaves the buffer."""
    (func,) = legalized(SCATTER).values()
    prog = L.lower_for_device(default_gpu_schedule(func, 8, 4), "scatter")
    assert prog.error_flag is not None and prog.device_checks
    source = opencl_source([prog])
    assert "relax_ref_error[0L] = 1;" in source
    x, u = np.zeros(4, "float32"), np.arange(1, 5, dtype="float32")
    good = [x.copy(), np.array([3, 2, 1, 0]), u, np.zeros(4, "float32")]
    run_opencl(prog, source, good)
    np.testing.assert_array_equal(good[3], [4, 3, 2, 1])
    for run in (lambda a: run_opencl(prog, source, a), lambda a: L.run_device_program(prog, a)):
        bad = [x.copy(), np.array([0, 7, 1, 2]), u, np.zeros(4, "float32")]
        with pytest.raises(relax_ref.RuntimeCheckError) as err:
            run(bad)
        assert err.value.check == "index_out_of_bounds", err.value
