"""The 1-d and 3-d pools (spec/ops/nn.md "Pooling"): max_pool1d/3d, avg_pool1d/3d,
adaptive_avg_pool1d/3d share the 2-d rules at another spatial rank. Deduction (static,
symbolic, unknown, errors), NumPy semantics against loops over each window, lowering at
several symbolic values, and TVM 0.27's deduction and compiled kernels."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from .helpers import compute, deduce, dims, fails, sym, tensor, texts, traps
from .legalize_helpers import check_lowered, module
from .tvm_bridge import TvmBridge

N = sym("n")
RNG = np.random.default_rng(11)


def randn(*shape):
    return RNG.standard_normal(shape).astype("float32")


def pool_ref(x, kind, k, s, pad, d, include_pad=False):
    """Each window's positions enumerated (no ceil mode); padding is what lies outside."""
    nsp = x.ndim - 2
    sizes = x.shape[2:]
    outs = [(sizes[a] + pad[a] + pad[a + nsp] - d[a] * (k[a] - 1) - 1) // s[a] + 1
            for a in range(nsp)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for y in itertools.product(*(range(o) for o in outs)):
        taps = [[y[a] * s[a] - pad[a] + t * d[a] for t in range(k[a])] for a in range(nsp)]
        inside = [p for p in itertools.product(*taps)
                  if all(0 <= p[a] < sizes[a] for a in range(nsp))]
        vals = [x[(slice(None), slice(None), *p)].astype(np.float64) for p in inside]
        if kind == "max":
            if len(inside) < np.prod(k):
                vals.append(np.full(x.shape[:2], np.finfo(np.float32).min))
            out[(slice(None), slice(None), *y)] = np.max(vals, axis=0)
        else:
            if include_pad:
                count = np.prod([sum(-pad[a] <= t < sizes[a] + pad[a + nsp] for t in taps[a])
                                 for a in range(nsp)])
            else:
                count = max(len(inside), 1)
            out[(slice(None), slice(None), *y)] = sum(vals, np.zeros(x.shape[:2])) / count
    return out


def adaptive_ref(x, outs):
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for y in itertools.product(*(range(o) for o in outs)):
        box = tuple(slice(i * n // o, -(-(i + 1) * n // o)) for i, n, o in zip(y, sizes, outs))
        out[(slice(None), slice(None), *y)] = x[(slice(None), slice(None), *box)].mean(
            axis=tuple(range(2, x.ndim)))
    return out


def test_pool_deduction():
    assert dims(deduce("nn.max_pool1d", [tensor((1, 3, 8))], pool_size=2, strides=2)) == (1, 3, 4)
    assert texts(deduce("nn.avg_pool1d", [tensor((1, 3, N))], pool_size=3, padding=1)) \
        == ["1", "3", "n"]
    assert dims(deduce("nn.max_pool3d", [tensor((1, 2, 4, 5, 6))], pool_size=(2, 3, 1),
                       strides=2)) == (1, 2, 2, 2, 3)
    assert dims(deduce("nn.avg_pool3d", [tensor((1, 4, 5, 6, 2))], pool_size=2,
                       layout="NDHWC")) == (1, 3, 4, 5, 2)
    assert dims(deduce("nn.max_pool1d", [tensor((2, 2, 8, 4))], pool_size=2, strides=2,
                       layout="NCW4c", out_layout="NCW4c")) == (2, 2, 4, 4)
    assert deduce("nn.max_pool3d", [tensor(None)]).ndim == 5
    fails("SI-nn-pool-1", "nn.max_pool1d", [tensor((1, 3, 8))], pool_size=0)
    fails("SI-nn-layout-2", "nn.max_pool3d", [tensor((1, 3, 8, 8))])
    fails("SI-nn-layout-1", "nn.avg_pool1d", [tensor((1, 3, 8))], layout="NCH")
    fails("SI-nn-pool-3", "nn.max_pool1d", [tensor((1, 3, 1))], pool_size=3)


def test_adaptive_pool_deduction():
    assert dims(deduce("nn.adaptive_avg_pool1d", [tensor((1, 3, N))], output_size=4)) \
        == (1, 3, 4)
    assert dims(deduce("nn.adaptive_avg_pool3d", [tensor((1, 3, N, 4, 5))])) == (1, 3, N, 4, 5)
    assert dims(deduce("nn.adaptive_avg_pool3d", [tensor((1, 4, 5, 6, 3))], output_size=(1, 2, 3),
                       layout="NDHWC", out_layout="NCDHW")) == (1, 3, 1, 2, 3)
    fails("SI-nn-adaptive_pool-1", "nn.adaptive_avg_pool1d", [tensor((1, 3, 4))],
          output_size=-1)
    fails("SI-nn-layout-2", "nn.adaptive_avg_pool1d", [tensor((1, 3, 4, 4))])


@pytest.mark.parametrize("kind,include", [("max", False), ("avg", False), ("avg", True)])
@pytest.mark.parametrize("shape,k,s,pad,d", [
    ((2, 3, 9), [3], [2], [1, 2], [1]), ((1, 2, 8), [2], [3], [0, 1], [2]),
    ((1, 2, 4, 5, 3), [2, 3, 1], [2, 1, 1], [1, 0, 1, 1, 1, 0], [1, 1, 2])])
def test_pool_semantics(kind, include, shape, k, s, pad, d):
    x = randn(*shape)
    nsp = len(shape) - 2
    got = compute(f"nn.{kind}_pool{nsp}d", x, pool_size=k, strides=s, padding=pad, dilation=d,
                  count_include_pad=include)
    np.testing.assert_allclose(got, pool_ref(x, kind, k, s, pad, d, include), rtol=1e-5,
                               atol=1e-6)


def test_pool_ceil_mode_integers_and_traps():
    x = np.arange(5, dtype="int32").reshape(1, 1, 5)
    np.testing.assert_array_equal(
        compute("nn.max_pool1d", x, pool_size=2, strides=2, ceil_mode=True), [[[1, 3, 4]]])
    np.testing.assert_array_equal(compute("nn.avg_pool1d", -x, pool_size=2, strides=2),
                                  [[[0, -2]]])
    with traps("shape_mismatch", "EXEC-nn-pool-1"):
        compute("nn.max_pool3d", np.zeros((1, 2, 3, 3), "float32"))


@pytest.mark.parametrize("shape,outs", [((2, 3, 7), (3,)), ((1, 2, 5, 3, 4), (2, 2, 3)),
                                        ((1, 1, 4, 4, 4), (4, 1, 4))])
def test_adaptive_pool_semantics(shape, outs):
    x = randn(*shape)
    got = compute(f"nn.adaptive_avg_pool{len(shape) - 2}d", x, output_size=outs)
    np.testing.assert_allclose(got, adaptive_ref(x, outs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,params,attrs", [
    ("max_pool1d", '(1, 2, "w"), "float32"', "pool_size=3, strides=2, padding=[1, 1]"),
    ("avg_pool1d", '(1, 2, "w"), "int32"', "pool_size=2, strides=1, padding=[1, 1], "
                                           "ceil_mode=True"),
    ("max_pool3d", '(1, "d", 3, 3, 2), "float32"', 'pool_size=[1, 2, 2], padding=[0, 1, 1], '
                                                    'layout="NDHWC"'),
    ("avg_pool3d", '(1, 1, "d", 3, 2), "float16"', "pool_size=[1, 2, 2], strides=2, "
                                                    "padding=[0, 1, 0], count_include_pad=True"),
    ("adaptive_avg_pool1d", '(1, 2, "w"), "float32"', "output_size=[2]"),
    ("adaptive_avg_pool3d", '(1, 2, "d", 3, 4), "float32"', "output_size=[2, 2, 3]"),
])
def test_pools_lower(op, params, attrs):
    check_lowered(module(f"x: R.Tensor({params})", f"y = R.nn.{op}(x, {attrs})"),
                  f"relax.nn.{op}")


def test_pools_agree_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    x1, x3 = randn(2, 3, 9), randn(1, 2, 4, 5, 3)
    cases = [
        (lambda d: nn_.max_pool1d(d, 3, 2, (1, 2), ceil_mode=True), [x1],
         ("max_pool1d", dict(pool_size=3, strides=2, padding=(1, 2), ceil_mode=True))),
        (lambda d: nn_.avg_pool1d(d, 2, 3, (0, 1), 2), [x1],
         ("avg_pool1d", dict(pool_size=2, strides=3, padding=(0, 1), dilation=2))),
        (lambda d: nn_.max_pool3d(d, (2, 3, 1), (2, 1, 1), 1), [x3],
         ("max_pool3d", dict(pool_size=(2, 3, 1), strides=(2, 1, 1), padding=1))),
        (lambda d: nn_.avg_pool3d(d, 2, 1, (1, 0, 1, 0, 1, 0), count_include_pad=True), [x3],
         ("avg_pool3d", dict(pool_size=2, padding=(1, 0, 1, 0, 1, 0), count_include_pad=True))),
        (lambda d: nn_.adaptive_avg_pool1d(d, 4), [x1], ("adaptive_avg_pool1d",
                                                         dict(output_size=4))),
        (lambda d: nn_.adaptive_avg_pool3d(d, (3, 2, 2)), [x3],
         ("adaptive_avg_pool3d", dict(output_size=(3, 2, 2)))),
    ]
    theirs = b.run_legalized_many([(build, arrays) for build, arrays, _ in cases])
    for (_, arrays, (name, attrs)), got in zip(cases, theirs):
        np.testing.assert_allclose(compute(f"nn.{name}", *arrays, **attrs), got, rtol=1e-5,
                                   atol=1e-6, err_msg=name)


def test_pool_deduction_agrees_with_tvm():
    b = TvmBridge()
    nn_ = b.relax.op.nn
    x1, x3 = tensor((N, 3, N)), tensor((1, 2, N, 5, 3))
    cases = [("max_pool1d", x1, dict(pool_size=3, strides=2, padding=1, ceil_mode=True)),
             ("avg_pool1d", x1, dict(pool_size=2)),
             ("max_pool3d", x3, dict(pool_size=2, strides=2)),
             ("avg_pool3d", x3, dict(pool_size=(1, 2, 2), padding=1, ceil_mode=True)),
             ("adaptive_avg_pool1d", x1, dict(output_size=2)),
             ("adaptive_avg_pool3d", x3, dict(output_size=(1, 2, 3)))]
    for name, x, kw in cases:
        build = getattr(nn_, name)
        b.assert_same_at(deduce(f"nn.{name}", [x], **kw),
                         b.deduce(lambda d, build=build, kw=kw: build(d, **kw), x))
