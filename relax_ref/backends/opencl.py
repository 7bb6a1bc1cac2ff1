"""The OpenCL C emitter (spec/backends.md BE-emit-*): the C-family printer with OpenCL's
qualifiers and thread indices, ``FP_CONTRACT OFF`` (BE-emit-2), and float16 as storage
only (BE-emit-5: PoCL has no ``cl_khr_fp16``; values are floats rounded to half after
every float16 operation, which for + - * / gives the correctly rounded half result)."""
from __future__ import annotations

from relax_ref.ir.dtype import DataType

from .c_family import CFamilyPrinter, launch_comment
from .lower import DeviceProgram

__all__ = ["OpenCLPrinter", "opencl_source"]

_ROUND_TO_HALF = """\
static inline float round_to_half(float v) {
  ushort h;  /* a half's bits: without cl_khr_fp16 only pointers may be half */
  vstore_half(v, 0, (half*)&h);
  return vload_half(0, (const half*)&h);
}"""
_ROUND_TO_HALF_D = """\
static inline float round_to_half_d(double v) {
  /* Round to odd at float's 24 bits, then to nearest half: one rounding of v, as
     direct (24 >= 11 + 2 bits); no vstore_half of a double, which Oclgrind's
     uninitialized-value check cannot follow. */
  float f = convert_float_rtz(v);
  if ((double)f != v && f == f) f = as_float(as_uint(f) | 1u);
  return round_to_half(f);
}"""


class OpenCLPrinter(CFamilyPrinter):
    kernel_prefix = "__kernel void"
    pointer_space = "__global "
    restrict = "restrict"

    barrier = "barrier(CLK_LOCAL_MEM_FENCE)"
    shared_space = "__local"

    def thread_index(self, tag: str) -> str:
        kind, axis = tag.split(".")
        fn = {"blockIdx": "get_group_id", "threadIdx": "get_local_id"}[kind]
        return f"{fn}({'xyz'.index(axis)})"

    # -- float16 as storage (BE-emit-5) -----------------------------------------------------
    def half_value_type(self) -> str:
        return "float"

    def storage_type(self, dt: DataType) -> str:
        return "half" if dt.is_float and dt.bits == 16 else super().storage_type(dt)

    def half_literal(self, text: str) -> str:
        return text + "f" if text[0].isdigit() else f"({text}f)" if text[0] == "-" else text

    def _round(self, v: str, double: bool = False) -> str:
        self.helpers["round_to_half"] = _ROUND_TO_HALF
        if double:  # it calls round_to_half, printed before it
            self.helpers["round_to_half_d"] = _ROUND_TO_HALF_D
        return f"{'round_to_half_d' if double else 'round_to_half'}({v})"

    def half_binary(self, text: str) -> str:
        return self._round(text)

    def to_half(self, v: str, src: DataType) -> str:
        if src.is_float and src.bits == 32:
            return self._round(v)
        if src.is_float and src.bits == 64:
            return self._round(v, double=True)
        return self._round(f"(double)({v})", double=True)

    def call_math(self, name, args, dt):
        text = super().call_math(name, args, dt)
        return self._round(text) if dt.bits == 16 else text

    def array_type(self, s):
        """A kernel's own float16 array holds floats (only pointers may be half without
        cl_khr_fp16); every value stored is already rounded to half, so it holds the
        same values as half storage."""
        if s.dtype.is_float and s.dtype.bits == 16:
            self.float_held.add(self.name(s.buffer_var))
            return "float"
        return super().array_type(s)

    def load_text(self, ptr, index, dt):
        if dt.is_float and dt.bits == 16 and ptr not in self.float_held:
            return f"vload_half({index}, {ptr})"
        return super().load_text(ptr, index, dt)

    def store_text(self, ptr, index, value, dt):
        if dt.is_float and dt.bits == 16 and ptr not in self.float_held:
            return f"vstore_half({value}, {index}, {ptr})"
        return super().store_text(ptr, index, value, dt)

    def kernel(self, k, noalias=None):
        self.float_held: set[str] = set()
        return super().kernel(k, noalias)


def opencl_source(programs: list[DeviceProgram], noalias: bool | None = None) -> str:
    """One OpenCL C file holding every kernel of ``programs``."""
    printer = OpenCLPrinter()
    kernels = [launch_comment(prog, k) + "\n" + printer.kernel(k, noalias)
               for prog in programs for k in prog.kernels]
    head = ["// OpenCL C 1.2, written by relax_ref (spec/backends.md).",
            "#pragma OPENCL FP_CONTRACT OFF"]
    text = "\n".join(kernels)
    if "double" in text or any("double" in h for h in printer.helpers.values()):
        head.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    return "\n\n".join(["\n".join(head), *printer.helpers.values(), *kernels]) + "\n"
