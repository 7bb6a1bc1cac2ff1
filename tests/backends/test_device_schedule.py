"""The device schedule (spec/backends.md BE-sched-6..9): injective stages inlined, reduction
nests register-tiled with their epilogue in the same thread. Every scheduled PrimFunc is
run by the TIR interpreter against the unscheduled one (bit for bit: no float operation
moves), lowered and run split (BE-lower-4), and on PoCL; what cannot be proved exact is
left to the default schedule, and the tests show such declines."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.backends import lower as L
from relax_ref.backends.gpu_schedule import default_gpu_schedule
from relax_ref.backends.inline import inline_injective
from relax_ref.backends.schedule import device_schedule
from relax_ref.backends.tile_reduction import tile_reductions
from relax_ref.ir import tir
from relax_ref.ir.uses import tir_nodes
from relax_ref.passes.pipeline import PIPELINES, Pipeline
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.tir_interp import run_prim_func

from .kernels import (
    ROOT, SAMPLE, args_and_reference, assert_same, case_prim_funcs, conformance_cases,
    copy_args, symbolic_vars,
)


def check(func: tir.PrimFunc, scheduled: tir.PrimFunc, sizes=None, seeds=(0,)) -> None:
    """``scheduled`` (and its split form) computes what ``func`` computes."""
    prog = L.lower_for_device(scheduled, "f")
    for seed in seeds:
        args, ref = args_and_reference(func, np.random.default_rng(seed), sizes)
        out = copy_args(args)
        run_prim_func(scheduled, out, mode="ordered")
        assert_same(ref, out, func, "scheduled")
        out = copy_args(args)
        L.run_device_program(prog, out)
        assert_same(ref, out, func, "lowered")


def fused(text: str, n: int | None = None):
    """The PrimFuncs of ``text`` after LegalizeOps and fusion, as the default pipeline."""
    mod = normalize(relax_ref.check(relax_ref.from_source(text)))
    if n is not None:
        from relax_ref.passes.bind_symbolic_vars import bind_symbolic_vars
        mod = bind_symbolic_vars({"n": n}, "main")(mod)
    mod = Pipeline(PIPELINES["fuse"]).as_pass("test")(mod)
    return {name: f for name, f in mod.items() if isinstance(f, tir.PrimFunc)}


def small_llama() -> str:
    """examples/llama_layer.py at hidden 64, 8 heads of 8, MLP width 40 (not a multiple
    of the tile: the guarded path runs)."""
    text = (ROOT / "examples" / "llama_layer.py").read_text()
    return (text.replace("(n, 64)", "(n, 8)").replace("[n, 8, 64]", "[n, 8, 8]")
            .replace("512", "64").replace("1376", "40"))


def kernels(func: tir.PrimFunc) -> int:
    return len(L.lower_for_device(func, "f").kernels)


def nests(func: tir.PrimFunc) -> int:
    body = func.body.block.body
    return len(body.seq) if isinstance(body, tir.SeqStmt) else 1


@pytest.fixture(scope="module")
def llama():
    return fused(small_llama(), n=3)


def test_llama_fused_kernels_become_one_kernel_each(llama):
    # BE-sched-6 collapses the reshape/transpose/split/concat chains, BE-sched-8 runs
    # the add and silu * multiply epilogues in the matmul's thread.
    counts = {name: kernels(device_schedule(f, 256)) for name, f in llama.items()}
    for name, count in counts.items():
        if name.startswith("fused_"):
            assert count == 1, (name, count)
    assert counts["rms_norm"] == 2  # the sum of squares is read broadcast: kept apart
    for name in ("fused_matmul_add2", "fused_matmul3_silu_multiply2", "fused_matmul4_add2",
                 "fused_matmul1_multiply1_full_triu_add1", "matmul2"):
        check(llama[name], device_schedule(llama[name], 256))


@pytest.mark.slow
def test_llama_every_kernel_static_and_symbolic():
    for n in (3, None):
        for name, func in fused(small_llama(), n).items():
            check(func, device_schedule(func, 256), {"n": 5}, seeds=(0, 1))


def test_injective_chain_inlines_into_one_nest(llama):
    name = "fused_reshape_transpose_split_negative_concatenate_multiply_multiply_add"
    func = llama[name]
    inlined = inline_injective(func)
    assert nests(func) >= 8 and nests(inlined) == 1
    assert not inlined.body.block.alloc_buffers
    check(func, default_gpu_schedule(inlined, 64))


# The concatenation's second arm reads B[i - 4], in bounds only where i >= 4: the lazy
# if_then_else evaluates it only there (proved), a Select evaluates it everywhere.
CONCAT = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32"), C: T.Buffer((T.int64(8),), "float32")):
        T.func_attr({"tirx.noalias": True})
        B = T.sblock_alloc_buffer((T.int64(4),))
        for i in range(T.int64(4)):
            with T.sblock("B"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = A[vi + T.int64(4)] * T.float32(2)
        for i in range(T.int64(8)):
            with T.sblock("C"):
                vi = T.axis.spatial(T.int64(8), i)
                C[vi] = CHOICE(vi < T.int64(4), A[vi], B[vi - T.int64(4)])
"""


def prim(text: str) -> tir.PrimFunc:
    return relax_ref.from_source(text)["f"]


def test_inlining_proves_a_lazy_arm_in_bounds():
    func = prim(CONCAT.replace("CHOICE", "T.if_then_else"))
    inlined = inline_injective(func)
    assert nests(inlined) == 1
    check(func, device_schedule(func, 4))


def test_inlining_declines_a_strict_select_out_of_bounds():
    func = prim(CONCAT.replace("CHOICE", "T.Select"))
    assert inline_injective(func) is func


SHIFTED = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tirx.noalias": True})
        B = T.sblock_alloc_buffer((T.int64(4),))
        for i in range(T.int64(4)):
            with T.sblock("B"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(T.int64(READ)):
            with T.sblock("C"):
                vi = T.axis.spatial(T.int64(READ), i)
                C[vi] = B[OFFSET]
"""


def test_inlining_declines_a_read_that_may_leave_the_producer():
    # C reads B[i + 1] for i < 4: the last read is out of bounds (the interpreter traps
    # on the original; the inlined one must not silently read A[4]).
    func = prim(SHIFTED.replace("READ", "4").replace("OFFSET", "vi + T.int64(1)"))
    assert inline_injective(func) is func
    # for i < 3 it is in bounds: inlined.
    func = prim(SHIFTED.replace("T.int64(READ)", "T.int64(3)").replace(
        "OFFSET", "vi + T.int64(1)").replace('C: T.Buffer((T.int64(4),)', 'C: T.Buffer((T.int64(3),)'))
    assert nests(inline_injective(func)) == 1
    check(func, device_schedule(func, 4))


def test_inlining_declines_a_buffer_written_twice_and_aliasing_parameters():
    text = SHIFTED.replace("READ", "4").replace("OFFSET", "vi")
    twice = text.replace("""        for i in range(T.int64(4)):
            with T.sblock("C"):""", """        for i in range(T.int64(4)):
            with T.sblock("B2"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = T.float32(0)
        for i in range(T.int64(4)):
            with T.sblock("C"):""")
    func = prim(twice)
    assert inline_injective(func) is func
    check(func, device_schedule(func, 4))
    # Without tirx.noalias C may be A: the producer must read A before C is written.
    func = prim(text.replace('T.func_attr({"tirx.noalias": True})', ""))
    assert inline_injective(func) is func


MATMUL_T = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(5), T.int64(6)), "float32"), W: T.Buffer((T.int64(6), T.int64(7)), "float32"), X: T.Buffer((T.int64(7), T.int64(5)), "float32"), C: T.Buffer((T.int64(7), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        B = T.sblock_alloc_buffer((T.int64(5), T.int64(7)))
        for i, j, k in T.grid(T.int64(5), T.int64(7), T.int64(6)):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    B[vi, vj] = T.float32(0)
                B[vi, vj] = B[vi, vj] + A[vi, vk] * W[vk, vj]
        for i, j in T.grid(T.int64(7), T.int64(5)):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj, vi] + X[vi, vj]
"""


def test_a_transposed_consumer_is_not_an_epilogue():
    # BE-sched-8 needs the consumer to read the element its thread computed; here it
    # reads B transposed: the matmul is tiled alone and the add is its own kernel.
    func = prim(MATMUL_T)
    tiled = tile_reductions(func)
    assert nests(tiled) == 2 and tiled.body.block.alloc_buffers
    assert kernels(device_schedule(func, 8)) == 2
    check(func, device_schedule(func, 8), seeds=(0, 1))


def test_tiles_with_small_threads_and_guards_stay_exact():
    # 5 x 7 outputs in tiles of 2 rows x 2 columns of 4 threads: both edges guarded.
    func = prim(MATMUL_T)
    check(func, default_gpu_schedule(tile_reductions(func, threads=4, rows=2, cols=2), 4))


EMPTY_K = """
@I.ir_module
class Module:
    @T.prim_func
    def f(var_a: T.handle, C: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"tirx.noalias": True})
        k = T.int64()
        A = T.match_buffer(var_a, (T.int64(3), k))
        for i, r in T.grid(T.int64(3), k):
            with T.sblock("C"):
                vi, vr = T.axis.remap("SR", [i, r])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vr]
"""


def test_an_empty_reduction_leaves_its_output_unwritten():
    # With k = 0 the unscheduled nest runs no block: C keeps its values. The tiled one
    # guards its store on k > 0 (BE-sched-7).
    func = prim(EMPTY_K)
    scheduled = device_schedule(func, 4)
    for k in (0, 2):
        check(func, scheduled, {"k": k})


F16 = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 8), dtype="float16"), w: R.Tensor((8, 5), dtype="float16"), y: R.Tensor((3, 5), dtype="float16")):
        with R.dataflow():
            z = R.multiply(R.nn.silu(R.matmul(x, w)), y)
            R.output(z)
        return z
"""


def test_float16_epilogue_rounds_where_the_original_does():
    (func,) = fused(F16).values()
    scheduled = device_schedule(func, 16)
    assert kernels(scheduled) == 1
    check(func, scheduled, seeds=(0, 1, 2))


@pytest.mark.parametrize("case", SAMPLE)
def test_conformance_kernels_sample(case):
    for _, func in case_prim_funcs(case):
        sizes = None if not symbolic_vars(func) else {}
        check(func, device_schedule(func, 8), sizes)


@pytest.mark.slow
def test_every_conformance_kernel():
    from relax_ref.backends.gpu_schedule import ScheduleError
    from relax_ref.errors import RelaxError
    failed, declined, changed = [], [], 0
    for case in conformance_cases():
        for name, func in case_prim_funcs(case, strict=False):
            try:
                scheduled = device_schedule(func, 8)
            except ScheduleError as err:
                declined.append(f"{case}/{name}: {err}")
                continue
            changed += any(isinstance(n, tir.Allocate) and n.scope == "local"
                           for n in tir_nodes(scheduled.body)) or nests(func) != nests(
                               inline_injective(func))
            try:
                check(func, scheduled)
            except (AssertionError, RelaxError) as err:
                failed.append(f"{case}/{name}: {str(err).splitlines()[0]}")
    print(f"{changed} kernels inlined or tiled; declined: {len(declined)}")
    assert not failed, "\n".join(failed)


@pytest.mark.skipif("not __import__('relax_ref.backends.runtime_opencl', fromlist=['x'])"
                    ".default_platform()", reason="no OpenCL platform builds kernels here")
def test_fused_matmuls_on_opencl_equal_the_interpreter(llama):
    from relax_ref.backends.opencl import opencl_source
    from relax_ref.backends.runtime_opencl import run_opencl
    for name in ("fused_matmul_add2", "fused_matmul3_silu_multiply2", "matmul3",
                 "fused_reshape_transpose_split_negative_concatenate_multiply_multiply_add"):
        func = llama[name]
        prog = L.lower_for_device(device_schedule(func, 256), name)
        args, ref = args_and_reference(func, np.random.default_rng(0))
        out = copy_args(args)
        run_opencl(prog, opencl_source([prog]), out)
        assert_same(ref, out, func, name)


def test_tiled_and_inlined_kernels_run_clean_under_oclgrind():
    # Guarded tiles (5 x 7 outputs, tiles of 2 x 2 x 4 threads) and an inlined
    # concatenation: no out-of-bounds access, no race between work-items.
    from relax_ref.backends.opencl import opencl_source
    from relax_ref.backends.runtime_opencl import OCLGRIND, available, run_opencl
    if not available(OCLGRIND):
        pytest.skip("Oclgrind is not installed (the opencl extra)")
    for func, scheduled in (
            (prim(MATMUL_T), default_gpu_schedule(
                tile_reductions(prim(MATMUL_T), threads=4, rows=2, cols=2), 4)),
            (prim(CONCAT.replace("CHOICE", "T.if_then_else")), None)):
        scheduled = scheduled or device_schedule(func, 4)
        prog = L.lower_for_device(scheduled, "f")
        args, ref = args_and_reference(func, np.random.default_rng(0))
        out = copy_args(args)
        run_opencl(prog, opencl_source([prog]), out, OCLGRIND)
        assert_same(ref, out, func, "oclgrind")


def test_tiled_kernels_compile_for_sm_90(llama):
    from relax_ref.backends import nvrtc
    from relax_ref.backends.cuda import cuda_source
    if not nvrtc.available():
        pytest.skip("the cuda extra (NVRTC) is not installed")
    progs = [L.lower_for_device(device_schedule(llama[name], 1024), name)
             for name in ("fused_matmul3_silu_multiply2", "matmul2", "softmax")]
    nvrtc.compile_cuda(cuda_source(progs))


SYMBOLIC_K = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, "k"), "float32"), w: R.Tensor(("k", 5), "float32")):
        z = R.matmul(x, w)
        return z
"""


def test_a_separate_init_stage_folds_into_the_tile():
    # A symbolic reduction length: LegalizeOps writes an init stage, the sum without
    # T.init() and a select for k = 0 (TE-func-4); the tile takes the init stage's
    # constant, writes every element, and the select runs as its epilogue: one kernel.
    (func,) = fused(SYMBOLIC_K).values()
    scheduled = device_schedule(func, 8)
    assert nests(func) == 3 and kernels(scheduled) == 1
    for k in (0, 1, 4):
        check(func, scheduled, {"k": k})


def doubling_chain(stages: int) -> str:
    """B1 = A + A, B2 = B1 + B1, ...: each stage reads the one before twice."""
    allocs = "".join(f"        B{k} = T.sblock_alloc_buffer((T.int64(4),))\n"
                     for k in range(1, stages))
    nests = ""
    for k in range(1, stages + 1):
        src = "A" if k == 1 else f"B{k - 1}"
        dst = "C" if k == stages else f"B{k}"
        nests += f"""        for i in range(T.int64(4)):
            with T.sblock("B{k}"):
                vi = T.axis.spatial(T.int64(4), i)
                {dst}[vi] = {src}[vi] + {src}[vi]
"""
    return f"""
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({{"tirx.noalias": True}})
{allocs}{nests}"""


def test_inlining_stops_before_an_expression_grows_too_large():
    func = prim(doubling_chain(14))
    inlined = inline_injective(func)
    assert 1 < nests(inlined) < 14
    check(func, device_schedule(func, 4))


def _random_programs(count: int, seed: int) -> None:
    """Random well-formed modules (the fuzzer's generator), legalized and fused, then
    device-scheduled, checked by check_pass with PrimFuncs run in order (mode
    ``ordered``: the ``auto`` mode contracts the unscheduled sums of products,
    EXEC-tir-vec-7, so it is not bit for bit the order a tile keeps)."""
    import dataclasses

    from relax_ref.passes.registry import Pass
    from relax_ref.semantics.interpreter import Limits
    from relax_ref.testing.strategies import RandomChoices, build_module, generate_text
    from relax_ref.verify import check_pass

    fuse = Pipeline(PIPELINES["fuse"]).as_pass("fuse")
    schedule = Pass("DeviceSchedule", lambda m: m.with_functions({
        n: device_schedule(f, 8) if isinstance(f, tir.PrimFunc) else f
        for n, f in m.items()}))
    limits = dataclasses.replace(Limits(), tir_mode="ordered")
    for i in range(count):
        text = generate_text(RandomChoices(np.random.default_rng([seed, i])))
        check_pass(schedule, fuse(build_module(text)), trials=2, seed=i, limits=limits)


def test_random_programs():
    _random_programs(25, 0)


@pytest.mark.slow
def test_many_random_programs():
    _random_programs(500, 1)
