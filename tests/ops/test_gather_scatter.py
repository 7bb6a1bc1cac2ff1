"""Gather and scatter ops (spec/ops/indexing.md): deduction (static, symbolic, unknown,
error rules), NumPy semantics against independent formulas (duplicates applied in
row-major order), traps, and the lowerings through ``check_pass(LegalizeOps)`` at several
values of each symbolic dimension (the harness draws 0, 1, 2, 3)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.values import PrimScalar

from .helpers import (
    assert_ndim, assert_tensor, check_same, compute, deduce, raises_rule, sym, tensor, traps,
)
from .legalize_helpers import check_lowered, module

n, m = sym("n"), sym("m")
I64 = "int64"


def prim(v):
    from relax_ref.ir import prim_expr as P
    from relax_ref.ir import relax as rx

    return rx.PrimValue(P.IntImm(v, INT64) if isinstance(v, int) else v)


# -- gather_elements ----------------------------------------------------------------------

def test_gather_elements_deduction():
    assert_tensor(deduce("gather_elements", [tensor((n, 4)), tensor((n, 2), I64)], axis=1),
                  (n, 2))
    assert_ndim(deduce("gather_elements", [tensor((n, 4)), tensor(2, "int32")]), 2)
    assert_ndim(deduce("gather_elements", [tensor(None), tensor((3,), I64)]), -1)
    with raises_rule("SI-index-gelem-2"):
        deduce("gather_elements", [tensor((3,)), tensor((3,), "uint8")])
    with raises_rule("SI-index-gelem-3"):
        deduce("gather_elements", [tensor((3, 2)), tensor((3,), I64)])
    with raises_rule("SI-index-gelem-4"):
        deduce("gather_elements", [tensor((3, 2)), tensor((3, 5), I64)], axis=0)
    with raises_rule("SI-op-axis-1"):
        deduce("gather_elements", [tensor((3, 2)), tensor((3, 2), I64)], axis=2)


def test_gather_elements_semantics():
    x = np.arange(12, dtype="float32").reshape(3, 4)
    i = np.array([[3, 0], [1, 1], [0, 2]])
    want = np.array([[x[r, i[r, c]] for c in range(2)] for r in range(3)], "float32")
    check_same(compute("gather_elements", x, i, axis=1), want)
    with traps("index_out_of_bounds", "EXEC-index-gelem-1"):
        compute("gather_elements", x, np.array([[4]]), axis=1)
    with traps("index_out_of_bounds", "EXEC-index-gelem-1"):
        compute("gather_elements", x, np.array([[-1]]), axis=1)  # no wrap (TVM's kernel)
    with traps("shape_mismatch", "EXEC-index-gelem-1"):
        compute("gather_elements", x, np.zeros((4, 1), "int64"), axis=1)
    # An empty result reads nothing, so the bad index never counts.
    assert compute("gather_elements", x, np.zeros((0, 2), "int64"), axis=1).shape == (0, 2)


def test_gather_elements_lowered():
    check_lowered(module('x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("n", 3), "int32")',
                         'y = R.gather_elements(x, i, axis=1)'), "relax.gather_elements")
    # Off-axis dims not known to fit: the PrimFunc checks m <= n first (TE-leg-7).
    out = check_lowered(module('x: R.Tensor(("n", 4), "float32"), '
                               'i: R.Tensor(("m", 4), "int64")',
                               'y = R.gather_elements(x, i, axis=1)'), "relax.gather_elements")
    assert 'assert m <= n, "shape_mismatch: relax.gather_elements' in out.script()


# -- gather_nd ----------------------------------------------------------------------------

def test_gather_nd_deduction():
    assert_tensor(deduce("gather_nd", [tensor((n, 3, 4)), tensor((m, 2), I64)]), (m, 4))
    assert_tensor(deduce("gather_nd", [tensor((n, 3, 4)), tensor((n, 1), I64)],
                         batch_dims=1), (n, 4))
    assert_ndim(deduce("gather_nd", [tensor((n, 3)), tensor((m, n), I64)]), -1)
    with raises_rule("SI-index-gnd-2"):
        deduce("gather_nd", [tensor((3,)), tensor((3, 1), "int32")])
    with raises_rule("SI-index-gnd-3"):
        deduce("gather_nd", [tensor((3, 2)), tensor((3, 3), I64)])
    with raises_rule("SI-index-gnd-3"):
        deduce("gather_nd", [tensor((3, 2)), tensor((3,), I64)], batch_dims=1)
    with raises_rule("SI-index-gnd-4"):
        deduce("gather_nd", [tensor((3, 2)), tensor((4, 1), I64)], batch_dims=1)


def test_gather_nd_semantics():
    x = np.arange(24, dtype="int32").reshape(2, 3, 4)
    i = np.array([[1, 2], [0, 0], [1, 0]])
    check_same(compute("gather_nd", x, i), np.stack([x[1, 2], x[0, 0], x[1, 0]]))
    b = np.array([[2], [1]])
    check_same(compute("gather_nd", x, b, batch_dims=1), np.stack([x[0, 2], x[1, 1]]))
    with traps("index_out_of_bounds", "EXEC-index-gnd-1"):
        compute("gather_nd", x, np.array([[2, 0]]))
    with traps("shape_mismatch", "EXEC-index-gnd-1"):
        compute("gather_nd", x, np.zeros((3, 1), "int64"), batch_dims=1)


def test_gather_nd_of_unrelated_batch_dimensions_is_checked_at_run_time():
    out = check_lowered(module('x: R.Tensor(("n", 3, 2), "float32"), '
                               'i: R.Tensor(("m", 1), "int64")',
                               'j = R.floor_mod(i, R.const(3, "int64"))\n'
                               'y = R.gather_nd(x, j, batch_dims=1)'), "relax.gather_nd")
    assert 'assert m == n, "shape_mismatch: relax.gather_nd' in out.script()


def test_gather_nd_lowered():
    check_lowered(module('x: R.Tensor((3, "m", 2), "float32"), i: R.Tensor(("k", 2), "int64")',
                         'j = R.floor_mod(i, R.const(2, "int64"))\ny = R.gather_nd(x, j)'),
                  "relax.gather_nd")
    check_lowered(module('x: R.Tensor(("n", 3, 2), "float32"), i: R.Tensor(("n", 1), "int64")',
                         'y = R.gather_nd(x, i, batch_dims=1)'), "relax.gather_nd")


# -- index_tensor ---------------------------------------------------------------------------

def test_index_tensor_deduction():
    from .helpers import tup

    assert_tensor(deduce("index_tensor", [tensor((n, 4, 5)),
                                          tup(tensor((m, 1), I64), tensor((3,), I64))]),
                  (m, 3, 5))
    assert_ndim(deduce("index_tensor", [tensor((n, 4)), tup(tensor((m,), I64),
                                                             tensor((n,), I64))]), 1)
    with raises_rule("SI-index-itensor-2"):
        deduce("index_tensor", [tensor((3,)), tup(tensor((2,), I64), tensor((2,), I64))])
    with raises_rule("SI-index-itensor-2"):
        deduce("index_tensor", [tensor((3,)), tup(tensor((2,), "float32"))])
    with raises_rule("SI-broadcast-1"):
        deduce("index_tensor", [tensor((3, 3)), tup(tensor((2,), I64), tensor((3,), I64))])


def test_index_tensor_semantics():
    x = np.arange(12, dtype="float32").reshape(3, 4)
    r, c = np.array([[0], [2]]), np.array([1, 3, 0])
    check_same(compute("index_tensor", x, (r, c)), x[r, c])
    check_same(compute("index_tensor", x, (np.array([2, 0]),)), x[[2, 0]])
    with traps("index_out_of_bounds", "EXEC-index-itensor-1"):
        compute("index_tensor", x, (np.array([-1]),))
    with traps("shape_mismatch", "EXEC-index-itensor-1"):
        compute("index_tensor", x, (np.array([0, 1]), np.array([0, 1, 2])))


def test_index_tensor_lowered():
    check_lowered(module('x: R.Tensor(("n", 4), "float32"), a: R.Tensor(("m", 1), "int64"), '
                         'b: R.Tensor((3,), "int64")',
                         'a2 = R.floor_mod(a, R.const(1, "int64"))\n'
                         'b2 = R.floor_mod(b, R.const(4, "int64"))\n'
                         'y = R.index_tensor(x, (a2, b2))'), "relax.index_tensor")
    # k * 2 and 2 * k: one length, proved by deduction but written differently.
    out = check_lowered(module('x: R.Tensor((3, 4), "float32"), s: R.Shape(["k"]), '
                               'a: R.Tensor(("k * 2",), "int64"), '
                               'b: R.Tensor(("2 * k",), "int64")',
                               'a2 = R.floor_mod(a, R.const(3, "int64"))\n'
                               'b2 = R.floor_mod(b, R.const(4, "int64"))\n'
                               'y = R.index_tensor(x, (a2, b2))'), "relax.index_tensor")
    assert "assert" not in out.script()


# -- scatter_elements ------------------------------------------------------------------------

def test_scatter_elements_deduction():
    assert_tensor(deduce("scatter_elements", [tensor((n, 4)), tensor((m, 2), I64),
                                              tensor((m, 2))], axis=0), (n, 4))
    assert_ndim(deduce("scatter_elements", [tensor(None), tensor((3,), I64),
                                            tensor((3,))]), -1)
    with raises_rule("SI-index-scatter-2"):
        deduce("scatter_elements", [tensor((3,)), tensor((3,), I64), tensor((3,), "int32")])
    with raises_rule("SI-index-scatter-2"):
        deduce("scatter_elements", [tensor((3,)), tensor((3, 1), I64), tensor((3, 1))])
    with raises_rule("SI-index-scatter-3"):
        deduce("scatter_elements", [tensor((3,)), tensor((2,), I64), tensor((3,))])
    with raises_rule("SI-index-scatter-3"):
        deduce("scatter_elements", [tensor((3, 2)), tensor((1, 3), I64), tensor((1, 3))])
    with pytest.raises(Exception):
        deduce("scatter_elements", [tensor((3,)), tensor((3,), I64), tensor((3,))],
               reduction="sum")


def _scatter_loop(data, targets, updates, f):
    out = data.copy()
    for t, u in zip(targets, updates):
        out[t] = f(out[t], u)
    return out


@pytest.mark.parametrize("reduction,f", [
    ("update", lambda a, b: b), ("add", lambda a, b: a + b), ("mul", lambda a, b: a * b),
    ("mean", lambda a, b: (a + b) / 2), ("max", max), ("min", min)])
def test_scatter_elements_applies_duplicates_in_order(reduction, f):
    x = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    i = np.array([1, -3, 3, 1])  # -3 is 1: three updates of position 1
    u = np.array([10.0, 20.0, 30.0, 40.0], "float32")
    want = _scatter_loop(x, [1, 1, 3, 1], u, lambda a, b: np.float32(f(a, b)))
    check_same(compute("scatter_elements", x, i, u, reduction=reduction), want)


def test_scatter_elements_integer_mean_truncates_and_traps():
    x = np.array([0, 0], "int32")
    check_same(compute("scatter_elements", x, np.array([0, 1]), np.array([-3, 3], "int32"),
                       reduction="mean"), np.array([-1, 1], "int32"))
    with traps("index_out_of_bounds", "EXEC-index-scatter-1"):
        compute("scatter_elements", x, np.array([2]), np.array([1], "int32"))
    with traps("index_out_of_bounds", "EXEC-index-scatter-1"):
        compute("scatter_elements", x, np.array([-3]), np.array([1], "int32"))
    with traps("shape_mismatch", "EXEC-index-scatter-1"):
        compute("scatter_elements", x, np.array([0, 1]), np.array([1], "int32"))


@pytest.mark.parametrize("reduction", ["update", "add", "mean", "max"])
def test_scatter_elements_lowered(reduction):
    check_lowered(module('x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("n", 3), "int64"), '
                         'u: R.Tensor(("n", 3), "float32")',
                         'j = R.floor_mod(i, R.const(4, "int64"))\n'
                         f'y = R.scatter_elements(x, j, u, axis=1, reduction="{reduction}")'),
                  "relax.scatter_elements")


def test_scatter_elements_of_unrelated_symbolic_shapes_is_checked_at_run_time():
    # TVM's own test module: indices and updates (m, n) against data (a, b) on axis 1:
    # the PrimFunc asserts m == m, n == n (proved, left out) and m <= a; each index is
    # checked in [-b, b) before its update.
    text = module('x: R.Tensor(("a", "b"), "float32"), i: R.Tensor(("m", "n"), "int64"), '
                  'u: R.Tensor(("m", "n"), "float32")',
                  'y = R.scatter_elements(x, i, u, axis=1, reduction="update")')
    script = check_lowered(text, "relax.scatter_elements").script()
    assert 'assert m <= a, "shape_mismatch: relax.scatter_elements' in script, script
    assert '"index_out_of_bounds: relax.scatter_elements: an index must lie in' in script


def test_scatter_elements_lowered_keeps_order_and_traps():
    text = module('x: R.Tensor((4,), "float32"), i: R.Tensor((4,), "int64"), '
                  'u: R.Tensor((4,), "float32")', 'y = R.scatter_elements(x, i, u)')
    mod = relax_ref.check(relax_ref.from_source(text))
    low = legalize_ops(mod)
    x, u = np.zeros(4, "float32"), np.array([1.0, 2.0, 3.0, 4.0], "float32")
    for m_ in (mod, low):
        check_same(relax_ref.run(m_, x, np.array([2, 2, -2, 0]), u),
                   np.array([4.0, 0.0, 3.0, 0.0], "float32"))
        with pytest.raises(RuntimeCheckError) as err:
            relax_ref.run(m_, x, np.array([0, 4, 0, 0]), u)
        assert err.value.check == "index_out_of_bounds"


# -- scatter_nd ----------------------------------------------------------------------------------

def test_scatter_nd_deduction():
    assert_tensor(deduce("scatter_nd", [tensor((n, 4)), tensor((m, 1), I64),
                                        tensor((m, 4))]), (n, 4))
    with raises_rule("SI-index-snd-2"):
        deduce("scatter_nd", [tensor((3,), ""), tensor((1, 1), I64), tensor((1,))])
    with raises_rule("SI-index-snd-3"):
        deduce("scatter_nd", [tensor((3,)), tensor((1, m), I64), tensor((1,))])
    with raises_rule("SI-index-snd-3"):
        deduce("scatter_nd", [tensor((3, 2)), tensor((5, 1), I64), tensor((5, 3))])
    with raises_rule("SI-index-snd-3"):
        deduce("scatter_nd", [tensor((3,)), tensor((1, 2), I64), tensor((1,))])


def test_scatter_nd_semantics():
    x = np.arange(8, dtype="int32") + 1
    i = np.array([[4], [3], [1], [7], [3]])
    u = np.array([9, 10, 11, 12, 13], "int32")
    check_same(compute("scatter_nd", x, i, u),
               np.array([1, 11, 3, 13, 9, 6, 7, 12], "int32"))
    check_same(compute("scatter_nd", x, i, u, reduction="add"),
               np.array([1, 13, 3, 27, 14, 6, 7, 20], "int32"))
    with traps("index_out_of_bounds", "EXEC-index-snd-1"):
        compute("scatter_nd", x, np.array([[-1]]), np.array([1], "int32"))
    with traps("shape_mismatch", "EXEC-index-snd-1"):
        compute("scatter_nd", x, np.array([[1]]), np.array([1, 2], "int32"))


@pytest.mark.parametrize("reduction", ["update", "mul", "min"])
def test_scatter_nd_lowered(reduction):
    check_lowered(module('x: R.Tensor((5, "n"), "int32"), i: R.Tensor(("k", 1), "int64"), '
                         'u: R.Tensor(("k", "n"), "int32")',
                         'j = R.floor_mod(i, R.const(5, "int64"))\n'
                         f'y = R.scatter_nd(x, j, u, reduction="{reduction}")'),
                  "relax.scatter_nd")


# -- index_put -----------------------------------------------------------------------------------

def test_index_put_deduction():
    from .helpers import tup

    assert_tensor(deduce("index_put", [tensor((n, 4)), tup(tensor((m,), I64),
                                                           tensor((1,), I64)),
                                       tensor((m,))]), (n, 4))
    assert_tensor(deduce("index_put", [tensor((n,)), tensor((m,), "uint8"), tensor((1,))]),
                  (n,))
    with raises_rule("SI-index-put-2"):
        deduce("index_put", [tensor((3, 3)), tup(tensor((2,), I64)), tensor((2,))])
    with raises_rule("SI-index-put-2"):
        deduce("index_put", [tensor((3,)), tup(tensor((), I64)), tensor((1,))])
    with raises_rule("SI-index-put-2"):
        deduce("index_put", [tensor((3,)), tup(tensor((2,), I64)), tensor((2,), "int32")])
    with raises_rule("SI-broadcast-1"):
        deduce("index_put", [tensor((3,)), tup(tensor((2,), I64)), tensor((3,))])
    with raises_rule("SI-index-put-3"):
        deduce("index_put", [tensor((3,)), tup(tensor((2,), I64)), tensor((1, 2))])


def test_index_put_semantics():
    x = np.zeros((3, 3), "float32")
    idx = (np.array([0, 2, 0]), np.array([1, 1, 1]))
    v = np.array([1.0, 2.0, 4.0], "float32")
    want = x.copy()
    want[2, 1], want[0, 1] = 2.0, 4.0  # the last of the two writes to (0, 1)
    check_same(compute("index_put", x, idx, v), want)
    want[0, 1] = 5.0
    check_same(compute("index_put", x, idx, v, accumulate=True), want)
    check_same(compute("index_put", np.zeros(3, "int32"), (np.array([-1]),),
                       np.array([7], "int32")), np.array([0, 0, 7], "int32"))
    with traps("index_out_of_bounds", "EXEC-index-put-1"):
        compute("index_put", x, (np.array([3]), np.array([0])), np.array([1.0], "float32"))
    with traps("shape_mismatch", "EXEC-index-put-1"):
        compute("index_put", x, (np.array([0, 1]), np.array([0, 1])),
                np.array([1.0, 2.0, 3.0], "float32"))


def test_index_put_of_values_broadcast_undecided_is_checked_at_run_time():
    # v's length m is 1 or k only at run time: a guard and a T.Select read (TE-leg-3).
    text = module('x: R.Tensor((5,), "float32"), a: R.Tensor(("k",), "int64"), '
                  'v: R.Tensor(("m",), "float32")', 'y = R.index_put(x, (a,), v)')
    script = check_lowered(text, "relax.index_put").script()
    assert '"shape_mismatch: relax.index_put: the values must broadcast' in script, script
    assert "T.Select(m == T.int64(1), T.int64(0), j0)" in script, script


def test_index_put_of_indices_broadcast_undecided_is_checked_at_run_time():
    # (k,) against (m,): they broadcast when one is 1 or both are equal, to
    # T.Select(k == 1, m, k) updates; the PrimFunc asserts it (TE-leg-3).
    text = module('x: R.Tensor((3, 4), "float32"), a: R.Tensor(("k",), "int64"), '
                  'b: R.Tensor(("m",), "int64"), v: R.Tensor((1,), "float32")',
                  'y = R.index_put(x, (a, b), v, accumulate=True)')
    script = check_lowered(text, "relax.index_put").script()
    assert "assert k == T.int64(1) or m == T.int64(1) or k == m" in script, script
    assert "T.Select(k == T.int64(1), m, k)" in script, script
    low = legalize_ops(relax_ref.check(relax_ref.from_source(text)))
    x, v = np.zeros((3, 4), "float32"), np.array([1.5], "float32")
    for a, b in (([0, 2, 2], [3]), ([1], [0, -1, 0])):
        want = x.copy()
        np.add.at(want, np.broadcast_arrays(np.array(a), np.array(b)), v[0])
        check_same(relax_ref.run(low, x, np.array(a), np.array(b), v), want)


def test_index_put_lowered():
    check_lowered(module('x: R.Tensor((5, 3), "float32"), a: R.Tensor(("k",), "int64"), '
                         'b: R.Tensor((1,), "int64"), v: R.Tensor(("k",), "float32")',
                         'a2 = R.floor_mod(a, R.const(5, "int64"))\n'
                         'b2 = R.floor_mod(b, R.const(3, "int64"))\n'
                         'y = R.index_put(x, (a2, b2), v, accumulate=True)'), "relax.index_put")
    check_lowered(module('x: R.Tensor(("n",), "int32"), a: R.Tensor((2,), "int64"), '
                         'v: R.Tensor((1,), "int32")',
                         'y = R.index_put(x, a, v)'), "relax.index_put")


# -- slice_scatter -------------------------------------------------------------------------------

def test_slice_scatter_deduction():
    args = [None, None, prim(1), prim(7), prim(3)]
    assert_tensor(deduce("slice_scatter", [tensor((n, 8)), tensor((n, 2)),
                                           si.PrimStructInfo(INT64)] + [None] * 2,
                         args=args, axis=1), (n, 8))
    with raises_rule("SI-index-sscatter-3"):
        deduce("slice_scatter", [tensor((n, 8)), tensor((n, 3))] + [None] * 3, args=args,
               axis=1)
    with raises_rule("SI-index-sscatter-3"):
        deduce("slice_scatter", [tensor((n, 8)), tensor((n, 2))] + [None] * 3,
               args=args[:4] + [prim(0)], axis=1)
    with raises_rule("SI-index-sscatter-4"):
        deduce("slice_scatter", [tensor((n, 6)), tensor((n, 2))] + [None] * 3, args=args,
               axis=1)
    with raises_rule("SI-index-sscatter-2"):
        deduce("slice_scatter", [tensor((n, 8)), tensor((2,))] + [None] * 3, args=args,
               axis=1)


def test_slice_scatter_semantics():
    x = np.zeros((2, 8), "float32")
    s = np.ones((2, 2), "float32")
    want = x.copy()
    want[:, 1:7:3] = s
    P = lambda v: PrimScalar(v, INT64)  # noqa: E731
    check_same(compute("slice_scatter", x, s, P(1), P(7), P(3), axis=1), want)
    with traps("index_out_of_bounds", "EXEC-index-sscatter-1"):
        compute("slice_scatter", x, s, P(5), P(9), P(2), axis=1)
    with traps("invalid_value", "EXEC-index-sscatter-1"):
        compute("slice_scatter", x, s, P(1), P(7), P(0), axis=1)
    with traps("shape_mismatch", "EXEC-index-sscatter-1"):
        compute("slice_scatter", x, s, P(1), P(8), P(3), axis=1)


def test_slice_scatter_lowered():
    check_lowered(module('x: R.Tensor(("n", 8), "float32"), s: R.Tensor(("n", 2), "float32")',
                         'y = R.slice_scatter(x, s, 1, 7, 3, axis=1)'), "relax.slice_scatter")
    check_lowered(module('x: R.Tensor(("n", 3), "float32"), s: R.Tensor(("n", 3), "float32")',
                         'y = R.slice_scatter(x, s, 0, 3, 1, axis=-1)'), "relax.slice_scatter")


# -- properties against NumPy's own indexing ------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 3), st.integers(0, 1),
       st.integers(0, 2**31 - 1))
def test_gather_and_scatter_agree_with_numpy(rows, cols, width, axis, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, (rows, cols)).astype("int32")
    shape = (rows, width) if axis == 1 else (width, cols)
    i = rng.integers(0, x.shape[axis], shape)
    check_same(compute("gather_elements", x, i, axis=axis), np.take_along_axis(x, i, axis))
    u = rng.integers(-50, 50, shape).astype("int32")
    want = x.copy()
    grid = list(np.indices(shape))
    grid[axis] = i
    np.add.at(want, tuple(grid), u)  # unbuffered: repeated targets add up
    check_same(compute("scatter_elements", x, i, u, axis=axis, reduction="add"), want)
    want = x.copy()
    np.add.at(want, tuple(g.reshape(-1) for g in grid), u.reshape(-1))
    check_same(compute("index_put", x, tuple(grid), u, accumulate=True), want)
