"""Conformance cases of the `ops` area for convolutions in split layouts (spec/ops/nn.md
SI-nn-layout-1, -2: TVM's NCHW4c / OIHW4o, as its ConvertLayout writes them). Expected
outputs come from a direct loop over the split indices here, not from a layout change."""
from __future__ import annotations

import numpy as np

from generate import Case, ok, tensor
from gen_ops import AREA, ann, module


def _conv_nchw4c(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """out[n, o0, y, z, oi] = sum over c0, ci, ky, kx of
    x[n, c0, y + ky, z + kx, ci] * w[o0, 4 * c0 + ci, ky, kx, oi] (float64, then float32)."""
    n, c0, h, wd, _ = x.shape
    o0, _, kh, kw, _ = w.shape
    out = np.zeros((n, o0, h - kh + 1, wd - kw + 1, 4))
    for idx in np.ndindex(out.shape):
        b, oo, y, z, oi = idx
        acc = 0.0
        for cc in range(c0):
            for ci in range(4):
                for ky in range(kh):
                    for kx in range(kw):
                        acc += float(x[b, cc, y + ky, z + kx, ci]) * \
                            float(w[oo, 4 * cc + ci, ky, kx, oi])
        out[idx] = acc
    return out.astype("float32")


def cases() -> list[Case]:
    rng = np.random.default_rng(44)
    x = rng.uniform(-1, 1, (1, 2, 4, 4, 4)).astype("float32")
    w = rng.uniform(-1, 1, (2, 8, 3, 3, 4)).astype("float32")
    text = module([("x", ann((1, 2, 4, 4, 4))), ("w", ann((2, 8, 3, 3, 4)))],
                  'y = R.nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="OIHW4o", '
                  'out_layout="NCHW4c")')
    return [Case(AREA, "conv2d_split_layout_nchw4c", text,
                 runs=[ok([tensor(x), tensor(w)], [tensor(_conv_nchw4c(x, w))], rtol=1e-5,
                          atol=1e-5)],
                 covers=["relax.nn.conv2d", "SI-nn-layout-1", "SI-nn-layout-2"],
                 description="conv2d in TVM's split layouts NCHW4c / OIHW4o: channel "
                             "c = 4 * c0 + ci, the inner index fastest.")]
