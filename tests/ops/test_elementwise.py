"""Elementwise ops: deduction (spec/ops/elementwise.md), NumPy semantics against
independent formulas, and TVM's deduction where the tvm extra is installed."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.prim_expr import IntImm
from relax_ref.ops.common import OpRuntimeError, broadcast_runtime_shapes
from relax_ref.errors import StructInfoError
from relax_ref.values import PrimScalar

from .helpers import compute, deduce, sym, tensor
from .tvm_bridge import TvmBridge

n, m = sym("n"), sym("m")


def _shape(s):
    return None if s.shape is None else tuple(
        d.value if isinstance(d, IntImm) else d.name if hasattr(d, "name") else d for d in s.shape)


# -- deduction ---------------------------------------------------------------------------

def test_binary_broadcasts_static_and_symbolic():
    assert _shape(deduce("add", [tensor((n, 4)), tensor((4,))])) == ("n", 4)
    assert _shape(deduce("add", [tensor((1, 4)), tensor((3, 1))])) == (3, 4)
    out = deduce("multiply", [tensor((n, 4)), tensor((n, 1))])
    assert _shape(out) == ("n", 4)


def test_undecidable_broadcast_keeps_only_ndim():
    out = deduce("add", [tensor((n, 4)), tensor((m, 4))])
    assert out.shape is None and out.ndim == 2


def test_unknown_ndim_gives_unknown():
    out = deduce("add", [tensor(None), tensor((4,))])
    assert out.ndim == -1 and out.dtype == parse_dtype("float32")


def test_static_mismatch_and_dtype_mismatch_are_errors():
    with pytest.raises(StructInfoError) as info:
        deduce("add", [tensor((3,)), tensor((4,))])
    assert info.value.rule == "SI-broadcast-1"
    with pytest.raises(StructInfoError) as info:
        deduce("add", [tensor((4,)), tensor((4,), "int32")])
    assert info.value.rule == "SI-op-dtype-1"


def test_comparisons_give_bool_and_math_needs_floats():
    assert deduce("less", [tensor((n,)), tensor((n,))]).dtype == parse_dtype("bool")
    with pytest.raises(StructInfoError) as info:
        deduce("exp", [tensor((4,), "int32")])
    assert info.value.rule == "SI-ew-unary-2"
    assert deduce("isnan", [tensor((2, n))]).dtype == parse_dtype("bool")


def test_prim_operands():
    p = si.PrimStructInfo(parse_dtype("float32"))
    assert isinstance(deduce("add", [p, p]), si.PrimStructInfo)
    assert _shape(deduce("add", [tensor((n, 4)), p])) == ("n", 4)


def test_where_astype_clip():
    out = deduce("where", [tensor((n, 1), "bool"), tensor((n, 4)), tensor((4,))])
    assert _shape(out) == ("n", 4)
    with pytest.raises(StructInfoError):
        deduce("where", [tensor((4,), "int32"), tensor((4,)), tensor((4,))])
    assert deduce("astype", [tensor((n,))], dtype="float16").dtype == parse_dtype("float16")
    p = si.PrimStructInfo(parse_dtype("float32"))
    assert _shape(deduce("clip", [tensor((n, 2)), p, p])) == ("n", 2)


# -- NumPy semantics ------------------------------------------------------------------------

def test_integer_division_truncates_and_floor_division_floors():
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    assert compute("divide", a, b).tolist() == [3, -3, -3, 3]
    assert compute("mod", a, b).tolist() == [1, -1, 1, -1]
    assert compute("floor_divide", a, b).tolist() == [3, -4, -4, 3]
    assert compute("floor_mod", a, b).tolist() == [1, 1, -1, -1]


def test_integer_division_by_zero_traps():
    with pytest.raises(OpRuntimeError) as info:
        compute("divide", np.array([1], np.int32), np.array([0], np.int32))
    assert info.value.check == "division_by_zero"


def test_integer_arithmetic_wraps():
    big = np.array([2**31 - 1], np.int32)
    assert compute("add", big, np.array([1], np.int32)).tolist() == [-2**31]


def test_float_semantics_and_dtypes_are_kept():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    y = np.array([2.0, 0.0, 0.5], np.float32)
    out = compute("divide", x, y)
    assert out.dtype == np.float32
    assert out[0] == 0.25 and np.isneginf(out[1]) and out[2] == 4.0
    np.testing.assert_allclose(compute("exp", x), np.exp(x), rtol=1e-6)
    h = x.astype(np.float16)
    assert compute("multiply", h, h).dtype == np.float16


def test_runtime_broadcast_mismatch():
    with pytest.raises(OpRuntimeError) as info:
        compute("add", np.zeros((3,), np.float32), np.zeros((4,), np.float32))
    assert info.value.check == "shape_mismatch"


def test_prim_operands_at_run_time():
    f32 = parse_dtype("float32")
    out = compute("add", np.array([1.0, 2.0], np.float32), PrimScalar(1.5, f32))
    assert out.tolist() == [2.5, 3.5]
    both = compute("multiply", PrimScalar(2.0, f32), PrimScalar(3.0, f32))
    assert both == PrimScalar(6.0, f32)


def test_where_astype_clip_semantics():
    c = np.array([True, False, True])
    assert compute("where", c, np.array([1, 2, 3], np.int32),
                   np.array([9, 9, 9], np.int32)).tolist() == [1, 9, 3]
    out = compute("astype", np.array([2.7, -2.7], np.float32), dtype="int32")
    assert out.tolist() == [2, -2] and out.dtype == np.int32
    f32 = parse_dtype("float32")
    assert compute("clip", np.array([-5.0, 0.5, 5.0], np.float32), PrimScalar(-1.0, f32),
                   PrimScalar(1.0, f32)).tolist() == [-1.0, 0.5, 1.0]


# -- TVM's deduction ---------------------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("op,a,b", [
    ("add", ("n", 4), (4,)), ("multiply", (1, 4), (3, 1)), ("subtract", ("n", 4), ("n", 1)),
    ("less", ("n",), ("n",)), ("maximum", (2, 3), (3,)),
])
def test_binary_deduction_matches_tvm(op, a, b):
    bridge = TvmBridge()
    sa, sb = bridge.tensor(a)[0], bridge.tensor(b)[0]
    theirs = bridge.deduce(lambda x, y: getattr(bridge.relax.op, op)(x, y), sa, sb)
    bridge.assert_same(deduce(op, [sa, sb]), theirs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=4), min_size=1, max_size=3))
def test_run_time_broadcast_follows_numpy(shapes):
    shapes = [tuple(s) for s in shapes]
    try:
        want = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(OpRuntimeError) as info:
            broadcast_runtime_shapes("EXEC-broadcast-1", *shapes)
        assert info.value.check == "shape_mismatch" and "cannot broadcast" in info.value.message
    else:
        assert broadcast_runtime_shapes("EXEC-broadcast-1", *shapes) == want


@pytest.mark.parametrize("target", ["int32", "int8", "uint8", "int64", "uint32"])
def test_astype_from_float_is_the_tir_cast(target):
    """SI-ew-astype-1: R.astype converts as a TIR Cast (EXEC-tir-cast-2): truncation
    toward zero, and x86's value for NaN, infinities and out-of-range values."""
    from relax_ref.parser.builder import parse
    from relax_ref.semantics.tir_interp import run_prim_func

    x = np.array([np.nan, np.inf, -np.inf, 3e10, -3e10, 300.0, -1.0, -3.7, 2.9, 0.0],
                 np.float32)
    (kernel,) = parse(f'''
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "{target}")):
    for i in range(10):
        B[i] = T.Cast("{target}", A[i])
''').functions.values()
    want = np.zeros(10, target)
    run_prim_func(kernel, [x, want])
    got = compute("astype", x, dtype=parse_dtype(target))
    assert got.dtype == np.dtype(target) and got.tolist() == want.tolist()
