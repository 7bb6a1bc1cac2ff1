"""Search and sorting ops (spec/ops/search.md): struct-info deduction (static, symbolic,
ndim-only, unknown, every error rule), NumPy semantics against hand-computed values and
independent formulas, and cross-checks of deduction and numbers against TVM 0.27."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.common import OpRuntimeError
from relax_ref.values import PrimScalar
from relax_ref.solver.evaluate import evaluate_int

from .helpers import compute, deduce, dims, fails, sym, tensor
from .tvm_bridge import TvmBridge

N = sym("n")
BOOL, I64 = parse_dtype("bool"), parse_dtype("int64")
T, F = PrimScalar(True, BOOL), PrimScalar(False, BOOL)


def kinds(s):
    """(dtype, ndim, shape) of a tensor, or a list of them for a tuple."""
    if isinstance(s, si.TupleStructInfo):
        return [kinds(f) for f in s.fields]
    return (str(s.dtype), s.ndim, dims(s))


# -- unique ------------------------------------------------------------------------------------

def test_unique_deduction():
    x = tensor((N,), "int32")
    assert kinds(deduce("unique", [x])) == ("int32", 1, None)
    assert kinds(deduce("unique", [x], sorted=False)) == ("int32", 1, None)
    assert kinds(deduce("unique", [tensor((2, 3))], return_counts=True)) == \
        [("float32", 1, None), ("int64", 1, None)]
    out = deduce("unique", [tensor((2, 3))], return_index=True, return_inverse=True,
                 return_counts=True, axis=1)
    assert kinds(out) == [("float32", 2, None)] + [("int64", 1, None)] * 3
    assert kinds(deduce("unique", [tensor(())], return_inverse=True)) == \
        [("float32", 1, (1,)), ("int64", 1, (1,))]
    assert kinds(deduce("unique", [tensor(None, "int8")])) == ("int8", 1, None)
    # a symbolic axis is not checked at compile time
    axis = rx.Var("a", si.PrimStructInfo(I64))
    assert kinds(deduce("unique", [tensor((2, 3))], axis=axis)) == ("float32", 2, None)
    fails("SI-op-axis-1", "unique", [tensor((2, 3))], axis=2)
    fails("SI-search-unique-2", "unique", [x], return_counts=rx.Var("f", si.PrimStructInfo(BOOL)))
    fails("SI-op-tensor-1", "unique", [rx.Var("s", si.ShapeStructInfo((P.IntImm(2),)))
                                       .struct_info])


def test_unique_positional_call_as_printed_by_tvm():
    """``R.unique(x, True, False, False, False)`` from the sample unique_match_cast.py."""
    from relax_ref.ops.registry import canonicalize_call, deduce_call_sinfo
    from relax_ref.solver.analyzer import Analyzer

    def pv(b):
        return rx.PrimValue(P.IntImm(int(b), BOOL))

    x = rx.Var("x", tensor((N,), "int32"))
    call = canonicalize_call(rx.Call(rx.Op("relax.unique"), (x, pv(1), pv(0), pv(0), pv(0))))
    sinfos = [x.struct_info] + [si.PrimStructInfo(BOOL, a.value) for a in call.args[1:]]
    assert kinds(deduce_call_sinfo(call, sinfos, Analyzer())) == ("int32", 1, None)


def test_unique_semantics():
    x = np.array([3, 1, 3, 2, 1, 3], "int32")
    np.testing.assert_array_equal(compute("unique", x, T, F, F, F), [1, 2, 3])
    np.testing.assert_array_equal(compute("unique", x, F, F, F, F), [3, 1, 2])
    vals, idx, inv, cnt = compute("unique", x, T, T, T, T)
    np.testing.assert_array_equal(vals, [1, 2, 3])
    np.testing.assert_array_equal(idx, [1, 3, 0])
    np.testing.assert_array_equal(inv, [2, 0, 2, 1, 0, 2])
    np.testing.assert_array_equal(cnt, [2, 1, 3])
    assert vals.dtype == np.int32 and all(a.dtype == np.int64 for a in (idx, inv, cnt))
    vals, idx, inv, cnt = compute("unique", x, F, T, T, T)
    np.testing.assert_array_equal(vals, [3, 1, 2])
    np.testing.assert_array_equal(idx, [0, 1, 3])
    np.testing.assert_array_equal(inv, [0, 1, 0, 2, 1, 0])
    np.testing.assert_array_equal(cnt, [3, 2, 1])
    # along an axis: distinct columns; the inverse is 1-d
    m = np.array([[1, 0, 1], [2, 5, 2]], "float32")
    vals, inv = compute("unique", m, T, F, T, F, PrimScalar(1, I64))
    np.testing.assert_array_equal(vals, [[0, 1], [5, 2]])
    np.testing.assert_array_equal(inv, [1, 0, 1])
    # flattened multi-dimensional input: a 1-d inverse (TVM's struct info, ONNX)
    _, inv = compute("unique", m, T, F, T, F)
    assert inv.shape == (6,)
    np.testing.assert_array_equal(np.unique(m)[inv], m.reshape(-1))
    # 0-d and empty inputs
    vals, cnt = compute("unique", np.array(7.0, "float32"), T, F, F, T)
    assert vals.shape == (1,) and cnt.tolist() == [1]
    assert compute("unique", np.zeros((0,), "int8"), T, F, F, F).shape == (0,)
    with pytest.raises(OpRuntimeError):
        compute("unique", m, T, F, F, F, PrimScalar(2, I64))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=12), st.booleans())
def test_unique_reconstructs_its_input(values, sorted_):
    """Property: values[inverse] == x; values[index] are the first occurrences; counts add
    up to the size; without sorting the values come in order of first occurrence."""
    x = np.array(values, "int64")
    vals, idx, inv, cnt = compute("unique", x, PrimScalar(sorted_, BOOL), T, T, T)
    np.testing.assert_array_equal(vals[inv], x)
    np.testing.assert_array_equal(x[idx], vals)
    assert all(values.index(v) == i for v, i in zip(vals.tolist(), idx.tolist()))
    assert cnt.sum() == x.size
    assert list(idx) == sorted(idx) if not sorted_ else list(vals) == sorted(vals)


# -- nonzero -----------------------------------------------------------------------------------

def test_nonzero():
    assert kinds(deduce("nonzero", [tensor((N, 3), "bool")])) == ("int64", 2, None)
    assert kinds(deduce("nonzero", [tensor(None)])) == ("int64", 2, None)
    x = np.array([[0, 1], [2, 0]], "int32")
    np.testing.assert_array_equal(compute("nonzero", x), [[0, 1], [1, 0]])
    assert compute("nonzero", np.array(5.0)).shape == (1, 1)
    assert compute("nonzero", np.zeros((2, 3))).shape == (2, 0)
    assert compute("nonzero", x).dtype == np.int64


# -- sort, argsort, topk -----------------------------------------------------------------------

def test_sort_deduction():
    x = tensor((2, N), "float16")
    assert deduce("sort", [x]) is x
    out = deduce("argsort", [x], axis=0, descending=True)
    assert dims(out) == (2, N) and str(out.dtype) == "int32"
    assert str(deduce("argsort", [x], dtype="int64").dtype) == "int64"
    assert str(deduce("argsort", [x], dtype=None).dtype) == "float16"
    assert deduce("argsort", [tensor(None)]).ndim == -1
    fails("SI-op-axis-1", "sort", [x], axis=2)
    fails("SI-op-axis-1", "argsort", [tensor(())])


def test_topk_deduction():
    x = tensor((2, 5))
    assert kinds(deduce("topk", [x], k=3)) == [("float32", 2, (2, 3)), ("int32", 2, (2, 3))]
    assert kinds(deduce("topk", [x], k=9, ret_type="values")) == ("float32", 2, (2, 5))
    assert kinds(deduce("topk", [x], k=0, ret_type="indices", dtype="int64")) == \
        ("int64", 2, (2, 5))
    assert kinds(deduce("topk", [x], k=2, axis=0, ret_type="values")) == ("float32", 2, (2, 5))
    # symbolic: min(k, n) unless k <= n is provable
    e = deduce("topk", [tensor((2, N))], k=3, ret_type="values").shape[1]
    assert [evaluate_int(e, {N: n}) for n in (0, 2, 3, 7)] == [0, 2, 3, 3]
    out = deduce("topk", [tensor((2, N + 4))], k=3, ret_type="values")
    assert dims(out) == (2, 3)
    assert kinds(deduce("topk", [tensor(3)], k=2)) == [("float32", 3, None), ("int32", 3, None)]
    fails("SI-op-axis-1", "topk", [x], axis=2)
    fails("SI-call-1", "topk", [x], ret_type="both_")


def test_sort_semantics():
    x = np.array([[3, 1, 2, 1], [0, 5, 5, -1]], "int32")
    np.testing.assert_array_equal(compute("sort", x), np.sort(x, axis=-1))
    np.testing.assert_array_equal(compute("sort", x, axis=0, descending=True),
                                  -np.sort(-x, axis=0))
    # stable in both directions: equal keys keep their input order
    np.testing.assert_array_equal(compute("argsort", x), [[1, 3, 2, 0], [3, 0, 1, 2]])
    np.testing.assert_array_equal(compute("argsort", x, descending=True),
                                  [[0, 2, 1, 3], [1, 2, 0, 3]])
    assert compute("argsort", x).dtype == np.int32
    assert compute("argsort", x, dtype="int64").dtype == np.int64
    vals, idx = compute("topk", x, k=2)
    np.testing.assert_array_equal(vals, [[3, 2], [5, 5]])
    np.testing.assert_array_equal(idx, [[0, 2], [1, 2]])
    np.testing.assert_array_equal(compute("topk", x, k=3, largest=False, ret_type="indices"),
                                  [[1, 3, 2], [3, 0, 1]])
    assert compute("topk", x, k=0, ret_type="values").shape == (2, 4)
    assert compute("topk", x, k=9, ret_type="values").shape == (2, 4)
    assert compute("sort", np.zeros((0, 3), "float32")).shape == (0, 3)
    f = np.array([2.0, np.nan, -1.0], "float32")
    np.testing.assert_array_equal(compute("sort", f), [-1.0, 2.0, np.nan])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=1, max_size=10), st.booleans())
def test_argsort_is_a_stable_sort(values, descending):
    """Property: the permutation sorts, and equal keys appear in increasing index order."""
    x = np.array(values, "int32")
    order = compute("argsort", x, descending=descending).tolist()
    assert sorted(order) == list(range(len(values)))
    keys = [(-values[i] if descending else values[i], i) for i in order]
    assert keys == sorted(keys)


# -- cross-checks against TVM 0.27 -------------------------------------------------------------

@pytest.mark.tvm
def test_deduction_agrees_with_tvm():
    b = TvmBridge()
    op = b.relax.op
    for x in (tensor((N,), "int32"), tensor((2, 3)), tensor(()), tensor(None, "int8")):
        b.assert_same_at(deduce("unique", [x]), b.deduce(op.unique, x))
        b.assert_same_at(deduce("unique", [x], return_inverse=True, return_counts=True),
                      b.deduce(lambda v: op.unique(v, return_inverse=True, return_counts=True), x))
    m = tensor((2, 3))
    b.assert_same_at(deduce("unique", [m], return_index=True, axis=1),
                  b.deduce(lambda v: op.unique(v, return_index=True, axis=1), m))
    assert b.raises(lambda v: op.unique(v, axis=3), m)
    b.assert_same_at(deduce("nonzero", [m]), b.deduce(op.nonzero, m))
    x = tensor((2, N, 5))
    b.assert_same_at(deduce("sort", [x], axis=1), b.deduce(lambda v: op.sort(v, 1), x))
    b.assert_same_at(deduce("argsort", [x]), b.deduce(op.argsort, x))
    b.assert_same_at(deduce("argsort", [x], dtype="int64"),
                  b.deduce(lambda v: op.argsort(v, dtype="int64"), x))
    for k, axis, ret in ((3, -1, "both"), (9, -1, "values"), (0, 0, "indices"), (1, 2, "both")):
        b.assert_same_at(deduce("topk", [x], k=k, axis=axis, ret_type=ret),
                      b.deduce(lambda v: op.topk(v, k, axis, ret), x))


@pytest.mark.tvm
def test_known_differences_from_tvm():
    """spec/ops/search.md, "Differences from TVM"."""
    b = TvmBridge()
    op = b.relax.op
    # D1: topk of k elements along a symbolic axis: TVM assumes n >= k.
    x = tensor((2, N))
    theirs = b.deduce(lambda v: op.topk(v, 3, ret_type="values"), x)
    assert int(theirs.shape.values[1]) == 3
    e = deduce("topk", [x], k=3, ret_type="values").shape[1]
    assert evaluate_int(e, {N: 2}) == 2
    # D2: sort/argsort/topk with an axis out of range: TVM does not check it.
    assert not b.raises(lambda v: op.sort(v, 5), tensor((2, 3)))
    fails("SI-op-axis-1", "sort", [tensor((2, 3))], axis=5)
    # D3: unique's inverse of a 2-d input: TVM's runtime returns it shaped like the input
    # although its deduction says 1-d; ours is 1-d.
    m = np.array([[1, 2], [2, 3]], "int32")
    (_, their_inverse), = b.run_legalized_many([(lambda v: op.unique(v, return_inverse=True), [m])])
    assert their_inverse.shape == (2, 2)
    assert b.deduce(lambda v: op.unique(v, return_inverse=True), tensor((2, 2), "int32")) \
        .fields[1].ndim == 1
    assert compute("unique", m, T, F, T, F)[1].shape == (4,)


@pytest.mark.tvm
def test_numbers_agree_with_tvm():
    b = TvmBridge()
    op = b.relax.op
    x = np.array([[3, 1, 2, 1, 7], [0, 5, 5, -1, 2]], "int32")
    f = np.array([4, 1, 4, 2, 1, 1], "float32")
    cases = [
        (lambda v: op.sort(v), [x], ("sort", x), {}),
        (lambda v: op.sort(v, 0, True), [x], ("sort", x), {"axis": 0, "descending": True}),
        (lambda v: op.argsort(v), [x], ("argsort", x), {}),
        (lambda v: op.topk(v, 2, ret_type="values"), [x], ("topk", x),
         {"k": 2, "ret_type": "values"}),
        (lambda v: op.topk(v, 3, largest=False, ret_type="indices"), [x], ("topk", x),
         {"k": 3, "largest": False, "ret_type": "indices"}),
        (lambda v: op.unique(v), [f], ("unique", f, T, F, F, F), {}),
        (lambda v: op.unique(v, sorted=False, return_counts=True), [f],
         ("unique", f, F, F, F, T), {}),
        (lambda v: op.nonzero(v), [x - 1], ("nonzero", x - 1), {}),
    ]
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _, _ in cases])
    for (_, _, (name, *values), attrs), their in zip(cases, theirs):
        ours = compute(name, *values, **attrs)
        ours_t = ours if isinstance(ours, tuple) else (ours,)
        their_t = their if isinstance(their, tuple) else (their,)
        for a, t in zip(ours_t, their_t):
            assert a.dtype == t.dtype, name
            np.testing.assert_array_equal(a, t, err_msg=name)
