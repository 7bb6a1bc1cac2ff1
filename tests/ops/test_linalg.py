"""Linear algebra (spec/ops/linalg.md): matmul, einsum, outer. Struct-info deduction
(static, symbolic, ndim-only, unknown, every error rule), NumPy semantics against
independent formulas, and a cross-check of the deduction against TVM 0.27."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.common import OpRuntimeError
from relax_ref.ops.linalg import parse_einsum
from relax_ref.errors import StructInfoError

from .helpers import compute, deduce, dims, sym, tensor, tup
from .tvm_bridge import TvmBridge

I64 = parse_dtype("int64")
N, M = sym("n"), sym("m")


# -- matmul deduction (SI-linalg-matmul-1..4) --------------------------------------------------

@pytest.mark.parametrize("a,b,want", [
    ((3, 4), (4, 5), (3, 5)),
    ((4,), (4,), ()),
    ((4,), (4, 5), (5,)),
    ((2, 3, 4), (4,), (2, 3)),
    ((4,), (7, 4, 5), (7, 5)),
    ((2, 1, 3, 4), (5, 4, 6), (2, 5, 3, 6)),
    ((1, 3, 4), (2, 4, 6), (2, 3, 6)),
    ((3, 0), (0, 2), (3, 2)),
])
def test_matmul_static_shapes(a, b, want):
    assert dims(deduce("matmul", [tensor(a), tensor(b)])) == want


def test_matmul_symbolic_shapes():
    out = deduce("matmul", [tensor((N, 4)), tensor((4, M))])
    assert out.shape[0] is N and out.shape[1] is M
    out = deduce("matmul", [tensor((N, 3, 4)), tensor((1, 4, 6))])
    assert out.shape[0] is N and dims(out)[1:] == (3, 6)
    # Reduction lengths that are not provably different are checked at run time.
    out = deduce("matmul", [tensor((3, N)), tensor((M, 6))])
    assert dims(out) == (3, 6)
    out = deduce("matmul", [tensor((3, N * 2)), tensor((2 * N, 6))])
    assert dims(out) == (3, 6)


def test_matmul_undecidable_batch_keeps_the_ndim():
    out = deduce("matmul", [tensor((N, 3, 4)), tensor((M, 4, 6))])
    assert out.shape is None and out.ndim == 3


def test_matmul_ndim_only_and_unknown():
    out = deduce("matmul", [tensor(3), tensor((4, 6))])
    assert out.shape is None and out.ndim == 3
    out = deduce("matmul", [tensor(1), tensor(2)])
    assert out.shape is None and out.ndim == 1
    assert dims(deduce("matmul", [tensor(1), tensor(1)])) == ()
    assert deduce("matmul", [tensor(None), tensor((4, 6))]).ndim == -1


def test_matmul_dtypes():
    assert str(deduce("matmul", [tensor((2, 3), "int8"), tensor((3, 2), "int8")]).dtype) == "int8"
    out = deduce("matmul", [tensor((2, 3), "int8"), tensor((3, 2), "int8")], out_dtype="int32")
    assert str(out.dtype) == "int32"
    out = deduce("matmul", [tensor((2, 3), "float16"), tensor((3, 2))], out_dtype="float32")
    assert str(out.dtype) == "float32"
    assert str(deduce("matmul", [tensor((2, 3), ""), tensor((3, 2))]).dtype) == "float32"
    assert deduce("matmul", [tensor((2, 3), ""), tensor((3, 2), "")]).dtype.is_void


@pytest.mark.parametrize("a,b,rule", [
    ((), (4, 5), "SI-linalg-matmul-2"),
    ((3, 4), (), "SI-linalg-matmul-2"),
    ((3, 4), (5, 6), "SI-linalg-matmul-4"),
    ((4,), (5,), "SI-linalg-matmul-4"),
    ((3, N), (N + 1, 6), "SI-linalg-matmul-4"),
    ((2, 3, 4), (5, 4, 6), "SI-broadcast-1"),
])
def test_matmul_errors(a, b, rule):
    with pytest.raises(StructInfoError) as e:
        deduce("matmul", [tensor(a), tensor(b)])
    assert e.value.rule == rule


def test_matmul_dtype_mismatch_is_an_error():
    with pytest.raises(StructInfoError) as e:
        deduce("matmul", [tensor((2, 3)), tensor((3, 2), "float16")])
    assert e.value.rule == "SI-op-dtype-1"
    with pytest.raises(StructInfoError):
        deduce("matmul", [tensor((2, 3)), tensor((3, 2), "bool")])


def test_matmul_zero_d_ndim_only_is_an_error():
    with pytest.raises(StructInfoError) as e:
        deduce("matmul", [tensor(0), tensor(2)])
    assert e.value.rule == "SI-linalg-matmul-2"


# -- matmul semantics (EXEC-linalg-matmul-1..3) --------------------------------------------------

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("a,b", [
    ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4,)),
    ((2, 1, 3, 4), (5, 4, 6)), ((1, 3, 4), (2, 4, 1)), ((0, 4), (4, 2)),
])
def test_matmul_matches_a_loop_formula(a, b):
    x = RNG.standard_normal(a).astype("float32")
    y = RNG.standard_normal(b).astype("float32")
    got = compute("matmul", x, y)
    # Independent formula: promote 1-d operands, broadcast batches, sum over k.
    xa = x[None, :] if x.ndim == 1 else x
    yb = y[:, None] if y.ndim == 1 else y
    want = np.sum(xa.astype(np.float64)[..., :, :, None] * yb.astype(np.float64)[..., None, :, :],
                  axis=-2)
    if x.ndim == 1:
        want = want[..., 0, :]
    if y.ndim == 1:
        want = want[..., 0]
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_matmul_empty_reduction_is_zero():
    got = compute("matmul", np.zeros((2, 0), "float32"), np.zeros((0, 3), "float32"))
    np.testing.assert_array_equal(got, np.zeros((2, 3)))


def test_matmul_integers_wrap_and_out_dtype_widens():
    x = np.full((1, 2), 100, dtype="int8")
    y = np.full((2, 1), 100, dtype="int8")
    narrow = compute("matmul", x, y)
    assert narrow.dtype == np.int8 and int(narrow[0, 0]) == 20000 - 78 * 256  # wraps to 32
    wide = compute("matmul", x, y, out_dtype="int32")
    assert wide.dtype == np.int32 and int(wide[0, 0]) == 20000


def test_matmul_low_precision_floats():
    x = RNG.standard_normal((3, 4)).astype(ml_dtypes.bfloat16)
    y = RNG.standard_normal((4, 2)).astype(ml_dtypes.bfloat16)
    got = compute("matmul", x, y)
    assert got.dtype == ml_dtypes.bfloat16
    want = x.astype(np.float32) @ y.astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-2, atol=2e-2)
    got = compute("matmul", x.astype("float16"), y.astype("float16"), out_dtype="float32")
    assert got.dtype == np.float32


@pytest.mark.parametrize("a,b,rule,check", [
    ((3, 4), (5, 6), "EXEC-linalg-matmul-2", "shape_mismatch"),
    ((), (4,), "EXEC-linalg-matmul-2", "shape_mismatch"),
    ((2, 3, 4), (5, 4, 6), "EXEC-broadcast-1", "shape_mismatch"),
])
def test_matmul_runtime_checks(a, b, rule, check):
    with pytest.raises(OpRuntimeError) as e:
        compute("matmul", np.zeros(a, "float32"), np.zeros(b, "float32"))
    assert e.value.rule == rule and e.value.check == check


def test_matmul_runtime_dtype_check():
    with pytest.raises(OpRuntimeError) as e:
        compute("matmul", np.zeros((2, 2), "float32"), np.zeros((2, 2), "float16"))
    assert e.value.rule == "EXEC-linalg-matmul-1"


# -- einsum (SI-linalg-einsum-1..4, EXEC-linalg-einsum-1) ----------------------------------------

def test_parse_einsum():
    assert parse_einsum("ij,jk->ik", 2) == ([["i", "j"], ["j", "k"]], ["i", "k"])
    assert parse_einsum("ij,jk", 2)[1] == ["i", "k"]
    assert parse_einsum("ba", 1)[1] == ["a", "b"]
    assert parse_einsum("...ij,...jk", 2)[1] == ["...", "i", "k"]
    assert parse_einsum("ii", 1)[1] == []
    for bad, n in [("ij,jk->ik", 1), ("i1->i", 1), ("ij->ix", 1), ("ij->ii", 1),
                   ("......i->i", 1)]:
        with pytest.raises(ValueError):
            parse_einsum(bad, n)


@pytest.mark.parametrize("subscripts,shapes,want", [
    ("ij,jk->ik", [(3, 4), (4, 5)], (3, 5)),
    ("ij,jk", [(3, 4), (4, 5)], (3, 5)),
    ("ij->ji", [(3, 4)], (4, 3)),
    ("ii->i", [(3, 3)], (3,)),
    ("ii", [(3, 3)], ()),
    ("i,i->", [(3,), (3,)], ()),
    ("ij,kj->ik", [(3, 1), (5, 4)], (3, 5)),
    ("...ij,...jk->...ik", [(2, 3, 4), (7, 1, 4, 5)], (7, 2, 3, 5)),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], (2, 3, 5)),
])
def test_einsum_static_shapes(subscripts, shapes, want):
    out = deduce("einsum", [tup(*(tensor(s) for s in shapes))], subscripts=subscripts)
    assert dims(out) == want and str(out.dtype) == "float32"
    arrays = tuple(RNG.standard_normal(s).astype("float32") for s in shapes)
    got = compute("einsum", arrays, subscripts=subscripts)
    want_values = np.einsum(subscripts, *(a.astype(np.float64) for a in arrays))
    assert got.dtype == np.float32 and got.shape == want
    np.testing.assert_allclose(got, want_values, rtol=1e-5, atol=1e-5)


def test_einsum_symbolic_and_coarse_inputs():
    out = deduce("einsum", [tup(tensor((N, 4)), tensor((4, M)))], subscripts="ij,jk->ik")
    assert out.shape[0] is N and out.shape[1] is M
    out = deduce("einsum", [tup(tensor((N, 4)), tensor((M, 5)))], subscripts="ij,jk->ik")
    assert out.shape is None and out.ndim == 2
    out = deduce("einsum", [tup(tensor(2), tensor((4, 5)))], subscripts="ij,jk->ki")
    assert out.shape is None and out.ndim == 2
    out = deduce("einsum", [tup(tensor(None), tensor((4, 5)))], subscripts="ij,jk->ik")
    assert out.ndim == 2
    out = deduce("einsum", [tup(tensor(None), tensor((4, 5)))], subscripts="...j,jk->...k")
    assert out.ndim == -1
    out = deduce("einsum", [tup(tensor(4), tensor((4, 5)))], subscripts="...j,jk->...k")
    assert out.ndim == 4
    assert deduce("einsum", [si.ObjectStructInfo()], subscripts="ij->i").ndim == -1


@pytest.mark.parametrize("fields,subscripts,rule", [
    ((tensor((3, 4)), tensor((5, 6))), "ij,jk->ik", "SI-linalg-einsum-4"),
    ((tensor((3, 4)),), "ij,jk->ik", "SI-linalg-einsum-2"),
    ((tensor((3, 4)),), "ijk->i", "SI-linalg-einsum-2"),
    ((tensor((3,)),), "...ij->i", "SI-linalg-einsum-2"),
    ((tensor((3, 4)),), "ij->q", "SI-linalg-einsum-2"),
    ((), "->", "SI-linalg-einsum-1"),
    ((tensor((3, 4)), si.ShapeStructInfo(ndim=2)), "ij,jk->ik", "SI-linalg-einsum-1"),
    ((tensor((3, 4)), tensor((4, 5), "int32")), "ij,jk->ik", "SI-op-dtype-1"),
])
def test_einsum_errors(fields, subscripts, rule):
    with pytest.raises(StructInfoError) as e:
        deduce("einsum", [tup(*fields)], subscripts=subscripts)
    assert e.value.rule == rule


def test_einsum_operand_must_be_a_tuple():
    with pytest.raises(StructInfoError) as e:
        deduce("einsum", [tensor((3, 4))], subscripts="ij->i")
    assert e.value.rule == "SI-linalg-einsum-1"


def test_einsum_runtime_checks_and_integers():
    with pytest.raises(OpRuntimeError) as e:
        compute("einsum", (np.zeros((3, 4)), np.zeros((5, 6))), subscripts="ij,jk->ik")
    assert e.value.rule == "EXEC-linalg-einsum-1" and e.value.check == "shape_mismatch"
    with pytest.raises(OpRuntimeError):
        compute("einsum", (np.zeros((3, 4), "float32"), np.zeros((4, 2), "float64")),
                subscripts="ij,jk->ik")
    x = np.arange(6, dtype="int32").reshape(2, 3)
    got = compute("einsum", (x, x), subscripts="ij,ij->i")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [0 + 1 + 4, 9 + 16 + 25])


# -- outer (SI-linalg-outer-1, EXEC-linalg-outer-1) -------------------------------------------

def test_outer_deduction():
    out = deduce("outer", [tensor((N,)), tensor((3,))])
    assert out.shape[0] is N and dims(out)[1] == 3
    out = deduce("outer", [tensor(1), tensor((3,))])
    assert out.shape is None and out.ndim == 2
    assert deduce("outer", [tensor(None), tensor(None)]).ndim == 2
    with pytest.raises(StructInfoError) as e:
        deduce("outer", [tensor((2, 3)), tensor((3,))])
    assert e.value.rule == "SI-linalg-outer-1"
    with pytest.raises(StructInfoError) as e:
        deduce("outer", [tensor((2,)), tensor((3,), "int32")])
    assert e.value.rule == "SI-op-dtype-1"


def test_outer_semantics():
    a = np.array([1, 2, 3], dtype="int32")
    b = np.array([10, -1], dtype="int32")
    got = compute("outer", a, b)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [[10, -1], [20, -2], [30, -3]])
    assert compute("outer", np.zeros(0, "float32"), np.zeros(4, "float32")).shape == (0, 4)
    with pytest.raises(OpRuntimeError) as e:
        compute("outer", np.zeros((2, 2)), np.zeros(2))
    assert e.value.rule == "EXEC-linalg-outer-1"


# -- cross-check against TVM 0.27 -------------------------------------------------------------

MATMUL_CASES = [
    ((N, 4), (4, M), {}),
    ((4,), (4,), {}),
    ((4,), (4, 5), {}),
    ((2, 3, 4), (4,), {}),
    ((2, 1, 3, 4), (5, 4, 6), {}),
    ((N, 3, 4), (M, 4, 6), {}),
    ((3, N), (M, 6), {}),
    (3, (4, 6), {}),
    (None, (4, 6), {}),
    ((3, 4), (4, 6), {"out_dtype": "float16"}),
]


@pytest.mark.tvm
@pytest.mark.parametrize("a,b,attrs", MATMUL_CASES)
def test_matmul_agrees_with_tvm(a, b, attrs):
    bridge = TvmBridge()
    sinfos = [tensor(a), tensor(b)]
    theirs = bridge.deduce(lambda x, y: bridge.relax.op.matmul(x, y, **attrs), *sinfos)
    bridge.assert_same(deduce("matmul", sinfos, **attrs), theirs)


@pytest.mark.tvm
@pytest.mark.parametrize("a,b", [((), (4, 5)), ((3, 4), (5, 6)), ((3, N), (N + 1, 6)),
                                 ((2, 3, 4), (5, 4, 6))])
def test_matmul_errors_agree_with_tvm(a, b):
    bridge = TvmBridge()
    assert bridge.raises(lambda x, y: bridge.relax.op.matmul(x, y), tensor(a), tensor(b))
    with pytest.raises(StructInfoError):
        deduce("matmul", [tensor(a), tensor(b)])


@pytest.mark.tvm
@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(N, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, M)]),
    ("ii->i", [(3, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (7, 1, 4, 5)]),
])
def test_einsum_agrees_with_tvm(subscripts, shapes):
    bridge = TvmBridge()
    sinfos = [tensor(s) for s in shapes]
    theirs = bridge.deduce(lambda *xs: bridge.relax.op.einsum(list(xs), subscripts), *sinfos)
    bridge.assert_same(deduce("einsum", [tup(*sinfos)], subscripts=subscripts), theirs)


@pytest.mark.tvm
def test_outer_agrees_with_tvm():
    bridge = TvmBridge()
    for a, b in [((N,), (3,)), (1, (3,))]:
        sinfos = [tensor(a), tensor(b)]
        theirs = bridge.deduce(lambda x, y: bridge.relax.op.outer(x, y), *sinfos)
        bridge.assert_same(deduce("outer", sinfos), theirs)
    assert bridge.raises(lambda x, y: bridge.relax.op.outer(x, y), tensor((2, 3)), tensor((3,)))


@pytest.mark.tvm
def test_known_differences_from_tvm():
    """spec/ops/linalg.md, "Differences from TVM"."""
    bridge = TvmBridge()
    op = bridge.relax.op
    # D1: matmul of two 1-d ndim-only tensors: we know the shape is ().
    theirs = bridge.deduce(lambda x, y: op.matmul(x, y), tensor(1), tensor(1))
    assert theirs.shape is None and theirs.ndim == 0
    assert dims(deduce("matmul", [tensor(1), tensor(1)])) == ()
    # D2: one unknown dtype: we take the known one (they must agree), TVM gives void.
    theirs = bridge.deduce(lambda x, y: op.matmul(x, y), tensor((2, 3), ""), tensor((3, 2)))
    assert theirs.dtype is None
    # D3: TVM lets a bool operand pair with any dtype; we need equal dtypes.
    assert not bridge.raises(lambda x, y: op.matmul(x, y), tensor((2, 3)), tensor((3, 2), "bool"))
    # D4: einsum of an ndim-only operand: TVM gives that operand's ndim, we the output's.
    theirs = bridge.deduce(lambda x, y: op.einsum([x, y], "ij,jk->k"), tensor(2), tensor((4, 5)))
    assert theirs.ndim == 2
    assert deduce("einsum", [tup(tensor(2), tensor((4, 5)))], subscripts="ij,jk->k").ndim == 1
    # D5: outer of ndim-unknown operands: TVM rejects, we check at run time.
    assert bridge.raises(lambda x, y: op.outer(x, y), tensor(None), tensor((3,)))
    assert deduce("outer", [tensor(None), tensor((3,))]).ndim == 2


@pytest.mark.tvm
@pytest.mark.parametrize("a,b,dtype,attrs", [
    ((2, 1, 3, 4), (5, 4, 6), "float32", {}),
    ((4,), (2, 4, 3), "float32", {}),
    ((3, 4), (4,), "float32", {}),
    ((3, 4), (4, 2), "int8", {"out_dtype": "int32"}),
])
def test_matmul_numbers_agree_with_tvm_legalized_kernel(a, b, dtype, attrs):
    bridge = TvmBridge()
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(a) * 30).astype(dtype)
    y = (rng.standard_normal(b) * 30).astype(dtype)
    theirs = bridge.run_legalized(lambda u, v: bridge.relax.op.matmul(u, v, **attrs), x, y)
    ours = compute("matmul", x, y, **attrs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-3)
