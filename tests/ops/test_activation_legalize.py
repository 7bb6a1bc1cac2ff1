"""Lowering of the activations (spec/ops/activation.md TE-leg-act-1..3): each op, drawn
with its dtypes, attributes, axes and symbolic shapes, keeps its results through
LegalizeOps; the elementary functions and the narrow floats' sums round as the NumPy
semantics does (EXEC-act-math-1, EXEC-act-softmax-2)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.passes.legalize_ops import legalize_ops

from .legalize_helpers import check_lowered, module

_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
_FLOATS = ["float32", "float16", "bfloat16", "float64"]
_SHAPES = [("n", 3), (2, "m", 4), ("n",), (0, 2)]
_ATTRS = {"leakyrelu": ["", ", alpha=0.3", ", alpha=-2.0"],
          "softplus": ["", ", beta=2.0, threshold=1.5", ", beta=0.5, threshold=-1.0"]}


def _shape(dims) -> str:
    return "(" + "".join(f'"{d}", ' if isinstance(d, str) else f"{d}, " for d in dims) + ")"


@_SETTINGS
@given(st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "selu", "leakyrelu", "softplus"]),
       st.sampled_from(_FLOATS + ["int32"]), st.sampled_from(_SHAPES + [()]), st.data())
def test_elementwise_activations_lower(op, dtype, shape, data):
    if dtype == "int32" and op != "relu":
        dtype = "float32"
    attrs = data.draw(st.sampled_from(_ATTRS.get(op, [""])))
    text = module(f'x: R.Tensor({_shape(shape)}, "{dtype}")', f"y = R.nn.{op}(x{attrs})")
    check_lowered(text, f"relax.nn.{op}")


@_SETTINGS
@given(st.sampled_from(["softmax", "log_softmax"]), st.sampled_from(_FLOATS),
       st.sampled_from(_SHAPES), st.data())
def test_softmax_lowers_on_every_axis(op, dtype, shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    text = module(f'x: R.Tensor({_shape(shape)}, "{dtype}")', f"y = R.nn.{op}(x, axis={axis})")
    check_lowered(text, f"relax.nn.{op}")


@_SETTINGS
@given(st.sampled_from(["float32", "float16", "float64"]), st.sampled_from(_SHAPES), st.data())
def test_prelu_lowers(dtype, shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    channels = shape[axis]
    alpha = data.draw(st.sampled_from([(1,), (channels,)]))
    text = module(f'x: R.Tensor({_shape(shape)}, "{dtype}"), a: R.Tensor({_shape(alpha)}, '
                  f'"{dtype}")', f"y = R.nn.prelu(x, a, axis={axis})")
    check_lowered(text, "relax.nn.prelu")


def test_prelu_with_an_undecided_alpha_length_guards_it():
    # alpha (m,) against n channels: 1 or n only at run time. EXEC-act-prelu-1's check is
    # the PrimFunc's assert and the slope index picks alpha[0] when m == 1; check_pass
    # runs m == 1, m == n and the values where the check fails
    text = module('x: R.Tensor((2, "n"), "float32"), a: R.Tensor(("m",), "float32")',
                  "y = R.nn.prelu(x, a, axis=1)")
    out = check_lowered(text, "relax.nn.prelu").script()
    assert "assert m == T.int64(1) or m == n," in out, out
    # a literal alpha length 3 is the channel count wherever the check passes
    check_lowered(module('x: R.Tensor(("n", "c"), "float32"), a: R.Tensor((3,), "float32")',
                         "y = R.nn.prelu(x, a, axis=1)"), "relax.nn.prelu")


def test_softmax_rows_of_nan_and_infinities_agree():
    # A NaN anywhere in a row makes the whole row NaN (the lowered max may drop it, the
    # sum of exponentials does not); a row of -inf is NaN (the max starts from the
    # lowest finite value); +inf and -inf together give NaN.
    text = module('x: R.Tensor((5, 3), "float32")',
                  "y = (R.nn.softmax(x, axis=1), R.nn.log_softmax(x, axis=1))")
    mod = relax_ref.check(relax_ref.from_source(text))
    lowered = legalize_ops(mod)
    inf, nan = np.inf, np.nan
    x = np.array([[1, nan, 0.5], [nan, 2, 3], [-inf, -inf, -inf], [inf, 1, -inf],
                  [1000, 1001, -5]], dtype="float32")
    before, after = relax_ref.run(mod, x), relax_ref.run(lowered, x)
    for want, got in zip(before, after):
        want, got = np.asarray(want), np.asarray(got)
        np.testing.assert_array_equal(np.isnan(want), np.isnan(got))
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert np.isnan(want[:4]).all()
