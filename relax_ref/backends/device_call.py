"""One device call's host side, shared by the OpenCL and CUDA hosts (spec/backends.md
BE-host-2): the arguments checked against the PrimFunc's buffers, one device buffer per
distinct tensor, and the results copied back with read-only inputs checked unchanged."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.solver.evaluate import evaluate_int
from relax_ref.values import PrimScalar

from .lower import DeviceProgram, check_guards, host_environment

__all__ = ["HostError", "NoDeviceError", "Compiled", "check_arguments", "device_buffers",
           "copy_back"]


class HostError(RuntimeCheckError):
    """An argument the kernels cannot take, or a kernel that broke its contract."""

    def __init__(self, message: str, rule: str):
        super().__init__(message, None, check="device", rule=rule)


class NoDeviceError(RuntimeError):
    """The target's kernels compiled, but there is no device to run them on."""


@dataclass
class Compiled:
    """One PrimFunc prepared for the device: its split program and source, or
    ``reason`` why it runs on the host."""

    name: str
    program: DeviceProgram | None = None
    source: str | None = None
    binary: object = None  # the CUDA cubin; OpenCL builds from ``source`` (cached)
    reason: str | None = None
    #: BE-mv-1: kernel name -> its variant without the proved bounds checks.
    variants: dict = field(default_factory=dict)


def check_arguments(prog: DeviceProgram, args: list) -> dict:
    """BE-host-2: each buffer parameter gets a tensor of its dtype and shape (the
    interpreter checks the same in ``run_prim_func``; a kernel would not); returns the
    host's variables."""
    func = prog.func
    if len(args) != len(func.params):
        raise HostError(f"{prog.name}: {len(args)} arguments for {len(func.params)} "
                        f"parameters", "BE-host-2")
    scalars = [a.value if isinstance(a, PrimScalar) else a for a in args]
    env = host_environment(func, scalars)
    buffers = dict(func.buffer_map)
    for k, (p, a) in enumerate(zip(func.params, scalars)):
        b = buffers.get(p)
        if b is None:
            continue
        if not isinstance(a, np.ndarray):
            raise HostError(f"{prog.name}: argument {k} ({b.name}) is not a tensor",
                            "BE-host-2")
        shape = tuple(int(evaluate_int(d, env)) for d in b.shape)
        if a.dtype != numpy_dtype(b.dtype) or a.shape != shape:
            raise HostError(f"{prog.name}: argument {k} ({b.name}) is {a.dtype}{list(a.shape)}, "
                            f"expected {b.dtype}{list(shape)}", "BE-host-2")
    check_guards(prog, env)
    return env


def device_buffers(prog: DeviceProgram, args: list) -> tuple[list, dict[int, int]]:
    """BE-host-2: the distinct arrays among the arguments (one device buffer each: a
    tensor passed twice, as an in-place call does, is one buffer) and, per parameter
    index, which of them. Arguments that overlap without being the same memory cannot
    be two device buffers and are an error."""
    distinct: list[np.ndarray] = []
    which: dict[int, int] = {}
    for k, a in enumerate(args):
        if not isinstance(a, np.ndarray):
            continue
        for j, d in enumerate(distinct):
            if _same_memory(a, d):
                which[k] = j
                break
            if np.may_share_memory(a, d) and a.size and d.size:
                raise HostError(f"{prog.name}: argument {k} overlaps another argument "
                                f"without being the same tensor", "BE-host-2")
        else:
            which[k] = len(distinct)
            distinct.append(a)
    return distinct, which


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)


def copy_back(prog: DeviceProgram, distinct: list, results: list) -> None:
    """BE-host-2: a writable argument takes the device's result; a read-only one (a
    ``call_tir`` input, EXEC-dps-4) must come back unchanged, else the kernel wrote an
    input and that is an error, never a silent difference from the interpreter."""
    for k, (arr, out) in enumerate(zip(distinct, results)):
        out = out.reshape(arr.shape)
        if arr.flags.writeable:
            np.copyto(arr, out)
        elif np.ascontiguousarray(arr).tobytes() != out.tobytes():  # bits, NaNs too
            raise HostError(f"{prog.name}: the kernels wrote argument {k}, an input the "
                            f"PrimFunc may only read", "BE-host-2")
