"""The `ops` area: every registered op except the structural family (spec/ops/*.md).

Each case is one small module whose `main` applies the op under test. Expected outputs
come from NumPy formulas written here (or values computed by hand), never from relax_ref.
Symbolic cases declare `n = TypeVar("n")` at module level (TVM 0.27 dialect) and run at
two or three sizes. Inputs are drawn from `np.random.default_rng(seed)` with a fixed seed
per case; float data are multiples of 1/4 (exact in float16 and float32) unless a case
says otherwise, so that sums and products of a few elements are exact.

`python conformance/generate.py ops` writes conformance/ops/*.
"""
from __future__ import annotations

import math

import numpy as np

from generate import Case, ok, prim, shape, tensor, trap, tuple_

AREA = "ops"

# -- building modules -----------------------------------------------------------------------


def ann(dims=None, dtype="float32", ndim=None) -> str:
    """An R.Tensor annotation: dims a tuple (ints or symbolic strings), or None for an
    unknown shape (with ndim, or unknown ndim)."""
    if dims is None:
        if ndim is None:
            return f'R.Tensor(dtype="{dtype}")'
        return f'R.Tensor(dtype="{dtype}", ndim={ndim})'
    inner = ", ".join(str(d) for d in dims)
    if len(dims) == 1:
        inner += ","
    return f'R.Tensor(({inner}), dtype="{dtype}")'


def prim_ann(dtype="int64") -> str:
    return f'R.Prim("{dtype}")'


def module(params, body, ret="y", sym=(), ret_ann=None) -> str:
    """A module whose `main` takes `params` [(name, annotation)], runs the `body` lines
    and returns `ret`."""
    if isinstance(body, str):
        body = [body]
    uses_t = any("T." in line for line in body) or any("T." in a for _, a in params) \
        or (ret_ann is not None and "T." in ret_ann)
    lines = []
    if sym:
        lines.append("# from typing import TypeVar")
    lines.append("# from tvm.script import ir as I")
    lines.append("# from tvm.script import relax as R")
    if uses_t:
        lines.append("# from tvm.script import tirx as T")
    lines.append("")
    for s in sym:
        lines.append(f'{s} = TypeVar("{s}")')
    lines += ["@I.ir_module", "class Module:", "    @R.function"]
    sig = ", ".join(f"{n}: {a}" for n, a in params)
    arrow = f" -> {ret_ann}" if ret_ann else ""
    lines.append(f"    def main({sig}){arrow}:")
    lines += ["        " + b for b in body]
    lines.append(f"        return {ret}")
    return "\n".join(lines) + "\n"


# -- data -------------------------------------------------------------------------------------


def fdata(shape_, seed, lo=-4.0, hi=4.0, dtype="float32", step=0.25):
    """Floats that are multiples of `step` in [lo, hi] (exact in float16)."""
    r = np.random.default_rng(seed)
    v = np.round(r.uniform(lo, hi, size=shape_) / step) * step
    return v.astype(dtype)


def rdata(shape_, seed, lo=-2.0, hi=2.0, dtype="float32"):
    """Unrounded random floats (for transcendental functions)."""
    r = np.random.default_rng(seed)
    return r.uniform(lo, hi, size=shape_).astype(dtype)


def idata(shape_, seed, lo=-9, hi=10, dtype="int32"):
    r = np.random.default_rng(seed)
    return r.integers(lo, hi, size=shape_).astype(dtype)


def bdata(shape_, seed):
    r = np.random.default_rng(seed)
    return r.integers(0, 2, size=shape_).astype(bool)


def T_(a, dtype=None):
    a = np.asarray(a)
    return tensor(a, dtype or str(a.dtype))


# -- the case list ----------------------------------------------------------------------------

_CASES: list[Case] = []


def add_case(name, params, body, runs=(), covers=(), desc="", sym=(), ret="y",
             expect="ok", rule=None, ret_ann=None):
    text = module(params, body, ret, sym, ret_ann)
    _CASES.append(Case(AREA, name, text, list(runs), expect, rule, desc, list(covers)))


def invalid(name, params, body, rule, covers, desc, sym=(), ret="y"):
    add_case(name, params, body, (), list(covers) + ([rule] if rule not in covers else []),
             desc, sym, ret, expect="invalid", rule=rule)


def wrap(values, dtype):
    """Exact integer values wrapped to `dtype` (two's complement)."""
    return np.asarray(values, dtype=np.int64).astype(dtype)


def trunc_div(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def trunc_mod(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    return a - trunc_div(a, b) * b


# ============================================================================================
# elementwise (relax_ref/ops/elementwise.py; rule IDs SI-ew-*, EXEC-ew-div-1, and the
# broadcasting rules SI-broadcast-1..3 / EXEC-broadcast-1)
# ============================================================================================

BIN = ["SI-ew-binary-1", "SI-broadcast-2", "SI-broadcast-3", "EXEC-broadcast-1"]
CMP = ["SI-ew-compare-1", "SI-broadcast-2", "SI-broadcast-3", "EXEC-broadcast-1"]


def zero_divisor(op, a, b):
    """An integer division op with a zero in the divisor traps division_by_zero."""
    dt = str(a.dtype)
    add_case(f"{op}_by_zero", [("x", ann(a.shape, dt)), ("z", ann(b.shape, dt))],
             f"y = R.{op}(x, z)", [trap([T_(a), T_(b)], "division_by_zero")],
             [f"relax.{op}", "EXEC-ew-div-1", "SI-ew-binary-1"],
             f"{dt} {op} with a zero divisor traps division_by_zero (EXEC-ew-div-1)")


def _elementwise():
    # ---- add: the common binary op, thoroughly -------------------------------------------
    a, b = fdata((2, 3), 1), fdata((2, 3), 2)
    add_case("add_static_f32", [("x", ann((2, 3))), ("z", ann((2, 3)))], "y = R.add(x, z)",
             [ok([T_(a), T_(b)], [T_(a + b)])], ["relax.add"] + BIN,
             "add of two static float32 (2, 3) tensors: x + z")
    a, b = fdata((2, 1, 3), 3), fdata((4, 1), 4)
    add_case("add_broadcast_size1", [("x", ann((2, 1, 3))), ("z", ann((4, 1)))],
             'y: R.Tensor((2, 4, 3), dtype="float32") = R.add(x, z)',
             [ok([T_(a), T_(b)], [T_(a + b)])], ["relax.add"] + BIN,
             "add broadcasting (2, 1, 3) with (4, 1): size-1 dimensions stretch, ranks align "
             "from the right; result (2, 4, 3) (SI-broadcast-2/3)")
    runs = []
    for k, nv in enumerate((1, 3, 0)):
        a, b = fdata((nv, 4), 10 + k), fdata((4,), 20 + k)
        runs.append(ok([T_(a), T_(b)], [T_(a + b)]))
    add_case("add_symbolic_rows", [("x", ann(("n", 4))), ("z", ann((4,)))],
             'y: R.Tensor((n, 4), dtype="float32") = R.add(x, z)', runs,
             ["relax.add"] + BIN,
             "add of (n, 4) and (4,) at n = 1, 3 and 0 (an empty tensor); result (n, 4)",
             sym=("n",))
    a3 = fdata((3,), 30)
    add_case("add_symbolic_broadcast_check", [("x", ann(("n",))), ("z", ann(("m",)))],
             "y = R.add(x, z)",
             [ok([T_(a3), T_(fdata((3,), 31))], [T_(a3 + fdata((3,), 31))]),
              ok([T_(a3), T_(fdata((1,), 32))], [T_(a3 + fdata((1,), 32))]),
              trap([T_(a3), T_(fdata((2,), 33))], "shape_mismatch")],
             ["relax.add", "SI-ew-binary-1", "SI-broadcast-2", "SI-broadcast-3",
              "EXEC-broadcast-1"],
             "add of (n,) and (m,): undecidable statically (result ndim 1); at run time "
             "n = m = 3 and m = 1 broadcast, n = 3 against m = 2 traps shape_mismatch "
             "(EXEC-broadcast-1)", sym=("n", "m"))
    a, b = fdata((2, 3), 34, dtype="float16"), fdata((2, 3), 35, dtype="float16")
    add_case("add_f16", [("x", ann((2, 3), "float16")), ("z", ann((2, 3), "float16"))],
             "y = R.add(x, z)", [ok([T_(a), T_(b)], [T_(a + b)])], ["relax.add"] + BIN,
             "add in float16 (quarter-integers, exact)")
    a = np.array([2147483647, -2147483648, 5, -7], dtype="int32")
    b = np.array([1, -1, 2147483647, 3], dtype="int32")
    add_case("add_i32_wrap", [("x", ann((4,), "int32")), ("z", ann((4,), "int32"))],
             "y = R.add(x, z)",
             [ok([T_(a), T_(b)], [T_(wrap(a.astype(np.int64) + b, "int32"))])],
             ["relax.add"] + BIN, "int32 add wraps around on overflow (two's complement)")
    a, b = idata((3, 2), 36, -10**12, 10**12, "int64"), idata((1, 2), 37, -10**12, 10**12,
                                                                 "int64")
    add_case("add_i64", [("x", ann((3, 2), "int64")), ("z", ann((1, 2), "int64"))],
             "y = R.add(x, z)", [ok([T_(a), T_(b)], [T_(a + b)])], ["relax.add"] + BIN,
             "int64 add with broadcasting over a size-1 leading dimension")
    a, b = fdata((), 38), fdata((), 39)
    add_case("add_scalar_0d", [("x", ann(())), ("z", ann(()))], "y = R.add(x, z)",
             [ok([T_(a), T_(b)], [T_(a + b)])], ["relax.add"] + BIN, "add of two 0-d tensors")
    a, b = fdata((0, 3), 40), fdata((1, 3), 41)
    add_case("add_empty", [("x", ann((0, 3))), ("z", ann((1, 3)))], "y = R.add(x, z)",
             [ok([T_(a), T_(b)], [T_(np.zeros((0, 3), "float32"))])], ["relax.add"] + BIN,
             "add of an empty (0, 3) tensor and (1, 3): the result is empty (0, 3)")
    a = fdata((2, 3), 42)
    add_case("add_prim_scalar", [("x", ann((2, 3))), ("p", prim_ann("float32"))],
             "y = R.add(x, p)",
             [ok([T_(a), prim(1.5, "float32")], [T_(a + np.float32(1.5))])],
             ["relax.add", "EXEC-ew-binary-2"] + BIN,
             "add of a tensor and an R.Prim float32 scalar (the scalar acts as a 0-d tensor)")
    invalid("add_invalid_static_mismatch", [("x", ann((2, 3))), ("z", ann((4,)))],
            "y = R.add(x, z)", "SI-broadcast-1", ["relax.add"],
            "add of (2, 3) and (4,): the constants 3 and 4 cannot broadcast (SI-broadcast-1)")
    invalid("add_invalid_dtype", [("x", ann((2, 3))), ("z", ann((2, 3), "int32"))],
            "y = R.add(x, z)", "SI-op-dtype-1", ["relax.add", "SI-ew-binary-1"],
            "add of float32 and int32 tensors: the dtypes must agree (SI-op-dtype-1)")

    # ---- subtract, multiply -------------------------------------------------------------
    a, b = idata((2, 3), 50, dtype="int64"), idata((3,), 51, dtype="int64")
    add_case("subtract_i64_broadcast", [("x", ann((2, 3), "int64")), ("z", ann((3,), "int64"))],
             "y = R.subtract(x, z)", [ok([T_(a), T_(b)], [T_(a - b)])],
             ["relax.subtract"] + BIN, "int64 subtract, (2, 3) - (3,)")
    runs = []
    for k, nv in enumerate((2, 5)):
        a, b = fdata((nv, 2), 52 + k), fdata((nv, 1), 54 + k)
        runs.append(ok([T_(a), T_(b)], [T_(a - b)]))
    add_case("subtract_symbolic", [("x", ann(("n", 2))), ("z", ann(("n", 1)))],
             'y: R.Tensor((n, 2), dtype="float32") = R.subtract(x, z)', runs,
             ["relax.subtract"] + BIN, "subtract (n, 2) - (n, 1) at n = 2 and 5",
             sym=("n",))
    a, b = fdata((2, 3), 56), fdata((2, 3), 57)
    add_case("multiply_f32", [("x", ann((2, 3))), ("z", ann((2, 3)))], "y = R.multiply(x, z)",
             [ok([T_(a), T_(b)], [T_(a * b)])], ["relax.multiply"] + BIN,
             "float32 multiply (products of quarter-integers, exact)")
    a, b = fdata((4,), 58, dtype="float16"), fdata((4,), 59, dtype="float16")
    add_case("multiply_f16", [("x", ann((4,), "float16")), ("z", ann((4,), "float16"))],
             "y = R.multiply(x, z)", [ok([T_(a), T_(b)], [T_(a * b)])],
             ["relax.multiply"] + BIN, "float16 multiply (exact products)")
    a = np.array([65536, -3, 46341, 7], dtype="int32")
    b = np.array([65536, 4, 46341, -9], dtype="int32")
    add_case("multiply_i32_wrap", [("x", ann((4,), "int32")), ("z", ann((4,), "int32"))],
             "y = R.multiply(x, z)",
             [ok([T_(a), T_(b)], [T_(wrap(a.astype(np.int64) * b, "int32"))])],
             ["relax.multiply"] + BIN, "int32 multiply wraps around (65536 * 65536 = 0)")
    runs = []
    for k, (nv, mv) in enumerate(((2, 3), (1, 4), (3, 1))):
        a, b = fdata((nv, 1), 60 + k), fdata((1, mv), 63 + k)
        runs.append(ok([T_(a), T_(b)], [T_(a * b)]))
    add_case("multiply_symbolic_outer", [("x", ann(("n", 1))), ("z", ann((1, "m")))],
             'y: R.Tensor((n, m), dtype="float32") = R.multiply(x, z)', runs,
             ["relax.multiply"] + BIN,
             "multiply (n, 1) by (1, m): an outer product by broadcasting, result (n, m)",
             sym=("n", "m"))

    # ---- divide and friends ---------------------------------------------------------------
    a = np.array([1.0, -1.0, 0.0, 7.0, -2.5], dtype="float32")
    b = np.array([0.0, 0.0, 0.0, 2.0, 0.5], dtype="float32")
    with np.errstate(all="ignore"):
        q = a / b
    add_case("divide_f32_ieee", [("x", ann((5,))), ("z", ann((5,)))], "y = R.divide(x, z)",
             [ok([T_(a), T_(b)], [T_(q)])], ["relax.divide"] + BIN,
             "float32 divide follows IEEE: 1/0 = inf, -1/0 = -inf, 0/0 = nan")
    a = np.array([7, -7, 7, -7, 0, 9], dtype="int32")
    b = np.array([2, 2, -2, -2, 3, 3], dtype="int32")
    add_case("divide_i32_trunc", [("x", ann((6,), "int32")), ("z", ann((6,), "int32"))],
             "y = R.divide(x, z)",
             [ok([T_(a), T_(b)], [T_(trunc_div(a, b).astype("int32"))])],
             ["relax.divide"] + BIN,
             "integer divide truncates toward zero (TIR Div): -7 / 2 = -3, 7 / -2 = -3")
    zero_divisor("divide", a, np.array([2, 2, 0, 1, 1, 1], "int32"))
    a = np.array([7.0, -7.0, 7.5, -0.5], dtype="float32")
    b = np.array([2.0, 2.0, -2.0, 4.0], dtype="float32")
    add_case("floor_divide_f32", [("x", ann((4,))), ("z", ann((4,)))],
             "y = R.floor_divide(x, z)",
             [ok([T_(a), T_(b)], [T_(np.floor(a / b))])], ["relax.floor_divide"] + BIN,
             "float32 floor_divide = floor(x / z)")
    a = np.array([7, -7, 7, -7, 0], dtype="int64")
    b = np.array([2, 2, -2, -2, 5], dtype="int64")
    add_case("floor_divide_i64", [("x", ann((5,), "int64")), ("z", ann((5,), "int64"))],
             "y = R.floor_divide(x, z)",
             [ok([T_(a), T_(b)], [T_(np.floor_divide(a, b))])],
             ["relax.floor_divide"] + BIN,
             "int64 floor_divide rounds toward negative infinity (-7 // 2 = -4)")
    zero_divisor("floor_divide", a, np.array([1, 1, 1, 0, 1], "int64"))
    a = np.array([7, -7, 7, -7, 6], dtype="int32")
    b = np.array([3, 3, -3, -3, 3], dtype="int32")
    add_case("mod_i32_trunc", [("x", ann((5,), "int32")), ("z", ann((5,), "int32"))],
             "y = R.mod(x, z)",
             [ok([T_(a), T_(b)], [T_(trunc_mod(a, b).astype("int32"))])],
             ["relax.mod"] + BIN,
             "integer mod truncates (sign of the dividend, TIR Mod): -7 mod 3 = -1")
    zero_divisor("mod", a, np.array([3, 0, 3, 3, 3], "int32"))
    a = np.array([7.5, -7.5, 7.5, -7.5], dtype="float32")
    b = np.array([2.0, 2.0, -2.0, -2.0], dtype="float32")
    add_case("mod_f32", [("x", ann((4,))), ("z", ann((4,)))], "y = R.mod(x, z)",
             [ok([T_(a), T_(b)], [T_(np.fmod(a, b))])], ["relax.mod"] + BIN,
             "float32 mod is fmod (sign of the dividend): -7.5 mod 2 = -1.5")
    a = np.array([7, -7, 7, -7, 6], dtype="int32")
    b = np.array([3, 3, -3, -3, 3], dtype="int32")
    add_case("floor_mod_i32", [("x", ann((5,), "int32")), ("z", ann((5,), "int32"))],
             "y = R.floor_mod(x, z)",
             [ok([T_(a), T_(b)], [T_(np.mod(a, b))])],
             ["relax.floor_mod"] + BIN,
             "integer floor_mod (sign of the divisor): -7 mod 3 = 2, 7 mod -3 = -2")
    zero_divisor("floor_mod", a, np.array([3, 3, 3, 3, 0], "int32"))
    a = np.array([7.5, -7.5, 7.5, -7.5], dtype="float32")
    b = np.array([2.0, 2.0, -2.0, -2.0], dtype="float32")
    add_case("floor_mod_f32", [("x", ann((4,))), ("z", ann((4,)))], "y = R.floor_mod(x, z)",
             [ok([T_(a), T_(b)], [T_(a - np.floor(a / b) * b)])], ["relax.floor_mod"] + BIN,
             "float32 floor_mod = x - floor(x / z) * z")
    a = np.array([2.0, 4.0, 9.0, 0.5, 2.0], dtype="float32")
    b = np.array([3.0, 0.5, 0.5, -1.0, -2.0], dtype="float32")
    add_case("power_f32", [("x", ann((5,))), ("z", ann((5,)))], "y = R.power(x, z)",
             [ok([T_(a), T_(b)], [T_(np.power(a.astype(np.float64), b).astype("float32"))])],
             ["relax.power"] + BIN, "float32 power: 2**3, 4**0.5, 9**0.5, 0.5**-1, 2**-2")
    a = np.array([2, 3, -2, 10], dtype="int32")
    b = np.array([3, 2, 3, 0], dtype="int32")
    add_case("power_i32", [("x", ann((4,), "int32")), ("z", ann((4,), "int32"))],
             "y = R.power(x, z)", [ok([T_(a), T_(b)], [T_(np.array([8, 9, -8, 1], "int32"))])],
             ["relax.power"] + BIN, "int32 power with non-negative exponents (exact)")
    a, b = fdata((2, 3), 70), fdata((3,), 71)
    add_case("maximum_f32", [("x", ann((2, 3))), ("z", ann((3,)))], "y = R.maximum(x, z)",
             [ok([T_(a), T_(b)], [T_(np.maximum(a, b))])], ["relax.maximum"] + BIN,
             "float32 maximum with broadcasting")
    a, b = idata((2, 3), 72), idata((2, 1), 73)
    add_case("minimum_i32", [("x", ann((2, 3), "int32")), ("z", ann((2, 1), "int32"))],
             "y = R.minimum(x, z)", [ok([T_(a), T_(b)], [T_(np.minimum(a, b))])],
             ["relax.minimum"] + BIN, "int32 minimum with broadcasting")

    # ---- bitwise ----------------------------------------------------------------------------
    a, b = idata((6,), 80, -100, 100), idata((6,), 81, -100, 100)
    add_case("bitwise_and_i32", [("x", ann((6,), "int32")), ("z", ann((6,), "int32"))],
             "y = R.bitwise_and(x, z)", [ok([T_(a), T_(b)], [T_(a & b)])],
             ["relax.bitwise_and"] + BIN, "int32 bitwise and (negative values, two's complement)")
    a, b = idata((2, 3), 82, 0, 256, "uint8"), idata((3,), 83, 0, 256, "uint8")
    add_case("bitwise_or_u8", [("x", ann((2, 3), "uint8")), ("z", ann((3,), "uint8"))],
             "y = R.bitwise_or(x, z)", [ok([T_(a), T_(b)], [T_(a | b)])],
             ["relax.bitwise_or"] + BIN, "uint8 bitwise or with broadcasting")
    a, b = idata((5,), 84, -1000, 1000, "int64"), idata((5,), 85, -1000, 1000, "int64")
    add_case("bitwise_xor_i64", [("x", ann((5,), "int64")), ("z", ann((5,), "int64"))],
             "y = R.bitwise_xor(x, z)", [ok([T_(a), T_(b)], [T_(a ^ b)])],
             ["relax.bitwise_xor"] + BIN, "int64 bitwise xor")
    a = np.array([1, -3, 5, 1073741824, 7], dtype="int32")
    b = np.array([3, 2, 0, 1, 30], dtype="int32")
    add_case("left_shift_i32", [("x", ann((5,), "int32")), ("z", ann((5,), "int32"))],
             "y = R.left_shift(x, z)",
             [ok([T_(a), T_(b)], [T_(wrap(a.astype(np.int64) << b.astype(np.int64), "int32"))])],
             ["relax.left_shift"] + BIN,
             "int32 left shift by amounts in [0, 31); bits shifted out are lost (2**30 << 1 wraps "
             "to -2**31, 7 << 30 wraps)")
    a = np.array([64, -64, -1, 12345, 7], dtype="int32")
    b = np.array([3, 3, 5, 4, 0], dtype="int32")
    add_case("right_shift_i32", [("x", ann((5,), "int32")), ("z", ann((5,), "int32"))],
             "y = R.right_shift(x, z)", [ok([T_(a), T_(b)], [T_(a >> b)])],
             ["relax.right_shift"] + BIN,
             "int32 right shift is arithmetic for signed values: -64 >> 3 = -8, -1 >> 5 = -1")
    a = np.array([0, -1, 5, -128, 127], dtype="int8")
    add_case("bitwise_not_i8", [("x", ann((5,), "int8"))], "y = R.bitwise_not(x)",
             [ok([T_(a)], [T_(~a)])], ["relax.bitwise_not", "SI-ew-unary-1"],
             "int8 bitwise not: ~x = -x - 1")

    # ---- comparisons and logic ---------------------------------------------------------------
    a = np.array([[1.0, np.nan, -0.0], [2.5, -1.0, np.inf]], dtype="float32")
    b = np.array([1.0, np.nan, 0.0], dtype="float32")
    for op, fn in (("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
                   ("less_equal", np.less_equal), ("greater", np.greater),
                   ("greater_equal", np.greater_equal)):
        add_case(f"{op}_f32", [("x", ann((2, 3))), ("z", ann((3,)))],
                 f'y: R.Tensor((2, 3), dtype="bool") = R.{op}(x, z)',
                 [ok([T_(a), T_(b)], [T_(fn(a, b))])], [f"relax.{op}"] + CMP,
                 f"{op} on float32 with broadcasting gives bool; IEEE comparisons: NaN compares "
                 "unequal to everything, -0.0 == 0.0")
    a, b = idata((2, 3), 90, -3, 3), idata((2, 3), 91, -3, 3)
    add_case("less_i32", [("x", ann((2, 3), "int32")), ("z", ann((2, 3), "int32"))],
             "y = R.less(x, z)", [ok([T_(a), T_(b)], [T_(a < b)])], ["relax.less"] + CMP,
             "int32 less")
    runs = []
    for k, nv in enumerate((3, 1)):
        a, b = idata((nv,), 92 + k, 0, 3, "int64"), idata((nv,), 94 + k, 0, 3, "int64")
        runs.append(ok([T_(a), T_(b)], [T_(a == b)]))
    add_case("equal_symbolic_i64", [("x", ann(("n",), "int64")), ("z", ann(("n",), "int64"))],
             'y: R.Tensor((n,), dtype="bool") = R.equal(x, z)', runs,
             ["relax.equal"] + CMP, "equal on int64 (n,) at n = 3 and 1", sym=("n",))
    a, b = bdata((2, 3), 96), bdata((3,), 97)
    for op, fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
        add_case(f"{op}_bool", [("x", ann((2, 3), "bool")), ("z", ann((3,), "bool"))],
                 f"y = R.{op}(x, z)", [ok([T_(a), T_(b)], [T_(fn(a, b))])],
                 [f"relax.{op}"] + CMP, f"{op} on bool tensors with broadcasting")
    a = bdata((2, 3), 98)
    add_case("logical_not_bool", [("x", ann((2, 3), "bool"))], "y = R.logical_not(x)",
             [ok([T_(a)], [T_(~a)])], ["relax.logical_not", "SI-ew-unary-3"], "logical_not on bool")

    # ---- unary ---------------------------------------------------------------------------
    a = idata((2, 3), 100)
    add_case("negative_i32", [("x", ann((2, 3), "int32"))], "y = R.negative(x)",
             [ok([T_(a)], [T_(-a)])], ["relax.negative", "SI-ew-unary-1"], "int32 negative")
    runs = []
    for k, nv in enumerate((2, 4)):
        a = fdata((nv, 3), 101 + k)
        runs.append(ok([T_(a)], [T_(-a)]))
    add_case("negative_symbolic_f32", [("x", ann(("n", 3)))],
             'y: R.Tensor((n, 3), dtype="float32") = R.negative(x)', runs,
             ["relax.negative", "SI-ew-unary-1"], "float32 negative on (n, 3), n = 2 and 4",
             sym=("n",))
    a = np.array([-2.5, 0.0, -0.0, 3.0, -np.inf], dtype="float32")
    add_case("abs_f32", [("x", ann((5,)))], "y = R.abs(x)", [ok([T_(a)], [T_(np.abs(a))])],
             ["relax.abs", "SI-ew-unary-1"], "float32 abs, with -0.0 and -inf")
    a = idata((5,), 103, -50, 50, "int64")
    add_case("abs_i64", [("x", ann((5,), "int64"))], "y = R.abs(x)",
             [ok([T_(a)], [T_(np.abs(a))])], ["relax.abs", "SI-ew-unary-1"], "int64 abs")
    a = fdata((2, 3), 104, dtype="float16")
    add_case("square_f16", [("x", ann((2, 3), "float16"))], "y = R.square(x)",
             [ok([T_(a)], [T_(a * a)])], ["relax.square", "SI-ew-unary-1"],
             "float16 square (exact)")
    a = idata((4,), 105, -100, 100)
    add_case("square_i32", [("x", ann((4,), "int32"))], "y = R.square(x)",
             [ok([T_(a)], [T_(a * a)])], ["relax.square", "SI-ew-unary-1"], "int32 square")
    a = np.array([-2.5, 0.0, 3.0, -0.25, np.inf], dtype="float32")
    add_case("sign_f32", [("x", ann((5,)))], "y = R.sign(x)",
             [ok([T_(a)], [T_(np.array([-1, 0, 1, -1, 1], "float32"))])],
             ["relax.sign", "SI-ew-unary-1"], "float32 sign: -1, 0 or 1")
    a = np.array([-7, 0, 9], dtype="int32")
    add_case("sign_i32", [("x", ann((3,), "int32"))], "y = R.sign(x)",
             [ok([T_(a)], [T_(np.array([-1, 0, 1], "int32"))])],
             ["relax.sign", "SI-ew-unary-1"], "int32 sign")

    # the float math functions: NumPy in float64, rounded to float32
    def unary_float(op, fn, data, desc):
        x64 = data.astype(np.float64)
        with np.errstate(all="ignore"):
            want = fn(x64).astype("float32")
        add_case(f"{op}_f32", [("x", ann(data.shape))], f"y = R.{op}(x)",
                 [ok([T_(data.astype("float32"))], [T_(want)])],
                 [f"relax.{op}", "SI-ew-unary-2"], desc)

    unary_float("exp", np.exp, rdata((2, 3), 110, -3, 3), "float32 exp")
    unary_float("log", np.log, np.array([0.5, 1.0, 10.0, 0.0, -1.0], "float32"),
                "float32 log; log(0) = -inf and log(-1) = nan")
    unary_float("sqrt", np.sqrt, np.array([0.0, 2.0, 9.0, 0.25, -4.0], "float32"),
                "float32 sqrt; sqrt(-4) = nan")
    unary_float("rsqrt", lambda v: 1.0 / np.sqrt(v), np.array([0.25, 1.0, 2.0, 16.0], "float32"),
                "float32 rsqrt = 1 / sqrt(x)")
    unary_float("sin", np.sin, rdata((5,), 111, -4, 4), "float32 sin")
    unary_float("cos", np.cos, rdata((5,), 112, -4, 4), "float32 cos")
    unary_float("tan", np.tan, rdata((5,), 113, -1.2, 1.2), "float32 tan")
    unary_float("tanh", np.tanh, rdata((5,), 114, -5, 5), "float32 tanh")
    unary_float("sigmoid", lambda v: 1.0 / (1.0 + np.exp(-v)),
                np.array([-30.0, -1.0, 0.0, 1.0, 30.0], "float32"),
                "float32 sigmoid = 1 / (1 + exp(-x)), saturating at the ends")
    unary_float("erf", np.vectorize(math.erf), rdata((5,), 115, -2.5, 2.5),
                "float32 erf (expected from math.erf)")
    unary_float("sinh", np.sinh, rdata((5,), 116, -3, 3), "float32 sinh")
    unary_float("cosh", np.cosh, rdata((5,), 117, -3, 3), "float32 cosh")
    unary_float("asin", np.arcsin, rdata((5,), 118, -0.99, 0.99), "float32 asin")
    unary_float("acos", np.arccos, rdata((5,), 119, -0.99, 0.99), "float32 acos")
    unary_float("atan", np.arctan, rdata((5,), 120, -5, 5), "float32 atan")
    unary_float("asinh", np.arcsinh, rdata((5,), 121, -5, 5), "float32 asinh")
    unary_float("acosh", np.arccosh, rdata((5,), 122, 1.0, 6.0), "float32 acosh (x >= 1)")
    unary_float("atanh", np.arctanh, rdata((5,), 123, -0.95, 0.95), "float32 atanh")
    unary_float("floor", np.floor, np.array([-2.5, -0.25, 0.0, 1.75, 3.0], "float32"),
                "float32 floor")
    unary_float("ceil", np.ceil, np.array([-2.5, -0.25, 0.0, 1.75, 3.0], "float32"),
                "float32 ceil")
    unary_float("round", np.round, np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.25], "float32"),
                "float32 round: halfway cases round to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2)")
    unary_float("trunc", np.trunc, np.array([-2.75, -0.25, 0.0, 1.75, 3.0], "float32"),
                "float32 trunc rounds toward zero")
    unary_float("log1p", np.log1p, np.array([0.0, 1e-6, 1.0, -0.5, 5.0], "float32"),
                "float32 log1p")
    a = rdata((2, 3), 124, -2, 2, "float16")
    add_case("exp_f16", [("x", ann((2, 3), "float16"))], "y = R.exp(x)",
             [ok([T_(a)], [T_(np.exp(a.astype(np.float64)).astype("float16"))],
                 rtol=1e-3, atol=1e-3)],
             ["relax.exp", "SI-ew-unary-2"],
             "float16 exp (tolerance 1e-3: one float16 rounding, computed through float32)")
    invalid("exp_invalid_int", [("x", ann((3,), "int32"))], "y = R.exp(x)", "SI-ew-unary-2",
            ["relax.exp"], "exp needs a floating-point operand; int32 is rejected (SI-ew-unary-2)")
    a = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 3.5], "float32")
    for op, fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        add_case(f"{op}_f32", [("x", ann((6,)))],
                 f'y: R.Tensor((6,), dtype="bool") = R.{op}(x)',
                 [ok([T_(a)], [T_(fn(a))])], [f"relax.{op}", "SI-ew-unary-3"],
                 f"{op} of float32 with NaN and infinities gives bool")

    # ---- where, astype, clip -------------------------------------------------------------
    c, a, b = bdata((2, 3), 130), fdata((2, 3), 131), fdata((3,), 132)
    add_case("where_broadcast", [("c", ann((2, 3), "bool")), ("x", ann((2, 3))),
                                 ("z", ann((3,)))],
             'y: R.Tensor((2, 3), dtype="float32") = R.where(c, x, z)',
             [ok([T_(c), T_(a), T_(b)], [T_(np.where(c, a, b))])],
             ["relax.where", "SI-ew-where-1", "SI-broadcast-3", "EXEC-broadcast-1"],
             "where(c, x, z) with z broadcast from (3,)")
    runs = []
    for k, nv in enumerate((3, 1)):
        c, a, b = bdata((nv, 1), 133 + k), idata((1, 2), 135 + k, dtype="int64"), \
            idata((nv, 2), 137 + k, dtype="int64")
        runs.append(ok([T_(c), T_(a), T_(b)], [T_(np.where(c, a, b))]))
    add_case("where_symbolic_i64", [("c", ann(("n", 1), "bool")), ("x", ann((1, 2), "int64")),
                                    ("z", ann(("n", 2), "int64"))],
             'y: R.Tensor((n, 2), dtype="int64") = R.where(c, x, z)', runs,
             ["relax.where", "SI-ew-where-1", "SI-broadcast-2", "SI-broadcast-3"],
             "where over (n, 1), (1, 2), (n, 2) int64: result (n, 2); n = 3 and 1",
             sym=("n",))
    invalid("where_invalid_cond", [("c", ann((3,), "int32")), ("x", ann((3,))), ("z", ann((3,)))],
            "y = R.where(c, x, z)", "SI-ew-where-1", ["relax.where"],
            "where needs a bool condition; int32 is rejected (SI-ew-where-1)")
    a = np.array([-2.75, -0.5, 0.0, 0.75, 2.5, 100.25], "float32")
    add_case("astype_f32_to_i32", [("x", ann((6,)))], 'y = R.astype(x, dtype="int32")',
             [ok([T_(a)], [T_(np.trunc(a).astype("int32"))])],
             ["relax.astype", "SI-ew-astype-1"],
             "astype float32 -> int32 truncates toward zero (-2.75 -> -2)")
    a = np.array([300, -129, 127, 256], "int64")
    add_case("astype_i64_to_i8", [("x", ann((4,), "int64"))], 'y = R.astype(x, dtype="int8")',
             [ok([T_(a)], [T_(wrap(a, "int8"))])], ["relax.astype", "SI-ew-astype-1"],
             "astype int64 -> int8 keeps the low 8 bits (300 -> 44, -129 -> 127)")
    a = np.array([0.0, -0.0, 2.5, np.nan, -1.0], "float32")
    add_case("astype_f32_to_bool", [("x", ann((5,)))], 'y = R.astype(x, dtype="bool")',
             [ok([T_(a)], [T_(np.array([False, False, True, True, True]))])],
             ["relax.astype", "SI-ew-astype-1"],
             "astype float32 -> bool: nonzero (NaN included) is True, +-0 is False")
    a = bdata((2, 3), 140)
    add_case("astype_bool_to_f16", [("x", ann((2, 3), "bool"))],
             'y: R.Tensor((2, 3), dtype="float16") = R.astype(x, dtype="float16")',
             [ok([T_(a)], [T_(a.astype("float16"))])], ["relax.astype", "SI-ew-astype-1"],
             "astype bool -> float16 gives 0 and 1")
    a = fdata((2, 3), 141, -8, 8)
    add_case("clip_f32", [("x", ann((2, 3)))],
             "y = R.clip(x, R.prim_value(T.float32(-1.5)), R.prim_value(T.float32(2)))",
             [ok([T_(a)], [T_(np.clip(a, -1.5, 2.0))])], ["relax.clip", "SI-ew-clip-1"],
             "clip float32 into [-1.5, 2]")
    a = idata((6,), 142, -20, 20)
    add_case("clip_i32", [("x", ann((6,), "int32"))], "y = R.clip(x, 0, 6)",
             [ok([T_(a)], [T_(np.clip(a, 0, 6))])], ["relax.clip", "SI-ew-clip-1"],
             "clip int32 into [0, 6] (relu6-style)")


# ============================================================================================
# activation (spec/ops/activation.md)
# ============================================================================================

def _softmax_ref(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax_ref(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _activation():
    A1 = ["SI-act-1"]
    A2 = ["SI-act-1", "SI-act-2"]
    a = fdata((2, 3), 200)
    add_case("relu_f32", [("x", ann((2, 3)))], "y = R.nn.relu(x)",
             [ok([T_(a)], [T_(np.maximum(a, 0))])], ["relax.nn.relu", "EXEC-act-relu-1"] + A1,
             "relu(x) = max(x, 0) in float32")
    a = idata((2, 3), 201)
    add_case("relu_i32", [("x", ann((2, 3), "int32"))], "y = R.nn.relu(x)",
             [ok([T_(a)], [T_(np.maximum(a, 0))])], ["relax.nn.relu", "EXEC-act-relu-1"] + A1,
             "relu accepts any dtype: int32 (EXEC-act-relu-1)")
    runs = []
    for k, nv in enumerate((1, 4, 0)):
        a = fdata((nv, 2), 202 + k, dtype="float16")
        runs.append(ok([T_(a)], [T_(np.maximum(a, 0))]))
    add_case("relu_symbolic_f16", [("x", ann(("n", 2), "float16"))],
             'y: R.Tensor((n, 2), dtype="float16") = R.nn.relu(x)', runs,
             ["relax.nn.relu", "EXEC-act-relu-1"] + A1,
             "relu on float16 (n, 2) at n = 1, 4 and 0 (empty)", sym=("n",))
    erf = np.vectorize(math.erf)
    a = rdata((2, 4), 205, -3, 3)
    x64 = a.astype(np.float64)
    add_case("gelu_f32", [("x", ann((2, 4)))], "y = R.nn.gelu(x)",
             [ok([T_(a)], [T_((0.5 * x64 * (1 + erf(x64 / math.sqrt(2)))).astype("float32"))])],
             ["relax.nn.gelu"] + A2, "gelu(x) = 0.5 x (1 + erf(x / sqrt 2)) in float32")
    add_case("gelu_tanh_f32", [("x", ann((2, 4)))], "y = R.nn.gelu_tanh(x)",
             [ok([T_(a)], [T_((0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * x64 *
                                                          (1 + 0.044715 * x64 * x64))))
                              .astype("float32"))])],
             ["relax.nn.gelu_tanh"] + A2,
             "gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2)))")
    add_case("silu_f32", [("x", ann((2, 4)))], "y = R.nn.silu(x)",
             [ok([T_(a)], [T_((x64 / (1 + np.exp(-x64))).astype("float32"))])],
             ["relax.nn.silu"] + A2, "silu(x) = x * sigmoid(x)")
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    add_case("selu_f32", [("x", ann((2, 4)))], "y = R.nn.selu(x)",
             [ok([T_(a)], [T_((scale * (np.maximum(x64, 0) +
                                        np.minimum(0, alpha * (np.exp(x64) - 1))))
                              .astype("float32"))])],
             ["relax.nn.selu"] + A2,
             "selu(x) = scale (max(x, 0) + min(0, alpha (exp(x) - 1)))")
    a = fdata((2, 4), 206)
    add_case("leakyrelu_f32", [("x", ann((2, 4)))], "y = R.nn.leakyrelu(x, alpha=0.125)",
             [ok([T_(a)], [T_(np.where(a > 0, a, a * np.float32(0.125)))])],
             ["relax.nn.leakyrelu"] + A2, "leakyrelu with alpha = 0.125: x if x > 0 else x alpha")
    a16 = fdata((5,), 207, dtype="float16")
    add_case("leakyrelu_f16_default", [("x", ann((5,), "float16"))], "y = R.nn.leakyrelu(x)",
             [ok([T_(a16)], [T_(np.where(a16 > 0, a16.astype(np.float64),
                                         a16.astype(np.float64) * 0.01).astype("float16"))],
                 rtol=1e-3, atol=1e-4)],
             ["relax.nn.leakyrelu"] + A2,
             "leakyrelu on float16 with the default alpha 0.01 (tolerance 1e-3: the float16 "
             "constant 0.01 is inexact)")
    a = np.array([-3.0, -0.5, 0.0, 1.0, 1.5, 2.0, 4.0], "float32")
    x64 = a.astype(np.float64)
    add_case("softplus_f32", [("x", ann((7,)))],
             "y = R.nn.softplus(x, beta=2.0, threshold=3.0)",
             [ok([T_(a)], [T_(np.where(2 * x64 > 3, x64, 0.5 * np.log(1 + np.exp(2 * x64)))
                              .astype("float32"))])],
             ["relax.nn.softplus"] + A2,
             "softplus with beta 2, threshold 3: x where beta x > threshold, else "
             "log(1 + exp(beta x)) / beta")
    # prelu
    a, al = fdata((2, 3, 2), 210), np.array([0.25, 0.5, 2.0], "float32")
    add_case("prelu_channel", [("x", ann((2, 3, 2))), ("a", ann((3,)))],
             "y = R.nn.prelu(x, a, axis=1)",
             [ok([T_(a), T_(al)], [T_(np.where(a > 0, a, a * al[None, :, None]))])],
             ["relax.nn.prelu", "EXEC-act-prelu-1", "SI-act-prelu-1", "SI-act-prelu-2"],
             "prelu with one alpha per channel on axis 1")
    a = fdata((3, 4), 211)
    al = np.array([0.5], "float32")
    add_case("prelu_single_alpha_neg_axis", [("x", ann((3, 4))), ("a", ann((1,)))],
             "y = R.nn.prelu(x, a, axis=-1)",
             [ok([T_(a), T_(al)], [T_(np.where(a > 0, a, a * 0.5))])],
             ["relax.nn.prelu", "EXEC-act-prelu-1", "SI-act-prelu-2", "SI-act-prelu-3",
              "SI-op-axis-1"],
             "prelu with a length-1 alpha applied to every channel, axis -1")
    a = fdata((2, 3), 212)
    add_case("prelu_symbolic_alpha_check", [("x", ann((2, "n"))), ("a", ann(("m",)))],
             "y = R.nn.prelu(x, a, axis=1)",
             [ok([T_(a), T_(np.array([0.25, 0.5, 1.0], "float32"))],
                 [T_(np.where(a > 0, a, a * np.array([0.25, 0.5, 1.0], "float32")))]),
              ok([T_(a), T_(np.array([0.5], "float32"))], [T_(np.where(a > 0, a, a * 0.5))]),
              trap([T_(a), T_(np.array([0.5, 0.5], "float32"))], "shape_mismatch")],
             ["relax.nn.prelu", "EXEC-act-prelu-1", "SI-act-prelu-3"],
             "prelu with alpha (m,) over n channels: undecidable statically; m = n and m = 1 "
             "run, m = 2 against n = 3 traps shape_mismatch (EXEC-act-prelu-1)", sym=("n", "m"))
    invalid("prelu_invalid_alpha_len", [("x", ann((2, 3, 4))), ("a", ann((4,)))],
            "y = R.nn.prelu(x, a, axis=1)", "SI-act-prelu-3", ["relax.nn.prelu"],
            "prelu alpha of length 4 against 3 channels is provably wrong (SI-act-prelu-3)")
    invalid("prelu_invalid_bf16", [("x", ann((2, 3), "bfloat16")), ("a", ann((3,), "bfloat16"))],
            "y = R.nn.prelu(x, a, axis=1)", "SI-act-prelu-1", ["relax.nn.prelu"],
            "prelu rejects bfloat16 data, as TVM 0.27 does (SI-act-prelu-1)")
    # softmax / log_softmax
    a = rdata((2, 5), 215, -3, 3)
    add_case("softmax_last_axis", [("x", ann((2, 5)))], "y = R.nn.softmax(x, axis=-1)",
             [ok([T_(a)], [T_(_softmax_ref(a, -1).astype("float32"))])],
             ["relax.nn.softmax", "EXEC-act-softmax-1", "SI-act-softmax-1"] + A2,
             "softmax over the last axis (axis = -1) of float32")
    a = rdata((3, 2, 2), 216, -3, 3)
    add_case("softmax_axis0", [("x", ann((3, 2, 2)))], "y = R.nn.softmax(x, axis=0)",
             [ok([T_(a)], [T_(_softmax_ref(a, 0).astype("float32"))])],
             ["relax.nn.softmax", "EXEC-act-softmax-1", "SI-act-softmax-1"],
             "softmax over axis 0 of a 3-d tensor")
    a = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1001.0]], "float32")
    add_case("softmax_large_values", [("x", ann((2, 3)))], "y = R.nn.softmax(x)",
             [ok([T_(a)], [T_(_softmax_ref(a, -1).astype("float32"))])],
             ["relax.nn.softmax", "EXEC-act-softmax-1"],
             "softmax subtracts the max first, so inputs of magnitude 1000 stay finite")
    runs = []
    for k, nv in enumerate((1, 3)):
        a = rdata((nv, 4), 217 + k, -2, 2)
        runs.append(ok([T_(a)], [T_(_softmax_ref(a, 1).astype("float32"))]))
    add_case("softmax_symbolic", [("x", ann(("n", 4)))],
             'y: R.Tensor((n, 4), dtype="float32") = R.nn.softmax(x, axis=1)', runs,
             ["relax.nn.softmax", "EXEC-act-softmax-1", "SI-act-softmax-1"],
             "softmax over axis 1 of (n, 4), n = 1 and 3", sym=("n",))
    a = fdata((2, 4), 219, -2, 2, "float16")
    add_case("softmax_f16", [("x", ann((2, 4), "float16"))], "y = R.nn.softmax(x)",
             [ok([T_(a)], [T_(_softmax_ref(a, -1).astype("float16"))], rtol=2e-3, atol=1e-3)],
             ["relax.nn.softmax", "EXEC-act-softmax-1"],
             "softmax in float16 (tolerance 2e-3: every stage rounds to float16)")
    a = rdata((2, 5), 220, -3, 3)
    add_case("log_softmax_f32", [("x", ann((2, 5)))], "y = R.nn.log_softmax(x, axis=-1)",
             [ok([T_(a)], [T_(_log_softmax_ref(a, -1).astype("float32"))])],
             ["relax.nn.log_softmax", "EXEC-act-softmax-1", "SI-act-softmax-1"],
             "log_softmax = x - max - log(sum(exp(x - max))) over the last axis")
    a = np.array([[1000.0, 1001.0], [0.0, -50.0]], "float32")
    add_case("log_softmax_large", [("x", ann((2, 2)))], "y = R.nn.log_softmax(x, axis=1)",
             [ok([T_(a)], [T_(_log_softmax_ref(a, 1).astype("float32"))])],
             ["relax.nn.log_softmax", "EXEC-act-softmax-1"],
             "log_softmax stays finite for large inputs")
    invalid("gelu_invalid_int", [("x", ann((3,), "int32"))], "y = R.nn.gelu(x)", "SI-act-2",
            ["relax.nn.gelu"], "gelu needs a float dtype (SI-act-2)")
    invalid("softmax_invalid_axis", [("x", ann((2, 3)))], "y = R.nn.softmax(x, axis=2)",
            "SI-op-axis-1", ["relax.nn.softmax", "SI-act-softmax-1"],
            "softmax axis 2 of a 2-d tensor is out of range (SI-act-softmax-1 via SI-op-axis-1)")
    invalid("softmax_invalid_int", [("x", ann((2, 3), "int32"))], "y = R.nn.softmax(x)",
            "SI-act-2", ["relax.nn.softmax", "SI-act-softmax-1"],
            "softmax of int32 is rejected (SI-act-2)")
    invalid("relu_invalid_shape_operand", [("s", "R.Shape([2, 3])")], "y = R.nn.relu(s)",
            "SI-op-tensor-1", ["relax.nn.relu"],
            "relu of a shape value: the operand must be a tensor (SI-op-tensor-1)")


# ============================================================================================
# creation (spec/ops/create.md)
# ============================================================================================

def _create():
    S = ["SI-create-shape-1", "SI-op-shape-1"]
    add_case("full_static", [("v", ann(()))], "y = R.full(R.shape([2, 3]), v)",
             [ok([T_(np.float32(2.5))], [T_(np.full((2, 3), 2.5, "float32"))])],
             ["relax.full", "EXEC-create-full-1", "SI-create-full-1", "SI-create-full-2"] + S,
             "full((2, 3), 2.5): the dtype is the fill value's")
    add_case("full_dtype_cast", [("v", ann(()))], 'y = R.full(R.shape([2]), v, dtype="int32")',
             [ok([T_(np.float32(-2.75))], [T_(np.array([-2, -2], "int32"))])],
             ["relax.full", "EXEC-create-full-1", "SI-create-full-2"],
             "full with dtype int32 casts the float32 fill -2.75 toward zero: -2")
    runs = []
    for nv in (2, 0):
        runs.append(ok([T_(np.zeros((nv,), "float32")), T_(np.int64(7))],
                       [T_(np.full((nv, 3), 7, "int64"))]))
    add_case("full_symbolic", [("x", ann(("n",))), ("v", ann((), "int64"))],
             'y: R.Tensor((n, 3), dtype="int64") = R.full(R.shape([n, 3]), v)', runs,
             ["relax.full", "EXEC-create-full-1", "SI-create-full-2"] + S,
             "full(R.shape([n, 3]), 7) with n from a parameter; n = 2 and 0 (empty)",
             sym=("n",))
    invalid("full_invalid_fill_1d", [("v", ann((2,)))], "y = R.full(R.shape([2]), v)",
            "SI-create-full-1", ["relax.full"],
            "the fill value of full must be 0-d (SI-create-full-1)")
    invalid("full_invalid_negative_dim", [("v", ann(()))], "y = R.full(R.shape([2, -1]), v)",
            "SI-create-shape-1", ["relax.full"],
            "a constant negative dimension in the shape is an error (SI-create-shape-1)")
    a = fdata((2, 3), 230)
    add_case("full_like_f32", [("x", ann((2, 3))), ("v", ann(()))], "y = R.full_like(x, v)",
             [ok([T_(a), T_(np.float32(-1.25))], [T_(np.full((2, 3), -1.25, "float32"))])],
             ["relax.full_like", "EXEC-create-full-1", "SI-create-full_like-1"],
             "full_like takes x's shape and dtype")
    a = idata((3,), 231)
    add_case("full_like_dtype", [("x", ann((3,), "int32")), ("v", ann(()))],
             'y = R.full_like(x, v, dtype="float16")',
             [ok([T_(a), T_(np.float32(0.5))], [T_(np.full((3,), 0.5, "float16"))])],
             ["relax.full_like", "EXEC-create-full-1", "SI-create-full_like-1"],
             "full_like with dtype float16 over an int32 x")
    add_case("ones_f32", [], 'y = R.ones(R.shape([2, 3]), dtype="float32")',
             [ok([], [T_(np.ones((2, 3), "float32"))])], ["relax.ones", "SI-create-ones-1"] + S,
             "ones((2, 3), float32)")
    runs = [ok([T_(np.zeros((nv, 2), "float32"))], [T_(np.ones((nv,), bool))]) for nv in (3, 1)]
    add_case("ones_bool_symbolic", [("x", ann(("n", 2)))],
             'y: R.Tensor((n,), dtype="bool") = R.ones(R.shape([n]), dtype="bool")', runs,
             ["relax.ones", "SI-create-ones-1"] + S, "ones((n,), bool), n = 3 and 1", sym=("n",))
    a = idata((2, 2), 232)
    add_case("ones_like_i32", [("x", ann((2, 2), "int32"))], "y = R.ones_like(x)",
             [ok([T_(a)], [T_(np.ones((2, 2), "int32"))])],
             ["relax.ones_like", "SI-create-full_like-1"], "ones_like of an int32 tensor")
    add_case("zeros_i64", [], 'y = R.zeros(R.shape([3]), dtype="int64")',
             [ok([], [T_(np.zeros((3,), "int64"))])], ["relax.zeros", "SI-create-ones-1"] + S,
             "zeros((3,), int64)")
    add_case("zeros_empty", [], 'y = R.zeros(R.shape([0, 4]), dtype="float32")',
             [ok([], [T_(np.zeros((0, 4), "float32"))])], ["relax.zeros", "SI-create-ones-1"] + S,
             "zeros((0, 4)): an empty tensor")
    a = fdata((2, 3), 233)
    add_case("zeros_like_dtype", [("x", ann((2, 3)))], 'y = R.zeros_like(x, dtype="int8")',
             [ok([T_(a)], [T_(np.zeros((2, 3), "int8"))])],
             ["relax.zeros_like", "SI-create-full_like-1"], "zeros_like with dtype int8")
    invalid("ones_invalid_no_dtype", [], "y = R.ones(R.shape([2]))", "SI-call-1",
            ["relax.ones", "SI-create-ones-1"],
            "ones without its required dtype attribute (SI-create-ones-1, reported by SI-call-1)")
    invalid("zeros_invalid_tensor_shape", [("x", ann((2,), "int64"))],
            'y = R.zeros(x, dtype="float32")', "SI-op-shape-1", ["relax.zeros"],
            "the shape operand of zeros must be a shape, not a tensor (SI-op-shape-1)")
    # eye
    add_case("eye_static", [], 'y = R.eye(3, 4, 1, dtype="float32")',
             [ok([], [T_(np.eye(3, 4, 1, dtype="float32"))])],
             ["relax.eye", "EXEC-create-eye-1", "SI-create-eye-1"],
             "eye(3, 4, k = 1): ones where column - row == 1")
    add_case("eye_prims", [("n", prim_ann()), ("m", prim_ann()), ("k", prim_ann())],
             'y = R.eye(n, m, k, dtype="int32")',
             [ok([prim(3), prim(2), prim(-1)], [T_(np.eye(3, 2, -1, dtype="int32"))]),
              ok([prim(2), prim(2), prim(0)], [T_(np.eye(2, 2, 0, dtype="int32"))]),
              ok([prim(0), prim(2), prim(0)], [T_(np.zeros((0, 2), "int32"))]),
              trap([prim(-1), prim(2), prim(0)], "invalid_value")],
             ["relax.eye", "EXEC-create-eye-1", "SI-create-eye-1", "SI-op-prim-1"],
             "eye with n, m and k from R.Prim arguments: (3, 2, -1), (2, 2, 0), an empty "
             "(0, 2); n = -1 traps invalid_value (EXEC-create-eye-1)")
    a = fdata((2, 3), 234)
    add_case("eye_like", [("x", ann((2, 3)))], "y = R.eye_like(x, 1)",
             [ok([T_(a)], [T_(np.eye(2, 3, 1, dtype="float32"))])],
             ["relax.eye_like", "EXEC-create-eye-1", "SI-create-eye-2"],
             "eye_like takes x's (2, 3) shape and dtype, k = 1")
    invalid("eye_invalid_negative", [], 'y = R.eye(-2, 3, 0, dtype="float32")', "SI-create-eye-1",
            ["relax.eye"], "eye with a constant negative n (SI-create-eye-1)")
    invalid("eye_like_invalid_3d", [("x", ann((2, 3, 4)))], "y = R.eye_like(x, 0)",
            "SI-create-eye-2", ["relax.eye_like"], "eye_like needs a 2-d x (SI-create-eye-2)")
    # arange
    add_case("arange_int", [], "y = R.arange(2, 11, 3)",
             [ok([], [T_(np.arange(2, 11, 3, dtype="int64"))])],
             ["relax.arange", "EXEC-create-arange-1", "SI-create-arange-1", "SI-create-arange-2"],
             "arange(2, 11, 3) of integers is int64: [2, 5, 8]")
    add_case("arange_float", [], 'y = R.arange(T.float32(0.5), T.float32(3), T.float32(0.5), '
             'dtype="float32")',
             [ok([], [T_(np.arange(0.5, 3, 0.5, dtype="float32"))])],
             ["relax.arange", "EXEC-create-arange-1", "SI-create-arange-1", "SI-create-arange-2"],
             "arange(0.5, 3, 0.5) in float32: 5 elements")
    add_case("arange_negative_step", [], 'y = R.arange(10, 0, -3, dtype="int32")',
             [ok([], [T_(np.array([10, 7, 4, 1], "int32"))])],
             ["relax.arange", "EXEC-create-arange-1", "SI-create-arange-2"],
             "arange(10, 0, -3) = [10, 7, 4, 1] (a negative step counts down)")
    add_case("arange_empty", [], 'y = R.arange(5, 0, 1, dtype="int64")',
             [ok([], [T_(np.zeros((0,), "int64"))])],
             ["relax.arange", "EXEC-create-arange-1", "SI-create-arange-2"],
             "arange(5, 0, 1) is empty")
    runs = [ok([T_(np.zeros((nv,), "float32"))], [T_(np.arange(0, nv, 3, dtype="int64"))])
            for nv in (7, 3, 0)]
    add_case("arange_symbolic", [("x", ann(("n",)))],
             'y: R.Tensor(((n + 2) // 3,), dtype="int64") = R.arange(0, n, 3, dtype="int64")',
             runs, ["relax.arange", "EXEC-create-arange-1", "SI-create-arange-3"],
             "arange(0, n, 3) has (n + 2) // 3 elements; n = 7, 3 and 0", sym=("n",))
    add_case("arange_prim_step", [("s", prim_ann())], 'y = R.arange(0, 6, s, dtype="int64")',
             [ok([prim(2)], [T_(np.array([0, 2, 4], "int64"))]),
              ok([prim(-1)], [T_(np.zeros((0,), "int64"))]),
              trap([prim(0)], "invalid_value")],
             ["relax.arange", "EXEC-create-arange-1"],
             "arange(0, 6, s) with a run-time step: s = 2, s = -1 (empty); s = 0 traps "
             "invalid_value (EXEC-create-arange-1)")
    add_case("arange_end_only", [], "y = R.arange(5)",
             [ok([], [T_(np.arange(5, dtype="int64"))])],
             ["relax.arange", "SI-call-3", "EXEC-create-arange-1", "SI-create-arange-1"],
             "R.arange(5) binds as R.arange(0, 5, 1), as TVM's Python wrapper does (SI-call-3)")
    add_case("eye_square_default_m", [], 'y: R.Tensor((3, 3), dtype="float32") = R.eye(3, k=1)',
             [ok([], [T_(np.eye(3, 3, 1, dtype="float32"))])],
             ["relax.eye", "SI-call-3", "EXEC-create-eye-1", "SI-create-eye-1"],
             "R.eye(3, k=1) binds m to n: a 3 x 3 matrix (SI-call-3)")
    invalid("arange_invalid_zero_step", [], "y = R.arange(0, 4, 0)", "SI-create-arange-2",
            ["relax.arange"], "arange with a constant zero step (SI-create-arange-2)")
    # tril / triu
    a = fdata((3, 4), 240)
    add_case("tril_k0", [("x", ann((3, 4)))], "y = R.tril(x)",
             [ok([T_(a)], [T_(np.tril(a))])],
             ["relax.tril", "EXEC-create-trilu-1", "SI-create-trilu-1"],
             "tril(x): keeps column - row <= 0")
    a = idata((2, 3, 3), 241)
    add_case("triu_batched_k", [("x", ann((2, 3, 3), "int32"))], "y = R.triu(x, 1)",
             [ok([T_(a)], [T_(np.triu(a, 1))])],
             ["relax.triu", "EXEC-create-trilu-1", "SI-create-trilu-1"],
             "triu(x, 1) over the last two axes of a (2, 3, 3) int32 tensor")
    a = fdata((3, 4), 242)
    add_case("tril_prim_k", [("x", ann((3, 4))), ("k", prim_ann())], "y = R.tril(x, k)",
             [ok([T_(a), prim(-1)], [T_(np.tril(a, -1))]), ok([T_(a), prim(2)], [T_(np.tril(a, 2))]),
              ok([T_(a), prim(-5)], [T_(np.tril(a, -5))])],
             ["relax.tril", "EXEC-create-trilu-1", "SI-create-trilu-1", "SI-op-prim-1"],
             "tril with a run-time k: -1, 2, and -5 (all zeros)")
    runs = [ok([T_(fdata((nv, 2), 243 + nv))], [T_(np.triu(fdata((nv, 2), 243 + nv), -1))])
            for nv in (1, 4)]
    add_case("triu_symbolic", [("x", ann(("n", 2)))],
             'y: R.Tensor((n, 2), dtype="float32") = R.triu(x, -1)', runs,
             ["relax.triu", "EXEC-create-trilu-1", "SI-create-trilu-1"],
             "triu(x, -1) on (n, 2), n = 1 and 4", sym=("n",))
    invalid("tril_invalid_1d", [("x", ann((4,)))], "y = R.tril(x)", "SI-create-trilu-1",
            ["relax.tril"], "tril needs at least 2 dimensions (SI-create-trilu-1)")
    invalid("triu_invalid_k_tensor", [("x", ann((3, 3))), ("k", ann((), "int64"))],
            "y = R.triu(x, k)", "SI-op-prim-1", ["relax.triu"],
            "triu's k must be an R.Prim, not a tensor (SI-op-prim-1)")
    add_case("tril_unknown_ndim_trap", [("x", ann(None))], "y = R.tril(x)",
             [ok([T_(fdata((2, 2), 250))], [T_(np.tril(fdata((2, 2), 250)))]),
              trap([T_(fdata((3,), 251))], "shape_mismatch")],
             ["relax.tril", "EXEC-create-trilu-1"],
             "tril of a tensor of unknown ndim: a 2-d argument works, a 1-d one traps "
             "shape_mismatch at run time (EXEC-create-trilu-1)")


# ============================================================================================
# indexing (spec/ops/indexing.md)
# ============================================================================================

def _indexing():
    TK = ["relax.take", "EXEC-index-take-1", "SI-index-take-1", "SI-index-take-2"]
    a = fdata((4, 3), 300)
    i = np.array([3, 0, 0, 2], "int64")
    add_case("take_axis0_i64", [("x", ann((4, 3))), ("i", ann((4,), "int64"))],
             'y: R.Tensor((4, 3), dtype="float32") = R.take(x, i, axis=0)',
             [ok([T_(a), T_(i)], [T_(np.take(a, i, axis=0))])], TK + ["SI-index-take-3"],
             "take rows [3, 0, 0, 2] of a (4, 3) tensor with int64 indices")
    i = np.array([[2, 0], [1, 1], [0, 2]], "int32")
    add_case("take_axis1_2d_indices_i32", [("x", ann((4, 3))), ("i", ann((3, 2), "int32"))],
             'y: R.Tensor((4, 3, 2), dtype="float32") = R.take(x, i, axis=1)',
             [ok([T_(a), T_(i)], [T_(np.take(a, i, axis=1))])], TK + ["SI-index-take-3"],
             "take along axis 1 with a (3, 2) int32 index tensor: result (4, 3, 2)")
    a3 = idata((2, 3, 4), 301)
    i = np.array([3, 1], "int64")
    add_case("take_negative_axis", [("x", ann((2, 3, 4), "int32")), ("i", ann((2,), "int64"))],
             "y = R.take(x, i, axis=-1)",
             [ok([T_(a3), T_(i)], [T_(np.take(a3, i, axis=-1))])],
             TK + ["SI-index-take-3", "SI-op-axis-1"], "take along axis -1 of an int32 tensor")
    v = fdata((5,), 302)
    i = np.array([4, 4, 0], "int64")
    add_case("take_axis_none_1d", [("x", ann((5,))), ("i", ann((3,), "int64"))],
             "y = R.take(x, i)", [ok([T_(v), T_(i)], [T_(v[i])])], TK + ["SI-index-take-3"],
             "take with axis=None from a 1-d tensor")
    add_case("take_prim_index", [("x", ann((4, 3)))], "y = R.take(x, R.prim_value(1), axis=1)",
             [ok([T_(a)], [T_(a[:, 1])])], TK,
             "take with an R.Prim index drops the axis: (4, 3) -> (4,)")
    add_case("take_empty_indices", [("x", ann((4, 3))), ("i", ann((0,), "int64"))],
             "y = R.take(x, i, axis=0)",
             [ok([T_(a), T_(np.zeros((0,), "int64"))], [T_(np.zeros((0, 3), "float32"))])], TK,
             "take with an empty index tensor gives (0, 3)")
    b = bdata((3, 2), 303)
    i = np.array([2, 0], "int64")
    add_case("take_bool_data", [("x", ann((3, 2), "bool")), ("i", ann((2,), "int64"))],
             "y = R.take(x, i, axis=0)", [ok([T_(b), T_(i)], [T_(b[i])])], TK,
             "take from a bool tensor")
    runs = []
    for k, (nv, mv) in enumerate(((3, 2), (5, 4))):
        x = fdata((nv, 3), 304 + k)
        idx = np.random.default_rng(306 + k).integers(0, nv, size=(mv,)).astype("int64")
        runs.append(ok([T_(x), T_(idx)], [T_(x[idx])]))
    runs.append(trap([T_(fdata((3, 3), 308)), T_(np.array([0, 3], "int64"))],
                     "index_out_of_bounds"))
    runs.append(trap([T_(fdata((3, 3), 309)), T_(np.array([-1], "int64"))],
                     "index_out_of_bounds"))
    add_case("take_symbolic_fast_oob", [("x", ann(("n", 3))), ("i", ann(("m",), "int64"))],
             'y: R.Tensor((m, 3), dtype="float32") = R.take(x, i, axis=0)', runs,
             TK + ["SI-index-take-3"],
             "take from (n, 3) with (m,) indices in mode fast: (n, m) = (3, 2) and (5, 4); an "
             "index 3 on a length-3 axis, and a negative index, trap index_out_of_bounds",
             sym=("n", "m"))
    v = fdata((4,), 310)
    i = np.array([-3, 0, 3, 9], "int64")
    add_case("take_clip", [("x", ann((4,))), ("i", ann((4,), "int64"))],
             'y = R.take(x, i, axis=0, mode="clip")',
             [ok([T_(v), T_(i)], [T_(v[np.clip(i, 0, 3)])])], TK,
             "take mode clip clamps indices into [0, n - 1]")
    add_case("take_wrap", [("x", ann((4,))), ("i", ann((4,), "int64"))],
             'y = R.take(x, i, axis=0, mode="wrap")',
             [ok([T_(v), T_(i)], [T_(v[np.mod(i, 4)])])], TK,
             "take mode wrap uses Python's modulo: -3 -> 1, 9 -> 1")
    want = np.array([np.nan, v[0], v[3], np.nan], "float32")
    add_case("take_nan_mode", [("x", ann((4,))), ("i", ann((4,), "int64"))],
             'y = R.take(x, i, axis=0, mode="nan")',
             [ok([T_(v), T_(i)], [T_(want)])], TK + ["SI-index-take-4"],
             "take mode nan gives NaN for indices outside [0, n)")
    invalid("take_invalid_float_indices", [("x", ann((4,))), ("i", ann((2,)))],
            "y = R.take(x, i, axis=0)", "SI-index-take-2", ["relax.take"],
            "take with float32 indices (SI-index-take-2)")
    invalid("take_invalid_axis_none_2d", [("x", ann((4, 3))), ("i", ann((2,), "int64"))],
            "y = R.take(x, i)", "SI-index-take-3", ["relax.take"],
            "take with axis=None needs a 1-d x (SI-index-take-3)")
    invalid("take_invalid_nan_int", [("x", ann((4,), "int32")), ("i", ann((2,), "int64"))],
            'y = R.take(x, i, axis=0, mode="nan")', "SI-index-take-4", ["relax.take"],
            "take mode nan on an int32 x (SI-index-take-4)")
    invalid("take_invalid_axis_range", [("x", ann((4, 3))), ("i", ann((2,), "int64"))],
            "y = R.take(x, i, axis=2)", "SI-op-axis-1", ["relax.take", "SI-index-take-3"],
            "take axis 2 of a 2-d tensor (SI-index-take-3 via SI-op-axis-1)")

    # strided_slice
    SS = ["relax.strided_slice", "EXEC-index-slice-1", "SI-index-slice-1", "SI-index-slice-2",
          "SI-index-slice-5"]
    a = fdata((4, 10), 320)
    add_case("strided_slice_basic", [("x", ann((4, 10)))],
             'y: R.Tensor((4, 3), dtype="float32") = R.strided_slice(x, (1,), (2,), (8,), (2,))',
             [ok([T_(a)], [T_(a[:, 2:8:2])])], SS + ["SI-index-slice-3"],
             "strided_slice axis 1, 2:8:2 -> length 3")
    add_case("strided_slice_negative_stride", [("x", ann((4, 10)))],
             "y = R.strided_slice(x, (1,), (9,), (-11,), (-1,))",
             [ok([T_(a)], [T_(a[:, 9::-1])])], SS,
             "strided_slice 9:-11:-1 reverses the axis (end clamps to before the start)")
    add_case("strided_slice_negative_begin", [("x", ann((4, 10)))],
             "y = R.strided_slice(x, (0, 1), (-3, -4), (4, 100), (1, 1))",
             [ok([T_(a)], [T_(a[-3:4, -4:100])])], SS + ["SI-index-slice-3"],
             "strided_slice over two axes with negative begins (count from the end) and an "
             "end beyond the dimension (clamped)")
    add_case("strided_slice_default_strides", [("x", ann((4, 10)))],
             "y = R.strided_slice(x, (0,), (1,), (3,))",
             [ok([T_(a)], [T_(a[1:3])])], SS, "strided_slice without strides (all 1)")
    v = fdata((10,), 321)
    add_case("strided_slice_empty", [("x", ann((10,)))],
             'y: R.Tensor((0,), dtype="float32") = R.strided_slice(x, (0,), (5,), (2,))',
             [ok([T_(v)], [T_(v[5:2])])], SS,
             "strided_slice 5:2 with stride 1 is empty (Python slicing), not negative")
    runs = []
    for k, nv in enumerate((4, 1, 7)):
        x = fdata((nv, 3), 322 + k)
        runs.append(ok([T_(x)], [T_(x[1:nv])]))
    add_case("strided_slice_symbolic", [("x", ann(("n", 3)))],
             "y = R.strided_slice(x, (0,), (1,), (n,), (1,))", runs, SS,
             "strided_slice 1:n of (n, 3): length max(n - 1, 0); n = 4, 1 (empty) and 7",
             sym=("n",))
    runs = []
    for k, nv in enumerate((5, 3)):
        x = fdata((nv, 2), 325 + k)
        runs.append(ok([T_(x)], [T_(x[1:nv - 1])]))
    add_case("strided_slice_assume_inbound", [("x", ann(("n", 2)))],
             'y: R.Tensor((n - 2, 2), dtype="float32") = R.strided_slice(x, (0,), (1,), '
             '(n - 1,), assume_inbound=True)', runs,
             ["relax.strided_slice", "EXEC-index-slice-1", "SI-index-slice-6"],
             "strided_slice 1:n-1 with assume_inbound=True has length n - 2; n = 5 and 3",
             sym=("n",))
    add_case("strided_slice_assume_inbound_trap", [("x", ann(("n",))), ("b", prim_ann())],
             "y = R.strided_slice(x, (0,), (b,), (4,), assume_inbound=True)",
             [ok([T_(v[:6]), prim(1)], [T_(v[1:4])]),
              trap([T_(v[:3]), prim(1)], "index_out_of_bounds"),
              trap([T_(v[:6]), prim(-1)], "index_out_of_bounds")],
             ["relax.strided_slice", "EXEC-index-slice-1", "SI-index-slice-6"],
             "strided_slice b:4 with assume_inbound=True reads the indices as given: on n = 6 "
             "it reads 1..3; on n = 3 index 3 is out of range, and b = -1 reads index -1: both "
             "trap index_out_of_bounds", sym=("n",))
    invalid("strided_slice_invalid_zero_stride", [("x", ann((10,)))],
            "y = R.strided_slice(x, (0,), (0,), (5,), (0,))", "SI-index-slice-4",
            ["relax.strided_slice"], "strided_slice with a zero stride (SI-index-slice-4)")
    invalid("strided_slice_invalid_repeated_axis", [("x", ann((4, 10)))],
            "y = R.strided_slice(x, (1, 1), (0, 0), (2, 2))", "SI-op-axis-2",
            ["relax.strided_slice", "SI-index-slice-3"],
            "strided_slice naming axis 1 twice (SI-index-slice-3 via SI-op-axis-2)")
    invalid("strided_slice_invalid_lengths", [("x", ann((4, 10)))],
            "y = R.strided_slice(x, (0, 1), (0,), (2, 2))", "SI-index-slice-3",
            ["relax.strided_slice"], "strided_slice with tuples of different lengths "
            "(SI-index-slice-3)")
    invalid("strided_slice_invalid_inbound_oob", [("x", ann((4,)))],
            "y = R.strided_slice(x, (0,), (1,), (6,), assume_inbound=True)", "SI-index-slice-6",
            ["relax.strided_slice"],
            "assume_inbound=True with a constant end 6 on a length-4 axis reads out of range "
            "(SI-index-slice-6)")
    # dynamic_strided_slice
    DS = ["relax.dynamic_strided_slice", "EXEC-index-dslice-1", "SI-index-dslice-1",
          "SI-index-dslice-2"]
    a = fdata((4, 5), 330)
    i64 = lambda *v: T_(np.array(v, "int64"))  # noqa: E731
    add_case("dynamic_strided_slice_basic",
             [("x", ann((4, 5))), ("b", ann(None, "int64", 1)), ("e", ann(None, "int64", 1)),
              ("s", ann(None, "int64", 1))],
             "y = R.dynamic_strided_slice(x, b, e, s)",
             [ok([T_(a), i64(1, 0), i64(4, 5), i64(2, 2)], [T_(a[1:4:2, 0:5:2])]),
              ok([T_(a), i64(-1, 4), i64(-5, -6), i64(-1, -2)], [T_(a[-1:-5:-1, 4:-6:-2])]),
              ok([T_(a), i64(0, 3), i64(10, 1), i64(1, 1)], [T_(a[0:10, 3:1])]),
              trap([T_(a), i64(0, 0), i64(4, 5), i64(1, 0)], "invalid_value"),
              trap([T_(a), i64(0), i64(4), i64(1)], "shape_mismatch")],
             DS, "dynamic_strided_slice with run-time bounds, Python slice semantics: "
             "[1:4:2, 0:5:2], negative begins and strides, an empty slice; a zero stride traps "
             "invalid_value, bounds of the wrong length shape_mismatch (EXEC-index-dslice-1)")
    add_case("dynamic_strided_slice_static_bounds",
             [("x", ann((4, 5))), ("b", ann((2,), "int64")), ("e", ann((2,), "int64")),
              ("s", ann((2,), "int64"))],
             "y = R.dynamic_strided_slice(x, b, e, s)",
             [ok([T_(a), i64(1, 0), i64(4, 5), i64(2, 2)], [T_(a[1:4:2, 0:5:2])]),
              ok([T_(a), i64(0, 1), i64(3, 4), i64(1, 1)], [T_(a[0:3, 1:4])]),
              ok([T_(a), i64(3, 4), i64(0, 1), i64(-1, -2)], [T_(a[3:0:-1, 4:1:-2])])],
             DS, "dynamic_strided_slice with bounds of static length 2: [1:4:2, 0:5:2], "
             "[0:3, 1:4] and the negative strides [3:0:-1, 4:1:-2]")
    invalid("dynamic_strided_slice_invalid_dtype",
            [("x", ann((4, 5))), ("b", ann((2,))), ("e", ann((2,), "int64")),
             ("s", ann((2,), "int64"))],
            "y = R.dynamic_strided_slice(x, b, e, s)", "SI-index-dslice-1",
            ["relax.dynamic_strided_slice"],
            "dynamic_strided_slice bounds must be int64 (SI-index-dslice-1)")


# ============================================================================================
# linear algebra (spec/ops/linalg.md)
# ============================================================================================

def _mm_int(a, b, dtype):
    """matmul of integer-valued arrays: exact in int64, wrapped to dtype."""
    return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(dtype)


def _linalg():
    MM = ["relax.matmul", "EXEC-linalg-matmul-3", "SI-linalg-matmul-1", "SI-linalg-matmul-3",
          "SI-linalg-matmul-4"]
    a, b = fdata((3, 4), 400, -3, 3, step=1.0), fdata((4, 5), 401, -3, 3, step=1.0)
    add_case("matmul_2d_static", [("x", ann((3, 4))), ("w", ann((4, 5)))],
             'y: R.Tensor((3, 5), dtype="float32") = R.matmul(x, w)',
             [ok([T_(a), T_(b)], [T_(a @ b)])], MM,
             "matmul (3, 4) @ (4, 5) of small integers in float32 (exact)")
    a, b = rdata((4, 8), 402), rdata((8, 3), 403)
    add_case("matmul_random_f32", [("x", ann((4, 8))), ("w", ann((8, 3)))], "y = R.matmul(x, w)",
             [ok([T_(a), T_(b)], [T_((a.astype(np.float64) @ b).astype("float32"))],
                 rtol=1e-4, atol=1e-5)], MM,
             "matmul of random float32 (tolerance 1e-4/1e-5: float32 accumulation of 8 "
             "products against a float64 formula)")
    a, b = fdata((4,), 404, step=1.0), fdata((4, 3), 405, step=1.0)
    add_case("matmul_1d_2d", [("x", ann((4,))), ("w", ann((4, 3)))],
             'y: R.Tensor((3,), dtype="float32") = R.matmul(x, w)',
             [ok([T_(a), T_(b)], [T_(a @ b)])], MM + ["SI-linalg-matmul-3"],
             "matmul of a 1-d x1 (a row) and a matrix: result (3,)")
    a, b = fdata((2, 4), 406, step=1.0), fdata((4,), 407, step=1.0)
    add_case("matmul_2d_1d", [("x", ann((2, 4))), ("w", ann((4,)))],
             'y: R.Tensor((2,), dtype="float32") = R.matmul(x, w)',
             [ok([T_(a), T_(b)], [T_(a @ b)])], MM, "matmul of a matrix and a 1-d x2 (a column)")
    a, b = fdata((4,), 408, step=1.0), fdata((4,), 409, step=1.0)
    add_case("matmul_1d_1d", [("x", ann((4,))), ("w", ann((4,)))],
             'y: R.Tensor((), dtype="float32") = R.matmul(x, w)',
             [ok([T_(a), T_(b)], [T_(np.asarray(a @ b, "float32"))])], MM,
             "matmul of two 1-d tensors is a 0-d dot product")
    a, b = fdata((2, 1, 3, 4), 410, step=1.0), fdata((5, 4, 2), 411, step=1.0)
    add_case("matmul_batch_broadcast", [("x", ann((2, 1, 3, 4))), ("w", ann((5, 4, 2)))],
             'y: R.Tensor((2, 5, 3, 2), dtype="float32") = R.matmul(x, w)',
             [ok([T_(a), T_(b)], [T_(a @ b)])], MM + ["SI-broadcast-2", "EXEC-broadcast-1"],
             "batched matmul (2, 1, 3, 4) @ (5, 4, 2): batch dims broadcast to (2, 5)")
    runs = []
    for k, (nv, kv, mv) in enumerate(((2, 3, 4), (1, 5, 2), (3, 0, 2))):
        x, w = fdata((nv, kv), 412 + k, step=1.0), fdata((kv, mv), 415 + k, step=1.0)
        runs.append(ok([T_(x), T_(w)], [T_((x @ w).astype("float32"))]))
    add_case("matmul_symbolic", [("x", ann(("n", "k"))), ("w", ann(("k", "m")))],
             'y: R.Tensor((n, m), dtype="float32") = R.matmul(x, w)', runs, MM,
             "matmul (n, k) @ (k, m) at (2, 3, 4), (1, 5, 2) and k = 0 (an empty reduction "
             "gives zeros)", sym=("n", "k", "m"))
    a = fdata((2, 3), 418, step=1.0)
    add_case("matmul_symbolic_reduction_check", [("x", ann((2, "k"))), ("w", ann(("j", 2)))],
             "y = R.matmul(x, w)",
             [ok([T_(a), T_(fdata((3, 2), 419, step=1.0))],
                 [T_(a @ fdata((3, 2), 419, step=1.0))]),
              trap([T_(a), T_(fdata((4, 2), 420))], "shape_mismatch")],
             ["relax.matmul", "EXEC-linalg-matmul-2", "SI-linalg-matmul-4"],
             "matmul (2, k) @ (j, 2): k = j is checked at run time; k = 3, j = 4 traps "
             "shape_mismatch (EXEC-linalg-matmul-2)", sym=("k", "j"))
    add_case("matmul_symbolic_batch_check", [("x", ann(("b", 2, 2))), ("w", ann(("c", 2, 2)))],
             "y = R.matmul(x, w)",
             [ok([T_(fdata((3, 2, 2), 421)), T_(fdata((1, 2, 2), 422))],
                 [T_(fdata((3, 2, 2), 421) @ fdata((1, 2, 2), 422))]),
              trap([T_(fdata((3, 2, 2), 423)), T_(fdata((2, 2, 2), 424))], "shape_mismatch")],
             ["relax.matmul", "EXEC-broadcast-1", "SI-linalg-matmul-3"],
             "batched matmul with batch dims b and c: b = 3, c = 1 broadcasts; b = 3, c = 2 "
             "traps shape_mismatch (EXEC-broadcast-1)", sym=("b", "c"))
    a = np.array([[100, 100], [-100, 50], [1, 2]], "int8")
    b = np.array([[100, 1], [100, -1]], "int8")
    add_case("matmul_i8_wrap", [("x", ann((3, 2), "int8")), ("w", ann((2, 2), "int8"))],
             "y = R.matmul(x, w)", [ok([T_(a), T_(b)], [T_(_mm_int(a, b, "int8"))])],
             MM, "int8 matmul accumulates in int8 and wraps: 100*100 + 100*100 = 20000 -> 32")
    add_case("matmul_i8_out_i32", [("x", ann((3, 2), "int8")), ("w", ann((2, 2), "int8"))],
             'y: R.Tensor((3, 2), dtype="int32") = R.matmul(x, w, out_dtype="int32")',
             [ok([T_(a), T_(b)], [T_(_mm_int(a, b, "int32"))])], MM,
             "int8 matmul with out_dtype int32 converts first: 20000")
    a, b = fdata((2, 3), 425, -2, 2, "float16", 0.5), fdata((3, 2), 426, -2, 2, "float16", 0.5)
    add_case("matmul_f16", [("x", ann((2, 3), "float16")), ("w", ann((3, 2), "float16"))],
             "y = R.matmul(x, w)",
             [ok([T_(a), T_(b)], [T_((a.astype(np.float64) @ b).astype("float16"))])], MM,
             "float16 matmul of halves (every partial sum exact in float16)")
    a, b = idata((2, 3), 427, dtype="int64"), idata((3,), 428, dtype="int64")
    add_case("matmul_i64", [("x", ann((2, 3), "int64")), ("w", ann((3,), "int64"))],
             "y = R.matmul(x, w)", [ok([T_(a), T_(b)], [T_(a @ b)])], MM, "int64 matmul-vector")
    invalid("matmul_invalid_0d", [("x", ann(())), ("w", ann((3,)))], "y = R.matmul(x, w)",
            "SI-linalg-matmul-2", ["relax.matmul"], "matmul of a 0-d operand (SI-linalg-matmul-2)")
    invalid("matmul_invalid_reduction", [("x", ann((3, "n"))), ("w", ann(("n + 1", 6)))],
            "y = R.matmul(x, w)", "SI-linalg-matmul-4", ["relax.matmul"],
            "matmul (3, n) @ (n + 1, 6): the reduction lengths are provably different "
            "(SI-linalg-matmul-4)", sym=("n",))
    invalid("matmul_invalid_dtype", [("x", ann((3, 4))), ("w", ann((4, 2), "float16"))],
            "y = R.matmul(x, w)", "SI-op-dtype-1", ["relax.matmul", "SI-linalg-matmul-1"],
            "matmul of float32 and float16 without out_dtype (SI-linalg-matmul-1, "
            "SI-op-dtype-1)")
    invalid("matmul_invalid_batch", [("x", ann((2, 3, 4))), ("w", ann((3, 4, 5)))],
            "y = R.matmul(x, w)", "SI-broadcast-1", ["relax.matmul", "SI-linalg-matmul-3"],
            "matmul batch dims 2 and 3 cannot broadcast (SI-broadcast-1)")
    add_case("matmul_unknown_dtype_trap", [("x", ann(None, "float32")), ("w", ann(None, "int32"))],
             "y = R.matmul(x, w, out_dtype=\"float32\")",
             [ok([T_(fdata((2, 2), 429, step=1.0)), T_(idata((2,), 430))],
                 [T_(fdata((2, 2), 429, step=1.0) @ idata((2,), 430).astype("float32"))]),
              trap([T_(fdata((2,), 431)), T_(idata((), 432))], "shape_mismatch")],
             ["relax.matmul", "EXEC-linalg-matmul-2", "EXEC-linalg-matmul-3",
              "SI-linalg-matmul-1"],
             "matmul with out_dtype float32 of float32 and int32 operands of unknown ndim: both "
             "are converted to float32; a 0-d operand traps shape_mismatch at run time "
             "(EXEC-linalg-matmul-2)")
    add_case("matmul_dtype_trap", [("x", "R.Tensor(ndim=2)"), ("w", ann((2, 2)))],
             "y = R.matmul(x, w)",
             [ok([T_(fdata((2, 2), 433)), T_(fdata((2, 2), 434))],
                 [T_(fdata((2, 2), 433) @ fdata((2, 2), 434))]),
              trap([T_(idata((2, 2), 435)), T_(fdata((2, 2), 436))], "invalid_value")],
             ["relax.matmul", "EXEC-linalg-matmul-1", "SI-op-dtype-1"],
             "matmul with an operand of unknown dtype and no out_dtype: equal dtypes run; an "
             "int32 operand against float32 traps invalid_value (EXEC-linalg-matmul-1)")

    # einsum
    EI = ["relax.einsum", "EXEC-linalg-einsum-1", "SI-linalg-einsum-1", "SI-linalg-einsum-2",
          "SI-linalg-einsum-3", "SI-linalg-einsum-4"]
    a, b = fdata((3, 4), 440, step=1.0), fdata((4, 5), 441, step=1.0)
    add_case("einsum_matmul", [("a", ann((3, 4))), ("b", ann((4, 5)))],
             'y: R.Tensor((3, 5), dtype="float32") = R.einsum((a, b), subscripts="ij,jk->ik")',
             [ok([T_(a), T_(b)], [T_(np.einsum("ij,jk->ik", a, b))])], EI,
             "einsum ij,jk->ik is a matrix product")
    m = fdata((4, 4), 442)
    add_case("einsum_trace", [("a", ann((4, 4)))],
             'y: R.Tensor((), dtype="float32") = R.einsum((a,), subscripts="ii")',
             [ok([T_(m)], [T_(np.asarray(np.trace(m), "float32"))])], EI,
             "einsum ii (no output spec) is the trace, a 0-d result")
    a, b = fdata((2, 3, 4), 443, step=1.0), fdata((4, 2), 444, step=1.0)
    add_case("einsum_ellipsis", [("a", ann((2, 3, 4))), ("b", ann((4, 2)))],
             'y: R.Tensor((2, 3, 2), dtype="float32") = R.einsum((a, b), '
             'subscripts="...ij,jk->...ik")',
             [ok([T_(a), T_(b)], [T_(np.einsum("...ij,jk->...ik", a, b))])], EI,
             "einsum with ... batch dimensions")
    a, b = fdata((3, 2), 445), fdata((2, 3), 446)
    add_case("einsum_implicit_output", [("a", ann((3, 2))), ("b", ann((2, 3)))],
             'y = R.einsum((a, b), subscripts="ij,jk")',
             [ok([T_(a), T_(b)], [T_(np.einsum("ij,jk", a, b))])], EI,
             "einsum without -> keeps the labels used once, in alphabetical order (ik)")
    runs = []
    for k, nv in enumerate((2, 5)):
        x, y = idata((nv, 3), 447 + k), idata((nv, 3), 449 + k)
        runs.append(ok([T_(x), T_(y)], [T_(np.einsum("ij,ij->i", x, y).astype("int32"))]))
    add_case("einsum_symbolic_i32", [("a", ann(("n", 3), "int32")), ("b", ann(("n", 3), "int32"))],
             'y: R.Tensor((n,), dtype="int32") = R.einsum((a, b), subscripts="ij,ij->i")', runs,
             EI, "einsum ij,ij->i (row dot products) on int32 (n, 3), n = 2 and 5", sym=("n",))
    invalid("einsum_invalid_subscripts", [("a", ann((3, 4)))],
            'y = R.einsum((a,), subscripts="ijk->i")', "SI-linalg-einsum-2", ["relax.einsum"],
            "einsum term ijk for a 2-d operand (SI-linalg-einsum-2)")
    invalid("einsum_invalid_label_dims", [("a", ann((3, 4))), ("b", ann((5, 2)))],
            'y = R.einsum((a, b), subscripts="ij,jk->ik")', "SI-linalg-einsum-4",
            ["relax.einsum"], "einsum label j bound to 4 and 5 (SI-linalg-einsum-4)")
    invalid("einsum_invalid_dtype", [("a", ann((3, 4))), ("b", ann((4, 2), "int32"))],
            'y = R.einsum((a, b), subscripts="ij,jk->ik")', "SI-op-dtype-1",
            ["relax.einsum", "SI-linalg-einsum-1"],
            "einsum operands of different dtypes (SI-linalg-einsum-1, SI-op-dtype-1)")
    # outer
    OU = ["relax.outer", "EXEC-linalg-outer-1", "SI-linalg-outer-1"]
    a, b = fdata((3,), 460), fdata((4,), 461)
    add_case("outer_f32", [("x", ann((3,))), ("z", ann((4,)))],
             'y: R.Tensor((3, 4), dtype="float32") = R.outer(x, z)',
             [ok([T_(a), T_(b)], [T_(np.outer(a, b))])], OU, "outer product of (3,) and (4,)")
    runs = []
    for k, nv in enumerate((2, 0)):
        x, z = idata((nv,), 462 + k, dtype="int64"), idata((3,), 464 + k, dtype="int64")
        runs.append(ok([T_(x), T_(z)], [T_(np.outer(x, z).astype("int64"))]))
    add_case("outer_symbolic_i64", [("x", ann(("n",), "int64")), ("z", ann((3,), "int64"))],
             'y: R.Tensor((n, 3), dtype="int64") = R.outer(x, z)', runs, OU,
             "outer of int64 (n,) and (3,), n = 2 and 0", sym=("n",))
    invalid("outer_invalid_2d", [("x", ann((3, 1))), ("z", ann((4,)))], "y = R.outer(x, z)",
            "SI-linalg-outer-1", ["relax.outer"], "outer needs 1-d operands (SI-linalg-outer-1)")
    add_case("outer_unknown_ndim_trap", [("x", ann(None)), ("z", ann((2,)))], "y = R.outer(x, z)",
             [ok([T_(fdata((2,), 466)), T_(fdata((2,), 467))],
                 [T_(np.outer(fdata((2,), 466), fdata((2,), 467)))]),
              trap([T_(fdata((2, 2), 468)), T_(fdata((2,), 469))], "shape_mismatch")],
             OU, "outer of an operand of unknown ndim: a 2-d argument traps shape_mismatch "
             "(EXEC-linalg-outer-1)")


# ============================================================================================
# manipulation (spec/ops/manipulate.md)
# ============================================================================================

def _manipulate():
    RS = ["relax.reshape", "EXEC-manip-reshape-1", "SI-manip-reshape-1", "SI-op-shape-1"]
    a = fdata((2, 3, 4), 500)
    add_case("reshape_static", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((6, 4), dtype="float32") = R.reshape(x, R.shape([6, 4]))',
             [ok([T_(a)], [T_(a.reshape(6, 4))])], RS + ["SI-manip-reshape-2"],
             "reshape (2, 3, 4) -> (6, 4), row-major")
    add_case("reshape_infer", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((4, 6), dtype="float32") = R.reshape(x, R.shape([4, -1]))',
             [ok([T_(a)], [T_(a.reshape(4, -1))])],
             RS + ["SI-manip-reshape-3", "SI-manip-reshape-5", "SI-call-5"],
             "reshape with -1 infers 24 / 4 = 6; the -1 never reaches run time")
    runs = []
    for k, nv in enumerate((1, 3, 0)):
        x = idata((nv, 4), 501 + k)
        runs.append(ok([T_(x)], [T_(x.reshape(nv * 4))]))
    add_case("reshape_symbolic_flatten", [("x", ann(("n", 4), "int32"))],
             'y: R.Tensor((n * 4,), dtype="int32") = R.reshape(x, R.shape([n * 4]))', runs,
             RS, "reshape (n, 4) -> (n * 4,) on int32, n = 1, 3 and 0", sym=("n",))
    runs = []
    for k, nv in enumerate((2, 3)):
        x = fdata((nv, 4, 2), 504 + k)
        runs.append(ok([T_(x)], [T_(x.reshape(2, -1))]))
    add_case("reshape_symbolic_infer", [("x", ann(("n", 4, 2)))],
             'y: R.Tensor((2, n * 4), dtype="float32") = R.reshape(x, R.shape([2, -1]))', runs,
             RS + ["SI-manip-reshape-3", "SI-manip-reshape-5", "SI-call-5"],
             "reshape (n, 4, 2) -> (2, -1) infers n * 4; n = 2 and 3", sym=("n",))
    add_case("reshape_to_0d", [("x", ann((1, 1)))], "y = R.reshape(x, R.shape([]))",
             [ok([T_(np.array([[2.5]], "float32"))], [T_(np.float32(2.5))])], RS,
             "reshape (1, 1) -> () (a 0-d tensor)")
    b = bdata((2, 3), 507)
    add_case("reshape_bool", [("x", ann((2, 3), "bool"))], "y = R.reshape(x, R.shape([3, 2]))",
             [ok([T_(b)], [T_(b.reshape(3, 2))])], RS, "reshape of a bool tensor")
    add_case("reshape_symbolic_count_check", [("x", ann(("n", 4)))],
             "y = R.reshape(x, R.shape([n * 5]))",
             [ok([T_(np.zeros((0, 4), "float32"))], [T_(np.zeros((0,), "float32"))]),
              trap([T_(fdata((2, 4), 508))], "shape_mismatch")],
             RS + ["SI-manip-reshape-2"],
             "reshape (n, 4) -> (n * 5,): unprovable statically (equal when n = 0); n = 0 runs, "
             "n = 2 traps shape_mismatch (EXEC-manip-reshape-1)", sym=("n",))
    invalid("reshape_invalid_count", [("x", ann((3, 4)))], "y = R.reshape(x, R.shape([5, 2]))",
            "SI-manip-reshape-2", ["relax.reshape"],
            "reshape of 12 elements to (5, 2) (SI-manip-reshape-2)")
    invalid("reshape_invalid_two_infer", [("x", ann((3, 4)))],
            "y = R.reshape(x, R.shape([-1, -1]))", "SI-manip-reshape-3", ["relax.reshape"],
            "reshape with two -1 dimensions (SI-manip-reshape-3)")
    invalid("reshape_invalid_literal_zero", [("x", ann((3, 4)))],
            "y = R.reshape(x, R.shape([0, 12]))", "SI-manip-reshape-4", ["relax.reshape"],
            "a literal 0 in the target where x's dimension is 3: TVM would read it as 'copy'; "
            "rejected here (SI-manip-reshape-4)")
    # permute_dims
    PD = ["relax.permute_dims", "EXEC-manip-permute-1", "SI-manip-permute-1", "SI-manip-permute-2"]
    a = fdata((2, 3, 4), 510)
    add_case("permute_dims_axes", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((4, 2, 3), dtype="float32") = R.permute_dims(x, axes=[2, 0, 1])',
             [ok([T_(a)], [T_(np.transpose(a, (2, 0, 1)))])], PD, "permute_dims axes [2, 0, 1]")
    add_case("permute_dims_reverse", [("x", ann((2, 3, 4)))], "y = R.permute_dims(x)",
             [ok([T_(a)], [T_(np.transpose(a))])], PD, "permute_dims with axes=None reverses")
    runs = []
    for k, (nv, mv) in enumerate(((2, 3), (1, 4))):
        x = idata((nv, mv, 2), 511 + k, dtype="int64")
        runs.append(ok([T_(x)], [T_(np.transpose(x, (0, 2, 1)))]))
    add_case("permute_dims_symbolic_negative", [("x", ann(("n", "m", 2), "int64"))],
             'y: R.Tensor((n, 2, m), dtype="int64") = R.permute_dims(x, axes=[0, -1, -2])', runs,
             PD + ["SI-op-axis-1"], "permute_dims with negative axes on (n, m, 2) int64",
             sym=("n", "m"))
    add_case("permute_dims_unknown_ndim_trap", [("x", ann(None))],
             "y = R.permute_dims(x, axes=[1, 0])",
             [ok([T_(fdata((2, 3), 513))], [T_(fdata((2, 3), 513).T)]),
              trap([T_(fdata((2, 3, 4), 514))], "shape_mismatch")],
             PD, "permute_dims axes [1, 0] on unknown ndim: a 3-d argument traps shape_mismatch "
             "(EXEC-manip-permute-1)")
    invalid("permute_dims_invalid_len", [("x", ann((2, 3, 4)))],
            "y = R.permute_dims(x, axes=[1, 0])", "SI-manip-permute-2", ["relax.permute_dims"],
            "permute_dims with 2 axes for a 3-d tensor (SI-manip-permute-2)")
    # expand_dims
    EX = ["relax.expand_dims", "EXEC-manip-expand-1", "SI-manip-expand-1"]
    a = fdata((2, 3), 520)
    add_case("expand_dims_multi", [("x", ann((2, 3)))],
             'y: R.Tensor((1, 2, 3, 1), dtype="float32") = R.expand_dims(x, axis=[0, -1])',
             [ok([T_(a)], [T_(np.expand_dims(a, (0, -1)))])], EX + ["SI-op-axis-1"],
             "expand_dims at axes [0, -1]: (2, 3) -> (1, 2, 3, 1)")
    add_case("expand_dims_middle", [("x", ann((2, 3)))], "y = R.expand_dims(x, axis=1)",
             [ok([T_(a)], [T_(np.expand_dims(a, 1))])], EX, "expand_dims axis 1: (2, 1, 3)")
    add_case("expand_dims_unknown_ndim_trap", [("x", ann(None))], "y = R.expand_dims(x, axis=2)",
             [ok([T_(a)], [T_(np.expand_dims(a, 2))]),
              trap([T_(fdata((3,), 521))], "shape_mismatch")],
             EX, "expand_dims axis 2 on unknown ndim: 2-d works (result 3-d), 1-d traps "
             "shape_mismatch (EXEC-manip-expand-1)")
    invalid("expand_dims_invalid_repeat", [("x", ann((2, 3)))],
            "y = R.expand_dims(x, axis=[1, 1])", "SI-op-axis-2",
            ["relax.expand_dims", "SI-manip-expand-1"],
            "expand_dims naming axis 1 twice (SI-manip-expand-1 via SI-op-axis-2)")
    # squeeze
    SQ = ["relax.squeeze", "EXEC-manip-squeeze-1", "SI-manip-squeeze-1"]
    a = fdata((1, 3, 1), 530)
    add_case("squeeze_axis", [("x", ann((1, 3, 1)))],
             'y: R.Tensor((3, 1), dtype="float32") = R.squeeze(x, axis=[0])',
             [ok([T_(a)], [T_(a.reshape(3, 1))])], SQ, "squeeze axis 0 of (1, 3, 1)")
    add_case("squeeze_all", [("x", ann((1, 3, 1)))],
             'y: R.Tensor((3,), dtype="float32") = R.squeeze(x)',
             [ok([T_(a)], [T_(a.reshape(3))])], ["relax.squeeze", "SI-manip-squeeze-2"],
             "squeeze with axis=None removes every length-1 dimension")
    add_case("squeeze_symbolic_trap", [("x", ann(("n", 1, 3)))],
             'y: R.Tensor((3,), dtype="float32") = R.squeeze(x, axis=[0, 1])',
             [ok([T_(fdata((1, 1, 3), 531))], [T_(fdata((1, 1, 3), 531).reshape(3))]),
              trap([T_(fdata((2, 1, 3), 532))], "shape_mismatch")],
             SQ, "squeeze axes [0, 1] of (n, 1, 3): n = 1 runs, n = 2 traps shape_mismatch "
             "(EXEC-manip-squeeze-1)", sym=("n",))
    runs = [ok([T_(fdata((nv, 1, 2), 533 + nv))], [T_(np.squeeze(fdata((nv, 1, 2), 533 + nv)))])
            for nv in (1, 3)]
    add_case("squeeze_none_symbolic", [("x", ann(("n", 1, 2)))], "y = R.squeeze(x)", runs,
             ["relax.squeeze", "SI-manip-squeeze-2"],
             "squeeze with axis=None on (n, 1, 2): which axes go is decided at run time "
             "(n = 1 gives (2,), n = 3 gives (3, 2))", sym=("n",))
    invalid("squeeze_invalid_not_one", [("x", ann((2, 3)))], "y = R.squeeze(x, axis=[0])",
            "SI-manip-squeeze-1", ["relax.squeeze"],
            "squeeze of a dimension of constant length 2 (SI-manip-squeeze-1; TVM keeps it)")
    # flatten
    FL = ["relax.flatten", "SI-manip-flatten-1"]
    a = idata((2, 3, 2), 540)
    add_case("flatten_static", [("x", ann((2, 3, 2), "int32"))],
             'y: R.Tensor((12,), dtype="int32") = R.flatten(x)',
             [ok([T_(a)], [T_(a.reshape(-1))])], FL, "flatten (2, 3, 2) -> (12,)")
    add_case("flatten_0d", [("x", ann(()))], 'y: R.Tensor((1,), dtype="float32") = R.flatten(x)',
             [ok([T_(np.float32(3.5))], [T_(np.array([3.5], "float32"))])], FL,
             "flatten of a 0-d tensor gives (1,)")
    runs = [ok([T_(fdata((2, nv, 4), 541 + nv))], [T_(fdata((2, nv, 4), 541 + nv).reshape(-1))])
            for nv in (1, 3)]
    add_case("flatten_symbolic", [("x", ann((2, "n", 4)))],
             'y: R.Tensor((2 * n * 4,), dtype="float32") = R.flatten(x)', runs, FL,
             "flatten (2, n, 4) -> (2 * n * 4,), n = 1 and 3", sym=("n",))
    # concat
    CC = ["relax.concat", "EXEC-manip-concat-1", "SI-manip-concat-1", "SI-manip-concat-3"]
    a, b, c = fdata((2, 3), 550), fdata((1, 3), 551), fdata((3, 3), 552)
    add_case("concat_axis0", [("x", ann((2, 3))), ("z", ann((1, 3))), ("w", ann((3, 3)))],
             'y: R.Tensor((6, 3), dtype="float32") = R.concat((x, z, w), axis=0)',
             [ok([T_(a), T_(b), T_(c)], [T_(np.concatenate([a, b, c], 0))])], CC,
             "concat three tensors on axis 0")
    a, b = idata((2, 1), 553, dtype="int64"), idata((2, 3), 554, dtype="int64")
    add_case("concat_negative_axis", [("x", ann((2, 1), "int64")), ("z", ann((2, 3), "int64"))],
             'y: R.Tensor((2, 4), dtype="int64") = R.concat((x, z), axis=-1)',
             [ok([T_(a), T_(b)], [T_(np.concatenate([a, b], -1))])], CC + ["SI-op-axis-1"],
             "concat int64 on axis -1")
    a, b = bdata((2, 2), 555), bdata((0, 2), 556)
    add_case("concat_empty_part", [("x", ann((2, 2), "bool")), ("z", ann((0, 2), "bool"))],
             "y = R.concat((x, z), axis=0)",
             [ok([T_(a), T_(b)], [T_(np.concatenate([a, b], 0))])], CC,
             "concat of a bool (2, 2) with an empty (0, 2) tensor")
    runs = []
    for k, (nv, mv) in enumerate(((1, 2), (3, 0))):
        x, z, w = fdata((nv, 4), 557 + k), fdata((2, 4), 559 + k), fdata((mv, 4), 561 + k)
        runs.append(ok([T_(x), T_(z), T_(w)], [T_(np.concatenate([x, z, w], 0))]))
    add_case("concat_symbolic", [("x", ann(("n", 4))), ("z", ann((2, 4))), ("w", ann(("m", 4)))],
             'y: R.Tensor((n + 2 + m, 4), dtype="float32") = R.concat((x, z, w), axis=0)', runs,
             CC, "concat (n, 4), (2, 4), (m, 4) on axis 0: (n + 2 + m, 4); (n, m) = (1, 2), "
             "(3, 0)", sym=("n", "m"))
    a = fdata((2, 3), 563)
    add_case("concat_symbolic_offaxis_trap", [("x", ann((2, "n"))), ("z", ann((1, "m")))],
             "y = R.concat((x, z), axis=0)",
             [ok([T_(a), T_(fdata((1, 3), 564))], [T_(np.concatenate([a, fdata((1, 3), 564)]))]),
              trap([T_(a), T_(fdata((1, 2), 565))], "shape_mismatch")],
             CC, "concat on axis 0 with off-axis dims n and m: n = m = 3 runs, n = 3, m = 2 "
             "traps shape_mismatch (EXEC-manip-concat-1)", sym=("n", "m"))
    invalid("concat_invalid_dtype", [("x", ann((2,))), ("z", ann((2,), "int32"))],
            "y = R.concat((x, z))", "SI-op-dtype-1", ["relax.concat"],
            "concat of float32 and int32 (SI-op-dtype-1)")
    invalid("concat_invalid_ndim", [("x", ann((2, 2))), ("z", ann((2,)))],
            "y = R.concat((x, z))", "SI-manip-concat-2", ["relax.concat"],
            "concat of a 2-d and a 1-d tensor (SI-manip-concat-2)")
    invalid("concat_invalid_offaxis", [("x", ann((2, 3))), ("z", ann((2, 4)))],
            "y = R.concat((x, z), axis=0)", "SI-manip-concat-3", ["relax.concat"],
            "concat on axis 0 with off-axis lengths 3 and 4 (SI-manip-concat-3)")
    invalid("concat_invalid_axis_none_2d", [("x", ann((2, 3))), ("z", ann((2, 3)))],
            "y = R.concat((x, z), axis=None)", "SI-manip-concat-4", ["relax.concat"],
            "concat with axis=None of 2-d tensors (SI-manip-concat-4)")
    # split
    SP = ["relax.split", "EXEC-manip-split-1", "SI-manip-split-1"]
    a = fdata((2, 6), 570)
    add_case("split_sections", [("x", ann((2, 6)))],
             "s = R.split(x, indices_or_sections=3, axis=1)",
             [ok([T_(a)], [T_(p) for p in np.split(a, 3, axis=1)])], SP + ["SI-manip-split-2"],
             "split (2, 6) into 3 sections on axis 1", ret="s")
    v = idata((7,), 571)
    add_case("split_uneven", [("x", ann((7,), "int32"))],
             "s = R.split(x, indices_or_sections=3)",
             [ok([T_(v)], [T_(v[0:3]), T_(v[3:6]), T_(v[6:7])])], SP + ["SI-manip-split-2"],
             "split 7 into 3 sections: ceil(7 / 3) = 3, so 3, 3 and 1", ret="s")
    a = fdata((8, 2), 572)
    add_case("split_indices", [("x", ann((8, 2)))],
             "s = R.split(x, indices_or_sections=[2, 5], axis=0)",
             [ok([T_(a)], [T_(p) for p in np.split(a, [2, 5], axis=0)])],
             SP + ["SI-manip-split-3"], "split at indices [2, 5]: pieces of 2, 3 and 3", ret="s")
    add_case("split_indices_clamped", [("x", ann((8, 2)))],
             "s = R.split(x, indices_or_sections=[3, 12], axis=-2)",
             [ok([T_(a)], [T_(a[0:3]), T_(a[3:8]), T_(np.zeros((0, 2), "float32"))])],
             SP + ["SI-manip-split-3", "SI-op-axis-1"],
             "split at [3, 12] on axis -2: the index 12 clamps to 8, the last piece is empty",
             ret="s")
    add_case("split_one_section", [("x", ann((2, 6)))],
             "s = R.split(x, indices_or_sections=1, axis=1)",
             [ok([T_(fdata((2, 6), 573))], [T_(fdata((2, 6), 573))])], SP,
             "split into 1 section gives x itself, a tensor, not a 1-tuple", ret="s")
    runs = []
    for k, (nv, mv) in enumerate(((2, 5), (1, 4), (3, 1))):
        x = fdata((nv, mv), 574 + k)
        h = (mv + 1) // 2
        runs.append(ok([T_(x)], [T_(x[:, :h]), T_(x[:, h:])]))
    add_case("split_symbolic",
             [("x", ann(("n", "m")))],
             ["s: R.Tuple(R.Tensor((n, (m + 1) // 2), dtype=\"float32\"), "
              "R.Tensor((n, m - (m + 1) // 2), dtype=\"float32\")) = "
              "R.split(x, indices_or_sections=2, axis=1)"],
             runs, SP + ["SI-manip-split-2"],
             "split (n, m) in 2 on axis 1: (m + 1) // 2 and m - (m + 1) // 2; (n, m) = (2, 5), "
             "(1, 4), (3, 1) (an empty last piece)", sym=("n", "m"), ret="s")
    add_case("split_symbolic_trap", [("x", ann(("m",)))],
             "s = R.split(x, indices_or_sections=4)",
             [ok([T_(fdata((8,), 577))], [T_(p) for p in np.split(fdata((8,), 577), 4)]),
              trap([T_(fdata((5,), 578))], "shape_mismatch")],
             SP + ["SI-manip-split-2"],
             "split (m,) into 4: m = 8 gives four pieces of 2; m = 5 would need a last piece of "
             "5 - 3 * 2 = -1 and traps shape_mismatch (EXEC-manip-split-1)", sym=("m",), ret="s")
    invalid("split_invalid_negative_last", [("x", ann((5,)))],
            "s = R.split(x, indices_or_sections=4)", "SI-manip-split-2", ["relax.split"],
            "split of length 5 into 4 sections leaves a last piece of -1 (SI-manip-split-2)",
            ret="s")
    # broadcast_to
    BT = ["relax.broadcast_to", "EXEC-manip-bcast-1", "SI-manip-bcast-1"]
    a = fdata((3, 1), 580)
    add_case("broadcast_to_static", [("x", ann((3, 1)))],
             'y: R.Tensor((2, 3, 4), dtype="float32") = R.broadcast_to(x, R.shape([2, 3, 4]))',
             [ok([T_(a)], [T_(np.broadcast_to(a, (2, 3, 4)))])],
             BT + ["SI-manip-bcast-2", "SI-manip-bcast-3"],
             "broadcast_to (3, 1) -> (2, 3, 4)")
    runs = [ok([T_(np.array([5, -1], "int32")), T_(np.zeros((nv,), "float32"))],
               [T_(np.broadcast_to(np.array([5, -1], "int32"), (nv, 2)))]) for nv in (3, 0)]
    add_case("broadcast_to_symbolic", [("x", ann((2,), "int32")), ("z", ann(("n",)))],
             'y: R.Tensor((n, 2), dtype="int32") = R.broadcast_to(x, R.shape([n, 2]))', runs,
             BT, "broadcast_to (2,) -> (n, 2) with n from another parameter; n = 3 and 0",
             sym=("n",))
    add_case("broadcast_to_symbolic_trap", [("x", ann(("m",))), ("z", ann(("n",)))],
             "y = R.broadcast_to(x, R.shape([2, n]))",
             [ok([T_(fdata((1,), 581)), T_(fdata((3,), 582))],
                 [T_(np.broadcast_to(fdata((1,), 581), (2, 3)))]),
              ok([T_(fdata((3,), 583)), T_(fdata((3,), 582))],
                 [T_(np.broadcast_to(fdata((3,), 583), (2, 3)))]),
              trap([T_(fdata((2,), 584)), T_(fdata((3,), 582))], "shape_mismatch")],
             BT + ["SI-manip-bcast-3"],
             "broadcast_to (m,) -> (2, n): m = 1 and m = n run; m = 2, n = 3 traps "
             "shape_mismatch (EXEC-manip-bcast-1)", sym=("m", "n"))
    invalid("broadcast_to_invalid_ndim", [("x", ann((2, 3)))],
            "y = R.broadcast_to(x, R.shape([3]))", "SI-manip-bcast-2", ["relax.broadcast_to"],
            "broadcast_to a target of lower ndim (SI-manip-bcast-2)")
    invalid("broadcast_to_invalid_dim", [("x", ann((2, 3)))],
            "y = R.broadcast_to(x, R.shape([2, 4]))", "SI-manip-bcast-3", ["relax.broadcast_to"],
            "broadcast_to (2, 3) -> (2, 4): 3 is neither 1 nor 4 (SI-manip-bcast-3)")
    # repeat
    RP = ["relax.repeat", "EXEC-manip-repeat-1", "SI-manip-repeat-1"]
    a = idata((2, 3), 590)
    add_case("repeat_axis", [("x", ann((2, 3), "int32"))],
             'y: R.Tensor((2, 6), dtype="int32") = R.repeat(x, repeats=2, axis=1)',
             [ok([T_(a)], [T_(np.repeat(a, 2, axis=1))])], RP, "repeat each column twice")
    add_case("repeat_flat", [("x", ann((2, 3), "int32"))],
             'y: R.Tensor((18,), dtype="int32") = R.repeat(x, repeats=3)',
             [ok([T_(a)], [T_(np.repeat(a, 3))])], RP,
             "repeat with axis=None repeats the flattened elements")
    add_case("repeat_zero", [("x", ann((2, 3)))], "y = R.repeat(x, repeats=0, axis=0)",
             [ok([T_(fdata((2, 3), 591))], [T_(np.zeros((0, 3), "float32"))])], RP,
             "repeat 0 times gives an empty axis")
    runs = [ok([T_(fdata((nv, 2), 592 + nv))], [T_(np.repeat(fdata((nv, 2), 592 + nv), 2, -2))])
            for nv in (1, 3)]
    add_case("repeat_symbolic", [("x", ann(("n", 2)))],
             'y: R.Tensor((n * 2, 2), dtype="float32") = R.repeat(x, repeats=2, axis=-2)', runs,
             RP + ["SI-op-axis-1"], "repeat on axis -2 of (n, 2): (n * 2, 2)", sym=("n",))
    add_case("repeat_unknown_ndim_trap", [("x", ann(None))], "y = R.repeat(x, repeats=2, axis=1)",
             [ok([T_(fdata((2, 2), 596))], [T_(np.repeat(fdata((2, 2), 596), 2, 1))]),
              trap([T_(fdata((3,), 597))], "shape_mismatch")],
             RP, "repeat on axis 1 of unknown ndim: a 1-d argument traps shape_mismatch "
             "(EXEC-manip-repeat-1)")
    invalid("repeat_invalid_negative", [("x", ann((2, 3)))], "y = R.repeat(x, repeats=-1, axis=0)",
            "SI-manip-repeat-2", ["relax.repeat"], "repeat with repeats = -1 (SI-manip-repeat-2)")
    # tile
    TI = ["relax.tile", "SI-manip-tile-1"]
    a = fdata((2, 3), 600)
    add_case("tile_longer_repeats", [("x", ann((2, 3)))],
             'y: R.Tensor((2, 4, 3), dtype="float32") = R.tile(x, repeats=[2, 2, 1])',
             [ok([T_(a)], [T_(np.tile(a, (2, 2, 1)))])], TI,
             "tile (2, 3) by [2, 2, 1]: the shape is padded with a leading 1 -> (2, 4, 3)")
    a = idata((2, 2, 2), 601, dtype="int64")
    add_case("tile_shorter_repeats", [("x", ann((2, 2, 2), "int64"))],
             'y: R.Tensor((2, 2, 6), dtype="int64") = R.tile(x, repeats=[3])',
             [ok([T_(a)], [T_(np.tile(a, 3))])], TI,
             "tile (2, 2, 2) by [3]: the repeats are padded with leading 1s")
    runs = [ok([T_(fdata((nv,), 602 + nv))], [T_(np.tile(fdata((nv,), 602 + nv), (2, 2)))])
            for nv in (1, 3)]
    add_case("tile_symbolic", [("x", ann(("n",)))],
             'y: R.Tensor((2, n * 2), dtype="float32") = R.tile(x, repeats=[2, 2])', runs, TI,
             "tile (n,) by [2, 2]: (2, n * 2)", sym=("n",))
    invalid("tile_invalid_negative", [("x", ann((2, 3)))], "y = R.tile(x, repeats=[1, -2])",
            "SI-manip-tile-2", ["relax.tile"], "tile with a negative repeat (SI-manip-tile-2)")
    # flip
    FP = ["relax.flip", "EXEC-manip-flip-1", "SI-manip-flip-1"]
    a = fdata((2, 3), 610)
    add_case("flip_axis0", [("x", ann((2, 3)))], "y = R.flip(x, axis=0)",
             [ok([T_(a)], [T_(np.flip(a, 0))])], FP, "flip axis 0")
    a = idata((2, 3, 2), 611)
    add_case("flip_negative_axis", [("x", ann((2, 3, 2), "int32"))], "y = R.flip(x, axis=-2)",
             [ok([T_(a)], [T_(np.flip(a, -2))])], FP + ["SI-op-axis-1"], "flip axis -2 of int32")
    add_case("flip_unknown_ndim_trap", [("x", ann(None))], "y = R.flip(x, axis=1)",
             [ok([T_(fdata((2, 3), 612))], [T_(np.flip(fdata((2, 3), 612), 1))]),
              trap([T_(fdata((3,), 613))], "shape_mismatch")],
             FP, "flip axis 1 of unknown ndim: a 1-d argument traps shape_mismatch "
             "(EXEC-manip-flip-1)")
    invalid("flip_invalid_axis", [("x", ann((2, 3)))], "y = R.flip(x, axis=2)", "SI-op-axis-1",
            ["relax.flip", "SI-manip-flip-1"], "flip axis 2 of a 2-d tensor (SI-manip-flip-1)")
    # shape_of, tensor_to_shape, shape_to_tensor
    add_case("shape_of_static", [("x", ann((2, 3)))], 'y: R.Shape([2, 3]) = R.shape_of(x)',
             [ok([T_(fdata((2, 3), 620))], [shape((2, 3))])],
             ["relax.shape_of", "SI-manip-shape-of-1"], "shape_of a (2, 3) tensor")
    runs = [ok([T_(np.zeros((nv, 4, 0), "float32"))], [shape((nv, 4, 0))]) for nv in (5, 0)]
    add_case("shape_of_symbolic", [("x", ann(("n", 4, 0)))], "y: R.Shape([n, 4, 0]) = R.shape_of(x)",
             runs, ["relax.shape_of", "SI-manip-shape-of-1"],
             "shape_of an empty (n, 4, 0) tensor, n = 5 and 0", sym=("n",))
    add_case("tensor_to_shape_i64", [("t", ann((3,), "int64"))], "y = R.tensor_to_shape(t)",
             [ok([T_(np.array([2, 0, 7], "int64"))], [shape((2, 0, 7))]),
              trap([T_(np.array([2, -1, 7], "int64"))], "invalid_value")],
             ["relax.tensor_to_shape", "EXEC-manip-t2s-1", "SI-manip-t2s-1"],
             "tensor_to_shape of an int64 tensor; a negative element traps invalid_value "
             "(EXEC-manip-t2s-1)")
    add_case("tensor_to_shape_i32", [("t", ann((2,), "int32"))], "y = R.tensor_to_shape(t)",
             [ok([T_(np.array([4, 1], "int32"))], [shape((4, 1))])],
             ["relax.tensor_to_shape", "EXEC-manip-t2s-1", "SI-manip-t2s-1", "SI-manip-t2s-2"],
             "tensor_to_shape of an int32 tensor")
    invalid("tensor_to_shape_invalid_float", [("t", ann((2,)))], "y = R.tensor_to_shape(t)",
            "SI-manip-t2s-2", ["relax.tensor_to_shape"],
            "tensor_to_shape of float32 (SI-manip-t2s-2)")
    invalid("tensor_to_shape_invalid_2d", [("t", ann((2, 2), "int64"))],
            "y = R.tensor_to_shape(t)", "SI-manip-t2s-1", ["relax.tensor_to_shape"],
            "tensor_to_shape of a 2-d tensor (SI-manip-t2s-1)")
    add_case("shape_to_tensor_static", [], 'y: R.Tensor((3,), dtype="int64") = '
             'R.shape_to_tensor(R.shape([4, 0, 2]))',
             [ok([], [T_(np.array([4, 0, 2], "int64"))])],
             ["relax.shape_to_tensor", "SI-manip-s2t-1", "SI-op-shape-1"],
             "shape_to_tensor of a literal shape")
    runs = [ok([shape((nv, 3))], [T_(np.array([nv, 3], "int64"))]) for nv in (2, 9)]
    add_case("shape_to_tensor_param", [("s", "R.Shape(ndim=2)")],
             'y: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(s)', runs,
             ["relax.shape_to_tensor", "SI-manip-s2t-1"],
             "shape_to_tensor of an R.Shape(ndim=2) parameter")


# ============================================================================================
# neural-network layers (spec/ops/nn.md)
# ============================================================================================

def conv_ref(x, w, strides, padding, dilation, groups, out_dtype):
    """Direct convolution in the canonical layouts (N, C, spatial...), (O, C/groups, k...):
    padding lists the befores then the afters. Exact: Python ints for integer dtypes
    (wrapped to out_dtype at the end), float64 otherwise."""
    nsp = x.ndim - 2
    integer = np.dtype(out_dtype).kind in "iu"
    acc = np.int64 if integer else np.float64
    xp = np.pad(x.astype(acc), [(0, 0), (0, 0)] +
                [(padding[i], padding[i + nsp]) for i in range(nsp)])
    wa = w.astype(acc)
    N, C = x.shape[:2]
    O, Cg = w.shape[:2]
    ks = w.shape[2:]
    outsp = [(xp.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // strides[i] + 1
             for i in range(nsp)]
    out = np.zeros((N, O, *outsp), dtype=acc)
    og = O // groups
    for n in range(N):
        for o in range(O):
            g = o // og
            for pos in np.ndindex(*outsp):
                total = acc(0)
                for c in range(Cg):
                    for kk in np.ndindex(*ks):
                        src = tuple(pos[i] * strides[i] + kk[i] * dilation[i] for i in range(nsp))
                        total += xp[(n, g * Cg + c) + src] * wa[(o, c) + kk]
                out[(n, o) + pos] = total
    return out.astype(out_dtype)


def pool_ref(x, k, s, pad, mode, ceil_mode=False, count_include_pad=False):
    """2-d pooling, NCHW, dilation 1; pad = (top, left, bottom, right)."""
    N, C, H, W = x.shape
    dims = []
    for L, kk, ss, pb, pa in ((H, k[0], s[0], pad[0], pad[2]), (W, k[1], s[1], pad[1], pad[3])):
        num = L + pb + pa - kk
        cnt = (num + (ss - 1 if ceil_mode else 0)) // ss + 1
        if ceil_mode and (cnt - 1) * ss >= L + pb:
            cnt -= 1
        dims.append(cnt)
    out = np.zeros((N, C, dims[0], dims[1]), dtype=np.float64)
    for i in range(dims[0]):
        for j in range(dims[1]):
            h0, w0 = i * s[0] - pad[0], j * s[1] - pad[1]
            hs = [h for h in range(h0, h0 + k[0])]
            ws = [v for v in range(w0, w0 + k[1])]
            inside = [(h, v) for h in hs for v in ws if 0 <= h < H and 0 <= v < W]
            if mode == "max":
                out[:, :, i, j] = np.max([x[:, :, h, v] for h, v in inside], axis=0)
            else:
                tot = np.sum([x[:, :, h, v].astype(np.float64) for h, v in inside], axis=0)
                if count_include_pad:
                    hh = [h for h in hs if h < H + pad[2]]
                    vv = [v for v in ws if v < W + pad[3]]
                    div = len(hh) * len(vv)
                else:
                    div = len(inside)
                out[:, :, i, j] = tot / div
    return out.astype(x.dtype)


def layer_norm_ref(x, g, b, axes, eps):
    x64 = x.astype(np.float64)
    axes = tuple(a % x.ndim for a in axes)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    shape_ = [x.shape[i] if i in axes else 1 for i in range(x.ndim)]
    return (x64 - mean) / np.sqrt(var + eps) * g.reshape(shape_) + b.reshape(shape_)


def attention_ref(q, k, v, scale=None, bias=None, causal=None):
    B, Sq, H, D = q.shape
    Skv = k.shape[1]
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    out = np.zeros((B, Sq, H, v.shape[3]))
    for bb in range(B):
        for h in range(H):
            p = q[bb, :, h, :].astype(np.float64) @ k[bb, :, h, :].astype(np.float64).T * scale
            if bias is not None:
                p = p + np.broadcast_to(bias, (B, H, Sq, Skv))[bb, h]
            if causal is not None:
                off = 0 if causal == "TopLeft" else abs(Sq - Skv)
                mask = np.arange(Skv)[None, :] <= np.arange(Sq)[:, None] + off
                p = np.where(mask, p, -np.inf)
            e = np.exp(p - p.max(axis=-1, keepdims=True))
            out[bb, :, h, :] = (e / e.sum(axis=-1, keepdims=True)) @ v[bb, :, h, :]
    return out


def pad_ref(x, widths, mode, value=0.0):
    pairs = [(widths[2 * i], widths[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        grown = np.pad(x, [(max(p, 0), max(q, 0)) for p, q in pairs], mode="constant",
                       constant_values=np.asarray(value).astype(x.dtype) if x.dtype.kind != "f"
                       else value)
        sl = tuple(slice(-p if p < 0 else 0, (grown.shape[i] + q) if q < 0 else None)
                   for i, (p, q) in enumerate(pairs))
        return grown[sl]
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(x, pairs, mode=np_mode)


def _nn():
    NORM = ["SI-nn-norm-1", "SI-nn-norm-2", "SI-nn-norm-3", "SI-nn-norm-4", "EXEC-nn-norm-1"]
    TOL = dict(rtol=1e-5, atol=1e-5)
    # layer_norm
    x, g, b = rdata((2, 5), 700), rdata((5,), 701), rdata((5,), 702)
    add_case("layer_norm_last_axis", [("x", ann((2, 5))), ("g", ann((5,))), ("b", ann((5,)))],
             "y = R.nn.layer_norm(x, g, b, axes=[-1])",
             [ok([T_(x), T_(g), T_(b)], [T_(layer_norm_ref(x, g, b, [-1], 1e-5)
                                            .astype("float32"))], **TOL)],
             ["relax.nn.layer_norm", "EXEC-nn-layer_norm-1", "SI-nn-layer_norm-1"] + NORM,
             "layer_norm over the last axis (tolerance atol 1e-5: float32 statistics against a "
             "float64 formula)")
    x, g, b = rdata((2, 3, 4), 703), rdata((3, 4), 704), rdata((3, 4), 705)
    add_case("layer_norm_two_axes", [("x", ann((2, 3, 4))), ("g", ann((3, 4))),
                                     ("b", ann((3, 4)))],
             "y = R.nn.layer_norm(x, g, b, axes=[1, 2], epsilon=0.001)",
             [ok([T_(x), T_(g), T_(b)], [T_(layer_norm_ref(x, g, b, [1, 2], 1e-3)
                                            .astype("float32"))], **TOL)],
             ["relax.nn.layer_norm", "EXEC-nn-layer_norm-1", "SI-nn-layer_norm-1"] + NORM,
             "layer_norm over axes [1, 2] with epsilon 1e-3 (tolerance as above)")
    runs = []
    for k, nv in enumerate((1, 3)):
        x = rdata((nv, 4), 706 + k)
        g, b = np.ones(4, "float32"), np.zeros(4, "float32")
        runs.append(ok([T_(x), T_(g), T_(b)], [T_(layer_norm_ref(x, g, b, [1], 1e-5)
                                                  .astype("float32"))], **TOL))
    add_case("layer_norm_symbolic", [("x", ann(("n", 4))), ("g", ann((4,))), ("b", ann((4,)))],
             'y: R.Tensor((n, 4), dtype="float32") = R.nn.layer_norm(x, g, b, axes=[1])', runs,
             ["relax.nn.layer_norm", "EXEC-nn-layer_norm-1", "SI-nn-layer_norm-1"],
             "layer_norm of (n, 4) with unit gamma and zero beta, n = 1 and 3", sym=("n",))
    x = np.array([[1.0, 3.0]], "float32")
    add_case("layer_norm_exact", [("x", ann((1, 2))), ("g", ann((2,))), ("b", ann((2,)))],
             "y = R.nn.layer_norm(x, g, b, axes=[1], epsilon=0.0)",
             [ok([T_(x), T_(np.array([2.0, 1.0], "float32")), T_(np.array([0.5, 0.0], "float32"))],
                 [T_(np.array([[-1.5, 1.0]], "float32"))])],
             ["relax.nn.layer_norm", "EXEC-nn-layer_norm-1"],
             "layer_norm([1, 3]) with epsilon 0 is [-1, 1]; times gamma [2, 1] plus beta "
             "[0.5, 0] gives [-1.5, 1] (by hand)")
    add_case("layer_norm_param_check", [("x", ann((2, "n"))), ("g", ann(("m",))),
                                        ("b", ann(("m",)))],
             "y = R.nn.layer_norm(x, g, b, axes=[1], epsilon=0.0)",
             [ok([T_(x.repeat(2, 0)), T_(np.ones(2, "float32")), T_(np.zeros(2, "float32"))],
                 [T_(np.array([[-1.0, 1.0], [-1.0, 1.0]], "float32"))]),
              trap([T_(np.ones((2, 2), "float32")), T_(np.ones(3, "float32")),
                    T_(np.ones(3, "float32"))], "shape_mismatch")],
             ["relax.nn.layer_norm", "EXEC-nn-norm-1", "SI-nn-layer_norm-1", "SI-nn-norm-4"],
             "layer_norm of (2, n) with parameters (m,): m = n runs; m = 3 against n = 2 traps "
             "shape_mismatch (EXEC-nn-norm-1)", sym=("n", "m"))
    invalid("layer_norm_invalid_int", [("x", ann((2, 3), "int32")), ("g", ann((3,), "int32")),
                                       ("b", ann((3,), "int32"))],
            "y = R.nn.layer_norm(x, g, b, axes=[1])", "SI-nn-norm-1", ["relax.nn.layer_norm"],
            "layer_norm of int32 data (SI-nn-norm-1)")
    invalid("layer_norm_invalid_param_dtype", [("x", ann((2, 3))), ("g", ann((3,), "float16")),
                                               ("b", ann((3,)))],
            "y = R.nn.layer_norm(x, g, b, axes=[1])", "SI-nn-norm-2", ["relax.nn.layer_norm"],
            "layer_norm with a float16 gamma for float32 data (SI-nn-norm-2)")
    invalid("layer_norm_invalid_param_ndim", [("x", ann((2, 3))), ("g", ann((2, 3))),
                                              ("b", ann((3,)))],
            "y = R.nn.layer_norm(x, g, b, axes=[1])", "SI-nn-norm-3", ["relax.nn.layer_norm"],
            "layer_norm with a 2-d gamma for one axis (SI-nn-norm-3)")
    invalid("layer_norm_invalid_param_len", [("x", ann((2, 3))), ("g", ann((4,))),
                                             ("b", ann((3,)))],
            "y = R.nn.layer_norm(x, g, b, axes=[1])", "SI-nn-norm-4", ["relax.nn.layer_norm"],
            "layer_norm with a gamma of length 4 on an axis of length 3 (SI-nn-norm-4)")
    # rms_norm
    x, w = rdata((3, 4), 710), rdata((4,), 711)
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + 1e-5) * w
    add_case("rms_norm_f32", [("x", ann((3, 4))), ("w", ann((4,)))], "y = R.nn.rms_norm(x, w)",
             [ok([T_(x), T_(w)], [T_(want.astype("float32"))], **TOL)],
             ["relax.nn.rms_norm", "EXEC-nn-rms_norm-1", "SI-nn-rms_norm-1"] + NORM,
             "rms_norm over the last axis: x / sqrt(mean(x^2) + eps) * weight (tolerance "
             "atol 1e-5)")
    x = rdata((2, 4), 712, dtype="float16")
    w = np.ones(4, "float16")
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + 1e-5)
    add_case("rms_norm_f16", [("x", ann((2, 4), "float16")), ("w", ann((4,), "float16"))],
             "y = R.nn.rms_norm(x, w, axes=[-1])",
             [ok([T_(x), T_(w)], [T_(want.astype("float16"))], rtol=2e-3, atol=1e-3)],
             ["relax.nn.rms_norm", "EXEC-nn-rms_norm-1"],
             "rms_norm of float16 data, computed in float32 and rounded once (tolerance 2e-3)")
    # group_norm
    x = rdata((2, 4, 2, 2), 720)
    g, b = rdata((4,), 721), rdata((4,), 722)
    xr = x.astype(np.float64).reshape(2, 2, 2, 2, 2)
    mean = xr.mean(axis=(2, 3, 4), keepdims=True)
    var = xr.var(axis=(2, 3, 4), keepdims=True)
    want = ((xr - mean) / np.sqrt(var + 1e-5)).reshape(2, 4, 2, 2) * g[None, :, None, None] \
        + b[None, :, None, None]
    add_case("group_norm_f32", [("x", ann((2, 4, 2, 2))), ("g", ann((4,))), ("b", ann((4,)))],
             "y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3])",
             [ok([T_(x), T_(g), T_(b)], [T_(want.astype("float32"))], rtol=1e-4, atol=1e-5)],
             ["relax.nn.group_norm", "EXEC-nn-group_norm-1", "SI-nn-group_norm-1",
              "SI-nn-group_norm-4", "EXEC-nn-norm-1"],
             "group_norm with 2 groups of 2 channels over (2, 4, 2, 2) (tolerance 1e-4/1e-5: "
             "one-pass float32 variance E[x^2] - E[x]^2)")
    invalid("group_norm_invalid_groups", [("x", ann((2, 6, 3))), ("g", ann((6,))),
                                          ("b", ann((6,)))],
            "y = R.nn.group_norm(x, g, b, num_groups=4, channel_axis=1, axes=[2])",
            "SI-nn-group_norm-3", ["relax.nn.group_norm"],
            "group_norm of 6 channels in 4 groups (SI-nn-group_norm-3)")
    invalid("group_norm_invalid_channel_in_axes", [("x", ann((2, 4, 3))), ("g", ann((4,))),
                                                   ("b", ann((4,)))],
            "y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[1, 2])",
            "SI-nn-group_norm-1", ["relax.nn.group_norm"],
            "group_norm whose channel_axis is among the axes (SI-nn-group_norm-1)")
    invalid("group_norm_invalid_gamma", [("x", ann((2, 4, 3))), ("g", ann((2,))),
                                         ("b", ann((4,)))],
            "y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2])",
            "SI-nn-group_norm-4", ["relax.nn.group_norm"],
            "group_norm gamma of length 2 for 4 channels (SI-nn-group_norm-4)")
    # batch_norm
    x = rdata((3, 2, 2), 730)
    g, b = np.array([1.0, 2.0], "float32"), np.array([0.0, 0.5], "float32")
    mm, mv = np.array([0.25, -0.5], "float32"), np.array([1.0, 4.0], "float32")
    sh = (1, 2, 1)
    bn_params = [("x", ann((3, 2, 2))), ("g", ann((2,))), ("b", ann((2,))), ("mm", ann((2,))),
                 ("mv", ann((2,)))]
    want = (x.astype(np.float64) - mm.reshape(sh)) / np.sqrt(mv.reshape(sh) + 1e-5) \
        * g.reshape(sh) + b.reshape(sh)
    add_case("batch_norm_inference", bn_params,
             "y = R.nn.batch_norm(x, g, b, mm, mv, axis=1, training=False)",
             [ok([T_(x), T_(g), T_(b), T_(mm), T_(mv)],
                 [T_(want.astype("float32")), T_(mm), T_(mv)], **TOL)],
             ["relax.nn.batch_norm", "EXEC-nn-batch_norm-1", "SI-nn-batch_norm-1"] + NORM,
             "batch_norm inference: (x - moving_mean) / sqrt(moving_var + eps) * gamma + beta; "
             "the moving statistics come back unchanged (tolerance atol 1e-5)")
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(0, 2))
    var = x64.var(axis=(0, 2))
    want = (x64 - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + 1e-5) * g.reshape(sh) \
        + b.reshape(sh)
    add_case("batch_norm_training", bn_params,
             "y = R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.25, training=True)",
             [ok([T_(x), T_(g), T_(b), T_(mm), T_(mv)],
                 [T_(want.astype("float32")), T_((0.75 * mm + 0.25 * mean).astype("float32")),
                  T_((0.75 * mv + 0.25 * var).astype("float32"))], **TOL)],
             ["relax.nn.batch_norm", "EXEC-nn-batch_norm-1", "SI-nn-batch_norm-1"],
             "batch_norm training: batch mean and population variance over axes 0 and 2; "
             "the moving statistics move by momentum 0.25 (tolerance atol 1e-5)")
    # conv1d / conv2d
    CV = ["EXEC-nn-conv-1", "SI-nn-conv-1", "SI-nn-conv-2", "SI-nn-conv-3", "SI-nn-conv-6",
          "SI-nn-window-1", "SI-nn-layout-1", "SI-nn-layout-2"]
    x, w = fdata((1, 2, 7), 740, -3, 3, step=1.0), fdata((3, 2, 3), 741, -2, 2, step=1.0)
    add_case("conv1d_basic", [("x", ann((1, 2, 7))), ("w", ann((3, 2, 3)))],
             'y: R.Tensor((1, 3, 5), dtype="float32") = R.nn.conv1d(x, w)',
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1], [0, 0], [1], 1, "float32"))])],
             ["relax.nn.conv1d"] + CV, "conv1d NCW/OIW, no padding: length 7 - 3 + 1 = 5")
    add_case("conv1d_stride_pad_dilation", [("x", ann((1, 2, 7))), ("w", ann((3, 2, 3)))],
             "y = R.nn.conv1d(x, w, strides=2, padding=[2, 1], dilation=2)",
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [2], [2, 1], [2], 1, "float32"))])],
             ["relax.nn.conv1d"] + CV,
             "conv1d stride 2, padding (2, 1), dilation 2: (7 + 3 - 4 - 1) // 2 + 1 = 3")
    x, w = fdata((1, 4, 5), 742, -3, 3, step=1.0), fdata((4, 2, 2), 743, -2, 2, step=1.0)
    add_case("conv1d_groups", [("x", ann((1, 4, 5))), ("w", ann((4, 2, 2)))],
             "y = R.nn.conv1d(x, w, groups=2)",
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1], [0, 0], [1], 2, "float32"))])],
             ["relax.nn.conv1d", "SI-nn-conv-4", "SI-nn-conv-5"] + CV,
             "conv1d with 2 groups: each output channel sees 2 of the 4 input channels")
    x, w = fdata((2, 3, 5, 5), 744, -3, 3, step=1.0), fdata((4, 3, 3, 3), 745, -2, 2, step=1.0)
    add_case("conv2d_basic", [("x", ann((2, 3, 5, 5))), ("w", ann((4, 3, 3, 3)))],
             'y: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.conv2d(x, w)',
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1, 1], [0, 0, 0, 0], [1, 1], 1,
                                             "float32"))])],
             ["relax.nn.conv2d", "SI-nn-conv-4"] + CV,
             "conv2d NCHW/OIHW of small integers in float32 (exact)")
    add_case("conv2d_ones_padding", [("x", ann((1, 1, 3, 3))), ("w", ann((1, 1, 3, 3)))],
             "y = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])",
             [ok([T_(np.ones((1, 1, 3, 3), "float32")), T_(np.ones((1, 1, 3, 3), "float32"))],
                 [T_(np.array([[[[4, 6, 4], [6, 9, 6], [4, 6, 4]]]], "float32"))])],
             ["relax.nn.conv2d"] + CV,
             "all-ones 3x3 input and kernel with padding 1: [[4, 6, 4], [6, 9, 6], [4, 6, 4]] "
             "(by hand)")
    x, w = fdata((1, 2, 6, 5), 746, -3, 3, step=1.0), fdata((2, 2, 3, 2), 747, -2, 2, step=1.0)
    add_case("conv2d_stride_pad_dilation", [("x", ann((1, 2, 6, 5))), ("w", ann((2, 2, 3, 2)))],
             "y = R.nn.conv2d(x, w, strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2])",
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [2, 1], [1, 0, 2, 1], [1, 2], 1,
                                             "float32"))])],
             ["relax.nn.conv2d"] + CV,
             "conv2d strides (2, 1), padding (top 1, left 0, bottom 2, right 1), dilation (1, 2)")
    x, w = fdata((1, 4, 4, 4), 748, -3, 3, step=1.0), fdata((4, 1, 3, 3), 749, -2, 2, step=1.0)
    add_case("conv2d_depthwise", [("x", ann((1, 4, 4, 4))), ("w", ann((4, 1, 3, 3)))],
             "y = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=4)",
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1, 1], [1, 1, 1, 1], [1, 1], 4,
                                             "float32"))])],
             ["relax.nn.conv2d", "SI-nn-conv-4", "SI-nn-conv-5"] + CV,
             "depthwise conv2d (groups = channels = 4)")
    x, w = fdata((1, 2, 4, 4), 750, -3, 3, step=1.0), fdata((3, 2, 2, 2), 751, -2, 2, step=1.0)
    add_case("conv2d_nhwc_hwio", [("x", ann((1, 4, 4, 2))), ("w", ann((2, 2, 2, 3)))],
             'y: R.Tensor((1, 3, 3, 3), dtype="float32") = R.nn.conv2d(x, w, '
             'data_layout="NHWC", kernel_layout="HWIO")',
             [ok([T_(x.transpose(0, 2, 3, 1)), T_(w.transpose(2, 3, 1, 0))],
                 [T_(conv_ref(x, w, [1, 1], [0, 0, 0, 0], [1, 1], 1, "float32")
                     .transpose(0, 2, 3, 1))])],
             ["relax.nn.conv2d", "SI-call-3"] + CV,
             "conv2d in NHWC data and HWIO kernel layouts; out_layout absent is the data "
             "layout (SI-call-3), so the output is NHWC")
    add_case("conv2d_out_layout", [("x", ann((1, 2, 4, 4))), ("w", ann((3, 2, 2, 2)))],
             'y: R.Tensor((1, 3, 3, 3), dtype="float32") = R.nn.conv2d(x, w, out_layout="NHWC")',
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1, 1], [0, 0, 0, 0], [1, 1], 1, "float32")
                                      .transpose(0, 2, 3, 1))])],
             ["relax.nn.conv2d"] + CV, "conv2d NCHW input with out_layout NHWC")
    x = idata((1, 2, 3, 3), 752, -128, 128, "int8")
    w = idata((2, 2, 2, 2), 753, -128, 128, "int8")
    add_case("conv2d_i8_out_i32", [("x", ann((1, 2, 3, 3), "int8")), ("w", ann((2, 2, 2, 2), "int8"))],
             'y: R.Tensor((1, 2, 2, 2), dtype="int32") = R.nn.conv2d(x, w, out_dtype="int32")',
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1, 1], [0, 0, 0, 0], [1, 1], 1, "int32"))])],
             ["relax.nn.conv2d"] + CV,
             "int8 conv2d with out_dtype int32: operands converted, then accumulated in int32")
    add_case("conv2d_i8_wrap", [("x", ann((1, 2, 3, 3), "int8")), ("w", ann((2, 2, 2, 2), "int8"))],
             "y = R.nn.conv2d(x, w)",
             [ok([T_(x), T_(w)], [T_(conv_ref(x, w, [1, 1], [0, 0, 0, 0], [1, 1], 1, "int8"))])],
             ["relax.nn.conv2d"] + CV,
             "int8 conv2d without out_dtype accumulates in int8 and wraps around")
    x16 = fdata((1, 1, 3, 3), 754, -2, 2, "float16", 0.5)
    w16 = fdata((2, 1, 2, 2), 755, -2, 2, "float16", 0.5)
    add_case("conv2d_f16", [("x", ann((1, 1, 3, 3), "float16")), ("w", ann((2, 1, 2, 2), "float16"))],
             "y = R.nn.conv2d(x, w)",
             [ok([T_(x16), T_(w16)], [T_(conv_ref(x16, w16, [1, 1], [0, 0, 0, 0], [1, 1], 1,
                                                 "float16"))])],
             ["relax.nn.conv2d"] + CV, "float16 conv2d of halves (exact partial sums)")
    runs = []
    for k, nv in enumerate((3, 6)):
        x = fdata((1, 1, nv, nv + 2), 756 + k, -3, 3, step=1.0)
        w = fdata((2, 1, 3, 3), 758, -2, 2, step=1.0)
        runs.append(ok([T_(x), T_(w)], [T_(conv_ref(x, w, [2, 2], [1, 1, 1, 1], [1, 1], 1,
                                                    "float32"))]))
    add_case("conv2d_symbolic", [("x", ann((1, 1, "n", "n + 2"))), ("w", ann((2, 1, 3, 3)))],
             "y = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])", runs,
             ["relax.nn.conv2d"] + CV,
             "conv2d of (1, 1, n, n + 2) with stride 2 and padding 1: spatial "
             "(n - 1) // 2 + 1 by (n + 1) // 2 + 1; n = 3 and 6", sym=("n",))
    add_case("conv2d_channel_check", [("x", ann((1, "c", 3, 3))), ("w", ann((1, 2, 2, 2)))],
             "y = R.nn.conv2d(x, w)",
             [ok([T_(np.ones((1, 2, 3, 3), "float32")), T_(np.ones((1, 2, 2, 2), "float32"))],
                 [T_(np.full((1, 1, 2, 2), 8.0, "float32"))]),
              trap([T_(np.ones((1, 3, 3, 3), "float32")), T_(np.ones((1, 2, 2, 2), "float32"))],
                   "shape_mismatch")],
             ["relax.nn.conv2d", "EXEC-nn-conv-1", "SI-nn-conv-4"],
             "conv2d with c input channels against a kernel for 2: c = 2 runs (all ones: 8); "
             "c = 3 traps shape_mismatch (EXEC-nn-conv-1)", sym=("c",))
    add_case("conv2d_negative_output_trap", [("x", ann((1, 1, "n", 4))), ("w", ann((1, 1, 3, 3)))],
             "y = R.nn.conv2d(x, w)",
             [ok([T_(np.ones((1, 1, 3, 4), "float32")), T_(np.ones((1, 1, 3, 3), "float32"))],
                 [T_(np.full((1, 1, 1, 2), 9.0, "float32"))]),
              trap([T_(np.ones((1, 1, 1, 4), "float32")), T_(np.ones((1, 1, 3, 3), "float32"))],
                   "invalid_value")],
             ["relax.nn.conv2d", "EXEC-nn-conv-2", "SI-nn-conv-6", "SI-nn-window-1"],
             "conv2d of height n with a 3-high kernel: n = 3 gives one row; n = 1 would give "
             "n - 2 = -1 rows and traps invalid_value (EXEC-nn-conv-2)", sym=("n",))
    invalid("conv2d_invalid_channels", [("x", ann((1, 3, 5, 5))), ("w", ann((4, 2, 3, 3)))],
            "y = R.nn.conv2d(x, w)", "SI-nn-conv-4", ["relax.nn.conv2d"],
            "conv2d data with 3 channels against a kernel for 2 (SI-nn-conv-4)")
    invalid("conv2d_invalid_groups", [("x", ann((1, 4, 5, 5))), ("w", ann((3, 2, 3, 3)))],
            "y = R.nn.conv2d(x, w, groups=2)", "SI-nn-conv-5", ["relax.nn.conv2d"],
            "conv2d with 3 output channels in 2 groups (SI-nn-conv-5)")
    invalid("conv2d_invalid_stride", [("x", ann((1, 1, 5, 5))), ("w", ann((1, 1, 3, 3)))],
            "y = R.nn.conv2d(x, w, strides=[0, 1])", "SI-nn-conv-1", ["relax.nn.conv2d"],
            "conv2d with a zero stride (SI-nn-conv-1)")
    invalid("conv2d_invalid_layout", [("x", ann((1, 1, 5, 5))), ("w", ann((1, 1, 3, 3)))],
            'y = R.nn.conv2d(x, w, data_layout="NCHH")', "SI-nn-layout-1", ["relax.nn.conv2d",
                                                                             "SI-nn-conv-2"],
            "conv2d with the data layout NCHH, not a permutation of NCHW (SI-nn-layout-1)")
    invalid("conv2d_invalid_layout_ndim", [("x", ann((1, 1, 5))), ("w", ann((1, 1, 3, 3)))],
            "y = R.nn.conv2d(x, w)", "SI-nn-layout-2", ["relax.nn.conv2d", "SI-nn-conv-2"],
            "conv2d of 3-d data in NCHW (SI-nn-layout-2)")
    invalid("conv2d_invalid_window", [("x", ann((1, 1, 1, 1))), ("w", ann((1, 1, 3, 3)))],
            "y = R.nn.conv2d(x, w)", "SI-nn-conv-6", ["relax.nn.conv2d", "SI-nn-window-1"],
            "conv2d of a 1x1 input with a 3x3 kernel, no padding: (1 - 3) // 1 + 1 = -1 rows "
            "(SI-nn-conv-6)")
    add_case("conv2d_empty_output", [("x", ann((1, 1, 2, 2))), ("w", ann((1, 1, 3, 3)))],
             'y: R.Tensor((1, 1, 0, 0), dtype="float32") = R.nn.conv2d(x, w)',
             [ok([T_(np.ones((1, 1, 2, 2), "float32")), T_(np.ones((1, 1, 3, 3), "float32"))],
                 [T_(np.zeros((1, 1, 0, 0), "float32"))])],
             ["relax.nn.conv2d", "SI-nn-conv-6", "SI-nn-window-1"],
             "conv2d of a 2x2 input with a 3x3 kernel: (2 - 3) // 1 + 1 = 0, an empty output")
    invalid("conv2d_invalid_dtype", [("x", ann((1, 1, 3, 3))), ("w", ann((1, 1, 2, 2), "float16"))],
            "y = R.nn.conv2d(x, w)", "SI-op-dtype-1", ["relax.nn.conv2d", "SI-nn-conv-3"],
            "conv2d of float32 data and a float16 kernel without out_dtype (SI-nn-conv-3)")
    # pools
    PL = ["EXEC-nn-pool-1", "SI-nn-pool-1", "SI-nn-pool-2", "SI-nn-pool-3", "SI-nn-window-1"]
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    add_case("max_pool2d_basic", [("x", ann((1, 1, 4, 4)))],
             "y = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])",
             [ok([T_(x)], [T_(np.array([[[[5, 7], [13, 15]]]], "float32"))])],
             ["relax.nn.max_pool2d"] + PL,
             "max_pool2d 2x2 stride 2 of arange(16): [[5, 7], [13, 15]] (by hand)")
    x = fdata((1, 2, 5, 5), 760)
    add_case("max_pool2d_padding", [("x", ann((1, 2, 5, 5)))],
             "y = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
             [ok([T_(x)], [T_(pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "max"))])],
             ["relax.nn.max_pool2d"] + PL,
             "max_pool2d 3x3 stride 2 padding 1: padding never wins (lowest value)")
    x = -np.abs(fdata((1, 1, 5, 5), 761)) - 1
    add_case("max_pool2d_ceil_mode", [("x", ann((1, 1, 5, 5)))],
             "y = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)",
             [ok([T_(x)], [T_(pool_ref(x, (2, 2), (2, 2), (0, 0, 0, 0), "max", ceil_mode=True))])],
             ["relax.nn.max_pool2d"] + PL,
             "max_pool2d 2x2 stride 2 with ceil_mode on 5x5 negative data: 3x3 output, the last "
             "window half in the ceil padding")
    x = idata((1, 3, 3, 2), 762, dtype="int32")
    xn = x.transpose(0, 3, 1, 2)
    add_case("max_pool2d_nhwc_i32", [("x", ann((1, 3, 3, 2), "int32"))],
             'y = R.nn.max_pool2d(x, pool_size=[2, 2], layout="NHWC")',
             [ok([T_(x)], [T_(pool_ref(xn, (2, 2), (1, 1), (0, 0, 0, 0), "max")
                              .transpose(0, 2, 3, 1))])],
             ["relax.nn.max_pool2d"] + PL, "max_pool2d 2x2 stride 1 of int32 in NHWC")
    runs = []
    for k, (nv, mv) in enumerate(((4, 5), (3, 3))):
        x = fdata((1, 1, nv, mv), 763 + k)
        runs.append(ok([T_(x)], [T_(pool_ref(x, (2, 2), (2, 2), (0, 0, 0, 0), "max"))]))
    add_case("max_pool2d_symbolic", [("x", ann((1, 1, "n", "m")))],
             "y = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])", runs,
             ["relax.nn.max_pool2d"] + PL,
             "max_pool2d 2x2 stride 2 of (1, 1, n, m): (n - 2) // 2 + 1 by (m - 2) // 2 + 1",
             sym=("n", "m"))
    x = fdata((1, 2, 4, 4), 765)
    add_case("avg_pool2d_exclude_pad", [("x", ann((1, 2, 4, 4)))],
             "y = R.nn.avg_pool2d(x, pool_size=[3, 3], padding=[1, 1, 1, 1])",
             [ok([T_(x)], [T_(pool_ref(x, (3, 3), (1, 1), (1, 1, 1, 1), "avg"))])],
             ["relax.nn.avg_pool2d", "EXEC-nn-pool-2"] + PL,
             "avg_pool2d 3x3 padding 1, count_include_pad False: corners divide by 4, edges "
             "by 6, the inside by 9")
    add_case("avg_pool2d_include_pad", [("x", ann((1, 2, 4, 4)))],
             "y = R.nn.avg_pool2d(x, pool_size=[3, 3], padding=[1, 1, 1, 1], "
             "count_include_pad=True)",
             [ok([T_(x)], [T_(pool_ref(x, (3, 3), (1, 1), (1, 1, 1, 1), "avg",
                                       count_include_pad=True))])],
             ["relax.nn.avg_pool2d", "EXEC-nn-pool-2"] + PL,
             "avg_pool2d 3x3 padding 1, count_include_pad True: every window divides by 9")
    x = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8], [-9, -10, 11, 12], [13, 1, 15, 17]]]], "int32")
    add_case("avg_pool2d_i32", [("x", ann((1, 1, 4, 4), "int32"))],
             "y = R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2])",
             [ok([T_(x)], [T_(np.array([[[[3, 5], [-1, 13]]]], "int32"))])],
             ["relax.nn.avg_pool2d", "EXEC-nn-pool-2"] + PL,
             "int32 avg_pool2d truncates toward zero: 14 / 4 = 3, 22 / 4 = 5, -5 / 4 = -1, "
             "55 / 4 = 13 (by hand)")
    invalid("max_pool2d_invalid_window", [("x", ann((1, 3, 1, 1)))],
            "y = R.nn.max_pool2d(x, pool_size=[3, 3])", "SI-nn-pool-3", ["relax.nn.max_pool2d"],
            "max_pool2d of a 1x1 input with a 3x3 window: negative output (SI-nn-pool-3)")
    invalid("avg_pool2d_invalid_size", [("x", ann((1, 3, 4, 4)))],
            "y = R.nn.avg_pool2d(x, pool_size=[0, 2])", "SI-nn-pool-1", ["relax.nn.avg_pool2d"],
            "avg_pool2d with a zero pool size (SI-nn-pool-1)")
    invalid("max_pool2d_invalid_ndim", [("x", ann((3, 4, 4)))],
            "y = R.nn.max_pool2d(x, pool_size=[2, 2])", "SI-nn-layout-2",
            ["relax.nn.max_pool2d", "SI-nn-pool-2"], "max_pool2d of 3-d data (SI-nn-pool-2)")
    add_case("max_pool2d_negative_output_trap", [("x", ann((1, 1, "n", 4)))],
             "y = R.nn.max_pool2d(x, pool_size=[3, 3])",
             [ok([T_(x[:, :, :3, :].astype("int32").astype("float32"))],
                 [T_(pool_ref(x[:, :, :3, :].astype("float32"), (3, 3), (1, 1), (0, 0, 0, 0),
                              "max"))]),
              trap([T_(np.ones((1, 1, 1, 4), "float32"))], "invalid_value")],
             ["relax.nn.max_pool2d", "EXEC-nn-pool-1", "SI-nn-window-1"],
             "max_pool2d 3x3 over height n: n = 3 gives one row; n = 1 gives a negative count "
             "and traps invalid_value (EXEC-nn-pool-1)", sym=("n",))
    # adaptive_avg_pool2d
    x = fdata((1, 2, 4, 4), 770)
    want = x.astype(np.float64).reshape(1, 2, 1, 4, 1, 4).mean(axis=(3, 5))
    add_case("adaptive_avg_pool2d_global", [("x", ann((1, 2, 4, 4)))],
             'y: R.Tensor((1, 2, 1, 1), dtype="float32") = '
             "R.nn.adaptive_avg_pool2d(x, output_size=[1, 1])",
             [ok([T_(x)], [T_(want.astype("float32"))])],
             ["relax.nn.adaptive_avg_pool2d", "EXEC-nn-adaptive_pool-1", "SI-nn-adaptive_pool-1",
              "SI-nn-adaptive_pool-2"], "adaptive_avg_pool2d to 1x1 is the global mean")
    x = fdata((1, 1, 5, 3), 771)
    out = np.zeros((1, 1, 2, 2))
    for i in range(2):
        for j in range(2):
            h0, h1 = (i * 5) // 2, -((-(i + 1) * 5) // 2)
            w0, w1 = (j * 3) // 2, -((-(j + 1) * 3) // 2)
            out[0, 0, i, j] = x[0, 0, h0:h1, w0:w1].astype(np.float64).mean()
    add_case("adaptive_avg_pool2d_uneven", [("x", ann((1, 1, 5, 3)))],
             "y = R.nn.adaptive_avg_pool2d(x, output_size=[2, 2])",
             [ok([T_(x)], [T_(out.astype("float32"))])],
             ["relax.nn.adaptive_avg_pool2d", "EXEC-nn-adaptive_pool-1", "SI-nn-adaptive_pool-2"],
             "adaptive_avg_pool2d 5x3 -> 2x2: cell i averages rows [floor(i L / O), "
             "ceil((i + 1) L / O)), so windows overlap")
    invalid("adaptive_avg_pool2d_invalid_size", [("x", ann((1, 1, 4, 4)))],
            "y = R.nn.adaptive_avg_pool2d(x, output_size=[-1, 2])", "SI-nn-adaptive_pool-1",
            ["relax.nn.adaptive_avg_pool2d"],
            "adaptive_avg_pool2d with a negative output size (SI-nn-adaptive_pool-1)")
    # attention
    AT = ["EXEC-nn-attention-1", "SI-nn-attention-1", "SI-nn-attention-2", "SI-nn-attention-4"]
    q, k, v = rdata((2, 3, 2, 4), 780), rdata((2, 5, 2, 4), 781), rdata((2, 5, 2, 3), 782)
    ATOL = dict(rtol=1e-5, atol=1e-5)
    add_case("attention_basic", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                 ("v", ann((2, 5, 2, 3)))],
             'y: R.Tensor((2, 3, 2, 3), dtype="float32") = R.nn.attention(q, k, v)',
             [ok([T_(q), T_(k), T_(v)], [T_(attention_ref(q, k, v).astype("float32"))], **ATOL)],
             ["relax.nn.attention"] + AT,
             "attention softmax(Q K^T / sqrt(D)) V per batch and head (tolerance atol 1e-5: "
             "float32 against a float64 formula)")
    add_case("attention_scale_causal", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                        ("v", ann((2, 5, 2, 3)))],
             'y = R.nn.attention(q, k, v, scale=T.float32(0.5), causal_mask="TopLeft")',
             [ok([T_(q), T_(k), T_(v)], [T_(attention_ref(q, k, v, 0.5, causal="TopLeft")
                                            .astype("float32"))], **ATOL)],
             ["relax.nn.attention", "EXEC-nn-attention-2"] + AT,
             "attention with scale 0.5 and a TopLeft causal mask (key j visible to query i "
             "iff j <= i)")
    add_case("attention_bottom_right", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                        ("v", ann((2, 5, 2, 3)))],
             'y = R.nn.attention(q, k, v, causal_mask="BottomRight")',
             [ok([T_(q), T_(k), T_(v)], [T_(attention_ref(q, k, v, causal="BottomRight")
                                            .astype("float32"))], **ATOL)],
             ["relax.nn.attention", "EXEC-nn-attention-2"] + AT,
             "attention with a BottomRight causal mask, 3 queries over 5 keys: key j visible "
             "to query i iff j <= i + 2")
    bias = rdata((1, 2, 3, 5), 783)
    add_case("attention_bias", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                ("v", ann((2, 5, 2, 3))), ("b", ann((1, 2, 3, 5)))],
             "y = R.nn.attention_bias(q, k, v, b)",
             [ok([T_(q), T_(k), T_(v), T_(bias)],
                 [T_(attention_ref(q, k, v, bias=bias).astype("float32"))], **ATOL)],
             ["relax.nn.attention_bias", "SI-nn-attention-3"] + AT,
             "attention_bias adds a (1, H, Sq, Skv) bias broadcast over the batch before softmax")
    add_case("attention_with_bias_operand", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                             ("v", ann((2, 5, 2, 3))), ("b", ann((1, 2, 3, 5)))],
             "y = R.nn.attention(q, k, v, b)",
             [ok([T_(q), T_(k), T_(v), T_(bias)],
                 [T_(attention_ref(q, k, v, bias=bias).astype("float32"))], **ATOL)],
             ["relax.nn.attention", "relax.nn.attention_bias", "SI-call-4",
              "SI-nn-attention-3"] + AT,
             "R.nn.attention with its optional bias operand is R.nn.attention_bias (SI-call-4): "
             "the same computation")
    runs = []
    for kk, sv in enumerate((1, 4)):
        q1, k1, v1 = rdata((1, 2, 1, 4), 784 + kk), rdata((1, sv, 1, 4), 786 + kk), \
            rdata((1, sv, 1, 2), 788 + kk)
        runs.append(ok([T_(q1), T_(k1), T_(v1)], [T_(attention_ref(q1, k1, v1)
                                                     .astype("float32"))], **ATOL))
    add_case("attention_symbolic_kv", [("q", ann((1, 2, 1, 4))), ("k", ann((1, "s", 1, 4))),
                                       ("v", ann((1, "s", 1, 2)))],
             'y: R.Tensor((1, 2, 1, 2), dtype="float32") = R.nn.attention(q, k, v)', runs,
             ["relax.nn.attention"] + AT,
             "attention over a symbolic key/value length s = 1 and 4", sym=("s",))
    add_case("attention_bias_none", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                      ("v", ann((2, 5, 2, 3)))],
             "y = R.nn.attention(q, k, v, bias=None)",
             [ok([T_(q), T_(k), T_(v)], [T_(attention_ref(q, k, v).astype("float32"))], **ATOL)],
             ["relax.nn.attention", "SI-call-2"] + AT,
             "R.nn.attention with bias=None has no bias (SI-call-2)")
    invalid("attention_invalid_3d", [("q", ann((3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                     ("v", ann((2, 5, 2, 3)))],
            "y = R.nn.attention(q, k, v)", "SI-nn-attention-1", ["relax.nn.attention"],
            "attention with a 3-d query (SI-nn-attention-1)")
    invalid("attention_invalid_batch", [("q", ann((2, 3, 2, 4))), ("k", ann((3, 5, 2, 4))),
                                        ("v", ann((3, 5, 2, 3)))],
            "y = R.nn.attention(q, k, v)", "SI-nn-attention-2", ["relax.nn.attention"],
            "attention with batch sizes 2 and 3 (SI-nn-attention-2)")
    invalid("attention_invalid_bias", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                       ("v", ann((2, 5, 2, 3))), ("b", ann((1, 2, 3, 4)))],
            "y = R.nn.attention_bias(q, k, v, b)", "SI-nn-attention-3",
            ["relax.nn.attention_bias"], "attention bias whose last dimension 4 is not Skv = 5 "
            "(SI-nn-attention-3)")
    invalid("attention_invalid_window", [("q", ann((2, 3, 2, 4))), ("k", ann((2, 5, 2, 4))),
                                         ("v", ann((2, 5, 2, 3)))],
            "y = R.nn.attention(q, k, v, window_size=2)", "SI-nn-attention-5",
            ["relax.nn.attention"], "attention window_size without a causal mask "
            "(SI-nn-attention-5)")
    invalid("attention_invalid_dtype", [("q", ann((2, 3, 2, 4), "float16")),
                                        ("k", ann((2, 5, 2, 4))), ("v", ann((2, 5, 2, 3)))],
            "y = R.nn.attention(q, k, v)", "SI-op-dtype-1",
            ["relax.nn.attention", "SI-nn-attention-4"],
            "attention with a float16 query and float32 key/value (SI-nn-attention-4)")
    # dropout
    x = fdata((2, 3), 790)
    add_case("dropout_inference", [("x", ann((2, 3)))], "y = R.nn.dropout(x, rate=0.25)",
             [ok([T_(x)], [T_(x), T_(np.ones((2, 3), "float32"))])],
             ["relax.nn.dropout", "EXEC-nn-dropout-1", "SI-nn-dropout-1"],
             "dropout (inference) returns (data, ones_like(data))")
    # pad
    PD = ["relax.nn.pad", "EXEC-nn-pad-1", "SI-nn-pad-1", "SI-nn-pad-3"]
    x = fdata((2, 3), 795)
    add_case("pad_constant", [("x", ann((2, 3)))],
             'y: R.Tensor((3, 7), dtype="float32") = R.nn.pad(x, pad_width=[1, 0, 2, 2], '
             'pad_mode="constant", pad_value=1.5)',
             [ok([T_(x)], [T_(pad_ref(x, [1, 0, 2, 2], "constant", 1.5))])], PD,
             "pad (2, 3) by [1, 0, 2, 2] with the value 1.5")
    xi = idata((2, 3), 796)
    add_case("pad_constant_int_crop", [("x", ann((2, 3), "int32"))],
             "y = R.nn.pad(x, pad_width=[-1, 1, 1, -2], pad_value=-2.75)",
             [ok([T_(xi)], [T_(pad_ref(xi, [-1, 1, 1, -2], "constant", -2))])],
             PD + ["SI-nn-pad-2"],
             "constant pad of int32 with negative widths (cropping) and pad_value -2.75, "
             "truncated to -2")
    x = fdata((3, 4), 797)
    add_case("pad_reflect", [("x", ann((3, 4)))],
             'y = R.nn.pad(x, pad_width=[2, 1, 3, 2], pad_mode="reflect")',
             [ok([T_(x)], [T_(pad_ref(x, [2, 1, 3, 2], "reflect"))])], PD + ["EXEC-nn-pad-2"],
             "reflect pad (the edge is not repeated), as NumPy's reflect")
    add_case("pad_replicate", [("x", ann((3, 4)))],
             'y = R.nn.pad(x, pad_width=[2, 1, 0, 3], pad_mode="replicate")',
             [ok([T_(x)], [T_(pad_ref(x, [2, 1, 0, 3], "replicate"))])], PD + ["EXEC-nn-pad-2"],
             "replicate pad repeats the edge (NumPy's edge)")
    add_case("pad_circular", [("x", ann((3, 4)))],
             'y = R.nn.pad(x, pad_width=[1, 2, 3, 1], pad_mode="circular")',
             [ok([T_(x)], [T_(pad_ref(x, [1, 2, 3, 1], "circular"))])], PD + ["EXEC-nn-pad-2"],
             "circular pad wraps around (NumPy's wrap)")
    runs = [ok([T_(fdata((nv, 2), 798 + nv))], [T_(pad_ref(fdata((nv, 2), 798 + nv),
                                                           [1, 1, 0, 1], "constant"))])
            for nv in (1, 3)]
    add_case("pad_symbolic", [("x", ann(("n", 2)))],
             'y: R.Tensor((n + 2, 3), dtype="float32") = R.nn.pad(x, pad_width=[1, 1, 0, 1])',
             runs, PD, "constant pad of (n, 2) by [1, 1, 0, 1]: (n + 2, 3)", sym=("n",))
    add_case("pad_reflect_trap", [("x", ann(("n",)))],
             'y = R.nn.pad(x, pad_width=[2, 2], pad_mode="reflect")',
             [ok([T_(fdata((3,), 801))], [T_(pad_ref(fdata((3,), 801), [2, 2], "reflect"))]),
              trap([T_(fdata((2,), 802))], "index_out_of_bounds")],
             ["relax.nn.pad", "EXEC-nn-pad-2"],
             "reflect pad by 2 needs a length of at least 3: n = 3 runs, n = 2 traps "
             "index_out_of_bounds (EXEC-nn-pad-2)", sym=("n",))
    add_case("pad_crop_trap", [("x", ann(("n",)))], "y = R.nn.pad(x, pad_width=[-2, 0])",
             [ok([T_(fdata((3,), 803))], [T_(fdata((3,), 803)[2:])]),
              trap([T_(fdata((1,), 804))], "invalid_value")],
             ["relax.nn.pad", "EXEC-nn-pad-1", "SI-nn-pad-3"],
             "cropping 2 from a length-n axis: n = 3 leaves 1; n = 1 would leave -1 and traps "
             "invalid_value (EXEC-nn-pad-1)", sym=("n",))
    invalid("pad_invalid_width_count", [("x", ann((2, 3)))], "y = R.nn.pad(x, pad_width=[1, 1])",
            "SI-nn-pad-1", ["relax.nn.pad"], "pad_width with 2 entries for a 2-d tensor "
            "(SI-nn-pad-1)")
    invalid("pad_invalid_reflect_negative", [("x", ann((4,)))],
            'y = R.nn.pad(x, pad_width=[-1, 0], pad_mode="reflect")', "SI-nn-pad-2",
            ["relax.nn.pad"], "negative pad widths in reflect mode (SI-nn-pad-2)")
    invalid("pad_invalid_overcrop", [("x", ann((2,)))], "y = R.nn.pad(x, pad_width=[-2, -1])",
            "SI-nn-pad-3", ["relax.nn.pad"], "cropping 3 from a length-2 axis (SI-nn-pad-3)")


# ============================================================================================
# reductions, statistics, scans (spec/ops/reduce.md)
# ============================================================================================

def _reduce():
    RD = ["SI-reduce-1", "EXEC-reduce-1"]
    a = fdata((2, 3, 4), 900)
    add_case("sum_all", [("x", ann((2, 3, 4)))], 'y: R.Tensor((), dtype="float32") = R.sum(x)',
             [ok([T_(a)], [T_(np.asarray(a.sum(), "float32"))])], ["relax.sum"] + RD,
             "sum of every element (quarter-integers: exact)")
    add_case("sum_axis_keepdims", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((2, 1, 4), dtype="float32") = R.sum(x, axis=[1], keepdims=True)',
             [ok([T_(a)], [T_(a.sum(axis=1, keepdims=True))])], ["relax.sum"] + RD,
             "sum over axis 1 with keepdims")
    add_case("sum_negative_axes", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((3,), dtype="float32") = R.sum(x, axis=[-1, 0])',
             [ok([T_(a)], [T_(a.sum(axis=(-1, 0)))])], ["relax.sum", "SI-op-axis-1"] + RD,
             "sum over axes [-1, 0]")
    add_case("sum_empty_axis_list", [("x", ann((2, 3, 4)))],
             'y: R.Tensor((2, 3, 4), dtype="float32") = R.sum(x, axis=[])',
             [ok([T_(a)], [T_(a)])], ["relax.sum"] + RD, "sum with axis=[] reduces nothing")
    runs = []
    for k, nv in enumerate((3, 1, 0)):
        x = idata((nv, 4), 901 + k)
        runs.append(ok([T_(x)], [T_(x.sum(axis=0).astype("int32"))]))
    add_case("sum_symbolic_i32", [("x", ann(("n", 4), "int32"))],
             'y: R.Tensor((4,), dtype="int32") = R.sum(x, axis=[0])', runs, ["relax.sum"] + RD,
             "int32 sum over the symbolic axis of (n, 4); n = 0 gives the identity 0",
             sym=("n",))
    a8 = np.array([100, 100, 100], "int8")
    add_case("sum_i8_wrap", [("x", ann((3,), "int8"))], "y = R.sum(x)",
             [ok([T_(a8)], [T_(np.asarray(wrap(300, "int8")))])], ["relax.sum"] + RD,
             "int8 sum accumulates in int8 and wraps: 300 -> 44")
    b = np.array([[False, False, True], [False, False, False]])
    add_case("sum_bool", [("x", ann((2, 3), "bool"))], "y = R.sum(x, axis=[1])",
             [ok([T_(b)], [T_(np.array([True, False]))])], ["relax.sum"] + RD,
             "sum of bool is logical or (NumPy's sum with dtype bool)")
    a16 = fdata((2, 4), 904, dtype="float16")
    add_case("sum_f16", [("x", ann((2, 4), "float16"))], "y = R.sum(x, axis=[1])",
             [ok([T_(a16)], [T_(a16.astype(np.float64).sum(axis=1).astype("float16"))])],
             ["relax.sum"] + RD, "float16 sum of quarter-integers (exact)")
    add_case("sum_unknown_ndim_trap", [("x", ann(None))], "y = R.sum(x, axis=[1])",
             [ok([T_(fdata((2, 3), 905))], [T_(fdata((2, 3), 905).sum(axis=1))]),
              trap([T_(fdata((3,), 906))], "invalid_value")],
             ["relax.sum", "EXEC-reduce-1", "SI-reduce-1"],
             "sum over axis 1 of unknown ndim: a 1-d argument traps invalid_value "
             "(EXEC-reduce-1)")
    invalid("sum_invalid_repeated_axis", [("x", ann((2, 3)))], "y = R.sum(x, axis=[1, -1])",
            "SI-op-axis-2", ["relax.sum", "SI-reduce-1"],
            "sum over axes [1, -1], the same axis twice (SI-reduce-1 via SI-op-axis-2)")
    invalid("sum_invalid_axis", [("x", ann((2, 3)))], "y = R.sum(x, axis=[2])",
            "SI-op-axis-1", ["relax.sum", "SI-reduce-1"], "sum over axis 2 of a 2-d tensor")
    invalid("sum_invalid_attr_name", [("x", ann((2, 3)))], "y = R.sum(x, axes=[0])",
            "SI-call-1", ["relax.sum"], "sum has no attribute 'axes' (SI-call-1)")
    # prod
    a = idata((2, 3), 910, -4, 5, "int64")
    add_case("prod_i64", [("x", ann((2, 3), "int64"))], "y = R.prod(x, axis=[1])",
             [ok([T_(a)], [T_(a.prod(axis=1))])], ["relax.prod"] + RD, "int64 prod over axis 1")
    add_case("prod_empty", [("x", ann((0, 3)))], "y = R.prod(x, axis=[0])",
             [ok([T_(np.zeros((0, 3), "float32"))], [T_(np.ones(3, "float32"))])],
             ["relax.prod"] + RD, "prod over an empty axis is the identity 1")
    a = fdata((2, 3), 911, -2, 2, step=0.5)
    add_case("prod_f32_keepdims", [("x", ann((2, 3)))], "y = R.prod(x, keepdims=True)",
             [ok([T_(a)], [T_(a.prod(keepdims=True))])], ["relax.prod"] + RD,
             "prod of all elements with keepdims: shape (1, 1)")
    # max / min
    a = fdata((3, 4), 912)
    add_case("max_axis", [("x", ann((3, 4)))], 'y: R.Tensor((3,), dtype="float32") = R.max(x, axis=[1])',
             [ok([T_(a)], [T_(a.max(axis=1))])], ["relax.max"] + RD, "max over axis 1")
    a = np.array([[-np.inf, -np.inf], [1.0, -np.inf]], "float32")
    add_case("max_neg_inf", [("x", ann((2, 2)))], "y = R.max(x, axis=[1])",
             [ok([T_(a)], [T_(np.array([np.finfo(np.float32).min, 1.0], "float32"))])],
             ["relax.max"] + RD,
             "max starts from the lowest finite float32, so a row of -inf gives -3.4028235e38")
    a = idata((3, 4), 913, dtype="int64")
    add_case("min_i64_keepdims", [("x", ann((3, 4), "int64"))],
             "y = R.min(x, axis=[0], keepdims=True)",
             [ok([T_(a)], [T_(a.min(axis=0, keepdims=True))])], ["relax.min"] + RD,
             "int64 min over axis 0 with keepdims")
    add_case("max_empty_trap", [("x", ann(("n", 2)))], "y = R.max(x, axis=[0])",
             [ok([T_(fdata((2, 2), 914))], [T_(fdata((2, 2), 914).max(axis=0))]),
              trap([T_(np.zeros((0, 2), "float32"))], "invalid_value")],
             ["relax.max", "EXEC-reduce-6"] + RD,
             "max over axis 0 of (n, 2): n = 0 reduces zero elements into a non-empty result "
             "and traps invalid_value (EXEC-reduce-6)", sym=("n",))
    add_case("min_empty_result_ok", [("x", ann((0, 3)))], "y = R.min(x, axis=[1])",
             [ok([T_(np.zeros((0, 3), "float32"))], [T_(np.zeros((0,), "float32"))])],
             ["relax.min", "EXEC-reduce-6"] + RD,
             "min over axis 1 of (0, 3): the result itself is empty, so nothing is reduced over "
             "zero elements")
    # mean, variance, std
    RS = ["SI-reduce-2", "SI-reduce-1"]
    a = fdata((2, 4), 920)
    add_case("mean_f32", [("x", ann((2, 4)))], "y = R.mean(x, axis=[1])",
             [ok([T_(a)], [T_(a.mean(axis=1))])], ["relax.mean", "EXEC-reduce-2"] + RS,
             "float32 mean over axis 1")
    a = np.array([[-3, -4], [3, 4], [1, 2]], "int32")
    add_case("mean_i32_trunc", [("x", ann((3, 2), "int32"))], "y = R.mean(x, axis=[1])",
             [ok([T_(a)], [T_(np.array([-3, 3, 1], "int32"))])],
             ["relax.mean", "EXEC-reduce-2"] + RS,
             "int32 mean truncates toward zero: mean([-3, -4]) = -3 (by hand)")
    add_case("mean_empty", [("x", ann(("n",))), ("i", ann(("n",), "int32"))],
             "y = (R.mean(x), R.mean(i))",
             [ok([T_(fdata((3,), 921)), T_(np.array([1, 2, 4], "int32"))],
                 [T_(np.asarray(fdata((3,), 921).astype(np.float64).mean(), "float32")),
                  T_(np.asarray(2, "int32"))]),
              trap([T_(np.zeros((0,), "float32")), T_(np.zeros((0,), "int32"))],
                   "division_by_zero")],
             ["relax.mean", "EXEC-reduce-2"] + RS,
             "mean of (n,) float32 and int32: n = 3 works (7 / 3 truncates to 2); at n = 0 the "
             "int32 mean divides by zero and traps division_by_zero (EXEC-reduce-2)",
             sym=("n",))
    add_case("mean_empty_float_nan", [("x", ann(("n",)))], "y = R.mean(x)",
             [ok([T_(np.zeros((0,), "float32"))], [T_(np.asarray(np.nan, "float32"))])],
             ["relax.mean", "EXEC-reduce-2"] + RS, "a float mean of zero elements is NaN",
             sym=("n",))
    a = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    add_case("variance_f32", [("x", ann((4,)))], "y = R.variance(x)",
             [ok([T_(a)], [T_(np.asarray(1.25, "float32"))])],
             ["relax.variance", "EXEC-reduce-3"] + RS,
             "population variance of [1, 2, 3, 4] = 1.25 (by hand)")
    a = rdata((3, 5), 922)
    add_case("variance_axis_keepdims", [("x", ann((3, 5)))],
             "y = R.variance(x, axis=[1], keepdims=True)",
             [ok([T_(a)], [T_(a.astype(np.float64).var(axis=1, keepdims=True).astype("float32"))],
                 rtol=1e-5, atol=1e-6)],
             ["relax.variance", "EXEC-reduce-3"] + RS, "variance over axis 1 with keepdims")
    add_case("std_f32", [("x", ann((3, 5)))], "y = R.std(x, axis=[0])",
             [ok([T_(a)], [T_(a.astype(np.float64).std(axis=0).astype("float32"))],
                 rtol=1e-5, atol=1e-6)],
             ["relax.std", "EXEC-reduce-3"] + RS, "std = sqrt(population variance) over axis 0")
    a = np.array([1, 2, 4, 10], "int32")
    # inner mean in int32: 17 // 4 = 4; deviations -3, -2, 0, 6; squares 9, 4, 0, 36 = 49;
    # outer mean 49 // 4 = 12; std = floor(sqrt(12)) = 3
    add_case("variance_std_i32", [("x", ann((4,), "int32"))], "y = (R.variance(x), R.std(x))",
             [ok([T_(a)], [T_(np.asarray(12, "int32")), T_(np.asarray(3, "int32"))])],
             ["relax.variance", "relax.std", "EXEC-reduce-3"] + RS,
             "integer variance/std: the means truncate (mean 17 / 4 = 4, squared deviations "
             "49 / 4 = 12) and std truncates sqrt(12) to 3 (by hand)")
    invalid("mean_invalid_bool", [("x", ann((3,), "bool"))], "y = R.mean(x)", "SI-reduce-2",
            ["relax.mean"], "mean of bool (SI-reduce-2)")
    invalid("std_invalid_bool", [("x", ann((3,), "bool"))], "y = R.std(x)", "SI-reduce-2",
            ["relax.std"], "std of bool (SI-reduce-2)")
    # argmax / argmin
    AR = ["EXEC-reduce-4", "SI-reduce-3", "SI-reduce-1"]
    a = np.array([[1, 7, 7], [9, 0, 0]], "int32")
    add_case("argmax_axis_ties", [("x", ann((2, 3), "int32"))],
             'y: R.Tensor((2,), dtype="int64") = R.argmax(x, axis=1)',
             [ok([T_(a)], [T_(np.array([1, 0], "int64"))])], ["relax.argmax"] + AR,
             "argmax along axis 1; ties pick the first index (by hand: [1, 0])")
    a = fdata((3, 4), 930)
    add_case("argmax_flat_keepdims", [("x", ann((3, 4)))],
             'y: R.Tensor((1, 1), dtype="int64") = R.argmax(x, keepdims=True)',
             [ok([T_(a)], [T_(np.argmax(a).reshape(1, 1).astype("int64"))])],
             ["relax.argmax"] + AR, "argmax of the flattened tensor with keepdims: (1, 1)")
    a = np.array([[3.0, np.nan, -1.0], [2.0, 2.0, -5.0]], "float32")
    add_case("argmin_nan", [("x", ann((2, 3)))], "y = R.argmin(x, axis=-1)",
             [ok([T_(a)], [T_(np.argmin(a, axis=-1).astype("int64"))])], ["relax.argmin"] + AR,
             "argmin along axis -1; a NaN counts as the extreme (NumPy: index 1 in row 0)")
    runs = [ok([T_(idata((nv, 3), 931 + nv, dtype="int64"))],
               [T_(np.argmin(idata((nv, 3), 931 + nv, dtype="int64"), axis=0))]) for nv in (2, 5)]
    runs.append(trap([T_(np.zeros((0, 3), "int64"))], "invalid_value"))
    add_case("argmin_symbolic_empty_trap", [("x", ann(("n", 3), "int64"))],
             'y: R.Tensor((3,), dtype="int64") = R.argmin(x, axis=0)', runs,
             ["relax.argmin", "EXEC-reduce-6"] + AR,
             "argmin over axis 0 of (n, 3): n = 2, 5; n = 0 traps invalid_value "
             "(EXEC-reduce-6)", sym=("n",))
    invalid("argmax_invalid_axis", [("x", ann((2, 3)))], "y = R.argmax(x, axis=-3)",
            "SI-op-axis-1", ["relax.argmax", "SI-reduce-3"], "argmax axis -3 of a 2-d tensor")
    # cumsum / cumprod
    SC = ["EXEC-reduce-5", "SI-reduce-4"]
    a = idata((2, 3), 940)
    add_case("cumsum_axis", [("x", ann((2, 3), "int32"))], "y = R.cumsum(x, axis=1)",
             [ok([T_(a)], [T_(np.cumsum(a, axis=1).astype("int32"))])], ["relax.cumsum"] + SC,
             "int32 cumsum along axis 1")
    runs = [ok([T_(fdata((nv, 3), 941 + nv))], [T_(np.cumsum(fdata((nv, 3), 941 + nv)))])
            for nv in (2, 1)]
    add_case("cumsum_flat_symbolic", [("x", ann(("n", 3)))],
             'y: R.Tensor((n * 3,), dtype="float32") = R.cumsum(x)', runs, ["relax.cumsum"] + SC,
             "cumsum with axis=None scans the flattened tensor: (n * 3,)", sym=("n",))
    a = np.array([[1, 2, 3], [4, 5, 6]], "int64")
    add_case("cumsum_exclusive", [("x", ann((2, 3), "int64"))],
             "y = R.cumsum(x, axis=1, exclusive=True)",
             [ok([T_(a)], [T_(np.array([[0, 1, 3], [0, 4, 9]], "int64"))])],
             ["relax.cumsum"] + SC, "exclusive cumsum: [[0, 1, 3], [0, 4, 9]] (by hand)")
    b = np.array([1, 0, 1, 0, 1, 1, 0], bool)
    add_case("cumsum_bool_to_i32", [("x", ann((7,), "bool"))],
             'y = R.cumsum(x, dtype="int32")',
             [ok([T_(b)], [T_(np.cumsum(b.astype("int32")).astype("int32"))])],
             ["relax.cumsum"] + SC, "cumsum of bool with dtype int32 counts: "
             "[1, 1, 2, 2, 3, 4, 4]")
    add_case("cumprod_axis", [("x", ann((2, 3), "int64"))], "y = R.cumprod(x, axis=1)",
             [ok([T_(a)], [T_(np.array([[1, 2, 6], [4, 20, 120]], "int64"))])],
             ["relax.cumprod"] + SC, "cumprod along axis 1: [[1, 2, 6], [4, 20, 120]]")
    a = fdata((3, 2), 945, -2, 2, step=0.5)
    want = np.concatenate([np.ones((1, 2)), np.cumprod(a.astype(np.float64), axis=0)[:-1]], 0)
    add_case("cumprod_exclusive_f32", [("x", ann((3, 2)))],
             "y = R.cumprod(x, axis=0, exclusive=True)",
             [ok([T_(a)], [T_(want.astype("float32"))])], ["relax.cumprod"] + SC,
             "exclusive cumprod along axis 0 starts from 1")
    invalid("cumsum_invalid_axis", [("x", ann((2, 3)))], "y = R.cumsum(x, axis=2)",
            "SI-op-axis-1", ["relax.cumsum", "SI-reduce-4"],
            "cumsum axis 2 of a 2-d tensor (SI-reduce-4 via SI-op-axis-1)")


# ============================================================================================
# search and sorting (spec/ops/search.md)
# ============================================================================================

def _unique_ref(x, sorted_=True):
    flat = x.reshape(-1)
    vals, idx, inv, cnt = np.unique(flat, return_index=True, return_inverse=True,
                                    return_counts=True)
    if not sorted_:
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        vals, idx, cnt = vals[order], idx[order], cnt[order]
        inv = rank[inv.reshape(-1)]
    return vals, idx.astype("int64"), inv.reshape(-1).astype("int64"), cnt.astype("int64")


def stable_desc(x, axis):
    """Indices of a stable descending sort (equal keys keep their order)."""
    return np.argsort(-x.astype(np.float64), axis=axis, kind="stable")


def _search():
    a = np.array([3, 1, 3, 2, 1, 3], "int32")
    v, i, inv, c = _unique_ref(a)
    add_case("unique_sorted", [("x", ann((6,), "int32"))],
             "y = R.unique(x, True, False, False, False)",
             [ok([T_(a)], [T_(v)])],
             ["relax.unique", "EXEC-search-unique-1", "SI-search-unique-1", "SI-search-unique-3"],
             "unique values, sorted: [1, 2, 3]")
    v, i, inv, c = _unique_ref(a, sorted_=False)
    add_case("unique_unsorted_all", [("x", ann((6,), "int32"))],
             "y = R.unique(x, False, True, True, True)",
             [ok([T_(a)], [T_(v), T_(i), T_(inv), T_(c)])],
             ["relax.unique", "EXEC-search-unique-1", "SI-search-unique-1", "SI-search-unique-2",
              "SI-search-unique-3"],
             "unique in order of first occurrence with index, inverse and counts: "
             "([3, 1, 2], [0, 1, 3], [0, 1, 0, 2, 1, 0], [3, 2, 1])")
    a = np.array([[1.5, np.nan], [1.5, -2.0]], "float32")
    v, i, inv, c = _unique_ref(a)
    add_case("unique_float_2d_counts", [("x", ann((2, 2)))],
             "y = R.unique(x, True, False, False, True)",
             [ok([T_(a)], [T_(v), T_(c)])],
             ["relax.unique", "EXEC-search-unique-1", "SI-search-unique-2"],
             "unique of a 2-d float32 tensor (flattened) with counts; NaN sorts last")
    a = np.array([[1, 2], [3, 4], [1, 2]], "int64")
    add_case("unique_axis", [("x", ann((3, 2), "int64"))],
             "y = R.unique(x, True, False, True, False, 0)",
             [ok([T_(a)], [T_(np.array([[1, 2], [3, 4]], "int64")),
                           T_(np.array([0, 1, 0], "int64"))])],
             ["relax.unique", "EXEC-search-unique-1", "SI-search-unique-1"],
             "unique rows (axis 0) with the inverse: rows [1, 2] and [3, 4]")
    a = np.array([[2, 0], [2, 1]], "int64")
    add_case("unique_axis_none_keyword", [("x", ann((2, 2), "int64"))],
             "y = R.unique(x, axis=None)",
             [ok([T_(a)], [T_(np.array([0, 1, 2], "int64"))])],
             ["relax.unique", "SI-call-2", "EXEC-search-unique-1", "SI-search-unique-3"],
             "R.unique(x, axis=None): an operand written None is absent, so the tensor is "
             "flattened (SI-call-2)")
    invalid("unique_invalid_axis", [("x", ann((3, 2)))], "y = R.unique(x, True, False, False, "
            "False, 2)", "SI-op-axis-1", ["relax.unique", "SI-search-unique-1"],
            "unique with axis 2 of a 2-d tensor (SI-search-unique-1)")
    invalid("unique_invalid_flag", [("x", ann((3,))), ("f", prim_ann("bool"))],
            "y = R.unique(x, True, f, False, False)", "SI-search-unique-2", ["relax.unique"],
            "unique's return_index must be a constant (SI-search-unique-2)")
    a = np.array([[0, 1, 0], [2, 0, 3]], "int32")
    add_case("nonzero_2d", [("x", ann((2, 3), "int32"))],
             'y: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)',
             [ok([T_(a)], [T_(np.array(np.nonzero(a), "int64"))])],
             ["relax.nonzero", "EXEC-search-nonzero-1", "SI-search-nonzero-1"],
             "nonzero gives one row of indices per dimension: [[0, 1, 1], [1, 0, 2]]")
    b = np.array([False, True, True, False])
    add_case("nonzero_bool_1d", [("x", ann((4,), "bool"))], "y = R.nonzero(x)",
             [ok([T_(b)], [T_(np.array([[1, 2]], "int64"))])],
             ["relax.nonzero", "EXEC-search-nonzero-1", "SI-search-nonzero-1"],
             "nonzero of a 1-d bool tensor: shape (1, 2)")
    add_case("nonzero_none", [("x", ann((3,)))], "y = R.nonzero(x)",
             [ok([T_(np.zeros(3, "float32"))], [T_(np.zeros((1, 0), "int64"))])],
             ["relax.nonzero", "EXEC-search-nonzero-1"], "nonzero of all zeros: shape (1, 0)")
    # sort / argsort
    SO = ["EXEC-search-sort-1", "SI-search-sort-1"]
    a = fdata((3, 4), 950)
    add_case("sort_last_axis", [("x", ann((3, 4)))], "y = R.sort(x)",
             [ok([T_(a)], [T_(np.sort(a, axis=-1))])], ["relax.sort"] + SO,
             "sort along the last axis, ascending")
    a = idata((4, 2), 951, dtype="int64")
    add_case("sort_axis0_descending", [("x", ann((4, 2), "int64"))],
             "y = R.sort(x, axis=0, descending=True)",
             [ok([T_(a)], [T_(-np.sort(-a, axis=0))])], ["relax.sort"] + SO,
             "int64 sort along axis 0, descending")
    a = np.array([2.0, np.nan, -1.0, np.inf, 0.5], "float32")
    add_case("sort_nan", [("x", ann((5,)))], "y = R.sort(x)",
             [ok([T_(a)], [T_(np.sort(a))])], ["relax.sort"] + SO,
             "sort puts NaN last (NumPy)")
    runs = [ok([T_(fdata((nv,), 952 + nv))], [T_(np.sort(fdata((nv,), 952 + nv)))])
            for nv in (5, 1, 0)]
    add_case("sort_symbolic", [("x", ann(("n",)))],
             'y: R.Tensor((n,), dtype="float32") = R.sort(x)', runs, ["relax.sort"] + SO,
             "sort of (n,), n = 5, 1 and 0", sym=("n",))
    a = np.array([3, 1, 3, 2, 1, 3], "int32")
    add_case("argsort_stable", [("x", ann((6,), "int32"))],
             'y: R.Tensor((6,), dtype="int32") = R.argsort(x)',
             [ok([T_(a)], [T_(np.argsort(a, kind="stable").astype("int32"))])],
             ["relax.argsort", "EXEC-search-sort-1", "SI-search-argsort-1"],
             "argsort is stable: equal keys keep their input order ([1, 4, 3, 0, 2, 5])")
    add_case("argsort_descending_i64", [("x", ann((6,), "int32"))],
             'y: R.Tensor((6,), dtype="int64") = R.argsort(x, descending=True, dtype="int64")',
             [ok([T_(a)], [T_(stable_desc(a, -1).astype("int64"))])],
             ["relax.argsort", "EXEC-search-sort-1", "SI-search-argsort-1"],
             "argsort descending, stable ([0, 2, 5, 3, 1, 4]), as int64")
    a = fdata((2, 3), 955)
    add_case("argsort_axis0", [("x", ann((2, 3)))], "y = R.argsort(x, axis=0)",
             [ok([T_(a)], [T_(np.argsort(a, axis=0, kind="stable").astype("int32"))])],
             ["relax.argsort", "EXEC-search-sort-1", "SI-search-argsort-1"],
             "argsort along axis 0 (default dtype int32)")
    add_case("sort_unknown_ndim_trap", [("x", ann(None))], "y = R.sort(x, axis=1)",
             [ok([T_(fdata((2, 3), 956))], [T_(np.sort(fdata((2, 3), 956), axis=1))]),
              trap([T_(fdata((3,), 957))], "invalid_value")],
             ["relax.sort", "EXEC-search-sort-1"],
             "sort along axis 1 of unknown ndim: a 1-d argument traps invalid_value "
             "(EXEC-search-sort-1)")
    invalid("sort_invalid_axis", [("x", ann((2, 3)))], "y = R.sort(x, axis=2)", "SI-op-axis-1",
            ["relax.sort", "SI-search-sort-1"], "sort axis 2 of a 2-d tensor (SI-search-sort-1)")
    invalid("argsort_invalid_axis", [("x", ann((2, 3)))], "y = R.argsort(x, axis=-3)",
            "SI-op-axis-1", ["relax.argsort", "SI-search-argsort-1"],
            "argsort axis -3 of a 2-d tensor")
    # topk
    TK = ["relax.topk", "EXEC-search-topk-1", "SI-search-topk-1", "SI-search-topk-2"]
    a = np.array([[3, 1, 2, 1], [0, 5, 5, -1]], "int32")
    add_case("topk_both", [("x", ann((2, 4), "int32"))],
             "y = R.topk(x, k=2)",
             [ok([T_(a)], [T_(np.array([[3, 2], [5, 5]], "int32")),
                           T_(np.array([[0, 2], [1, 2]], "int32"))])], TK,
             "topk k = 2 (largest, both): ([[3, 2], [5, 5]], [[0, 2], [1, 2]]); ties keep order")
    a = fdata((4, 3), 960)
    idx = np.argsort(a, axis=0, kind="stable")[:2]
    add_case("topk_smallest_values", [("x", ann((4, 3)))],
             'y: R.Tensor((2, 3), dtype="float32") = R.topk(x, k=2, axis=0, ret_type="values", '
             "largest=False)",
             [ok([T_(a)], [T_(np.take_along_axis(a, idx, 0))])], TK,
             "topk k = 2 smallest along axis 0, values only")
    a = fdata((2, 3), 961)
    idx = stable_desc(a, -1)
    add_case("topk_k_over_n_indices", [("x", ann((2, 3)))],
             'y = R.topk(x, k=5, ret_type="indices", dtype="int64")',
             [ok([T_(a)], [T_(idx.astype("int64"))])], TK,
             "topk with k = 5 over 3 elements returns all 3, indices only, as int64")
    add_case("topk_k0_all", [("x", ann((2, 3)))], 'y = R.topk(x, k=0, ret_type="values")',
             [ok([T_(a)], [T_(np.take_along_axis(a, idx, -1))])], TK,
             "topk with k < 1 returns every element, sorted largest first")
    runs = []
    for nv in (5, 1):
        x = fdata((nv,), 962 + nv)
        order = stable_desc(x, -1)[:min(2, nv)]
        runs.append(ok([T_(x)], [T_(x[order]), T_(order.astype("int32"))]))
    add_case("topk_symbolic", [("x", ann(("n",)))], "y = R.topk(x, k=2)", runs, TK,
             "topk k = 2 along a symbolic axis: min(2, n) elements; n = 5 and 1", sym=("n",))
    invalid("topk_invalid_axis", [("x", ann((2, 3)))], "y = R.topk(x, k=1, axis=2)",
            "SI-op-axis-1", ["relax.topk", "SI-search-topk-1"], "topk axis 2 of a 2-d tensor")


def cases() -> list[Case]:
    _CASES.clear()
    _elementwise()
    _activation()
    _create()
    _indexing()
    _linalg()
    _manipulate()
    _nn()
    _reduce()
    _search()
    return list(_CASES)
