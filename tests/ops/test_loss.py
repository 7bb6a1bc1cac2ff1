"""nll_loss and cross_entropy_with_logits (spec/ops/nn.md "nll_loss,
cross_entropy_with_logits"): deduction (static, symbolic, unknown, errors), NumPy
semantics against loops, lowering at several symbolic values, and TVM 0.27's deduction
and compiled kernels."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import compute, deduce, dims, fails, sym, tensor, traps
from .legalize_helpers import check_lowered, module
from .tvm_bridge import TvmBridge

N, C = sym("n"), sym("c")
RNG = np.random.default_rng(5)


def nll_ref(pred, tgt, w, reduction, ignore):
    """One target at a time, in float64."""
    w = np.ones(pred.shape[0] if pred.ndim == 1 else pred.shape[1]) if w is None else w
    loss = np.zeros(tgt.shape)
    wsum = 0.0
    for idx in np.ndindex(*tgt.shape):
        t = int(tgt[idx])
        if t == ignore:
            continue
        p = pred[t] if pred.ndim == 1 else pred[(idx[0], t, *idx[1:])]
        loss[idx] = -float(p) * float(w[t])
        wsum += float(w[t])
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / wsum


def test_nll_loss_deduction():
    p, t, w = tensor((N, C, 4)), tensor((N, 4), "int64"), tensor((C,))
    assert dims(deduce("nn.nll_loss", [p, t, w], reduction="none")) == (N, 4)
    assert dims(deduce("nn.nll_loss", [p, t])) == ()
    assert dims(deduce("nn.nll_loss", [tensor((5,)), tensor((), "int32")],
                       reduction="none")) == ()
    assert deduce("nn.nll_loss", [tensor(3), tensor(None, "int32")], reduction="none").ndim == 2
    assert deduce("nn.nll_loss", [tensor(None), tensor(None, "int32")]).ndim == 0
    fails("SI-nn-nll_loss-1", "nn.nll_loss", [p, tensor((N, 4))])
    fails("SI-nn-nll_loss-1", "nn.nll_loss", [tensor((2, 3), "int32"), tensor((2,), "int32")])
    fails("SI-op-dtype-1", "nn.nll_loss", [p, t, tensor((C,), "float16")])
    fails("SI-nn-nll_loss-2", "nn.nll_loss", [tensor((2, 3)), tensor((2, 1), "int32")])
    fails("SI-nn-nll_loss-2", "nn.nll_loss", [tensor((3,)), tensor((2,), "int32")])
    fails("SI-nn-nll_loss-2", "nn.nll_loss", [p, t, tensor((1, 3))])
    fails("SI-nn-nll_loss-3", "nn.nll_loss", [tensor((2, 3, 4)), tensor((2, 5), "int32")])
    fails("SI-nn-nll_loss-3", "nn.nll_loss", [tensor((2, 3)), tensor((2,), "int32"),
                                              tensor((4,))])
    fails("SI-call-1", "nn.nll_loss", [p, t], reduction="max")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape,weighted", [((4, 3), True), ((2, 3, 2, 2), False),
                                            ((5,), True)])
def test_nll_loss_semantics(reduction, shape, weighted):
    pred = RNG.standard_normal(shape).astype("float32")
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else shape[:1] + shape[2:]
    tgt = RNG.integers(0, c, tshape).astype("int64")
    if tgt.ndim:
        tgt.flat[0] = -100    # ignored
    w = RNG.uniform(0.5, 2, c).astype("float32") if weighted else None
    args = [pred, tgt] + ([w] if weighted else [])
    got = compute("nn.nll_loss", *args, reduction=reduction)
    np.testing.assert_allclose(got, nll_ref(pred, tgt, w, reduction, -100), rtol=1e-5,
                               atol=1e-6)


def test_nll_loss_ignored_everywhere_and_traps():
    pred = np.ones((2, 3), "float32")
    assert np.isnan(compute("nn.nll_loss", pred, np.array([1, 1]), ignore_index=1))
    assert compute("nn.nll_loss", pred, np.array([1, 1]), reduction="sum", ignore_index=1) == 0
    with traps("index_out_of_bounds", "EXEC-nn-nll_loss-1"):
        compute("nn.nll_loss", pred, np.array([0, 3]))
    with traps("shape_mismatch", "EXEC-nn-nll_loss-1"):
        compute("nn.nll_loss", pred, np.array([0, 1, 2]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_lowers(reduction):
    check_lowered(module('p: R.Tensor(("n", 3, "d"), "float32"), t: R.Tensor(("n", "d"), "int64"), '
                         'w: R.Tensor((3,), "float32")',
                         f'y = R.nn.nll_loss(p, t, w, reduction="{reduction}", ignore_index=1)'),
                  "relax.nn.nll_loss")
    check_lowered(module('p: R.Tensor(("c",), "float16"), t: R.Tensor((), "int32")',
                         f'y = R.nn.nll_loss(p, t, reduction="{reduction}")'), "relax.nn.nll_loss")


def test_cross_entropy_deduction_and_semantics():
    assert dims(deduce("nn.cross_entropy_with_logits", [tensor((N, 3)), tensor((N, 3))])) == ()
    assert dims(deduce("nn.cross_entropy_with_logits", [tensor(None), tensor(2)])) == ()
    fails("SI-nn-cross_entropy-1", "nn.cross_entropy_with_logits", [tensor(2), tensor(3)])
    fails("SI-nn-cross_entropy-1", "nn.cross_entropy_with_logits",
          [tensor((2,), "int32"), tensor((2,), "int32")])
    fails("SI-op-dtype-1", "nn.cross_entropy_with_logits",
          [tensor((2,)), tensor((2,), "float16")])
    fails("SI-nn-cross_entropy-2", "nn.cross_entropy_with_logits",
          [tensor((2, 3)), tensor((2, 4))])
    x, y = RNG.standard_normal((4, 3)).astype("float32"), RNG.random((4, 3)).astype("float32")
    np.testing.assert_allclose(compute("nn.cross_entropy_with_logits", x, y),
                               -(x.astype(np.float64) * y).sum() / 4, rtol=1e-5)
    np.testing.assert_allclose(compute("nn.cross_entropy_with_logits", x[0], y[0]),
                               -(x[0].astype(np.float64) * y[0]).sum(), rtol=1e-5)
    assert np.isnan(compute("nn.cross_entropy_with_logits", x[:0], y[:0]))
    with traps("shape_mismatch", "EXEC-nn-cross_entropy-1"):
        compute("nn.cross_entropy_with_logits", x, y[:2])


@pytest.mark.parametrize("shape", ['("n", 3)', '("n",)', '(2, "m", 2)'])
def test_cross_entropy_lowers(shape):
    check_lowered(module(f'x: R.Tensor({shape}, "float32"), y: R.Tensor({shape}, "float32")',
                         "y1 = R.nn.cross_entropy_with_logits(x, y)", "y1"),
                  "relax.nn.cross_entropy_with_logits")


def test_losses_guard_shapes_that_may_differ():
    """TE-leg-nn-11 with TE-leg-nn-1: shapes not provably equal are the PrimFunc's
    shape_mismatch guards; check_pass runs the symbolic values where they hold and fail."""
    out = check_lowered(module('x: R.Tensor((2, "a"), "float32"), y: R.Tensor((2, "b"), "float32")',
                               "z = R.nn.cross_entropy_with_logits(x, y)", "z"),
                        "relax.nn.cross_entropy_with_logits")
    assert "assert a == b" in out.script(), out.script()
    out = check_lowered(module('p: R.Tensor(("n", 3), "float32"), t: R.Tensor(("m",), "int64"), '
                               'w: R.Tensor(("k",), "float32")',
                               'y = R.nn.nll_loss(p, t, w, reduction="sum", ignore_index=1)'),
                        "relax.nn.nll_loss")
    assert out.script().count("assert ") == 2, out.script()


def test_losses_agree_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    pred = RNG.standard_normal((4, 3, 2)).astype("float32")
    tgt = RNG.integers(0, 3, (4, 2)).astype("int64")
    w = RNG.uniform(0.5, 2, 3).astype("float32")
    x, y = RNG.standard_normal((4, 3)).astype("float32"), RNG.random((4, 3)).astype("float32")
    cases = [(lambda p, t, w_, r=r: nn_.nll_loss(p, t, w_, r), [pred, tgt, w], r)
             for r in ("mean", "sum", "none")]
    cases.append((lambda p, t: nn_.nll_loss(p, t), [pred[..., 0], tgt[:, 0]], "mean"))
    cases.append((lambda u, v: nn_.cross_entropy_with_logits(u, v), [x, y], None))
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _ in cases])
    for (_, arrays, r), got in zip(cases, theirs):
        ours = (compute("nn.cross_entropy_with_logits", *arrays) if r is None else
                compute("nn.nll_loss", *arrays, reduction=r))
        np.testing.assert_allclose(ours, got, rtol=1e-5, atol=1e-6)


def test_loss_deduction_agrees_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    p, t, w = tensor((N, C, 4)), tensor((N, 4), "int64"), tensor((C,))
    for r in ("none", "mean"):
        b.assert_same_at(deduce("nn.nll_loss", [p, t, w], reduction=r),
                         b.deduce(lambda a, c, d, r=r: nn_.nll_loss(a, c, d, r), p, t, w))
    x = tensor((N, 3))
    b.assert_same_at(deduce("nn.cross_entropy_with_logits", [x, x]),
                     b.deduce(lambda u, v: nn_.cross_entropy_with_logits(u, v), x, x))
