"""Fusion on the Llama-3-8B-shaped decoder stack of bench/pipeline.py: kernel count and
intermediate bytes before vs after fusion, and our fusion time vs TVM's.

Both sides start from the same lowered module (our LegalizeOps output, printed and read
by TVM, so the PrimFuncs are the same) and run AnnotateTIROpPattern, FuseOps and FuseTIR
(the passes that exist here; the table says which), in alternating rounds. Intermediate
bytes are the bytes of the tensors the entry function's bindings produce and do not
return, at sequence length ``--seq``: fusion turns those of a fused group into
block-local buffers of one kernel.

    python bench/fusion.py [--layers 4] [--seq 128] [--repeat 10]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pipeline import llama_stack  # noqa: E402


def kernels_and_bytes(mod, seq: int) -> tuple[int, int]:
    """Kernel launches (call_tir bindings, counting those inside fused functions once per
    call) and bytes of the intermediate tensors of ``main`` at ``n = seq``."""
    from relax_ref.ir import relax as rx
    from relax_ref.ir import struct_info as si
    from relax_ref.ir.numpy_dtype import numpy_dtype
    from relax_ref.solver.evaluate import evaluate_int

    def calls_in(func) -> int:
        count = 0
        for block in func.body.blocks:
            for b in block.bindings:
                v = b.value
                if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and \
                        v.op.name.startswith("relax.call_tir"):
                    count += 1
                elif isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar):
                    callee = mod.functions.get(v.op.name_hint)
                    if isinstance(callee, rx.Function):
                        count += 1  # one kernel after FuseTIR
        return count

    main = mod.functions["main"]
    env = {}
    for p in main.params:
        s = p.struct_info
        if isinstance(s, si.TensorStructInfo) and s.shape is not None:
            for d in s.shape:
                if type(d).__name__ == "Var":
                    env[d] = seq
    returned = {id(main.body.body)}
    total = 0
    for block in main.body.blocks:
        for b in block.bindings:
            s = b.var.struct_info
            if id(b.var) in returned or not isinstance(s, si.TensorStructInfo) or s.shape is None:
                continue
            try:
                elems = int(np.prod([evaluate_int(d, env) for d in s.shape]))
            except Exception:  # noqa: BLE001 - a data-dependent size is left out
                continue
            total += elems * numpy_dtype(s.dtype).itemsize
    return calls_in(main), total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()

    import relax_ref
    from relax_ref.passes.legalize_ops import legalize_ops
    from relax_ref.passes.registry import all_passes

    names = [n for n in ("AnnotateTIROpPattern", "FuseOps", "FuseTIR") if n in all_passes()]
    lowered = legalize_ops(relax_ref.check(relax_ref.from_source(llama_stack(args.layers))))
    seq = relax_ref.transform.Sequential(names)
    fused = seq(lowered)
    before, after = kernels_and_bytes(lowered, args.seq), kernels_and_bytes(fused, args.seq)
    print(f"llama stack, {args.layers} layers, n = {args.seq}; passes: {', '.join(names)}")
    print(f"  kernels            {before[0]:6d} -> {after[0]:6d}")
    print(f"  intermediate bytes {before[1]:>14,d} -> {after[1]:>14,d}")
    used = {b.value.args[0].name_hint for f in fused.functions.values()
            if type(f).__name__ == "Function" for blk in f.body.blocks for b in blk.bindings
            if type(b.value).__name__ == "Call" and b.value.args
            and type(b.value.args[0]).__name__ == "GlobalVar"}
    print(f"  distinct PrimFuncs called after fusion: "
          f"{sum(1 for k, f in fused.functions.items() if type(f).__name__ == 'PrimFunc' and k in used)}")

    fns = {"ours": lambda: seq(lowered)}
    try:
        import tvm
        from tvm import relax
        from tvm.script import from_source

        tmod = from_source(lowered.script())
        tvm_seq = tvm.transform.Sequential([getattr(relax.transform, n)() for n in names])
        fns["tvm"] = lambda: tvm_seq(tmod)
        tvm_fused = tvm_seq(tmod)
        tvm_kernels = sum(1 for f in tvm_fused.functions.values()
                          if type(f).__name__ == "PrimFunc")
        print(f"  TVM's output has {tvm_kernels} PrimFuncs")
    except Exception as err:  # noqa: BLE001 - TVM absent or failing
        print(f"(TVM not measured: {type(err).__name__}: {err})")
    for fn in fns.values():
        fn()
    # Wall time, and the CPU time of this process: on a machine shared with other work
    # the latter is the steadier (both sides run single-threaded here).
    times = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    for _ in range(args.repeat):
        for k, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    for k, v in times.items():
        print(f"  {k:<5} {' + '.join(names)}: {min(v) * 1000:8.1f} ms (best of {args.repeat}; "
              f"CPU {min(cpu[k]) * 1000:.1f} ms)")
    if "tvm" in times:
        ratio = float(np.median(np.array(times["ours"]) / np.array(times["tvm"])))
        cpu_ratio = min(cpu["ours"]) / min(cpu["tvm"])
        print(f"ours / TVM's = {ratio:.2f} (median of per-round ratios)  target <= 1.0")
        print(f"ours / TVM's CPU time = {cpu_ratio:.2f} (best of each)")


if __name__ == "__main__":
    main()
