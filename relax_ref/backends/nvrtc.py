"""Compiling CUDA C with NVRTC, without a GPU or driver (spec/backends.md BE-run-2).

``compile_cuda(source, arch="sm_90")`` compiles with ``--fmad=false`` (BE-emit-2: no
contraction of ``a * b + c``) and returns the PTX and the cubin; a compile error
raises CompileError with NVRTC's log. Uses the ``cuda`` extra's wheels
(``nvidia-cuda-nvrtc-cu12`` for the library, ``nvidia-cuda-runtime-cu12`` for
``cuda_fp16.h``) through ctypes.
"""
from __future__ import annotations

import ctypes
import functools
import glob
import os
from dataclasses import dataclass

__all__ = ["CompileError", "CompiledCUDA", "available", "compile_cuda", "OPTIONS"]

#: Options of every compile: contraction off (BE-emit-2).
OPTIONS = ("--fmad=false", "--std=c++17")


class CompileError(Exception):
    """NVRTC rejected the source; ``log`` is its message."""

    def __init__(self, message: str, log: str):
        super().__init__(f"{message}\n{log}")
        self.log = log


@dataclass(frozen=True)
class CompiledCUDA:
    ptx: str
    cubin: bytes
    log: str


def _nvidia_dir(part: str) -> str | None:
    try:
        import nvidia  # namespace package of the NVIDIA wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        path = os.path.join(root, part)
        if os.path.isdir(path):
            return path
    return None


@functools.lru_cache(maxsize=1)
def _library():
    lib_dir = _nvidia_dir("cuda_nvrtc/lib")
    if lib_dir is None:
        return None
    found = sorted(glob.glob(os.path.join(lib_dir, "libnvrtc.so.*")))
    if not found:
        return None
    lib = ctypes.CDLL(found[0])
    size = ctypes.POINTER(ctypes.c_size_t)
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_void_p]
    lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_char_p)]
    for name in ("nvrtcGetPTXSize", "nvrtcGetCUBINSize", "nvrtcGetProgramLogSize"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, size]
    for name in ("nvrtcGetPTX", "nvrtcGetCUBIN", "nvrtcGetProgramLog"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def available() -> bool:
    return _library() is not None


def compile_cuda(source: str, arch: str = "sm_90", name: str = "kernels.cu", *,
                 contract: bool = False) -> CompiledCUDA:
    """``contract=True`` lets NVRTC fuse multiply-adds (its default; for tests that show
    the difference)."""
    lib = _library()
    if lib is None:
        raise RuntimeError("NVRTC is not installed (the cuda extra: nvidia-cuda-nvrtc-cu12, "
                           "nvidia-cuda-runtime-cu12)")
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                       0, None, None), "nvrtcCreateProgram")
    try:
        options = [o for o in OPTIONS if not (contract and o.startswith("--fmad"))]
        options.append(f"--gpu-architecture={arch}")
        include = _nvidia_dir("cuda_runtime/include")
        if include is not None:
            options.append(f"--include-path={include}")
        argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        status = lib.nvrtcCompileProgram(prog, len(options), argv)
        log = _read(lib, prog, "ProgramLog").decode(errors="replace").rstrip("\x00")
        if status != 0:
            raise CompileError(f"NVRTC could not compile {name} for {arch}: "
                               f"{lib.nvrtcGetErrorString(status).decode()}", log)
        ptx = _read(lib, prog, "PTX").decode().rstrip("\x00")
        cubin = _read(lib, prog, "CUBIN")
        return CompiledCUDA(ptx, cubin, log)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _read(lib, prog, what: str) -> bytes:
    n = ctypes.c_size_t()
    _check(lib, getattr(lib, f"nvrtcGet{what}Size")(prog, ctypes.byref(n)), what)
    buf = ctypes.create_string_buffer(n.value)
    _check(lib, getattr(lib, f"nvrtcGet{what}")(prog, buf), what)
    return buf.raw


def _check(lib, status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what}: {lib.nvrtcGetErrorString(status).decode()}")
