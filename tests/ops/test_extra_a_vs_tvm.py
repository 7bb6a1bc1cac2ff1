"""The deduction of issue 20's part-A ops against TVM 0.27's (``@pytest.mark.tvm``): the
same struct info on static and symbolic shapes (dimensions equal at sample values), and
the same rejections, except the differences the spec pages list."""
from __future__ import annotations

import pytest

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype

from .helpers import deduce, sym, tensor, tup
from .tvm_bridge import TvmBridge

N = sym("n")
F32 = si.PrimStructInfo(parse_dtype("float32"))


@pytest.mark.tvm
def test_elementwise_ops_agree():
    b = TvmBridge()
    op = b.relax.op
    x, v = tensor((N, 3)), tensor((3,))
    for name in ("atan2", "log_add_exp"):
        b.assert_same_at(deduce(name, [x, v]), b.deduce(getattr(op, name), x, v))
    b.assert_same_at(deduce("ewise_fma", [x, x, x]), b.deduce(op.ewise_fma, x, x, x))
    assert b.raises(op.ewise_fma, x, x, v)


@pytest.mark.tvm
def test_manipulation_ops_agree():
    b = TvmBridge()
    op = b.relax.op
    x = tensor((N, 3))
    for axis in (0, 1, -1):
        b.assert_same_at(deduce("stack", [tup(x, x)], axis=axis),
                         b.deduce(lambda p, q, a=axis: op.stack((p, q), a), x, x))
    assert b.raises(lambda p, q: op.stack((p, q)), tensor((2, 3)), tensor((2, 4)))
    a, c = tensor((N,), "int32"), tensor((4,), "int32")
    b.assert_same_at(deduce("meshgrid", [tup(a, c)]),
                     b.deduce(lambda p, q: op.meshgrid((p, q)), a, c))
    i = tensor((N, 2), "int64")
    one, zero = b.tirx.FloatImm("float32", 1.0), b.tirx.FloatImm("float32", 0.0)
    for axis in (-1, 0, 2):
        b.assert_same_at(deduce("one_hot", [i, F32, F32], depth=5, axis=axis),
                         b.deduce(lambda p, a=axis: op.one_hot(p, one, zero, 5, a), i))
    d, lengths = tensor((N, 5, 2)), tensor((N,), "int64")
    b.assert_same_at(deduce("reverse_sequence", [d, lengths]),
                     b.deduce(op.reverse_sequence, d, lengths))
    data, like = tensor((N, 4, 3)), tensor((4, 1))
    b.assert_same_at(deduce("collapse_sum_like", [data, like]),
                     b.deduce(op.collapse_sum_like, data, like))
    assert b.raises(op.collapse_sum_like, tensor((2, 4, 3)), tensor((2, 3)))


@pytest.mark.tvm
def test_search_quantize_sampling_agree():
    b = TvmBridge()
    op = b.relax.op
    x, bounds = tensor((N, 3)), tensor((4,))
    b.assert_same_at(deduce("bucketize", [x, bounds], out_int32=True),
                     b.deduce(lambda p, q: op.bucketize(p, q, True, False), x, bounds))
    m = tensor((N, 3, 2))
    for axis, keepdims in ((None, False), ([1], False), ([0], True), ([0, 2], False)):
        ours = deduce("median", [m], axis=None if axis is None else tuple(axis),
                      keepdims=keepdims)
        b.assert_same_at(ours, b.deduce(lambda p, a=axis, k=keepdims: op.median(p, a, k), m))
    s, z = tensor((3,)), tensor((3,), "int8")
    b.assert_same_at(deduce("quantize", [x, s, z], axis=1),
                     b.deduce(lambda p, q, r: op.quantize(p, q, r, 1, "int8"), x, s, z))
    q = tensor((N, 3), "int8")
    b.assert_same_at(deduce("dequantize", [q, s, z], axis=1, out_dtype="float16"),
                     b.deduce(lambda p, q_, r: op.dequantize(p, q_, r, 1, "float16"), q, s, z))
    prob, u, idx = tensor((sym("b"), 8)), tensor((N, 1)), tensor((N, 1), "int64")
    b.assert_same_at(deduce("multinomial_from_uniform", [prob, u, idx]),
                     b.deduce(op.multinomial_from_uniform, prob, u, idx))


def _layout(index_map: str, x_ann: str) -> si.StructInfo:
    import relax_ref

    text = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {x_ann}):
        y = R.layout_transform(x, index_map=T.index_map({index_map}), pad_value=None)
        return y
'''
    mod = relax_ref.check(relax_ref.from_source(text))
    return mod.functions["main"].body.blocks[0].bindings[0].var.struct_info


@pytest.mark.tvm
@pytest.mark.parametrize("index_map,dims", [
    ("lambda i, j: (j, i)", ("n", 6)),
    ("lambda i, j: (j // 4, i, j % 4)", (4, 6)),
    ("lambda i, j: (j // 4, i, j % 4)", (4, "n")),
    ("lambda n, c, h, w: (n, c // 4, h, w, c % 4)", (1, 8, "h", 2)),
    ("lambda i, j: (i * 2 + j // 3, j % 3)", (2, 6)),
])
def test_layout_transform_extents_agree(index_map, dims):
    b = TvmBridge()
    ann = "R.Tensor((" + ", ".join(f'"{d}"' if isinstance(d, str) else str(d)
                                  for d in dims) + ',), "float32")'
    x = tensor(tuple(sym(d) if isinstance(d, str) else d for d in dims))
    fn = eval(index_map)  # noqa: S307 - a constant of this test, for TVM's Python API
    b.assert_same_at(_layout(index_map, ann),
                     b.deduce(lambda v: b.relax.op.layout_transform(v, fn), x))


@pytest.mark.tvm
def test_hamming_window_agrees():
    from relax_ref.ir.prim_expr import IntImm

    b = TvmBridge()
    i64, f64 = parse_dtype("int64"), parse_dtype("float64")
    ours = deduce("hamming_window", [si.PrimStructInfo(i64, sym("n")),
                                     si.PrimStructInfo(i64, IntImm(1)),
                                     si.PrimStructInfo(f64), si.PrimStructInfo(f64)],
                  dtype="float32")
    n = b.expr(sym("n"))
    theirs = b.their_sinfo(b.relax.op.hamming_window(n, 1, 0.54, 0.46, "float32"))
    b.assert_same_at(ours, theirs)
