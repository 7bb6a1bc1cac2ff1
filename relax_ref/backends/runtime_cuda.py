"""Running NVRTC cubins on an NVIDIA GPU with cuda-bindings (spec/backends.md BE-host-3).

``cuda_device()`` says whether a GPU is there (the name, or why not: no cuda-bindings,
no driver, no device), without raising. ``run_cuda(compiled, args)`` runs a prepared
PrimFunc (runtime_host.Compiled with its cubin) as the OpenCL host does (BE-host-2):
arguments checked, one device buffer per distinct array, intermediates poisoned,
kernels launched in order, results copied back and read-only inputs checked unchanged.
``launch_plan`` does everything up to the launch (arguments checked, sizes and kernel
parameters laid out) and needs no GPU, so it is tested everywhere.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.semantics.memory import poison_array
from relax_ref.solver.evaluate import evaluate_int

from .device_call import Compiled, NoDeviceError, check_arguments, copy_back, device_buffers
from .lower import raise_device_check
from .multiversion import pick

__all__ = ["cuda_device", "run_cuda", "launch_plan", "LaunchPlan"]


def _driver():
    from cuda.bindings import driver  # the cuda extra
    return driver


@functools.lru_cache(maxsize=1)
def cuda_device() -> tuple[str | None, str]:
    """(the GPU's name, "") or (None, why there is none)."""
    try:
        drv = _driver()
    except ImportError:
        return None, "cuda-bindings is not installed (the cuda extra)"
    try:
        (err,) = drv.cuInit(0)
    except Exception as e:  # noqa: BLE001 - no driver library: said, not raised
        return None, f"no NVIDIA driver ({str(e).splitlines()[0]})"
    if err != drv.CUresult.CUDA_SUCCESS:
        return None, f"cuInit failed: {err.name}"
    err, count = drv.cuDeviceGetCount()
    if err != drv.CUresult.CUDA_SUCCESS or count == 0:
        return None, "the driver sees no GPU"
    _, dev = drv.cuDeviceGet(0)
    _, name = drv.cuDeviceGetName(128, dev)
    return name.split(b"\0", 1)[0].decode(), ""


def _check(result):
    """A cuda-bindings call's (err, values...) with err checked."""
    drv = _driver()
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err.name}")
    return rest[0] if len(rest) == 1 else rest


@functools.lru_cache(maxsize=1)
def _context():
    drv = _driver()
    dev = _check(drv.cuDeviceGet(0))
    ctx = _check(drv.cuDevicePrimaryCtxRetain(dev))
    _check(drv.cuCtxSetCurrent(ctx))
    return ctx


_MODULES: dict[int, tuple[bytes, np.ndarray, object]] = {}


def _module(cubin: bytes):
    """The loaded module of a cubin, once (the image kept alive beside it)."""
    hit = _MODULES.get(id(cubin))
    if hit is None:
        image = np.frombuffer(cubin, dtype=np.uint8)
        hit = (cubin, image, _check(_driver().cuModuleLoadData(image.ctypes.data)))
        _MODULES[id(cubin)] = hit
    return hit[2]


@dataclass
class LaunchPlan:
    """What one call needs: the distinct argument arrays, the intermediate buffers
    (poisoned), and per kernel (name, grid, block, parameters), each parameter a
    ("buffer", index into arrays + intermediates) or ("scalar", a 1-element array)."""

    arrays: list
    intermediates: list
    kernels: list
    #: BE-lower-5: the slot of the zeroed error flag (None without device asserts).
    error_slot: int | None = None


def launch_plan(compiled: Compiled, args: list) -> LaunchPlan:
    """BE-host-3 up to the launch (no GPU needed)."""
    prog = compiled.program
    env = check_arguments(prog, args)
    distinct, which = device_buffers(prog, args)
    slot: dict[int, int] = {}
    buffers = dict(prog.func.buffer_map)
    for k, p in enumerate(prog.func.params):
        if k in which:
            slot[id(p)] = which[k]
            b = buffers.get(p)
            if b is not None and b.data is not None:
                slot[id(b.data)] = which[k]
    intermediates = []
    for var, dtype, extent in prog.allocations:
        slot[id(var)] = len(distinct) + len(intermediates)
        intermediates.append(poison_array((int(evaluate_int(extent, env)),), dtype))
    error_slot = None
    if prog.error_flag is not None:  # BE-lower-5: zeroed, read after each launch
        error_slot = slot[id(prog.error_flag)] = len(distinct) + len(intermediates)
        intermediates.append(np.zeros(1, np.int32))
    kernels = []
    for k in prog.kernels:
        k = pick(k, compiled.variants, env)  # BE-mv-2
        params = [("buffer", slot[id(p)]) if p.dtype.is_handle else
                  ("scalar", np.array([env[p]], dtype=numpy_dtype(p.dtype)))
                  for p in k.func.params]
        kernels.append((k.name, int(evaluate_int(k.grid, env)),
                        int(evaluate_int(k.block, env)), params))
    return LaunchPlan(distinct, intermediates, kernels, error_slot)


def run_cuda(compiled: Compiled, args: list, times: dict | None = None) -> None:
    """Run on the GPU; with ``times``, add each kernel's time (seconds, CUDA events)
    under its name."""
    name, why = cuda_device()
    if name is None:
        raise NoDeviceError(f"no CUDA device is available ({why}) [BE-host-3]")
    drv = _driver()
    _context()
    plan = launch_plan(compiled, args)
    module = _module(compiled.binary)
    host = [np.ascontiguousarray(a).reshape(-1) for a in plan.arrays] + plan.intermediates
    device, events = [], []
    try:
        for h in host:
            d = _check(drv.cuMemAlloc(max(h.nbytes, 1)))
            device.append(d)
            if h.nbytes:
                _check(drv.cuMemcpyHtoD(d, h.ctypes.data, h.nbytes))
        start, stop = _check(drv.cuEventCreate(0)), _check(drv.cuEventCreate(0))
        events += [start, stop]
        for kname, grid, block, params in plan.kernels:
            if grid * block == 0:
                continue  # BE-lower-4
            fn = _check(drv.cuModuleGetFunction(module, kname.encode()))
            cells = [np.array([int(device[v])], dtype=np.uint64) if kind == "buffer" else v
                     for kind, v in params]
            pointers = np.array([c.ctypes.data for c in cells], dtype=np.uint64)
            _check(drv.cuEventRecord(start, 0))
            _check(drv.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0,
                                      pointers.ctypes.data, 0))
            _check(drv.cuEventRecord(stop, 0))
            _check(drv.cuEventSynchronize(stop))
            if plan.error_slot is not None and any(
                    kind == "buffer" and v == plan.error_slot for kind, v in params):
                flag = np.zeros(1, np.int32)
                _check(drv.cuMemcpyDtoH(flag.ctypes.data, device[plan.error_slot], 4))
                raise_device_check(compiled.program, flag[0])
            if times is not None:
                ms = _check(drv.cuEventElapsedTime(start, stop))
                times[kname] = times.get(kname, 0.0) + ms / 1000.0
        results = []
        for a, d in zip(plan.arrays, device):
            out = np.empty(a.size, dtype=a.dtype)
            if out.nbytes:
                _check(drv.cuMemcpyDtoH(out.ctypes.data, d, out.nbytes))
            results.append(out)
    finally:
        for d in device:
            drv.cuMemFree(d)
        for e in events:
            drv.cuEventDestroy(e)
    copy_back(compiled.program, plan.arrays, results)
