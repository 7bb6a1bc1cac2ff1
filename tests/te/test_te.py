"""The tensor-expression layer (spec/te.md): compute stages written as PrimFuncs in TVM's
printed form, run by the TIR interpreter against NumPy, at several values of each
symbolic dimension."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.parser.printer import print_module
from relax_ref.semantics.tir_interp import run_prim_func

n = P.Var("n", INT64)


def _run(func, *arrays):
    run_prim_func(func, list(arrays))


def _printed_and_read_back(func):
    text = print_module(rx.IRModule({"f": func}))
    mod = relax_ref.check(relax_ref.from_source(text))
    return text, mod.functions["f"]


def test_softmax_stages_print_as_tvm_and_compute_softmax():
    """TE-compute-1, TE-reduce-1, TE-func-1, TE-func-3."""
    A = te.placeholder((n, 8), "float32", "A")
    k = te.reduce_axis(8, "k")
    mx = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="T_max")
    e = te.compute((n, 8), lambda i, j: te.call_intrin("exp", A[i, j] - mx[i]), name="T_exp")
    k2 = te.reduce_axis(8, "k")
    s = te.compute((n,), lambda i: te.sum(e[i, k2], axis=k2), name="T_sum")
    out = te.compute((n, 8), lambda i, j: te.div(e[i, j], s[i]), name="T_softmax")
    created = te.create_prim_func([A, out])
    assert created.tir_vars == ()
    text, func = _printed_and_read_back(created.func)
    for line in ('T_max = T.sblock_alloc_buffer((n,))', 'v_i, v_k = T.axis.remap("SR", [i, k])',
                 'T_max[v_i] = T.float32("-inf")', "T.reads(A[v_i, v_k])",
                 "T.writes(T_sum[v_i])", 'T.func_attr({"tirx.noalias": True})'):
        assert line in text, text
    for rows in (0, 1, 3):
        x = np.random.default_rng(rows).standard_normal((rows, 8)).astype("float32")
        y = np.full((rows, 8), np.nan, "float32")
        _run(func, x, y)
        ref = np.exp(x - x.max(1, keepdims=True))
        np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=1e-6)


def test_max_identity_is_minus_infinity():
    """TE-reduce-2: a row of -inf reduces to -inf (TVM's -3.4e38 would not)."""
    A = te.placeholder((2, 3), "float32", "A")
    k = te.reduce_axis(3, "k")
    M = te.compute((2,), lambda i: te.max(A[i, k], axis=k), name="M")
    func = te.create_prim_func([A, M]).func
    x = np.array([[-np.inf] * 3, [1, 2, -np.inf]], "float32")
    y = np.zeros(2, "float32")
    _run(func, x, y)
    np.testing.assert_array_equal(y, [-np.inf, 2])


def test_tuple_reducer_argmax_with_first_index_on_ties():
    """TE-reduce-1: an (index, value) reducer; one block stores both through lets."""
    A = te.placeholder((n, 5), "float32", "A")
    k = te.reduce_axis(5, "k")

    def combine(x, y):
        """(index, value) pairs: the larger value wins, the earlier index on a tie."""
        take_x = P.GE(x[1], y[1], BOOL)
        return te.select(take_x, x[0], y[0]), te.select(take_x, x[1], y[1])

    argmax = te.comm_reducer(combine, lambda dts: [te.const(-1, dts[0]), te.lowest(dts[1])],
                             name="argmax")
    idx, val = te.compute((n,), lambda i: argmax((k.var, A[i, k]), axis=k), name="T_argmax")
    func = te.create_prim_func([A, idx, val]).func
    text, func = _printed_and_read_back(func)
    assert "with T.init():" in text and ": T.let[T.int64] = T.Select(" in text, text
    x = np.array([[1, 3, 3, 0, 2], [5, 5, 5, 5, 5]], "float32")
    got_i, got_v = np.zeros(2, "int64"), np.zeros(2, "float32")
    _run(func, x, got_i, got_v)
    np.testing.assert_array_equal(got_i, [1, 0])
    np.testing.assert_array_equal(got_v, [3, 5])


def test_unbound_symbolic_variables_become_scalar_parameters():
    """TE-func-2: ``n`` appears only inside ``n * 2``, so the caller passes it."""
    A = te.placeholder((n * 2,), "float32", "A")
    B = te.compute((n * 2,), lambda i: A[i] + te.const(1.0), name="B")
    created = te.create_prim_func([A, B])
    assert created.tir_vars == (n,)
    func = created.func
    assert len(func.params) == 3 and func.params[2].name == "n" and func.params[2] is not n
    x = np.arange(6, dtype="float32")
    y = np.zeros(6, "float32")
    run_prim_func(func, [x, y, 3])
    np.testing.assert_array_equal(y, x + 1)


def test_if_then_else_guards_a_load():
    """TE-intrin-1: the untaken side of if_then_else is never read (no out-of-bounds)."""
    A = te.placeholder((n,), "float32", "A")
    B = te.compute((n + 2,), lambda i: te.if_then_else(
        te.all_of(P.GE(i, P.IntImm(1, INT64), BOOL), P.LT(i, n + 1, BOOL)),
        A[i - 1], te.const(0.0)), name="pad")
    func = te.create_prim_func([A, B]).func
    for size in (0, 1, 4):
        x = np.arange(size, dtype="float32") + 1
        y = np.full(size + 2, np.nan, "float32")
        _run(func, x, y)
        np.testing.assert_array_equal(y, np.concatenate([[0], x, [0]]))


def test_bad_definitions_are_reported():
    A = te.placeholder((2,), "float32", "A")
    with pytest.raises(te.TEError, match="found 2"):
        te.compute((2,), lambda i, j: A[i], name="B")
    with pytest.raises(te.TEError, match="1 dimensions"):
        te.compute((2,), lambda i: A[i, i], name="B")
    other = te.placeholder((2,), "float32", "other")
    B = te.compute((2,), lambda i: other[i], name="B")
    with pytest.raises(te.TEError, match="not an argument"):
        te.create_prim_func([A, B])


def test_tvm_reads_the_printed_function():
    tvm_script = pytest.importorskip("tvm.script", reason="the tvm extra is not installed")
    A = te.placeholder((n, 4), "float16", "A")
    k = te.reduce_axis(4, "k")
    S = te.compute((n,), lambda i: te.sum(te.cast("float32", A[i, k]), axis=k), name="S")
    text = print_module(rx.IRModule({"f": te.create_prim_func([A, S]).func}))
    tvm_script.from_source(text)


def test_a_reduction_over_an_axis_that_may_be_empty_stores_its_identity_first():
    """TE-func-4: T.init runs on the first reduction iteration only; over an empty axis
    it never would, so the identity is stored by a block of its own."""
    m = P.Var("m", INT64)
    A = te.placeholder((3, m), "float32", "A")
    k = te.reduce_axis(m, "k")
    S = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="S")
    text, func = _printed_and_read_back(te.create_prim_func([A, S]).func)
    assert 'T.sblock("S_init")' in text and "T.init()" not in text, text
    for cols in (0, 1, 4):
        x = np.ones((3, cols), "float32")
        y = np.full(3, np.nan, "float32")
        _run(func, x, y)
        np.testing.assert_array_equal(y, [cols] * 3)
    # A static positive extent keeps TVM's single block with T.init.
    B = te.placeholder((3, 4), "float32", "B")
    k4 = te.reduce_axis(4, "k")
    text, _ = _printed_and_read_back(
        te.create_prim_func([B, te.compute((3,), lambda i: te.sum(B[i, k4], axis=k4),
                                           name="S")]).func)
    assert "T.init()" in text and "S_init" not in text
