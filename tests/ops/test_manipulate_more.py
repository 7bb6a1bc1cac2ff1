"""stack, meshgrid, one_hot, reverse_sequence, collapse_sum_to/like (spec/ops/manipulate.md
SI-manip-stack-*, -meshgrid-1, -one-hot-1, -revseq-1, -collapse-1, their EXEC rules and
TE-leg-manip-9..13): deduction (static, symbolic, unknown, errors), NumPy semantics
against independent formulas, lowering checked by check_pass at n = 1, 0, 2, 3."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.prim_expr import IntImm

from .helpers import (
    PrimScalar, assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps, tup,
)
from .legalize_helpers import check_lowered, module

N, M = sym("n"), sym("m")
F32 = parse_dtype("float32")


def _prim(dtype="float32"):
    return si.PrimStructInfo(parse_dtype(dtype))


def _shape(*dims):
    return rx.ShapeExpr(tuple(IntImm(d) if isinstance(d, int) else d for d in dims))


# -- stack -------------------------------------------------------------------------------------

def test_stack_deduction():
    x = tensor((N, 3))
    assert_tensor(deduce("stack", [tup(x, x)]), (2, N, 3))
    assert_tensor(deduce("stack", [tup(x, x, x)], axis=-1), (N, 3, 3))
    assert_tensor(deduce("stack", [tup(x)], axis=2), (N, 3, 1))
    assert_ndim(deduce("stack", [tup(x, tensor((M, 3)))]), 3)
    assert_ndim(deduce("stack", [tup(x, tensor(2))], axis=1), 3)
    fails("SI-manip-stack-2", "stack", [tup(tensor((2, 3)), tensor((2, 4)))])
    fails("SI-manip-stack-1", "stack", [tup(tensor((2, 3)), tensor((3,)))])
    fails("SI-manip-stack-1", "stack", [tup()])
    fails("SI-op-axis-1", "stack", [tup(x, x)], axis=3)
    fails("SI-op-dtype-1", "stack", [tup(x, tensor((N, 3), "int32"))])


def test_stack_semantics():
    a, b = np.arange(6.0, dtype="float32").reshape(2, 3), np.ones((2, 3), "float32")
    np.testing.assert_array_equal(compute("stack", (a, b), axis=1), np.stack([a, b], 1))
    with traps("shape_mismatch", "EXEC-manip-stack-1"):
        compute("stack", (a, b[:1]))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_lowers(axis):
    text = module('x: R.Tensor(("n", 3), "float32"), z: R.Tensor(("n", 3), "float32")',
                  f"y = R.stack((x, z, x), axis={axis})")
    check_lowered(text, "relax.stack")


# -- meshgrid ----------------------------------------------------------------------------------

def test_meshgrid_deduction_swaps_the_first_two_for_xy():
    a, b, c = tensor((N,), "int32"), tensor((3,), "int32"), tensor((2,), "int32")
    out = deduce("meshgrid", [tup(a, b, c)])
    assert len(out.fields) == 3
    for f in out.fields:
        assert_tensor(f, (N, 3, 2), "int32")
    for f in deduce("meshgrid", [tup(a, b, c)], indexing="xy").fields:
        assert_tensor(f, (3, N, 2), "int32")
    assert_ndim(deduce("meshgrid", [tup(a, tensor(1, "int32"))]).fields[0], 2, "int32")
    fails("SI-manip-meshgrid-1", "meshgrid", [tup(a, tensor((2, 2), "int32"))])
    fails("SI-manip-meshgrid-1", "meshgrid", [tup()])
    fails("SI-op-dtype-1", "meshgrid", [tup(a, tensor((3,)))])


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_semantics_and_lowering(indexing):
    a, b = np.arange(2, dtype="float32"), np.arange(3, dtype="float32") + 10
    got = compute("meshgrid", (a, b), indexing=indexing)
    for g, w in zip(got, np.meshgrid(a, b, indexing=indexing)):
        np.testing.assert_array_equal(g, w)
    text = module('a: R.Tensor(("n",), "float32"), b: R.Tensor((3,), "float32")',
                  f'y = R.meshgrid((a, b, a), indexing="{indexing}")')
    check_lowered(text, "relax.meshgrid")


# -- one_hot -----------------------------------------------------------------------------------

def test_one_hot_deduction():
    i = tensor((N, 3), "int32")
    assert_tensor(deduce("one_hot", [i, _prim(), _prim()], depth=4), (N, 3, 4))
    assert_tensor(deduce("one_hot", [i, _prim("int8"), _prim("int8")], depth=4, axis=0),
                  (4, N, 3), "int8")
    assert_ndim(deduce("one_hot", [tensor(2, "int64"), _prim(), _prim()], depth=2), 3)
    fails("SI-manip-one-hot-1", "one_hot", [i, _prim(), _prim("float64")], depth=4)
    fails("SI-manip-one-hot-1", "one_hot", [tensor((3,)), _prim(), _prim()], depth=4)
    fails("SI-manip-one-hot-1", "one_hot", [i, _prim(), _prim()], depth=0)
    fails("SI-op-axis-1", "one_hot", [i, _prim(), _prim()], depth=4, axis=3)


def test_one_hot_semantics_gives_off_rows_for_indices_out_of_range():
    i = np.array([0, 2, -1, 3, 7], "int32")
    on, off = PrimScalar(5.0, F32), PrimScalar(-1.0, F32)
    want = np.where(i[:, None] == np.arange(4), 5.0, -1.0).astype("float32")
    np.testing.assert_array_equal(compute("one_hot", i, on, off, depth=4), want)
    np.testing.assert_array_equal(compute("one_hot", i, on, off, depth=4, axis=0), want.T)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_lowers(axis):
    text = module('i: R.Tensor(("n", 2), "int64")',
                  f"y = R.one_hot(i, T.float32(1.5), T.float32(-2.0), depth=3, axis={axis})")
    check_lowered(text, "relax.one_hot")


# -- reverse_sequence --------------------------------------------------------------------------

def _reverse_ref(x, lengths, seq, batch):
    out = x.copy()
    for b, length in enumerate(lengths):
        k = min(int(length), x.shape[seq])
        if k <= 1:
            continue
        src = [slice(None)] * x.ndim
        src[batch], src[seq] = b, slice(0, k)
        dst = list(src)
        piece = np.flip(x[tuple(src)], axis=seq - (batch < seq))
        out[tuple(dst)] = piece
    return out


def test_reverse_sequence_deduction():
    x = tensor((N, 5, 2))
    assert_tensor(deduce("reverse_sequence", [x, tensor((N,), "int64")]), (N, 5, 2))
    assert_tensor(deduce("reverse_sequence", [x, tensor((5,), "int32")], seq_axis=0,
                         batch_axis=1), (N, 5, 2))
    fails("SI-manip-revseq-1", "reverse_sequence", [x, tensor((N, 1), "int64")])
    fails("SI-manip-revseq-1", "reverse_sequence", [x, tensor((N,), "int8")])
    fails("SI-manip-revseq-1", "reverse_sequence", [tensor((2, 5)), tensor((3,), "int64")])
    fails("SI-op-axis-1", "reverse_sequence", [x, tensor((N,), "int64")], seq_axis=3)


def test_reverse_sequence_semantics():
    x = np.arange(24, dtype="float32").reshape(3, 4, 2)
    lengths = np.array([3, 9, -2], "int64")
    np.testing.assert_array_equal(compute("reverse_sequence", x, lengths),
                                  _reverse_ref(x, lengths, 1, 0))
    y = np.arange(12, dtype="int32").reshape(4, 3)
    np.testing.assert_array_equal(
        compute("reverse_sequence", y, np.array([2, 4, 1], "int32"), seq_axis=0, batch_axis=1),
        _reverse_ref(y, [2, 4, 1], 0, 1))
    with traps("shape_mismatch", "EXEC-manip-revseq-1"):
        compute("reverse_sequence", x, lengths[:2])


def test_reverse_sequence_lowers():
    text = module('x: R.Tensor(("n", 4, 2), "float32"), l: R.Tensor(("n",), "int32")',
                  "y = R.reverse_sequence(x, l)")
    check_lowered(text, "relax.reverse_sequence")
    text = module('x: R.Tensor((3, "n"), "float32"), l: R.Tensor((3,), "int64")',
                  "y = R.reverse_sequence(x, l, seq_axis=1, batch_axis=0)")
    check_lowered(text, "relax.reverse_sequence")


# -- collapse_sum_to, collapse_sum_like --------------------------------------------------------

def test_collapse_sum_deduction():
    x = tensor((N, 4, 3))
    assert_tensor(deduce("collapse_sum_to", [x, si.ShapeStructInfo()], args=[None, _shape(1, 3)]),
                  (1, 3))
    assert_tensor(deduce("collapse_sum_to", [x, None], args=[None, _shape(N, 1, 3)]), (N, 1, 3))
    assert_tensor(deduce("collapse_sum_like", [x, tensor((4, 1), "int8")]), (4, 1))
    assert_ndim(deduce("collapse_sum_like", [x, tensor(2)]), 2)
    fails("SI-manip-collapse-1", "collapse_sum_to", [x, None], args=[None, _shape(2, 3)])
    fails("SI-manip-collapse-1", "collapse_sum_to", [x, None], args=[None, _shape(M, 4, 3)])
    fails("SI-manip-collapse-1", "collapse_sum_like", [tensor((3,)), tensor((2, 3))])


def test_collapse_sum_semantics():
    from relax_ref.values import ShapeValue

    x = np.arange(24, dtype="float32").reshape(2, 4, 3)
    np.testing.assert_array_equal(compute("collapse_sum_to", x, ShapeValue((4, 1))),
                                  x.sum(axis=(0, 2)).reshape(4, 1))
    np.testing.assert_array_equal(compute("collapse_sum_like", x, np.zeros(3, "int8")),
                                  x.sum(axis=(0, 1)))
    with traps("shape_mismatch", "EXEC-manip-collapse-1"):
        compute("collapse_sum_to", x, ShapeValue((2, 3)))


@pytest.mark.parametrize("target", ["R.shape([1, 3])", 'R.shape(["n", 1, 3])', "R.shape([3])",
                                    "R.shape([])", 'R.shape(["n", 4, 3])'])
def test_collapse_sum_to_lowers(target):
    text = module('x: R.Tensor(("n", 4, 3), "float32")',
                  f"y = R.collapse_sum_to(x, {target})")
    check_lowered(text, "relax.collapse_sum_to")


@pytest.mark.parametrize("dtype", ["int32", "float16", "bool"])
def test_collapse_sum_like_lowers(dtype):
    text = module(f'x: R.Tensor(("n", 4, 3), "{dtype}"), t: R.Tensor((4, 1), "{dtype}")',
                  "y = R.collapse_sum_like(x, t)")
    check_lowered(text, "relax.collapse_sum_like")
