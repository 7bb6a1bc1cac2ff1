"""Our DefaultGPUSchedule against TVM 0.27's on the same PrimFuncs (TVM's own
LegalizeOps output, read by our parser): the same thread-bound loops with the same
extents. Over the whole conformance suite (-m slow) they agree on every PrimFunc TVM
schedules; TVM 0.27 fails on PrimFuncs with several blocks under the root and on
empty extents, which ours schedules (spec/backends.md BE-sched-1..3)."""
from __future__ import annotations

import pytest

tvm = pytest.importorskip("tvm", reason="the tvm extra is not installed")

import relax_ref  # noqa: E402
from relax_ref.backends.gpu_schedule import default_gpu_schedule  # noqa: E402
from relax_ref.ir import tir  # noqa: E402
from relax_ref.ir.uses import tir_nodes  # noqa: E402

from .kernels import CONFORMANCE_OPS, conformance_cases  # noqa: E402


def thread_loops(func) -> list[tuple[str, object]]:
    return [(n.thread_tag, n.extent.value if isinstance(n.extent, relax_ref.ir.prim_expr.IntImm)
             else "symbolic") for n in tir_nodes(func.body)
            if isinstance(n, tir.For) and n.kind == "thread_binding"]


def tvm_legalized(case: str):
    from tvm import relax
    text = (CONFORMANCE_OPS / f"{case}.py").read_text()
    return relax.transform.LegalizeOps()(tvm.script.from_source(text))


def ours_and_tvms(case: str):
    """Per PrimFunc: (our schedule's thread loops, TVM's), or TVM's error."""
    mod = tvm_legalized(case)
    try:
        with tvm.target.Target("opencl"):
            scheduled = tvm.s_tir.transform.DefaultGPUSchedule()(mod)
    except Exception as err:  # TVM's failure is what we compare against
        return str(err).strip().splitlines()[-1]
    out = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        name = gv.name_hint
        read = lambda f: relax_ref.from_source(tvm.IRModule({"f": f}).script())["f"]  # noqa
        ours = default_gpu_schedule(read(func), max_threads=256)
        out[name] = (thread_loops(ours), thread_loops(read(scheduled[name])))
    return out


@pytest.mark.parametrize("case", ["add_broadcast_size1", "add_scalar_0d", "matmul_symbolic",
                                  "sum_symbolic_i32", "exp_f32", "take_axis0_i64"])
def test_same_thread_loops_as_tvm(case):
    for name, (ours, theirs) in ours_and_tvms(case).items():
        assert ours == theirs, f"{case}/{name}: ours {ours}, TVM {theirs}"


def test_tvm_fails_where_ours_schedules():
    # TVM 0.27: "Duplicated block name root" on a PrimFunc with intermediate blocks, and
    # a zero split factor on an empty tensor. Ours schedules both (and the tests run them).
    assert "Duplicated block name root" in ours_and_tvms("act_leg_softmax_f16_sum")
    assert "factors are required to be positive" in ours_and_tvms("add_empty")


@pytest.mark.slow
def test_every_conformance_case_where_tvm_schedules():
    differ = []
    for case in conformance_cases():
        try:
            found = ours_and_tvms(case)
        except Exception:  # TVM cannot parse or legalize the case: nothing to compare
            continue
        if isinstance(found, str):
            continue
        differ += [f"{case}/{n}: ours {a}, TVM {b}" for n, (a, b) in found.items() if a != b]
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("case", ["act_leg_softmax_f16_sum", "matmul_symbolic", "add_scalar_0d"])
def test_tvm_reads_our_scheduled_prim_funcs(case):
    from relax_ref.ir.relax import IRModule
    from .kernels import case_prim_funcs
    for name, func in case_prim_funcs(case):
        ours = default_gpu_schedule(func)
        parsed = tvm.script.from_source(IRModule({name: ours}).script())
        assert bool(parsed[name].attrs["tirx.is_scheduled"])
        # TVM's print of it reads back with the same thread loops.
        back = relax_ref.from_source(parsed.script())[name]
        assert thread_loops(back) == thread_loops(ours)
