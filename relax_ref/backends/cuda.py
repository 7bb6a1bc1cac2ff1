"""The CUDA C emitter (spec/backends.md BE-emit-*): the C-family printer with CUDA's
qualifiers, thread indices, type names and float-suffixed math functions; float16 as
``__half`` (cuda_fp16.h: its operators round every operation to half); contraction off
through NVRTC's ``--fmad=false`` (BE-emit-2, see nvrtc.py)."""
from __future__ import annotations

from relax_ref.ir.dtype import DataType

from .c_family import CFamilyPrinter, launch_comment
from .lower import DeviceProgram

__all__ = ["CUDAPrinter", "cuda_source"]

_SPECIAL = {  # bit patterns: NVRTC has no <math.h> macros without headers
    (32, "nan"): "__int_as_float(0x7fc00000)", (32, "inf"): "__int_as_float(0x7f800000)",
    (32, "-inf"): "__int_as_float(0xff800000)",
    (64, "nan"): "__longlong_as_double(0x7ff8000000000000LL)",
    (64, "inf"): "__longlong_as_double(0x7ff0000000000000LL)",
    (64, "-inf"): "__longlong_as_double(0xfff0000000000000LL)",
}


class CUDAPrinter(CFamilyPrinter):
    kernel_prefix = 'extern "C" __global__ void'
    pointer_space = ""
    restrict = "__restrict__"
    int_names = {8: "signed char", 16: "short", 32: "int", 64: "long long"}
    uint_names = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int",
                  64: "unsigned long long"}
    int64_suffix = "LL"
    uint64_suffix = "ULL"
    helper_prefix = "static __device__ __forceinline__"

    barrier = "__syncthreads()"
    shared_space = "__shared__"

    def thread_index(self, tag: str) -> str:
        return tag

    def float_literal(self, v: float, dt: DataType) -> str:
        if v != v or v in (float("inf"), float("-inf")):
            key = "nan" if v != v else ("inf" if v > 0 else "-inf")
            if dt.bits == 16:
                return f"__float2half_rn({_SPECIAL[(32, key)]})"
            return _SPECIAL[(dt.bits, key)]
        return super().float_literal(v, dt)

    def half_value_type(self) -> str:
        return "__half"

    def half_literal(self, text: str) -> str:
        return f"__float2half_rn({text}f)"

    def to_half(self, v: str, src: DataType) -> str:
        if src.is_float and src.bits == 32:
            return f"__float2half_rn({v})"
        if src.is_float and src.bits == 64:
            return f"__double2half({v})"
        return f"__double2half((double)({v}))"

    def from_half(self, v: str) -> str:
        return f"__half2float({v})"

    def call_math(self, name, args, dt):
        if dt.bits == 16:  # in float, rounded once to half
            texts = [self.from_half(self.expr(a)) for a in args]
            fn = self.math_name(name, DataType("float", 32, 1))
            return f"__float2half_rn({fn}({', '.join(texts)}))"
        return super().call_math(name, args, dt)

    def math_name(self, name: str, dt: DataType) -> str:
        from .c_family import MATH_FUNCTIONS
        base = MATH_FUNCTIONS.get(name, name)
        return base + "f" if dt.bits == 32 else base


def cuda_source(programs: list[DeviceProgram], noalias: bool | None = None) -> str:
    """One CUDA C file holding every kernel of ``programs`` (for NVRTC)."""
    printer = CUDAPrinter()
    kernels = [launch_comment(prog, k) + "\n" + printer.kernel(k, noalias)
               for prog in programs for k in prog.kernels]
    head = ["// CUDA C, written by relax_ref (spec/backends.md); compile with --fmad=false."]
    text = "\n".join(kernels)
    if "__half" in text:
        head.append("#include <cuda_fp16.h>")
    return "\n\n".join(["\n".join(head), *printer.helpers.values(), *kernels]) + "\n"
