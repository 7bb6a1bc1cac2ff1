"""Tensor creation (spec/ops/create.md): struct-info deduction (static, symbolic, ndim-only,
unknown, every error rule), NumPy semantics against hand-computed values and NumPy
formulas, and cross-checks of deduction and numbers against TVM 0.27."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.common import OpRuntimeError
from relax_ref.ops.create import arange_length
from relax_ref.values import PrimScalar, ShapeValue
from relax_ref.solver.evaluate import evaluate_int

from .helpers import compute, deduce, dims, fails, same_dims, sym, tensor
from .tvm_bridge import TvmBridge, their_dims

N, M = sym("n"), sym("m")
I64, I32, F32, F64, BOOL = (parse_dtype(d) for d in ("int64", "int32", "float32", "float64",
                                                     "bool"))


def prim(value, dtype=I64):
    return PrimScalar(value, dtype)


def shape_var(values=None, ndim=-1):
    return rx.Var("s", si.ShapeStructInfo(values, ndim))


def fill_var(dtype="float32", ndim=0):
    return rx.Var("f", tensor(() if ndim == 0 else ndim, dtype))


# -- full, ones, zeros --------------------------------------------------------------------------

def test_full_deduction():
    assert dims(deduce("full", [], shape=(2, N), fill_value=fill_var("float16"))) == (2, N)
    out = deduce("full", [], shape=(2, 3), fill_value=fill_var("float16"), dtype="int32")
    assert str(out.dtype) == "int32"
    # a shape variable: its values when known, else its ndim
    out = deduce("full", [], shape=shape_var(ndim=3), fill_value=fill_var())
    assert out.shape is None and out.ndim == 3
    assert dims(deduce("full", [], shape=shape_var((N, M)), fill_value=fill_var())) == (N, M)
    assert deduce("full", [], shape=shape_var(), fill_value=fill_var()).ndim == -1
    # a fill value of unknown ndim is checked at run time
    assert str(deduce("full", [], shape=(2,), fill_value=rx.Var("f", tensor(None, "int8"))).dtype) \
        == "int8"
    fails("SI-create-full-1", "full", [], shape=(2, 3), fill_value=fill_var(ndim=1))
    fails("SI-create-shape-1", "full", [], shape=(2, -1), fill_value=fill_var())
    fails("SI-op-shape-1", "full", [], shape=rx.Var("t", tensor((2,))), fill_value=fill_var())
    fails("SI-op-tensor-1", "full", [], shape=(2,), fill_value=rx.Var("p", si.PrimStructInfo(F32)))


def test_ones_zeros_like_deduction():
    for op in ("ones", "zeros"):
        assert dims(deduce(op, [], shape=(N, 3), dtype="bool")) == (N, 3)
        assert str(deduce(op, [], shape=(N, 3), dtype="bool").dtype) == "bool"
        fails("SI-create-ones-1", op, [], shape=(2,), dtype=None)
        fails("SI-call-1", op, [], shape=(2,))
    x = tensor((2, N), "float16")
    for op in ("ones_like", "zeros_like"):
        assert deduce(op, [x]) is x or dims(deduce(op, [x])) == (2, N)
        out = deduce(op, [x], dtype="int8")
        assert dims(out) == (2, N) and str(out.dtype) == "int8"
        assert deduce(op, [tensor(None)], dtype="int8").ndim == -1
    out = deduce("full_like", [x, tensor(())], dtype="int32")
    assert dims(out) == (2, N) and str(out.dtype) == "int32"
    assert str(deduce("full_like", [x, tensor((), "int32")]).dtype) == "float16"
    fails("SI-create-full-1", "full_like", [x, tensor((1,))])


def test_full_family_semantics():
    out = compute("full", ShapeValue((2, 3)), np.array(1.5, "float32"))
    np.testing.assert_array_equal(out, np.full((2, 3), 1.5, "float32"))
    out = compute("full", ShapeValue((2,)), np.array(-2.7, "float32"), dtype="int32")
    np.testing.assert_array_equal(out, [-2, -2])  # truncation toward zero
    assert out.dtype == np.int32
    assert compute("full", ShapeValue((0, 4)), np.array(1, "int8")).shape == (0, 4)
    x = np.zeros((2, 2), "float16")
    assert compute("full_like", x, np.array(3, "int32")).dtype == np.float16
    np.testing.assert_array_equal(compute("full_like", x, np.array(3, "int32"), dtype="int8"),
                                  np.full((2, 2), 3, "int8"))
    np.testing.assert_array_equal(compute("ones", ShapeValue((3,)), dtype="int32"), [1, 1, 1])
    np.testing.assert_array_equal(compute("zeros", ShapeValue((1, 2)), dtype="bool"),
                                  [[False, False]])
    assert compute("ones_like", x).dtype == np.float16
    np.testing.assert_array_equal(compute("zeros_like", x, dtype="int64"),
                                  np.zeros((2, 2), "int64"))
    with pytest.raises(OpRuntimeError) as e:
        compute("full", ShapeValue((2,)), np.ones((1,), "float32"))
    assert e.value.check == "shape_mismatch"


# -- eye ---------------------------------------------------------------------------------------

def test_eye():
    assert dims(deduce("eye", [], n=3, m=N, k=1)) == (3, N)
    assert str(deduce("eye", [], n=3, m=3, dtype="int32").dtype) == "int32"
    out = deduce("eye", [], n=rx.Var("p", si.PrimStructInfo(I64)), m=3)
    assert out.shape is None and out.ndim == 2
    fails("SI-create-eye-1", "eye", [], n=-1, m=3)
    fails("SI-create-eye-1", "eye", [], n=2, m=3, k=0.5)
    fails("SI-create-ones-1", "eye", [], n=2, m=3, dtype=None)
    assert dims(deduce("eye_like", [tensor((N, 4))], k=-1, dtype="int8")) == (N, 4)
    fails("SI-create-eye-2", "eye_like", [tensor((2, 3, 4))])
    np.testing.assert_array_equal(compute("eye", prim(2), prim(3), prim(1)),
                                  [[0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(compute("eye_like", np.ones((3, 2), "int32"), prim(-1)),
                                  [[0, 0], [1, 0], [0, 1]])
    with pytest.raises(OpRuntimeError):
        compute("eye", prim(-2), prim(3), prim(0))


# -- arange ------------------------------------------------------------------------------------

def test_arange_deduction():
    out = deduce("arange", [], start=0, end=10, step=3)
    assert dims(out) == (4,) and str(out.dtype) == "int64"
    assert dims(deduce("arange", [], start=10, end=0, step=-3)) == (4,)
    assert dims(deduce("arange", [], start=5, end=0)) == (0,)
    out = deduce("arange", [], start=0.5, end=3.0, step=0.5)
    assert dims(out) == (5,) and str(out.dtype) == "float32"
    assert str(deduce("arange", [], start=0, end=5, dtype="float16").dtype) == "float16"
    assert same_dims(deduce("arange", [], start=0, end=N), (N,))
    assert same_dims(deduce("arange", [], start=0, end=N, step=3), ((N + 2) // 3,))
    assert same_dims(deduce("arange", [], start=1, end=N, step=2), (N // 2,))
    # a length that may be negative is clamped at zero
    e = deduce("arange", [], start=5, end=N).shape[0]
    assert [evaluate_int(e, {N: n}) for n in (0, 5, 9)] == [0, 0, 4]
    e = deduce("arange", [], start=N, end=0, step=-2).shape[0]
    assert [evaluate_int(e, {N: n}) for n in (0, 1, 4, 5)] == [0, 1, 2, 3]
    # unknown sign of the step, symbolic floats: ndim only
    out = deduce("arange", [], start=0, end=10, step=N)
    assert out.shape is None and out.ndim == 1
    out = deduce("arange", [], start=0.0, end=rx.Var("e", si.PrimStructInfo(F32)), step=1.0)
    assert out.shape is None and out.ndim == 1
    fails("SI-create-arange-2", "arange", [], start=0, end=10, step=0)
    fails("SI-op-prim-1", "arange", [], start=0, end=rx.Var("t", tensor(())), step=1)
    # SI-call-3: one bound value is the end, as in TVM's ``arange(start, end=None)``
    assert same_dims(deduce("arange", [], start=N), (N,))
    assert dims(deduce("arange", [], start=5, step=2)) == (3,)


def test_arange_length_matches_numpy():
    for start, end, step in [(0, 10, 3), (10, 0, -3), (5, 0, 1), (-3, 7, 2), (0, 1, 5),
                             (0.5, 3.0, 0.5), (1.0, 0.0, -0.3), (0, 0.9, 0.3)]:
        assert arange_length(start, end, step) == len(np.arange(start, end, step))


def test_arange_semantics():
    np.testing.assert_array_equal(compute("arange", prim(0), prim(10), prim(3)), [0, 3, 6, 9])
    out = compute("arange", prim(10), prim(0), prim(-3), dtype="int32")
    np.testing.assert_array_equal(out, [10, 7, 4, 1])
    assert out.dtype == np.int32
    out = compute("arange", prim(0.5, F64), prim(2.0, F64), prim(0.5, F64))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([0.5, 1.0, 1.5], "float32"))
    assert compute("arange", prim(5), prim(0), prim(1)).shape == (0,)
    with pytest.raises(OpRuntimeError):
        compute("arange", prim(0), prim(5), prim(0))


# -- tril, triu --------------------------------------------------------------------------------

def test_trilu():
    x = tensor((N, 3, 4), "int8")
    assert deduce("tril", [x]) is x
    assert dims(deduce("triu", [x], k=N)) == (N, 3, 4)
    assert deduce("tril", [tensor(None)]).ndim == -1
    fails("SI-create-trilu-1", "tril", [tensor((3,))])
    fails("SI-create-trilu-1", "triu", [tensor((3, 3))], k=1.5)
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(compute("tril", a, prim(k)), np.tril(a, k))
        np.testing.assert_array_equal(compute("triu", a, prim(k)), np.triu(a, k))
    np.testing.assert_array_equal(compute("triu", np.ones((2, 2), "int32"), prim(0)),
                                  [[1, 1], [0, 1]])
    assert compute("tril", np.zeros((0, 3), "float32"), prim(0)).shape == (0, 3)
    with pytest.raises(OpRuntimeError):
        compute("tril", np.ones(3, "float32"), prim(0))


# -- cross-checks against TVM 0.27 -------------------------------------------------------------

@pytest.mark.tvm
def test_deduction_agrees_with_tvm():
    b = TvmBridge()
    op = b.relax.op
    n = b.expr(N)
    b.assert_same_at(deduce("arange", [], start=0, end=N, step=3),
                  b.deduce(lambda: op.arange(0, n, 3)))
    b.assert_same_at(deduce("arange", [], start=1, end=N, step=2),
                  b.deduce(lambda: op.arange(1, n, 2)))
    b.assert_same_at(deduce("arange", [], start=0, end=N), b.deduce(lambda: op.arange(n)))
    b.assert_same_at(deduce("arange", [], start=0.5, end=3.0, step=0.5),
                  b.deduce(lambda: op.arange(0.5, 3.0, 0.5)))
    b.assert_same_at(deduce("arange", [], start=0, end=5, dtype="int32"),
                  b.deduce(lambda: op.arange(0, 5, 1, "int32")))
    b.assert_same_at(deduce("full", [], shape=(2, N), fill_value=fill_var("float16")),
                  b.deduce(lambda f: op.full((2, n), f), tensor((), "float16")))
    b.assert_same_at(deduce("full", [], shape=(2, N), fill_value=fill_var(), dtype="int32"),
                  b.deduce(lambda f: op.full((2, n), f, "int32"), tensor(())))
    b.assert_same_at(deduce("zeros", [], shape=(N, 3), dtype="bool"),
                  b.deduce(lambda: op.zeros((n, 3), "bool")))
    b.assert_same_at(deduce("ones", [], shape=(N,), dtype="int8"),
                  b.deduce(lambda: op.ones((n,), "int8")))
    x = tensor((2, N, 4))
    for name in ("ones_like", "zeros_like"):
        b.assert_same_at(deduce(name, [x], dtype="int8"),
                      b.deduce(lambda v: getattr(op, name)(v, "int8"), x))
    b.assert_same_at(deduce("full_like", [x, tensor((), "int32")]),
                  b.deduce(lambda v, f: op.full_like(v, f), x, tensor((), "int32")))
    b.assert_same_at(deduce("eye", [], n=3, m=N, k=1), b.deduce(lambda: op.eye(3, n, 1)))
    b.assert_same_at(deduce("tril", [x], k=1), b.deduce(lambda v: op.tril(v, 1), x))
    b.assert_same_at(deduce("triu", [tensor(None)]), b.deduce(lambda v: op.triu(v), tensor(None)))
    assert b.raises(lambda v: op.tril(v), tensor((3,)))
    assert b.raises(lambda f: op.full((2, 3), f), tensor((2,)))


@pytest.mark.tvm
def test_known_differences_from_tvm():
    """spec/ops/create.md, "Differences from TVM"."""
    b = TvmBridge()
    op = b.relax.op
    # D1: negative steps: TVM's (end - start + step - 1) // step gives 6, NumPy 5.
    assert their_dims(b.deduce(lambda: op.arange(10, 0, -2))) == (6,)
    assert dims(deduce("arange", [], start=10, end=0, step=-2)) == (5,)
    # D2: empty ranges: TVM deduces a negative length.
    assert their_dims(b.deduce(lambda: op.arange(5, 0, 1))) == (-5,)
    assert dims(deduce("arange", [], start=5, end=0, step=1)) == (0,)


@pytest.mark.tvm
def test_numbers_agree_with_tvm_legalized_kernels():
    b = TvmBridge()
    op = b.relax.op
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    fill = np.array(2.5, "float32")
    cases = [
        (lambda: op.arange(1, 10, 3, "int32"), [], ("arange", prim(1), prim(10), prim(3)),
         {"dtype": "int32"}),
        (lambda: op.arange(0.5, 2.0, 0.25), [], ("arange", prim(0.5, F64), prim(2.0, F64),
                                                  prim(0.25, F64)), {}),
        (lambda f: op.full((2, 3), f, "int32"), [fill], ("full", ShapeValue((2, 3)), fill),
         {"dtype": "int32"}),
        (lambda v: op.tril(v, 1), [x], ("tril", x, prim(1)), {}),
        (lambda v: op.triu(v, -1), [x], ("triu", x, prim(-1)), {}),
        (lambda v: op.ones_like(v, "int8"), [x], ("ones_like", x), {"dtype": "int8"}),
        (lambda: op.eye(3, 4, 1, "float32"), [], ("eye", prim(3), prim(4), prim(1)), {}),
    ]
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _, _ in cases])
    for (_, _, (name, *values), attrs), their in zip(cases, theirs):
        ours = compute(name, *values, **attrs)
        assert ours.dtype == their.dtype, name
        np.testing.assert_array_equal(ours, their, err_msg=name)
