"""Multi-versioning (spec/backends.md BE-mv-*): a kernel with a symbolic extent gets a
variant without its bounds check, proved by Z3 to be true whenever the divisibility
guard holds; the host picks it at run time, and both versions equal the interpreter."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from relax_ref.backends import lower as L
from relax_ref.backends.gpu_schedule import default_gpu_schedule
from relax_ref.backends.multiversion import SUFFIX, pick, specialize, specialize_program
from relax_ref.backends.opencl import opencl_source
from relax_ref.ir import prim_expr as P

from .kernels import multiply_add


def program(threads=4, blocks=2):
    return L.lower_for_device(default_gpu_schedule(multiply_add(), threads, blocks), "f")


def test_the_variant_drops_the_check_the_guard_proves():
    prog = program()
    (variant,) = specialize_program(prog).values()
    assert variant.removed == 1 and variant.kernel.name == "f_kernel" + SUFFIX
    source = opencl_source([dataclasses.replace(prog, kernels=(variant.kernel,))])
    assert "< n * 3L)" not in source  # the thread's check f < 3n is gone
    n = next(p for p in prog.kernels[0].func.params if p.name == "n")
    assert pick(prog.kernels[0], {"f_kernel": variant}, {n: 8}) is variant.kernel  # 24 % 8
    assert pick(prog.kernels[0], {"f_kernel": variant}, {n: 7}) is prog.kernels[0]


def test_a_guard_that_does_not_cover_the_loops_proves_nothing():
    # The same loops launched as if 3 x 4 threads covered them: E % 12 == 0 does not
    # keep o * 8 + b * 4 + t below E (3n = 12: thread 15 exists), so Z3 refutes it.
    (k,) = program().kernels
    host = {p for p in k.func.params if not p.dtype.is_handle}
    wrong = dataclasses.replace(k, grid=P.IntImm(3, k.grid.dtype))
    assert specialize(wrong, host) is None
    assert specialize(k, host) is not None


def test_a_constant_extent_needs_no_variant():
    from .kernels import legalized
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5, 3), dtype="float32")) -> R.Tensor((5, 3), dtype="float32"):
        return R.exp(x)
"""
    ((name, func),) = legalized(text).items()
    assert specialize_program(L.lower_for_device(default_gpu_schedule(func), name)) == {}


@pytest.mark.parametrize("n", [5, 65536])
def test_the_host_picks_a_version_and_both_equal_the_interpreter(n):
    pytest.importorskip("pyopencl", reason="the opencl extra is not installed")
    from relax_ref.backends.runtime_host import DeviceRunner
    from relax_ref.backends.runtime_opencl import default_platform
    from relax_ref.semantics.tir_interp import run_prim_func
    if default_platform() is None:
        pytest.skip("no OpenCL platform here builds kernels")
    func = multiply_add()
    runner = DeviceRunner("opencl", check=True)
    compiled = runner.prepare("f", func)
    (variant,) = compiled.variants.values()  # 256 x 256 threads: E % 65536 == 0
    rng = np.random.default_rng(n)
    args = [rng.standard_normal((n, 3)).astype("float32"),
            rng.standard_normal(3).astype("float32"), np.zeros((n, 3), "float32")]
    expected = [a.copy() for a in args]
    run_prim_func(func, expected, mode="ordered")
    runner.run(compiled, args)
    runner.compare("f", func, expected, args)
    assert runner.failures == []
    env = {p: n for p in compiled.program.kernels[0].func.params if p.name == "n"}
    chosen = pick(compiled.program.kernels[0], compiled.variants, env)
    assert (chosen is variant.kernel) == (n == 65536)


def test_the_variant_runs_clean_under_oclgrind():
    pytest.importorskip("pyopencl", reason="the opencl extra is not installed")
    from relax_ref.backends.runtime_opencl import OCLGRIND, available, run_opencl
    from relax_ref.semantics.tir_interp import run_prim_func
    if not available(OCLGRIND):
        pytest.skip("Oclgrind (the opencl extra) is not installed")
    prog = program()
    (variant,) = specialize_program(prog).values()
    only_variant = dataclasses.replace(prog, kernels=(variant.kernel,))
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((8, 3)).astype("float32"),  # 3 * 8 = 24: 8 divides it
            rng.standard_normal(3).astype("float32"), np.zeros((8, 3), "float32")]
    expected = [a.copy() for a in args]
    run_prim_func(multiply_add(), expected, mode="ordered")
    run_opencl(only_variant, opencl_source([only_variant]), args, OCLGRIND)  # no report
    assert np.array_equal(expected[2], args[2])
