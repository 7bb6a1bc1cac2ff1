"""The row-reduction schedule (spec/backends.md BE-sched-5, BE-emit-6): a block of
threads per output element, partial folds, then a shared-memory tree whose phases meet
at barriers. The interpreter runs phase after phase (the barrier's meaning), so it
checks the schedule; OpenCL runs it; Oclgrind catches a missing barrier."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.backends import lower as L
from relax_ref.backends.cuda import cuda_source
from relax_ref.backends.gpu_schedule import default_gpu_schedule
from relax_ref.backends.row_reduction import schedule_row_reductions
from relax_ref.ir import tir
from relax_ref.ir.uses import tir_nodes
from relax_ref.semantics.tir_interp import run_prim_func

from .kernels import args_and_reference, assert_same, case_prim_funcs, copy_args, legalized

ROWS = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 40), "DT")):
        z = R.OP(x, axis=[1])
        return z
"""


def rows(op: str, dtype: str = "float32") -> tir.PrimFunc:
    (func,) = legalized(ROWS.replace("OP", op).replace("DT", dtype)).values()
    return func


def reduction_length(func, sizes=None) -> int:
    """The longest reduction of ``func`` (symbolic extents at ``sizes``, default 3)."""
    from relax_ref.solver.evaluate import evaluate_int
    from .kernels import symbolic_vars
    env = {v: (sizes or {}).get(v.name, 3) for v in symbolic_vars(func)}
    longest = 1
    for n in tir_nodes(func.body):
        if isinstance(n, tir.SBlock):
            length = 1
            for iv in n.iter_vars:
                if iv.kind == "R":
                    length *= int(evaluate_int(iv.dom.extent, env))
            longest = max(longest, length)
    return longest


def assert_close(ref, out, func, what, exact: bool, sizes=None):
    """Exact, or (a float sum the tree reassociates) within 2 n eps max(1, max |result|)
    of the output's type, n the reduction's length: the order of the rounding error of
    either summation order (BE-sched-5)."""
    if exact:
        return assert_same(ref, out, func, what)
    n = reduction_length(func, sizes)
    for x, y in zip(ref, out):
        if x.dtype.kind != "f" or not x.size:
            assert np.array_equal(x, y, equal_nan=True), what
            continue
        scale = max(1.0, float(np.nanmax(np.abs(x.astype(np.float64)))))
        bound = 2 * n * float(np.finfo(x.dtype).eps) * scale
        np.testing.assert_allclose(y.astype(np.float64), x.astype(np.float64), rtol=0,
                                   atol=bound, err_msg=what)


def check_tree(func, exact: bool, sizes=None, threads: int = 32):
    args, ref = args_and_reference(func, np.random.default_rng(4), sizes)
    tree = schedule_row_reductions(func, threads)
    out = copy_args(args)
    run_prim_func(tree, out, mode="ordered")
    assert_close(ref, out, func, "scheduled", exact, sizes)
    prog = L.lower_for_device(tree, "f")
    out = copy_args(args)
    L.run_device_program(prog, out)
    assert_close(ref, out, func, "split", exact, sizes)
    return args, ref, prog


def shared_allocations(func) -> list:
    return [n for n in tir_nodes(func.body) if isinstance(n, tir.Allocate)
            and n.scope == "shared"]


@pytest.mark.parametrize("op,dtype,exact", [("sum", "float32", False), ("max", "float32", True),
                                            ("sum", "int32", True), ("min", "float16", True),
                                            ("sum", "float16", False)])
def test_row_reductions_in_the_interpreter(op, dtype, exact):
    func = rows(op, dtype)
    check_tree(func, exact, {"n": 3})


def test_the_tree_is_a_sequence_of_phases():
    tree = schedule_row_reductions(rows("sum"), 32)
    (alloc,) = shared_allocations(tree)
    assert alloc.extents[0].value == 32
    phases = [n for n in tir_nodes(tree.body) if isinstance(n, tir.For)
              and n.thread_tag == "threadIdx.x"]
    assert len(phases) == 1 + 5 + 1  # partial folds, log2(32) tree steps, the store


def test_other_nests_get_the_default_schedule():
    (func,) = legalized(ROWS.replace("R.OP(x, axis=[1])", "R.exp(x)")
                        .replace("DT", "float32")).values()
    tree = schedule_row_reductions(func)
    assert not shared_allocations(tree)
    assert tree.body.block.body.thread_tag == default_gpu_schedule(func).body.block.body.thread_tag


def test_softmax_rows():
    for name, func in case_prim_funcs("act_leg_softmax_f16_sum"):
        check_tree(func, exact=False, threads=16)


def test_cuda_has_shared_memory_and_barriers():
    from relax_ref.backends import nvrtc
    _, _, prog = check_tree(rows("sum"), exact=False, sizes={"n": 2})
    source = cuda_source([prog])
    assert "__shared__ float" in source and source.count("__syncthreads();") == 6
    if nvrtc.available():
        nvrtc.compile_cuda(source)


def _opencl():
    pytest.importorskip("pyopencl", reason="the opencl extra is not installed")
    from relax_ref.backends import runtime_opencl
    return runtime_opencl


def test_row_sums_on_opencl():
    rt = _opencl()
    if rt.default_platform() is None:
        pytest.skip("no OpenCL platform here builds kernels")
    from relax_ref.backends.opencl import opencl_source
    for op, exact in (("sum", False), ("max", True)):
        func = rows(op)
        args, ref, prog = check_tree(func, exact, {"n": 5})
        out = copy_args(args)
        rt.run_opencl(prog, opencl_source([prog]), out)
        assert_close(ref, out, func, f"{op} on OpenCL", exact, {"n": 5})


def test_oclgrind_catches_a_missing_barrier():
    rt = _opencl()
    if not rt.available(rt.OCLGRIND):
        pytest.skip("Oclgrind (the opencl extra) is not installed")
    from relax_ref.backends.opencl import opencl_source
    args, ref, prog = check_tree(rows("sum"), False, {"n": 2})
    source = opencl_source([prog])
    rt.run_opencl(prog, source, copy_args(args), rt.OCLGRIND)  # clean with barriers
    broken = source.replace("barrier(CLK_LOCAL_MEM_FENCE);", "", 2)
    with pytest.raises(rt.DeviceCheckError, match="race"):
        rt.run_opencl(prog, broken, copy_args(args), rt.OCLGRIND)


@pytest.mark.slow
def test_every_conformance_kernel():
    from relax_ref.backends.gpu_schedule import ScheduleError
    from relax_ref.errors import RelaxError
    from .kernels import conformance_cases
    rt = _opencl()
    from relax_ref.backends.opencl import opencl_source
    failed, trees = [], 0
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                tree = schedule_row_reductions(func, 16)
            except ScheduleError:
                continue
            floats = [a for a in shared_allocations(tree) if a.dtype.is_float]
            trees += bool(shared_allocations(tree))
            try:
                args, ref, prog = check_tree(func, exact=not floats, threads=16)
                if rt.default_platform() is not None:
                    out = copy_args(args)
                    rt.run_opencl(prog, opencl_source([prog]), out)
                    assert_close(ref, out, func, "on OpenCL", exact=not floats)
            except (AssertionError, RelaxError) as err:
                failed.append(f"{case}/{name}: {str(err).splitlines()[0]}")
    print(f"{trees} kernels with a tree")
    assert not failed, "\n".join(failed)


def test_a_separate_init_stage_counts_as_the_init():
    # The Llama layer's softmax sets its maximum and sum to a constant in a nest of its
    # own before reducing (TE-func-4): both reductions still become trees.
    from .kernels import ROOT
    funcs = legalized((ROOT / "examples" / "llama_layer.py").read_text())
    func = funcs["softmax"]
    assert len(shared_allocations(schedule_row_reductions(func, 16))) == 2
    check_tree(func, exact=False, sizes={"n": 3}, threads=16)
