"""Inspection ops (spec/ops/inspection.md): result dtypes, axis checks, the fields of
real tensors (a view into a storage at an offset included), and the folding lowering
through ``check_pass(LegalizeOps)``."""
from __future__ import annotations

import numpy as np

import relax_ref
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64
from relax_ref.passes.legalize_ops import legalize_ops
from relax_ref.values import PrimScalar

from .helpers import compute, deduce, raises_rule, sym, tensor, traps
from .legalize_helpers import calls_of, check_lowered, module

n = sym("n")


def _dtype(op, *args, **kw) -> str:
    s = deduce(f"inspect.{op}", list(args), **kw)
    assert isinstance(s, si.PrimStructInfo) and s.value is None
    return str(s.dtype)


def test_result_dtypes_are_tvms():
    x = tensor((n, 4))
    axis = si.PrimStructInfo(INT64)
    assert [_dtype(op, x) for op in ("tensor_dtype_code", "tensor_dtype_bits",
                                     "tensor_dtype_lanes", "tensor_ndim",
                                     "tensor_byte_offset", "tensor_elem_offset")] == \
        ["uint8", "uint8", "uint16", "int32", "uint64", "uint64"]
    assert _dtype("tensor_shape_i", x, axis) == _dtype("tensor_stride_i", x, axis) == "int64"


def test_axis_checks():
    from relax_ref.ir import prim_expr as P
    from relax_ref.ir import relax as rx

    two = rx.PrimValue(P.IntImm(2, INT64))
    with raises_rule("SI-inspect-2"):
        deduce("inspect.tensor_shape_i", [tensor((3, 4)), None], args=[None, two])
    with raises_rule("SI-inspect-2"):
        deduce("inspect.tensor_stride_i", [tensor((3, 4)), tensor((1,))])
    with traps("invalid_value", "EXEC-inspect-1"):
        compute("inspect.tensor_shape_i", np.zeros((3, 4)), PrimScalar(2, INT64))


def test_fields_of_a_tensor():
    x = np.zeros((3, 4, 5), "float16")
    got = [compute(f"inspect.{op}", x).value for op in (
        "tensor_dtype_code", "tensor_dtype_bits", "tensor_dtype_lanes", "tensor_ndim",
        "tensor_byte_offset")]
    assert got == [2, 16, 1, 3, 0]
    assert [compute("inspect.tensor_stride_i", x, PrimScalar(a, INT64)).value
            for a in range(3)] == [20, 5, 1]
    assert compute("inspect.tensor_shape_i", x, PrimScalar(1, INT64)).value == 4
    assert compute("inspect.tensor_dtype_code", np.zeros(2, "bool")).value == 6
    assert compute("inspect.tensor_dtype_code", np.zeros(2, "uint8")).value == 1


def test_offsets_of_a_view_into_a_storage():
    text = module('x: R.Tensor((2,), "float32")', '''s = R.memory.alloc_storage(R.shape([64]), 0, "global", "uint8")
v = R.memory.alloc_tensor(s, 24, R.shape([2, 3]), "float32")
a = R.inspect.tensor_byte_offset(v)
b = R.inspect.tensor_elem_offset(v)
y = (a, b)''')
    out = relax_ref.run(relax_ref.check(relax_ref.from_source(text)), np.zeros(2, "float32"))
    assert [int(v) for v in out] == [24, 6]


def test_lowering_folds_what_struct_info_gives():
    text = module('x: R.Tensor(("n", 4), "float16"), z: R.Tensor(dtype="int8")', '''a = R.inspect.tensor_dtype_code(x)
b = R.inspect.tensor_ndim(x)
c = R.inspect.tensor_shape_i(x, 0)
d = R.inspect.tensor_stride_i(x, 0)
e = R.inspect.tensor_ndim(z)
f = R.inspect.tensor_byte_offset(x)
y = (a, b, c, d, e, f)''')
    out = check_lowered(text, "relax.inspect.tensor_shape_i")
    assert calls_of(out, "relax.inspect.tensor_dtype_code") == 0
    assert calls_of(out, "relax.inspect.tensor_ndim") == 1  # z's ndim is unknown
    assert calls_of(out, "relax.inspect.tensor_byte_offset") == 1
    assert calls_of(legalize_ops(out), "relax.inspect.tensor_stride_i") == 0
