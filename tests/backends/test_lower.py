"""Lowering to flat device code (spec/backends.md BE-lower-*): every step is a PrimFunc
the TIR interpreter runs, on the same arguments as the PrimFunc before it, with the
same results; the host/device split runs kernel by kernel in the interpreter too."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.backends import lower as L
from relax_ref.backends.gpu_schedule import default_gpu_schedule
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.uses import tir_nodes
from relax_ref.semantics.tir_interp import run_prim_func

from .kernels import (
    SAMPLE, args_and_reference, assert_same, case_prim_funcs, conformance_cases, copy_args,
    legalized,
)

ADD_SYMBOLIC = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4,), "float32")):
        z = R.add(x, y)
        return z
"""


def check_steps(func: tir.PrimFunc, sizes=None, threads: int = 256,
                blocks: int = 256) -> L.DeviceProgram:
    """Each step of the lowering against the unscheduled PrimFunc, in the interpreter
    (a symbolic extent launches ``threads * blocks`` threads: small ones keep the
    interpreter quick, the construction is the same)."""
    args, ref = args_and_reference(func, np.random.default_rng(2), sizes)
    step = default_gpu_schedule(func, threads, blocks)
    for name, fn in (("lower_blocks", L.lower_blocks), ("flatten_buffers", L.flatten_buffers),
                     ("lower_intrinsics", L.lower_intrinsics)):
        step = fn(step)
        out = copy_args(args)
        run_prim_func(step, out, mode="ordered")
        assert_same(ref, out, func, f"after {name}")
    prog = L.split_host_device(step, "f")
    out = copy_args(args)
    L.run_device_program(prog, out)
    assert_same(ref, out, func, "split into kernels")
    return prog


def test_blocks_become_loops_with_the_init_as_a_test():
    (func,) = legalized(ADD_SYMBOLIC.replace("R.add(x, y)", "R.sum(x, axis=[1])")
                        .replace('(4,), "float32"', '(1,), "float32"')).values()
    low = L.lower_blocks(default_gpu_schedule(func))
    nodes = list(tir_nodes(low.body))
    assert not any(isinstance(n, (tir.SBlock, tir.SBlockRealize)) for n in nodes)
    # BE-lower-1: T.init() runs where the reduction variable is at its minimum.
    tests = [n.condition for n in nodes if isinstance(n, tir.IfThenElse)]
    assert any(isinstance(c, P.EQ) and isinstance(c.b, P.IntImm) and c.b.value == 0
               for c in tests)
    check_steps(func, {"n": 5}, threads=4, blocks=2)


def test_flat_buffers_are_one_dimensional_over_the_same_data():
    (func,) = legalized(ADD_SYMBOLIC).values()
    flat = L.flatten_buffers(L.lower_blocks(default_gpu_schedule(func)))
    loads = [n for n in tir_nodes(flat.body) if isinstance(n, (tir.BufferLoad, tir.BufferStore))]
    assert loads and all(len(n.indices) == 1 and len(n.buffer.shape) == 1 for n in loads)
    params = set(flat.params)
    assert all(n.buffer.data in params for n in loads)


@pytest.mark.parametrize("n", [0, 1, 5, 70])
def test_symbolic_launch_extents(n):
    (func,) = legalized(ADD_SYMBOLIC).values()
    prog = check_steps(func, {"n": n}, threads=8, blocks=4)
    (kernel,) = prog.kernels
    # BE-sched-2: 4 blocks of 8 threads, a serial loop over the rest, inside.
    assert (kernel.grid.value, kernel.block.value) == (4, 8)
    assert [p.name for p in kernel.func.params if not p.dtype.is_handle] == ["n"]


FLOORDIV = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32"), D: T.Buffer((8,), "int32")):
        for i in range(8):
            with T.sblock("c"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] // B[vi]
                D[vi] = A[vi] % B[vi]
"""


def test_floor_division_of_signed_values_is_corrected():
    func = relax_ref.from_source(FLOORDIV)["f"]
    low = L.lower_intrinsics(L.flatten_buffers(L.lower_blocks(default_gpu_schedule(func))))
    # BE-lower-3: no floordiv/floormod left; truncating ones with a sign correction.
    assert not any(isinstance(n, (P.FloorDiv, P.FloorMod)) for n in tir_nodes(low.body))
    a = np.array([7, -7, 7, -7, 0, -1, 6, -6], np.int32)
    b = np.array([2, 2, -2, -2, 3, 4, -3, -3], np.int32)
    out = [a, b, np.zeros(8, np.int32), np.zeros(8, np.int32)]
    run_prim_func(low, out)
    assert out[2].tolist() == (a // b).tolist() and out[3].tolist() == (a % b).tolist()


@pytest.mark.parametrize("case", SAMPLE)
def test_conformance_kernels_sample(case):
    for name, func in case_prim_funcs(case):
        check_steps(func)


@pytest.mark.slow
def test_every_conformance_kernel():
    from relax_ref.backends.gpu_schedule import ScheduleError
    from relax_ref.errors import RelaxError
    failed = []
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                default_gpu_schedule(func)
            except ScheduleError:
                continue  # listed by test_gpu_schedule's sweep
            try:
                check_steps(func, threads=7, blocks=3)
            except (AssertionError, RelaxError) as err:
                failed.append(f"{case}/{name}: {str(err).splitlines()[0]}")
    assert not failed, "\n".join(failed)


GUARDED = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m",), "float32"), y: R.Tensor(("n",), "float32")):
        z = R.broadcast_to(x, R.shape([n]))
        return z
"""


def test_a_guard_is_the_hosts_check_before_any_launch():
    """BE-lower-4: LegalizeOps' guard (TE-leg-7) stays out of the kernels; the host
    checks it before it launches anything and traps with the op's kind, as the
    interpreter does (EXEC-tir-assert-2)."""
    (func,) = legalized(GUARDED).values()
    prog = check_steps(func, {"m": 1, "n": 6}, threads=8, blocks=4)
    ((cond, message),) = prog.checks
    assert message.startswith("shape_mismatch: relax.broadcast_to:")
    assert not any(isinstance(s, tir.AssertStmt) for k in prog.kernels
                   for s in tir_nodes(k.func.body))
    check_steps(func, {"m": 6, "n": 6}, threads=8, blocks=4)
    args = [np.ones(3, "float32"), np.zeros(6, "float32")]
    with pytest.raises(relax_ref.RuntimeCheckError) as err:
        L.run_device_program(prog, args)
    assert err.value.check == "shape_mismatch" and err.value.rule == "EXEC-tir-assert-2"
