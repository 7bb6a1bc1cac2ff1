"""Conformance cases (area ``ops``) for the nn and image ops of issue 20: batch_flatten,
pixel_shuffle, instance_norm, the transposed convolutions, conv3d, the 1-d and 3-d pools,
the losses and the image ops (spec/ops/nn.md, spec/ops/image.md). Each op has valid runs
and at least one invalid or trapping case.

Expected values come from the NumPy formulas below (loops over the definition), never
from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, trap
from gen_ops import AREA, T_, ann, fdata, idata, module

F32 = np.float32


def _case(out, name, params, body, runs, covers, desc, sym=()):
    out.append(Case(AREA, name, module(params, body, sym=sym), list(runs), "ok", None, desc,
                    list(covers)))


def _invalid(out, name, params, body, rule, covers, desc, sym=()):
    out.append(Case(AREA, name, module(params, body, sym=sym), [], "invalid", rule, desc,
                    list(covers) + [rule]))


# -- batch_flatten, pixel_shuffle ------------------------------------------------------------

def _shuffle_ref(x, r):
    *lead, c, h, w = x.shape
    out = np.empty((*lead, c // (r * r), h * r, w * r), x.dtype)
    for idx in np.ndindex(*out.shape):
        *b, co, ho, wo = idx
        out[idx] = x[(*b, co * r * r + (ho % r) * r + wo % r, ho // r, wo // r)]
    return out


def _rearrange(out):
    x = fdata((2, 3, 4), 3001)
    flat = np.array([[x[n, i // 4, i % 4] for i in range(12)] for n in range(2)], F32)
    _case(out, "batch_flatten_3d", [("x", ann(("n", 3, 4)))], "y = R.nn.batch_flatten(x)",
          [ok([T_(x)], [T_(flat)]), ok([T_(np.zeros((0, 3, 4), F32))],
                                       [T_(np.zeros((0, 12), F32))])],
          ["relax.nn.batch_flatten", "SI-nn-batch_flatten-2", "EXEC-nn-batch_flatten-1"],
          "batch_flatten of (n, 3, 4) is (n, 12) in row-major order (n = 2 and n = 0)",
          sym=("n",))
    _invalid(out, "batch_flatten_1d", [("x", ann((4,)))], "y = R.nn.batch_flatten(x)",
             "SI-nn-batch_flatten-1", ["relax.nn.batch_flatten"],
             "batch_flatten of a 1-d tensor")
    x = idata((2, 8, 2, 3), 3002)
    _case(out, "pixel_shuffle_r2", [("x", ann((2, 8, 2, 3), "int32"))],
          "y = R.nn.pixel_shuffle(x, upscale_factor=2)", [ok([T_(x)], [T_(_shuffle_ref(x, 2))])],
          ["relax.nn.pixel_shuffle", "SI-nn-pixel_shuffle-3", "EXEC-nn-pixel_shuffle-1"],
          "pixel_shuffle by 2: channel c*4 + i*2 + j moves to pixel (h*2 + i, w*2 + j)")
    x = fdata((9, 1, 2), 3003)
    _case(out, "pixel_shuffle_r3_3d", [("x", ann((9, 1, "w")))],
          "y = R.nn.pixel_shuffle(x, upscale_factor=3)", [ok([T_(x)], [T_(_shuffle_ref(x, 3))])],
          ["relax.nn.pixel_shuffle", "SI-nn-pixel_shuffle-3", "EXEC-nn-pixel_shuffle-1"],
          "pixel_shuffle by 3 of a 3-d (C, H, W) tensor with a symbolic width", sym=("w",))
    _invalid(out, "pixel_shuffle_indivisible", [("x", ann((1, 6, 2, 2)))],
             "y = R.nn.pixel_shuffle(x, upscale_factor=2)", "SI-nn-pixel_shuffle-2",
             ["relax.nn.pixel_shuffle"], "6 channels do not divide by 2 * 2")
    _case(out, "pixel_shuffle_symbolic_channels_trap", [("x", ann((1, "c", 1, 1)))],
          "y = R.nn.pixel_shuffle(x, upscale_factor=2)",
          [trap([T_(np.zeros((1, 6, 1, 1), F32))], "shape_mismatch")],
          ["relax.nn.pixel_shuffle", "EXEC-nn-pixel_shuffle-1"],
          "pixel_shuffle with a symbolic channel count of 6 at run time (not divisible by 4)",
          sym=("c",))


# -- instance_norm ---------------------------------------------------------------------------

def _instance_norm_ref(x, gamma, beta, c_axis, axes, eps):
    """Mean and E[x^2] - mean^2 in float64 over ``axes``, per channel scale and shift."""
    x64 = x.astype(np.float64)
    n = np.prod([x.shape[a] for a in axes])
    mean = x64.sum(axis=tuple(axes), keepdims=True) / n
    var = (x64 ** 2).sum(axis=tuple(axes), keepdims=True) / n - mean ** 2
    shape = [1] * x.ndim
    shape[c_axis] = -1
    y = (x64 - mean) / np.sqrt(var + eps)
    return (y * gamma.reshape(shape) + beta.reshape(shape)).astype(x.dtype)


def _instance_norm(out):
    x = fdata((2, 3, 2, 3), 3101)
    g, b = fdata((3,), 3102), fdata((3,), 3103)
    _case(out, "instance_norm_nchw", [("x", ann((2, 3, 2, 3))), ("g", ann((3,))),
                                      ("b", ann((3,)))],
          "y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3])",
          [ok([T_(x), T_(g), T_(b)], [T_(_instance_norm_ref(x, g, b, 1, [2, 3], 1e-5))],
              rtol=1e-4, atol=1e-4)],
          ["relax.nn.instance_norm", "SI-nn-instance_norm-1", "EXEC-nn-instance_norm-1"],
          "instance_norm of NCHW data over H and W: one mean and variance per (n, c)")
    x = fdata((1, 4, 2), 3104)
    g, b = fdata((2,), 3105), fdata((2,), 3106)
    _case(out, "instance_norm_channels_last", [("x", ann(("n", 4, 2))), ("g", ann((2,))),
                                               ("b", ann((2,)))],
          "y = R.nn.instance_norm(x, g, b, channel_axis=-1, axes=[1], epsilon=0.01)",
          [ok([T_(x), T_(g), T_(b)], [T_(_instance_norm_ref(x, g, b, 2, [1], 0.01))],
              rtol=1e-4, atol=1e-4)],
          ["relax.nn.instance_norm", "SI-nn-instance_norm-1", "EXEC-nn-instance_norm-1"],
          "instance_norm with the channel axis last and a symbolic batch", sym=("n",))
    _invalid(out, "instance_norm_channel_in_axes", [("x", ann((2, 3, 4))), ("g", ann((3,))),
                                                    ("b", ann((3,)))],
             "y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[1, 2])",
             "SI-nn-instance_norm-1", ["relax.nn.instance_norm"],
             "instance_norm whose channel axis is among the normalized axes")
    _invalid(out, "instance_norm_gamma_length", [("x", ann((2, 3, 4))), ("g", ann((4,))),
                                                 ("b", ann((3,)))],
             "y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])",
             "SI-nn-instance_norm-1", ["relax.nn.instance_norm"],
             "instance_norm with gamma of 4 values for 3 channels")
    _case(out, "instance_norm_gamma_length_trap", [("x", ann((2, "c", 4))), ("g", ann(("k",))),
                                                   ("b", ann(("c",)))],
          "y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])",
          [trap([T_(np.ones((2, 3, 4), F32)), T_(np.ones(2, F32)), T_(np.ones(3, F32))],
                "shape_mismatch")],
          ["relax.nn.instance_norm", "EXEC-nn-norm-1"],
          "instance_norm with gamma of 2 values for 3 channels, known only at run time",
          sym=("c", "k"))


def cases() -> list[Case]:
    out: list[Case] = []
    _rearrange(out)
    _instance_norm(out)
    return out
