"""Structural equality's fast paths (ir/equal.py): the two sides of a node compared in
one loop, constants, GlobalVars and Ops settled in place, empty attributes. Each case
sits at a boundary of a fast path; the answer and the message naming the difference are
those of the general walk."""
from __future__ import annotations

import pytest

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as R
from relax_ref.ir import struct_info as S
from relax_ref.ir.dtype import FLOAT32, INT32, INT64
from relax_ref.ir.equal import assert_structural_equal, structural_equal, structural_hash


def call_tir(callee="exp", dim=P.IntImm(4, INT64), attrs=R.Attrs(())) -> R.Function:
    """def f(x: R.Tensor((n, 4))):
           lv = R.call_tir(callee, (x,), out_ty=R.Tensor((n, dim)))
           return lv"""
    n = P.Var("n")
    x = R.Var("x", S.TensorStructInfo((n, P.IntImm(4, INT64)), FLOAT32))
    out = S.TensorStructInfo((n, dim), FLOAT32)
    call = R.Call(R.Op("relax.call_tir"), (R.GlobalVar(callee), R.Tuple((x,))), attrs,
                  (out,))
    lv = R.Var("lv")
    return R.Function((x,), R.SeqExpr((R.BindingBlock((R.VarBinding(lv, call),)),), lv))


def test_equal_functions_built_apart_are_equal_and_hash_equal():
    a, b = call_tir(), call_tir()
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_a_constant_of_another_dtype_differs_and_the_message_names_the_dtype():
    a, b = call_tir(dim=P.IntImm(4, INT64)), call_tir(dim=P.IntImm(4, INT32))
    assert not structural_equal(a, b)
    with pytest.raises(AssertionError, match=r"sinfo_args\[0\]\.shape\[1\]\.dtype: "
                                             r"int64 vs int32"):
        assert_structural_equal(a, b)


def test_a_constant_of_another_value_differs():
    a, b = call_tir(dim=P.IntImm(4, INT64)), call_tir(dim=P.IntImm(5, INT64))
    assert not structural_equal(a, b)
    with pytest.raises(AssertionError, match=r"shape\[1\]\.value: 4 vs 5"):
        assert_structural_equal(a, b)


def test_a_boolean_constant_never_equals_an_integer_one():
    # True == 1 in Python; the leaves are tagged by type, in place or walked
    a, b = call_tir(dim=P.IntImm(True, INT64)), call_tir(dim=P.IntImm(1, INT64))
    assert not structural_equal(a, b)
    assert structural_equal(call_tir(dim=P.IntImm(True, INT64)),
                            call_tir(dim=P.IntImm(True, INT64)))


def test_a_constant_against_a_variable_differs_by_type():
    a, b = call_tir(dim=P.IntImm(4, INT64)), call_tir(dim=P.Var("m"))
    assert not structural_equal(a, b, map_free_vars=True)
    with pytest.raises(AssertionError, match=r"shape\[1\]: IntImm vs tir\.Var 'm'"):
        assert_structural_equal(a, b, map_free_vars=True)


def test_another_callee_differs_and_the_message_names_it():
    a, b = call_tir("exp"), call_tir("log")
    assert not structural_equal(a, b)
    with pytest.raises(AssertionError, match=r"args\[0\]\.name_hint: 'exp' vs 'log'"):
        assert_structural_equal(a, b)


def test_attributes_empty_on_one_side_only_differ():
    a, b = call_tir(), call_tir(attrs=R.Attrs((("k", 1),)))
    assert not structural_equal(a, b)
    assert structural_equal(call_tir(attrs=R.Attrs((("k", 1),))),
                            call_tir(attrs=R.Attrs((("k", 1),))))
