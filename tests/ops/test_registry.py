"""Canonical calls (spec/ops/common.md, SI-call-1..4): how ``canonicalize_call`` binds a
call as TVM's Python function binds it. Binding by position and keyword (1), an operand
written ``None`` as absent (2), the per-op ``bind`` hooks for defaults computed from
another argument (3: ``R.arange(n)``, ``R.eye(n)``, ``out_layout``), the op a call
becomes when it gives an optional operand (4: ``R.nn.attention`` with a bias), and the
reshape target's ``-1`` rule, which lives in one place for deduction and run time.
Cross-checks against TVM 0.27 where TVM's constructors decide."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.equal import structural_equal
from relax_ref.ops.common import OpRuntimeError
from relax_ref.ops.registry import canonicalize_call, lookup
from relax_ref.errors import StructInfoError
from relax_ref.values import ShapeValue

from .helpers import PrimScalar, compute, deduce, dims, same_dims, sym, tensor
from .tvm_bridge import TvmBridge

N = sym("n")
I64 = parse_dtype("int64")


def call(op: str, *args, **kwargs) -> rx.Call:
    """``R.<op>(*args, **kwargs)`` as the parser keeps it."""
    return rx.Call(rx.Op(f"relax.{op}"), tuple(args), rx.Attrs(tuple(kwargs.items())))


def canonical(op: str, *args, **kwargs) -> rx.Call:
    return canonicalize_call(call(op, *args, **kwargs))


def var(name: str, s: si.StructInfo) -> rx.Var:
    return rx.Var(name, s)


def ints(c: rx.Call) -> list:
    """The operands of a canonical call: ints for constant PrimValues, else the Expr."""
    return [a.value.value if isinstance(a, rx.PrimValue) and isinstance(a.value, P.IntImm)
            else a for a in c.args]


def call_error(op: str, *args, **kwargs) -> StructInfoError:
    with pytest.raises(StructInfoError) as e:
        canonical(op, *args, **kwargs)
    assert e.value.rule == "SI-call-1", str(e.value)
    return e.value


X = var("x", tensor((2, 3)))
Q, K, V = (var(n, tensor((1, 4, 2, 8))) for n in "qkv")
B = var("b", tensor((1, 2, 4, 4)))


# -- SI-call-1: binding ------------------------------------------------------------------------

def test_positional_and_keyword_arguments_bind_in_tvm_order():
    a = canonical("sum", X, (1,), True)
    b = canonical("sum", X, keepdims=True, axis=(1,))
    assert structural_equal(a, b)
    assert a.attrs.get("axis") == (1,) and a.attrs.get("keepdims") is True
    assert "at most 3" in str(call_error("sum", X, (1,), True, 4))
    assert "no parameter 'axes'" in str(call_error("sum", X, axes=(1,)))
    assert "twice" in str(call_error("sum", X, (1,), axis=(0,)))
    assert "needs the operand 'x'" in str(call_error("sum"))


# -- SI-call-2: an operand written None is absent ----------------------------------------------

def test_optional_operand_written_none_is_absent():
    # R.unique's axis is an operand (a PrimValue), absent by default
    assert structural_equal(canonical("unique", X, axis=None), canonical("unique", X))
    assert len(canonical("unique", X, axis=None).args) == 5
    # R.nn.attention's bias
    plain = canonical("nn.attention", Q, K, V)
    assert structural_equal(canonical("nn.attention", Q, K, V, bias=None), plain)
    assert plain.op.name == "relax.nn.attention" and len(plain.args) == 3


def test_defaulted_operand_written_none_takes_its_default():
    assert ints(canonical("tril", X, k=None)) == [X, 0]
    assert ints(canonical("arange", 0, 5, step=None)) == [0, 5, 1]
    assert ints(canonical("eye", 3, m=None)) == [3, 3, 0]  # and SI-call-3 fills m


def test_required_operand_written_none_is_missing():
    assert "needs the operand 'x2'" in str(call_error("add", X, x2=None))


def test_attributes_written_none_keep_none():
    """None is a value of an attribute (converted like any other), not an absence."""
    assert canonical("sum", X, axis=None).attrs.get("axis") is None
    call_error("sum", X, keepdims=None)


# -- SI-call-3: bind hooks ---------------------------------------------------------------------

def test_arange_with_one_argument_is_the_end():
    assert ints(canonical("arange", 5)) == [0, 5, 1]
    assert ints(canonical("arange", start=5)) == [0, 5, 1]
    assert ints(canonical("arange", 2, 5)) == [2, 5, 1]
    assert ints(canonical("arange", 5, step=2)) == [0, 5, 2]
    n = rx.PrimValue(N)
    assert canonical("arange", n).args[1] is n
    assert same_dims(deduce("arange", [], start=N), (N,))
    assert dims(deduce("arange", [], start=4.0)) == (4,)
    assert str(deduce("arange", [], start=4.0).dtype) == "float32"
    assert "needs the operand 'start'" in str(call_error("arange", end=5))


def test_eye_with_one_size_is_square():
    assert ints(canonical("eye", 3)) == [3, 3, 0]
    assert ints(canonical("eye", 3, 4)) == [3, 4, 0]
    assert ints(canonical("eye", 3, k=1)) == [3, 3, 1]
    assert dims(deduce("eye", [], n=N)) == (N, N)
    operands = [PrimScalar(v, I64) for v in ints(canonical("eye", 2))]
    np.testing.assert_array_equal(compute("eye", *operands), np.eye(2))


@pytest.mark.parametrize("op,given,want", [
    ("nn.conv2d", {}, "NCHW"),
    ("nn.conv2d", {"data_layout": "NHWC", "kernel_layout": "HWIO"}, "NHWC"),
    ("nn.conv2d", {"data_layout": "NHWC", "out_layout": "NCHW"}, "NCHW"),
    ("nn.conv2d", {"data_layout": "NHWC", "out_layout": None}, "NHWC"),
    ("nn.conv1d", {}, "NCW"),
    ("nn.conv1d", {"data_layout": "NWC"}, "NWC"),
    ("nn.max_pool2d", {}, "NCHW"),
    ("nn.avg_pool2d", {"layout": "NHWC"}, "NHWC"),
    ("nn.adaptive_avg_pool2d", {"layout": "NHWC"}, "NHWC"),
    ("nn.adaptive_avg_pool2d", {"layout": "NHWC", "out_layout": "NCHW"}, "NCHW"),
])
def test_out_layout_is_filled_from_the_data_layout(op, given, want):
    operands = (X, X) if "conv" in op else (X,)
    assert canonical(op, *operands, **given).attrs.get("out_layout") == want


@pytest.mark.parametrize("op,args,kwargs", [
    ("arange", (5,), {}), ("eye", (3,), {}), ("nn.conv2d", (X, X), {"data_layout": "NHWC"}),
    ("nn.max_pool2d", (X,), {"layout": "NHWC"}), ("nn.attention", (Q, K, V, B), {}),
    ("unique", (X,), {"axis": None}),
])
def test_canonical_calls_are_fixed_points(op, args, kwargs):
    once = canonical(op, *args, **kwargs)
    assert structural_equal(canonicalize_call(once), once)


def test_hooks_are_declared_on_the_op():
    """No op name is special-cased inside canonicalize_call: each op declares its hook."""
    for name in ("relax.arange", "relax.eye", "relax.nn.conv1d", "relax.nn.conv2d",
                 "relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.nn.adaptive_avg_pool2d"):
        assert lookup(name).bind is not None, name
    assert lookup("relax.nn.attention").when_given == (("bias", "relax.nn.attention_bias"),)


# -- SI-call-4: the op a call with an optional operand becomes ---------------------------------

def test_attention_with_a_bias_is_attention_bias():
    c = canonical("nn.attention", Q, K, V, B, scale=0.5)
    assert c.op.name == "relax.nn.attention_bias"
    assert c.args == (Q, K, V, B)
    assert structural_equal(c, canonical("nn.attention_bias", Q, K, V, B, scale=0.5))
    assert canonical("nn.attention", Q, K, V, bias=B).op.name == "relax.nn.attention_bias"
    assert str(c.attrs.get("scale").value) == "0.5"
    sinfos = [tensor((1, 4, 2, 8))] * 3 + [tensor((1, 2, 4, 4))]
    assert dims(deduce("nn.attention", sinfos)) == (1, 4, 2, 8)


def test_attention_bias_needs_its_bias():
    assert "needs the operand 'bias'" in str(call_error("nn.attention_bias", Q, K, V))


# -- the reshape target's -1: one rule for deduction and run time --------------------------------

def test_reshape_target_is_kept_as_written():
    """No constructor-style rewriting of the target at canonicalization: the ``-1`` and
    ``0`` rules live in manipulate.py (SI-manip-reshape-3, -4; EXEC-manip-reshape-1)."""
    target = rx.ShapeExpr((P.IntImm(2), P.IntImm(-1)))
    assert canonical("reshape", X, target).args[1] is target


@settings(max_examples=200, deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3),
       target=st.lists(st.sampled_from([-2, -1, -1, 0, 1, 2, 3, 4, 6]), max_size=3))
def test_reshape_deduction_and_semantics_agree(shape, target):
    """With a static input and a target of known values (a shape variable, so the
    literal-0 rule SI-manip-reshape-4 does not apply), deduction fails exactly when the
    run-time semantics does, and otherwise deduces the shape it produces."""
    x = np.zeros(shape, "float32")
    target_sinfo = si.ShapeStructInfo(tuple(P.IntImm(d) for d in target))
    try:
        out = deduce("reshape", [tensor(tuple(shape)), target_sinfo])
    except StructInfoError as err:
        assert err.rule in ("SI-manip-reshape-2", "SI-manip-reshape-3"), err
        with pytest.raises(OpRuntimeError) as trap:
            compute("reshape", x, ShapeValue(tuple(target)))
        assert trap.value.rule == "EXEC-manip-reshape-1"
        assert trap.value.check == ("invalid_value" if err.rule == "SI-manip-reshape-3" and
                                    (min(target, default=0) < -1 or target.count(-1) > 1)
                                    else "shape_mismatch")
        return
    assert compute("reshape", x, ShapeValue(tuple(target))).shape == dims(out)


# -- end to end: parsed, normalized, printed --------------------------------------------------

_MODULE = '''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), "float32"), b: R.Tensor((1, 2, 4, 4), "float32"),
             x: R.Tensor((1, 8, 8, 3), "float32"), w: R.Tensor((3, 3, 3, 4), "float32")):
        a = R.arange(5)
        e = R.eye(3)
        u = R.unique(q, axis=None)
        c = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")
        p = R.nn.max_pool2d(x, layout="NHWC")
        o = R.nn.attention(q, q, q, bias=None)
        o2 = R.nn.attention(q, q, q, b)
        return o2
'''


def _printed() -> str:
    from relax_ref.parser.builder import parse
    from relax_ref.parser.printer import print_module
    from relax_ref.semantics.normalize import normalize

    return print_module(normalize(parse(_MODULE)))


def test_normalized_calls_print_their_canonical_operands_and_attributes():
    text = _printed()
    assert "= R.arange(0, 5, 1," in text
    assert "= R.eye(3, 3, 0," in text
    assert "= R.unique(q, True, False, False, False)" in text
    assert 'data_layout="NHWC", kernel_layout="HWIO", out_layout="NHWC"' in text
    assert 'layout="NHWC", out_layout="NHWC")' in text
    assert "= R.nn.attention(q, q, q, scale=None" in text


def test_normalized_attention_with_a_bias_prints_as_attention_bias():
    assert "= R.nn.attention_bias(q, q, q, b," in _printed()


# -- cross-checks against TVM 0.27 -------------------------------------------------------------

def _their_ints(c) -> list:
    return [int(a.value) for a in c.args]


@pytest.mark.tvm
def test_arange_and_eye_bind_as_tvm_binds_them():
    op = TvmBridge().relax.op
    assert ints(canonical("arange", 5)) == _their_ints(op.arange(5))
    assert ints(canonical("arange", 5, step=2)) == _their_ints(op.arange(5, step=2))
    assert ints(canonical("eye", 3)) == _their_ints(op.eye(3))
    assert ints(canonical("eye", 3, k=1)) == _their_ints(op.eye(3, k=1))


@pytest.mark.tvm
def test_arange_of_one_symbolic_argument_deduces_as_in_tvm():
    b = TvmBridge()
    b.assert_same(deduce("arange", [], start=N), b.deduce(lambda: b.relax.op.arange(b.expr(N))))
    b.assert_same(deduce("eye", [], n=N), b.deduce(lambda: b.relax.op.eye(b.expr(N))))


@pytest.mark.tvm
@pytest.mark.parametrize("op,kwargs", [
    ("conv2d", {}), ("conv2d", {"data_layout": "NHWC", "kernel_layout": "HWIO"}),
    ("conv2d", {"data_layout": "NHWC", "out_layout": "NCHW"}), ("conv1d", {}),
    ("max_pool2d", {}), ("avg_pool2d", {"layout": "NHWC"}),
    ("adaptive_avg_pool2d", {"layout": "NHWC"}),
])
def test_out_layout_as_tvm_fills_it(op, kwargs):
    b = TvmBridge()
    ndim = 3 if op == "conv1d" else 4
    x = b.var(tensor((1,) * ndim), "x")
    operands = (x, x) if "conv" in op else (x,)
    theirs = getattr(b.relax.op.nn, op)(*operands, **kwargs).attrs.out_layout
    ours_operands = (X, X) if "conv" in op else (X,)
    assert canonical(f"nn.{op}", *ours_operands, **kwargs).attrs.get("out_layout") == theirs


@pytest.mark.tvm
def test_attention_op_as_tvm_builds_it():
    b = TvmBridge()
    q, bias = b.var(tensor((1, 4, 2, 8)), "q"), b.var(tensor((1, 2, 4, 4)), "b")
    nn = b.relax.op.nn
    assert canonical("nn.attention", Q, K, V, B).op.name == nn.attention(q, q, q, bias).op.name
    assert canonical("nn.attention", Q, K, V).op.name == nn.attention(q, q, q).op.name
    assert canonical("nn.attention", Q, K, V, bias=None).op.name == \
        nn.attention(q, q, q, None).op.name
