"""The `tir` area: how a PrimFunc runs (spec/tir_semantics.md, EXEC-tir-*).

Every case is a module whose `main` calls a PrimFunc through `R.call_tir` (or
`R.call_tir_inplace`), so any Relax implementation that compiles or interprets TIR can
run it. The cases exercise loop nests and loop kinds, blocks (spatial and reduction
iterators, `T.axis.remap`, `T.init`, `T.where`, nested blocks with their own
allocations, `T.match_buffer`), the intrinsics, integer division and overflow, casts,
laziness of `T.if_then_else`, the traps of loads and stores out of bounds and of integer
division by zero, and poison (memory read before it is written reads NaN). Most cases
are written in the TVM 0.27 dialect (`T.sblock`, `s_tir=True`); a few use the earlier one
(`T.block`, `T.alloc_buffer`, `out_sinfo=`), which TVM 0.27 no longer parses.

Expected outputs come from NumPy formulas written next to each case (float math done in
float64 and rounded once to the result type where the spec says the intrinsic is
correctly rounded; float32 arithmetic done in float32), or are computed by hand here.
Cases whose result is exact (integers, casts, rounding) compare with `rtol = atol = 0`.

`python conformance/generate.py tir` writes conformance/tir/*.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np

from generate import Case, ok, prim, shape, tensor, trap, tuple_

AREA = "tir"
INT_MIN, INT_MAX = -2**31, 2**31 - 1


# -- building modules ---------------------------------------------------------------------------

def _indent(text: str, n: int = 4) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def module(funcs: list[str], main: str, typevars: tuple[str, ...] = ()) -> str:
    """A module of PrimFuncs (source at column 0) and a Relax `main` (source at column 0)."""
    lines = []
    if typevars:
        lines.append("# from typing import TypeVar")
    lines += ["# from tvm.script import ir as I", "# from tvm.script import relax as R",
              "# from tvm.script import tirx as T", ""]
    for v in typevars:
        lines.append(f'{v} = TypeVar("{v}")')
    lines += ["@I.ir_module", "class Module:"]
    for f in funcs:
        lines.append(_indent(f))
        lines.append("")
    lines.append(_indent(main))
    return "\n".join(lines) + "\n"


def ann(dims, dtype="float32") -> str:
    inner = ", ".join(str(d) for d in dims)
    if len(dims) == 1:
        inner += ","
    return f'R.Tensor(({inner}), "{dtype}")'


def call_main(params: list[tuple[str, str]], inputs: list[str], out, *, func="f",
              tir_vars: str | None = None, inplace: list[int] | None = None,
              classic: bool = False) -> str:
    """`main(params)` calling `cls.func` on `inputs` with output struct info `out` (one
    annotation, or a list of them for a tuple of outputs)."""
    sig = ", ".join(f"{n}: {a}" for n, a in params)
    args = "(" + ", ".join(inputs) + ("," if len(inputs) == 1 else "") + ")"
    out_text = out if isinstance(out, str) else "[" + ", ".join(out) + "]"
    kw = "out_sinfo" if classic else "out_ty"
    extra = f", tir_vars={tir_vars}" if tir_vars else ""
    if inplace is not None:
        call = f"R.call_tir_inplace(cls.{func}, {args}, inplace_indices={inplace}, " \
               f"{kw}={out_text}{extra})"
    else:
        call = f"R.call_tir(cls.{func}, {args}, {kw}={out_text}{extra})"
    return f"""
@R.function
def main({sig}):
    cls = Module
    y = {call}
    return y
"""


PRIM = "@T.prim_func(private=True, s_tir=True)"      # TVM 0.27 dialect
PRIM_CLASSIC = "@T.prim_func(private=True)"          # earlier dialect (T.block)


def case(name, text, runs, covers, description) -> Case:
    return Case(AREA, name, text, runs=runs, covers=covers, description=description)


# -- data -------------------------------------------------------------------------------------------

def _rng(seed):
    return np.random.default_rng(seed)


def quarters(shape_, seed, lo=-2.0, hi=2.0) -> np.ndarray:
    """float32 multiples of 1/4: sums and products of a few of them are exact."""
    v = np.round(_rng(seed).uniform(lo, hi, size=shape_) * 4) / 4
    return v.astype(np.float32)


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def rounded(fn, x, dtype=np.float32):
    """``fn`` computed in float64 and rounded once to ``dtype`` (EXEC-tir-intrin-1)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, dtype=np.float64))).astype(dtype)


def wrap(values, bits=32, signed=True) -> list[int]:
    out = []
    for v in values:
        v = int(v) & ((1 << bits) - 1)
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def floordiv(a, b):
    return a // b                       # Python ints: floor


def floormod(a, b):
    return a % b


def truncdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def truncmod(a, b):
    return a - truncdiv(a, b) * b


EXACT = {"rtol": 0.0, "atol": 0.0}


def _quiet(fn):
    """``fn()`` with NumPy's overflow / invalid warnings silenced (the inf and NaN
    results are the point of the case)."""
    with np.errstate(all="ignore"):
        return fn()


# ==================================================================================================
# Loops
# ==================================================================================================

def loop_cases() -> list[Case]:
    cases = []

    f = PRIM + '''
def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32"), C: T.Buffer((3, 4), "float32")):
    for i, j in T.grid(3, 4):
        with T.sblock("c"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2)
'''
    a, b = quarters((3, 4), 1), quarters((3, 4), 2)
    cases.append(case(
        "grid_2d_elementwise",
        module([f], call_main([("x", ann((3, 4))), ("w", ann((3, 4)))], ["x", "w"], ann((3, 4)))),
        [ok([tensor(a), tensor(b)], [tensor(a + b * np.float32(2))])],
        ["EXEC-tir-for-1", "EXEC-tir-block-1", "EXEC-tir-store-1", "EXEC-tir-load-1",
         "EXEC-tir-bind-1", "EXEC-dps-1", "EXEC-tir-vec-1", "EXEC-tir-vec-3"],
        "T.grid over a 3x4 spatial block (T.axis.remap \"SS\"): C = A + 2 B (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.serial(2, 6):
        B[i - 2] = A[i] * T.float32(3)
'''
    a = quarters(8, 3)
    cases.append(case(
        "serial_with_start",
        module([f], call_main([("x", ann((8,)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a[2:6] * np.float32(3))])],
        ["EXEC-tir-for-1"],
        "T.serial(2, 6) runs i = 2, 3, 4, 5: B[i - 2] = 3 A[i], i.e. B = 3 A[2:6] (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((4, 3), "float32"), B: T.Buffer((4, 2), "float32")):
    for i in range(4):
        for j in range(1, 3):
            B[i, j - 1] = A[i, j] - A[i, j - 1]
'''
    a = quarters((4, 3), 4)
    cases.append(case(
        "python_range_loops",
        module([f], call_main([("x", ann((4, 3)))], ["x"], ann((4, 2)))),
        [ok([tensor(a)], [tensor(np.diff(a, axis=1))])],
        ["EXEC-tir-for-1"],
        "Python `range(4)` and `range(1, 3)` are serial loops: B = np.diff(A, axis=1)."))

    f = PRIM + '''
def f(A: T.Buffer((4, 3, 2), "float32"), B: T.Buffer((4, 3, 2), "float32")):
    for i in T.parallel(4):
        for j in T.unroll(3):
            for k in T.vectorized(2):
                B[i, j, k] = A[i, j, k] * T.float32(2) + T.float32(1)
'''
    a = quarters((4, 3, 2), 5)
    cases.append(case(
        "loop_kinds_parallel_unroll_vectorized",
        module([f], call_main([("x", ann((4, 3, 2)))], ["x"], ann((4, 3, 2)))),
        [ok([tensor(a)], [tensor(a * np.float32(2) + np.float32(1))])],
        ["EXEC-tir-for-1", "EXEC-tir-vec-1"],
        "T.parallel, T.unroll and T.vectorized loops mean plain loops (scheduling hints): "
        "B = 2 A + 1 (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "int32"), B: T.Buffer((1,), "int32")):
    B[0] = 0
    for i in T.unroll(5):
        B[0] = B[0] * 10 + A[i]
'''
    digits = np.array([7, 3, 9, 1, 4], np.int32)
    cases.append(case(
        "unroll_runs_in_order",
        module([f], call_main([("x", ann((5,), "int32"))], ["x"], ann((1,), "int32"))),
        [ok([tensor(digits)], [tensor(np.array([73914], np.int32))]),
         ok([tensor(np.array([1, 0, 0, 0, 2], np.int32))], [tensor(np.array([10002], np.int32))])],
        ["EXEC-tir-for-1", "EXEC-tir-seq-1"],
        "An order-dependent accumulation B = 10 B + A[i] under T.unroll: the iterations run "
        "in order, giving the digits of A as a number (by hand: 73914, 10002)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), k: T.int64, B: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        B[i] = T.float32(-1)
    for i in T.serial(k - T.int64(2)):
        B[i] = A[i]
'''
    a = f32([10, 20, 30, 40])
    runs = []
    for k in (0, 2, 3, 6):
        n = max(0, k - 2)
        want = f32([-1] * 4)
        want[:n] = a[:n]
        runs.append(ok([tensor(a), prim(k)], [tensor(want)]))
    cases.append(case(
        "loop_extent_zero_or_negative",
        module([f], call_main([("x", ann((4,))), ("k", "T.int64")], ["x", "R.prim_value(k)"],
                              ann((4,)))),
        runs,
        ["EXEC-tir-for-1", "EXEC-tir-bind-2", "EXEC-dps-1"],
        "A loop of extent k - 2 (k passed as an R.Prim argument) runs no iteration when the extent "
        "is 0 or negative (k = 0 gives -2): B starts as -1 and the first k - 2 elements are "
        "copied from A."))

    f = PRIM + '''
def f(a: T.handle, b: T.handle):
    n = T.int64()
    m = T.int64()
    A = T.match_buffer(a, (n, m), "float32")
    B = T.match_buffer(b, (m, n), "float32")
    for i, j in T.grid(n, m):
        with T.sblock("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vj, vi] = A[vi, vj]
'''
    runs = []
    for n, m in ((2, 3), (1, 5), (4, 4), (0, 3)):
        a = quarters((n, m), 10 + n * 7 + m)
        runs.append(ok([tensor(a)], [tensor(a.T.copy())]))
    cases.append(case(
        "symbolic_extents_transpose",
        module([f], call_main([("x", ann(("n", "m")))], ["x"], ann(("m", "n"))),
               typevars=("n", "m")),
        runs,
        ["EXEC-tir-for-1", "EXEC-tir-bind-1", "EXEC-dps-1"],
        "T.match_buffer on handles binds n and m from the array; T.grid(n, m) transposes. "
        "Four sizes, one of them empty (0 x 3): B = A.T (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((2, 3, 4), "float32"), B: T.Buffer((4, 2, 3), "float32")):
    for i, j, k in T.grid(2, 3, 4):
        with T.sblock("p"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vk, vi, vj] = A[vi, vj, vk]
'''
    a = quarters((2, 3, 4), 11)
    cases.append(case(
        "grid_3d_permute",
        module([f], call_main([("x", ann((2, 3, 4)))], ["x"], ann((4, 2, 3)))),
        [ok([tensor(a)], [tensor(np.transpose(a, (2, 0, 1)).copy())])],
        ["EXEC-tir-for-1", "EXEC-tir-block-1"],
        "A 3-deep T.grid permuting axes: B = transpose(A, (2, 0, 1)) (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="threadIdx.x"):
        B[i] = A[i] + T.float32(1)
'''
    a = quarters(4, 12)
    cases.append(case(
        "thread_binding_loop_runs_in_order",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a + np.float32(1))])],
        ["EXEC-tir-for-1"],
        "A T.thread_binding loop means the plain loop over its extent: B = A + 1. (TVM "
        "cannot compile a GPU thread binding for the llvm target.)"))
    return cases


# ==================================================================================================
# Blocks and reductions
# ==================================================================================================

def _reduce_func(name, init, update) -> str:
    return PRIM + f'''
def f(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 6):
        with T.sblock("{name}"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = {init}
            B[vi] = {update}
'''


def block_cases() -> list[Case]:
    cases = []

    f = PRIM + '''
def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
    for i, k in T.grid(3, 5):
        with T.sblock("rowsum"):
            vi = T.axis.spatial(3, i)
            vk = T.axis.reduce(5, k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
'''
    a = quarters((3, 5), 20)
    cases.append(case(
        "axis_spatial_reduce_row_sum",
        module([f], call_main([("x", ann((3, 5)))], ["x"], ann((3,)))),
        [ok([tensor(a)], [tensor(a.sum(axis=1))])],
        ["EXEC-tir-block-1", "EXEC-tir-block-3", "EXEC-tir-vec-4"],
        "T.axis.spatial and T.axis.reduce written out, T.init sets 0 at vk = 0: B = A.sum(1) "
        "(NumPy; quarter-valued data make the sum exact in any order)."))

    f = PRIM + '''
def f(a: T.handle, W: T.Buffer((8, 4), "float32"), c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, 8), "float32")
    C = T.match_buffer(c, (n, 4), "float32")
    for i, j, k in T.grid(n, 4, 8):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]
'''
    w = quarters((8, 4), 21)
    runs = []
    for n in (1, 3, 5):
        a = quarters((n, 8), 22 + n)
        runs.append(ok([tensor(a), tensor(w)], [tensor(a @ w)]))
    cases.append(case(
        "matmul_remap_ssr_symbolic",
        module([f], call_main([("x", ann(("n", 8))), ("w", ann((8, 4)))], ["x", "w"],
                              ann(("n", 4))), typevars=("n",)),
        runs,
        ["EXEC-tir-block-1", "EXEC-tir-block-3", "EXEC-tir-bind-1", "EXEC-tir-vec-4"],
        "A matmul block with T.axis.remap(\"SSR\") and T.init over a symbolic row count n "
        "(three sizes): C = A @ W (NumPy, exact for quarter-valued data)."))

    f = PRIM + '''
def f(Q: T.Buffer((2, 5, 16), "float32"), K: T.Buffer((2, 6, 16), "float32"), O: T.Buffer((2, 5, 6), "float32")):
    for b, i, j, k in T.grid(2, 5, 6, 16):
        with T.sblock("scores"):
            vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
            with T.init():
                O[vb, vi, vj] = T.float32(0.5)
            O[vb, vi, vj] = O[vb, vi, vj] + Q[vb, vi, vk] * K[vb, vj, vk]
'''
    rng = _rng(24)
    q = rng.standard_normal((2, 5, 16)).astype(np.float32)
    k = rng.standard_normal((2, 6, 16)).astype(np.float32)
    want = (np.float32(0.5) + q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1))
    cases.append(case(
        "batched_scores_sum_of_products",
        module([f], call_main([("q", ann((2, 5, 16))), ("k", ann((2, 6, 16)))], ["q", "k"],
                              ann((2, 5, 6)))),
        [ok([tensor(q), tensor(k)], [tensor(want.astype(np.float32))], rtol=1e-5, atol=1e-5)],
        ["EXEC-tir-block-3", "EXEC-tir-vec-4", "EXEC-tir-vec-7"],
        "Attention scores Q K^T per batch with the init 0.5, random float32 data: a float "
        "sum of products, which an implementation may add in any order (EXEC-tir-vec-7), "
        "so the expected value is the float64 product rounded to float32 and the "
        "comparison has a tolerance of 1e-5."))

    f = PRIM + '''
def f(a: T.handle, c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(12)), "float32")
    C = T.match_buffer(c, (n, T.int64(3), T.int64(4)), "float32")
    for i, j, k in T.grid(n, T.int64(3), T.int64(4)):
        with T.sblock("reshape"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = A[((vj * T.int64(4) + vk) // T.int64(12) + vi) % n, (vj * T.int64(4) + vk) % T.int64(12)] - A[n - T.int64(1) - vi, T.int64(11) - vj * T.int64(4) - vk]
'''
    runs = []
    for n in (1, 2, 5):
        a = quarters((n, 12), 40 + n)
        runs.append(ok([tensor(a)], [tensor((a - a[::-1, ::-1]).reshape(n, 3, 4))]))
    cases.append(case(
        "reshape_floordiv_floormod_indices",
        module([f], call_main([("x", ann(("n", 12)))], ["x"], ann(("n", 3, 4))),
               typevars=("n",)),
        runs,
        ["EXEC-tir-vec-8", "EXEC-tir-div-1"],
        "A reshape of n x 12 into n x 3 x 4 as LegalizeOps writes it (the row index "
        "((4j + k) // 12 + i) % n, the column (4j + k) % 12), minus the input read "
        "backwards (row n - 1 - i, column 11 - 4j - k), for n = 1, 2, 5: "
        "(a - a[::-1, ::-1]).reshape(n, 3, 4) (NumPy; exact)."))

    f = PRIM + '''
def f(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        x = T.float32()
        B[i] = T.Let(x * x - x, where={x: A[i] + T.float32(1)})
'''
    a = quarters((6,), 25)
    cases.append(case(
        "let_expression",
        module([f], call_main([("x", ann((6,)))], ["x"], ann((6,)))),
        [ok([tensor(a)], [tensor((a + 1) * (a + 1) - (a + 1))])],
        ["SYN-prim-2", "EXEC-tir-for-1"],
        "T.Let(x * x - x, where={x: A[i] + 1}), x declared as T.float32(): the value is "
        "bound once and used twice: (a + 1)^2 - (a + 1) (NumPy; exact for quarter "
        "values)."))

    a = quarters((4, 6), 23)
    cases.append(case(
        "reduce_sum_init",
        module([_reduce_func("sum", "T.float32(0)", "B[vi] + A[vi, vk]")],
               call_main([("x", ann((4, 6)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a.sum(axis=1))])],
        ["EXEC-tir-block-3", "EXEC-tir-vec-4"],
        "Sum reduction with T.init(0): B = A.sum(axis=1) (NumPy)."))

    cases.append(case(
        "reduce_max_init_min_value",
        module([_reduce_func("max", 'T.min_value("float32")', "T.max(B[vi], A[vi, vk])")],
               call_main([("x", ann((4, 6)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a.max(axis=1))])],
        ["EXEC-tir-block-3", "EXEC-tir-float-2", "EXEC-tir-intrin-1", "EXEC-tir-vec-4"],
        "Max reduction with T.init(T.min_value(\"float32\")): B = A.max(axis=1) (NumPy)."))

    cases.append(case(
        "reduce_min_init_max_value",
        module([_reduce_func("min", 'T.max_value("float32")', "T.min(B[vi], A[vi, vk])")],
               call_main([("x", ann((4, 6)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a.min(axis=1))])],
        ["EXEC-tir-block-3", "EXEC-tir-float-2", "EXEC-tir-vec-4"],
        "Min reduction with T.init(T.max_value(\"float32\")): B = A.min(axis=1) (NumPy)."))

    p = _rng(24).choice(np.array([-2, -1, -0.5, 0.5, 1, 2], np.float32), size=(4, 6))
    cases.append(case(
        "reduce_prod_init",
        module([_reduce_func("prod", "T.float32(1)", "B[vi] * A[vi, vk]")],
               call_main([("x", ann((4, 6)))], ["x"], ann((4,)))),
        [ok([tensor(p)], [tensor(p.prod(axis=1))], **EXACT)],
        ["EXEC-tir-block-3", "EXEC-tir-vec-4"],
        "Product reduction with T.init(1) over powers of two (exact): B = A.prod(axis=1)."))

    f = PRIM + '''
def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
    for i in T.serial(3):
        for k in T.serial(1, 5):
            with T.sblock("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(-1000)
                B[vi] = T.max(B[vi], A[vi, vk])
'''
    a = f32([[9, 1, 2, 3, 4], [9, 5, 1, 1, 1], [9, -1, -2, -3, -4]])
    cases.append(case(
        "reduce_over_offset_domain",
        module([f], call_main([("x", ann((3, 5)))], ["x"], ann((3,)))),
        [ok([tensor(a)], [tensor(a[:, 1:].max(axis=1))])],
        ["EXEC-tir-block-3", "EXEC-tir-for-1", "EXEC-tir-vec-4"],
        "The reduction loop is T.serial(1, 5), so vk's domain is [1, 5) and T.init runs at "
        "vk = 1, the domain's minimum: B = A[:, 1:].max(1), never seeing column 0 (by hand: "
        "4, 5, -1)."))

    f = PRIM + '''
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for io, ii in T.grid(3, 4):
        with T.sblock("b"):
            vi = T.axis.spatial(10, io * 4 + ii)
            T.where(io * 4 + ii < 10)
            B[vi] = A[vi] * T.float32(2)
'''
    a = quarters(10, 25)
    cases.append(case(
        "where_predicate_skips_padding",
        module([f], call_main([("x", ann((10,)))], ["x"], ann((10,)))),
        [ok([tensor(a)], [tensor(a * np.float32(2))])],
        ["EXEC-tir-block-2", "EXEC-tir-block-1"],
        "A 3 x 4 split of 10 elements with T.where(io * 4 + ii < 10): the two padding "
        "instances are skipped before their binding (10, 11) is checked against [0, 10). "
        "B = 2 A."))

    f = PRIM + '''
def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
    for i, k in T.grid(3, 5):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.where(k > 0)
            with T.init():
                B[vi] = T.float32(100)
            B[vi] = B[vi] + A[vi, vk]
'''
    a = quarters((3, 5), 26)
    b0 = f32([1, 2, 3])
    cases.append(case(
        "where_false_at_reduction_start_skips_init",
        module([f], call_main([("x", ann((3, 5))), ("b", ann((3,)))], ["x", "b"], ann((3,)),
                              inplace=[1])),
        [ok([tensor(a), tensor(b0)], [tensor(b0 + a[:, 1:].sum(axis=1))])],
        ["EXEC-tir-block-2", "EXEC-tir-block-3", "EXEC-dps-3", "EXEC-tir-vec-4"],
        "T.where(k > 0) skips the instances at vk = 0, init included, so T.init never runs "
        "and B (passed in place with call_tir_inplace) keeps its value: "
        "B = b + A[:, 1:].sum(1) (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32")):
    E = T.sblock_alloc_buffer((3, 4))
    M = T.sblock_alloc_buffer((3,))
    S = T.sblock_alloc_buffer((3,))
    for i, k in T.grid(3, 4):
        with T.sblock("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.min_value("float32")
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, j in T.grid(3, 4):
        with T.sblock("exp"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = T.exp(A[vi, vj] - M[vi])
    for i, k in T.grid(3, 4):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + E[vi, vk]
    for i, j in T.grid(3, 4):
        with T.sblock("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = E[vi, vj] / S[vi]
'''
    a = quarters((3, 4), 27)
    e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    cases.append(case(
        "intermediate_buffers_softmax",
        module([f], call_main([("x", ann((3, 4)))], ["x"], ann((3, 4)))),
        [ok([tensor(a)], [tensor((e / e.sum(axis=1, keepdims=True)).astype(np.float32))])],
        ["EXEC-tir-block-4", "EXEC-tir-block-3", "EXEC-tir-seq-1", "EXEC-tir-intrin-1"],
        "Softmax in four blocks through root-level T.sblock_alloc_buffer intermediates "
        "(max, exp, sum, divide), each written before it is read (NumPy softmax)."))

    f = PRIM + '''
def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32")):
    for i in range(3):
        with T.sblock("row"):
            vi = T.axis.spatial(3, i)
            S = T.sblock_alloc_buffer((4,))
            for j in range(4):
                with T.sblock("square"):
                    vi2 = T.axis.spatial(3, vi)
                    vj = T.axis.spatial(4, j)
                    S[vj] = A[vi2, vj] * A[vi2, vj]
            for j in range(4):
                with T.sblock("reverse"):
                    vi2 = T.axis.spatial(3, vi)
                    vj = T.axis.spatial(4, j)
                    B[vi2, vj] = S[3 - vj] + T.float32(1)
'''
    a = quarters((3, 4), 28)
    cases.append(case(
        "nested_blocks_with_block_local_buffer",
        module([f], call_main([("x", ann((3, 4)))], ["x"], ann((3, 4)))),
        [ok([tensor(a)], [tensor((a * a)[:, ::-1] + np.float32(1))])],
        ["EXEC-tir-block-4", "EXEC-tir-block-1"],
        "An outer block per row allocates a 4-element buffer; inner blocks fill it with "
        "squares and read it reversed: B = (A * A)[:, ::-1] + 1 (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32")):
    for i in range(3):
        with T.sblock("row"):
            vi = T.axis.spatial(3, i)
            T.reads(A[vi, 0:4])
            T.writes(B[vi, 0:4])
            S = T.sblock_alloc_buffer((4,))
            for j in range(4):
                with T.sblock("square"):
                    vi2 = T.axis.spatial(3, vi)
                    vj = T.axis.spatial(4, j)
                    T.reads(A[vi2, vj])
                    T.writes(S[vj])
                    S[vj] = A[vi2, vj] * A[vi2, vj]
            for j in range(4):
                with T.sblock("reverse"):
                    vi2 = T.axis.spatial(3, vi)
                    vj = T.axis.spatial(4, j)
                    T.reads(S[3 - vj])
                    T.writes(B[vi2, vj])
                    B[vi2, vj] = S[3 - vj] + T.float32(1)
'''
    cases.append(case(
        "nested_blocks_explicit_regions",
        module([f], call_main([("x", ann((3, 4)))], ["x"], ann((3, 4)))),
        [ok([tensor(a)], [tensor((a * a)[:, ::-1] + np.float32(1))])],
        ["EXEC-tir-block-4", "EXEC-tir-block-1"],
        "The nested blocks of nested_blocks_with_block_local_buffer with their T.reads / "
        "T.writes regions written out: B = (A * A)[:, ::-1] + 1 (NumPy)."))

    f = PRIM + '''
def f(a: T.handle, b: T.Buffer((T.int64(8),), "float32"), c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(8)), "float32")
    C = T.match_buffer(c, (n, T.int64(8)), "float32")
    for i, j in T.grid(n, T.int64(8)):
        with T.sblock("c"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + b[vj]
'''
    bias = quarters(8, 29)
    runs = []
    for n in (1, 3, 6):
        x = quarters((n, 8), 30 + n)
        runs.append(ok([tensor(x), tensor(bias)], [tensor(x + bias)]))
    cases.append(case(
        "match_buffer_handles_symbolic",
        module([f], call_main([("x", ann(("n", 8))), ("b", ann((8,)))], ["x", "b"],
                              ann(("n", 8))), typevars=("n",)),
        runs,
        ["EXEC-tir-bind-1", "EXEC-tir-block-1"],
        "T.handle parameters matched with T.match_buffer((n, 8)); n binds at its first "
        "occurrence. Three sizes: C = A + b (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("row"):
            vi = T.axis.spatial(4, i)
            Rg = T.match_buffer(A[vi, 2:8], (6,), offset_factor=1)
            B[vi] = Rg[0] + Rg[5] * T.float32(2)
'''
    a = quarters((4, 8), 31)
    cases.append(case(
        "match_buffer_region_in_block",
        module([f], call_main([("x", ann((4, 8)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a[:, 2] + a[:, 7] * np.float32(2))])],
        ["EXEC-tir-block-5"],
        "A block's T.match_buffer views the region A[vi, 2:8] as a 6-element buffer (the "
        "leading unit dimension dropped; offset_factor=1 makes its elem_offset a variable, "
        "bound to 8 vi + 2): B = A[:, 2] + 2 A[:, 7] (NumPy)."))

    f = PRIM + '''
def f(a: T.handle, b: T.handle):
    n = T.int64()
    s0 = T.int64()
    A = T.match_buffer(a, (n, T.int64(4)), "float32", strides=(s0, T.int64(1)))
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i, 0] + A[i, 3] + T.Cast("float32", s0)
'''
    runs = []
    for n in (2, 5):
        x = quarters((n, 4), 32 + n)
        runs.append(ok([tensor(x)], [tensor(x[:, 0] + x[:, 3] + np.float32(4))]))
    cases.append(case(
        "match_buffer_symbolic_strides",
        module([f], call_main([("x", ann(("n", 4)))], ["x"], ann(("n",))), typevars=("n",)),
        runs,
        ["EXEC-tir-bind-3", "EXEC-tir-bind-1", "EXEC-tir-cast-1"],
        "A buffer with strides (s0, 1): s0 binds to the array's row stride in elements (4 for "
        "a compact (n, 4) array) and is used as a value: B = A[:, 0] + A[:, 3] + 4."))

    f = PRIM + '''
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in T.serial(8):
        B[i] = A[i]
    for i in T.serial(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i + 2)
            B[vi] = T.float32(0)
'''
    cases.append(case(
        "block_binding_outside_domain_traps",
        module([f], call_main([("x", ann((8,)))], ["x"], ann((8,)))),
        [trap([tensor(quarters(8, 33))], "block_binding")],
        ["EXEC-tir-block-1"],
        "vi = T.axis.spatial(4, i + 2) reaches 4 at i = 2, outside its domain [0, 4): a "
        "block_binding trap (TVM does not check bindings at run time)."))

    # The earlier dialect.
    f = PRIM_CLASSIC + '''
def f(A: T.Buffer((3, 4), "float32"), W: T.Buffer((4, 2), "float32"), C: T.Buffer((3, 2), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j, k in T.grid(3, 2, 4):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], W[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]
'''
    a, w = quarters((3, 4), 34), quarters((4, 2), 35)
    cases.append(case(
        "classic_dialect_block_matmul",
        module([f], call_main([("x", ann((3, 4))), ("w", ann((4, 2)))], ["x", "w"],
                              ann((3, 2)), classic=True)),
        [ok([tensor(a), tensor(w)], [tensor(a @ w)])],
        ["EXEC-tir-block-3", "EXEC-tir-block-1", "SYN-tir-14"],
        "The pre-0.27 dialect: T.block, T.reads/T.writes, tir.noalias and out_sinfo=. "
        "C = A @ W (NumPy). TVM 0.27 no longer parses T.block."))

    f = PRIM_CLASSIC + '''
def f(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
    C = T.alloc_buffer((2, 4))
    for i, j in T.grid(2, 4):
        with T.block("sq"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * A[vi, vj]
    for i, j in T.grid(2, 4):
        with T.block("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.block_attr({"note": 1})
            B[vi, vj] = C[vi, vj] - A[vi, vj]
'''
    a = quarters((2, 4), 36)
    cases.append(case(
        "classic_dialect_alloc_buffer",
        module([f], call_main([("x", ann((2, 4)))], ["x"], ann((2, 4)), classic=True)),
        [ok([tensor(a)], [tensor(a * a - a)])],
        ["EXEC-tir-block-4", "EXEC-tir-seq-1"],
        "The pre-0.27 dialect's T.alloc_buffer and T.block_attr: B = A * A - A (NumPy). TVM "
        "0.27 no longer parses T.block."))
    return cases


# ==================================================================================================
# Intrinsics
# ==================================================================================================

def _unary_func(expr: str, n: int, dtype="float32", out="float32") -> str:
    return PRIM + f'''
def f(A: T.Buffer(({n},), "{dtype}"), B: T.Buffer(({n},), "{out}")):
    for i in range({n}):
        B[i] = {expr}
'''


def _unary_case(name, expr, values, want, covers, description, dtype="float32",
                out="float32", **kw) -> Case:
    a = np.asarray(values, dtype=dtype)
    n = len(values)
    return case(name, module([_unary_func(expr, n, dtype, out)],
                             call_main([("x", ann((n,), dtype))], ["x"], ann((n,), out))),
                [ok([tensor(a)], [tensor(np.asarray(want, dtype=out))], **kw)], covers,
                description)


def intrinsic_cases() -> list[Case]:
    cases = []
    inf = math.inf

    f = PRIM + '''
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = T.exp(A[i])
        C[i] = T.log(A[i])
'''
    a = f32([0, 1, -1, 2.5, 88, 100, -200, 1e-3])
    cases.append(case(
        "exp_log",
        module([f], call_main([("x", ann((8,)))], ["x"], [ann((8,)), ann((8,))])),
        [ok([tensor(a)], [tensor(rounded(np.exp, a)), tensor(rounded(np.log, a))])],
        ["EXEC-tir-intrin-1", "EXEC-dps-1"],
        "T.exp and T.log in float32 (two outputs): exp(100) overflows to inf, exp(-200) "
        "underflows to 0, log(0) = -inf, log(-1) = NaN. Expected: NumPy in float64 rounded "
        "to float32."))

    cases.append(_unary_case(
        "sqrt_rsqrt", "T.sqrt(A[i]) + T.float32(0) * T.rsqrt(T.float32(4))",
        [0, 1, 2, 4, -1, inf, 1e-8, 1e6], rounded(np.sqrt, [0, 1, 2, 4, -1, inf, 1e-8, 1e6]),
        ["EXEC-tir-intrin-1"],
        "T.sqrt in float32 (sqrt(-1) = NaN, sqrt(inf) = inf); T.rsqrt(4) * 0 adds nothing. "
        "Expected: np.sqrt in float64 rounded to float32."))

    v = [-3, -1, -0.5, 0, 0.5, 1, 3, 10]
    cases.append(_unary_case(
        "erf", "T.erf(A[i])", v, [math.erf(x) for x in v], ["EXEC-tir-intrin-1"],
        "T.erf in float32; expected math.erf in float64 rounded to float32."))

    v = [-20, -1, 0, 0.5, 1, 20, -0.25]
    cases.append(_unary_case(
        "tanh", "T.tanh(A[i])", v, rounded(np.tanh, v), ["EXEC-tir-intrin-1"],
        "T.tanh in float32; expected np.tanh in float64 rounded to float32."))

    v = f32([-100, -1, 0, 1, 100, 2.5])
    with np.errstate(over="ignore"):
        sig = np.float32(1) / (np.float32(1) + np.exp(-v))
    cases.append(_unary_case(
        "sigmoid", "T.sigmoid(A[i])", v, sig, ["EXEC-tir-intrin-1"],
        "T.sigmoid is 1 / (1 + exp(-x)), each operation rounded to float32 "
        "(sigmoid(-100) = 1 / (1 + inf) = 0). Expected: that formula in NumPy float32."))

    f = PRIM + '''
def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32"), C: T.Buffer((7,), "float32"), D: T.Buffer((7,), "float32"), E: T.Buffer((7,), "float32")):
    for i in range(7):
        B[i] = T.fabs(A[i])
        C[i] = T.floor(A[i])
        D[i] = T.ceil(A[i])
        E[i] = T.trunc(A[i])
'''
    a = f32([-2.5, -0.5, -0.0, 0.5, 1.5, 2.7, -3.7])
    cases.append(case(
        "fabs_floor_ceil_trunc",
        module([f], call_main([("x", ann((7,)))], ["x"], [ann((7,))] * 4)),
        [ok([tensor(a)], [tensor(np.abs(a)), tensor(np.floor(a)), tensor(np.ceil(a)),
                          tensor(np.trunc(a))], **EXACT)],
        ["EXEC-tir-intrin-1"],
        "T.fabs, T.floor, T.ceil and T.trunc are exact (np.abs, np.floor, np.ceil, np.trunc)."))

    v = f32([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.5, 2.6, -2.6])
    cases.append(_unary_case(
        "round_half_to_even", "T.round(A[i])", v, np.round(v), ["EXEC-tir-intrin-1"],
        "T.round rounds half to even (TVM 0.27 lowers it to llvm.nearbyint): 0.5 -> 0, "
        "1.5 -> 2, 2.5 -> 2, -2.5 -> -2 (np.round).", **EXACT))

    f = PRIM + '''
def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32"), C: T.Buffer((7,), "float32")):
    for i in range(7):
        C[i] = T.pow(A[i], B[i])
'''
    a = f32([2, 2, -8, 0, 10, 1.5, -2])
    b = f32([10, 0.5, 1 / 3, 0, -2, 2, 3])
    cases.append(case(
        "pow",
        module([f], call_main([("x", ann((7,))), ("y", ann((7,)))], ["x", "y"], ann((7,)))),
        [ok([tensor(a), tensor(b)], [tensor(rounded(lambda _: np.power(
            a.astype(np.float64), b.astype(np.float64)), a))])],
        ["EXEC-tir-intrin-1"],
        "T.pow in float32: 2^10, 2^0.5, (-8)^(1/3) = NaN, 0^0 = 1, 10^-2, 1.5^2, (-2)^3 "
        "(np.power in float64 rounded to float32)."))

    f = PRIM + '''
def f(A: T.Buffer((1,), "float32"), I: T.Buffer((2,), "int32"), J: T.Buffer((2,), "int8"), U: T.Buffer((2,), "uint8"), F: T.Buffer((2,), "float32"), H: T.Buffer((2,), "int64")):
    I[0] = T.max_value("int32")
    I[1] = T.min_value("int32")
    J[0] = T.max_value("int8")
    J[1] = T.min_value("int8")
    U[0] = T.max_value("uint8")
    U[1] = T.min_value("uint8")
    F[0] = T.max_value("float32") + A[0] * T.float32(0)
    F[1] = T.min_value("float32")
    H[0] = T.max_value("int64")
    H[1] = T.min_value("int64")
'''
    outs = [ann((2,), "int32"), ann((2,), "int8"), ann((2,), "uint8"), ann((2,)),
            ann((2,), "int64")]
    fmax = float(np.finfo(np.float32).max)
    cases.append(case(
        "max_value_min_value",
        module([f], call_main([("x", ann((1,)))], ["x"], outs)),
        [ok([tensor(f32([1]))],
            [tensor(np.array([INT_MAX, INT_MIN], np.int32)),
             tensor(np.array([127, -128], np.int8)), tensor(np.array([255, 0], np.uint8)),
             tensor(f32([fmax, -fmax])),
             tensor(np.array([2**63 - 1, -2**63], np.int64))], **EXACT)],
        ["EXEC-tir-intrin-1", "EXEC-dps-1"],
        "T.max_value / T.min_value are the type's extremes (five outputs): int32, int8, "
        "uint8, float32 (+-3.4028235e38, the finite extremes) and int64."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((6,), "float32")):
    for i in T.serial(6):
        O[i] = T.if_then_else(i < 4, A[i], T.float32(-1))
'''
    a = f32([1, 2, 3, 4])
    cases.append(case(
        "if_then_else_is_lazy",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((6,)))),
        [ok([tensor(a)], [tensor(f32([1, 2, 3, 4, -1, -1]))])],
        ["EXEC-tir-intrin-2"],
        "T.if_then_else(i < 4, A[i], -1) over i < 6: the out-of-bounds load A[4], A[5] is in "
        "the arm not taken and is never evaluated (by hand: 1, 2, 3, 4, -1, -1)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((6,), "float32")):
    for i in T.serial(6):
        O[i] = T.Select(i < 4, A[i], T.float32(-1))
'''
    cases.append(case(
        "select_evaluates_both_arms_traps",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((6,)))),
        [trap([tensor(a)], "index_out_of_bounds")],
        ["EXEC-tir-select-1", "EXEC-tir-load-1"],
        "T.Select evaluates both arms: at i = 4 the load A[4] is out of bounds even though "
        "the condition picks -1 (index_out_of_bounds). Compiled code reads past the end "
        "silently."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), O: T.Buffer((5,), "float32")):
    for i in T.serial(5):
        O[i] = T.Select(A[i] > B[i], A[i], B[i] * T.float32(2))
'''
    a, b = f32([1, 5, -2, 3, 0]), f32([2, 4, -3, 3, -1])
    cases.append(case(
        "select_values",
        module([f], call_main([("x", ann((5,))), ("y", ann((5,)))], ["x", "y"], ann((5,)))),
        [ok([tensor(a), tensor(b)], [tensor(np.where(a > b, a, b * np.float32(2)))])],
        ["EXEC-tir-select-1", "EXEC-tir-cmp-1"],
        "T.Select(A > B, A, 2 B) (np.where)."))

    f = PRIM + '''
def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32"), MX: T.Buffer((7,), "float32"), MN: T.Buffer((7,), "float32")):
    for i in T.serial(7):
        MX[i] = T.max(A[i], B[i])
        MN[i] = T.min(A[i], B[i])
'''
    nan = math.nan
    a = f32([nan, 1, nan, 2, -inf, 3, 0.5])
    b = f32([1, nan, nan, 2, 5, -inf, -0.5])
    mx = np.array([x if x > y else y for x, y in zip(a, b)], np.float32)
    mn = np.array([x if x < y else y for x, y in zip(a, b)], np.float32)
    cases.append(case(
        "float_max_min_with_nan",
        module([f], call_main([("x", ann((7,))), ("y", ann((7,)))], ["x", "y"],
                              [ann((7,)), ann((7,))])),
        [ok([tensor(a), tensor(b)], [tensor(mx), tensor(mn)])],
        ["EXEC-tir-float-2", "EXEC-tir-cmp-1"],
        "T.max(a, b) = select(a > b, a, b) and T.min(a, b) = select(a < b, a, b): "
        "max(NaN, 1) = 1 but max(1, NaN) = NaN (computed with that select in Python)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), LT: T.Buffer((5,), "bool"), EQ: T.Buffer((5,), "bool"), NE: T.Buffer((5,), "bool"), GE: T.Buffer((5,), "bool")):
    for i in T.serial(5):
        LT[i] = A[i] < B[i]
        EQ[i] = A[i] == B[i]
        NE[i] = A[i] != B[i]
        GE[i] = A[i] >= B[i]
'''
    a = f32([nan, 1, nan, 2, -0.0])
    b = f32([1, nan, nan, 3, 0.0])
    with np.errstate(invalid="ignore"):
        outs = [a < b, a == b, (a != b) & ~np.isnan(a) & ~np.isnan(b), a >= b]
    cases.append(case(
        "float_compare_ordered_with_nan",
        module([f], call_main([("x", ann((5,))), ("y", ann((5,)))], ["x", "y"],
                              [ann((5,), "bool")] * 4)),
        [ok([tensor(a), tensor(b)], [tensor(o) for o in outs])],
        ["EXEC-tir-cmp-1"],
        "Float comparisons are ordered (LLVM fcmp o*): every comparison with a NaN is false, "
        "NaN != NaN included; -0.0 == 0.0. Four bool outputs (NumPy, with != made "
        "ordered by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32"), O: T.Buffer((6,), "int32")):
    for i in T.serial(6):
        O[i] = T.Select(T.Or(T.And(A[i] > 0, B[i] > 0), T.Not(A[i] < B[i])), 1, 0)
'''
    a = np.array([1, 1, -1, -1, 3, 0], np.int32)
    b = np.array([1, -1, 1, -1, 5, 0], np.int32)
    want = (((a > 0) & (b > 0)) | ~(a < b)).astype(np.int32)
    cases.append(case(
        "logic_and_or_not",
        module([f], call_main([("x", ann((6,), "int32")), ("y", ann((6,), "int32"))],
                              ["x", "y"], ann((6,), "int32"))),
        [ok([tensor(a), tensor(b)], [tensor(want)])],
        ["EXEC-tir-logic-1", "EXEC-tir-select-1"],
        "T.And, T.Or and T.Not on comparisons: (a > 0 and b > 0) or not (a < b) "
        "(NumPy &, |, ~)."))

    f = PRIM + '''
def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32"), L: T.Buffer((6,), "int32"), R_: T.Buffer((6,), "int32"), X: T.Buffer((6,), "int32")):
    for i in T.serial(6):
        L[i] = T.shift_left(A[i], B[i])
        R_[i] = T.shift_right(A[i], B[i])
        X[i] = T.bitwise_xor(T.bitwise_and(A[i], 12), T.bitwise_or(B[i], 1)) + T.bitwise_not(A[i])
'''
    a = np.array([1, 3, -8, 8, -1, 0x40000000], np.int64)
    b = np.array([31, 2, 1, 2, 4, 1], np.int64)
    left = wrap([int(x) << int(y) for x, y in zip(a, b)])
    right = [int(x) >> int(y) for x, y in zip(a, b)]           # arithmetic for int32
    xo = wrap([((int(x) & 12) ^ (int(y) | 1)) + ~int(x) for x, y in zip(a, b)])
    cases.append(case(
        "shift_and_bitwise",
        module([f], call_main([("x", ann((6,), "int32")), ("y", ann((6,), "int32"))],
                              ["x", "y"], [ann((6,), "int32")] * 3)),
        [ok([tensor(a.astype(np.int32)), tensor(b.astype(np.int32))],
            [tensor(np.array(left, np.int32)), tensor(np.array(right, np.int32)),
             tensor(np.array(xo, np.int32))])],
        ["EXEC-tir-intrin-3", "EXEC-tir-int-1"],
        "shift_left wraps (1 << 31 = INT_MIN, 2^30 << 1 = INT_MIN), shift_right is "
        "arithmetic (-8 >> 1 = -4, -1 >> 4 = -1), and bitwise and/or/xor/not on int32 "
        "(Python ints, wrapped to 32 bits)."))

    f = PRIM + '''
def f(A: T.Buffer((2,), "int32"), B: T.Buffer((2,), "int32"), O: T.Buffer((2,), "int32")):
    for i in T.serial(2):
        O[i] = T.shift_left(A[i], B[i])
'''
    cases.append(case(
        "shift_amount_out_of_range_traps",
        module([f], call_main([("x", ann((2,), "int32")), ("y", ann((2,), "int32"))],
                              ["x", "y"], ann((2,), "int32"))),
        [ok([tensor(np.array([1, 1], np.int32)), tensor(np.array([1, 31], np.int32))],
            [tensor(np.array([2, INT_MIN], np.int32))]),
         trap([tensor(np.array([1, 1], np.int32)), tensor(np.array([1, 32], np.int32))],
              "shift_out_of_range")],
        ["EXEC-tir-intrin-3"],
        "A shift amount outside [0, 32) is LLVM poison and traps (shift_out_of_range); "
        "amounts 1 and 31 are fine (by hand: 2, INT_MIN). x86 masks the amount instead."))

    f = PRIM + '''
def f(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    for i in T.serial(2):
        B[i] = T.call_pure_extern("float32", "relax_ref_no_such_function", A[i])
'''
    cases.append(case(
        "unknown_extern_is_unsupported",
        module([f], call_main([("x", ann((2,)))], ["x"], ann((2,)))),
        [trap([tensor(f32([1, 2]))], "unsupported")],
        ["EXEC-tir-intrin-4"],
        "T.call_pure_extern of a function nobody defines has no semantics: an unsupported "
        "trap (a compiler cannot link it either)."))
    return cases


# ==================================================================================================
# Integer and float arithmetic, casts
# ==================================================================================================

def arith_cases() -> list[Case]:
    cases = []
    a_vals = [7, -7, 7, -7, 0, 5, -1, 9]
    b_vals = [2, 2, -2, -2, 3, 7, 4, -3]
    a = np.array(a_vals, np.int32)
    b = np.array(b_vals, np.int32)
    i32 = lambda xs: tensor(np.array(xs, np.int32))  # noqa: E731

    f = PRIM + '''
def f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), Q: T.Buffer((8,), "int32"), M: T.Buffer((8,), "int32"), Q2: T.Buffer((8,), "int32"), M2: T.Buffer((8,), "int32")):
    for i in T.serial(8):
        Q[i] = A[i] // B[i]
        M[i] = A[i] % B[i]
        Q2[i] = T.floordiv(A[i], B[i])
        M2[i] = T.floormod(A[i], B[i])
'''
    q = [floordiv(x, y) for x, y in zip(a_vals, b_vals)]
    m = [floormod(x, y) for x, y in zip(a_vals, b_vals)]
    cases.append(case(
        "floordiv_floormod_negative_operands",
        module([f], call_main([("x", ann((8,), "int32")), ("y", ann((8,), "int32"))],
                              ["x", "y"], [ann((8,), "int32")] * 4)),
        [ok([tensor(a), tensor(b)], [i32(q), i32(m), i32(q), i32(m)])],
        ["EXEC-tir-div-1"],
        "`//`, `%`, T.floordiv and T.floormod on int32 round toward minus infinity; the "
        "remainder has the divisor's sign: -7 // 2 = -4, -7 % 2 = 1, 7 % -2 = -1 "
        "(Python's // and %)."))

    f = PRIM + '''
def f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), Q: T.Buffer((8,), "int32"), M: T.Buffer((8,), "int32")):
    for i in T.serial(8):
        Q[i] = T.truncdiv(A[i], B[i])
        M[i] = T.truncmod(A[i], B[i])
'''
    cases.append(case(
        "truncdiv_truncmod_negative_operands",
        module([f], call_main([("x", ann((8,), "int32")), ("y", ann((8,), "int32"))],
                              ["x", "y"], [ann((8,), "int32")] * 2)),
        [ok([tensor(a), tensor(b)], [i32([truncdiv(x, y) for x, y in zip(a_vals, b_vals)]),
                                     i32([truncmod(x, y) for x, y in zip(a_vals, b_vals)])])],
        ["EXEC-tir-div-2"],
        "T.truncdiv truncates toward zero and T.truncmod has the dividend's sign: "
        "-7 / 2 = -3, -7 mod 2 = -1, 7 mod -2 = 1 (computed by hand in Python)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "int64"), B: T.Buffer((4,), "int64"), Q: T.Buffer((4,), "int64"), M: T.Buffer((4,), "int64")):
    for i in T.serial(4):
        Q[i] = T.floordiv(A[i], B[i])
        M[i] = T.truncmod(A[i], B[i])
'''
    a64 = [-(2**40) - 1, 2**40 + 1, -9, 9]
    b64 = [2**20, -(2**20), 4, -4]
    cases.append(case(
        "int64_division",
        module([f], call_main([("x", ann((4,), "int64")), ("y", ann((4,), "int64"))],
                              ["x", "y"], [ann((4,), "int64")] * 2)),
        [ok([tensor(np.array(a64, np.int64)), tensor(np.array(b64, np.int64))],
            [tensor(np.array([floordiv(x, y) for x, y in zip(a64, b64)], np.int64)),
             tensor(np.array([truncmod(x, y) for x, y in zip(a64, b64)], np.int64))])],
        ["EXEC-tir-div-1", "EXEC-tir-div-2"],
        "T.floordiv and T.truncmod on int64 values beyond 32 bits (Python ints)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), Q: T.Buffer((5,), "float32"), M: T.Buffer((5,), "float32")):
    for i in T.serial(5):
        Q[i] = T.floordiv(A[i], B[i])
        M[i] = T.floormod(A[i], B[i])
'''
    fa, fb = f32([7.5, -7.5, 7.5, -7.5, 1.0]), f32([2, 2, -2, -2, 0.3])
    fq = np.floor(fa / fb)
    fm = fa - np.floor(fa / fb) * fb
    cases.append(case(
        "float_floordiv_floormod",
        module([f], call_main([("x", ann((5,))), ("y", ann((5,)))], ["x", "y"],
                              [ann((5,)), ann((5,))])),
        [ok([tensor(fa), tensor(fb)], [tensor(fq), tensor(fm)])],
        ["EXEC-tir-div-1", "EXEC-tir-float-1"],
        "Float floordiv is floor(a / b) and floormod is a - floor(a / b) * b, each "
        "operation rounded to float32 (the same formula in NumPy float32)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "int32"), B: T.Buffer((5,), "int32"), S: T.Buffer((5,), "int32"), P: T.Buffer((5,), "int32"), D: T.Buffer((5,), "int32")):
    for i in T.serial(5):
        S[i] = A[i] + B[i]
        P[i] = A[i] * B[i]
        D[i] = A[i] - B[i]
'''
    xa = [2**30, INT_MAX, INT_MIN, 65536, -5]
    xb = [2**30, 1, -1, 65536, 3]
    cases.append(case(
        "int32_overflow_wraps",
        module([f], call_main([("x", ann((5,), "int32")), ("y", ann((5,), "int32"))],
                              ["x", "y"], [ann((5,), "int32")] * 3)),
        [ok([i32(xa), i32(xb)],
            [i32(wrap([x + y for x, y in zip(xa, xb)])), i32(wrap([x * y for x, y in zip(xa, xb)])),
             i32(wrap([x - y for x, y in zip(xa, xb)]))])],
        ["EXEC-tir-int-1"],
        "int32 +, * and - wrap modulo 2^32: 2^30 + 2^30 = INT_MIN, INT_MAX + 1 = INT_MIN, "
        "65536 * 65536 = 0, INT_MIN - (-1) = INT_MIN + 1 (Python ints wrapped by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "int8"), B: T.Buffer((4,), "int8"), C: T.Buffer((4,), "uint8"), D: T.Buffer((4,), "uint8"), S: T.Buffer((4,), "int8"), U: T.Buffer((4,), "uint8")):
    for i in T.serial(4):
        S[i] = A[i] + B[i]
        U[i] = C[i] * D[i]
'''
    a8, b8 = [100, -100, 127, -128], [100, -100, 1, -1]
    c8, d8 = [200, 16, 255, 3], [2, 16, 255, 5]
    cases.append(case(
        "int8_uint8_wrap",
        module([f], call_main([("a", ann((4,), "int8")), ("b", ann((4,), "int8")),
                               ("c", ann((4,), "uint8")), ("d", ann((4,), "uint8"))],
                              ["a", "b", "c", "d"], [ann((4,), "int8"), ann((4,), "uint8")])),
        [ok([tensor(np.array(a8, np.int8)), tensor(np.array(b8, np.int8)),
             tensor(np.array(c8, np.uint8)), tensor(np.array(d8, np.uint8))],
            [tensor(np.array(wrap([x + y for x, y in zip(a8, b8)], 8), np.int8)),
             tensor(np.array(wrap([x * y for x, y in zip(c8, d8)], 8, signed=False), np.uint8))])],
        ["EXEC-tir-int-1"],
        "int8 addition and uint8 multiplication wrap: 100 + 100 = -56, 127 + 1 = -128, "
        "200 * 2 = 144, 255 * 255 = 1 (wrapped by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((3,), "int32"), B: T.Buffer((3,), "int32"), C: T.Buffer((3,), "int32")):
    for i in T.serial(3):
        C[i] = T.floordiv(A[i], B[i])
'''
    cases.append(case(
        "integer_division_by_zero_traps",
        module([f], call_main([("x", ann((3,), "int32")), ("y", ann((3,), "int32"))],
                              ["x", "y"], ann((3,), "int32"))),
        [ok([i32([7, -7, 3]), i32([2, 2, 1])], [i32([3, -4, 3])]),
         trap([i32([7, -7, 3]), i32([2, 2, 0])], "division_by_zero")],
        ["EXEC-tir-div-3"],
        "Integer floordiv by zero traps (division_by_zero); without a zero divisor "
        "7 // 2 = 3, -7 // 2 = -4. Compiled code dies of SIGFPE."))

    f = PRIM + '''
def f(A: T.Buffer((2,), "int64"), B: T.Buffer((2,), "int64"), C: T.Buffer((2,), "int64")):
    for i in T.serial(2):
        C[i] = T.truncmod(A[i], B[i])
'''
    cases.append(case(
        "integer_modulo_by_zero_traps",
        module([f], call_main([("x", ann((2,), "int64")), ("y", ann((2,), "int64"))],
                              ["x", "y"], ann((2,), "int64"))),
        [trap([tensor(np.array([5, 6], np.int64)), tensor(np.array([0, 4], np.int64))],
              "division_by_zero")],
        ["EXEC-tir-div-3"],
        "int64 truncmod by zero traps at the first element (division_by_zero)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), C: T.Buffer((5,), "float32")):
    for i in T.serial(5):
        C[i] = A[i] / B[i]
'''
    fa, fb = f32([1, -1, 0, 3, 1]), f32([0, 0, 0, 2, -0.0])
    with np.errstate(all="ignore"):
        fc = fa / fb
    cases.append(case(
        "float_division_by_zero",
        module([f], call_main([("x", ann((5,))), ("y", ann((5,)))], ["x", "y"], ann((5,)))),
        [ok([tensor(fa), tensor(fb)], [tensor(fc)])],
        ["EXEC-tir-div-3", "EXEC-tir-float-1"],
        "Float division by zero does not trap: 1/0 = inf, -1/0 = -inf, 0/0 = NaN, "
        "1/-0 = -inf (IEEE, NumPy float32)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32"), P: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        O[i] = A[i] * B[i] + C[i]
        P[i] = A[i] + T.float32(100000000) - T.float32(100000000)
'''
    e = 1 + 2.0**-12
    fa = f32([e, 1.5, 3, 1])
    fb = f32([e, 2, 0.1, 1])
    fcc = f32([-(1 + 2.0**-11), 0.25, -0.3, 0])
    cases.append(case(
        "float32_rounding_no_fma",
        module([f], call_main([("x", ann((4,))), ("y", ann((4,))), ("z", ann((4,)))],
                              ["x", "y", "z"], [ann((4,)), ann((4,))])),
        [ok([tensor(fa), tensor(fb), tensor(fcc)],
            [tensor(fa * fb + fcc), tensor((fa + np.float32(1e8)) - np.float32(1e8))], **EXACT)],
        ["EXEC-tir-float-1"],
        "Every float32 operation rounds, with no fused multiply-add: (1 + 2^-12)^2 rounds "
        "to 1 + 2^-11 (a tie, to even), so a*b + c is exactly 0, where an FMA gives 2^-24; "
        "x + 1e8 - 1e8 loses x's low bits. NumPy float32, compared exactly."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "float16"), C: T.Buffer((4,), "float16")):
    for i in T.serial(4):
        C[i] = A[i] + B[i]
'''
    ha = np.array([2048, 0.1, 60000, 1], np.float16)
    hb = np.array([1, 0.2, 10000, 0.0004882812], np.float16)
    cases.append(case(
        "float16_arithmetic_rounds",
        module([f], call_main([("x", ann((4,), "float16")), ("y", ann((4,), "float16"))],
                              ["x", "y"], ann((4,), "float16"))),
        [ok([tensor(ha), tensor(hb)], [tensor(_quiet(lambda: ha + hb))], **EXACT)],
        ["EXEC-tir-float-1"],
        "float16 addition rounds to float16: 2048 + 1 = 2048, 60000 + 10000 overflows to "
        "inf, 1 + 2^-11 ties to 1 (NumPy float16, compared exactly)."))

    # Casts
    f = PRIM + '''
def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "int32")):
    for i in T.serial(7):
        B[i] = T.Cast("int32", A[i])
'''
    fv = f32([2.7, -2.7, 0.5, -0.5, 1e9, -1e9, 2147483520.0])
    cases.append(case(
        "cast_float_to_int_truncates",
        module([f], call_main([("x", ann((7,)))], ["x"], ann((7,), "int32"))),
        [ok([tensor(fv)], [tensor(np.trunc(fv.astype(np.float64)).astype(np.int32))])],
        ["EXEC-tir-cast-2"],
        "float32 -> int32 truncates toward zero: 2.7 -> 2, -2.7 -> -2, -0.5 -> 0 "
        "(np.trunc)."))

    fv = f32([math.nan, math.inf, -math.inf, 3e9, -3e9, 5.5])
    cases.append(case(
        "cast_float_to_int_out_of_range",
        module([_unary_func('T.Cast("int32", A[i])', 6, "float32", "int32")],
               call_main([("x", ann((6,)))], ["x"], ann((6,), "int32"))),
        [ok([tensor(fv)], [tensor(np.array([INT_MIN] * 5 + [5], np.int32))])],
        ["EXEC-tir-cast-2"],
        "NaN, infinities and values outside int32 convert to the x86 value INT_MIN (LLVM "
        "leaves fptosi undefined there); 5.5 -> 5."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "int64"), B: T.Buffer((5,), "int32"), C: T.Buffer((5,), "int8")):
    for i in T.serial(5):
        B[i] = T.Cast("int32", A[i])
        C[i] = T.Cast("int8", A[i])
'''
    iv = [2**32 + 5, 2**31, -(2**31) - 1, -1, 200]
    cases.append(case(
        "cast_int_narrowing_wraps",
        module([f], call_main([("x", ann((5,), "int64"))], ["x"],
                              [ann((5,), "int32"), ann((5,), "int8")])),
        [ok([tensor(np.array(iv, np.int64))],
            [i32(wrap(iv)), tensor(np.array(wrap(iv, 8), np.int8))])],
        ["EXEC-tir-cast-1", "EXEC-tir-int-1"],
        "int64 -> int32 and int64 -> int8 keep the low bits: 2^32 + 5 -> 5, 2^31 -> INT_MIN, "
        "-2^31 - 1 -> INT_MAX, 200 -> -56 (wrapped by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "int32"), L: T.Buffer((2,), "int64"), B: T.Buffer((4,), "float32"), D: T.Buffer((2,), "float64")):
    for i in T.serial(4):
        B[i] = T.Cast("float32", A[i])
    for i in T.serial(2):
        D[i] = T.Cast("float64", L[i])
'''
    ai = [16777217, 16777219, -16777217, 3]
    li = [2**53 + 1, -(2**53) - 3]
    cases.append(case(
        "cast_int_to_float_rounds_to_even",
        module([f], call_main([("x", ann((4,), "int32")), ("y", ann((2,), "int64"))],
                              ["x", "y"], [ann((4,)), ann((2,), "float64")])),
        [ok([i32(ai), tensor(np.array(li, np.int64))],
            [tensor(f32([16777216, 16777220, -16777216, 3])),
             tensor(np.array([2.0**53, -(2.0**53) - 4], np.float64))], **EXACT)],
        ["EXEC-tir-cast-1"],
        "int -> float rounds to nearest even: 2^24 + 1 -> 2^24, 2^24 + 3 -> 2^24 + 4 in "
        "float32; 2^53 + 1 -> 2^53 and -(2^53 + 3) -> -(2^53 + 4) in float64 (by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), I: T.Buffer((3,), "int32"), Bo: T.Buffer((2,), "bool"), FB: T.Buffer((5,), "bool"), IB: T.Buffer((3,), "bool"), BF: T.Buffer((2,), "float32"), BI: T.Buffer((2,), "int32")):
    for i in T.serial(5):
        FB[i] = T.Cast("bool", A[i])
    for i in T.serial(3):
        IB[i] = T.Cast("bool", I[i])
    for i in T.serial(2):
        BF[i] = T.Cast("float32", Bo[i])
        BI[i] = T.Cast("int32", Bo[i])
'''
    cases.append(case(
        "cast_bool",
        module([f], call_main([("x", ann((5,))), ("y", ann((3,), "int32")), ("z", ann((2,), "bool"))],
                              ["x", "y", "z"], [ann((5,), "bool"), ann((3,), "bool"), ann((2,)),
                                                ann((2,), "int32")])),
        [ok([tensor(f32([0, -0.0, math.nan, 2.0, -1e-30])), i32([0, 5, -1]),
             tensor(np.array([True, False]))],
            [tensor(np.array([False, False, True, True, True])),
             tensor(np.array([False, True, True])), tensor(f32([1, 0])), i32([1, 0])])],
        ["EXEC-tir-cast-1"],
        "To bool is x != 0 (a NaN is true, -0.0 false); bool to numbers is 1 / 0 "
        "(by hand)."))

    fv = f32([1 + 2.0**-10, 1 + 2.0**-11, 1 + 3 * 2.0**-11, 70000, 1e-8, -65504])
    cases.append(_unary_case(
        "cast_float32_to_float16_rounds", 'T.Cast("float16", A[i])', fv, _quiet(lambda: fv.astype(np.float16)),
        ["EXEC-tir-cast-1"],
        "float32 -> float16 rounds to nearest even: 1 + 2^-11 ties to 1, 1 + 3*2^-11 ties "
        "up to 1 + 2^-9, 70000 -> inf, 1e-8 -> 0 (NumPy astype).", out="float16", **EXACT))

    cases.append(case(
        "cast_to_handle_is_unsupported",
        module([_unary_func('T.Cast("float32", T.Cast("handle", A[i]))', 2)],
               call_main([("x", ann((2,)))], ["x"], ann((2,)))),
        [trap([tensor(f32([1, 2]))], "unsupported")],
        ["EXEC-tir-cast-3", "EXEC-tir-intrin-4"],
        "A cast of a float to a handle (and back) is none of the casts EXEC-tir-cast-1/2 "
        "define: an unsupported trap. (TVM's parser rejects it.)"))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.serial(T.int64(4)):
        B[i] = A[i] * T.Cast("float32", i) + T.Cast("float32", T.int64(3) * i)
'''
    fa = quarters(4, 40)
    idx = np.arange(4, dtype=np.float32)
    cases.append(case(
        "mixed_types_with_casts",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [ok([tensor(fa)], [tensor(fa * idx + np.float32(3) * idx)])],
        ["EXEC-tir-type-1", "EXEC-tir-cast-1"],
        "An int64 loop variable used as an index and, through T.Cast, in float32 "
        "arithmetic: B[i] = A[i] * i + 3i (NumPy)."))
    return cases


# ==================================================================================================
# Statements, memory, traps
# ==================================================================================================

def statement_cases() -> list[Case]:
    cases = []

    f = PRIM + '''
def f(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        if A[i] > T.float32(0):
            B[i] = A[i]
        elif A[i] < T.float32(-1):
            B[i] = T.float32(-1)
        else:
            B[i] = A[i] * A[i]
'''
    a = f32([2, -3, -0.5, 0, 1.5, -1])
    cases.append(case(
        "if_elif_else_statement",
        module([f], call_main([("x", ann((6,)))], ["x"], ann((6,)))),
        [ok([tensor(a)], [tensor(np.where(a > 0, a, np.where(a < -1, np.float32(-1), a * a)))])],
        ["EXEC-tir-if-1"],
        "if / elif / else statements: B = A where A > 0, -1 where A < -1, else A^2 "
        "(np.where)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "int32"), n: T.int32, B: T.Buffer((4,), "int32")):
    m: T.int32 = n * 3
    for i in range(4):
        t = A[i] + m
        B[i] = t * t
'''
    a = np.array([1, -2, 3, 0], np.int32)
    cases.append(case(
        "let_bindings",
        module([f], call_main([("x", ann((4,), "int32")), ("k", "T.int32")], ["x", "R.prim_value(k)"],
                              ann((4,), "int32"))),
        [ok([tensor(a), prim(2, "int32")], [tensor((a + 6) ** 2)]),
         ok([tensor(a), prim(-1, "int32")], [tensor((a - 3) ** 2)])],
        ["EXEC-tir-let-1", "EXEC-tir-var-1", "EXEC-tir-bind-2"],
        "`m: T.int32 = n * 3` and `t = A[i] + m` are LetStmts; n is an int32 scalar "
        "parameter given as an R.Prim argument: B = (A + 3n)^2 (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32")):
    V = T.decl_buffer((1,), "int32")
    for i in range(6):
        V[0] = A[i]
        B[i] = 0
        while V[0] > 1:
            V[0] = V[0] // 2
            B[i] = B[i] + 1
'''
    a = np.array([1, 2, 3, 1000, -5, 1 << 30], np.int32)
    want = np.array([int(math.log2(v)) if v > 1 else 0 for v in a.tolist()], np.int32)
    cases.append(case(
        "while_loop",
        module([f], call_main([("x", ann((6,), "int32"))], ["x"], ann((6,), "int32"))),
        [ok([tensor(a)], [tensor(want)])],
        ["EXEC-tir-while-1", "EXEC-tir-alloc-1"],
        "A while loop halving a T.decl_buffer scratch value until it is at most 1 counts "
        "floor(log2(a)) for a > 1 and 0 otherwise (math.log2)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), k: T.int64, B: T.Buffer((4,), "float32")):
    assert k < T.int64(10), "k must be below 10"
    for i in range(4):
        B[i] = A[i] + T.Cast("float32", k)
'''
    a = quarters(4, 41)
    cases.append(case(
        "assert_statement",
        module([f], call_main([("x", ann((4,))), ("k", "T.int64")], ["x", "R.prim_value(k)"],
                              ann((4,)))),
        [ok([tensor(a), prim(3)], [tensor(a + np.float32(3))]),
         trap([tensor(a), prim(12)], "tir_assert")],
        ["EXEC-tir-assert-1", "EXEC-tir-bind-2"],
        "`assert k < 10, \"...\"` passes for k = 3 (B = A + 3) and traps with tir_assert "
        "for k = 12."))

    f = PRIM + '''
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((2, 4), "float32")):
    p = T.allocate([8], "float32", "global")
    X = T.decl_buffer((2, 4), "float32", data=p)
    Y = T.decl_buffer((8,), "float32", data=p)
    for i in T.serial(8):
        Y[i] = A[i] * T.float32(2)
    for i, j in T.grid(2, 4):
        B[i, j] = X[i, j]
'''
    a = quarters(8, 42)
    cases.append(case(
        "allocate_and_decl_buffer_views",
        module([f], call_main([("x", ann((8,)))], ["x"], ann((2, 4)))),
        [ok([tensor(a)], [tensor((a * np.float32(2)).reshape(2, 4))])],
        ["EXEC-tir-alloc-1"],
        "T.allocate makes flat storage; two T.decl_buffer(data=p) views share it, so "
        "writing Y (8,) and reading X (2, 4) gives reshape(2 A, (2, 4)) (NumPy)."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    with T.attr(0, "pragma_note", 1):
        for i in range(4):
            B[i] = A[i] + T.float32(1)
'''
    a = quarters(4, 47)
    cases.append(case(
        "attr_statement_is_a_hint",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(a + np.float32(1))])],
        ["EXEC-tir-attr-1", "SYN-tir-15"],
        "An AttrStmt other than thread_extent / virtual_thread (`with T.attr(0, "
        "\"pragma_note\", 1):`) is a hint: its body runs once. B = A + 1."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    T.evaluate(0)
    for i in range(4):
        B[i] = A[i]
        B[i] = B[i] * T.float32(2)
    B[0] = T.float32(5)
    T.evaluate(T.float32(1) + A[0])
'''
    a = quarters(4, 43)
    want = a * np.float32(2)
    want[0] = 5
    cases.append(case(
        "sequence_order_and_evaluate",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(want)])],
        ["EXEC-tir-seq-1", "EXEC-tir-eval-1"],
        "Statements run in order (store, then overwrite, then B[0] = 5); T.evaluate "
        "statements evaluate for effect only. B = 2A with B[0] = 5."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        O[i] = A[i + 1]
'''
    cases.append(case(
        "load_out_of_bounds_traps",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [trap([tensor(quarters(4, 44))], "index_out_of_bounds")],
        ["EXEC-tir-load-1", "EXEC-tir-vec-6"],
        "O[i] = A[i + 1] loads A[4] of a 4-element buffer at i = 3: index_out_of_bounds."))

    f = PRIM + '''
def f(A: T.Buffer((5,), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(5):
        O[i] = A[i] * T.float32(2)
'''
    cases.append(case(
        "store_out_of_bounds_traps",
        module([f], call_main([("x", ann((5,)))], ["x"], ann((4,)))),
        [trap([tensor(quarters(5, 45))], "index_out_of_bounds")],
        ["EXEC-tir-store-1", "EXEC-tir-vec-6"],
        "O[i] = 2 A[i] for i < 5 stores O[4] of a 4-element buffer: index_out_of_bounds "
        "after the four stores in bounds."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    C = T.sblock_alloc_buffer((4,))
    for i in T.serial(2):
        with T.sblock("c"):
            vi = T.axis.spatial(2, i)
            C[vi] = A[vi] * T.float32(10)
    for i in T.serial(4):
        with T.sblock("o"):
            vi = T.axis.spatial(4, i)
            O[vi] = C[vi] + A[vi]
'''
    a = f32([1, 2, 3, 4])
    cases.append(case(
        "poison_intermediate_read_before_write",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(f32([11, 22, math.nan, math.nan]))])],
        ["EXEC-tir-poison-1", "EXEC-tir-block-4"],
        "An intermediate written only at 0 and 1 is read at 0..3: the unwritten elements "
        "are poison and read NaN, so O = [11, 22, NaN, NaN] (by hand). Compiled code reads "
        "whatever the memory held."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    K = T.decl_buffer((4,), "int8")
    for i in T.serial(4):
        O[i] = A[K[i]]
'''
    cases.append(case(
        "poison_integer_used_as_index_traps",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [trap([tensor(f32([1, 2, 3, 4]))], "index_out_of_bounds")],
        ["EXEC-tir-poison-1", "EXEC-tir-alloc-1", "EXEC-tir-load-1"],
        "An int8 T.decl_buffer never written reads poison (-1), which is out of bounds as "
        "an index: index_out_of_bounds."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        O[i] = A[i]
    for k in range(T.int64(1000000000000)):
        O[0] = A[0]
'''
    cases.append(case(
        "step_limit_resource",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [trap([tensor(f32([1, 2, 3, 4]))], "resource")],
        ["EXEC-tir-limit-1"],
        "A loop of 10**12 iterations would pass the TIR step budget (10**6 steps by default): it "
        "fails before its first iteration (resource), not after hours."))

    f = PRIM + '''
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    C = T.sblock_alloc_buffer((T.int64(1099511627776),))
    for i in T.serial(4):
        with T.sblock("c"):
            vi = T.axis.spatial(4, i)
            C[vi] = A[vi]
    for i in T.serial(4):
        with T.sblock("o"):
            vi = T.axis.spatial(4, i)
            O[vi] = C[vi] + T.float32(1)
'''
    cases.append(case(
        "allocation_limit_resource",
        module([f], call_main([("x", ann((4,)))], ["x"], ann((4,)))),
        [trap([tensor(f32([1, 2, 3, 4]))], "resource")],
        ["EXEC-tir-limit-2"],
        "A 2^40-element (4 TiB) intermediate buffer exceeds the allocation limit: a "
        "resource error before anything is allocated."))

    f = PRIM + '''
def f(A: T.Buffer((3,), "int32"), n: T.int32, B: T.Buffer((3,), "int32")):
    for i in range(3):
        B[i] = A[i] + n
'''
    a = np.array([1, 2, 3], np.int32)
    cases.append(case(
        "scalar_parameter_out_of_range",
        module([f], call_main([("x", ann((3,), "int32")), ("k", "R.Object")],
                              ["x", "k"], ann((3,), "int32"))),
        [ok([tensor(a), prim(5)], [tensor(a + 5)]),
         trap([tensor(a), prim(2**40)], "dtype_mismatch")],
        ["EXEC-tir-bind-2"],
        "An int32 scalar parameter takes an int64 R.Prim value that reaches it as an R.Object "
        "(an R.Prim of another dtype is ill-formed, WF-call-4): 5 gives B = A + 5; 2^40 does "
        "not fit int32 (dtype_mismatch)."))
    return cases


# ==================================================================================================
# Patterns of the vectorized path: all must mean what the scalar rules say
# ==================================================================================================

def pattern_cases() -> list[Case]:
    cases = []
    nan = math.nan

    f = PRIM + '''
def f(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 6):
        with T.sblock("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = T.max(B[vi], A[vi, vk])
'''
    a = f32([[nan, 1, 2, -0.0, 0.0, -1], [1, nan, 2, 3, nan, 0],
             [-0.0, -0.0, -1, -2, -3, -4], [math.inf, -math.inf, 0, 0, 0, 0]])
    want = []
    for row in a:
        acc = np.float32(0)
        for x in row:
            acc = acc if acc > x else x
        want.append(acc)
    cases.append(case(
        "max_reduction_sequential_with_nan",
        module([f], call_main([("x", ann((4, 6)))], ["x"], ann((4,)))),
        [ok([tensor(a)], [tensor(np.array(want, np.float32))])],
        ["EXEC-tir-vec-4", "EXEC-tir-float-2", "EXEC-tir-block-3"],
        "A max reduction folds left to right with max(a, b) = select(a > b, a, b): a NaN "
        "element makes the accumulator NaN only when it comes after (max(acc, NaN) = NaN), "
        "and a later number replaces it (max(NaN, x) = x). Expected: the fold in Python."))

    f = PRIM + '''
def f(O: T.Buffer((7,), "float32")):
    for i, j in T.grid(4096, 1100):
        O[(i * 1100 + j) % 7] = T.Cast("float32", i * 1100 + j)
'''
    total = 4096 * 1100
    want = f32([max(t for t in range(total - 7, total) if t % 7 == r) for r in range(7)])
    cases.append(case(
        "large_nest_last_store_wins",
        module([f], '''
@R.function
def main():
    cls = Module
    y = R.call_tir(cls.f, (), out_ty=R.Tensor((7,), "float32"))
    return y
'''),
        [ok([], [tensor(want)], **EXACT)],
        ["EXEC-tir-vec-3", "EXEC-tir-vec-5", "EXEC-tir-for-1"],
        "4,505,600 iterations (more than one chunk of 2^22) each store t = 1100 i + j at "
        "t % 7: every element keeps the last store in iteration order, the largest t with "
        "that residue (by hand)."))

    f = PRIM + '''
def f(B: T.Buffer((4,), "int32")):
    for i, k in T.grid(4, 2097155):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + (vk + vi) % 7
'''
    K = 2097155
    want = []
    for i in range(4):
        full, rest = divmod(K, 7)
        s = full * 21 + sum((k + i) % 7 for k in range(full * 7, K))
        want.append(s)
    cases.append(case(
        "large_reduction_in_chunks",
        module([f], '''
@R.function
def main():
    cls = Module
    y = R.call_tir(cls.f, (), out_ty=R.Tensor((4,), "int32"))
    return y
'''),
        [ok([], [tensor(np.array(want, np.int32))])],
        ["EXEC-tir-vec-4", "EXEC-tir-vec-5", "EXEC-tir-block-3"],
        "An int32 sum over 4 x 2,097,155 instances (more than 2^22, so folded in chunks): "
        "B[i] = sum_k (k + i) % 7 (closed form by hand)."))

    f = PRIM + '''
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B[0] = A[0]
    for i in T.serial(1, 8):
        B[i] = B[i - 1] + A[i]
'''
    a = quarters(8, 46)
    cases.append(case(
        "prefix_sum_self_dependent",
        module([f], call_main([("x", ann((8,)))], ["x"], ann((8,)))),
        [ok([tensor(a)], [tensor(np.cumsum(a).astype(np.float32))])],
        ["EXEC-tir-vec-1", "EXEC-tir-seq-1"],
        "B[i] = B[i - 1] + A[i] reads the element stored by the previous iteration: the "
        "serial meaning is a prefix sum (np.cumsum, exact on quarter values)."))

    f_copy = PRIM + '''
def copy(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
    for i in T.serial(7):
        B[i] = A[i]
'''
    f_rev = PRIM + '''
def rev(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
    for i in T.serial(7):
        B[i] = A[6 - i]
'''
    main = '''
@R.function
def main(x: R.Tensor((7,), "float32")):
    cls = Module
    y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((7,), "float32"))
    z = R.call_tir_inplace(cls.rev, (y, y), inplace_indices=[0], out_ty=R.Tensor((7,), "float32"))
    return z
'''
    a = f32([0, 1, 2, 3, 4, 5, 6])
    want = a.copy()
    for i in range(7):
        want[i] = want[6 - i]
    cases.append(case(
        "aliased_buffers_in_place",
        module([f_copy, f_rev], main),
        [ok([tensor(a)], [tensor(want)])],
        ["EXEC-tir-vec-2", "EXEC-dps-3", "EXEC-tir-for-1"],
        "call_tir_inplace passes the same tensor as both of rev's buffers, so B[i] = A[6 - i] "
        "reads elements the loop already overwrote: [6, 5, 4, 3, 4, 5, 6] (serial loop in "
        "Python)."))
    return cases


def cases() -> list[Case]:
    return loop_cases() + block_cases() + intrinsic_cases() + arith_cases() + \
        statement_cases() + pattern_cases()
