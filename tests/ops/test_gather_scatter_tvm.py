"""Cross-checks of the gather, scatter and gradient ops against Apache TVM 0.27: the
same struct info where TVM deduces one (shapes proved equal), and the same numbers from
TVM's legalized kernels on in-range indices without duplicates (where TVM's parallel
loops have one result)."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx

from .helpers import check_same, compute, deduce
from .tvm_bridge import TvmBridge

I64 = "int64"


def _cases():
    def two(op, x_dims, i_dims, i_dtype=I64, **attrs):
        def build(b):
            (xs, xv), (is_, iv) = b.tensor(x_dims), b.tensor(i_dims, i_dtype)
            return (deduce(op, [xs, is_], **attrs),
                    b.their_sinfo(getattr(b.relax.op, op)(xv, iv, **attrs)))
        return build

    def scatter(op, x_dims, i_dims, u_dims, **attrs):
        def build(b):
            (xs, xv), (is_, iv), (us, uv) = b.tensor(x_dims), b.tensor(i_dims, I64), \
                b.tensor(u_dims)
            return (deduce(op, [xs, is_, us], **attrs),
                    b.their_sinfo(getattr(b.relax.op, op)(xv, iv, uv, **attrs)))
        return build

    def index_tensor(x_dims, *index_dims):
        def build(b):
            xs, xv = b.tensor(x_dims)
            idx = [b.tensor(d, I64) for d in index_dims]
            fields = rx.Tuple(tuple(rx.Var(f"i{k}", s) for k, (s, _) in enumerate(idx)))
            ours = deduce("index_tensor", [xs, None], args=[None, fields])
            return ours, b.their_sinfo(b.relax.op.index_tensor(xv, [v for _, v in idx]))
        return build

    return [
        ("gather_elements", two("gather_elements", ("n", 4), ("n", 2), axis=1)),
        ("gather_elements ndim", two("gather_elements", ("n", 4), 2, "int32")),
        ("gather_nd", two("gather_nd", ("n", 3, 4), ("m", 2))),
        ("gather_nd batch", two("gather_nd", ("n", 3, 4), ("n", 1), batch_dims=1)),
        ("scatter_elements", scatter("scatter_elements", ("n", 4), ("m", 2), ("m", 2))),
        ("scatter_nd", scatter("scatter_nd", ("n", 4), ("m", 1), ("m", 4))),
        ("index_tensor", index_tensor(("n", 4, 5), ("m", 1), (3,))),
    ]


@pytest.mark.tvm
@pytest.mark.parametrize("name,build", _cases(), ids=[c[0] for c in _cases()])
def test_deduction_matches_tvm(name, build):
    bridge = TvmBridge()
    ours, theirs = build(bridge)
    bridge.assert_same(ours, theirs)


@pytest.mark.tvm
def test_numbers_match_tvms_kernels():
    b = TvmBridge()
    op = b.relax.op
    rng = np.random.default_rng(7)
    x = rng.integers(-9, 9, (3, 4)).astype("float32")
    gi = np.array([[3, 0], [1, 1], [0, 2]], I64)
    si_ = np.array([[2, 0], [1, 3], [0, 1]], I64)  # distinct targets per row
    u = rng.integers(-9, 9, (3, 2)).astype("float32")
    nd = np.array([[2, 1], [0, 3]], I64)
    rows = np.array([[1], [0]], I64)
    ur = rng.integers(-9, 9, (2, 4)).astype("float32")
    s = rng.integers(-9, 9, (3, 2)).astype("float32")
    cases = [
        (lambda a, i: op.gather_elements(a, i, 1), (x, gi),
         compute("gather_elements", x, gi, axis=1)),
        (lambda a, i: op.gather_nd(a, i), (x, nd), compute("gather_nd", x, nd)),
        (lambda a, i, v: op.scatter_elements(a, i, v, 1, "add"), (x, si_, u),
         compute("scatter_elements", x, si_, u, axis=1, reduction="add")),
        (lambda a, i, v: op.scatter_nd(a, i, v, "mul"), (x, rows, ur),
         compute("scatter_nd", x, rows, ur, reduction="mul")),
        (lambda a, v: op.slice_scatter(a, v, 1, 4, 2, axis=1), (x, s),
         compute("slice_scatter", x, s, *(np.int64(v) for v in (1, 4, 2)), axis=1)),
    ]
    got = b.run_legalized_many([(build, arrays) for build, arrays, _ in cases])
    for (_, _, want), theirs in zip(cases, got):
        check_same(want, theirs)
