"""Gradient ops (spec/ops/gradient.md): the markers, take_backward and
nll_loss_backward: deduction with TVM's result and our operand checks, NumPy semantics
against independent loops, traps, and the lowerings through ``check_pass(LegalizeOps)``
at several values of each symbolic dimension."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype

from .helpers import assert_tensor, check_same, compute, deduce, raises_rule, sym, tensor, traps
from .legalize_helpers import check_lowered, module

n, m = sym("n"), sym("m")
I64 = "int64"


def test_markers():
    s = si.TupleStructInfo((tensor((n,)), si.PrimStructInfo(parse_dtype("int64"))))
    assert deduce("grad.no_grad", [s]) == s
    assert_tensor(deduce("grad.start_checkpoint", [tensor((n, 2))]), (n, 2))
    with raises_rule("SI-grad-mark-2"):
        deduce("grad.end_checkpoint", [tensor((2,))], args=[rx.Tuple(())])
    x = np.arange(3.0)
    assert compute("grad.no_grad", x) is x
    check_lowered(module('x: R.Tensor(("n", 4), "float32")', '''a = R.grad.start_checkpoint(x)
b = R.grad.no_grad(a)
y = R.grad.end_checkpoint(b)'''), "relax.grad.no_grad")


def test_take_backward_deduction():
    assert_tensor(deduce("grad.take_backward", [tensor((n, 3)), tensor((n, 4)),
                                                tensor((3,), I64)], axis=1), (n, 4))
    with raises_rule("SI-grad-take-2"):
        deduce("grad.take_backward", [tensor((n, 2)), tensor((n, 4)), tensor((3,), I64)],
               axis=1)
    with raises_rule("SI-grad-take-2"):
        deduce("grad.take_backward", [tensor((3,)), tensor((4,)), tensor((3,), "float32")])
    with raises_rule("SI-grad-take-2"):
        deduce("grad.take_backward", [tensor((3,)), tensor((2, 4)), tensor((3,), I64)])
    # TVM 0.27 prints mode="" (SI-grad-take-1); no other mode exists for it
    assert_tensor(deduce("grad.take_backward", [tensor((n, 3)), tensor((n, 4)),
                                                tensor((3,), I64)], axis=1, mode=""), (n, 4))
    with raises_rule("SI-call-1"):
        deduce("grad.take_backward", [tensor((3,)), tensor((4,)), tensor((3,), I64)],
               mode="clip")


def test_take_backward_semantics_sums_repeats():
    x = np.zeros((2, 4), "float32")
    i = np.array([[3, 1], [3, 3]])
    g = np.arange(8, dtype="float32").reshape(2, 2, 2)
    want = np.zeros((2, 4), "float32")
    for r in range(2):
        for a in range(2):
            for b in range(2):
                want[r, i[a, b]] += g[r, a, b]
    check_same(compute("grad.take_backward", g, x, i, axis=1), want)
    with traps("index_out_of_bounds", "EXEC-grad-take-1"):
        compute("grad.take_backward", g, x, np.array([[4, 0], [0, 0]]), axis=1)
    with traps("shape_mismatch", "EXEC-grad-take-1"):
        compute("grad.take_backward", g, x, np.array([1, 2]), axis=1)


def test_take_backward_lowered():
    check_lowered(module('g: R.Tensor(("n", 3), "float32"), x: R.Tensor(("n", 4), "float32"), '
                         'i: R.Tensor((3,), "int64")',
                         'j = R.floor_mod(i, R.const(4, "int64"))\n'
                         'y = R.grad.take_backward(g, x, j, axis=1)'), "relax.grad.take_backward")
    check_lowered(module('g: R.Tensor(("m",), "int32"), x: R.Tensor((5,), "int32"), '
                         'i: R.Tensor(("m",), "int32")',
                         'j = R.floor_mod(i, R.const(5, "int32"))\n'
                         'y = R.grad.take_backward(g, x, j)'), "relax.grad.take_backward")
    # output_grad's m rows are take's n only at run time: the PrimFunc asserts it
    out = check_lowered(module('g: R.Tensor(("m", 3), "float32"), x: R.Tensor(("n", 4), "float32"), '
                               'i: R.Tensor((3,), "int64")',
                               'j = R.floor_mod(i, R.const(4, "int64"))\n'
                               'y = R.grad.take_backward(g, x, j, axis=1)'),
                        "relax.grad.take_backward").script()
    assert "assert m == n," in out, out


def _nll_grad(g, pred, t, w, reduction, ignore):
    """The formula written out per element (classes on axis 1)."""
    n_, c_ = pred.shape[0], pred.shape[1]
    rest = pred.shape[2:]
    wt = np.zeros(t.shape, pred.dtype)
    for p in np.ndindex(*t.shape):
        wt[p] = 0 if t[p] == ignore else w[t[p]]
    total = np.float32(0)
    for p in np.ndindex(*t.shape):
        total = np.float32(total + wt[p])
    out = np.zeros(pred.shape, pred.dtype)
    for p in np.ndindex(*t.shape):
        gp = g[p] if reduction == "none" else g[()]
        if reduction == "mean":
            gp = np.float32(gp / total)
        for c in range(c_):
            if c == t[p]:
                out[(p[0], c) + p[1:]] = np.float32(np.float32(0 - wt[p]) * gp)
    return out


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_backward_semantics(reduction):
    pred = np.zeros((3, 4, 2), "float32")
    t = np.array([[0, 3], [2, 2], [1, -100]])
    w = np.array([0.5, 1.0, 2.0, 4.0], "float32")
    g = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32") if reduction == "none" \
        else np.array(1.5, "float32")
    check_same(compute("grad.nll_loss_backward", g, pred, t, w, reduction=reduction),
               _nll_grad(g, pred, t, w, reduction, -100))


def test_nll_loss_backward_checks():
    pred = np.zeros((2, 3), "float32")
    with traps("index_out_of_bounds", "EXEC-grad-nll-1"):
        compute("grad.nll_loss_backward", np.array(1.0, "float32"), pred, np.array([0, 3]))
    with traps("shape_mismatch", "EXEC-grad-nll-1"):
        compute("grad.nll_loss_backward", np.array(1.0, "float32"), pred, np.array([0]))
    with raises_rule("SI-grad-nll-2"):
        deduce("grad.nll_loss_backward", [tensor(()), tensor((2, 3)), tensor((3,), I64)])
    with raises_rule("SI-grad-nll-2"):
        deduce("grad.nll_loss_backward", [tensor((2,)), tensor((2, 3)), tensor((2,), I64)])
    with raises_rule("SI-grad-nll-2"):
        deduce("grad.nll_loss_backward", [tensor(()), tensor((2, 3), "int32"),
                                          tensor((2,), I64)])
    assert_tensor(deduce("grad.nll_loss_backward", [tensor((n,)), tensor((n, 3)),
                                                    tensor((n,), I64)], reduction="none"),
                  (n, 3))


@pytest.mark.parametrize("reduction,ignore", [("mean", 2), ("sum", -100), ("none", 0)])
def test_nll_loss_backward_lowered(reduction, ignore):
    g = '("n", 2)' if reduction == "none" else "()"
    check_lowered(module(f'g: R.Tensor({g}, "float32"), p: R.Tensor(("n", 4, 2), "float32"), '
                         't: R.Tensor(("n", 2), "int64"), w: R.Tensor((4,), "float32")',
                         't2 = R.floor_mod(t, R.const(4, "int64"))\n'
                         f'y = R.grad.nll_loss_backward(g, p, t2, w, reduction="{reduction}", '
                         f'ignore_index={ignore})'), "relax.grad.nll_loss_backward")
    check_lowered(module('g: R.Tensor((), "float32"), p: R.Tensor((4,), "float32"), '
                         't: R.Tensor((), "int64")',
                         't2 = R.floor_mod(t, R.const(4, "int64"))\n'
                         'y = R.grad.nll_loss_backward(g, p, t2)'), "relax.grad.nll_loss_backward")


def test_nll_loss_backward_guards_shapes_that_may_differ():
    # targets (m, 2), output_grad (k, 2) and weights (c,) against predictions (n, 4, 2):
    # EXEC-grad-nll-1's shape_mismatch checks are the PrimFunc's asserts
    out = check_lowered(module('g: R.Tensor(("k", 2), "float32"), p: R.Tensor(("n", 4, 2), "float32"), '
                               't: R.Tensor(("m", 2), "int64"), w: R.Tensor(("c",), "float32")',
                               't2 = R.floor_mod(t, R.const(4, "int64"))\n'
                               'y = R.grad.nll_loss_backward(g, p, t2, w, reduction="none")'),
                        "relax.grad.nll_loss_backward").script()
    assert out.count("assert ") == 3, out


# -- pool gradients ---------------------------------------------------------------------------

def _max_pool_grad(g, x, k, s, pad):
    """Each window's gradient to its first largest in-bounds element (NCHW loops)."""
    out = np.zeros_like(x)
    n_, c_, h, w = x.shape
    for a, b, p, q in np.ndindex(*g.shape):
        best = None
        for i in range(k[0]):
            for j in range(k[1]):
                r, t = p * s[0] - pad[0] + i, q * s[1] - pad[1] + j
                if 0 <= r < h and 0 <= t < w and (best is None or x[a, b, r, t] > x[a, b][best]):
                    best = (r, t)
        if best is not None:
            out[a, b][best] += g[a, b, p, q]
    return out


def test_max_pool2d_backward_semantics_first_of_ties():
    x = np.array([[[[1, 3, 3, 0], [2, 3, 1, 1], [0, 0, 5, 5], [0, 1, 5, 2]]]], "float32")
    g = np.array([[[[1.0, 2.0], [4.0, 8.0]]]], "float32")
    check_same(compute("grad.max_pool2d_backward", g, x, pool_size=(2, 2), strides=(2, 2)),
               _max_pool_grad(g, x, (2, 2), (2, 2), (0, 0)))
    g3 = np.arange(1, 5, dtype="float32").reshape(1, 1, 2, 2)
    check_same(compute("grad.max_pool2d_backward", g3, x, pool_size=(3, 3), strides=(2, 2),
                       padding=(1, 1)),
               _max_pool_grad(g3, x, (3, 3), (2, 2), (1, 1)))


def test_avg_pool2d_backward_semantics():
    x = np.zeros((1, 1, 3, 3), "float32")
    g = np.array([[[[4.0, 8.0], [12.0, 16.0]]]], "float32")
    want = np.zeros((1, 1, 3, 3), "float32")
    for p in range(2):
        for q in range(2):
            cells = [(r, t) for r in range(p * 2 - 1, p * 2 + 1) for t in range(q * 2 - 1, q * 2 + 1)
                     if 0 <= r < 3 and 0 <= t < 3]
            for r, t in cells:
                want[0, 0, r, t] += g[0, 0, p, q] / len(cells)
    check_same(compute("grad.avg_pool2d_backward", g, x, pool_size=(2, 2), strides=(2, 2),
                       padding=(1, 1)), want)
    with traps("shape_mismatch", "EXEC-grad-pool-1"):
        compute("grad.avg_pool2d_backward", g, np.zeros((1, 1, 6, 6), "float32"),
                pool_size=(2, 2), strides=(2, 2))


def test_pool2d_backward_deduction():
    assert_tensor(deduce("grad.max_pool2d_backward", [tensor((n, 2, 2, 2)), tensor((n, 2, 4, 4))],
                         pool_size=(2, 2), strides=(2, 2)), (n, 2, 4, 4))
    with raises_rule("SI-grad-pool-2"):
        deduce("grad.max_pool2d_backward", [tensor((n, 2, 3, 3)), tensor((n, 2, 4, 4))],
               pool_size=(2, 2), strides=(2, 2))
    with raises_rule("SI-grad-pool-2"):
        deduce("grad.avg_pool2d_backward", [tensor((1, 1, 1, 1)), tensor((1, 1, 1, 1))],
               layout="NCHW16c")


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("attrs,gshape,xshape", [
    ("pool_size=(2, 2), strides=(2, 2)", '("n", 2, 2, 2)', '("n", 2, 4, 4)'),
    ("pool_size=(3, 3), strides=(2, 1), padding=(1, 1, 1, 1), count_include_pad=True",
     '("n", 2, 3, 5)', '("n", 2, 5, 5)'),
    ("pool_size=(2, 3), strides=(2, 2), padding=(0, 1), ceil_mode=True",
     '("n", 2, 3, 3)', '("n", 2, 5, 5)'),
    ('pool_size=(2, 2), layout="NHWC"', '("n", 4, 4, 2)', '("n", 5, 5, 2)')])
def test_pool2d_backward_lowered(kind, attrs, gshape, xshape):
    check_lowered(module(f'g: R.Tensor({gshape}, "float32"), x: R.Tensor({xshape}, "float32")',
                         f"y = R.grad.{kind}_pool2d_backward(g, x, {attrs})"),
                  f"relax.grad.{kind}_pool2d_backward")


def test_max_pool2d_backward_lowered_on_ties():
    text = module('g: R.Tensor(("n", 1, 2, 2), "int32"), x: R.Tensor(("n", 1, 4, 4), "int32")',
                  'x2 = R.floor_mod(x, R.const(2, "int32"))\n'
                  'y = R.grad.max_pool2d_backward(g, x2, pool_size=(2, 2), strides=(2, 2))')
    check_lowered(text, "relax.grad.max_pool2d_backward")


def test_nll_loss_backward_lowered_traps_an_out_of_range_target():
    import relax_ref
    from relax_ref.errors import RuntimeCheckError
    from relax_ref.passes.legalize_ops import legalize_ops

    text = module('g: R.Tensor((), "float32"), p: R.Tensor((2, 3), "float32"), '
                  't: R.Tensor((2,), "int64")', 'y = R.grad.nll_loss_backward(g, p, t)')
    mod = relax_ref.check(relax_ref.from_source(text))
    args = (np.array(1.0, "float32"), np.zeros((2, 3), "float32"), np.array([0, 3]))
    for m_ in (mod, legalize_ops(mod)):
        with pytest.raises(RuntimeCheckError) as err:
            relax_ref.run(m_, *args)
        assert err.value.check == "index_out_of_bounds"


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool2d_backward_lowered_with_symbolic_spatial_dims(kind):
    # output_grad's a rows are the pool's h // 2 only at run time: EXEC-grad-pool-1's
    # shape_mismatch is the PrimFunc's assert, which check_pass meets where it holds
    # (a = 1, h = 2 or 3) and where it fails
    text = module('g: R.Tensor((1, 2, "a", 2), "float32"), x: R.Tensor((1, 2, "h", 4), "float32")',
                  f'y = R.grad.{kind}_pool2d_backward(g, x, pool_size=(2, 2), strides=(2, 2))')
    out = check_lowered(text, f"relax.grad.{kind}_pool2d_backward").script()
    assert "assert a == h // T.int64(2)," in out, out
    # the pool's own output: proved, no assert
    text = module('x: R.Tensor((1, 2, "h", "w"), "float32")',
                  f'''p = R.nn.{kind}_pool2d(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
y = R.grad.{kind}_pool2d_backward(p, x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))''')
    assert "assert" not in check_lowered(text, f"relax.grad.{kind}_pool2d_backward").script()
