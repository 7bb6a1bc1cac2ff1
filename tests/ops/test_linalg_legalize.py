"""Lowering of matmul, einsum and outer (spec/ops/linalg.md TE-leg-linalg-1..4): drawn
shapes (symbolic dimensions reaching 0 and 1, broadcast batches, 1-d operands), dtypes and
subscripts keep their results through LegalizeOps; what cannot be decided at compile
time stays an op."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .legalize_helpers import check_lowered, module

_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
# (operand dtype, out_dtype): the narrow floats sum in float64 (EXEC-linalg-matmul-3).
_MATMUL_DTYPES = [("float32", None), ("float16", None), ("bfloat16", None), ("int32", None),
                  ("int8", "int32"), ("float16", "float32"), ("int8", "float32")]


def _shape(dims) -> str:
    return "(" + "".join(f'"{d}", ' if isinstance(d, str) else f"{d}, " for d in dims) + ")"


@st.composite
def _matmul_case(draw):
    dtype, out_dtype = draw(st.sampled_from(_MATMUL_DTYPES))
    batch = draw(st.lists(st.sampled_from(["b", 2]), max_size=2))
    k = draw(st.sampled_from(["k", 3, 1]))

    def operand(core):
        n = draw(st.integers(0, len(batch)))
        mine = [d if draw(st.booleans()) else 1 for d in batch[len(batch) - n:]]
        return mine + core
    a = [k] if draw(st.booleans()) else operand([draw(st.sampled_from(["n", 2])), k])
    b = [k] if draw(st.booleans()) else operand([k, draw(st.sampled_from(["m", 4]))])
    return dtype, out_dtype, a, b


@_SETTINGS
@given(_matmul_case())
def test_matmul_lowers(case):
    dtype, out_dtype, a, b = case
    attrs = f', out_dtype="{out_dtype}"' if out_dtype else ""
    text = module(f'x: R.Tensor({_shape(a)}, "{dtype}"), w: R.Tensor({_shape(b)}, "{dtype}")',
                  f"y = R.matmul(x, w{attrs})")
    check_lowered(text, "relax.matmul")


def test_matmul_reduction_lengths_checked_by_the_kernels_arguments():
    # (2, k) @ (j, 2): k = j runs, k != j traps shape_mismatch in both forms (the
    # PrimFunc reads w as (k, 2)); a constant length is the kernel's loop extent.
    check_lowered(module('x: R.Tensor((2, "k"), "float32"), w: R.Tensor(("j", 2), "float32")',
                         "y = R.matmul(x, w)"), "relax.matmul")
    out = check_lowered(module('x: R.Tensor((2, "k"), "float32"), w: R.Tensor((3, 2), "float32")',
                               "y = R.matmul(x, w)"), "relax.matmul")
    assert "T.grid(T.int64(2), T.int64(2), T.int64(3))" in out.script()


def test_matmul_float32_is_one_contractible_stage():
    out = check_lowered(module('x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 32), "float32")',
                               "y = R.matmul(x, w)"), "relax.matmul")
    text = out.script()
    assert 'with T.sblock("matmul"):' in text and "sblock_alloc_buffer" not in text
    assert "matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]" in text


def test_undecided_batch_broadcast_stays():
    # The batch dimensions b and c broadcast only when one is 1 at run time.
    text = module('x: R.Tensor(("b", 2, 3), "float32"), w: R.Tensor(("c", 3, 2), "float32"), '
                  'v: R.Tensor((2, 3, 4), "float32")',
                  "y = (R.matmul(x, w), R.matmul(x, v))")
    out = check_lowered(text, "relax.matmul", lowered=False)
    assert out.script().count("R.matmul(") == 2


_EINSUM_CASES = [
    ("ij,jk->ik", [("n", 4), (4, "m")]),
    ("ij,jk", [(2, 1), (3, 4)]),                      # j broadcasts: 1 against 3
    ("ii", [("n", "n")]),                             # trace
    ("ii->i", [(3, 3)]),                              # diagonal
    ("iij->j", [(2, 2, "n")]),
    ("ij->ji", [("n", 3)]),
    ("i,i->", [("n",), ("n",)]),
    ("i,j,k->ijk", [("n",), (2,), (3,)]),
    ("bij,bjk->bik", [(2, "n", 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (7, 1, 4, 5)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]),
    ("ij,ij->", [("n", "m"), ("n", "m")]),
    ("ijk->", [("n", 2, 0)]),
]


@_SETTINGS
@given(st.sampled_from(_EINSUM_CASES), st.sampled_from(["float32", "float16", "int32"]))
def test_einsum_lowers(case, dtype):
    subscripts, shapes = case
    params = ", ".join(f'x{i}: R.Tensor({_shape(s)}, "{dtype}")' for i, s in enumerate(shapes))
    operands = ", ".join(f"x{i}" for i in range(len(shapes)))
    text = module(params, f'y = R.einsum(({operands},), subscripts="{subscripts}")')
    check_lowered(text, "relax.einsum")


def test_einsum_stays_where_numpy_traps():
    # A repeated label on unequal dimensions of one operand, and an ellipsis with
    # dimensions the output drops: NumPy's einsum rejects both at run time.
    text = module('x: R.Tensor((1, 3), "float32"), z: R.Tensor((2, 3, 4), "float32")',
                  '''a = R.einsum((x,), subscripts="ii")
y = (a, R.einsum((z,), subscripts="...ij->ij"))''')
    check_lowered(text, "relax.einsum", lowered=False)


@_SETTINGS
@given(st.sampled_from(["float32", "float16", "bfloat16", "int32", "int8"]),
       st.sampled_from(["n", 3, 1, 0]), st.sampled_from(["m", 2]))
def test_outer_lowers(dtype, n, m):
    text = module(f'x: R.Tensor({_shape([n])}, "{dtype}"), w: R.Tensor({_shape([m])}, "{dtype}")',
                  "y = R.outer(x, w)")
    check_lowered(text, "relax.outer")


def test_a_lowering_reused_for_another_call_takes_that_calls_operands():
    # R.matmul(x, x) reads x twice; the next call of the same shapes must read x and w
    # (PASS-legalize-6 reuses a lowering only where each operand's place is known).
    text = module('x: R.Tensor((3, 3), "float32"), w: R.Tensor((3, 3), "float32")',
                  "a = R.matmul(x, x)\ny = (a, R.matmul(x, w), R.matmul(w, x))")
    check_lowered(text, "relax.matmul")
