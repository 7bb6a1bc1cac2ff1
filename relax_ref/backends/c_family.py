"""One C-family printer for device kernels (spec/backends.md BE-emit-*), shared by the
OpenCL and CUDA emitters, which override only what differs: qualifiers, thread indices,
type names, half precision and math function names.

Invariant: the printed kernel computes what the TIR interpreter computes for the same
kernel PrimFunc, operation by operation in the same types: every operation keeps its
TIR dtype (no C promotion is left implicit where it would change a value), float
contraction is off (BE-emit-2), and where C's meaning differs from TIR's (signed
overflow, float ``!=``, ``min``/``max`` of floats, out-of-range float-to-int
conversion) the printer spells TIR's meaning out (BE-emit-3).
"""
from __future__ import annotations

import keyword
import math

import numpy as np

from relax_ref.errors import RelaxError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import DataType

from .lower import Kernel

__all__ = ["EmitError", "CFamilyPrinter", "MATH_FUNCTIONS"]


class EmitError(RelaxError):
    """A construct the emitter cannot print faithfully (it declines, never guesses)."""


#: TIR intrinsic -> C-family math function (float arguments, same type result).
MATH_FUNCTIONS = {
    "exp": "exp", "exp2": "exp2", "exp10": "exp10", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "expm1": "expm1", "erf": "erf", "tanh": "tanh",
    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh",
    "cosh": "cosh", "asin": "asin", "acos": "acos", "atan": "atan", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "round": "rint", "nearbyint": "rint", "fabs": "fabs", "pow": "pow", "atan2": "atan2",
    "hypot": "hypot", "fmod": "fmod", "copysign": "copysign", "nextafter": "nextafter",
}
_EXACT_MATH = {"floor", "ceil", "trunc", "round", "nearbyint", "fabs", "copysign",
               "nextafter", "fmod"}

_C_WORDS = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
            "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
            "register", "restrict", "return", "short", "signed", "sizeof", "static",
            "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
            "half", "bool", "global", "local", "private", "constant", "kernel", "uchar",
            "ushort", "uint", "ulong", "main"}


def _intrinsic(op: str) -> str:
    for prefix in ("tir.", "tirx."):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op


class CFamilyPrinter:
    """Prints one Kernel. Subclasses set the dialect's spellings."""

    kernel_prefix = ""           # "__kernel void" / 'extern "C" __global__ void'
    pointer_space = ""           # "__global " in OpenCL
    restrict = "restrict"
    int_names = {8: "char", 16: "short", 32: "int", 64: "long"}
    uint_names = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}
    file_header = ""

    def __init__(self) -> None:
        self.helpers: dict[str, str] = {}  # helper functions the kernels need, by name

    # -- names ------------------------------------------------------------------------------
    def _reset_names(self) -> None:
        self.names: dict[int, str] = {}
        self.taken: set[str] = set()

    def name(self, v: P.Var) -> str:
        hit = self.names.get(id(v))
        if hit is None:
            base = "".join(c if c.isalnum() or c == "_" else "_" for c in v.name) or "v"
            if base[0].isdigit() or base in _C_WORDS or keyword.iskeyword(base):
                base = "v_" + base
            hit, k = base, 0
            while hit in self.taken:
                k += 1
                hit = f"{base}_{k}"
            self.taken.add(hit)
            self.names[id(v)] = hit
        return hit

    # -- types --------------------------------------------------------------------------------
    def ctype(self, dt: DataType) -> str:
        """The C type a value of ``dt`` is computed in."""
        if dt.lanes != 1:
            raise EmitError(f"vector type {dt}", None, rule="BE-emit-1")
        if dt.is_bool:
            return "bool"
        if dt.is_float:
            names = {16: self.half_value_type(), 32: "float", 64: "double"}
            if dt.code != "float" or dt.bits not in names:
                raise EmitError(f"no C-family type for {dt} in this emitter", None,
                                rule="BE-emit-1")
            return names[dt.bits]
        if dt.is_integer and dt.bits in (8, 16, 32, 64):
            return self.int_names[dt.bits] if dt.is_int else self.unsigned(dt.bits)
        raise EmitError(f"no C-family type for {dt}", None, rule="BE-emit-1")

    def unsigned(self, bits: int) -> str:
        return self.uint_names[bits]

    def storage_type(self, dt: DataType) -> str:
        """The element type of a buffer of ``dt`` (bool is stored as one byte)."""
        if dt.is_bool:
            return self.unsigned(8)
        return self.ctype(dt)

    def half_value_type(self) -> str:
        raise NotImplementedError

    # -- the kernel ---------------------------------------------------------------------------
    def kernel(self, k: Kernel, noalias: bool | None = None) -> str:
        """The kernel's C text; pointers are ``restrict`` when ``noalias`` (default: the
        PrimFunc's ``tirx.noalias``)."""
        if noalias is None:
            noalias = bool(k.func.attrs.get("tirx.noalias", False)
                           or k.func.attrs.get("tir.noalias", False))
        self._reset_names()
        self.lines: list[str] = []
        self.buffer_types = _handle_types(k.func.body)
        self.in_thread = False
        self.levels: dict[str, int] = {}
        params = []
        for p in k.func.params:
            if p.dtype.is_handle:
                dt = self.buffer_types.get(id(p))
                if dt is None:
                    raise EmitError(f"kernel {k.name}: handle {p.name} is never accessed",
                                    None, rule="BE-emit-1")
                qual = f" {self.restrict}" if noalias else ""
                params.append(f"{self.pointer_space}{self.storage_type(dt)}*{qual} "
                              f"{self.name(p)}")
            else:
                params.append(f"{self.ctype(p.dtype)} {self.name(p)}")
        self.stmt(k.func.body, 1)
        head = f"{self.kernel_prefix} {k.name}({', '.join(params)}) {{"
        return "\n".join([head, *self.lines, "}"])

    def emit(self, line: str, depth: int) -> None:
        self.lines.append("  " * depth + line)

    # -- statements (BE-emit-1) --------------------------------------------------------------
    def stmt(self, s: tir.Stmt, d: int) -> None:
        if isinstance(s, tir.SeqStmt):
            phase = False
            for x in s.seq:
                is_phase = isinstance(x, tir.For) and x.thread_tag == "threadIdx.x"
                if is_phase:
                    # BE-emit-6: consecutive phases of a block meet at a barrier.
                    if phase:
                        self.emit(self.barrier + ";", d)
                    self.emit("{", d)
                    self.stmt(x, d + 1)
                    self.emit("}", d)
                else:
                    self.stmt(x, d)
                phase = is_phase
        elif isinstance(s, tir.For):
            self.for_loop(s, d)
        elif isinstance(s, tir.IfThenElse):
            self.emit(f"if ({self.cond(s.condition)}) {{", d)
            self.stmt(s.then_case, d + 1)
            if s.else_case is not None:
                self.emit("} else {", d)
                self.stmt(s.else_case, d + 1)
            self.emit("}", d)
        elif isinstance(s, tir.BufferStore):
            self.store(s, d)
        elif isinstance(s, tir.Allocate):
            self.allocate(s, d)
        elif isinstance(s, tir.DeclBuffer):
            self.stmt(s.body, d)
        elif isinstance(s, tir.LetStmt):
            self.emit(f"{self.ctype(s.var.dtype)} {self.name(s.var)} = {self.expr(s.value)};", d)
            self.stmt(s.body, d)
        else:
            raise EmitError(f"statement {type(s).__name__} in a kernel",
                            getattr(s, "span", None), rule="BE-emit-1")

    def for_loop(self, s: tir.For, d: int) -> None:
        v = self.name(s.loop_var)
        t = self.ctype(s.loop_var.dtype)
        if s.kind == "thread_binding":
            if not isinstance(s.min, P.IntImm) or s.min.value != 0:
                raise EmitError("a thread loop that does not start at 0", s.span,
                                rule="BE-emit-1")
            self.emit(f"{t} {v} = ({t}){self.thread_index(s.thread_tag)};", d)
            inside, self.in_thread = self.in_thread, self.in_thread or \
                s.thread_tag.startswith("threadIdx")
            self.stmt(s.body, d)
            self.in_thread = inside
            return
        lo, ext = self.expr(s.min), self.expr(s.extent)
        end = ext if isinstance(s.min, P.IntImm) and s.min.value == 0 else f"{lo} + {ext}"
        self.emit(f"for ({t} {v} = {lo}; {v} < {end}; ++{v}) {{", d)
        self.stmt(s.body, d + 1)
        self.emit("}", d)

    def thread_index(self, tag: str) -> str:
        raise NotImplementedError

    barrier = ""
    shared_space = ""

    def allocate(self, s: tir.Allocate, d: int) -> None:
        """BE-emit-6: a block's shared memory, or (inside a thread) a thread's own
        array, of a constant size."""
        (n,) = s.extents
        private = s.scope in ("global", "local") and self.in_thread
        if not (s.scope == "shared" or private) or not isinstance(n, P.IntImm):
            raise EmitError(f"an allocation in scope {s.scope} of {s.dtype} and extent "
                            f"{n} in a kernel", s.span, rule="BE-emit-6")
        space = f"{self.shared_space} " if s.scope == "shared" else ""
        self.emit(f"{space}{self.array_type(s)} "
                  f"{self.name(s.buffer_var)}[{max(n.value, 1)}];", d)
        self.stmt(s.body, d)

    def array_type(self, s: tir.Allocate) -> str:
        """The element type of an array a kernel declares."""
        return self.storage_type(s.dtype)

    def store(self, s: tir.BufferStore, d: int) -> None:
        (i,) = s.indices
        ptr = self.name(s.buffer.data)
        dt = s.buffer.dtype
        value = self.expr(s.value)
        if dt.is_bool:
            value = f"({self.unsigned(8)})({value})"
        self.emit(self.store_text(ptr, self.expr(i), value, dt) + ";", d)

    def store_text(self, ptr: str, index: str, value: str, dt: DataType) -> str:
        return f"{ptr}[{index}] = {value}"

    def load_text(self, ptr: str, index: str, dt: DataType) -> str:
        if dt.is_bool:
            return f"({ptr}[{index}] != 0)"
        return f"{ptr}[{index}]"

    # -- expressions (BE-emit-3) -------------------------------------------------------------
    def cond(self, e: P.PrimExpr) -> str:
        text = self.expr(e)
        return text[1:-1] if text.startswith("(") and text.endswith(")") and \
            _balanced(text[1:-1]) else text

    def expr(self, e: P.PrimExpr) -> str:
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise EmitError(f"expression {type(e).__name__}", getattr(e, "span", None),
                            rule="BE-emit-1")
        return method(e)

    # C's precedence, so that a kernel reads ``v_i0 * 8L + v_i1``: a text printed bare
    # records its operator's level; an operand is parenthesized when its level is lower
    # than its context needs (strictly lower on the left: C groups a + b + c as
    # (a + b) + c, which is also TIR's tree; on the right, lower or equal).
    _LEVEL = {"*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<": 10, "<=": 10, ">": 10,
              ">=": 10, "==": 9, "!=": 9, "&&": 5, "||": 4}
    _ATOM = 99

    def bare(self, text: str, op: str) -> str:
        self.levels[text] = self._LEVEL[op]
        return text

    def operand(self, e: P.PrimExpr, op: str, right: bool) -> str:
        text = self.expr(e)
        level, need = self.levels.get(text, self._ATOM), self._LEVEL[op]
        return f"({text})" if level < need or (right and level == need) else text

    def atom(self, e: P.PrimExpr) -> str:
        return self.atom_text(self.expr(e))

    def atom_text(self, text: str) -> str:
        return f"({text})" if self.levels.get(text, self._ATOM) < self._ATOM else text

    def infix(self, e, op: str) -> str:
        return self.bare(f"{self.operand(e.a, op, False)} {op} {self.operand(e.b, op, True)}",
                         op)

    def e_Var(self, e: P.Var) -> str:
        return self.name(e)

    def e_IntImm(self, e: P.IntImm) -> str:
        return self.int_literal(int(e.value), e.dtype)

    def int_literal(self, value: int, dt: DataType) -> str:
        if dt.is_bool:
            return "true" if value else "false"
        if dt.bits == 64:
            if dt.is_int and value == -2**63:
                return f"(-{2**63 - 1}{self.int64_suffix} - 1)"
            return f"{value}{self.uint64_suffix if dt.is_uint else self.int64_suffix}"
        if dt.bits == 32:
            if dt.is_int and value == -2**31:
                return "(-2147483647 - 1)"
            return f"{value}u" if dt.is_uint else str(value)
        return f"(({self.ctype(dt)}){value})"

    int64_suffix = "L"
    uint64_suffix = "UL"

    def e_FloatImm(self, e: P.FloatImm) -> str:
        return self.float_literal(float(e.value), e.dtype)

    def float_literal(self, v: float, dt: DataType) -> str:
        if math.isnan(v):
            text = "NAN"
        elif math.isinf(v):
            text = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            # The value the type holds, exactly (the compiler then rounds nothing).
            v = float(np.array(v).astype(_np_float(dt.bits)))
            text = repr(v)
            if "e" not in text and "." not in text:
                text += ".0"
            if dt.bits == 32:
                return text + "f" if not text.startswith("-") else f"({text}f)"
            if dt.bits == 16:
                return self.half_literal(text)
            return text if not text.startswith("-") else f"({text})"
        if dt.bits == 64:
            return f"((double){text})"
        if dt.bits == 16:
            return self.half_literal(text)
        return text

    def half_literal(self, text: str) -> str:
        raise NotImplementedError

    def e_StringImm(self, e) -> str:
        raise EmitError("a string operand in a kernel", e.span, rule="BE-emit-1")

    def e_BufferLoad(self, e: tir.BufferLoad) -> str:
        (i,) = e.indices
        return self.load_text(self.name(e.buffer.data), self.expr(i), e.buffer.dtype)

    def binary(self, e: P.BinaryOp, op: str) -> str:
        dt = e.dtype
        if dt.is_integer and op in "+-*" and (dt.bits < 32 or dt.is_int and _reads_memory(e)):
            # TIR wraps; C computes narrow types in int and leaves signed overflow
            # undefined: compute unsigned, at least 32 bits, and narrow back.
            u = self.unsigned(max(dt.bits, 32))
            a, b = self.atom(e.a), self.atom(e.b)
            return f"(({self.ctype(dt)})(({u}){a} {op} ({u}){b}))"
        if dt.is_integer and dt.bits < 32:
            return f"(({self.ctype(dt)})({self.infix(e, op)}))"
        if dt.is_float and dt.bits == 16:
            return self.half_binary(self.infix(e, op))
        return self.infix(e, op)

    def half_binary(self, text: str) -> str:
        return f"({text})"

    def e_Add(self, e): return self.binary(e, "+")
    def e_Sub(self, e): return self.binary(e, "-")
    def e_Mul(self, e): return self.binary(e, "*")

    def e_Div(self, e):
        if self._minus_one_possible(e):
            # The minimum divided by -1 overflows (a trap on x86); TIR wraps: -a.
            u = self.unsigned(max(e.dtype.bits, 32))
            a, b = self.atom(e.a), self.atom(e.b)
            return (f"({b} == -1 ? (({self.ctype(e.dtype)})(({u})0 - ({u}){a})) : "
                    f"{self.binary(e, '/')})")
        return self.binary(e, "/")

    def e_Mod(self, e):
        if e.dtype.is_float:
            return self.call_math("fmod", [e.a, e.b], e.dtype)
        if self._minus_one_possible(e):
            return f"({self.atom(e.b)} == -1 ? {self.int_literal(0, e.dtype)} : " \
                   f"{self.binary(e, '%')})"
        return self.binary(e, "%")

    @staticmethod
    def _minus_one_possible(e) -> bool:
        """A signed integer division whose divisor is not a constant other than -1."""
        return e.dtype.is_int and e.dtype.bits >= 32 and not (
            isinstance(e.b, P.IntImm) and e.b.value != -1)

    def e_FloorDiv(self, e):
        raise EmitError("floordiv left after lower_intrinsics", e.span, rule="BE-lower-3")

    e_FloorMod = e_FloorDiv

    def e_Min(self, e):
        a, b = self.operand(e.a, "<", False), self.operand(e.b, "<", True)
        return self.select_text(f"{a} < {b}", a, b)

    def e_Max(self, e):
        a, b = self.operand(e.a, ">", False), self.operand(e.b, ">", True)
        return self.select_text(f"{a} > {b}", a, b)

    def select_text(self, c: str, a: str, b: str) -> str:
        return f"({c} ? {a} : {b})"

    def compare(self, e, op):
        if op == "!=" and e.a.dtype.is_float:  # EXEC-tir-cmp-1: ordered
            a, b = self.operand(e.a, "<", False), self.operand(e.b, "<", True)
            return f"({a} < {b} || {a} > {b})"
        return self.infix(e, op)

    def e_EQ(self, e): return self.compare(e, "==")
    def e_NE(self, e): return self.compare(e, "!=")
    def e_LT(self, e): return self.compare(e, "<")
    def e_LE(self, e): return self.compare(e, "<=")
    def e_GT(self, e): return self.compare(e, ">")
    def e_GE(self, e): return self.compare(e, ">=")
    def e_And(self, e): return self.infix(e, "&&")
    def e_Or(self, e): return self.infix(e, "||")
    def e_Not(self, e): return f"(!{self.atom(e.a)})"

    def e_Select(self, e):
        return self.select_text(self.cond(e.condition), self.expr(e.true_value),
                                self.expr(e.false_value))

    def e_Cast(self, e: P.Cast) -> str:
        src, dst = e.value.dtype, e.dtype
        v = self.expr(e.value)
        if src == dst:
            return v
        if src.is_float and src.bits == 16 and not (dst.is_float and dst.bits == 16):
            v = self.from_half(v)
        if dst.is_bool:
            return f"({self.atom_text(v)} != 0)"
        if src.is_float and dst.is_integer:
            return f"{self.float_to_int_helper(src, dst)}({v})"
        if dst.is_float and dst.bits == 16:
            return self.to_half(v, src)
        return f"(({self.ctype(dst)}){self.atom_text(v)})"

    def to_half(self, v: str, src: DataType) -> str:
        raise NotImplementedError

    def from_half(self, v: str) -> str:
        return v

    def float_to_int_helper(self, src: DataType, dst: DataType) -> str:
        """EXEC-tir-cast-2: truncation in range; NaN, infinities and out-of-range values
        give x86's value (the type's minimum, or maximum for unsigned), not C's undefined
        behaviour."""
        name = f"f{src.bits}_to_{'i' if dst.is_int else 'u'}{dst.bits}"
        if name not in self.helpers:
            ft = "double"
            t = self.ctype(dst)
            lo, hi = ((-2**(dst.bits - 1), 2**(dst.bits - 1)) if dst.is_int
                      else (0, 2**dst.bits))
            bad = self.int_literal(lo if dst.is_int else hi - 1, dst)
            self.helpers[name] = (
                f"{self.helper_prefix} {t} {name}({ft} v) {{\n"
                f"  {ft} t = trunc(v);\n"
                f"  return (t >= {float(lo)!r} && t < {float(hi)!r}) ? ({t})t : {bad};\n}}")
        return name

    helper_prefix = "static inline"

    def e_Call(self, e: P.Call) -> str:
        name = _intrinsic(e.op)
        dt = e.dtype
        if name == "if_then_else":
            c, a, b = e.args
            return self.select_text(self.cond(c), self.expr(a), self.expr(b))
        if name == "likely":
            return self.expr(e.args[0])
        if name in MATH_FUNCTIONS:
            if not dt.is_float:
                raise EmitError(f"{name} of {dt}", e.span, rule="BE-emit-4")
            return self.call_math(name, list(e.args), dt)
        if name == "abs":
            if dt.is_float:
                return self.call_math("fabs", list(e.args), dt)
            x = self.atom(e.args[0])
            return f"(({self.ctype(dt)})({x} < 0 ? -({self.unsigned(dt.bits)}){x} : " \
                   f"({self.unsigned(dt.bits)}){x}))" if dt.is_int else x
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"):
            op = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
                  "shift_left": "<<", "shift_right": ">>"}[name]
            a, b = self.atom(e.args[0]), self.atom(e.args[1])
            return f"(({self.ctype(dt)})({a} {op} {b}))"
        if name == "bitwise_not":
            return f"(({self.ctype(dt)})(~{self.atom(e.args[0])}))"
        if name in ("isnan", "isinf", "isfinite"):
            a = e.args[0]
            if not a.dtype.is_float:
                return "true" if name == "isfinite" else "false"
            return f"({name}({self.from_half(self.expr(a))}) != 0)"
        if name in ("max_value", "min_value", "infinity", "neg_infinity"):
            return self.extreme(name, dt)
        raise EmitError(f"intrinsic {e.op} in a kernel", e.span, rule="BE-emit-4")

    def extreme(self, name: str, dt: DataType) -> str:
        if dt.is_float:
            if name in ("infinity", "neg_infinity"):
                return self.float_literal(math.inf if name == "infinity" else -math.inf, dt)
            big = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}[dt.bits]
            return self.float_literal(big if name == "max_value" else -big, dt)
        if dt.is_int:
            v = 2**(dt.bits - 1) - 1 if name == "max_value" else -2**(dt.bits - 1)
        else:
            v = 2**dt.bits - 1 if name == "max_value" else 0
        return self.int_literal(v, dt)

    def call_math(self, name: str, args: list, dt: DataType) -> str:
        """BE-emit-4: the type's own math function, on values of the type."""
        texts = [self.expr(a) for a in args]
        return f"{self.math_name(MATH_FUNCTIONS.get(name, name), dt)}({', '.join(texts)})"

    def math_name(self, name: str, dt: DataType) -> str:
        return name


def launch_comment(prog, k) -> str:
    """A line above each kernel: where it comes from and how it is launched."""
    from relax_ref.ir.text import print_prim_expr
    return (f"// {prog.name}, kernel {prog.kernels.index(k) + 1} of {len(prog.kernels)}: "
            f"grid {print_prim_expr(k.grid)} blocks of {print_prim_expr(k.block)} threads")


def _np_float(bits: int):
    return {16: np.float16, 32: np.float32, 64: np.float64}[bits]


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += c == "("
        depth -= c == ")"
        if depth < 0:
            return False
    return depth == 0


def _reads_memory(e: P.PrimExpr) -> bool:
    """Whether a value comes from a buffer (a data value, which may overflow; index
    arithmetic over loop and shape variables does not)."""
    if isinstance(e, tir.BufferLoad):
        return True
    return any(_reads_memory(c) for c in P.children(e))


def _handle_types(body: tir.Stmt) -> dict[int, DataType]:
    """The element type each data handle is accessed with (one per handle)."""
    from .lower import map_tir
    types: dict[int, DataType] = {}

    def note(buf: tir.Buffer, node):
        seen = types.setdefault(id(buf.data), buf.dtype)
        if seen != buf.dtype:
            raise EmitError(f"data of buffer {buf.name} is accessed as {seen} and as "
                            f"{buf.dtype}", getattr(node, "span", None), rule="BE-emit-1")

    def expr(e):
        if isinstance(e, tir.BufferLoad):
            note(e.buffer, e)
        return e

    def stmt(s):
        if isinstance(s, tir.BufferStore):
            note(s.buffer, s)
        return s

    map_tir(body, stmt, expr)
    return types
