"""Indexing ops (spec/ops/indexing.md): ``take``, ``strided_slice``,
``dynamic_strided_slice``: deduction (static, symbolic, ndim-only, unknown, every error
rule), NumPy semantics against independent formulas, soundness of the symbolic slice
lengths as a property, and a cross-check against Apache TVM 0.27."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64, parse_dtype
from relax_ref.errors import StructInfoError
from relax_ref.values import PrimScalar
from relax_ref.solver.evaluate import evaluate_int
from relax_ref.solver.simplify import expr_text

from .helpers import (
    arange, assert_ndim, assert_tensor, check_same, compute, deduce, raises_rule, sym, tensor,
    traps,
)
from .tvm_bridge import TvmBridge

n, m = sym("n"), sym("m")


def ptuple(*values) -> rx.Tuple:
    """A literal tuple of int64 R.Prim values, as ``(1, n - 1)`` in TVMScript."""
    return rx.Tuple(tuple(rx.PrimValue(P.IntImm(v) if isinstance(v, int) else v)
                          for v in values))


def prims(*values) -> tuple:
    """The run-time value of such a tuple."""
    return tuple(PrimScalar(v, INT64) for v in values)


def slice_sinfo(x, axes, begin, end, strides=None, **attrs):
    args = [None, ptuple(*axes), ptuple(*begin), ptuple(*end)]
    if strides is not None:
        args.append(ptuple(*strides))
    return deduce("strided_slice", [x] + [None] * (len(args) - 1), args=args, **attrs)


# -- take ----------------------------------------------------------------------------------

def test_take_deduction():
    assert_tensor(deduce("take", [tensor((n, m)), tensor((2, 5), "int32")], axis=0), (2, 5, m))
    assert_tensor(deduce("take", [tensor((n, m)), tensor((3,), "int64")], axis=-1), (n, 3))
    assert_tensor(deduce("take", [tensor((n,), "int8"), tensor((m,), "uint8")]), (m,), "int8")
    # An R.Prim index acts as a 0-d tensor: the axis disappears.
    assert_tensor(deduce("take", [tensor((n, m)), si.PrimStructInfo(INT64)], axis=1), (n,))
    assert_ndim(deduce("take", [tensor((n, m)), tensor(2, "int32")], axis=1), 3)
    assert_ndim(deduce("take", [tensor(2), tensor((4,), "int32")], axis=0), 2)
    assert_ndim(deduce("take", [tensor((n, m)), tensor(None, "int32")], axis=0), -1)
    assert_ndim(deduce("take", [tensor(None), tensor((4,), "int32")], axis=0), -1)
    # An index of unknown dtype is accepted (TVM warns); the run-time check decides.
    assert_tensor(deduce("take", [tensor((n,)), tensor((4,), "")]), (4,))


def test_take_errors():
    with raises_rule("SI-index-take-2"):
        deduce("take", [tensor((3,)), tensor((3,), "float32")])
    with raises_rule("SI-index-take-2"):
        deduce("take", [tensor((3,)), tensor((3,), "bool")])
    with raises_rule("SI-index-take-2"):
        deduce("take", [tensor((3,)), si.ShapeStructInfo(None, 1)])
    with raises_rule("SI-index-take-3"):
        deduce("take", [tensor((3, 4)), tensor((2,), "int64")])
    with raises_rule("SI-index-take-3"):
        deduce("take", [tensor(None), tensor((2,), "int64")])
    with raises_rule("SI-index-take-4"):
        deduce("take", [tensor((3,), "int32"), tensor((2,), "int64")], mode="nan")
    with raises_rule("SI-op-axis-1"):
        deduce("take", [tensor((3, 4)), tensor((2,), "int64")], axis=2)
    with pytest.raises(StructInfoError) as info:
        deduce("take", [tensor((3,)), tensor((2,), "int64")], mode="raise")
    assert info.value.rule == "SI-call-1"


def test_take_semantics():
    x = arange(3, 4)
    idx = np.array([[2, 0], [1, 1]], "int32")
    check_same(compute("take", x, idx, axis=0), x[idx])
    check_same(compute("take", x, np.array([3, 0], "int64"), axis=-1), x[:, [3, 0]])
    check_same(compute("take", x, PrimScalar(1, INT64), axis=1), x[:, 1])
    check_same(compute("take", np.arange(5), np.zeros((0,), "int64")),
               np.zeros((0,), np.arange(5).dtype))
    check_same(compute("take", np.arange(5, dtype="int8"), np.array([4, 1], "uint64")),
               np.array([4, 1], "int8"))


def test_take_modes():
    x = np.array([10.0, 11.0, 12.0], "float32")
    idx = np.array([-4, -1, 0, 2, 3, 7], "int64")
    # clip clamps into [0, 2]; wrap is Python's modulo (TVM: truncmod(truncmod(i, n) + n, n)).
    check_same(compute("take", x, idx, mode="clip"),
               np.array([10, 10, 10, 12, 12, 12], "float32"))
    check_same(compute("take", x, idx, mode="wrap"),
               np.array([12, 12, 10, 12, 10, 11], "float32"))
    got = compute("take", x, idx, mode="nan")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([np.nan, np.nan, 10, 12, np.nan, np.nan],
                                                "float32"))
    # "fast" makes an out-of-range index observable instead of reading garbage.
    with traps("index_out_of_bounds", "EXEC-index-take-1"):
        compute("take", x, np.array([3]))
    with traps("index_out_of_bounds", "EXEC-index-take-1"):
        compute("take", x, np.array([-1]))
    with traps("index_out_of_bounds", "EXEC-index-take-1"):
        compute("take", np.zeros((0,)), np.array([0]), mode="wrap")
    with traps("index_out_of_bounds", "EXEC-index-take-1"):
        compute("take", np.zeros((2, 0)), np.array([0]), axis=1, mode="clip")
    with traps("invalid_value", "EXEC-index-take-1"):
        compute("take", x, np.array([0.0]))
    with traps("invalid_value", "EXEC-index-take-1"):
        compute("take", np.arange(3), np.array([0]), mode="nan")
    with traps("shape_mismatch", "EXEC-index-take-1"):
        compute("take", arange(2, 2), np.array([0]))


# -- strided_slice ---------------------------------------------------------------------------

def test_strided_slice_static():
    x = tensor((10, 8))
    assert_tensor(slice_sinfo(x, [0], [2], [8], [2]), (3, 8))
    assert_tensor(slice_sinfo(x, [1], [-3], [100]), (10, 3))
    assert_tensor(slice_sinfo(x, [0, 1], [9, 0], [-100, 8], [-3, 3]), (4, 3))
    # x[5:2] is empty (TVM deduces -3).
    assert_tensor(slice_sinfo(x, [0], [5], [2]), (0, 8))
    assert_tensor(slice_sinfo(x, [0], [2], [5], [-1]), (0, 8))
    assert_tensor(slice_sinfo(x, [0], [1], [9], assume_inbound=True), (8, 8))
    assert_tensor(slice_sinfo(x, [0], [9], [-1], [-1], assume_inbound=True), (10, 8))


def test_strided_slice_symbolic():
    x = tensor((n, 10))
    assert_tensor(slice_sinfo(x, [1], [2], [8], [2]), (n, 3))
    assert_tensor(slice_sinfo(x, [0, 1], [1, -3], [n, 100]),
                  (P.Max(n - 1, P.IntImm(0), INT64), 3))
    assert_tensor(slice_sinfo(x, [0], [1], [n - 1], assume_inbound=True), (n - 2, 10))
    assert_tensor(slice_sinfo(x, [0], [0], [n], [2]), (P.FloorDiv(n + 1, P.IntImm(2), INT64), 10))
    assert_tensor(slice_sinfo(tensor((n,)), [0], [m], [n], assume_inbound=True), (n - m,))
    assert_tensor(slice_sinfo(tensor((n,)), [0], [0], [n], [-1]), (0,))
    assert_tensor(slice_sinfo(x, [0], [0], [n], [1]), (n, 10))


def test_strided_slice_partial_knowledge():
    x = tensor((n, 10))
    # A symbolic stride: only the ndim.
    assert_ndim(slice_sinfo(x, [0], [0], [n], [m]), 2)
    assert_ndim(slice_sinfo(tensor(2), [0], [0], [2]), 2)
    assert_ndim(slice_sinfo(tensor(None), [0], [0], [2]), -1)
    # Tuples known only by struct info: values when the R.Prim infos carry them.
    known = si.TupleStructInfo((si.PrimStructInfo(INT64, P.IntImm(1)),))
    unknown = si.TupleStructInfo((si.PrimStructInfo(INT64),))
    assert_tensor(deduce("strided_slice", [x, known, known, tupleof(5)]), (n, 4))
    assert_ndim(deduce("strided_slice", [x, known, unknown, tupleof(5)]), 2)
    assert_ndim(deduce("strided_slice", [x, si.ObjectStructInfo(), known, known]), 2)
    # No axes: x itself.
    empty = si.TupleStructInfo(())
    assert deduce("strided_slice", [x, empty, empty, empty]).shape == x.shape


def tupleof(*values) -> si.TupleStructInfo:
    return si.TupleStructInfo(tuple(si.PrimStructInfo(INT64, P.IntImm(v)) for v in values))


def test_strided_slice_errors():
    x = tensor((10, 8))
    with raises_rule("SI-index-slice-1"):
        deduce("strided_slice", [x, tensor((1,), "int64"), tupleof(0), tupleof(1)])
    with raises_rule("SI-index-slice-1"):
        deduce("strided_slice", [x, tupleof(0), si.TupleStructInfo(
            (si.PrimStructInfo(parse_dtype("float32")),)), tupleof(1)])
    with raises_rule("SI-index-slice-1"):
        slice_sinfo(x, [n], [0], [1])
    with raises_rule("SI-index-slice-3"):
        slice_sinfo(x, [0, 1], [0], [1, 1])
    with raises_rule("SI-index-slice-3"):
        slice_sinfo(x, [0], [0], [1], [1, 1])
    with raises_rule("SI-index-slice-4"):
        slice_sinfo(x, [0], [0], [5], [0])
    with raises_rule("SI-index-slice-6"):
        slice_sinfo(x, [0], [5], [2], assume_inbound=True)
    with raises_rule("SI-index-slice-6"):
        slice_sinfo(x, [0], [-1], [5], assume_inbound=True)
    with raises_rule("SI-op-axis-1"):
        slice_sinfo(x, [2], [0], [1])
    with raises_rule("SI-op-axis-2"):
        slice_sinfo(x, [0, -2], [0, 0], [1, 1])


def test_strided_slice_semantics():
    x = arange(10, 8)
    check_same(compute("strided_slice", x, prims(0), prims(2), prims(8), prims(2)), x[2:8:2])
    check_same(compute("strided_slice", x, prims(1, 0), prims(-3, 9), prims(100, -100),
                       prims(1, -3)), x[9:-100:-3, -3:100])
    check_same(compute("strided_slice", x, prims(0), prims(5), prims(2)), x[5:2])
    check_same(compute("strided_slice", x, prims(-1), prims(1), prims(7)), x[:, 1:7])
    # assume_inbound=True: ceildiv(end - begin, stride) elements from begin.
    check_same(compute("strided_slice", x, prims(0), prims(9), prims(-1), prims(-1),
                       assume_inbound=True), x[::-1])
    check_same(compute("strided_slice", x, prims(1), prims(1), prims(7), prims(3),
                       assume_inbound=True), x[:, 1:7:3])
    with traps("index_out_of_bounds", "EXEC-index-slice-1"):
        compute("strided_slice", x, prims(0), prims(-2), prims(10), assume_inbound=True)
    with traps("invalid_value", "EXEC-index-slice-1"):  # a negative length
        compute("strided_slice", x, prims(0), prims(5), prims(2), assume_inbound=True)
    with traps("invalid_value", "EXEC-index-slice-1"):
        compute("strided_slice", x, prims(0), prims(0), prims(5), prims(0))
    with traps("invalid_value", "EXEC-index-slice-1"):
        compute("strided_slice", x, prims(0, 1), prims(0), prims(5))
    with traps("shape_mismatch", "EXEC-index-slice-1"):
        compute("strided_slice", x, prims(2), prims(0), prims(5))


_ends = st.one_of(st.integers(-12, 12), st.sampled_from(["n", "n-1", "-n", "m"]))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 9), st.integers(0, 9), _ends, _ends,
       st.sampled_from([1, 2, 3, -1, -2, -3]), st.booleans())
def test_symbolic_slice_lengths_are_sound(n_value, m_value, begin, end, stride, inbound):
    """Whenever the semantics does not trap, the deduced length evaluated at the
    variables' values is the length of the result."""
    def expr(v):
        return {"n": n, "n-1": n - 1, "-n": 0 - n, "m": m}.get(v, P.IntImm(v)) if isinstance(
            v, str) else P.IntImm(v)

    def value(v):
        return {"n": n_value, "n-1": n_value - 1, "-n": -n_value, "m": m_value}.get(v, v) \
            if isinstance(v, str) else v
    try:
        s = slice_sinfo(tensor((n,)), [0], [expr(begin)], [expr(end)], [stride],
                        assume_inbound=inbound)
    except StructInfoError:
        return
    try:
        out = compute("strided_slice", np.zeros(n_value), prims(0), prims(value(begin)),
                      prims(value(end)), prims(stride), assume_inbound=inbound)
    except Exception as err:  # noqa: BLE001 - a trap is allowed; anything else is not
        assert type(err).__name__ == "OpRuntimeError"
        return
    assert s.shape is not None
    assert evaluate_int(s.shape[0], {n: n_value, m: m_value}) == out.shape[0], expr_text(
        s.shape[0])


# -- dynamic_strided_slice ---------------------------------------------------------------------

def test_dynamic_strided_slice():
    x = tensor((n, 4))
    vec = tensor((2,), "int64")
    assert_ndim(deduce("dynamic_strided_slice", [x, vec, vec, vec]), 2)
    assert_ndim(deduce("dynamic_strided_slice", [tensor(None), vec, vec, vec]), -1)
    assert_ndim(deduce("dynamic_strided_slice", [x, tensor(1, "int64"), vec, vec]), 2)
    with raises_rule("SI-index-dslice-1"):
        deduce("dynamic_strided_slice", [x, tensor((3,), "int64"), vec, vec])
    with raises_rule("SI-index-dslice-1"):
        deduce("dynamic_strided_slice", [x, vec, tensor((2,), "int32"), vec])
    with raises_rule("SI-index-dslice-1"):
        deduce("dynamic_strided_slice", [x, vec, vec, tensor((2, 1), "int64")])
    a = arange(4, 6)
    check_same(compute("dynamic_strided_slice", a, np.array([1, -1]), np.array([100, -7]),
                       np.array([2, -2])), a[1:100:2, -1:-7:-2])
    with traps("shape_mismatch", "EXEC-index-dslice-1"):
        compute("dynamic_strided_slice", a, np.array([1]), np.array([2]), np.array([1]))
    with traps("invalid_value", "EXEC-index-dslice-1"):
        compute("dynamic_strided_slice", a, np.array([0, 0]), np.array([2, 2]),
                np.array([1, 0]))


# -- cross-check against TVM 0.27 -------------------------------------------------------------

def _index_cases():
    def take(x_dims, ind_dims, ind_dtype="int64", **attrs):
        def build(b):
            ours_x, var_x = b.tensor(x_dims)
            ours_i, var_i = b.tensor(ind_dims, ind_dtype)
            return (deduce("take", [ours_x, ours_i], **attrs),
                    b.their_sinfo(b.relax.op.take(var_x, var_i, **attrs)))
        return build

    def sliced(x_dims, axes, begin, end, strides=None, **attrs):
        def build(b):
            ours_x, var_x = b.tensor(x_dims)
            conv = [[b.dim(v) for v in t] for t in (axes, begin, end)]
            our_args = [None] + [ptuple(*[p[0] for p in t]) for t in conv]
            their = [[p[1] for p in t] for t in conv]
            if strides is not None:
                our_args.append(ptuple(*strides))
                their.append(list(strides))
            else:
                their.append(None)
            ours = deduce("strided_slice", [ours_x] + [None] * (len(our_args) - 1),
                          args=our_args, **attrs)
            theirs = b.their_sinfo(b.relax.op.strided_slice(var_x, *their, **attrs))
            return ours, theirs
        return build

    def dslice(x_dims):
        def build(b):
            ours_x, var_x = b.tensor(x_dims)
            k = len(x_dims) if not isinstance(x_dims, int) else x_dims
            vecs = [b.tensor((k,), "int64") for _ in range(3)]
            return (deduce("dynamic_strided_slice", [ours_x] + [v[0] for v in vecs]),
                    b.their_sinfo(b.relax.op.dynamic_strided_slice(var_x,
                                                                   *[v[1] for v in vecs])))
        return build

    return [
        ("take axis 0", take(("n", "m"), (2, 5), "int32", axis=0)),
        ("take axis -1", take(("n", "m"), ("k",), axis=-1)),
        ("take 1-d", take((7,), (3, 2))),
        ("take ndim", take(("n", "m"), 2, "int32", axis=-1)),
        ("take clip", take(("n", 4), (3,), axis=1, mode="clip")),
        ("slice static", sliced(("n", 10), [1], [2], [8], [2])),
        ("slice clamp", sliced(("n", 10), [0, 1], [1, -3], ["n", 100])),
        ("slice inbound", sliced(("n", 10), [0], [1], ["n"], assume_inbound=True)),
        ("slice negative stride", sliced((10,), [0], [9], [-100], [-3])),
        ("slice reverse", sliced(("n", 10), [1], [9], [-11], [-1])),
        ("slice symbolic begin", sliced(("n",), [0], ["m"], ["n"], assume_inbound=True)),
        ("slice symbolic begin clamped", sliced(("n",), [0], ["m"], ["n"])),
        ("slice stride 2", sliced(("n",), [0], [0], ["n"], [2])),
        ("slice ndim", sliced(2, [0], [0], [2])),
        ("dynamic_strided_slice", dslice(("n", 4))),
    ]


@pytest.mark.tvm
@pytest.mark.parametrize("name,build", _index_cases(), ids=[c[0] for c in _index_cases()])
def test_matches_tvm(name, build):
    bridge = TvmBridge()
    ours, theirs = build(bridge)
    bridge.assert_same(ours, theirs)
