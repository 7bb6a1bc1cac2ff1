"""The TIR interpreter (spec/tir_semantics.md): the scalar definitional path, the
vectorized path, and their agreement, bit for bit."""
from __future__ import annotations

import contextlib
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT32, parse_dtype
from relax_ref.parser.builder import parse
from relax_ref.semantics import tir_interp
from relax_ref.errors import ResourceError, RuntimeCheckError
from relax_ref.semantics.memory import poison_array, poison_mask
from relax_ref.numerics import out_of_range_int
from relax_ref.semantics.tir_interp import run_prim_func
from relax_ref.solver.evaluate import evaluate_int
from tests.conftest import sample_files

MODES = ("scalar", "vectorized", "auto")
INT_MIN, INT_MAX = -2**31, 2**31 - 1


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------

def prim_funcs(text: str) -> dict[str, tir.PrimFunc]:
    return {k: f for k, f in parse(text).items() if isinstance(f, tir.PrimFunc)}


def one_func(text: str) -> tir.PrimFunc:
    (func,) = prim_funcs(text).values()
    return func


def bits(a: np.ndarray) -> bytes:
    """The bytes of ``a`` with every NaN made the same NaN: IEEE 754 leaves the sign and
    payload of a NaN result unspecified (NumPy's scalar and array loops may order the
    operands of a commutative operation differently), so the two paths agree on
    everything else, bit for bit, and on where the NaNs are."""
    a = np.asarray(a)
    if a.dtype.kind == "f" or a.dtype.name in ("bfloat16", "float16"):
        wide = a.astype(np.float64)
        if np.isnan(wide).any():
            a = a.copy()
            a[np.isnan(wide)] = np.nan
    return a.tobytes()


def close_to(x: np.ndarray, y: np.ndarray) -> bool:
    """EXEC-tir-vec-7's agreement: integers and bools bit for bit; floats at the same
    NaN positions and elsewhere within float32 rounding of a reassociated sum."""
    if x.dtype.kind != "f":
        return bits(x) == bits(y)
    a, b = x.astype(np.float64), y.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    # A sum with an infinity is that infinity (or NaN) in any order.
    if not np.array_equal(np.where(np.isinf(a), a, 0), np.where(np.isinf(b), b, 0)):
        return False
    keep = np.isfinite(a)
    scale = max(1.0, float(np.max(np.abs(a[keep]), initial=0.0)))
    return bool(np.allclose(a[keep], b[keep], rtol=1e-5, atol=1e-5 * scale))


def run_all_modes(func, args, **kw):
    """Run ``func`` in every mode on copies of ``args``; check that the modes agree
    with the scalar path: bit for bit, except ``auto`` whose contractions reassociate
    float sums (EXEC-tir-vec-7); return the scalar path's arrays and the vectorized
    path's stats."""
    results, stats = {}, {}
    for mode in MODES:
        arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        stats[mode] = {}
        ret = run_prim_func(func, arrays, mode=mode, stats=stats[mode], **kw)
        results[mode] = (ret, arrays)
    for mode in MODES:
        assert results[mode][0] == results["scalar"][0]
        for x, y in zip(results["scalar"][1], results[mode][1]):
            if isinstance(x, np.ndarray):
                if mode == "auto" and stats["auto"]["contracted"]:
                    assert close_to(x, y), mode
                else:
                    assert bits(x) == bits(y), mode
    return results["scalar"][1], stats["vectorized"]


def errors_in_all_modes(func, args, check: str) -> list[RuntimeCheckError]:
    """Every mode raises a RuntimeCheckError of ``check`` and leaves the same memory."""
    errors, memories = [], []
    for mode in MODES:
        arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        with pytest.raises(RuntimeCheckError) as info:
            run_prim_func(func, arrays, mode=mode)
        assert info.value.check == check, (mode, info.value)
        errors.append(info.value)
        memories.append([bits(a) for a in arrays if isinstance(a, np.ndarray)])
    assert all(m == memories[0] for m in memories)
    return errors


def sample_args(func: tir.PrimFunc, sizes: dict[str, int], rng) -> list[np.ndarray]:
    out = []
    for param in func.params:
        buf = func.buffer_of(param)
        env = {v: sizes[v.name] for d in buf.shape for v in P.free_vars(d)}
        shape = tuple(evaluate_int(d, env) for d in buf.shape)
        out.append(rng.standard_normal(shape).astype(str(buf.dtype)))
    return out


def elementwise(expr: str, n: int, a="int32", b="int32", out="int32") -> tir.PrimFunc:
    """``O[i] = expr`` for i in [0, n), over A and B."""
    return one_func(f'''
@T.prim_func
def f(A: T.Buffer(({n},), "{a}"), B: T.Buffer(({n},), "{b}"), O: T.Buffer(({n},), "{out}")):
    for i in T.serial({n}):
        O[i] = {expr}
''')


def run_elementwise(expr, a_values, b_values, a="int32", b="int32", out="int32"):
    n = len(a_values)
    func = elementwise(expr, n, a, b, out)
    args = [np.array(a_values, dtype=a), np.array(b_values, dtype=b), np.zeros(n, dtype=out)]
    arrays, stats = run_all_modes(func, args)
    assert stats["vectorized"] == 1 and stats["fallback"] == 0
    return arrays[2]


# ---------------------------------------------------------------------------------------
# The samples: both paths agree, and agree with NumPy and with TVM's recorded outputs
# ---------------------------------------------------------------------------------------

def _sample_prim_funcs():
    cases = []
    for path in sample_files():
        for name, func in prim_funcs(path.read_text()).items():
            cases.append(pytest.param(path, name, id=f"{path.name}:{name}"))
    return cases


@pytest.mark.parametrize("path,name", _sample_prim_funcs())
@pytest.mark.parametrize("size", [1, 5])
def test_sample_prim_func_paths_agree(path, name, size):
    func = prim_funcs(path.read_text())[name]
    rng = np.random.default_rng(size)
    args = sample_args(func, {"b": size, "n": size}, rng)
    arrays, stats = run_all_modes(func, args)
    assert stats["fallback"] == 0 and stats["vectorized"] >= 1
    # The last parameter is the output: every element is written.
    assert not np.isnan(arrays[-1]).any()


@pytest.fixture(scope="module")
def mlp(samples_dir):
    return prim_funcs((samples_dir / "mlp.legalized.py").read_text())


def _sequential_matmul(x, w):
    acc = np.zeros((x.shape[0], w.shape[1]), np.float32)
    for k in range(x.shape[1]):
        acc = acc + x[:, k:k + 1] * w[k:k + 1, :]
    return acc


def test_matmul_is_a_sequential_fold_in_float32(mlp):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 16)).astype(np.float32)
    w = rng.standard_normal((16, 32)).astype(np.float32)
    (_, _, out), stats = run_all_modes(mlp["matmul"], [x, w, poison_array((7, 32), parse_dtype("float32"))])
    assert stats["vectorized"] == 1
    assert np.array_equal(out, _sequential_matmul(x, w))
    np.testing.assert_allclose(out, x @ w, rtol=1e-5, atol=1e-5)


def test_add_and_softmax_match_numpy(mlp):
    rng = np.random.default_rng(1)
    h = rng.standard_normal((4, 32)).astype(np.float32)
    b1 = rng.standard_normal(32).astype(np.float32)
    (_, _, out), _ = run_all_modes(mlp["add"], [h, b1, np.zeros((4, 32), np.float32)])
    assert np.array_equal(out, h + b1)

    o = (rng.standard_normal((4, 8)) * 10).astype(np.float32)
    (_, p), _ = run_all_modes(mlp["softmax"], [o, np.zeros((4, 8), np.float32)])
    # Bit-exact against the same formula in NumPy: a max fold, exp in float64 rounded to
    # float32, a sequential sum, a division.
    m = o.max(axis=1)
    e = np.exp((o - m[:, None]).astype(np.float64)).astype(np.float32)
    s = np.zeros(4, np.float32)
    for k in range(8):
        s = s + e[:, k]
    assert np.array_equal(p, e / s[:, None])
    ref = np.exp(o - o.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, ref / ref.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-7)


def test_fused_matmul_add_gelu_matches_numpy(samples_dir):
    func = prim_funcs((samples_dir / "mlp.fused.py").read_text())["fused_matmul_add_gelu"]
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    w = rng.standard_normal((16, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    (_, _, _, out), _ = run_all_modes(func, [x, w, b, np.zeros((6, 32), np.float32)])
    h = x.astype(np.float64) @ w.astype(np.float64) + b
    erf = np.vectorize(math.erf)
    gelu = h * 0.5 * (1.0 + erf(h / math.sqrt(2.0)))
    np.testing.assert_allclose(out, gelu, rtol=1e-5, atol=1e-5)


def test_row_sum_sample(samples_dir):
    func = prim_funcs((samples_dir / "call_tir_reduction.py").read_text())["row_sum"]
    data = np.load(samples_dir / "call_tir_reduction.run0.npz")
    (_, out), stats = run_all_modes(func, [data["in_0"], np.zeros(4, np.float32)])
    np.testing.assert_allclose(out, data["out_0"], rtol=1e-6)


@pytest.mark.parametrize("run", ["run0", "run1"])
def test_legalized_mlp_chain_matches_tvm(samples_dir, mlp, run):
    data = np.load(samples_dir / f"mlp.legalized.{run}.npz")
    x, w1, b1, w2 = (data[f"in_{k}"] for k in range(4))
    b = x.shape[0]

    def call(name, *inputs, out_shape):
        out = poison_array(out_shape, parse_dtype("float32"))
        run_prim_func(mlp[name], [*inputs, out])
        return out

    h = call("matmul", x, w1, out_shape=(b, 32))
    h1 = call("add", h, b1, out_shape=(b, 32))
    h2 = call("gelu", h1, out_shape=(b, 32))
    o = call("matmul1", h2, w2, out_shape=(b, 8))
    p = call("softmax", o, out_shape=(b, 8))
    np.testing.assert_allclose(p, data["out_0"], rtol=1e-5, atol=1e-6)


def test_fused_mlp_chain_matches_tvm(samples_dir):
    funcs = prim_funcs((samples_dir / "mlp.fused.py").read_text())
    data = np.load(samples_dir / "mlp.fused.run1.npz")
    x, w1, b1, w2 = (data[f"in_{k}"] for k in range(4))
    b = x.shape[0]
    lv, o, p = (poison_array(s, parse_dtype("float32")) for s in ((b, 32), (b, 8), (b, 8)))
    run_prim_func(funcs["fused_matmul_add_gelu"], [x, w1, b1, lv])
    run_prim_func(funcs["matmul1"], [lv, w2, o])
    run_prim_func(funcs["softmax"], [o, p])
    np.testing.assert_allclose(p, data["out_0"], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# Integer, float and cast semantics (EXEC-tir-int-*, -div-*, -float-*, -cmp-*, -cast-*)
# ---------------------------------------------------------------------------------------

DIVIDENDS = [7, -7, 7, -7, 0, INT_MIN]
DIVISORS = [2, 2, -2, -2, 3, -1]


@pytest.mark.parametrize("expr,expected", [
    ("T.floordiv(A[i], B[i])", [3, -4, -4, 3, 0, INT_MIN]),
    ("A[i] // B[i]", [3, -4, -4, 3, 0, INT_MIN]),
    ("T.floormod(A[i], B[i])", [1, 1, -1, -1, 0, 0]),
    ("A[i] % B[i]", [1, 1, -1, -1, 0, 0]),
    ("T.truncdiv(A[i], B[i])", [3, -3, -3, 3, 0, INT_MIN]),
    ("T.truncmod(A[i], B[i])", [1, -1, 1, -1, 0, 0]),
])
def test_integer_division(expr, expected):
    assert run_elementwise(expr, DIVIDENDS, DIVISORS).tolist() == expected


@pytest.mark.parametrize("expr", ["A[i] // B[i]", "A[i] % B[i]", "T.truncdiv(A[i], B[i])",
                                  "T.truncmod(A[i], B[i])"])
def test_integer_division_by_zero_traps(expr):
    func = elementwise(expr, 3)
    args = [np.array([1, 2, 3], np.int32), np.array([1, 0, 1], np.int32), np.zeros(3, np.int32)]
    errors = errors_in_all_modes(func, args, "division_by_zero")
    assert errors[0].span is not None and errors[0].rule == "EXEC-tir-div-3"


def test_int32_arithmetic_wraps():
    assert run_elementwise("A[i] + B[i]", [INT_MAX, INT_MIN, 5], [1, -1, 6]).tolist() == \
        [INT_MIN, INT_MAX, 11]
    assert run_elementwise("A[i] * B[i]", [65536, 46341, -3], [65536, 46341, 4]).tolist() == \
        [0, 46341 * 46341 - 2**32, -12]
    assert run_elementwise("A[i] - B[i]", [INT_MIN], [1]).tolist() == [INT_MAX]
    assert run_elementwise("A[i] + B[i]", [250, 3], [10, 4], "uint8", "uint8", "uint8").tolist() \
        == [4, 7]


def test_float_to_int_cast_truncates_and_gives_x86_value_out_of_range():
    values = [2.7, -2.7, -0.5, 1e10, np.nan, np.inf, -2147483648.0, 2147483648.0]
    out = run_elementwise('T.Cast("int32", A[i])', values, [0.0] * 8, "float32", "float32")
    assert out.tolist() == [2, -2, 0, INT_MIN, INT_MIN, INT_MIN, INT_MIN, INT_MIN]
    from relax_ref.ir.dtype import parse_dtype
    assert out_of_range_int(parse_dtype("int32")) == INT_MIN


def test_integer_casts_wrap():
    out = run_elementwise('T.Cast("int32", A[i])', [4294967301, 2**31, -2**31 - 1, 5], [0] * 4,
                          "int64", "int64")
    assert out.tolist() == [5, INT_MIN, INT_MAX, 5]
    out = run_elementwise('T.Cast("int8", A[i])', [200, -129, 127], [0] * 3, out="int8")
    assert out.tolist() == [-56, 127, 127]


def test_casts_to_bool_and_from_bool():
    out = run_elementwise('T.Cast("bool", A[i])', [0.0, -0.0, np.nan, 2.0], [0.0] * 4,
                          "float32", "float32", "bool")
    assert out.tolist() == [False, False, True, True]
    out = run_elementwise('T.Cast("float32", A[i])', [True, False], [True, False], "bool",
                          "bool", "float32")
    assert out.tolist() == [1.0, 0.0]


def test_float_comparisons_are_ordered():
    nan = np.nan
    out = run_elementwise("A[i] != B[i]", [nan, 1.0, nan], [nan, 2.0, 1.0], "float32",
                          "float32", "bool")
    assert out.tolist() == [False, True, False]  # LLVM fcmp one
    out = run_elementwise("A[i] == B[i]", [nan, 1.0], [nan, 1.0], "float32", "float32", "bool")
    assert out.tolist() == [False, True]


def test_max_min_are_selects():
    a = [np.nan, 1.0, 0.0, -0.0]
    b = [1.0, np.nan, -0.0, 0.0]
    out = run_elementwise("T.max(A[i], B[i])", a, b, "float32", "float32", "float32")
    assert np.array_equal(out, [1.0, np.nan, -0.0, 0.0], equal_nan=True)
    assert np.signbit(out).tolist() == [False, False, True, False]
    out = run_elementwise("T.min(A[i], B[i])", a, b, "float32", "float32", "float32")
    assert np.signbit(out).tolist() == [False, False, True, False]


def test_float32_rounds_after_each_operation():
    out = run_elementwise("A[i] + B[i] - A[i]", [1.0, 1e8], [1e-8, 1.0], "float32",
                          "float32", "float32")
    assert out.tolist() == [0.0, 0.0]
    out = run_elementwise("A[i] * B[i]", [3.0], [1 / 3], "float16", "float16", "float16")
    assert out[0] == np.float16(3.0) * np.float16(1 / 3)


def test_float_floordiv_and_floormod():
    out = run_elementwise("T.floordiv(A[i], B[i])", [7.0, -7.0], [2.0, 2.0], "float32",
                          "float32", "float32")
    assert out.tolist() == [3.0, -4.0]
    out = run_elementwise("T.floormod(A[i], B[i])", [7.0, -7.0], [2.0, 2.0], "float32",
                          "float32", "float32")
    assert out.tolist() == [1.0, 1.0]
    out = run_elementwise("T.truncmod(A[i], B[i])", [7.5, -7.5], [2.0, 2.0], "float32",
                          "float32", "float32")
    assert out.tolist() == [1.5, -1.5]


@pytest.mark.parametrize("expr,values,expected", [
    ("T.round(A[i])", [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997], [0.0, 2.0, 2.0, -0.0, -2.0, 0.0]),
    ("T.nearbyint(A[i])", [0.5, 1.5, 2.5], [0.0, 2.0, 2.0]),
    ("T.floor(A[i])", [-0.5, 1.5], [-1.0, 1.0]),
    ("T.ceil(A[i])", [-0.5, 1.5], [-0.0, 2.0]),
    ("T.trunc(A[i])", [-1.5, 1.5], [-1.0, 1.0]),
    ("T.fabs(A[i])", [-1.5, 0.0], [1.5, 0.0]),
    ("T.sqrt(A[i])", [4.0, 2.0], [2.0, np.float32(math.sqrt(2.0))]),
    ("T.rsqrt(A[i])", [4.0], [0.5]),
    ("T.exp(A[i])", [0.0, 1.0], [1.0, np.float32(math.e)]),
    ("T.log(A[i])", [1.0, 0.0], [0.0, -np.inf]),
    ("T.erf(A[i])", [0.5, -3.0], [np.float32(math.erf(0.5)), np.float32(math.erf(-3.0))]),
    ("T.tanh(A[i])", [0.5], [np.float32(math.tanh(0.5))]),
    ("T.sigmoid(A[i])", [0.0, 2.0],
     [0.5, np.float32(1) / (np.float32(1) + np.float32(math.exp(-2.0)))]),
])
def test_float_intrinsics(expr, values, expected):
    out = run_elementwise(expr, values, [0.0] * len(values), "float32", "float32", "float32")
    assert np.array_equal(out, np.array(expected, np.float32))
    assert np.signbit(out).tolist() == np.signbit(np.array(expected, np.float32)).tolist()


def test_pow():
    out = run_elementwise("T.pow(A[i], B[i])", [2.0, 9.0], [10.0, 0.5], "float32", "float32",
                          "float32")
    assert out.tolist() == [1024.0, 3.0]


def test_classification_intrinsics():
    out = run_elementwise("T.isnan(A[i])", [np.nan, 1.0, np.inf], [0.0] * 3, "float32",
                          "float32", "bool")
    assert out.tolist() == [True, False, False]
    out = run_elementwise("T.isinf(A[i])", [np.nan, 1.0, -np.inf], [0.0] * 3, "float32",
                          "float32", "bool")
    assert out.tolist() == [False, False, True]
    out = run_elementwise("T.isfinite(A[i])", [np.nan, 1.0, -np.inf], [0.0] * 3, "float32",
                          "float32", "bool")
    assert out.tolist() == [False, True, False]


def test_bitwise_and_shift_intrinsics():
    assert run_elementwise("T.bitwise_and(A[i], B[i])", [12, -1], [10, 7]).tolist() == [8, 7]
    assert run_elementwise("T.bitwise_or(A[i], B[i])", [12], [3]).tolist() == [15]
    assert run_elementwise("T.bitwise_xor(A[i], B[i])", [12], [10]).tolist() == [6]
    assert run_elementwise("T.shift_right(A[i], B[i])", [-8, 8], [1, 2]).tolist() == [-4, 2]
    assert run_elementwise("T.shift_left(A[i], B[i])", [1, 3], [31, 2]).tolist() == [INT_MIN, 12]
    func = elementwise("T.shift_left(A[i], B[i])", 2)
    args = [np.array([1, 1], np.int32), np.array([1, 32], np.int32), np.zeros(2, np.int32)]
    errors_in_all_modes(func, args, "shift_out_of_range")


def test_if_then_else_is_lazy_and_select_is_not():
    lazy = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((6,), "float32")):
    for i in T.serial(6):
        O[i] = T.if_then_else(i < 4, A[T.min(i, 5)], T.float32(-1))
''')
    a = np.arange(4, dtype=np.float32)
    (_, out), stats = run_all_modes(lazy, [a, np.zeros(6, np.float32)])
    assert out.tolist() == [0, 1, 2, 3, -1, -1] and stats["vectorized"] == 1
    eager = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((6,), "float32")):
    for i in T.serial(6):
        O[i] = T.Select(i < 4, A[T.min(i, 5)], T.float32(-1))
''')
    errors_in_all_modes(eager, [a, np.zeros(6, np.float32)], "index_out_of_bounds")


def test_unknown_intrinsic_is_unsupported():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    for i in T.serial(2):
        A[i] = T.call_pure_extern("float32", "mysterious", A[i])
''')
    errors = errors_in_all_modes(func, [np.zeros(2, np.float32)], "unsupported")
    assert "mysterious" in errors[0].message or "call_pure_extern" in errors[0].message


# ---------------------------------------------------------------------------------------
# Poison (EXEC-tir-poison-1)
# ---------------------------------------------------------------------------------------

def test_reading_memory_before_writing_it_gives_poison():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    C = T.sblock_alloc_buffer((4,))
    for i in T.serial(4):
        with T.sblock("c"):
            vi = T.axis.spatial(4, i)
            O[vi] = C[vi] + A[vi]
''')
    (_, out), _ = run_all_modes(func, [np.ones(4, np.float32), np.zeros(4, np.float32)])
    assert np.isnan(out).all()


def test_output_read_before_written_is_nan_when_the_caller_poisons_it():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        O[i] = O[i] + A[i]
''')
    (_, out), stats = run_all_modes(func, [np.ones(4, np.float32), poison_array((4,), parse_dtype("float32"))])
    assert np.isnan(out).all() and stats["vectorized"] == 1


def test_integer_poison_is_out_of_bounds_as_an_index():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
    K = T.decl_buffer((4,), "int32")
    for i in T.serial(4):
        O[i] = A[K[i]]
''')
    errors = errors_in_all_modes(func, [np.ones(4, np.float32), np.zeros(4, np.float32)],
                                 "index_out_of_bounds")
    assert "index -1 " in errors[0].message  # poison (all bytes 0xFF) reads -1


def test_poison_values():
    """One poison rule (memory.py): every byte 0xFF."""
    from relax_ref.ir.dtype import parse_dtype as pd
    assert np.isnan(poison_array((1,), pd("float32"))[0])
    assert np.isnan(poison_array((1,), pd("bfloat16")).astype(np.float32)[0])
    assert poison_array((1,), pd("int8"))[0] == -1 and poison_array((1,), pd("uint8"))[0] == 255
    arr = poison_array((2, 3), pd("int64"))
    assert arr.dtype == np.int64 and (arr == -1).all() and poison_mask(arr).all()
    assert poison_mask(np.array([1.0, np.nan], np.float32)).tolist() == [False, True]


# ---------------------------------------------------------------------------------------
# Loads and stores out of bounds (EXEC-tir-load-1, EXEC-tir-store-1)
# ---------------------------------------------------------------------------------------

def test_out_of_bounds_load_traps_naming_buffer_index_and_shape():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4, 3), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        O[i] = A[i, i]
''')
    args = [np.ones((4, 3), np.float32), np.zeros(4, np.float32)]
    errors = errors_in_all_modes(func, args, "index_out_of_bounds")
    message = errors[0].message
    assert "A" in message and "3" in message and "(4, 3)" in message
    assert errors[0].span is not None and errors[0].rule == "EXEC-tir-load-1"


def test_out_of_bounds_store_traps_after_the_earlier_stores():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((6,), "float32"), O: T.Buffer((4,), "float32")):
    for i in T.serial(6):
        O[i] = A[i] * T.float32(2)
''')
    args = [np.arange(6, dtype=np.float32), np.zeros(4, np.float32)]
    errors_in_all_modes(func, args, "index_out_of_bounds")
    out = np.zeros(4, np.float32)
    with pytest.raises(RuntimeCheckError):
        run_prim_func(func, [args[0], out], mode="vectorized")
    assert out.tolist() == [0, 2, 4, 6]


# ---------------------------------------------------------------------------------------
# Binding (EXEC-tir-bind-1 .. 3)
# ---------------------------------------------------------------------------------------

BIAS_ADD = '''
@T.prim_func
def bias_add(a: T.handle, b: T.Buffer((T.int64(8),), "float32"), c: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(8)), "float32")
    C = T.match_buffer(c, (n, T.int64(8)), "float32")
    for i, j in T.grid(n, T.int64(8)):
        with T.sblock("c"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + b[vj]
'''


def test_symbolic_dimension_binds_at_first_occurrence():
    func = one_func(BIAS_ADD)
    x = np.ones((3, 8), np.float32)
    (_, _, c), _ = run_all_modes(func, [x, np.arange(8, dtype=np.float32),
                                        np.zeros((3, 8), np.float32)])
    assert np.array_equal(c, x + np.arange(8, dtype=np.float32))


@pytest.mark.parametrize("args,check,words", [
    ([np.ones((3, 8), np.float32), np.ones(8, np.float32), np.ones((4, 8), np.float32)],
     "shape_mismatch", ["C", "expected 3", "found 4"]),
    ([np.ones((3, 8), np.float32), np.ones(7, np.float32), np.ones((3, 8), np.float32)],
     "shape_mismatch", ["b", "expected 8", "found 7"]),
    ([np.ones((3, 8), np.float64), np.ones(8, np.float32), np.ones((3, 8), np.float32)],
     "dtype_mismatch", ["A", "float32", "float64"]),
    ([np.ones((3, 8, 1), np.float32), np.ones(8, np.float32), np.ones((3, 8), np.float32)],
     "shape_mismatch", ["2 dimensions", "found 3"]),
    ([np.ones((3, 8), np.float32), np.ones(8, np.float32)], "signature", ["3 arguments"]),
    ([np.ones((3, 8), np.float32), 1.0, np.ones((3, 8), np.float32)], "signature", ["b"]),
])
def test_binding_mismatches(args, check, words):
    func = one_func(BIAS_ADD)
    with pytest.raises(RuntimeCheckError) as info:
        run_prim_func(func, args)
    assert info.value.check == check
    assert info.value.rule.startswith("EXEC-tir-bind")
    for w in words:
        assert w in info.value.message, info.value.message


def test_scalar_parameters_and_return_value():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), n: T.int32, s: T.float32) -> T.float32:
    for i in T.serial(4):
        A[i] = A[i] * n
    return s * T.float32(2)
''')
    from relax_ref.values import PrimScalar

    a = np.arange(4, dtype=np.int32)
    ret = run_prim_func(func, [a, PrimScalar(3, INT32), 1.25])
    assert a.tolist() == [0, 3, 6, 9]
    assert ret.value == 2.5 and str(ret.dtype) == "float32"
    with pytest.raises(RuntimeCheckError) as info:
        run_prim_func(func, [a, 2**40, 1.0])
    assert info.value.check == "dtype_mismatch"


def test_strided_arrays_are_viewed_as_they_are():
    func = one_func(BIAS_ADD)
    x = np.arange(64, dtype=np.float32).reshape(8, 8)[::2]  # every other row: strided
    (_, _, c), _ = run_all_modes(func, [x, np.zeros(8, np.float32),
                                        np.zeros((4, 8), np.float32)])
    assert np.array_equal(c, x)


# ---------------------------------------------------------------------------------------
# Statements: blocks, init, predicates, loops, while, assert, limits
# ---------------------------------------------------------------------------------------

def test_block_binding_outside_its_domain_traps():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in T.serial(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i + 2)
            A[vi] = T.float32(1)
''')
    errors = errors_in_all_modes(func, [np.zeros(8, np.float32)], "block_binding")
    assert "vi" in errors[0].message


def test_init_runs_at_the_reduction_minimum_and_predicates_skip_instances():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
    for i, k in T.grid(3, 5):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.where(k > 0)
            with T.init():
                B[vi] = T.float32(100)
            B[vi] = B[vi] + A[vi, vk]
''')
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    b0 = np.array([1.0, 2.0, 3.0], np.float32)
    (_, b), stats = run_all_modes(func, [a, b0])
    # The instance with k == 0 is skipped, so init never runs: B keeps its value.
    assert b.tolist() == (b0 + a[:, 1:].sum(axis=1)).tolist()
    assert stats["vectorized"] == 1


def test_reduction_over_an_offset_domain():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
    for i in T.serial(3):
        for k in T.serial(1, 5):
            with T.sblock("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(-1000)
                B[vi] = T.max(B[vi], A[vi, vk])
''')
    a = np.array([[9, 1, 2, 3, 4], [9, 5, 1, 1, 1], [9, -1, -2, -3, -4]], np.float32)
    (_, b), stats = run_all_modes(func, [a, np.zeros(3, np.float32)])
    assert b.tolist() == [4, 5, -1] and stats["vectorized"] == 1


def test_reduction_fold_matches_sequential_order_with_nan_and_signed_zeros():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 6):
        with T.sblock("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = T.max(B[vi], A[vi, vk])
''')
    a = np.array([[np.nan, 1, 2, -0.0, 0.0, -1], [1, np.nan, 2, 3, np.nan, 0],
                  [-0.0, -0.0, -1, -2, -3, -4], [np.inf, -np.inf, 0, 0, 0, 0]], np.float32)
    (_, b, _), _ = run_all_modes(func, [a, np.zeros(4, np.float32), np.zeros(4, np.float32)])
    expected = []
    for row in a:
        acc = np.float32(0)
        for x in row:
            acc = acc if acc > x else x
        expected.append(acc)
    assert np.array(expected, np.float32).tobytes() == b.tobytes()


def test_loop_kinds_run_in_order():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    for i in T.parallel(4):
        for j in T.vectorized(3):
            for k in T.unroll(2):
                A[0] = A[0] * 10 + i
''')
    (a,), _ = run_all_modes(func, [np.zeros(1, np.int32)])
    expected = 0
    for i in range(4):
        for _ in range(6):
            expected = (expected * 10 + i + 2**31) % 2**32 - 2**31
    assert a.tolist() == [expected]


def test_while_runs_out_of_steps():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    while A[0] < 10:
        A[0] = A[0] - 1
''')
    with pytest.raises(ResourceError) as info:
        run_prim_func(func, [np.zeros(1, np.int32)], max_steps=1000)
    assert info.value.rule == "EXEC-tir-limit-1"


def test_a_loop_past_the_budget_stops_before_its_first_iteration():
    func = elementwise("A[i] + B[i]", 100)
    args = [np.ones(100, np.int32), np.ones(100, np.int32), np.zeros(100, np.int32)]
    # Scalar: one step for the loop, one per store: 101 steps, known when it starts.
    # Vectorized: the loop's step and ceil(100 / VECTOR_STEP_ITERATIONS) = 1 for the
    # nest; past that the scalar path is asked, and refuses before its first iteration.
    for mode, enough in (("scalar", 101), ("vectorized", 2)):
        out = args[2].copy()
        run_prim_func(func, [args[0], args[1], out], mode=mode, max_steps=enough)
        assert (out == 2).all(), mode
        out = args[2].copy()
        with pytest.raises(ResourceError) as info:
            run_prim_func(func, [args[0], args[1], out], mode=mode, max_steps=enough - 1)
        assert info.value.rule == "EXEC-tir-limit-1" and "101" in info.value.message
        assert (out == 0).all(), mode  # refused before its first iteration


def test_while_true_stops_within_the_default_budget():
    """EXEC-tir-limit-1: the default budget is a count (about 4 s of the scalar path on
    a loaded 2-core machine), not 10^9 steps."""
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    while True:
        A[0] = A[0] + 1
''')
    assert tir_interp.MAX_STEPS <= 2_000_000
    a = np.zeros(1, np.int32)
    with pytest.raises(ResourceError) as info:
        run_prim_func(func, [a], max_steps=5000)
    assert info.value.rule == "EXEC-tir-limit-1" and a[0] == 4999


def test_a_loop_that_passes_the_step_limit_fails_before_it_starts():
    funcs = [one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "float32"), O: T.Buffer((1,), "float32")):
    for i in range(T.int64(1000000000000)):
        O[T.int64(0)] = A[T.int64(0)]
'''), one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "float32"), O: T.Buffer((1,), "float32")):
    O[0] = T.float32(7)
    for i in range(1000000):
        for j in range(1000000):
            O[0] = A[0]
'''), one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "float32"), O: T.Buffer((1,), "float32")):
    O[0] = T.float32(7)
    for i, j in T.grid(1000000, 1000000):
        with T.sblock("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            O[0] = A[0]
'''), one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "float32"), O: T.Buffer((1,), "float32")):
    O[0] = T.float32(7)
    for i in range(40000):
        for j in range(30000):
            if A[0] > T.float32(0):
                O[0] = A[0]
            else:
                O[0] = A[0] + T.float32(1)
''')]
    for func in funcs:
        for mode in MODES:
            out = np.zeros(1, np.float32)
            with pytest.raises(ResourceError) as info:
                run_prim_func(func, [np.ones(1, np.float32), out], mode=mode)
            assert info.value.rule == "EXEC-tir-limit-1"
            assert f"more than {tir_interp.MAX_STEPS} steps" in info.value.message
            assert out[0] in (0, 7), mode


def test_a_loop_the_limit_stops_midway_stops_at_the_same_statement_in_every_mode():
    # The body takes one step when the branch is skipped, two when it runs: the loop
    # may finish within 150 steps when it starts, and passes them at i = 74.
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((100,), "int32"), O: T.Buffer((100,), "int32")):
    for i in range(100):
        if A[i] > 0:
            O[i] = A[i] * 2
''')
    for mode in MODES:
        out = np.zeros(100, np.int32)
        with pytest.raises(ResourceError) as info:
            run_prim_func(func, [np.ones(100, np.int32), out], mode=mode, max_steps=150)
        assert "ran more than 150 steps" in info.value.message
        assert (out[:74] == 2).all() and (out[74:] == 0).all(), mode


def test_a_loop_that_may_return_early_is_not_refused():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "int32")) -> T.int32:
    for i in range(1000000000000):
        if i == 3:
            return A[0] + 1
        A[0] = A[0] + 1
    return 0
''')
    for mode in MODES:
        a = np.zeros(1, np.int32)
        assert run_prim_func(func, [a], mode=mode).value == 4 and a[0] == 3


def test_thread_loops_that_pass_the_step_limit_fail_before_they_start():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    tx = T.int32()
    with T.launch_thread(tx, 1000):
        A[0] = A[0] + 1
''')
    a = np.zeros(1, np.int32)
    run_prim_func(func, [a], max_steps=1001)
    assert a[0] == 1000
    with pytest.raises(ResourceError) as info:
        run_prim_func(func, [a], max_steps=1000)
    assert info.value.rule == "EXEC-tir-limit-1" and a[0] == 1000


@pytest.mark.parametrize("text", ['''
@T.prim_func
def f(A: T.Buffer((64,), "float32"), O: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("b"):
            vi = T.axis.spatial(64, i)
            O[vi] = A[vi]
''', '''
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), O: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        O[i, j] = A[i, j]
''', '''
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), O: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 16):
        with T.sblock("r"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                O[vi, vj] = T.float32(0)
            O[vi, vj] = O[vi, vj] + A[vi, vk]
'''])
def test_the_vectorized_path_charges_a_share_of_the_scalar_steps(text, monkeypatch):
    """EXEC-tir-limit-1: a vectorized nest costs its scalar steps divided by
    VECTOR_STEP_ITERATIONS (CONTRACTION_STEP_ITERATIONS for a contraction), rounded up:
    with both at 1 every mode counts the scalar path's steps."""
    func = one_func(text)

    def steps() -> dict:
        counts = {}
        for mode in MODES:
            stats = {}
            args = [np.ones([b.value for b in buf.shape], np.float32)
                    for _, buf in func.buffer_map]
            run_prim_func(func, args, mode=mode, stats=stats)
            counts[mode] = stats["steps"]
            assert mode == "scalar" or stats["vectorized"] == 1
        return counts

    default = steps()
    assert default["vectorized"] < default["scalar"] and default["auto"] < default["scalar"]
    monkeypatch.setattr(tir_interp, "VECTOR_STEP_ITERATIONS", 1)
    monkeypatch.setattr(tir_interp, "CONTRACTION_STEP_ITERATIONS", 1)
    ones = steps()
    assert ones["vectorized"] == ones["auto"] == ones["scalar"] == default["scalar"]


@pytest.mark.parametrize("mode", ["vectorized", "auto"])
def test_the_vectorized_path_makes_no_index_array_the_size_of_the_tensor(mode, monkeypatch):
    """EXEC-tir-vec-5: the loop variable's values are made per chunk, so the memory a
    nest takes beyond its arguments is bounded by the chunk, not the tensor (here a
    16 MiB tensor in chunks of 2^18 elements)."""
    import tracemalloc

    n = 1 << 22
    monkeypatch.setattr(tir_interp, "VECTOR_CHUNK_ELEMENTS", 1 << 18)
    func = one_func(f'''
@T.prim_func
def f(A: T.Buffer(({n},), "float32"), B: T.Buffer(({n},), "float32")):
    for i in range({n}):
        with T.sblock("b"):
            vi = T.axis.spatial({n}, i)
            B[vi] = A[vi] + T.float32(1)
''')
    a, b = np.ones(n, np.float32), np.zeros(n, np.float32)
    tracemalloc.start()
    try:
        stats = {}
        run_prim_func(func, [a, b], mode=mode, stats=stats)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stats["vectorized"] == 1 and (b == 2).all()
    assert peak < a.nbytes // 2, f"{peak} bytes beyond the arguments"


def test_assert_and_let():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((2,), "int32"), n: T.int32):
    m: T.int32 = n * 3
    assert m < 10, "m is too large"
    A[0] = m
''')
    a = np.zeros(2, np.int32)
    run_prim_func(func, [a, 3])
    assert a[0] == 9
    with pytest.raises(RuntimeCheckError) as info:
        run_prim_func(func, [a, 4])
    assert info.value.check == "tir_assert" and info.value.message == "m is too large"
    assert info.value.span is not None


def test_allocation_limit(monkeypatch):
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    C = T.sblock_alloc_buffer((1000, 1000))
    A[0] = C[0, 0]
''')
    monkeypatch.setattr(tir_interp, "MAX_BUFFER_ELEMENTS", 10**5)
    with pytest.raises(ResourceError) as info:
        run_prim_func(func, [np.zeros(2, np.float32)])
    assert "1000000" in info.value.message and info.value.rule == "EXEC-tir-limit-2"


@pytest.mark.parametrize("alloc", [
    'p = T.allocate([100000000000], "float32", "global")\n    X = T.decl_buffer((1,), "float32", data=p)',
    'p = T.allocate([3000000000], "float32", "global")\n    X = T.decl_buffer((1,), "float32", data=p)',
    'p = T.allocate([100000, 100000], "float32", "global")\n    X = T.decl_buffer((1,), "float32", data=p)',
    'X = T.decl_buffer((100000 * 100000,), "float32")',
    'X = T.decl_buffer((3000000000,), "float32")',
])
def test_allocation_limit_of_allocate_and_decl_buffer(alloc):
    func = one_func(f'''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    {alloc}
    X[0] = T.float32(1)
    A[0] = X[0]
''')
    for mode in MODES:
        with pytest.raises(ResourceError) as info:
            run_prim_func(func, [np.zeros(2, np.float32)], mode=mode)
        assert info.value.rule == "EXEC-tir-limit-2" and "elements" in info.value.message


def test_allocate_checks_each_extent():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((2,), "float32"), n: T.int32):
    p = T.allocate([n, n], "float32", "global")
    X = T.decl_buffer((1,), "float32", data=p)
    X[0] = T.float32(1)
    A[0] = X[0]
''')
    a = np.zeros(2, np.float32)
    run_prim_func(func, [a, 2])
    assert a[0] == 1
    with pytest.raises(RuntimeCheckError) as info:
        run_prim_func(func, [a, -2])
    assert info.value.check == "shape_mismatch" and "negative" in info.value.message


def test_match_buffer_views_a_region():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        with T.sblock("row"):
            vi = T.axis.spatial(4, i)
            R = T.match_buffer(A[vi, 2:8], (6,))
            B[vi] = R[0] + R[5]
''')
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    (_, b), _ = run_all_modes(func, [a, np.zeros(4, np.float32)])
    assert b.tolist() == (a[:, 2] + a[:, 7]).tolist()


def test_allocate_and_decl_buffers_share_storage():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((2, 4), "float32")):
    p = T.allocate([8], "float32", "global")
    X = T.decl_buffer((2, 4), "float32", data=p)
    Y = T.decl_buffer((8,), "float32", data=p)
    for i in T.serial(8):
        Y[i] = A[i] * T.float32(2)
    for i, j in T.grid(2, 4):
        B[i, j] = X[i, j]
''')
    a = np.arange(8, dtype=np.float32)
    (_, b), stats = run_all_modes(func, [a, np.zeros((2, 4), np.float32)])
    assert b.tolist() == (2 * a).reshape(2, 4).tolist() and stats["vectorized"] == 2


def read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("mode", MODES)
def test_storing_into_a_read_only_argument_traps(mode):
    """EXEC-tir-bind-4: a module constant (read-only) must not change, whether the
    store goes to the parameter's buffer, through a match_buffer view or through a
    buffer declared on a bare handle."""
    direct = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        A[i] = A[i] + T.float32(1)
''')
    viewed = one_func('''
@T.prim_func
def f(A: T.Buffer((4, 8), "float32")):
    for i in T.serial(4):
        with T.sblock("row"):
            vi = T.axis.spatial(4, i)
            R = T.match_buffer(A[vi, 0:8], (8,))
            R[3] = T.float32(7)
''')
    handle = one_func('''
@T.prim_func
def f(p: T.handle):
    X = T.decl_buffer((4,), "float32", data=p)
    X[2] = T.float32(5)
''')
    for func, shape in ((direct, (4,)), (viewed, (4, 8)), (handle, (4,))):
        constant = read_only(np.zeros(shape, np.float32))
        with pytest.raises(RuntimeCheckError) as info:
            run_prim_func(func, [constant], mode=mode)
        assert info.value.check == "read_only" and info.value.rule == "EXEC-tir-bind-4"
        assert "read-only" in info.value.message
        assert not constant.any()  # the constant itself never changed


def test_read_only_arguments_that_are_only_read_are_fine():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.serial(4):
        B[i] = A[i] * T.float32(2)
    for i in T.serial(4):
        if A[i] > T.float32(100):
            A[i] = T.float32(0)
''')
    # A may be stored into, but only under a condition that does not hold here: the
    # call is fine, because the constant did not change.
    a = read_only(np.arange(4, dtype=np.float32))
    for mode in MODES:
        b = np.zeros(4, np.float32)
        run_prim_func(func, [a, b], mode=mode)
        assert b.tolist() == [0, 2, 4, 6]


def test_vector_lanes_and_bad_modes_are_rejected():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(1), 4)
''')
    errors_in_all_modes(func, [np.zeros(8, np.float32)], "unsupported")
    with pytest.raises(ValueError):
        run_prim_func(func, [np.zeros(8, np.float32)], mode="fast")


def test_non_injective_stores_keep_the_last_write():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((8,), "float32"), O: T.Buffer((3,), "float32")):
    for i in T.serial(8):
        O[i % 3] = A[i]
''')
    (_, out), stats = run_all_modes(func, [np.arange(8, dtype=np.float32), np.zeros(3, np.float32)])
    assert out.tolist() == [6, 7, 5] and stats["vectorized"] == 1


def test_self_dependent_nests_fall_back_to_the_scalar_path():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in T.serial(7):
        A[i + 1] = A[i + 1] + A[i]
''')
    (a,), stats = run_all_modes(func, [np.ones(8, np.float32)])
    assert a.tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert stats["vectorized"] == 0


def test_aliased_arguments_fall_back_to_the_scalar_path():
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
    for i in T.serial(7):
        B[i] = A[6 - i]
''')
    expected = np.arange(8, dtype=np.float32)
    for i in range(7):
        expected[1 + i] = expected[6 - i]
    for mode in MODES:
        x = np.arange(8, dtype=np.float32)  # A and B overlap: B[i] is A[i + 1]
        stats: dict = {}
        run_prim_func(func, [x[:7], x[1:]], mode=mode, stats=stats)
        assert np.array_equal(x, expected), mode
        assert stats["vectorized"] == 0


# ---------------------------------------------------------------------------------------
# The vectorized path's grid: slices for affine indices, chunks, fold blocks
# ---------------------------------------------------------------------------------------

BATCHED_MATMUL = '''
@T.prim_func
def f(q: T.Buffer((2, 5, 7), "float32"), k: T.Buffer((2, 7, 6), "float32"),
      bias: T.Buffer((6,), "float32"), O: T.Buffer((2, 5, 6), "float32")):
    for b, i, j, r in T.grid(2, 5, 6, 7):
        with T.sblock("matmul"):
            vb, vi, vj, vr = T.axis.remap("SSSR", [b, i, j, r])
            with T.init():
                O[vb, vi, vj] = bias[vj]
            O[vb, vi, vj] = O[vb, vi, vj] + q[vb, vi, vr] * k[vb, vr, vj]
'''


def _sequential_batched_matmul(q, k, bias):
    out = np.empty((q.shape[0], q.shape[1], k.shape[2]), np.float32)
    for b, i, j in np.ndindex(out.shape):
        acc = bias[j]
        for r in range(q.shape[2]):
            acc = np.float32(acc + np.float32(q[b, i, r] * k[b, r, j]))
        out[b, i, j] = acc
    return out


@pytest.mark.parametrize("chunks", [None, (1, 1), (5, 3), (31, 64), (60, 60)])
def test_reduction_folds_in_order_on_the_grid(chunks):
    """EXEC-tir-vec-4: the fold runs over the reduction loop in order, one array
    operation over all the cells per iteration, whatever the chunks and fold blocks
    (EXEC-tir-vec-5): bit-identical to the sequential sum."""
    func = one_func(BATCHED_MATMUL)
    rng = np.random.default_rng(5)
    q, k = (rng.standard_normal(s).astype(np.float32) for s in ((2, 5, 7), (2, 7, 6)))
    bias = rng.standard_normal(6).astype(np.float32)
    with _chunk_sizes(chunks):
        (_, _, _, out), stats = run_all_modes(func, [q, k, bias, np.zeros((2, 5, 6), np.float32)])
    assert stats == {"vectorized": 1, "fallback": 0, "contracted": 0, "strided": 0,
                     "steps": stats["steps"]}
    assert out.tobytes() == _sequential_batched_matmul(q, k, bias).tobytes()


def _sum_3x5_over_4(update: str, dtype: str = "float32") -> tir.PrimFunc:
    """``O[i, j] = sum over r < 4 of update`` for A (3, 4), B (4, 5), O (3, 5), init 0."""
    return one_func(f'''
@T.prim_func
def f(A: T.Buffer((3, 4), "{dtype}"), B: T.Buffer((4, 5), "{dtype}"), O: T.Buffer((3, 5), "{dtype}")):
    for i, j, r in T.grid(3, 5, 4):
        with T.sblock("s"):
            vi, vj, vr = T.axis.remap("SSR", [i, j, r])
            with T.init():
                O[vi, vj] = T.{dtype}(0)
            O[vi, vj] = O[vi, vj] + {update}
''')


def _auto(func, args):
    stats: dict = {}
    arrays = [a.copy() for a in args]
    run_prim_func(func, arrays, mode="auto", stats=stats)
    return arrays, stats


def test_auto_runs_a_float_sum_of_products_as_a_contraction():
    """EXEC-tir-vec-7: in mode auto, the batched matmul (init from another buffer)
    is one batched matrix product; it agrees with the sequential sum within rounding,
    and the ordered modes stay bit-identical."""
    func = one_func(BATCHED_MATMUL)
    rng = np.random.default_rng(7)
    q, k = (rng.standard_normal(s).astype(np.float32) for s in ((2, 5, 7), (2, 7, 6)))
    bias = rng.standard_normal(6).astype(np.float32)
    args = [q, k, bias, np.zeros((2, 5, 6), np.float32)]
    (_, _, _, out), stats = _auto(func, args)
    assert stats["contracted"] == 1 and stats["fallback"] == 0
    expected = _sequential_batched_matmul(q, k, bias)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    run_all_modes(func, args)


@pytest.mark.parametrize("body, shapes, out_shape, reference", [
    # a plain sum (one factor), the store transposed against the loads
    ("O[vj, vi] = O[vj, vi] + A[vi, vr, vj]", [(3, 4, 5)], (5, 3),
     lambda a: a.sum(axis=1).T),
    # the right operand transposed (A @ B.T), an offset index
    ("O[vi, vj] = O[vi, vj] + A[vi, vr] * B[vj, vr + 1]", [(3, 4), (5, 5)], (3, 5),
     lambda a, b: a @ b[:, 1:].T),
    # the batch axis vj in both factors and the cells, the accumulator on the right
    ("O[vi, vj] = A[vi, vr, vj] * B[vr, vj] + O[vi, vj]", [(3, 4, 5), (4, 5)], (3, 5),
     lambda a, b: np.einsum("irj,rj->ij", a, b)),
    # a plain matrix product, the fold loop between the two cell loops
    ("O[vi, vj] = O[vi, vj] + A[vi, vr] * B[vr, vj]", [(3, 4), (4, 5)], (3, 5),
     lambda a, b: a @ b),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_contraction_shapes(body, shapes, out_shape, reference, dtype):
    """EXEC-tir-vec-7 over the operand layouts _dot_general handles."""
    params = ", ".join(f'{n}: T.Buffer({s}, "{dtype}")' for n, s in zip("AB", shapes))
    func = one_func(f'''
@T.prim_func
def f({params}, O: T.Buffer({out_shape}, "{dtype}")):
    for i, r, j in T.grid({out_shape[1] if body.startswith("O[vj") else out_shape[0]}, 4, \
{out_shape[0] if body.startswith("O[vj") else out_shape[1]}):
        with T.sblock("s"):
            vi, vr, vj = T.axis.remap("SRS", [i, r, j])
            {body}
''')
    rng = np.random.default_rng(8)
    ins = [rng.standard_normal(s).astype(dtype) for s in shapes]
    start = rng.standard_normal(out_shape).astype(dtype)
    (*_, out), stats = _auto(func, [*ins, start])
    assert stats["contracted"] == 1
    np.testing.assert_allclose(out, start + reference(*ins), rtol=1e-5, atol=1e-5)
    run_all_modes(func, [*ins, start])


@pytest.mark.parametrize("update, dtype", [
    ("A[vi, vr] * B[vr, vj] * B[vr, vj]", "float32"),   # three factors
    ("A[vi, vr] * B[vr // 2 + vr % 2, vj]", "float32"),  # an index that is not affine
    ("A[vi, vr] * B[vr, vj]", "float16"),               # not float32 / float64
    ("T.max(A[vi, vr], B[vr, vj])", "float32"),         # not a product of loads
    ("A[vi, vr] * B[vi, vj]", "float32"),               # vr in one factor only
])
def test_other_reductions_keep_the_sequential_order(update, dtype):
    """What EXEC-tir-vec-7 does not take folds in order, bit-identical in every mode."""
    func = _sum_3x5_over_4(update, dtype)
    rng = np.random.default_rng(9)
    args = [rng.standard_normal(s).astype(dtype) for s in ((3, 4), (4, 5), (3, 5))]
    _, stats = _auto(func, args)
    assert stats["contracted"] == 0
    scalar = [a.copy() for a in args]
    run_prim_func(func, scalar, mode="scalar")
    auto, _ = _auto(func, args)
    assert bits(auto[2]) == bits(scalar[2])


def test_a_fold_loop_no_factor_uses_is_not_contracted():
    """EXEC-tir-vec-7 forms every product and reassociates the sum only: a fold loop
    that no factor uses adds the same term again at each step (found by the random
    nests: contracting it dropped the repetitions)."""
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((2,), "float32"), O: T.Buffer((2,), "float32")):
    for k, i in T.grid(3, 2):
        O[i] = A[i % 2] + O[i]
''')
    with _auto_min_iterations(1):
        (_, out), _ = run_all_modes(func, [np.array([np.inf, 0.1], np.float32),
                                           np.array([-0.0, 2.0], np.float32)])
    tenth = np.float32(0.1)
    assert out.tolist() == [np.inf, ((np.float32(2) + tenth) + tenth) + tenth]


def test_contraction_keeps_poison_and_bounds_checks():
    """A contraction reads the same elements: poison (NaN) in an operand reaches the
    cells it feeds; an index past the buffer leaves the nest to the scalar path, which
    traps at the exact iteration."""
    func = _sum_3x5_over_4("A[vi, vr] * B[vr, vj]")
    a = np.ones((3, 4), np.float32)
    b = poison_array((4, 5), parse_dtype("float32"))
    b[:, 1:] = 1
    (_, _, out), stats = _auto(func, [a, b, np.zeros((3, 5), np.float32)])
    assert stats["contracted"] == 1
    assert np.isnan(out[:, 0]).all() and (out[:, 1:] == 4).all()
    oob = _sum_3x5_over_4("A[vi, vr] * B[vr, vj + 1]")
    errors = errors_in_all_modes(oob, [a, np.ones((4, 5), np.float32),
                                       np.zeros((3, 5), np.float32)], "index_out_of_bounds")
    assert all("B" in str(e) for e in errors)


def test_several_reduction_loops_fold_in_loop_order_with_a_predicate():
    """Two reduction loops, interleaved with the spatial ones, fold in lexicographic
    order; the predicate skips instances; the store is transposed."""
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((3, 4, 5), "float32"), B: T.Buffer((5, 2), "float32"), O: T.Buffer((2, 3), "float32")):
    for i, r0, j, r1 in T.grid(3, 4, 2, 5):
        with T.sblock("s"):
            vi, vr0, vj, vr1 = T.axis.remap("SRSR", [i, r0, j, r1])
            T.where(r0 + r1 < 6)
            with T.init():
                O[vj, vi] = T.float32(0.5)
            O[vj, vi] = O[vj, vi] - A[vi, vr0, vr1] * B[vr1, vj]
''')
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((5, 2)).astype(np.float32)
    expected = np.empty((2, 3), np.float32)
    for i, j in np.ndindex(3, 2):
        acc = np.float32(0.5)
        for r0, r1 in np.ndindex(4, 5):
            if r0 + r1 < 6:
                acc = np.float32(acc - np.float32(a[i, r0, r1] * b[r1, j]))
        expected[j, i] = acc
    for chunks in (None, (2, 1), (4, 7)):
        with _chunk_sizes(chunks):
            (_, _, out), stats = run_all_modes(func, [a, b, np.zeros((2, 3), np.float32)])
        assert out.tobytes() == expected.tobytes()
        assert stats["vectorized"] == 1 and stats["fallback"] == 0


def test_spatial_grid_slices_transposes_and_keeps_the_last_write():
    """EXEC-tir-vec-3 on the grid: offset and transposed indices read and write slices;
    a loop the stored index does not use stores each element several times, and the
    last iteration's value stays."""
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((6, 5), "float32"), O: T.Buffer((4, 5), "float32"), P: T.Buffer((5,), "float32")):
    for i, j in T.grid(5, 4):
        O[j, i] = A[i + 1, 4 - i] * T.float32(2) + A[1 + i, j]
    for i, j in T.grid(5, 3):
        P[i] = A[j, i]
''')
    a = np.arange(30, dtype=np.float32).reshape(6, 5)
    with _chunk_sizes((3, 1)):
        (_, o, p), stats = run_all_modes(func, [a, np.zeros((4, 5), np.float32),
                                               np.zeros(5, np.float32)])
    i, j = np.meshgrid(np.arange(5), np.arange(4), indexing="ij")
    assert o.T.tolist() == (a[i + 1, 4 - i] * 2 + a[i + 1, j]).tolist()
    assert p.tolist() == a[2].tolist()
    # A[i + 1, 4 - i] is a strided view (EXEC-tir-vec-8), read once per chunk
    assert stats == {"vectorized": 2, "fallback": 0, "contracted": 0, "strided": 10,
                     "steps": stats["steps"]}


def test_reshape_indices_read_a_strided_view():
    """EXEC-tir-vec-8: LegalizeOps' reshape indexes its input with ``//`` and ``%`` of
    the flattened position; on the grid the quotients are constant and the remainders
    affine, so the input is read in place, with the gather's values."""
    func = one_func('''
@T.prim_func
def reshape(A: T.handle, O: T.Buffer((T.int64(8), T.int64(6)), "float32")):
    n = T.int64()
    X = T.match_buffer(A, (n, T.int64(12)))
    for a, b, c in T.grid(n, T.int64(3), T.int64(4)):
        with T.sblock("r"):
            va, vb, vc = T.axis.remap("SSS", [a, b, c])
            O[((va * T.int64(12) + vb * T.int64(4) + vc) // T.int64(6)) % T.int64(8), (vb * T.int64(4) + vc) % T.int64(6)] = X[((vb * T.int64(4) + vc) // T.int64(12) + va) % n, (vb * T.int64(4) + vc) % T.int64(12)] * T.float32(2)
    for i in range(T.int64(6)):
        O[T.int64(7) - i // T.int64(6), T.int64(5) - i] = X[T.int64(3), T.int64(11) - i * T.int64(2)]
''')
    x = np.arange(48, dtype=np.float32).reshape(4, 12)
    (_, o), stats = run_all_modes(func, [x, np.zeros((8, 6), np.float32)])
    expected = (x * 2).reshape(8, 6)
    expected[7, ::-1] = x[3, 11::-2]
    assert o.tolist() == expected.tolist()
    assert stats["strided"] == 2 and stats["fallback"] == 0


@pytest.mark.parametrize("transposed", [False, True])
def test_reshape_that_merges_dimensions_reads_a_strided_view(transposed):
    """EXEC-tir-vec-8: ``X // 4`` and ``X % 4`` index two dimensions that merge (the
    second of length 4, the first stepping over it): the merged dimension's element X.
    A transposed input does not merge; it is gathered, with the same values."""
    func = one_func('''
@T.prim_func
def merge(a: T.handle, O: T.Buffer((T.int64(5), T.int64(12)), "float32"), P: T.Buffer((T.int64(5), T.int64(12)), "float32")):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(3), T.int64(4)), strides=None)
    for i, j in T.grid(T.int64(5), T.int64(12)):
        with T.sblock("merge"):
            vi, vj = T.axis.remap("SS", [i, j])
            O[vi, vj] = A[(vj // T.int64(12) + vi) % n, vj % T.int64(12) // T.int64(4), vj % T.int64(4)]
    for i, j in T.grid(T.int64(5), T.int64(12)):
        with T.sblock("no_merge"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = A[vi, vj // T.int64(6), vj % T.int64(3)]
''')
    a = np.arange(60, dtype=np.float32).reshape(5, 3, 4)
    if transposed:  # the same values, strides (48, 4, 12)
        a = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
    j = np.arange(12)
    for mode in MODES:  # the input itself, not a (contiguous) copy
        out = [np.zeros((5, 12), np.float32), np.zeros((5, 12), np.float32)]
        stats: dict = {}
        run_prim_func(func, [a, *out], mode=mode, stats=stats)
        assert out[0].tolist() == a.reshape(5, 12).tolist()
        assert out[1].tolist() == a[:, j // 6, j % 3].tolist()
        if mode == "vectorized":
            assert stats["strided"] == (0 if transposed else 1)


def test_if_then_else_on_one_axis_runs_each_arm_on_its_part_of_the_grid():
    """EXEC-tir-vec-8 and EXEC-tir-intrin-2: LegalizeOps' concat chooses its input by
    comparing an axis with a constant; each arm runs on its part of the grid, and the
    arm not chosen is not evaluated where it would read out of bounds."""
    func = one_func('''
@T.prim_func
def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 2), "float32"), O: T.Buffer((3, 6), "float32"), S: T.Buffer((3,), "float32")):
    for i, j in T.grid(3, 6):
        with T.sblock("concat"):
            vi, vj = T.axis.remap("SS", [i, j])
            O[vi, vj] = T.if_then_else(T.int32(4) <= vj, B[vi, vj - 4], A[vi, vj] * T.if_then_else(vi * 2 < 9, T.float32(2), A[vi + 5, 0]))
    for i, k in T.grid(3, 6):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + T.if_then_else(vk < 4, A[vi, vk], B[vi, vk - 4] * T.float32(10))
''')
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = -np.arange(6, dtype=np.float32).reshape(3, 2)
    (_, _, o, s), stats = run_all_modes(func, [a, b, np.zeros((3, 6), np.float32),
                                               np.zeros(3, np.float32)])
    assert o.tolist() == np.concatenate([a * 2, b], axis=1).tolist()
    assert s.tolist() == (a.sum(axis=1) + 10 * b.sum(axis=1)).tolist()
    assert stats["vectorized"] == 2 and stats["fallback"] == 0


@pytest.mark.parametrize("index, check", [
    # the range leaves the buffer at one end: the gather reports the index
    ("A[i * 3 % 16 + 1]", "index_out_of_bounds"),
    # the quotient varies over the range: not affine, gathered
    ("A[i // 3 + i % 3]", None),
    # int32 products that wrap for large i: the scalar path's values, gathered
    ("A[(i * 1073741824 + i) % 16]", None),
    # truncating division of a range with negative values: gathered
    ("A[T.truncmod(i - 8, 4) + 4]", None),
])
def test_indices_outside_the_strided_view(index, check):
    func = one_func(f'''
@T.prim_func
def f(A: T.Buffer((16,), "int32"), O: T.Buffer((16,), "int32")):
    for i in range(16):
        O[i] = {index}
''')
    a = np.arange(16, dtype=np.int32) * 10
    if check is not None:
        errors_in_all_modes(func, [a, np.zeros(16, np.int32)], check)
        return
    (_, o), stats = run_all_modes(func, [a, np.zeros(16, np.int32)])
    assert stats["strided"] == 0 and stats["vectorized"] == 1


def test_a_let_that_rebinds_a_loop_variable_hides_the_axis():
    i = P.Var("i", INT32)
    a = tir.Buffer("A", (_imm(5),), parse_dtype("float32"))
    o = tir.Buffer("O", (_imm(4),), parse_dtype("float32"))
    value = P.Let(i, P.Add(i, _imm(1), INT32), tir.BufferLoad(a, (i,), a.dtype), a.dtype)
    body = tir.For(i, _imm(0), _imm(4), "serial", tir.BufferStore(o, value, (i,)))
    handles = [P.Var(n, parse_dtype("handle")) for n in "AO"]
    func = tir.PrimFunc(tuple(handles), tuple(zip(handles, (a, o))), body)
    (_, out), stats = run_all_modes(func, [np.arange(5, dtype=np.float32),
                                           np.zeros(4, np.float32)])
    assert out.tolist() == [1, 2, 3, 4] and stats["vectorized"] == 1


def test_an_index_that_wraps_in_its_type_traps_as_on_the_scalar_path():
    """``i + 120`` in int8 wraps past 127 to a negative index (EXEC-tir-int-1), which
    is out of bounds: the slice the vectorized path would read is not taken."""
    int8 = parse_dtype("int8")
    i = P.Var("i", int8)
    a = tir.Buffer("A", (_imm(200),), parse_dtype("float32"))
    o = tir.Buffer("O", (_imm(16),), parse_dtype("float32"))
    load = tir.BufferLoad(a, (P.Add(i, P.IntImm(120, int8), int8),), a.dtype)
    body = tir.For(i, P.IntImm(0, int8), P.IntImm(16, int8), "serial",
                   tir.BufferStore(o, load, (i,)))
    handles = [P.Var(n, parse_dtype("handle")) for n in "AO"]
    func = tir.PrimFunc(tuple(handles), tuple(zip(handles, (a, o))), body)
    errors = errors_in_all_modes(func, [np.arange(200, dtype=np.float32),
                                        np.zeros(16, np.float32)], "index_out_of_bounds")
    assert "-128" in errors[0].message


# ---------------------------------------------------------------------------------------
# Property: random loop nests run alike on both paths
# ---------------------------------------------------------------------------------------

def _imm(v: int) -> P.IntImm:
    return P.IntImm(v, INT32)


FLOAT_CONSTANTS = [-2.5, -1.0, -0.0, 0.0, 0.5, 1.5, 3.0]
INT_CONSTANTS = [-7, -1, 0, 1, 2, 3, INT_MAX, INT_MIN]


@contextlib.contextmanager
def _chunk_sizes(chunks: tuple | None):
    """Run with ``VECTOR_CHUNK_ELEMENTS, FOLD_BLOCK_ELEMENTS = chunks`` (None: the
    defaults)."""
    saved = tir_interp.VECTOR_CHUNK_ELEMENTS, tir_interp.FOLD_BLOCK_ELEMENTS
    if chunks is not None:
        tir_interp.VECTOR_CHUNK_ELEMENTS, tir_interp.FOLD_BLOCK_ELEMENTS = chunks
    try:
        yield
    finally:
        tir_interp.VECTOR_CHUNK_ELEMENTS, tir_interp.FOLD_BLOCK_ELEMENTS = saved


@contextlib.contextmanager
def _auto_min_iterations(n: int):
    saved = tir_interp.AUTO_MIN_ITERATIONS
    tir_interp.AUTO_MIN_ITERATIONS = n
    try:
        yield
    finally:
        tir_interp.AUTO_MIN_ITERATIONS = saved


@st.composite
def loop_nests(draw):
    """A PrimFunc ``f(A, B, O)`` of one nest of 1-3 loops around one store (plain, or a
    block's body, elementwise or a reduction), with random index expressions (mostly in
    bounds; some a variable plus a constant, which the vectorized path reads by slicing)
    and random operations; random inputs; and random chunk sizes for the vectorized
    path (``VECTOR_CHUNK_ELEMENTS``, ``FOLD_BLOCK_ELEMENTS``)."""
    ndim = draw(st.integers(1, 3))
    extents = [draw(st.integers(1, 4)) for _ in range(ndim)]
    dtype = draw(st.sampled_from(["float32", "int32", "float16", "bfloat16", "int8"]))
    dt = parse_dtype(dtype)
    kind = draw(st.sampled_from(["elementwise", "reduction", "plain"]))
    # EXEC-tir-vec-7's shape, a float32 sum of one load or a product of two indexed by
    # the block's variables, in half of the reductions
    contraction = kind == "reduction" and draw(st.booleans())
    if contraction:
        dtype, dt = "float32", parse_dtype("float32")
    loop_vars = [P.Var(f"i{k}", INT32) for k in range(ndim)]
    iter_vars = [P.Var(f"v{k}", INT32) for k in range(ndim)]
    names = loop_vars if kind == "plain" else iter_vars
    shapes = {name: [draw(st.integers(1, 5)) for _ in range(draw(st.integers(1, 2)))]
              for name in "AB"}
    bufs = {name: tir.Buffer(name, tuple(_imm(d) for d in shape), dt)
            for name, shape in shapes.items()}

    def affine() -> P.PrimExpr:
        e: P.PrimExpr = _imm(draw(st.integers(-4, 4)))
        for v in names:
            c = draw(st.integers(-3, 3))
            if c:
                e = P.Add(e, P.Mul(_imm(c), v, INT32), INT32)
        return e

    def index(extent: int) -> P.PrimExpr:
        how = draw(st.sampled_from(["floormod"] * 6 + ["floordiv", "raw"] + ["axis"] * 3 +
                                   ["reshape", "trunc", "wrapping"]))
        if how == "axis":  # v, v + c, c + v or v - c: may be out of bounds
            v, c = draw(st.sampled_from(names)), _imm(draw(st.integers(-2, 2)))
            return draw(st.sampled_from([v, P.Add(v, c, INT32), P.Add(c, v, INT32),
                                         P.Sub(v, c, INT32)]))
        if how == "reshape":  # ((a * 4 + b) // d + c) % extent: often one quotient
            e = P.Add(P.FloorDiv(affine(), _imm(draw(st.integers(1, 16))), INT32),
                      draw(st.sampled_from(names)), INT32)
            return P.FloorMod(e, _imm(extent), INT32)
        if how == "trunc":  # truncating: the same as floor only on non-negative ranges
            op = draw(st.sampled_from([P.Div, P.Mod]))
            return P.Mod(op(affine(), _imm(draw(st.integers(1, 6))), INT32), _imm(extent),
                         INT32)
        if how == "wrapping":  # int32 arithmetic that wraps for some loop values
            big = P.Mul(draw(st.sampled_from(names)), _imm(draw(st.sampled_from(
                [2**30, 2**31 - 1, -2**30]))), INT32)
            return P.FloorMod(P.Add(big, affine(), INT32), _imm(extent), INT32)
        e = affine()
        if how == "floormod":
            return P.FloorMod(e, _imm(extent), INT32)
        if how == "floordiv":
            return P.FloorDiv(P.FloorMod(e, _imm(2 * extent), INT32), _imm(2), INT32)
        return e  # may be out of bounds: both paths must then trap alike

    def load(name: str) -> P.PrimExpr:
        if len(shapes[name]) == 2 and draw(st.integers(0, 4)) == 0:
            # X // B, X % B with B the inner length: the two dimensions merged
            x, inner = affine(), _imm(shapes[name][1])
            return tir.BufferLoad(bufs[name], (P.FloorDiv(x, inner, INT32),
                                               P.FloorMod(x, inner, INT32)), dt)
        return tir.BufferLoad(bufs[name], tuple(index(d) for d in shapes[name]), dt)

    def const() -> P.PrimExpr:
        if dt.is_float:
            return P.FloatImm(draw(st.sampled_from(FLOAT_CONSTANTS)), dt)
        return P.IntImm(draw(st.sampled_from(INT_CONSTANTS)), dt)

    def condition(depth: int) -> P.PrimExpr:
        cmp = draw(st.sampled_from([P.LT, P.LE, P.EQ, P.NE, P.GT]))
        return cmp(value(depth), value(depth), BOOL)

    def value(depth: int) -> P.PrimExpr:
        choice = draw(st.integers(0, 3 if depth == 0 else 14))
        if choice == 0:
            return load("A")
        if choice == 1:
            return load("B")
        if choice == 2:
            return const()
        if choice == 3:
            return P.Cast(dt, draw(st.sampled_from(names)))
        a, b = value(depth - 1), value(depth - 1)
        if choice <= 8:
            op = [P.Add, P.Sub, P.Mul, P.Max, P.Min][choice - 4]
            return op(a, b, dt)
        if choice == 9:
            op = draw(st.sampled_from([P.Div, P.FloorDiv, P.FloorMod, P.Mod]))
            return op(a, b, dt)
        if choice == 10:
            return P.Select(condition(depth - 1), a, b, dt)
        if choice == 11:
            # Lazy: the load is evaluated only where its first index is in bounds.
            name = draw(st.sampled_from("AB"))
            raw = affine()
            idx = (raw,) + tuple(index(d) for d in shapes[name][1:])
            inside = P.And(P.GE(raw, _imm(0), BOOL), P.LT(raw, _imm(shapes[name][0]), BOOL),
                           BOOL)
            if draw(st.booleans()):  # one comparison: the arms run on parts of the grid
                cmp = draw(st.sampled_from([P.LT, P.LE, P.GT, P.GE]))
                inside = cmp(raw, _imm(draw(st.integers(-1, shapes[name][0]))), BOOL) \
                    if cmp in (P.LT, P.LE) else cmp(_imm(draw(st.integers(-1, 4))), raw, BOOL)
            return P.Call("tir.if_then_else", (inside, tir.BufferLoad(bufs[name], idx, dt), a),
                          dt)
        if choice == 12:
            if dt.is_float:
                return P.Cast(dt, P.Cast(INT32, a))
            return P.Call("tir.bitwise_xor", (a, b), dt)
        if choice == 13:
            if dt.is_float:
                return P.Call(draw(st.sampled_from(["tir.exp", "tir.sqrt", "tir.round",
                                                    "tir.sigmoid"])), (a,), dt)
            return P.Call("tir.shift_left", (a, P.IntImm(draw(st.integers(0, 33)), dt)), dt)
        return P.Cast(dt, P.Cast(parse_dtype("float32" if dt.is_int else "int32"), a))

    depth = draw(st.integers(0, 3))
    update = value(depth)
    predicate: P.PrimExpr = P.IntImm(1, BOOL)
    init = None
    expect_vectorized = True
    if kind == "reduction" or (kind == "plain" and ndim > 1 and draw(st.booleans())):
        kinds = draw(st.lists(st.sampled_from("SR"), min_size=ndim, max_size=ndim)
                     .filter(lambda ks: "R" in ks))
        cell_axes = [k for k in range(ndim) if kinds[k] == "S"]
        if draw(st.booleans()):
            cell_axes = draw(st.permutations(cell_axes))
        out_shape = [extents[k] for k in cell_axes]
        out_index = tuple(names[k] for k in cell_axes)
        if contraction:
            def axis_load(name: str, picked: list[int]) -> P.PrimExpr:
                # Mostly in bounds: each dimension the extent of its variable (or off
                # by one).
                shapes[name] = [max(1, extents[k] + draw(st.sampled_from([0, 0, 0, 1, -1])))
                                for k in picked]
                bufs[name] = tir.Buffer(name, tuple(_imm(d) for d in shapes[name]), dt)
                return tir.BufferLoad(bufs[name], tuple(names[k] for k in picked), dt)

            # Fold axes in both factors, each cell axis in one or both (the shapes
            # EXEC-tir-vec-7 takes), in random orders; or one load of every axis.
            if draw(st.integers(0, 3)):
                a_vars = [k for k in range(ndim) if kinds[k] == "R"]
                b_vars = list(a_vars)
                for k in range(ndim):
                    if kinds[k] == "S":
                        side = draw(st.sampled_from(["A", "B", "both"]))
                        a_vars += [k] if side != "B" else []
                        b_vars += [k] if side != "A" else []
                update = P.Mul(axis_load("A", draw(st.permutations(a_vars))),
                               axis_load("B", draw(st.permutations(b_vars))), dt)
            else:
                update = axis_load("A", draw(st.permutations(range(ndim))))
        if not cell_axes and draw(st.booleans()):
            out_shape, out_index = [1], (_imm(0),)
        O = tir.Buffer("O", tuple(_imm(d) for d in out_shape), dt)
        op = P.Add if contraction else draw(st.sampled_from([P.Add, P.Sub, P.Mul, P.Max,
                                                               P.Min]))
        acc = tir.BufferLoad(O, out_index, dt)
        store_value = op(acc, update, dt) if draw(st.booleans()) else op(update, acc, dt)
        store = tir.BufferStore(O, store_value, out_index)
        if kind == "reduction" and draw(st.booleans()):
            init = tir.BufferStore(O, const(), out_index)
        if kind == "reduction" and draw(st.booleans()):
            predicate = P.LT(P.Add(loop_vars[0], loop_vars[-1], INT32),
                             _imm(draw(st.integers(0, 6))), BOOL)
    else:
        kinds = ["S"] * ndim
        how = draw(st.sampled_from(["identity", "permuted", "collapsing"]))
        if how == "identity":
            out_shape, out_index = extents, tuple(names)
        elif how == "permuted":
            perm = draw(st.permutations(range(ndim)))
            out_shape = [extents[k] for k in perm]
            out_index = tuple(names[k] for k in perm)
        else:
            m = draw(st.integers(1, 4))
            # A computed index, or a data-dependent one (a scatter).
            where = affine() if draw(st.booleans()) else P.Cast(INT32, load("A"))
            out_shape, out_index = [m], (P.FloorMod(where, _imm(m), INT32),)
        O = tir.Buffer("O", tuple(_imm(d) for d in out_shape), dt)
        if draw(st.booleans()):
            update = P.Add(tir.BufferLoad(O, out_index, dt), update, dt)
            expect_vectorized = how != "collapsing"
        store = tir.BufferStore(O, update, out_index)
        if kind == "elementwise" and draw(st.booleans()):
            predicate = P.NE(P.FloorMod(loop_vars[-1], _imm(2), INT32), _imm(1), BOOL)

    body: tir.Stmt = store
    if kind != "plain":
        block = tir.SBlock(
            "blk", tuple(tir.IterVar(v, tir.Range(_imm(0), _imm(e)), k)
                         for v, e, k in zip(iter_vars, extents, kinds)),
            (), (), store, init)
        body = tir.SBlockRealize(tuple(loop_vars), predicate, block)
    for var, extent in reversed(list(zip(loop_vars, extents))):
        body = tir.For(var, _imm(0), _imm(extent), draw(st.sampled_from(["serial", "parallel"])),
                       body)
    handles = [P.Var(n, parse_dtype("handle")) for n in "ABO"]
    func = tir.PrimFunc(tuple(handles), tuple(zip(handles, (bufs["A"], bufs["B"], O))), body)

    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))

    def data(shape):
        if dt.is_float:
            x = rng.choice([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, np.nan, np.inf,
                            1e4], size=shape)
            return x.astype(dtype)
        return rng.choice([-9, -3, -2, -1, 0, 1, 2, 3, 7, INT_MAX, INT_MIN], size=shape) \
            .astype(dtype)

    inputs = [data(shapes["A"]), data(shapes["B"]), data(out_shape)]
    chunks = draw(st.sampled_from([None, (1, 1), (2, 1), (3, 2), (5, 8), (64, 4)]))
    return func, inputs, expect_vectorized, chunks


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=loop_nests())
def test_random_nests_agree_on_both_paths(case):
    func, inputs, expect_vectorized, chunks = case
    outcomes = {}
    for mode in ("scalar", "vectorized", "auto"):
        arrays = [a.copy() for a in inputs]
        stats: dict = {}
        # auto on every nest, however small, so that EXEC-tir-vec-7 runs on these too
        with _chunk_sizes(chunks), _auto_min_iterations(1):
            try:
                run_prim_func(func, arrays, mode=mode, stats=stats)
                check = None
            except RuntimeCheckError as err:
                check = err.check
        outcomes[mode] = (check, [bits(a) for a in arrays], stats, arrays)
    scalar, vector, auto = outcomes["scalar"], outcomes["vectorized"], outcomes["auto"]
    assert scalar[0] == vector[0] == auto[0]
    assert scalar[1] == vector[1]
    if scalar[0] is None and expect_vectorized:
        assert vector[2]["vectorized"] == 1, vector[2]
    # EXEC-tir-vec-7: auto may reassociate the sums it contracts, nothing else.
    if auto[2].get("contracted"):
        assert all(close_to(x, y) for x, y in zip(scalar[3], auto[3]))
    else:
        assert scalar[1] == auto[1]


# ---------------------------------------------------------------------------------------
# The spec points at the code
# ---------------------------------------------------------------------------------------

def test_every_code_pointer_of_the_tir_spec_names_a_definition():
    """Each rule of spec/tir_semantics.md names, in parentheses after it, the functions
    that implement it: each name is defined in the TIR modules (a function, a table, a
    class, or a method of the machine)."""
    from relax_ref.semantics import (
        memory, tir_exprs, tir_packed, tir_vector, tir_vector_arrays, tir_vector_nests,
    )

    spec = (Path(__file__).resolve().parents[2] / "spec" / "tir_semantics.md").read_text()
    modules = {"memory": memory, "tir_exprs": tir_exprs, "tir_vector": tir_vector,
               "tir_vector_arrays": tir_vector_arrays, "tir_vector_nests": tir_vector_nests,
               "tir_packed": tir_packed}
    classes = {"_Machine": tir_interp._Machine, "VectorPath": tir_vector.VectorPath,
               "Evaluator": tir_exprs.Evaluator}
    names = [name for group in re.findall(r"\*\* \(([^)]*)\)", spec)
             for name in re.findall(r"`([A-Za-z_][A-Za-z_0-9.]*)`", re.split("[;:]", group)[0])]
    assert len(names) > 40
    missing = []
    for name in names:
        owner, _, attr = name.rpartition(".")
        if owner:
            found = hasattr(classes.get(owner) or modules.get(owner), attr)
        else:
            found = any(hasattr(m, attr) for m in (tir_interp, *modules.values())) or \
                hasattr(tir_interp._Machine, attr)
        if not found:
            missing.append(name)
    assert not missing


@pytest.mark.parametrize("a_row, b_col", [
    # 1e30 * 1e30 overflows: the ordered sum is inf + -inf = NaN; BLAS's fused
    # multiply-add would keep the exact products and give inf.
    ([1e30, 1e30, 1.0, 1.0], [1e30, -1e30, 1.0, 1.0]),
    # An infinity in a factor.
    ([np.inf, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
    # 3e38 + 3e38 overflows in order; a reassociated sum might not.
    ([3e38, 3e38, -3e38, 1.0], [1.0, 1.0, 1.0, 1.0]),
], ids=["product-overflow", "infinity", "partial-sum-overflow"])
def test_contraction_declines_where_blas_could_change_infs_and_nans(a_row, b_col):
    """EXEC-tir-vec-7: operands that may overflow (or hold an infinity) run in order, so
    auto has the NaNs and infinities of the scalar path (found by the crash sweep)."""
    func = _sum_3x5_over_4("A[vi, vr] * B[vr, vj]")
    a = np.tile(np.array(a_row, np.float32), (3, 1))
    b = np.tile(np.array(b_col, np.float32)[:, None], (1, 5))
    args = [a, b, np.zeros((3, 5), np.float32)]
    (_, _, out), stats = _auto(func, args)
    assert stats["contracted"] == 0
    scalar = [x.copy() for x in args]
    with np.errstate(all="ignore"):
        run_prim_func(func, scalar, mode="scalar")
    assert bits(out) == bits(scalar[2])


_SCALAR_FOLD = '''
@T.prim_func
def f(A: T.Buffer((T.int64(40), T.int64(50)), "DT"), S: T.Buffer((), "DT")):
    for i, k in T.grid(T.int64(40), T.int64(50)):
        with T.sblock("S"):
            vi, vk = T.axis.remap("RR", [i, k])
            with T.init():
                S[()] = INIT
            S[()] = UPDATE
'''


@pytest.mark.parametrize("dtype, init, update, values", [
    ("float32", "T.float32(0)", "S[()] + A[vi, vk]", "normal"),
    ("float16", "T.float16(1)", "S[()] * A[vi, vk]", "near_one"),
    ("int8", "T.int8(0)", "S[()] + A[vi, vk]", "ints"),
    ("float32", 'T.float32("-inf")', "T.max(S[()], A[vi, vk])", "normal"),
    ("float32", 'T.float32("inf")', "T.min(S[()], A[vi, vk])", "zeros_and_nan"),
    ("int32", "T.int32(2147483647)", "T.min(S[()], A[vi, vk])", "ints"),
])
def test_a_fold_into_one_cell_is_whole_array_and_bit_identical(dtype, init, update, values):
    """EXEC-tir-vec-3: a reduction to a 0-d result runs as whole-array operations
    (accumulate for + and *, the extreme for max/min without NaN or zero) with the
    scalar path's exact bits; NaNs and signed zeros keep the sequential fold."""
    text = _SCALAR_FOLD.replace("DT", dtype).replace("INIT", init).replace("UPDATE", update)
    func = one_func(text)
    rng = np.random.default_rng(3)
    a = {"normal": lambda: rng.standard_normal((40, 50)),
         "near_one": lambda: 1 + rng.standard_normal((40, 50)) / 100,
         "ints": lambda: rng.integers(-100, 100, (40, 50)),
         "zeros_and_nan": lambda: np.where(rng.random((40, 50)) < 0.1, 0.0,
                                           np.where(rng.random((40, 50)) < 0.01, np.nan,
                                                    rng.standard_normal((40, 50))))}[values]()
    a = a.astype(dtype)
    a[0, 0] = -0.0 if values == "zeros_and_nan" else a[0, 0]
    run_all_modes(func, [a, np.zeros((), dtype)])
