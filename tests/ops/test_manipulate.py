"""Manipulation ops (spec/ops/manipulate.md): struct-info deduction for static,
symbolic, ndim-only and unknown inputs and every error rule; NumPy semantics against
independent NumPy formulas and hand-computed values; deduction/semantics agreement as a
property; and a cross-check of the deduced struct info against Apache TVM 0.27."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64
from relax_ref.ops.common import OpRuntimeError
from relax_ref.errors import StructInfoError
from relax_ref.values import ShapeValue
from relax_ref.solver.evaluate import evaluate_int
from relax_ref.solver.simplify import expr_text

from .helpers import (
    arange, assert_ndim, assert_tensor, check_same, compute, deduce, raises_rule, sym, tensor,
    texts, traps, tup,
)
from .tvm_bridge import TvmBridge

n, m = sym("n"), sym("m")


# -- helpers -------------------------------------------------------------------------------

def shape(*dims) -> rx.ShapeExpr:
    """A literal ``R.shape([...])``."""
    return rx.ShapeExpr(tuple(P.IntImm(d) if isinstance(d, int) else d for d in dims))


def shape_var(values=None, ndim=-1) -> si.ShapeStructInfo:
    return si.ShapeStructInfo(None if values is None else tuple(
        P.IntImm(d) if isinstance(d, int) else d for d in values), ndim)


# -- reshape -------------------------------------------------------------------------------

def test_reshape_keeps_the_target_symbolic_shape():
    # /work/shared/tvmscript-samples/flatten_dynamic.py: (n, 4) -> R.shape([n * 4]).
    s = deduce("reshape", [tensor((n, 4)), None], args=[None, shape(n * 4)])
    assert_tensor(s, (n * 4,), printed=["n * 4"])


def test_reshape_static_and_shape_variable_targets():
    assert_tensor(deduce("reshape", [tensor((2, 3, 4)), None], args=[None, shape(6, 4)]), (6, 4))
    assert_tensor(deduce("reshape", [tensor((2, 3)), shape_var((n, m))]), (n, m))
    # A shape variable of known ndim only: TVM keeps the variable as the shape; we keep
    # its ndim.
    assert_ndim(deduce("reshape", [tensor((2, 3)), shape_var(ndim=3)]), 3)
    assert_ndim(deduce("reshape", [tensor((2, 3)), shape_var()]), -1)
    assert_tensor(deduce("reshape", [tensor(None, "int8"), None], args=[None, shape(n)]),
                  (n,), "int8")


def test_reshape_infers_minus_one():
    s = deduce("reshape", [tensor((2, 3, 4)), None], args=[None, shape(6, 1, -1)])
    assert_tensor(s, (6, 1, 4), printed=["6", "1", "4"])
    s = deduce("reshape", [tensor((n, 4, 2)), None], args=[None, shape(2, -1)])
    assert_tensor(s, (2, n * 4), printed=["2", "n * 4"])
    assert_tensor(deduce("reshape", [tensor((n, 4)), None], args=[None, shape(-1)]), (n * 4,))
    # In a shape variable's struct info, a -1 is inferred too; with no input shape only
    # the ndim is known.
    assert_tensor(deduce("reshape", [tensor((3, 4)), shape_var((-1, 2))]), (6, 2))
    assert_ndim(deduce("reshape", [tensor(2), shape_var((-1, 2))]), 2)


def test_reshape_unprovable_count_falls_back_to_the_target():
    # n*4 == n*5 when n == 0: not provably different, so the run-time check decides.
    assert_tensor(deduce("reshape", [tensor((n, 4)), None], args=[None, shape(n * 5)]), (n * 5,))
    assert_tensor(deduce("reshape", [tensor((n, 4)), None], args=[None, shape(3, 2, 2)]),
                  (3, 2, 2))


def test_reshape_errors():
    with raises_rule("SI-manip-reshape-2"):
        deduce("reshape", [tensor((3, 4)), None], args=[None, shape(5, 2)])
    with raises_rule("SI-manip-reshape-2"):
        deduce("reshape", [tensor((3, 4)), None], args=[None, shape(5, -1)])
    with raises_rule("SI-manip-reshape-2"):
        deduce("reshape", [tensor((n, 4)), None], args=[None, shape(n + 1, 4)])
    with raises_rule("SI-manip-reshape-3"):
        deduce("reshape", [tensor((3, 4)), None], args=[None, shape(-1, -1)])
    with raises_rule("SI-manip-reshape-3"):
        deduce("reshape", [tensor((3, 4)), None], args=[None, shape(-2, 6)])
    with raises_rule("SI-manip-reshape-3"):
        deduce("reshape", [tensor(2), None], args=[None, shape(-1)])
    with raises_rule("SI-manip-reshape-4"):
        deduce("reshape", [tensor((n, 4, 2)), None], args=[None, shape(0, -1)])
    with raises_rule("SI-op-shape-1"):
        deduce("reshape", [tensor((3, 4)), tensor((2,), "int64")])
    with raises_rule("SI-op-tensor-1"):
        deduce("reshape", [shape_var((3,)), None], args=[None, shape(3)])


def test_reshape_literal_zero_where_the_input_dimension_is_zero():
    assert_tensor(deduce("reshape", [tensor((0, 4)), None], args=[None, shape(0, 2, 2)]),
                  (0, 2, 2))


def test_reshape_semantics():
    x = arange(2, 3, 4)
    check_same(compute("reshape", x, ShapeValue((6, 4))), x.reshape(6, 4))
    check_same(compute("reshape", x, ShapeValue((4, -1))), x.reshape(4, 6))
    check_same(compute("reshape", np.zeros((0, 3), "int32"), ShapeValue((3, 0))),
               np.zeros((3, 0), "int32"))
    out = compute("reshape", x, ShapeValue((24,)))
    out[0] = 99.0
    assert x.reshape(-1)[0] == 0.0  # a fresh array, not a view
    with traps("shape_mismatch", "EXEC-manip-reshape-1"):
        compute("reshape", x, ShapeValue((5, 5)))
    with traps("shape_mismatch", "EXEC-manip-reshape-1"):
        compute("reshape", x, ShapeValue((5, -1)))
    with traps("shape_mismatch", "EXEC-manip-reshape-1"):
        compute("reshape", np.zeros((0, 3)), ShapeValue((0, -1)))
    with traps("invalid_value", "EXEC-manip-reshape-1"):
        compute("reshape", x, ShapeValue((-1, -1)))


# -- permute_dims ----------------------------------------------------------------------------

def test_permute_dims_deduction():
    assert_tensor(deduce("permute_dims", [tensor((n, m, 2))], axes=(2, 0, 1)), (2, n, m))
    assert_tensor(deduce("permute_dims", [tensor((n, m, 2))]), (2, m, n))
    assert_tensor(deduce("permute_dims", [tensor((n, m, 2))], axes=(-1, 0, -2)), (2, n, m))
    assert_ndim(deduce("permute_dims", [tensor(3, "int32")], axes=(1, 0, 2)), 3, "int32")
    assert_ndim(deduce("permute_dims", [tensor(None)], axes=(1, 0)), 2)
    assert_ndim(deduce("permute_dims", [tensor(None)]), -1)
    x = tensor((n, 3))
    s = deduce("permute_dims", [x], axes=(0, 1))
    assert s.shape == x.shape  # the identity permutation keeps x's struct info
    with raises_rule("SI-manip-permute-2"):
        deduce("permute_dims", [tensor((2, 3))], axes=(0,))
    with raises_rule("SI-op-axis-1"):
        deduce("permute_dims", [tensor((2, 3))], axes=(0, 2))
    with raises_rule("SI-op-axis-2"):
        deduce("permute_dims", [tensor((2, 3))], axes=(1, -1))
    with raises_rule("SI-op-axis-1"):
        deduce("permute_dims", [tensor(None)], axes=(0, 2))


def test_permute_dims_semantics():
    x = arange(2, 3, 4)
    check_same(compute("permute_dims", x, axes=(2, 0, 1)), np.transpose(x, (2, 0, 1)))
    check_same(compute("permute_dims", x), x.transpose())
    check_same(compute("permute_dims", np.zeros((0, 2), "int64")), np.zeros((2, 0), "int64"))
    with traps("shape_mismatch", "EXEC-manip-permute-1"):
        compute("permute_dims", x, axes=(1, 0))
    with traps("shape_mismatch", "EXEC-manip-permute-1"):
        compute("permute_dims", x, axes=(1, 0, 1))


# -- expand_dims, squeeze, flatten ---------------------------------------------------------------

def test_expand_dims_deduction():
    assert_tensor(deduce("expand_dims", [tensor((n, m))], axis=(0, -1)), (1, n, m, 1))
    assert_tensor(deduce("expand_dims", [tensor((n, m))], axis=1), (n, 1, m))
    assert_tensor(deduce("expand_dims", [tensor(())], axis=0), (1,))
    assert_ndim(deduce("expand_dims", [tensor(2)], axis=(0, 3)), 4)
    assert_ndim(deduce("expand_dims", [tensor(None)], axis=0), -1)
    with raises_rule("SI-op-axis-2"):
        deduce("expand_dims", [tensor((n, m))], axis=(0, -4))
    with raises_rule("SI-op-axis-1"):
        deduce("expand_dims", [tensor((n, m))], axis=3)


def test_expand_dims_semantics():
    x = arange(2, 3)
    check_same(compute("expand_dims", x, axis=(0, -1)), x[None, :, :, None])
    check_same(compute("expand_dims", x, axis=1), np.expand_dims(x, 1))
    with traps("shape_mismatch", "EXEC-manip-expand-1"):
        compute("expand_dims", x, axis=5)


def test_squeeze_deduction():
    assert_tensor(deduce("squeeze", [tensor((2, 1, 3, 1))], axis=(1, -1)), (2, 3))
    assert_tensor(deduce("squeeze", [tensor((2, 1, 3, 1))]), (2, 3))
    # A symbolic length is squeezed as TVM does; the run-time check guards it.
    assert_tensor(deduce("squeeze", [tensor((n, 1, 3))], axis=(0, 1)), (3,))
    # axis=None with a symbolic length: which axes go is known only at run time.
    assert_ndim(deduce("squeeze", [tensor((n, 1, 3))]), -1)
    assert_ndim(deduce("squeeze", [tensor(3)], axis=(1,)), 2)
    assert_ndim(deduce("squeeze", [tensor(3)]), -1)
    assert_ndim(deduce("squeeze", [tensor(None)], axis=(0,)), -1)
    x = tensor((2, 3))
    assert deduce("squeeze", [x], axis=()).shape == x.shape
    with raises_rule("SI-manip-squeeze-1"):
        deduce("squeeze", [tensor((2, 3))], axis=(0,))
    with raises_rule("SI-manip-squeeze-1"):
        deduce("squeeze", [tensor((n + 2, 3))], axis=(0,))
    with raises_rule("SI-op-axis-1"):
        deduce("squeeze", [tensor((1, 3))], axis=(2,))


def test_squeeze_semantics():
    x = arange(2, 1, 3, 1)
    check_same(compute("squeeze", x, axis=(1, -1)), x.reshape(2, 3))
    check_same(compute("squeeze", x), x.reshape(2, 3))
    check_same(compute("squeeze", np.zeros((1, 0))), np.zeros((0,)))
    with traps("shape_mismatch", "EXEC-manip-squeeze-1"):
        compute("squeeze", x, axis=(0,))


def test_flatten():
    assert_tensor(deduce("flatten", [tensor((n, 4))]), (n * 4,), printed=["n * 4"])
    # Built as TVM builds it (no reassociation), so it prints like TVM's 2 * n * 4.
    assert_tensor(deduce("flatten", [tensor((2, n, 4))]), (n * 8,), printed=["(2 * n) * 4"])
    assert_tensor(deduce("flatten", [tensor((2, 3, 4))]), (24,), printed=["24"])
    assert_tensor(deduce("flatten", [tensor(())]), (1,))
    x = tensor((n,))
    assert deduce("flatten", [x]).shape == x.shape
    assert_ndim(deduce("flatten", [tensor(3)]), 1)
    assert_ndim(deduce("flatten", [tensor(None)]), 1)
    check_same(compute("flatten", arange(2, 3)), np.arange(6.0, dtype="float32"))
    check_same(compute("flatten", np.array(5, "int8")), np.array([5], "int8"))
    check_same(compute("flatten", np.zeros((3, 0))), np.zeros((0,)))


# -- concat ----------------------------------------------------------------------------------

def test_concat_sums_the_axis():
    s = deduce("concat", [tup(tensor((n, 4)), tensor((2, 4)), tensor((m, 4)))], axis=0)
    assert_tensor(s, (n + 2 + m, 4), printed=["(n + 2) + m", "4"])
    s = deduce("concat", [tup(tensor((n, 4)), tensor((n, 4)), tensor((n, 4)))])
    assert_tensor(s, (n * 3, 4), printed=["n * 3", "4"])
    s = deduce("concat", [tup(tensor((2, 3)), tensor((2, 5)))], axis=-1)
    assert_tensor(s, (2, 8), printed=["2", "8"])
    s = deduce("concat", [tup(tensor((3,)), tensor((n,)))], axis=None)
    assert_tensor(s, (3 + n,), printed=["3 + n"])


def test_concat_partial_knowledge():
    # Off-axis dims that are not provably equal, or an unknown shape: ndim only.
    assert_ndim(deduce("concat", [tup(tensor((2, n)), tensor((3, m)))], axis=0), 2)
    assert_ndim(deduce("concat", [tup(tensor((2, n)), tensor(2))], axis=1), 2)
    assert_ndim(deduce("concat", [tup(tensor(None), tensor(None))], axis=1), -1)
    assert_tensor(deduce("concat", [tup(tensor((2, 3)), tensor((2, 3), ""))]), (4, 3), "void")
    single = tensor((2, n))
    assert deduce("concat", [tup(single)], axis=1) is single
    assert deduce("concat", [si.ObjectStructInfo()]).ndim == -1


def test_concat_errors():
    with raises_rule("SI-manip-concat-1"):
        deduce("concat", [tup()])
    with raises_rule("SI-manip-concat-1"):
        deduce("concat", [tensor((2,))])
    with raises_rule("SI-manip-concat-1"):
        deduce("concat", [tup(tensor((2,)), shape_var((2,)))])
    with raises_rule("SI-manip-concat-2"):
        deduce("concat", [tup(tensor((2,)), tensor((2, 3)))])
    with raises_rule("SI-manip-concat-3"):
        deduce("concat", [tup(tensor((2, 4)), tensor((n, 5)))], axis=0)
    with raises_rule("SI-manip-concat-4"):
        deduce("concat", [tup(tensor((3, 4)), tensor((n, 4)))], axis=None)
    with raises_rule("SI-op-dtype-1"):
        deduce("concat", [tup(tensor((2,)), tensor((2,), "int32"))])
    with raises_rule("SI-op-axis-1"):
        deduce("concat", [tup(tensor((2,)), tensor((2,)))], axis=1)


def test_concat_semantics():
    a, b = arange(2, 3), arange(1, 3) + 10
    check_same(compute("concat", (a, b)), np.concatenate([a, b]))
    check_same(compute("concat", (a, arange(2, 2)), axis=-1),
               np.concatenate([a, arange(2, 2)], axis=1))
    check_same(compute("concat", (np.zeros((0, 3), "float32"), a)), a)
    check_same(compute("concat", (np.arange(3), np.arange(2)), axis=None),
               np.array([0, 1, 2, 0, 1]))
    with traps("shape_mismatch", "EXEC-manip-concat-1"):
        compute("concat", (a, arange(2, 2)))
    with traps("invalid_value", "EXEC-manip-concat-1"):
        compute("concat", (a, a.astype("float64")))
    with traps("shape_mismatch", "EXEC-manip-concat-1"):
        compute("concat", (a, a), axis=None)


# -- split -----------------------------------------------------------------------------------

def test_split_sections_print_like_tvm():
    # /work/shared/tvmscript-samples/tuples_shapes.py
    s = deduce("split", [tensor((n, m))], indices_or_sections=2, axis=1)
    assert isinstance(s, si.TupleStructInfo) and len(s.fields) == 2
    assert texts(s.fields[0]) == ["n", "(m + 1) // 2"]
    assert texts(s.fields[1]) == ["n", "m - ((m + 1) // 2)"]
    s = deduce("split", [tensor((n, m))], indices_or_sections=3, axis=-1)
    assert [texts(f)[1] for f in s.fields] == ["(m + 2) // 3", "(m + 2) // 3",
                                               "m - (((m + 2) // 3) * 2)"]
    s = deduce("split", [tensor((n * 4,))], indices_or_sections=2)
    assert [texts(f) for f in s.fields] == [["n * 2"], ["n * 2"]]


def test_split_static_and_indices():
    s = deduce("split", [tensor((10, 3), "int32")], indices_or_sections=3)
    assert [int(f.shape[0].value) for f in s.fields] == [4, 4, 2]
    assert all(str(f.dtype) == "int32" for f in s.fields)
    s = deduce("split", [tensor((n, 10))], indices_or_sections=(2, 5, 20), axis=1)
    assert [texts(f)[1] for f in s.fields] == ["2", "3", "5", "0"]
    # Indices are clamped into [0, 10]; a negative index counts as 0 (TVM's rule).
    s = deduce("split", [tensor((10,))], indices_or_sections=(-2, 3))
    assert [texts(f)[0] for f in s.fields] == ["0", "3", "7"]
    s = deduce("split", [tensor((10,))], indices_or_sections=(5, 2))
    assert [texts(f)[0] for f in s.fields] == ["5", "0", "8"]
    s = deduce("split", [tensor((n, m))], indices_or_sections=(2, 5), axis=1)
    for f, want in zip(s.fields, [P.Min(m, P.IntImm(2), INT64),
                                  P.Max(P.Min(m, P.IntImm(5), INT64) - P.Min(m, P.IntImm(2),
                                                                             INT64),
                                        P.IntImm(0), INT64),
                                  P.Max(m - 5, P.IntImm(0), INT64)]):
        assert_tensor(f, (n, want))


def test_split_partial_knowledge_and_identity():
    x = tensor((n, m))
    assert deduce("split", [x], indices_or_sections=1, axis=1).shape == x.shape
    assert deduce("split", [x], indices_or_sections=(), axis=1).shape == x.shape
    s = deduce("split", [tensor(2)], indices_or_sections=3, axis=1)
    assert [f.ndim for f in s.fields] == [2, 2, 2] and all(f.shape is None for f in s.fields)
    s = deduce("split", [tensor(None)], indices_or_sections=(1,), axis=7)
    assert [f.ndim for f in s.fields] == [-1, -1]


def test_split_errors():
    with raises_rule("SI-manip-split-2"):
        deduce("split", [tensor((5,))], indices_or_sections=4)
    with raises_rule("SI-op-axis-1"):
        deduce("split", [tensor(2)], indices_or_sections=2, axis=5)
    with pytest.raises(StructInfoError) as info:
        deduce("split", [tensor((4,))], indices_or_sections=0)
    assert info.value.rule == "SI-call-1"


def test_split_semantics():
    x = arange(10, 2)
    for got, want in zip(compute("split", x, indices_or_sections=3),
                         [x[0:4], x[4:8], x[8:10]]):
        check_same(got, want)
    for got, want in zip(compute("split", x, indices_or_sections=(2, 5, 20)),
                         np.split(x, [2, 5, 20])):
        check_same(got, want)
    for got, want in zip(compute("split", x, indices_or_sections=(5, 2)), np.split(x, [5, 2])):
        check_same(got, want)
    got = compute("split", x, indices_or_sections=(-2, 3))
    assert [p.shape[0] for p in got] == [0, 3, 7]
    assert [p.shape for p in compute("split", np.zeros((2, 0)), indices_or_sections=2,
                                     axis=1)] == [(2, 0), (2, 0)]
    check_same(compute("split", x, indices_or_sections=1), x)
    with traps("shape_mismatch", "EXEC-manip-split-1"):
        compute("split", np.zeros(5), indices_or_sections=4)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 13), st.one_of(st.integers(1, 6),
                                     st.lists(st.integers(-3, 15), max_size=3).map(tuple)))
def test_split_symbolic_lengths_match_the_semantics(length, sections):
    """Soundness: whenever the semantics does not trap, the deduced symbolic lengths
    evaluated at m = length are the lengths of the pieces."""
    s = deduce("split", [tensor((m,))], indices_or_sections=sections)
    fields = s.fields if isinstance(s, si.TupleStructInfo) else [s]
    try:
        pieces = compute("split", np.zeros(length), indices_or_sections=sections)
    except OpRuntimeError:
        return
    pieces = pieces if isinstance(pieces, tuple) else (pieces,)
    assert [evaluate_int(f.shape[0], {m: length}) for f in fields] == [p.shape[0] for p in
                                                                        pieces]


# -- broadcast_to ----------------------------------------------------------------------------

def test_broadcast_to_deduction():
    assert_tensor(deduce("broadcast_to", [tensor((n, 1)), None], args=[None, shape(n, 4)]), (n, 4))
    assert_tensor(deduce("broadcast_to", [tensor((3,)), None], args=[None, shape(2, 3)]), (2, 3))
    # m against n: not provably different; checked at run time.
    assert_tensor(deduce("broadcast_to", [tensor((m, 1)), None], args=[None, shape(n, 4)]),
                  (n, 4))
    assert_ndim(deduce("broadcast_to", [tensor((3, 1)), shape_var(ndim=2)]), 2)
    assert_tensor(deduce("broadcast_to", [tensor(None, "bool"), None], args=[None, shape(2)]),
                  (2,), "bool")
    with raises_rule("SI-manip-bcast-2"):
        deduce("broadcast_to", [tensor((3, 1, 1)), None], args=[None, shape(2, 4)])
    with raises_rule("SI-manip-bcast-2"):
        deduce("broadcast_to", [tensor(3), shape_var(ndim=2)])
    with raises_rule("SI-manip-bcast-3"):
        deduce("broadcast_to", [tensor((3, 1)), None], args=[None, shape(2, 4)])
    with raises_rule("SI-manip-bcast-3"):
        deduce("broadcast_to", [tensor((n + 1,)), None], args=[None, shape(n)])
    with raises_rule("SI-manip-bcast-1"):
        deduce("broadcast_to", [tensor((1,)), None], args=[None, shape(-1)])


def test_broadcast_to_semantics():
    x = arange(3, 1)
    check_same(compute("broadcast_to", x, ShapeValue((2, 3, 4))),
               np.broadcast_to(x, (2, 3, 4)).copy())
    check_same(compute("broadcast_to", x, ShapeValue((3, 0))), np.zeros((3, 0), "float32"))
    out = compute("broadcast_to", x, ShapeValue((3, 2)))
    out[0, 0] = 7.0  # writable and fresh
    assert x[0, 0] == 0.0
    with traps("shape_mismatch", "EXEC-manip-bcast-1"):
        compute("broadcast_to", x, ShapeValue((2, 4)))
    with traps("shape_mismatch", "EXEC-manip-bcast-1"):
        compute("broadcast_to", x, ShapeValue((4,)))


# -- repeat, tile, flip ------------------------------------------------------------------------

def test_repeat_deduction():
    assert_tensor(deduce("repeat", [tensor((2, n, 4))], repeats=3), (n * 24,),
                  printed=["n * 24"])
    assert_tensor(deduce("repeat", [tensor((2, n, 4))], repeats=3, axis=1), (2, n * 3, 4))
    assert_tensor(deduce("repeat", [tensor((2, 3))], repeats=0, axis=-1), (2, 0))
    assert_ndim(deduce("repeat", [tensor(2)], repeats=2, axis=1), 2)
    assert deduce("repeat", [tensor(2)], repeats=1, axis=1).ndim == 2
    assert_ndim(deduce("repeat", [tensor(None)], repeats=2), 1)
    assert_ndim(deduce("repeat", [tensor(None)], repeats=2, axis=5), -1)
    with raises_rule("SI-manip-repeat-2"):
        deduce("repeat", [tensor((2, 3))], repeats=-1, axis=1)
    with raises_rule("SI-op-axis-1"):
        deduce("repeat", [tensor((2, 3))], repeats=2, axis=2)


def test_repeat_semantics():
    x = np.array([[1, 2], [3, 4]], "int32")
    check_same(compute("repeat", x, repeats=2), np.array([1, 1, 2, 2, 3, 3, 4, 4], "int32"))
    check_same(compute("repeat", x, repeats=2, axis=1),
               np.array([[1, 1, 2, 2], [3, 3, 4, 4]], "int32"))
    check_same(compute("repeat", x, repeats=0, axis=0), np.zeros((0, 2), "int32"))
    with traps("shape_mismatch", "EXEC-manip-repeat-1"):
        compute("repeat", x, repeats=2, axis=2)


def test_tile_deduction():
    assert_tensor(deduce("tile", [tensor((n, 3))], repeats=(2, 1, 2)), (2, n, 6))
    assert_tensor(deduce("tile", [tensor((n, 3))], repeats=2), (n, 6))
    assert_tensor(deduce("tile", [tensor((n, 3))], repeats=(0, 1)), (0, 3))
    assert_ndim(deduce("tile", [tensor(2)], repeats=(1, 2, 1)), 3)
    assert_ndim(deduce("tile", [tensor(2)], repeats=(2,)), 2)
    assert deduce("tile", [tensor(2)], repeats=(1,)).ndim == 2
    assert_ndim(deduce("tile", [tensor(None)], repeats=(2,)), -1)
    with raises_rule("SI-manip-tile-2"):
        deduce("tile", [tensor((2, 3))], repeats=(-1,))


def test_tile_semantics():
    x = np.array([[1, 2], [3, 4]], "float16")
    check_same(compute("tile", x, repeats=(2, 3)), np.tile(x, (2, 3)))
    check_same(compute("tile", x, repeats=2), np.tile(x, 2))
    check_same(compute("tile", np.arange(3), repeats=(2, 1, 2)), np.tile(np.arange(3), (2, 1, 2)))


def test_flip():
    x = tensor((n, 3))
    assert deduce("flip", [x], axis=-2).shape == x.shape
    assert_ndim(deduce("flip", [tensor(None)], axis=4), -1)
    with raises_rule("SI-op-axis-1"):
        deduce("flip", [tensor((3, 4))], axis=-3)
    a = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    check_same(compute("flip", a, axis=0), np.array([[3.0, 4.0], [1.0, 2.0]], "float32"))
    check_same(compute("flip", a, axis=-1), np.array([[2.0, 1.0], [4.0, 3.0]], "float32"))
    with traps("shape_mismatch", "EXEC-manip-flip-1"):
        compute("flip", a, axis=2)


# -- shape_of, tensor_to_shape, shape_to_tensor ----------------------------------------------------

def test_shape_of():
    s = deduce("shape_of", [tensor((n, 3))])
    assert isinstance(s, si.ShapeStructInfo) and [expr_text(v) for v in s.values] == ["n", "3"]
    s = deduce("shape_of", [tensor(3)])
    assert s.values is None and s.ndim == 3
    assert deduce("shape_of", [tensor(None)]).ndim == -1
    with raises_rule("SI-op-tensor-1"):
        deduce("shape_of", [shape_var((2,))])
    assert compute("shape_of", np.zeros((2, 0, 3))) == ShapeValue((2, 0, 3))
    assert compute("shape_of", np.zeros(())) == ShapeValue(())


def test_tensor_to_shape():
    s = deduce("tensor_to_shape", [tensor((3,), "int64")])
    assert isinstance(s, si.ShapeStructInfo) and s.values is None and s.ndim == 3
    assert deduce("tensor_to_shape", [tensor((n,), "int32")]).ndim == -1
    assert deduce("tensor_to_shape", [tensor(1, "int16")]).ndim == -1
    with raises_rule("SI-manip-t2s-1"):
        deduce("tensor_to_shape", [tensor((2, 2), "int64")])
    with raises_rule("SI-manip-t2s-1"):
        deduce("tensor_to_shape", [tensor(None, "int64")])
    with raises_rule("SI-manip-t2s-2"):
        deduce("tensor_to_shape", [tensor((3,), "float32")])
    with raises_rule("SI-manip-t2s-2"):
        deduce("tensor_to_shape", [tensor((3,), "uint32")])
    assert compute("tensor_to_shape", np.array([2, 0, 5], "int32")) == ShapeValue((2, 0, 5))
    assert compute("tensor_to_shape", np.zeros(0, "int64")) == ShapeValue(())
    with traps("invalid_value", "EXEC-manip-t2s-1"):
        compute("tensor_to_shape", np.array([2, -1], "int64"))
    with traps("invalid_value", "EXEC-manip-t2s-1"):
        compute("tensor_to_shape", np.array([2.0]))


def test_shape_to_tensor():
    assert_tensor(deduce("shape_to_tensor", [None], args=[shape(n, 3)]), (2,), "int64")
    assert_tensor(deduce("shape_to_tensor", [shape_var(ndim=4)]), (4,), "int64")
    assert_ndim(deduce("shape_to_tensor", [shape_var()]), 1, "int64")
    with raises_rule("SI-op-shape-1"):
        deduce("shape_to_tensor", [tensor((2,), "int64")])
    check_same(compute("shape_to_tensor", ShapeValue((2, 0, 7))), np.array([2, 0, 7], "int64"))
    check_same(compute("shape_to_tensor", ShapeValue(())), np.zeros((0,), "int64"))


# -- deduction agrees with the semantics on static shapes ------------------------------------

_static_cases = st.sampled_from([
    ("permute_dims", {"axes": (1, 2, 0)}), ("permute_dims", {}),
    ("expand_dims", {"axis": (0, -1)}), ("flatten", {}), ("repeat", {"repeats": 2}),
    ("repeat", {"repeats": 3, "axis": -1}), ("tile", {"repeats": (2, 1, 1, 3)}),
    ("tile", {"repeats": (2,)}), ("flip", {"axis": 1}), ("squeeze", {}),
    ("split", {"indices_or_sections": 2, "axis": 1}),
    ("split", {"indices_or_sections": (1, 3), "axis": 2}),
])


@settings(max_examples=60, deadline=None)
@given(_static_cases, st.lists(st.integers(0, 4), min_size=3, max_size=3))
def test_static_deduction_matches_the_semantics(case, dims):
    name, attrs = case
    x = np.zeros(dims, "float32")
    try:
        sinfo = deduce(name, [tensor(tuple(dims))], **attrs)
    except StructInfoError:
        with pytest.raises(OpRuntimeError):
            compute(name, x, **attrs)
        return
    out = compute(name, x, **attrs)
    outs = out if isinstance(out, tuple) else (out,)
    fields = sinfo.fields if isinstance(sinfo, si.TupleStructInfo) else (sinfo,)
    assert [tuple(int(d.value) for d in f.shape) for f in fields] == [o.shape for o in outs]


# -- cross-check against TVM 0.27 -------------------------------------------------------------

def _manip_cases():
    """(name, build) pairs: build(bridge) returns (our sinfo, TVM's sinfo)."""
    def unary(op, dims, dtype="float32", **attrs):
        def build(b):
            ours, var = b.tensor(dims, dtype)
            their_attrs = dict(attrs)
            return (deduce(op, [ours], **attrs),
                    b.their_sinfo(getattr(b.relax.op, op)(var, **their_attrs)))
        return build

    def with_shape(op, dims, target):
        def build(b):
            ours, var = b.tensor(dims)
            our_shape, their_shape = b.shape(target)
            return (deduce(op, [ours, None], args=[None, our_shape]),
                    b.their_sinfo(getattr(b.relax.op, op)(var, their_shape)))
        return build

    def concat(dims_list, axis=0):
        def build(b):
            pairs = [b.tensor(d) for d in dims_list]
            return (deduce("concat", [tup(*[p[0] for p in pairs])], axis=axis),
                    b.their_sinfo(b.relax.op.concat([p[1] for p in pairs], axis=axis)))
        return build

    def shape_to_tensor(dims):
        def build(b):
            our_shape, their_shape = b.shape(dims)
            return (deduce("shape_to_tensor", [None], args=[our_shape]),
                    b.their_sinfo(b.relax.op.shape_to_tensor(b.relax.ShapeExpr(their_shape))))
        return build

    return [
        ("reshape static", with_shape("reshape", (2, 3, 4), (6, 4))),
        ("reshape symbolic", with_shape("reshape", ("n", 4), ("n4",))),
        ("reshape n*4", lambda b: (lambda o, t: (
            deduce("reshape", [o[0], None], args=[None, rx.ShapeExpr((b.dim("n")[0] * 4,))]),
            b.their_sinfo(b.relax.op.reshape(o[1], (b.dim("n")[1] * 4,)))))(
                b.tensor(("n", 4)), None)),
        ("reshape -1", with_shape("reshape", ("n", 4, 2), (2, -1))),
        ("reshape -1 static", with_shape("reshape", (2, 3, 4), (3, -1, 8))),
        ("permute", unary("permute_dims", ("n", "m", 2), axes=[2, 0, 1])),
        ("permute reverse", unary("permute_dims", ("n", "m", 2))),
        ("permute ndim", unary("permute_dims", 3, axes=[1, 0, 2])),
        ("expand_dims", unary("expand_dims", ("n", "m"), axis=[0, -1])),
        ("expand_dims ndim", unary("expand_dims", 2, axis=[1])),
        ("squeeze", unary("squeeze", (2, 1, 3, 1), axis=[1, -1])),
        ("squeeze symbolic", unary("squeeze", ("n", 1, 3), axis=[0, 1])),
        ("squeeze all", unary("squeeze", (2, 1, 3))),
        ("squeeze all symbolic", unary("squeeze", ("n", 1, 3))),
        ("squeeze ndim", unary("squeeze", 3, axis=[1])),
        ("flatten", unary("flatten", ("n", 4))),
        ("flatten 3d", unary("flatten", (2, "n", 4))),
        ("flatten 0d", unary("flatten", ())),
        ("flatten ndim", unary("flatten", 3)),
        ("concat", concat([("n", 4), (2, 4), ("m", 4)])),
        ("concat same", concat([("n", 4), ("n", 4)], axis=0)),
        ("concat axis 1", concat([(2, 3), (2, "k")], axis=-1)),
        ("concat unprovable", concat([(2, "n"), (3, "m")])),
        ("concat axis None", concat([(3,), ("n",)], axis=None)),
        ("split 2", unary("split", ("n", "m"), indices_or_sections=2, axis=1)),
        ("split 3", unary("split", ("n", "m"), indices_or_sections=3, axis=1)),
        ("split static", unary("split", (10, 3), indices_or_sections=3)),
        ("split n*4", unary("split", ("n", 4), indices_or_sections=2, axis=1)),
        ("split indices", unary("split", ("n", 10), indices_or_sections=[2, 5, 20], axis=1)),
        ("split indices symbolic", unary("split", ("n", "m"), indices_or_sections=[2, 5],
                                         axis=1)),
        ("split ndim", unary("split", 2, indices_or_sections=3, axis=1)),
        ("split one", unary("split", ("n", "m"), indices_or_sections=1, axis=1)),
        ("broadcast_to", with_shape("broadcast_to", ("n", 1), ("n", 4))),
        ("broadcast_to rank", with_shape("broadcast_to", (3,), (2, 3))),
        ("repeat", unary("repeat", (2, "n", 4), repeats=3)),
        ("repeat axis", unary("repeat", (2, "n", 4), repeats=3, axis=1)),
        ("repeat ndim", unary("repeat", 2, repeats=2, axis=1)),
        ("tile", unary("tile", ("n", 3), repeats=[2, 1, 2])),
        ("tile short", unary("tile", ("n", 3), repeats=[2])),
        ("tile ndim", unary("tile", 2, repeats=[1, 2, 1])),
        ("flip", unary("flip", ("n", 3), axis=-1)),
        ("shape_of", unary("shape_of", ("n", 3))),
        ("shape_of ndim", unary("shape_of", 3)),
        ("tensor_to_shape", unary("tensor_to_shape", (3,), "int64")),
        ("tensor_to_shape symbolic", unary("tensor_to_shape", ("n",), "int64")),
        ("shape_to_tensor", shape_to_tensor(("n", 3))),
    ]


@pytest.mark.tvm
@pytest.mark.parametrize("name,build", _manip_cases(), ids=[c[0] for c in _manip_cases()])
def test_matches_tvm(name, build):
    bridge = TvmBridge()
    ours, theirs = build(bridge)
    bridge.assert_same(ours, theirs)


def _bare(text: str) -> str:
    return text.replace("(", "").replace(")", "")


@pytest.mark.tvm
def test_flatten_and_split_print_like_tvm():
    """The texts TVM prints (tuples_shapes.py, flatten_dynamic.py) and ours agree up to
    the parentheses of our compact text form."""
    bridge = TvmBridge()
    for op, dims, attrs in [("flatten", ("n", 4), {}), ("flatten", (2, "n", 4), {}),
                            ("split", ("n", "m"), {"indices_or_sections": 2, "axis": 1}),
                            ("split", ("n", "m"), {"indices_or_sections": 3, "axis": 1}),
                            ("concat", None, {})]:
        if op == "concat":
            pairs = [bridge.tensor(d) for d in [("n", 4), (2, 4), ("m", 4)]]
            ours = deduce("concat", [tup(*[p[0] for p in pairs])])
            theirs = bridge.their_sinfo(bridge.relax.op.concat([p[1] for p in pairs]))
        else:
            o, var = bridge.tensor(dims)
            ours = deduce(op, [o], **attrs)
            theirs = bridge.their_sinfo(getattr(bridge.relax.op, op)(var, **attrs))
        ours_f = ours.fields if isinstance(ours, si.TupleStructInfo) else (ours,)
        theirs_f = theirs.fields if isinstance(theirs, bridge.relax.TupleType) else (theirs,)
        for a, b in zip(ours_f, theirs_f):
            want = [_bare(re.sub(r"T\.int64\((-?\d+)\)", r"\1", str(d)))
                    for d in b.shape.values]
            got = [_bare(expr_text(d)) for d in a.shape]
            assert got == want
