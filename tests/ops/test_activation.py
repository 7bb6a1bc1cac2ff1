"""Activations under R.nn (spec/ops/activation.md): struct-info deduction (static,
symbolic, ndim-only, unknown, every error rule), NumPy semantics against independent
float64 formulas and hand-computed values, and cross-checks against TVM 0.27 (its
deduction, and the numbers its legalized kernels compute)."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.common import OpRuntimeError
from relax_ref.errors import StructInfoError

from .helpers import compute, deduce, dims, sym, tensor
from .tvm_bridge import TvmBridge

I64 = parse_dtype("int64")
N, M = sym("n"), sym("m")
UNARY = ["nn.relu", "nn.gelu", "nn.gelu_tanh", "nn.silu", "nn.selu", "nn.leakyrelu",
         "nn.softplus", "nn.softmax", "nn.log_softmax"]
FLOAT_ONLY = [op for op in UNARY if op != "nn.relu"]


# -- deduction (SI-act-1, SI-act-2, SI-act-softmax-1) ---------------------------------------------

@pytest.mark.parametrize("op", UNARY)
def test_struct_info_is_kept(op):
    out = deduce(op, [tensor((N, 3))])
    assert out.shape[0] is N and dims(out)[1] == 3 and str(out.dtype) == "float32"
    out = deduce(op, [tensor(2, "float16")])
    assert out.shape is None and out.ndim == 2 and str(out.dtype) == "float16"
    assert deduce(op, [tensor(None)]).ndim == -1
    assert deduce(op, [tensor((2, 3), "")]).dtype.is_void
    assert str(deduce(op, [tensor((4,), "bfloat16")]).dtype) == "bfloat16"


def test_relu_accepts_any_dtype():
    assert str(deduce("nn.relu", [tensor((3,), "int32")]).dtype) == "int32"
    assert str(deduce("nn.relu", [tensor((3,), "bool")]).dtype) == "bool"


@pytest.mark.parametrize("op", FLOAT_ONLY)
@pytest.mark.parametrize("dtype", ["int32", "bool", "float8_e4m3fn"])
def test_float_activations_reject_other_dtypes(op, dtype):
    with pytest.raises(StructInfoError) as e:
        deduce(op, [tensor((3,), dtype)])
    assert e.value.rule == "SI-act-2"


@pytest.mark.parametrize("op", ["nn.softmax", "nn.log_softmax"])
def test_softmax_axis(op):
    assert dims(deduce(op, [tensor((2, 3))], axis=0)) == (2, 3)
    assert dims(deduce(op, [tensor((2, 3))], axis=-2)) == (2, 3)
    for x, axis in [(tensor((2, 3)), 2), (tensor((2, 3)), -3), (tensor(()), -1), (tensor(1), 1)]:
        with pytest.raises(StructInfoError) as e:
            deduce(op, [x], axis=axis)
        assert e.value.rule == "SI-op-axis-1"
    assert deduce(op, [tensor(None)], axis=7).ndim == -1  # checked at run time


def test_attribute_conversion():
    with pytest.raises(StructInfoError) as e:
        deduce("nn.leakyrelu", [tensor((3,))], alpha="x")
    assert e.value.rule == "SI-call-1"
    with pytest.raises(StructInfoError):
        deduce("nn.softmax", [tensor((3,))], axis=1.5)


# -- prelu (SI-act-prelu-1..3) -----------------------------------------------------------------

def test_prelu_deduction():
    out = deduce("nn.prelu", [tensor((N, 3, 4)), tensor((3,))])
    assert out.shape[0] is N and dims(out)[1:] == (3, 4)
    assert dims(deduce("nn.prelu", [tensor((2, 3, 4)), tensor((1,))])) == (2, 3, 4)
    assert dims(deduce("nn.prelu", [tensor((2, 3, 4)), tensor((4,))], axis=-1)) == (2, 3, 4)
    assert dims(deduce("nn.prelu", [tensor((2, N)), tensor((N,))])) == (2, N)
    assert dims(deduce("nn.prelu", [tensor((2, N)), tensor((N + 1,))])) == (2, N)  # n = 0
    # Neither provably 1 nor provably the channel count: checked at run time.
    assert dims(deduce("nn.prelu", [tensor((2, 3)), tensor((M,))])) == (2, 3)
    assert deduce("nn.prelu", [tensor(None), tensor(None)]).ndim == -1


@pytest.mark.parametrize("data,alpha,attrs,rule", [
    ((2, 3), (4,), {}, "SI-act-prelu-3"),
    ((2, N), (N + 2,), {}, "SI-act-prelu-3"),  # not N + 1: that is 1 when n = 0
    ((2, 3), (3, 1), {}, "SI-act-prelu-2"),
    ((2, 3), (3,), {"axis": 2}, "SI-op-axis-1"),
])
def test_prelu_errors(data, alpha, attrs, rule):
    with pytest.raises(StructInfoError) as e:
        deduce("nn.prelu", [tensor(data), tensor(alpha)], **attrs)
    assert e.value.rule == rule


def test_prelu_dtypes():
    with pytest.raises(StructInfoError) as e:
        deduce("nn.prelu", [tensor((2, 3), "bfloat16"), tensor((3,), "bfloat16")])
    assert e.value.rule == "SI-act-prelu-1"
    with pytest.raises(StructInfoError) as e:
        deduce("nn.prelu", [tensor((2, 3), "int32"), tensor((3,), "int32")])
    assert e.value.rule == "SI-act-prelu-1"
    with pytest.raises(StructInfoError) as e:
        deduce("nn.prelu", [tensor((2, 3)), tensor((3,), "float16")])
    assert e.value.rule == "SI-op-dtype-1"


# -- NumPy semantics -----------------------------------------------------------------------------

RNG = np.random.default_rng(5)
SHAPES = [(), (7,), (3, 5), (2, 0, 3), (2, 3, 4)]
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _reference(op: str, x: np.ndarray, **attrs) -> np.ndarray:
    """Textbook float64 formulas, written independently of the implementation."""
    if op == "nn.relu":
        return np.where(x > 0, x, 0.0)
    if op == "nn.gelu":
        return 0.5 * x * (1 + _erf(x / math.sqrt(2)))
    if op == "nn.gelu_tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    if op == "nn.silu":
        return x / (1 + np.exp(-x))
    if op == "nn.selu":
        alpha, scale = 1.6732632423543772, 1.0507009873554805
        return scale * np.where(x > 0, x, alpha * (np.exp(x) - 1))
    if op == "nn.leakyrelu":
        return np.where(x > 0, x, attrs.get("alpha", 0.01) * x)
    if op == "nn.softplus":
        beta, threshold = attrs.get("beta", 1.0), attrs.get("threshold", 20.0)
        return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)
    raise KeyError(op)


ELEMENTWISE = [op for op in UNARY if "softmax" not in op]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", ELEMENTWISE)
def test_elementwise_activations_match_formulas(op, shape):
    x = (RNG.standard_normal(shape) * 4).astype("float32")
    got = compute(op, x)
    assert got.dtype == np.float32 and got.shape == x.shape
    np.testing.assert_allclose(got, _reference(op, x.astype(np.float64)), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("op", ELEMENTWISE)
def test_elementwise_activations_in_float64_and_float16(op):
    x = np.linspace(-6, 6, 49)
    got = compute(op, x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _reference(op, x), rtol=1e-12, atol=1e-12)
    half = x.astype("float16")
    got = compute(op, half)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), _reference(op, half.astype(np.float64)),
                               rtol=4e-3, atol=4e-3)


def test_bfloat16_keeps_its_dtype():
    x = np.linspace(-3, 3, 13).astype(ml_dtypes.bfloat16)
    for op in ["nn.gelu", "nn.silu", "nn.softmax"]:
        assert compute(op, x).dtype == ml_dtypes.bfloat16


def test_hand_values():
    x = np.array([-2.0, 0.0, 3.0], dtype="float32")
    np.testing.assert_array_equal(compute("nn.relu", x), [0, 0, 3])
    np.testing.assert_allclose(compute("nn.leakyrelu", x, alpha=0.5), [-1, 0, 3])
    np.testing.assert_allclose(compute("nn.gelu", np.array([0.0, 1.0], "float32")),
                               [0.0, 0.8413447460685429], rtol=1e-6)
    np.testing.assert_allclose(compute("nn.silu", np.array([0.0], "float32")), [0.0])
    # softplus is linear above the threshold: beta * x = 2 * 3 > 5.
    np.testing.assert_allclose(compute("nn.softplus", x, beta=2.0, threshold=5.0),
                               [math.log1p(math.exp(-4)) / 2, math.log(2) / 2, 3.0], rtol=1e-5)
    np.testing.assert_array_equal(compute("nn.relu", np.array([-3, 4], "int32")), [0, 4])
    assert compute("nn.relu", np.array([-3, 4], "int32")).dtype == np.int32


def _softmax64(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("shape,axis", [((7,), -1), ((3, 5), 0), ((3, 5), -1), ((2, 3, 4), 1),
                                        ((2, 0, 3), -1), ((2, 0, 3), 1), ((4, 1), 1)])
def test_softmax_and_log_softmax_match_formulas(shape, axis):
    x = (RNG.standard_normal(shape) * 5).astype("float32")
    got = compute("nn.softmax", x, axis=axis)
    want = _softmax64(x.astype(np.float64), axis)
    assert got.dtype == np.float32 and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    got = compute("nn.log_softmax", x, axis=axis)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(got, np.log(want), rtol=1e-5, atol=1e-5)


def test_softmax_subtracts_the_max():
    x = np.array([[1000.0, 1001.0], [-1000.0, -1000.0]], dtype="float32")
    np.testing.assert_allclose(compute("nn.softmax", x),
                               [[1 / (1 + math.e), math.e / (1 + math.e)], [0.5, 0.5]],
                               rtol=1e-6)
    np.testing.assert_allclose(compute("nn.log_softmax", x)[1], [-math.log(2)] * 2, rtol=1e-6)
    assert np.isfinite(compute("nn.log_softmax", x)).all()


def test_softmax_default_axis_and_runtime_axis_check():
    x = np.array([[0.0, 0.0], [0.0, 0.0]], dtype="float32")
    np.testing.assert_allclose(compute("nn.softmax", x), np.full((2, 2), 0.5))
    with pytest.raises(OpRuntimeError) as e:
        compute("nn.softmax", x, axis=2)
    assert e.value.rule == "EXEC-act-softmax-1"
    with pytest.raises(OpRuntimeError):
        compute("nn.log_softmax", np.array(1.0, "float32"))


def test_prelu_semantics():
    x = np.array([[[-1.0, 2.0], [-3.0, -4.0], [5.0, -6.0]]], dtype="float32")  # (1, 3, 2)
    alpha = np.array([0.5, 0.25, 2.0], dtype="float32")
    got = compute("nn.prelu", x, alpha)
    np.testing.assert_allclose(got, [[[-0.5, 2.0], [-0.75, -1.0], [5.0, -12.0]]])
    got = compute("nn.prelu", x, np.array([0.1, 0.2], "float32"), axis=-1)
    np.testing.assert_allclose(got, [[[-0.1, 2.0], [-0.3, -0.8], [5.0, -1.2]]], rtol=1e-6)
    got = compute("nn.prelu", x, np.array([3.0], "float32"))
    np.testing.assert_allclose(got, np.where(x > 0, x, 3 * x))
    assert got.dtype == np.float32
    with pytest.raises(OpRuntimeError) as e:
        compute("nn.prelu", x, np.array([1.0, 2.0], "float32"))
    assert e.value.rule == "EXEC-act-prelu-1" and e.value.check == "shape_mismatch"
    with pytest.raises(OpRuntimeError):
        compute("nn.prelu", x, np.ones((3, 1), "float32"))
    with pytest.raises(OpRuntimeError):
        compute("nn.prelu", x, alpha, axis=3)


# -- cross-checks against TVM 0.27 -------------------------------------------------------------

def _tvm_op(bridge, op):
    return getattr(bridge.relax.op.nn, op.split(".")[1])


@pytest.mark.tvm
@pytest.mark.parametrize("op", UNARY)
def test_deduction_agrees_with_tvm(op):
    bridge = TvmBridge()
    fn = _tvm_op(bridge, op)
    for s in [tensor((N, 3)), tensor(2, "float16"), tensor((4,), "bfloat16"),
              tensor((2, 3), "")]:
        bridge.assert_same(deduce(op, [s]), bridge.deduce(fn, s))
    for s in [tensor((3,), "int32"), tensor((3,), "float8_e4m3fn")]:
        assert bridge.raises(fn, s) == (op != "nn.relu")


@pytest.mark.tvm
def test_softmax_and_prelu_agree_with_tvm():
    bridge = TvmBridge()
    nn = bridge.relax.op.nn
    x = tensor((N, 3))
    theirs = bridge.deduce(lambda v: nn.softmax(v, 0), x)
    bridge.assert_same(deduce("nn.softmax", [x], axis=0), theirs)
    assert bridge.raises(lambda v: nn.log_softmax(v, 2), x)
    assert bridge.raises(lambda v: nn.softmax(v), tensor(()))
    d, a = tensor((2, 3, 4)), tensor((3,))
    theirs = bridge.deduce(lambda u, v: nn.prelu(u, v), d, a)
    bridge.assert_same(deduce("nn.prelu", [d, a]), theirs)
    assert bridge.raises(lambda u, v: nn.prelu(u, v, 3), d, a)
    bf = tensor((2, 3), "bfloat16")
    assert bridge.raises(lambda u, v: nn.prelu(u, v), bf, tensor((3,), "bfloat16"))


@pytest.mark.tvm
def test_known_differences_from_tvm():
    """spec/ops/activation.md, "Differences from TVM"."""
    bridge = TvmBridge()
    nn = bridge.relax.op.nn
    # D1: softmax of an ndim-unknown integer tensor: TVM skips the dtype check.
    assert not bridge.raises(lambda v: nn.softmax(v), tensor(None, "int32"))
    with pytest.raises(StructInfoError):
        deduce("nn.softmax", [tensor(None, "int32")])
    # D2: prelu's alpha: TVM checks nothing at deduction.
    assert not bridge.raises(lambda u, v: nn.prelu(u, v), tensor((2, 3)), tensor((5, 7)))


@pytest.mark.tvm
@pytest.mark.parametrize("op,attrs,tvm_args", [
    ("nn.gelu", {}, ()), ("nn.gelu_tanh", {}, ()), ("nn.silu", {}, ()), ("nn.selu", {}, ()),
    ("nn.leakyrelu", {"alpha": 0.3}, (0.3,)),
    ("nn.softplus", {"beta": 2.0, "threshold": 3.0}, (2.0, 3.0)),
    ("nn.softmax", {"axis": 0}, (0,)), ("nn.log_softmax", {}, ()),
])
def test_numbers_agree_with_tvm_legalized_kernels(op, attrs, tvm_args):
    bridge = TvmBridge()
    fn = _tvm_op(bridge, op)
    x = (np.random.default_rng(3).standard_normal((4, 7)) * 3).astype("float32")
    theirs = bridge.run_legalized(lambda v: fn(v, *tvm_args), x)
    ours = compute(op, x, **attrs)
    assert theirs.dtype == ours.dtype
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16])
def test_silu_and_softmax_round_every_step_to_the_dtype(dt):
    x = np.linspace(-6, 6, 24).reshape(2, 12).astype(dt)

    def r(v):  # one step: computed in float32, rounded to the dtype
        return np.asarray(v, np.float32).astype(dt).astype(np.float32)

    v = x.astype(np.float32)
    one = np.float32(1)
    silu = (v * r(one / r(one + r(np.exp(r(-v)))))).astype(dt)
    np.testing.assert_array_equal(compute("nn.silu", x), silu)
    low = np.float32(ml_dtypes.finfo(dt).min)
    e = r(np.exp(r(v - np.max(v, axis=-1, keepdims=True, initial=low))))
    softmax = (e / r(np.sum(e, axis=-1, keepdims=True))).astype(dt)
    np.testing.assert_array_equal(compute("nn.softmax", x), softmax)
