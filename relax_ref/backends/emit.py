"""``relax-ref emit``: a module's kernels as one CUDA or OpenCL source file and a launch
table (spec/backends.md BE-cli-1).

The module is legalized (and, with ``fuse``, fused as the default pipeline does:
AnnotateTIROpPattern, FuseOps, FuseTIR); every PrimFunc is scheduled (BE-sched-*) and
lowered (BE-lower-*); the kernels are printed (BE-emit-*). The launch table says, per
PrimFunc, its parameters, the intermediate buffers the host allocates, and per kernel
its arguments and grid/block extents as expressions of the symbolic variables.
"""
from __future__ import annotations

from dataclasses import dataclass

from relax_ref.ir import tir
from relax_ref.ir.relax import IRModule
from relax_ref.ir.text import print_prim_expr

from .cuda import cuda_source
from .gpu_schedule import TARGET_THREADS
from .lower import DeviceProgram, lower_for_device
from .opencl import opencl_source
from .schedule import device_schedule

__all__ = ["Emitted", "emit_module", "write_emitted", "TARGETS"]

TARGETS = ("cuda", "opencl")
SUFFIX = {"cuda": ".cu", "opencl": ".cl"}


@dataclass(frozen=True)
class Emitted:
    target: str
    source: str
    programs: tuple[DeviceProgram, ...]
    launch_table: dict

    @property
    def suffix(self) -> str:
        return SUFFIX[self.target]


def emit_module(mod: IRModule, target: str, fuse: bool = False,
                row_reductions: bool = False) -> Emitted:
    """Legalize (and fuse), schedule (row reductions as shared-memory trees when
    ``row_reductions``, BE-sched-5), lower and print every PrimFunc of ``mod``."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
    from relax_ref.passes.pipeline import Pipeline
    from relax_ref.semantics.normalize import normalize

    passes = ["LegalizeOps"] + (["AnnotateTIROpPattern", "FuseOps", "FuseTIR"] if fuse else [])
    mod = Pipeline(passes).as_pass("emit")(normalize(mod))
    threads = TARGET_THREADS[target]
    programs = tuple(lower_for_device(device_schedule(f, threads, row_reductions), name)
                     for name, f in mod.items() if isinstance(f, tir.PrimFunc))
    source = (cuda_source if target == "cuda" else opencl_source)(list(programs))
    return Emitted(target, source, programs, launch_table(programs, target))


def launch_table(programs, target: str) -> dict:
    """BE-cli-1: what a host needs to run the kernels, as JSON-ready data."""
    out = []
    for prog in programs:
        buffers = dict(prog.func.buffer_map)
        params = []
        for p in prog.func.params:
            b = buffers.get(p)
            if b is None:
                params.append({"name": p.name, "scalar": str(p.dtype)})
            else:
                params.append({"name": p.name, "buffer": b.name, "dtype": str(b.dtype),
                               "shape": [print_prim_expr(d) for d in b.shape]})
        handle_names = {id(b.data or p): p.name for p, b in prog.func.buffer_map}
        allocs = []
        for var, dtype, extent in prog.allocations:
            handle_names[id(var)] = var.name
            allocs.append({"name": var.name, "dtype": str(dtype),
                           "elements": print_prim_expr(extent)})
        kernels = [{"name": k.name,
                    "arguments": [handle_names.get(id(p), p.name) for p in k.func.params],
                    "grid": [print_prim_expr(k.grid)], "block": [print_prim_expr(k.block)]}
                   for k in prog.kernels]
        checks = [{"condition": print_prim_expr(c), "message": m} for c, m in prog.checks]
        entry = {"prim_func": prog.name, "params": params, "allocations": allocs,
                 "checks": checks, "kernels": kernels}
        if prog.error_flag is not None:  # BE-lower-5: a zeroed int32[1], read after launches
            entry["error_flag"] = {"name": prog.error_flag.name,
                                   "messages": list(prog.device_checks)}
        out.append(entry)
    return {"target": target, "functions": out}


def write_emitted(mod: IRModule, path: str, target: str, fuse: bool,
                  out_dir: str | None, row_reductions: bool = False) -> list[str]:
    """BE-cli-1: the source to standard output, or ``<stem>.cu``/``.cl`` and
    ``<stem>.launch.json`` in ``out_dir``; returns the paths written."""
    import json
    import os
    import sys

    emitted = emit_module(mod, target, fuse, row_reductions)
    if out_dir is None:
        sys.stdout.write(emitted.source)
        return []
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(path))[0]
    source = os.path.join(out_dir, stem + emitted.suffix)
    table = os.path.join(out_dir, stem + ".launch.json")
    with open(source, "w") as f:
        f.write(emitted.source)
    with open(table, "w") as f:
        json.dump(emitted.launch_table, f, indent=2)
        f.write("\n")
    print(f"wrote {source} ({sum(len(p.kernels) for p in emitted.programs)} kernels) "
          f"and {table}")
    return [source, table]
