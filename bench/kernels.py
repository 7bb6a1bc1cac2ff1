"""Our OpenCL kernels vs TVM 0.27's, per fused kernel of the Llama-style layer, on PoCL.

Both sides compile the same PrimFuncs: examples/llama_layer.py with the sequence length
bound (BindSymbolicVars, n = --n) and fused by our LegalizeOps, AnnotateTIROpPattern,
FuseOps and FuseTIR; the fused module is printed and read by TVM. Ours: the device
schedule of spec/backends.md (BE-sched-9: injective stages inlined, BE-sched-6; reductions
register-tiled with their epilogue, BE-sched-7, 8; BE-sched-5's shared-memory trees for
row reductions; BE-sched-1..4 elsewhere), lowered and emitted (BE-lower-*, BE-emit-*). TVM's: DefaultGPUSchedule, as
its own default for a GPU PrimFunc; where TVM 0.27's DefaultGPUSchedule crashes (it
fails on every PrimFunc with several blocks: "Duplicated block name root"), TVM's dlight
rules (Matmul, GEMV, Reduction, GeneralReduction, Fallback), which is what TVM's GPU
pipelines run; the table says which. TVM's source comes from ``tvm.compile(...,
target="opencl")``'s imported module and is launched with the grid and block extents of
its scheduled TIR. One pyopencl harness (a profiling queue on the PoCL device that
builds) times every kernel with OpenCL events: a warm-up call, then the median of
``--repeat`` calls; a PrimFunc's time is the sum of its kernels'. The total weights
each PrimFunc by its calls in ``main``. Both outputs are compared (largest ULP apart;
TVM's source does not turn off FP contraction, so a multiply-add may round once).

    python bench/kernels.py [--n 32] [--repeat 5] [--per-nest]
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import relax_ref  # noqa: E402
from relax_ref.backends.lower import lower_for_device  # noqa: E402
from relax_ref.backends.opencl import opencl_source  # noqa: E402
from relax_ref.backends.row_reduction import schedule_row_reductions  # noqa: E402
from relax_ref.backends.schedule import device_schedule  # noqa: E402
from relax_ref.backends.runtime_host import difference  # noqa: E402
from relax_ref.ir import tir  # noqa: E402
from relax_ref.ir.numpy_dtype import numpy_dtype  # noqa: E402
from relax_ref.parser.printer import print_module  # noqa: E402
from relax_ref.passes.bind_symbolic_vars import bind_symbolic_vars  # noqa: E402
from relax_ref.passes.pipeline import PIPELINES, Pipeline  # noqa: E402
from relax_ref.semantics.memory import poison_array  # noqa: E402
from relax_ref.semantics.normalize import normalize  # noqa: E402
from relax_ref.solver.evaluate import evaluate_int  # noqa: E402

LLAMA = REPO / "examples" / "llama_layer.py"
TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")


def fused_module(n: int):
    mod = normalize(relax_ref.check(relax_ref.from_source(LLAMA.read_text())))
    mod = bind_symbolic_vars({"n": n}, "main")(mod)
    return Pipeline(PIPELINES["fuse"]).as_pass("bench")(mod)


def calls_in_main(fused, name: str) -> int:
    return len(re.findall(rf"cls\.{re.escape(name)}\b", print_module(fused)))


class Harness:
    """A profiling queue on the OpenCL platform our runtime picks (PoCL where it builds)."""

    def __init__(self):
        import pyopencl as cl

        from relax_ref.backends.runtime_opencl import _context, default_platform
        self.cl = cl
        self.platform = default_platform()
        if self.platform is None:
            sys.exit("no OpenCL platform builds kernels here (the opencl extra)")
        self.ctx, _ = _context(self.platform)
        self.queue = cl.CommandQueue(
            self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)

    def buffer(self, arr: np.ndarray):
        cl = self.cl
        flat = np.ascontiguousarray(arr).reshape(-1)
        buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, size=max(flat.nbytes, 1))
        if flat.nbytes:
            cl.enqueue_copy(self.queue, buf, flat)
        return buf

    def read(self, buf, like: np.ndarray) -> np.ndarray:
        out = np.empty(like.size, dtype=like.dtype)
        self.cl.enqueue_copy(self.queue, out, buf)
        self.queue.finish()
        return out.reshape(like.shape)

    def time(self, program, launches, repeat: int) -> float:
        """Median seconds of one pass over ``launches`` [(kernel name, global, local,
        args)], after a warm-up pass."""
        kernels = [(self.cl.Kernel(program, name), g, loc, args) for name, g, loc, args in launches]
        samples = []
        for r in range(repeat + 1):
            total = 0.0
            for k, g, loc, args in kernels:
                ev = k(self.queue, g, loc, *args)
                ev.wait()
                total += (ev.profile.end - ev.profile.start) * 1e-9
            if r:
                samples.append(total)
        return statistics.median(samples)


def inputs(func: tir.PrimFunc, rng) -> list[np.ndarray]:
    """Random arrays for each buffer parameter (the last, the output, poisoned)."""
    buffers = dict(func.buffer_map)
    out = []
    for p in func.params:
        b = buffers[p]
        shape = tuple(int(evaluate_int(d, {})) for d in b.shape)
        out.append(rng.standard_normal(shape).astype(numpy_dtype(b.dtype)))
    return out


def ours(h: Harness, name: str, func: tir.PrimFunc, args: list, repeat: int,
         per_nest: bool = False):
    """Our kernels' time, output and kernel count; ``per_nest``: with the per-nest
    schedules only (BE-sched-1..5, no inlining or tiling), for comparison."""
    scheduled = (schedule_row_reductions(func, 256) if per_nest
                 else device_schedule(func, 256, row_reductions=True))
    prog = lower_for_device(scheduled, name)
    program = h.cl.Program(h.ctx, opencl_source([prog])).build()
    bufs = {}
    buffers = dict(func.buffer_map)
    for p, a in zip(func.params, args):
        bufs[id(p)] = bufs[id(buffers[p].data or p)] = h.buffer(a)
    for var, dtype, extent in prog.allocations:
        bufs[id(var)] = h.buffer(poison_array((int(evaluate_int(extent, {})),), dtype))
    launches = []
    for k in prog.kernels:
        grid, block = int(evaluate_int(k.grid, {})), int(evaluate_int(k.block, {}))
        if grid * block:
            launches.append((k.name, (grid * block,), (block,),
                             [bufs[id(p)] for p in k.func.params]))
    seconds = h.time(program, launches, repeat)
    out = h.read(bufs[id(func.params[-1])], args[-1])
    return seconds, out, len(prog.kernels)


def tvm_source(tvm, name: str, tfunc):
    """TVM's OpenCL source, the scheduled TIR's script, and which schedule gave them."""
    from tvm.s_tir import dlight as dl
    mod = tvm.IRModule({name: tfunc.with_attr("global_symbol", name)})
    with tvm.target.Target("opencl"):
        try:
            scheduled, how = tvm.s_tir.transform.DefaultGPUSchedule()(mod), "default"
        except Exception as err:  # noqa: BLE001 - TVM's crash is reported, dlight tried
            crash = str(err).strip().splitlines()[-1]
            scheduled = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(),
                                                dl.gpu.Reduction(), dl.gpu.GeneralReduction(),
                                                dl.gpu.Fallback())(mod)
            how = "dlight" + (" (DefaultGPUSchedule: duplicated root block)"
                              if "Duplicated block name root" in crash else f" ({crash[:60]})")
    ex = tvm.compile(scheduled, target="opencl")
    source = "\n".join(m.inspect_source() for m in ex.mod.imports)
    return source, scheduled.script(), how


def launch_extents(script: str) -> tuple[tuple, tuple]:
    """(global size, local size) from the scheduled TIR's thread-bound loops (the
    largest extent per tag: one kernel)."""
    ext = dict.fromkeys(TAGS, 1)
    for value, tag in re.findall(r"T\.thread_binding\((?:T\.int64\()?(\d+)\)?, "
                                 r"thread=\"((?:blockIdx|threadIdx)\.[xyz])\"", script):
        ext[tag] = max(ext[tag], int(value))
    local = tuple(ext[f"threadIdx.{a}"] for a in "xyz")
    grid = tuple(ext[f"blockIdx.{a}"] * local[i] for i, a in enumerate("xyz"))
    return grid, local


def theirs(h: Harness, tvm, name: str, tfunc, func: tir.PrimFunc, args: list, repeat: int):
    source, script, how = tvm_source(tvm, name, tfunc)
    kernels = dict.fromkeys(re.findall(r"__kernel void (\w+)\(", source))
    if len(kernels) != 1:
        return None, None, f"{how}: {len(kernels)} kernels (launch sizes not derived)"
    (kname,) = kernels
    signature = re.search(rf"__kernel void {kname}\(([^)]*)\)", source).group(1)
    params = [s.split()[-1].removesuffix("_ptr") for s in signature.split(",")]
    by_name = {dict(func.buffer_map)[p].name: (a, p) for p, a in zip(func.params, args)}
    if any(p not in by_name for p in params):
        return None, None, f"{how}: a kernel parameter is no buffer of the PrimFunc"
    bufs = {p: h.buffer(by_name[p][0]) for p in params}
    program = h.cl.Program(h.ctx, source).build()
    grid, local = launch_extents(script)
    seconds = h.time(program, [(kname, grid, local, [bufs[p] for p in params])], repeat)
    out_name = dict(func.buffer_map)[func.params[-1]].name
    return seconds, h.read(bufs[out_name], args[-1]), how


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32, help="the sequence length n")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--per-nest", action="store_true",
                    help="also time the per-nest schedules alone (BE-sched-1..5)")
    args = ap.parse_args(argv)
    import tvm

    fused = fused_module(args.n)
    tmod = tvm.script.from_source(print_module(fused))
    h = Harness()
    rng = np.random.default_rng(0)
    print(f"Llama-style layer, n = {args.n}, OpenCL on {h.platform} "
          f"({h.ctx.devices[0].name}); median of {args.repeat}, milliseconds per call")
    print(f"{'PrimFunc':58} {'calls':>5} {'kernels':>7} {'ours':>9} {'TVM':>9} {'ours/TVM':>8} "
          f"{'ULP apart':>9}  TVM's schedule" + ("; ours per nest (kernels)" if args.per_nest else ""))
    total_ours = total_tvm = total_old = 0.0
    same = [0.0, 0.0]  # the PrimFuncs TVM's DefaultGPUSchedule schedules: like for like
    compared = 0
    for name, func in fused.items():
        if not isinstance(func, tir.PrimFunc):
            continue
        calls = calls_in_main(fused, name)
        a = inputs(func, rng)
        t_ours, out_ours, nk = ours(h, name, func, [x.copy() for x in a], args.repeat)
        old = ""
        if args.per_nest:
            t_old, _, nk_old = ours(h, name, func, [x.copy() for x in a], args.repeat, True)
            total_old += calls * t_old
            old = f"; {t_old * 1e3:.3f} ({nk_old})"
        try:
            t_tvm, out_tvm, how = theirs(h, tvm, name, tmod[name], func, [x.copy() for x in a],
                                         args.repeat)
        except Exception as err:  # noqa: BLE001 - TVM's failure is the row's result
            t_tvm, out_tvm, how = None, None, f"TVM failed: {str(err).strip().splitlines()[-1][:70]}"
        label = name if len(name) <= 58 else name[:55] + "..."
        if t_tvm is None:
            print(f"{label:58} {calls:5} {nk:7} {t_ours * 1e3:9.3f} {'-':>9} {'-':>8} {'-':>9}  "
                  f"{how}{old}")
            continue
        ulp = difference(out_tvm, out_ours)[1]
        total_ours += calls * t_ours
        total_tvm += calls * t_tvm
        compared += 1
        if how == "default":
            same[0] += calls * t_ours
            same[1] += calls * t_tvm
        print(f"{label:58} {calls:5} {nk:7} {t_ours * 1e3:9.3f} {t_tvm * 1e3:9.3f} "
              f"{t_ours / t_tvm:8.2f} {ulp:9.3g}  {how}{old}")
    print(f"total over the {compared} PrimFuncs both ran (weighted by calls): ours "
          f"{total_ours * 1e3:.3f} ms, TVM {total_tvm * 1e3:.3f} ms, ratio ours/TVM "
          f"{total_ours / total_tvm if total_tvm else float('nan'):.2f}")
    if args.per_nest:
        print(f"  ours with the per-nest schedules alone (BE-sched-1..5), all PrimFuncs: "
              f"{total_old * 1e3:.3f} ms")
    if same[1]:
        print(f"  of which where TVM ran its DefaultGPUSchedule: ours "
              f"{same[0] * 1e3:.3f} ms, TVM {same[1] * 1e3:.3f} ms, ratio {same[0] / same[1]:.2f}")
    print("  (kernels: how many kernels our lowering launches for the PrimFunc; TVM's one "
          "kernel keeps a fused group's intermediates in registers or shared memory)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
