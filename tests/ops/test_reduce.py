"""Reductions, statistics, arg-reductions and scans (spec/ops/reduce.md): struct-info
deduction (static, symbolic, ndim-only, unknown, every error rule), NumPy semantics
against independent formulas and hand-computed values, and a cross-check of the
deduction against TVM 0.27."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.common import OpRuntimeError
from relax_ref.errors import StructInfoError
from relax_ref.solver.analyzer import Analyzer

from .helpers import compute, deduce, dims, sym, tensor
from .tvm_bridge import TvmBridge

F32, I64 = parse_dtype("float32"), parse_dtype("int64")


def rule_of(excinfo) -> str:
    return excinfo.value.rule


# -- deduction: sum, mean, max, min, prod, variance, std (SI-reduce-1, SI-reduce-2) -------------

@pytest.mark.parametrize("op", ["sum", "mean", "max", "min", "prod", "variance", "std"])
def test_static_shapes(op):
    x = tensor((2, 3, 4))
    assert dims(deduce(op, [x])) == ()
    assert dims(deduce(op, [x], keepdims=True)) == (1, 1, 1)
    assert dims(deduce(op, [x], axis=1)) == (2, 4)
    assert dims(deduce(op, [x], axis=(0, -1))) == (3,)
    assert dims(deduce(op, [x], axis=(-1, 0), keepdims=True)) == (1, 3, 1)
    assert deduce(op, [x]).dtype == F32


def test_empty_axis_tuple_reduces_nothing():
    assert dims(deduce("sum", [tensor((2, 3))], axis=())) == (2, 3)


def test_symbolic_shapes_keep_the_other_dimensions():
    n, m = sym("n"), sym("m")
    out = deduce("sum", [tensor((n, m, 4))], axis=2)
    assert out.shape[0] is n and out.shape[1] is m and out.ndim == 2
    out = deduce("max", [tensor((n, m))], axis=0, keepdims=True)
    assert dims(out)[0] == 1 and out.shape[1] is m


def test_ndim_only_input():
    x = tensor(3)
    out = deduce("sum", [x], axis=(0,))
    assert out.shape is None and out.ndim == 2
    assert dims(deduce("sum", [x], keepdims=True)) == (1, 1, 1)
    assert dims(deduce("sum", [x])) == ()
    out = deduce("sum", [x], axis=1, keepdims=True)
    assert out.shape is None and out.ndim == 3


def test_unknown_ndim_input():
    x = tensor(None)
    assert dims(deduce("mean", [x])) == ()
    out = deduce("mean", [x], keepdims=True)
    assert out.shape is None and out.ndim == -1
    out = deduce("mean", [x], axis=(1,))
    assert out.shape is None and out.ndim == -1


def test_dtypes_are_kept():
    assert str(deduce("sum", [tensor((3,), "int8")]).dtype) == "int8"
    assert str(deduce("mean", [tensor((3,), "int32")]).dtype) == "int32"
    assert str(deduce("prod", [tensor((3,), "bool")]).dtype) == "bool"
    assert deduce("sum", [tensor((3,), "")]).dtype.is_void


def test_axis_out_of_range_is_an_error():
    with pytest.raises(StructInfoError) as e:
        deduce("sum", [tensor((2, 3))], axis=2)
    assert rule_of(e) == "SI-op-axis-1"
    with pytest.raises(StructInfoError) as e:
        deduce("variance", [tensor(2)], axis=(-3,))
    assert rule_of(e) == "SI-op-axis-1"


def test_repeated_axis_is_an_error():
    with pytest.raises(StructInfoError) as e:
        deduce("sum", [tensor((2, 3))], axis=(1, -1))
    assert rule_of(e) == "SI-op-axis-2"


@pytest.mark.parametrize("op", ["mean", "variance", "std"])
def test_statistics_of_bool_are_an_error(op):
    with pytest.raises(StructInfoError) as e:
        deduce(op, [tensor((3,), "bool")])
    assert rule_of(e) == "SI-reduce-2"


def test_non_tensor_operand_is_an_error():
    from relax_ref.ir import struct_info as si

    with pytest.raises(StructInfoError) as e:
        deduce("sum", [si.ShapeStructInfo(ndim=2)])
    assert rule_of(e) == "SI-op-tensor-1"


def test_bad_attribute_is_a_call_error():
    with pytest.raises(StructInfoError) as e:
        deduce("sum", [tensor((2,))], axis="x")
    assert rule_of(e) == "SI-call-1"


# -- deduction: argmax, argmin (SI-reduce-3) ---------------------------------------------------

@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reduce_shapes_and_dtype(op):
    n = sym("n")
    x = tensor((n, 3, 4))
    out = deduce(op, [x])
    assert dims(out) == () and out.dtype == I64
    assert dims(deduce(op, [x], keepdims=True)) == (1, 1, 1)
    out = deduce(op, [x], axis=-1)
    assert out.shape[0] is n and dims(out)[1:] == (3,)
    out = deduce(op, [x], axis=0, keepdims=True)
    assert dims(out) == (1, 3, 4)
    assert dims(deduce(op, [tensor(2)], keepdims=True)) == (1, 1)
    out = deduce(op, [tensor(2, "int32")], axis=1)
    assert out.shape is None and out.ndim == 1 and out.dtype == I64
    assert deduce(op, [tensor(None)], axis=1).ndim == -1
    assert dims(deduce(op, [tensor(())])) == ()


def test_arg_reduce_axis_errors():
    with pytest.raises(StructInfoError) as e:
        deduce("argmax", [tensor((2, 3))], axis=-3)
    assert rule_of(e) == "SI-op-axis-1"
    with pytest.raises(StructInfoError) as e:
        deduce("argmin", [tensor(())], axis=0)
    assert rule_of(e) == "SI-op-axis-1"
    with pytest.raises(StructInfoError):
        deduce("argmax", [tensor((2, 3))], axis=(0, 1))  # one axis, not a tuple


# -- deduction: cumsum, cumprod (SI-reduce-4) --------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scan_shapes(op):
    n = sym("n")
    out = deduce(op, [tensor((n, 3))])
    assert out.ndim == 1 and Analyzer().prove_equal(out.shape[0], n * 3)
    assert dims(deduce(op, [tensor((2, 3, 4))])) == (24,)
    assert dims(deduce(op, [tensor(())])) == (1,)
    out = deduce(op, [tensor((n, 3))], axis=-1)
    assert out.shape[0] is n and dims(out)[1] == 3
    out = deduce(op, [tensor(3)])
    assert out.shape is None and out.ndim == 1
    out = deduce(op, [tensor(3)], axis=2)
    assert out.shape is None and out.ndim == 3
    out = deduce(op, [tensor(None)], axis=5)
    assert out.ndim == -1


def test_scan_dtype_attribute():
    assert str(deduce("cumsum", [tensor((3,), "bool")], dtype="int32").dtype) == "int32"
    assert str(deduce("cumprod", [tensor((3,), "int8")]).dtype) == "int8"
    assert str(deduce("cumsum", [tensor((3,), "")], dtype="float16").dtype) == "float16"


def test_scan_exclusive_none_is_false_as_tvm_reads_it():
    assert dims(deduce("cumsum", [tensor((2, 3))], axis=1, exclusive=None)) == (2, 3)


def test_scan_axis_out_of_range_is_an_error():
    with pytest.raises(StructInfoError) as e:
        deduce("cumsum", [tensor((2, 3))], axis=2)
    assert rule_of(e) == "SI-op-axis-1"
    with pytest.raises(StructInfoError) as e:
        deduce("cumprod", [tensor(())], axis=0)
    assert rule_of(e) == "SI-op-axis-1"


# -- NumPy semantics: sum, prod, max, min -------------------------------------------------------

RNG = np.random.default_rng(7)
SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3), (1, 4, 1)]


def _axes_cases(ndim):
    yield None
    if ndim:
        yield (0,)
        yield (-1,)
    if ndim >= 2:
        yield (0, -1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op,ref", [("sum", np.sum), ("prod", np.prod)])
def test_sum_prod_match_numpy(shape, op, ref):
    x = RNG.standard_normal(shape).astype("float32")
    for axis in _axes_cases(len(shape)):
        for keepdims in (False, True):
            got = compute(op, x, axis=axis, keepdims=keepdims)
            want = ref(x.astype(np.float64), axis=axis, keepdims=keepdims)
            assert got.dtype == np.float32 and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
@pytest.mark.parametrize("op,ref", [("max", np.max), ("min", np.min)])
def test_max_min_match_numpy(shape, op, ref):
    x = RNG.integers(-100, 100, shape).astype("int32")
    for axis in _axes_cases(len(shape)):
        for keepdims in (False, True):
            got = compute(op, x, axis=axis, keepdims=keepdims)
            want = ref(x, axis=axis, keepdims=keepdims)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, want)


def test_integer_sums_wrap_around():
    x = np.array([100, 100, 100], dtype="int8")
    got = compute("sum", x)
    assert got.dtype == np.int8 and int(got) == 300 - 256


def test_bool_sum_is_or_and_prod_is_and():
    x = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(compute("sum", x, axis=1), [True, False])
    np.testing.assert_array_equal(compute("prod", x, axis=0), [False, False])
    assert compute("max", x).dtype == np.bool_


def test_empty_sum_and_prod_are_the_identity():
    x = np.zeros((3, 0), dtype="float32")
    np.testing.assert_array_equal(compute("sum", x, axis=1), [0, 0, 0])
    np.testing.assert_array_equal(compute("prod", x, axis=1), [1, 1, 1])
    assert compute("sum", x, axis=0).shape == (0,)


def test_max_starts_from_the_lowest_finite_value():
    x = np.array([-np.inf, -np.inf], dtype="float32")
    assert compute("max", x) == np.finfo(np.float32).min
    assert compute("min", -x) == np.finfo(np.float32).max


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_extreme_of_nothing_is_a_runtime_error(op):
    x = np.zeros((3, 0), dtype="float32")
    with pytest.raises(OpRuntimeError) as e:
        compute(op, x, axis=1)
    assert e.value.rule == "EXEC-reduce-6" and e.value.check == "index_out_of_bounds"
    with pytest.raises(OpRuntimeError):
        compute(op, x)
    # An empty result needs no value.
    assert compute(op, x, axis=0).shape == (0,)


def test_runtime_axis_check():
    with pytest.raises(OpRuntimeError) as e:
        compute("sum", np.zeros((2, 3)), axis=2)
    assert e.value.rule == "EXEC-reduce-1"


# -- NumPy semantics: mean, variance, std ----------------------------------------------------------

@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics_match_numpy(shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    for axis in _axes_cases(len(shape)):
        for keepdims in (False, True):
            for op, ref in (("mean", np.mean), ("variance", np.var), ("std", np.std)):
                got = compute(op, x, axis=axis, keepdims=keepdims)
                want = ref(x.astype(np.float64), axis=axis, keepdims=keepdims)
                assert got.dtype == np.dtype(dtype) and got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_variance_is_the_population_variance():
    x = np.array([1.0, 2.0, 3.0, 4.0], dtype="float32")
    assert compute("variance", x) == pytest.approx(1.25)
    assert compute("std", x) == pytest.approx(1.25 ** 0.5)


def test_integer_mean_truncates_toward_zero():
    x = np.array([[-3, -4], [3, 4], [1, 2]], dtype="int32")
    got = compute("mean", x, axis=1)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [-3, 3, 1])


def test_integer_variance_and_std_by_hand():
    # mean = 15 // 4 = 3; deviations -2, -1, 0, 6; squares sum 41; 41 // 4 = 10; std 3.
    x = np.array([1, 2, 3, 9], dtype="int32")
    assert compute("variance", x) == 10 and compute("variance", x).dtype == np.int32
    assert compute("std", x) == 3 and compute("std", x).dtype == np.int32
    # Negative means truncate toward zero: mean(-1, -2) = -1, deviations 0, -1 -> 1 // 2 = 0.
    assert compute("variance", np.array([-1, -2], dtype="int32")) == 0


def test_mean_of_nothing():
    assert np.isnan(compute("mean", np.zeros((0,), dtype="float32")))
    assert np.isnan(compute("variance", np.zeros((2, 0), dtype="float32"), axis=1)).all()
    with pytest.raises(OpRuntimeError) as e:
        compute("mean", np.zeros((0,), dtype="int32"))
    assert e.value.check == "division_by_zero" and e.value.rule == "EXEC-reduce-2"


def test_float16_mean_keeps_float16():
    x = np.linspace(-1, 1, 9).astype("float16")
    got = compute("mean", x)
    assert got.dtype == np.float16 and abs(float(got)) < 1e-3


# -- NumPy semantics: argmax, argmin -------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (1, 4, 1)])
@pytest.mark.parametrize("op,ref", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_arg_reduce_matches_numpy(shape, op, ref):
    x = RNG.integers(-5, 5, shape).astype("float32")  # ties: the first index wins
    for axis in [None, 0, -1]:
        for keepdims in (False, True):
            got = compute(op, x, axis=axis, keepdims=keepdims)
            want = ref(x, axis=axis, keepdims=keepdims)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, want)


def test_arg_reduce_by_hand():
    x = np.array([[1, 7, 7], [9, 0, 0]], dtype="int32")
    np.testing.assert_array_equal(compute("argmax", x, axis=1), [1, 0])
    np.testing.assert_array_equal(compute("argmin", x, axis=1), [0, 1])
    assert compute("argmax", x) == 3
    assert compute("argmin", x, keepdims=True).shape == (1, 1)
    assert compute("argmax", np.array(5.0, dtype="float32")) == 0


def test_arg_reduce_with_an_empty_kept_dimension():
    x = np.zeros((0, 3), dtype="float32")
    got = compute("argmax", x, axis=1)
    assert got.shape == (0,) and got.dtype == np.int64


# -- NumPy semantics: cumsum, cumprod --------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0, 3)])
def test_scans_match_numpy(shape):
    x = RNG.integers(-3, 4, shape).astype("int32")
    for axis in [None, 0, -1]:
        for op, ref in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
            got = compute(op, x, axis=axis)
            want = ref(x, axis=axis)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, want)


def test_tvm_docstring_examples():
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype="int32")
    np.testing.assert_array_equal(compute("cumsum", a), [1, 3, 6, 10, 15, 21])
    got = compute("cumsum", a, dtype="float32")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [1, 3, 6, 10, 15, 21])
    np.testing.assert_array_equal(compute("cumsum", a, axis=0), [[1, 2, 3], [5, 7, 9]])
    np.testing.assert_array_equal(compute("cumprod", a, axis=1), [[1, 2, 6], [4, 20, 120]])
    b = np.array([1, 0, 1, 0, 1, 1, 0], dtype="bool")
    np.testing.assert_array_equal(compute("cumsum", b, dtype="int32"), [1, 1, 2, 2, 3, 4, 4])
    c = np.array([1, 1, 1, 0, 1, 1, 0], dtype="bool")
    np.testing.assert_array_equal(compute("cumprod", c, dtype="int32"), [1, 1, 1, 0, 0, 0, 0])


def test_exclusive_scans():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype="int64")
    np.testing.assert_array_equal(compute("cumsum", x, axis=1, exclusive=True),
                                  [[0, 1, 3], [0, 4, 9]])
    np.testing.assert_array_equal(compute("cumprod", x, axis=0, exclusive=True),
                                  [[1, 1, 1], [1, 2, 3]])
    np.testing.assert_array_equal(compute("cumsum", x, exclusive=True), [0, 1, 3, 6, 10, 15])
    assert compute("cumsum", np.zeros((2, 0)), axis=1, exclusive=True).shape == (2, 0)


def test_scan_of_a_scalar_and_runtime_axis_check():
    np.testing.assert_array_equal(compute("cumsum", np.array(4.0, dtype="float32")), [4.0])
    with pytest.raises(OpRuntimeError) as e:
        compute("cumsum", np.zeros((2, 3)), axis=-3)
    assert e.value.rule == "EXEC-reduce-1"


# -- cross-check against TVM 0.27 -------------------------------------------------------------

def _tvm_attrs(attrs):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}


N, M = sym("n"), sym("m")
TVM_CASES = [
    ("sum", [tensor((2, 3, 4))], {}),
    ("sum", [tensor((N, 3, M))], {"axis": (0, -1)}),
    ("mean", [tensor((N, 3))], {"axis": 1, "keepdims": True}),
    ("max", [tensor(3)], {"keepdims": True}),
    ("min", [tensor(3, "int32")], {"axis": (1,)}),
    ("prod", [tensor(None)], {}),
    ("prod", [tensor(None)], {"axis": (0,)}),
    ("variance", [tensor((N, M), "float16")], {"axis": (1,)}),
    ("std", [tensor((2, N))], {"keepdims": True}),
    ("sum", [tensor((2, 3))], {"axis": ()}),
    ("argmax", [tensor((N, 3))], {"axis": 0, "keepdims": True}),
    ("argmin", [tensor((N, 3))], {}),
    ("argmax", [tensor(2)], {"keepdims": True}),
    ("argmin", [tensor(None)], {"axis": 1}),
    ("cumsum", [tensor((N, 3))], {}),
    ("cumsum", [tensor((N, 3), "int32")], {"dtype": "int64"}),
    ("cumprod", [tensor((N, 3))], {"axis": -1, "exclusive": True}),
    ("cumprod", [tensor(())], {}),
    ("cumsum", [tensor(2)], {"axis": 0}),
]


@pytest.mark.tvm
@pytest.mark.parametrize("op,sinfos,attrs", TVM_CASES)
def test_deduction_agrees_with_tvm(op, sinfos, attrs):
    bridge = TvmBridge()
    fn = getattr(bridge.relax.op, op)
    theirs = bridge.deduce(lambda *xs: fn(*xs, **_tvm_attrs(attrs)), *sinfos)
    bridge.assert_same(deduce(op, sinfos, **attrs), theirs)


@pytest.mark.tvm
@pytest.mark.parametrize("op,sinfos,attrs", [
    ("sum", [tensor((2, 3))], {"axis": (2,)}),
    ("sum", [tensor((2, 3))], {"axis": (0, -2)}),
    ("argmax", [tensor(())], {"axis": 0}),
])
def test_errors_agree_with_tvm(op, sinfos, attrs):
    bridge = TvmBridge()
    fn = getattr(bridge.relax.op, op)
    assert bridge.raises(lambda *xs: fn(*xs, **_tvm_attrs(attrs)), *sinfos)
    with pytest.raises(StructInfoError):
        deduce(op, sinfos, **attrs)


@pytest.mark.tvm
def test_known_differences_from_tvm():
    """spec/ops/reduce.md, "Differences from TVM"."""
    bridge = TvmBridge()
    op = bridge.relax.op
    # D1: a flattened scan of an ndim-only tensor is 1-d; TVM keeps the input's ndim.
    assert bridge.deduce(lambda x: op.cumsum(x), tensor(3)).ndim == 3
    assert deduce("cumsum", [tensor(3)]).ndim == 1
    # D2: TVM does not check a scan's axis.
    assert not bridge.raises(lambda x: op.cumsum(x, axis=5), tensor((2, 3)))
    # D3: TVM accepts mean/variance/std of bool.
    assert not bridge.raises(lambda x: op.mean(x), tensor((2,), "bool"))


@pytest.mark.tvm
@pytest.mark.parametrize("op,attrs,tvm_args,dtype", [
    ("sum", {"axis": (1,)}, (1,), "float32"),
    ("prod", {"axis": (0,), "keepdims": True}, (0, True), "float32"),
    ("mean", {}, (), "float32"),
    ("variance", {"axis": (1,)}, (1,), "float32"),
    ("std", {"axis": (0,)}, (0,), "float32"),
    ("max", {"axis": (1,)}, (1,), "float32"),
    ("min", {}, (), "int32"),
    ("argmax", {"axis": 1}, (1,), "float32"),
    ("argmin", {"axis": 0, "keepdims": True}, (0, True), "int32"),
    # TVM's integer mean/variance kernels write int64 although the deduced dtype is
    # int32 (spec/ops/reduce.md D4): the values agree.
    ("mean", {"axis": (1,)}, (1,), "int32"),
    ("variance", {"axis": (1,)}, (1,), "int32"),
])
def test_numbers_agree_with_tvm_legalized_kernels(op, attrs, tvm_args, dtype):
    bridge = TvmBridge()
    fn = getattr(bridge.relax.op, op)
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 7)) * 20).astype(dtype)
    theirs = bridge.run_legalized(lambda v: fn(v, *tvm_args), x)
    ours = compute(op, x, **attrs)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs.astype(ours.dtype), rtol=2e-6, atol=1e-5)
