"""Lowering of the elementwise ops (spec/ops/elementwise.md TE-leg-ew-1,
EXEC-ew-binary-3): each op, drawn with its dtypes and broadcast shapes, symbolic
dimensions included, keeps its results through LegalizeOps."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.ops.registry import all_ops

from .legalize_helpers import check_lowered, module

_DTYPES = {"float": ["float32", "float16"], "int": ["int32", "int64"], "bool": ["bool"],
           "numeric": ["float32", "int32"]}
ELEMENTWISE = sorted(n for n, op in all_ops().items()
                     if op.family == "elementwise" and op.legalize is not None)
_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _binary_case(draw):
    name = draw(st.sampled_from([n for n in ELEMENTWISE if len(all_ops()[n].operands) == 2]))
    op = all_ops()[name]
    dtype = draw(st.sampled_from(_DTYPES.get(op.dtypes or "numeric", ["float32"])))
    if name == "relax.power" and not dtype.startswith("float"):
        dtype = "float32"
    # (n, 4) with (4,), (n, 1), (1, 4) or (n, 4): the broadcasts decided at compile time.
    other = draw(st.sampled_from(['(4,)', '("n", 1)', '(1, 4)', '("n", 4)']))
    return name, dtype, other


@_SETTINGS
@given(_binary_case())
def test_binary_ops_lower_with_broadcasting(case):
    name, dtype, other = case
    text = module(f'x: R.Tensor(("n", 4), "{dtype}"), z: R.Tensor({other}, "{dtype}")',
                  f"y = R.{name[6:]}(x, z)")
    check_lowered(text, name)


@_SETTINGS
@given(st.sampled_from([n for n in ELEMENTWISE if len(all_ops()[n].operands) == 1
                        and not all_ops()[n].attrs]),
       st.sampled_from(['("n", 3)', '("n", "m")', "(2, 0)", "()"]))
def test_unary_ops_lower(name, shape):
    op = all_ops()[name]
    dtype = _DTYPES.get(op.dtypes or "numeric", ["float32"])[0]
    text = module(f'x: R.Tensor({shape}, "{dtype}")', f"y = R.{name[6:]}(x)")
    check_lowered(text, name)


def test_where_astype_clip_and_prim_operands():
    text = module('c: R.Tensor(("n", 1), "bool"), x: R.Tensor(("n", 4), "float32"), '
                  'p: R.Prim("float32")',
                  '''a = R.where(c, x, R.const(0.5, "float32"))
b = R.astype(a, "int8")
d = R.clip(x, R.prim_value(T.float32(-1)), R.prim_value(T.float32(1)))
y = (b, d, R.add(x, R.prim_value(T.float32(2))))''')
    check_lowered(text, "relax.where")
    check_lowered(text, "relax.clip")


def test_integer_power_is_not_lowered():
    text = module('x: R.Tensor((3,), "int32")', "y = R.power(x, x)")
    check_lowered(text, "relax.power", lowered=False)


def test_negative_keeps_the_sign_of_zero():
    """TE-leg-ew-1: -(+0.0) is -0.0 (1 / it is -inf), as NumPy has it; found by fuzzing."""
    import numpy as np

    import relax_ref
    text = module('x: R.Tensor((2,), "float32")', "y = R.rsqrt(R.negative(x))")
    out = check_lowered(text, "relax.negative")
    got = relax_ref.run(out, np.array([0.0, -0.0], "float32"))
    np.testing.assert_array_equal(got, [-np.inf, np.inf])
