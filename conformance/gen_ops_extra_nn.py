"""Conformance cases (area ``ops``) for the nn and image ops of issue 20: batch_flatten,
pixel_shuffle, instance_norm, the transposed convolutions, conv3d, the 1-d and 3-d pools,
the losses and the image ops (spec/ops/nn.md, spec/ops/image.md). Each op has valid runs
and at least one invalid or trapping case.

Expected values come from the NumPy formulas below (loops over the definition), never
from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, shape, trap
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


# -- conv3d and the transposed convolutions ----------------------------------------------------

def _transpose_ref(x, w, s, p, op, d, groups):
    """Scatter: x[b, c, i] * w[c, o, k] lands on i*s + k*d - p_before (NC..., IO...)."""
    nsp = x.ndim - 2
    og, ig = w.shape[1], w.shape[0] // groups
    outs = [(x.shape[2 + a] - 1) * s[a] - p[a] - p[a + nsp] + d[a] * (w.shape[2 + a] - 1)
            + op[a] + 1 for a in range(nsp)]
    out = np.zeros((x.shape[0], og * groups, *outs), np.float64)
    for b in range(x.shape[0]):
        for c in range(x.shape[1]):
            for i in np.ndindex(*x.shape[2:]):
                for k in np.ndindex(*w.shape[2:]):
                    y = tuple(i[a] * s[a] + k[a] * d[a] - p[a] for a in range(nsp))
                    if all(0 <= y[a] < outs[a] for a in range(nsp)):
                        for o in range(og):
                            out[(b, c // ig * og + o, *y)] += float(x[(b, c, *i)]) * \
                                float(w[(c, o, *k)])
    return out.astype(x.dtype)


def _conv3d_ref(x, w, pad, groups):
    """Direct windows over the zero-padded input (stride and dilation 1)."""
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(q, q) for q in pad])
    og, cg = w.shape[0] // groups, w.shape[1]
    outs = [xp.shape[2 + a] - w.shape[2 + a] + 1 for a in range(3)]
    out = np.zeros((x.shape[0], w.shape[0], *outs))
    for b, o in np.ndindex(x.shape[0], w.shape[0]):
        g = o // og
        for y in np.ndindex(*outs):
            win = xp[b, g * cg:(g + 1) * cg, y[0]:y[0] + w.shape[2], y[1]:y[1] + w.shape[3],
                     y[2]:y[2] + w.shape[4]]
            out[(b, o, *y)] = (win * w[o]).sum()
    return out.astype(x.dtype)


def _convolutions(out):
    x, w = fdata((1, 4, 2, 3, 3), 3201), fdata((2, 2, 2, 1, 2), 3202)
    _case(out, "conv3d_grouped_padded", [("x", ann((1, 4, 2, 3, 3))),
                                         ("w", ann((2, 2, 2, 1, 2)))],
          "y = R.nn.conv3d(x, w, padding=[0, 1, 1], groups=2)",
          [ok([T_(x), T_(w)], [T_(_conv3d_ref(x, w, (0, 1, 1), 2))])],
          ["relax.nn.conv3d", "SI-nn-conv-6", "EXEC-nn-conv-1"],
          "conv3d with two groups and padding on H and W")
    _invalid(out, "conv3d_channel_mismatch", [("x", ann((1, 3, 2, 2, 2))),
                                              ("w", ann((2, 2, 1, 1, 1)))],
             "y = R.nn.conv3d(x, w)", "SI-nn-conv-4", ["relax.nn.conv3d"],
             "conv3d of 3 data channels with a weight of 2 input channels")
    x, w = fdata((1, 4, 3, 2), 3203), fdata((4, 1, 3, 2), 3204)
    _case(out, "conv2d_transpose_stride2_groups", [("x", ann((1, 4, 3, 2))),
                                                   ("w", ann((4, 1, 3, 2)))],
          "y = R.nn.conv2d_transpose(x, w, strides=2, padding=[1, 0, 0, 1], "
          "output_padding=[1, 0], groups=2)",
          [ok([T_(x), T_(w)], [T_(_transpose_ref(x, w, [2, 2], [1, 0, 0, 1], [1, 0], [1, 1],
                                                 2))])],
          ["relax.nn.conv2d_transpose", "SI-nn-conv_transpose-6", "EXEC-nn-conv_transpose-1"],
          "conv2d_transpose with stride 2, asymmetric padding, output_padding and 2 groups")
    x, w = fdata((1, 2, 2, 2), 3205), fdata((2, 2, 2, 2), 3206)
    _case(out, "conv2d_transpose_dilated_symbolic", [("x", ann((1, 2, "h", 2))),
                                                     ("w", ann((2, 2, 2, 2)))],
          "y = R.nn.conv2d_transpose(x, w, dilation=[2, 1])",
          [ok([T_(x), T_(w)], [T_(_transpose_ref(x, w, [1, 1], [0] * 4, [0, 0], [2, 1], 1))]),
           ok([T_(np.zeros((1, 2, 0, 2), F32)), T_(w)], [T_(np.zeros((1, 2, 2, 3), F32))])],
          ["relax.nn.conv2d_transpose", "SI-nn-conv_transpose-6", "EXEC-nn-conv_transpose-1"],
          "conv2d_transpose with dilation 2 on a symbolic height (h = 2, and h = 0: zeros "
          "of height d*(K-1) + 1 - 1 = 2)", sym=("h",))
    x, w = idata((2, 3, 4), 3207, dtype="int32"), idata((3, 2, 2), 3208, dtype="int32")
    _case(out, "conv1d_transpose_int32", [("x", ann((2, 3, 4), "int32")),
                                          ("w", ann((3, 2, 2), "int32"))],
          "y = R.nn.conv1d_transpose(x, w, strides=3, padding=[1, 0], output_padding=2)",
          [ok([T_(x), T_(w)], [T_(_transpose_ref(x, w, [3], [1, 0], [2], [1], 1))])],
          ["relax.nn.conv1d_transpose", "SI-nn-conv_transpose-6", "EXEC-nn-conv_transpose-1"],
          "int32 conv1d_transpose with stride 3: gaps between the kernel copies stay 0 and "
          "output_padding appends two positions")
    x, w = fdata((1, 2, 1, 2, 2), 3209), fdata((2, 1, 2, 1, 2), 3210)
    _case(out, "conv3d_transpose_strided", [("x", ann((1, 2, 1, 2, 2))),
                                            ("w", ann((2, 1, 2, 1, 2)))],
          "y = R.nn.conv3d_transpose(x, w, strides=[1, 2, 1], output_padding=[0, 1, 0])",
          [ok([T_(x), T_(w)], [T_(_transpose_ref(x, w, [1, 2, 1], [0] * 6, [0, 1, 0],
                                                 [1, 1, 1], 1))])],
          ["relax.nn.conv3d_transpose", "SI-nn-conv_transpose-6", "EXEC-nn-conv_transpose-1"],
          "conv3d_transpose with stride 2 on H and output_padding 1 there")
    for nsp in (1, 2, 3):
        xs, ws = (1, 3) + (2,) * nsp, (2, 1) + (1,) * nsp
        _invalid(out, f"conv{nsp}d_transpose_channel_mismatch", [("x", ann(xs)), ("w", ann(ws))],
                 f"y = R.nn.conv{nsp}d_transpose(x, w)", "SI-nn-conv_transpose-4",
                 [f"relax.nn.conv{nsp}d_transpose"],
                 f"conv{nsp}d_transpose of 3 data channels with a weight of 2 input channels")
    _invalid(out, "conv2d_transpose_output_padding", [("x", ann((1, 2, 2, 2))),
                                                      ("w", ann((2, 1, 1, 1)))],
             "y = R.nn.conv2d_transpose(x, w, strides=2, output_padding=2)",
             "SI-nn-conv_transpose-1", ["relax.nn.conv2d_transpose"],
             "conv2d_transpose with output_padding 2 not below stride 2")
    _case(out, "conv1d_transpose_crop_trap", [("x", ann((1, 1, "n"))), ("w", ann((1, 1, 1)))],
          "y = R.nn.conv1d_transpose(x, w, padding=1)",
          [trap([T_(np.ones((1, 1, 1), F32)), T_(np.ones((1, 1, 1), F32))], "invalid_value")],
          ["relax.nn.conv1d_transpose", "EXEC-nn-conv_transpose-2"],
          "conv1d_transpose whose padding crops more than the output holds (length n - 2 "
          "with n = 1)", sym=("n",))


# -- 1-d and 3-d pools ---------------------------------------------------------------------------

def _pool_ref(x, kind, k, s, pad, include_pad=False):
    """Each window's positions enumerated (dilation 1, no ceil mode); padding outside."""
    nsp = x.ndim - 2
    sizes = x.shape[2:]
    outs = [(sizes[a] + pad[a] + pad[a + nsp] - k[a]) // s[a] + 1 for a in range(nsp)]
    out = np.zeros(x.shape[:2] + tuple(outs), np.float64)
    for y in np.ndindex(*outs):
        taps = [[y[a] * s[a] - pad[a] + t for t in range(k[a])] for a in range(nsp)]
        inside = [p for p in np.ndindex(*k)
                  if all(0 <= taps[a][p[a]] < sizes[a] for a in range(nsp))]
        vals = [x[(slice(None), slice(None), *(taps[a][p[a]] for a in range(nsp)))]
                for p in inside]
        at = (slice(None), slice(None), *y)
        if kind == "max":
            lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
            out[at] = np.max(vals + ([np.full(x.shape[:2], lowest)]
                                     if len(inside) < np.prod(k) else []), axis=0)
        else:
            count = np.prod(k) if include_pad else len(inside)
            out[at] = np.sum(vals, axis=0) / count
    return out.astype(x.dtype)


def _adaptive_ref(x, outs):
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(outs), np.float64)
    for y in np.ndindex(*outs):
        box = tuple(slice(i * n // o, -(-(i + 1) * n // o)) for i, n, o in zip(y, sizes, outs))
        cells = x[(slice(None), slice(None), *box)].astype(np.float64)
        out[(slice(None), slice(None), *y)] = cells.sum(axis=tuple(range(2, x.ndim))) / \
            np.prod([b.stop - b.start for b in box])
    return out.astype(x.dtype)


def _pools(out):
    x = fdata((2, 2, 7), 3301)
    _case(out, "max_pool1d_padded", [("x", ann((2, 2, 7)))],
          "y = R.nn.max_pool1d(x, pool_size=3, strides=2, padding=[1, 1])",
          [ok([T_(x)], [T_(_pool_ref(x, "max", [3], [2], [1, 1]))])],
          ["relax.nn.max_pool1d", "SI-nn-pool-3", "EXEC-nn-pool-1"],
          "max_pool1d, window 3, stride 2, padding 1 (padding never wins)")
    x = fdata((1, 2, 6), 3302)
    _case(out, "avg_pool1d_exclude_pad_symbolic", [("x", ann((1, 2, "w")))],
          "y = R.nn.avg_pool1d(x, pool_size=2, padding=[1, 1])",
          [ok([T_(x)], [T_(_pool_ref(x, "avg", [2], [1], [1, 1]))])],
          ["relax.nn.avg_pool1d", "SI-nn-pool-3", "EXEC-nn-pool-1", "EXEC-nn-pool-2"],
          "avg_pool1d over a symbolic width: the padded end windows divide by 1",
          sym=("w",))
    x = idata((1, 1, 4, 4, 4), 3303)
    _case(out, "max_pool3d_int32", [("x", ann((1, 1, 4, 4, 4), "int32"))],
          "y = R.nn.max_pool3d(x, pool_size=2, strides=2)",
          [ok([T_(x)], [T_(_pool_ref(x, "max", [2] * 3, [2] * 3, [0] * 6))])],
          ["relax.nn.max_pool3d", "SI-nn-pool-3", "EXEC-nn-pool-1"],
          "int32 max_pool3d with 2x2x2 windows, stride 2")
    x = fdata((1, 2, 3, 4, 3), 3304)
    _case(out, "avg_pool3d_include_pad", [("x", ann((1, 2, 3, 4, 3)))],
          "y = R.nn.avg_pool3d(x, pool_size=[2, 3, 2], padding=[1, 1, 0, 0, 1, 1], "
          "count_include_pad=True)",
          [ok([T_(x)], [T_(_pool_ref(x, "avg", [2, 3, 2], [1, 1, 1], [1, 1, 0, 0, 1, 1],
                                     include_pad=True))], rtol=1e-6, atol=1e-6)],
          ["relax.nn.avg_pool3d", "EXEC-nn-pool-1", "EXEC-nn-pool-2"],
          "avg_pool3d counting the padding: every window divides by 2 * 3 * 2")
    _invalid(out, "max_pool1d_window_too_large", [("x", ann((1, 1, 2)))],
             "y = R.nn.max_pool1d(x, pool_size=4)", "SI-nn-pool-3", ["relax.nn.max_pool1d"],
             "max_pool1d of width 2 with a window of 4: output width -1")
    _invalid(out, "avg_pool3d_wrong_ndim", [("x", ann((1, 1, 4, 4)))],
             "y = R.nn.avg_pool3d(x, pool_size=2)", "SI-nn-layout-2", ["relax.nn.avg_pool3d"],
             "avg_pool3d of a 4-d tensor")
    _case(out, "max_pool3d_negative_output_trap", [("x", ann((1, 1, "d", 2, 2)))],
          "y = R.nn.max_pool3d(x, pool_size=[3, 1, 1])",
          [trap([T_(np.zeros((1, 1, 1, 2, 2), F32))], "invalid_value")],
          ["relax.nn.max_pool3d", "EXEC-nn-pool-1"],
          "max_pool3d with depth d = 1 and a window depth of 3: output depth -1 at run time",
          sym=("d",))
    _invalid(out, "avg_pool1d_zero_stride", [("x", ann((1, 1, 4)))],
             "y = R.nn.avg_pool1d(x, pool_size=2, strides=0)", "SI-nn-pool-1",
             ["relax.nn.avg_pool1d"], "avg_pool1d with stride 0")
    x = fdata((2, 2, 7), 3305)
    _case(out, "adaptive_avg_pool1d_uneven", [("x", ann((2, 2, 7)))],
          "y = R.nn.adaptive_avg_pool1d(x, output_size=3)",
          [ok([T_(x)], [T_(_adaptive_ref(x, (3,)))], rtol=1e-6, atol=1e-6)],
          ["relax.nn.adaptive_avg_pool1d", "EXEC-nn-adaptive_pool-1", "SI-nn-adaptive_pool-2"],
          "adaptive_avg_pool1d 7 -> 3: cells [0, 3), [2, 5), [4, 7) overlap")
    x = fdata((1, 2, 3, 5, 4), 3306)
    _case(out, "adaptive_avg_pool3d_ndhwc", [("x", ann((1, 3, 5, 4, 2)))],
          'y = R.nn.adaptive_avg_pool3d(x, output_size=[2, 2, 3], layout="NDHWC", '
          'out_layout="NCDHW")',
          [ok([T_(np.ascontiguousarray(np.transpose(x, (0, 2, 3, 4, 1))))],
              [T_(_adaptive_ref(x, (2, 2, 3)))], rtol=1e-6, atol=1e-6)],
          ["relax.nn.adaptive_avg_pool3d", "EXEC-nn-adaptive_pool-1", "SI-nn-adaptive_pool-2"],
          "adaptive_avg_pool3d from NDHWC data to an NCDHW result")
    _invalid(out, "adaptive_avg_pool3d_negative_size", [("x", ann((1, 1, 2, 2, 2)))],
             "y = R.nn.adaptive_avg_pool3d(x, output_size=[1, -1, 1])",
             "SI-nn-adaptive_pool-1", ["relax.nn.adaptive_avg_pool3d"],
             "adaptive_avg_pool3d with a negative output size")
    _case(out, "adaptive_avg_pool1d_int_empty_trap", [("x", ann((1, 1, "w"), "int32"))],
          "y = R.nn.adaptive_avg_pool1d(x, output_size=2)",
          [trap([T_(np.zeros((1, 1, 0), np.int32))], "division_by_zero")],
          ["relax.nn.adaptive_avg_pool1d", "EXEC-nn-adaptive_pool-1"],
          "int32 adaptive_avg_pool1d of an empty width: empty windows divide by zero",
          sym=("w",))


# -- losses ------------------------------------------------------------------------------------

def _nll_ref(pred, tgt, w, reduction, ignore=-100):
    loss = np.zeros(tgt.shape, np.float64)
    wsum = 0.0
    for idx in np.ndindex(*tgt.shape):
        t = int(tgt[idx])
        if t != ignore:
            p = pred[t] if pred.ndim == 1 else pred[(idx[0], t, *idx[1:])]
            loss[idx] = -float(p) * float(w[t])
            wsum += float(w[t])
    if reduction == "none":
        return loss.astype(pred.dtype)
    total = loss.sum()
    return np.array(total if reduction == "sum" else total / wsum, pred.dtype)


def _losses(out):
    pred = fdata((3, 4, 2), 3401)
    tgt = np.array([[0, 3], [-100, 2], [1, 1]], np.int64)
    w = np.array([1.0, 0.5, 2.0, 0.25], F32)
    for r in ("mean", "sum", "none"):
        _case(out, f"nll_loss_{r}_weighted", [("p", ann((3, 4, 2))), ("t", ann((3, 2), "int64")),
                                              ("w", ann((4,)))],
              f'y = R.nn.nll_loss(p, t, w, reduction="{r}")',
              [ok([T_(pred), T_(tgt), T_(w)], [T_(_nll_ref(pred, tgt, w, r))], rtol=1e-6,
                  atol=1e-6)],
              ["relax.nn.nll_loss", "SI-nn-nll_loss-4", "EXEC-nn-nll_loss-1"],
              f"weighted nll_loss over (N, C, d), reduction {r}, one target ignored (-100)")
    pred = fdata((5,), 3402)
    _case(out, "nll_loss_single_class_vector", [("p", ann(("c",))), ("t", ann((), "int32"))],
          "y = R.nn.nll_loss(p, t, ignore_index=2)",
          [ok([T_(pred), T_(np.array(3, np.int32))],
              [T_(_nll_ref(pred, np.array(3), np.ones(5), "mean", 2))]),
           ok([T_(pred), T_(np.array(2, np.int32))], [T_(np.array(np.nan, F32))])],
          ["relax.nn.nll_loss", "SI-nn-nll_loss-4", "EXEC-nn-nll_loss-1"],
          "nll_loss of a (C,) prediction and a scalar target: -p[t]; the ignored target "
          "gives 0 / 0 = NaN for mean", sym=("c",))
    _invalid(out, "nll_loss_float_targets", [("p", ann((2, 3))), ("t", ann((2,)))],
             "y = R.nn.nll_loss(p, t)", "SI-nn-nll_loss-1", ["relax.nn.nll_loss"],
             "nll_loss with float targets")
    _invalid(out, "nll_loss_batch_mismatch", [("p", ann((2, 3))), ("t", ann((3,), "int64"))],
             "y = R.nn.nll_loss(p, t)", "SI-nn-nll_loss-3", ["relax.nn.nll_loss"],
             "nll_loss with 2 predictions and 3 targets")
    _case(out, "nll_loss_target_out_of_range_trap", [("p", ann((2, 3))),
                                                     ("t", ann((2,), "int64"))],
          'y = R.nn.nll_loss(p, t, reduction="none")',
          [trap([T_(np.ones((2, 3), F32)), T_(np.array([0, 3], np.int64))],
                "index_out_of_bounds")],
          ["relax.nn.nll_loss", "EXEC-nn-nll_loss-1"],
          "nll_loss with target 3 for 3 classes")
    x, y = fdata((4, 3), 3403), fdata((4, 3), 3404, 0.0, 1.0)
    _case(out, "cross_entropy_with_logits_batch", [("x", ann(("n", 3))), ("l", ann(("n", 3)))],
          "y = R.nn.cross_entropy_with_logits(x, l)",
          [ok([T_(x), T_(y)], [T_(np.array(-(x.astype(np.float64) * y).sum() / 4, F32))],
              rtol=1e-6, atol=1e-6)],
          ["relax.nn.cross_entropy_with_logits", "SI-nn-cross_entropy-2",
           "EXEC-nn-cross_entropy-1"],
          "cross_entropy_with_logits of a batch of 4: -sum(x * l) / 4", sym=("n",))
    _case(out, "cross_entropy_with_logits_vector", [("x", ann((3,))), ("l", ann((3,)))],
          "y = R.nn.cross_entropy_with_logits(x, l)",
          [ok([T_(x[0]), T_(y[0])], [T_(np.array(-(x[0].astype(np.float64) * y[0]).sum(),
                                                  F32))], rtol=1e-6, atol=1e-6)],
          ["relax.nn.cross_entropy_with_logits", "EXEC-nn-cross_entropy-1"],
          "cross_entropy_with_logits of 1-d operands: no division")
    _invalid(out, "cross_entropy_with_logits_shape_mismatch", [("x", ann((2, 3))),
                                                               ("l", ann((2, 4)))],
             "y = R.nn.cross_entropy_with_logits(x, l)", "SI-nn-cross_entropy-2",
             ["relax.nn.cross_entropy_with_logits"],
             "cross_entropy_with_logits of (2, 3) and (2, 4)")
    _case(out, "cross_entropy_with_logits_shape_trap", [("x", ann((2, "a"))),
                                                        ("l", ann((2, "b")))],
          "y = R.nn.cross_entropy_with_logits(x, l)",
          [trap([T_(np.ones((2, 3), F32)), T_(np.ones((2, 2), F32))], "shape_mismatch")],
          ["relax.nn.cross_entropy_with_logits", "EXEC-nn-cross_entropy-1"],
          "cross_entropy_with_logits whose widths differ only at run time", sym=("a", "b"))


# -- resize2d, resize3d ----------------------------------------------------------------------------

def _resize_linear_ref(x, outs):
    """half_pixel bilinear / trilinear resizing in float64 (coordinates clamped as the
    op clamps its taps): a reference for inputs and sizes where float32 rounding cannot
    move a result beyond the case's tolerance."""
    nsp = len(outs)
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for y in np.ndindex(*outs):
        taps = []
        for a in range(nsp):
            u = (y[a] + 0.5) * sizes[a] / outs[a] - 0.5
            i = int(np.floor(u))
            t = u - i
            taps.append([(min(max(i, 0), sizes[a] - 1), 1 - t),
                         (min(max(i + 1, 0), sizes[a] - 1), t)])
        total = 0.0
        for combo in np.ndindex(*(2,) * nsp):
            weight = np.prod([taps[a][combo[a]][1] for a in range(nsp)])
            total = total + weight * x[(slice(None), slice(None),
                                        *(taps[a][combo[a]][0] for a in range(nsp)))]
        out[(slice(None), slice(None), *y)] = total
    return out


def _nearest_floor_ref(x, outs):
    """asymmetric nearest resizing with floor: output x reads floor(x * L / O)."""
    sizes = x.shape[2:]
    idx = [[o * sizes[a] // outs[a] for o in range(outs[a])] for a in range(len(outs))]
    return x[(slice(None), slice(None), *np.ix_(*idx))]


def _resize(out):
    x = fdata((1, 2, 3, 4), 3501)
    _case(out, "resize2d_linear_half_pixel", [("x", ann((1, 2, 3, 4)))],
          "y = R.image.resize2d(x, R.shape([5, 7]))",
          [ok([T_(x)], [T_(_resize_linear_ref(x, (5, 7)).astype(F32))], rtol=1e-5, atol=1e-5)],
          ["relax.image.resize2d", "SI-image-resize-3", "EXEC-image-resize-1"],
          "bilinear resize 3x4 -> 5x7 with half-pixel centres, edge taps clamped")
    x = idata((1, 3, 4, 2), 3502, dtype="int32")
    _case(out, "resize2d_nearest_asymmetric_nhwc", [("x", ann((1, 3, 4, 2), "int32"))],
          'y = R.image.resize2d(x, R.shape([6, 8]), layout="NHWC", method="nearest_neighbor", '
          'coordinate_transformation_mode="asymmetric", rounding_method="floor")',
          [ok([T_(x)], [T_(np.ascontiguousarray(np.transpose(_nearest_floor_ref(
              np.transpose(x, (0, 3, 1, 2)), (6, 8)), (0, 2, 3, 1))))])],
          ["relax.image.resize2d", "SI-image-resize-3", "EXEC-image-resize-1"],
          "nearest upsampling by 2 (PyTorch's nearest) of int32 NHWC data")
    x = np.array([[[[0.0, 10.0], [20.0, 30.0]]]], F32)
    _case(out, "resize2d_crop_extrapolate", [("x", ann((1, 1, 2, 2)))],
          'y = R.image.resize2d(x, R.shape([2, 2]), roi=[0.0, 0.0, 2.0, 1.0], '
          'coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1.0)',
          [ok([T_(x)], [T_(np.array([[[[0.0, 10.0], [-1.0, -1.0]]]], F32))])],
          ["relax.image.resize2d", "EXEC-image-resize-1"],
          "tf_crop_and_resize: row coordinate 2 lies outside [0, 1] and takes the "
          "extrapolation value")
    x = fdata((1, 2, 2, 3, 2), 3503)
    _case(out, "resize3d_linear", [("x", ann((1, 2, 2, 3, 2)))],
          "y = R.image.resize3d(x, R.shape([3, 4, 3]))",
          [ok([T_(x)], [T_(_resize_linear_ref(x, (3, 4, 3)).astype(F32))], rtol=1e-5,
              atol=1e-5)],
          ["relax.image.resize3d", "SI-image-resize-3", "EXEC-image-resize-1"],
          "trilinear resize 2x3x2 -> 3x4x3 with half-pixel centres")
    x = fdata((1, 1, 2, 2, 2), 3504)
    _case(out, "resize3d_nearest_upsample", [("x", ann(("n", 1, 2, 2, 2)))],
          'y = R.image.resize3d(x, R.shape([4, 2, 6]), method="nearest_neighbor", '
          'coordinate_transformation_mode="asymmetric")',
          [ok([T_(x)], [T_(_nearest_floor_ref(x, (4, 2, 6)))])],
          ["relax.image.resize3d", "EXEC-image-resize-1"],
          "nearest resize3d (rounding '' is floor for asymmetric) with a symbolic batch",
          sym=("n",))
    _invalid(out, "resize2d_size_rank", [("x", ann((1, 1, 2, 2)))],
             "y = R.image.resize2d(x, R.shape([2, 2, 2]))", "SI-image-resize-1",
             ["relax.image.resize2d"], "resize2d with a 3-value size")
    _invalid(out, "resize2d_unknown_method", [("x", ann((1, 1, 2, 2)))],
             'y = R.image.resize2d(x, R.shape([2, 2]), method="bilinear")', "SI-call-1",
             ["relax.image.resize2d", "SI-image-resize-2"],
             "resize2d with method bilinear (not a resize method)")
    _invalid(out, "resize3d_wrong_ndim", [("x", ann((1, 1, 2, 2)))],
             "y = R.image.resize3d(x, R.shape([2, 2, 2]))", "SI-nn-layout-2",
             ["relax.image.resize3d"], "resize3d of a 4-d tensor")
    _case(out, "resize2d_empty_image_trap", [("x", ann((1, 1, "h", 2)))],
          "y = R.image.resize2d(x, R.shape([2, 2]))",
          [trap([T_(np.zeros((1, 1, 0, 2), F32))], "index_out_of_bounds")],
          ["relax.image.resize2d", "EXEC-image-resize-2"],
          "resize2d of an image of height 0 to 2x2 reads outside it", sym=("h",))


# -- grid_sample, affine_grid -------------------------------------------------------------------

def _bilinear_sample_ref(x, grid, align):
    """2-d bilinear sampling with zero padding, in float64 (PyTorch's definition)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        for o in np.ndindex(*grid.shape[2:]):
            gx, gy = float(grid[(b, 0, *o)]), float(grid[(b, 1, *o)])
            if align:
                u, v = (gx + 1) * (w - 1) / 2, (gy + 1) * (h - 1) / 2
            else:
                u, v = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
            x0, y0 = int(np.floor(u)), int(np.floor(v))
            for yy, wy in ((y0, 1 - (v - y0)), (y0 + 1, v - y0)):
                for xx, wx in ((x0, 1 - (u - x0)), (x0 + 1, u - x0)):
                    if 0 <= yy < h and 0 <= xx < w:
                        out[(b, slice(None), *o)] += x[b, :, yy, xx] * wy * wx
    return out


def _affine_ref(theta, size, align):
    k = len(size)
    axes = []
    for s in size:
        if align:
            axes.append(np.array([-1 + i * (2.0 - 1e-7) / (s - 1) for i in range(s)]))
        else:
            axes.append(np.array([(2 * i + 1) / s - 1 for i in range(s)]))
    out = np.zeros((theta.shape[0], k) + tuple(size))
    for b in range(theta.shape[0]):
        for idx in np.ndindex(*size):
            point = [axes[r][idx[r]] for r in range(k)][::-1] + [1.0]   # x, y, (z), 1
            out[(b, slice(None), *idx)] = theta[b].astype(np.float64) @ np.array(point)
    return out


def _sampling(out):
    x = fdata((1, 2, 3, 4), 3601)
    g = fdata((1, 2, 2, 3), 3602, -1.25, 1.25, step=0.125)
    for align in (False, True):
        _case(out, f"grid_sample_bilinear_{'aligned' if align else 'centres'}",
              [("x", ann((1, 2, 3, 4))), ("g", ann((1, 2, 2, 3)))],
              f"y = R.image.grid_sample(x, g, align_corners={align})",
              [ok([T_(x), T_(g)], [T_(_bilinear_sample_ref(x, g, align).astype(F32))],
                  rtol=1e-5, atol=1e-5)],
              ["relax.image.grid_sample", "SI-image-grid_sample-3", "EXEC-image-grid_sample-1"],
              "bilinear grid_sample with zero padding, grid points partly outside the image "
              f"(align_corners={align})")
    xi = np.array([[[[0.0, 10.0], [20.0, 30.0]]]], F32)
    gi = np.array([[[[-3.0, 0.1]], [[0.1, 5.0]]]], F32)
    _case(out, "grid_sample_nearest_border", [("x", ann((1, 1, 2, 2))), ("g", ann((1, 2, 1, 2)))],
          'y = R.image.grid_sample(x, g, method="nearest", padding_mode="border")',
          [ok([T_(xi), T_(gi)], [T_(np.array([[[[20.0, 30.0]]]], F32))])],
          ["relax.image.grid_sample", "EXEC-image-grid_sample-1"],
          "nearest grid_sample with border padding: x = -3 clips to column 0, y = 5 to row 1")
    _invalid(out, "grid_sample_grid_channels", [("x", ann((1, 1, 2, 2))), ("g", ann((1, 3, 2, 2)))],
             "y = R.image.grid_sample(x, g)", "SI-image-grid_sample-2",
             ["relax.image.grid_sample"], "2-d grid_sample with a grid of 3 coordinates")
    _invalid(out, "grid_sample_bicubic_3d", [("x", ann((1, 1, 2, 2, 2))),
                                             ("g", ann((1, 3, 2, 2, 2)))],
             'y = R.image.grid_sample(x, g, method="bicubic", layout="NCDHW")',
             "SI-image-grid_sample-1", ["relax.image.grid_sample"],
             "bicubic grid_sample of 3-d data")
    _case(out, "grid_sample_batch_trap", [("x", ann(("n", 1, 2, 2))), ("g", ann(("m", 2, 1, 1)))],
          "y = R.image.grid_sample(x, g)",
          [trap([T_(np.ones((1, 1, 2, 2), F32)), T_(np.zeros((2, 2, 1, 1), F32))],
                "shape_mismatch")],
          ["relax.image.grid_sample", "EXEC-image-grid_sample-1"],
          "grid_sample whose grid batch (2) differs from the data's (1) at run time",
          sym=("n", "m"))
    theta = fdata((2, 2, 3), 3603, -1.0, 1.0)
    for align in (True, False):
        _case(out, f"affine_grid_2d_{'aligned' if align else 'centres'}",
              [("t", ann((2, 2, 3)))],
              f"y = R.image.affine_grid(t, R.shape([3, 4]), align_corners={align})",
              [ok([T_(theta)], [T_(_affine_ref(theta, (3, 4), align).astype(F32))],
                  rtol=1e-5, atol=1e-5)],
              ["relax.image.affine_grid", "SI-image-affine_grid-3", "EXEC-image-affine_grid-1"],
              f"affine_grid of two 2x3 matrices onto 3x4 points (align_corners={align})")
    theta3 = fdata((1, 3, 4), 3604, -1.0, 1.0)
    _case(out, "affine_grid_3d", [("t", ann(("n", 3, 4)))],
          "y = R.image.affine_grid(t, R.shape([2, 3, 2]), align_corners=False)",
          [ok([T_(theta3)], [T_(_affine_ref(theta3, (2, 3, 2), False).astype(F32))],
              rtol=1e-5, atol=1e-5)],
          ["relax.image.affine_grid", "SI-image-affine_grid-3", "EXEC-image-affine_grid-1"],
          "3-d affine_grid (matrix columns x, y, z) with a symbolic batch", sym=("n",))
    _invalid(out, "affine_grid_matrix_shape", [("t", ann((1, 2, 4)))],
             "y = R.image.affine_grid(t, R.shape([3, 3]))", "SI-image-affine_grid-2",
             ["relax.image.affine_grid"], "2-d affine_grid with 2x4 matrices")
    _invalid(out, "affine_grid_aligned_size_one", [("t", ann((1, 2, 3)))],
             "y = R.image.affine_grid(t, R.shape([1, 3]))", "SI-image-affine_grid-1",
             ["relax.image.affine_grid"], "affine_grid with align_corners onto a length of 1")
    _case(out, "affine_grid_aligned_size_one_trap", [("t", ann((1, 2, 3))),
                                                     ("s", "R.Shape([h, 3])")],
          "y = R.image.affine_grid(t, R.shape([h, 3]))",
          [trap([T_(np.zeros((1, 2, 3), F32)), shape([1, 3])], "invalid_value")],
          ["relax.image.affine_grid", "EXEC-image-affine_grid-1"],
          "affine_grid with align_corners onto a symbolic length that is 1 at run time",
          sym=("h",))


# -- attention_var_len ---------------------------------------------------------------------------

def _attention_ref(q, k, v, causal):
    """softmax(q k^T / sqrt(d)) v per head in float64; BottomRight masks keys
    j > i + |Lq - Lk|."""
    lq, lk, h, d = q.shape[0], k.shape[0], q.shape[1], q.shape[2]
    out = np.zeros((lq, h, v.shape[2]))
    for head in range(h):
        kh = head // (h // k.shape[1])
        s = q[:, head].astype(np.float64) @ k[:, kh].astype(np.float64).T / np.sqrt(d)
        if causal:
            i, j = np.arange(lq)[:, None], np.arange(lk)[None, :]
            s = np.where(j <= i + abs(lq - lk), s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out[:, head] = (e / e.sum(axis=1, keepdims=True)) @ v[:, kh].astype(np.float64)
    return out


def _attention_var_len(out):
    q = fdata((1, 6, 2, 4), 3701, -1.0, 1.0)
    k = fdata((1, 7, 1, 4), 3702, -1.0, 1.0)
    v = fdata((1, 7, 1, 3), 3703, -1.0, 1.0)
    sq, sk = np.array([0, 2, 6], np.int32), np.array([0, 4, 7], np.int32)
    want = np.zeros((1, 6, 2, 3))
    for b in range(2):
        want[0, sq[b]:sq[b + 1]] = _attention_ref(q[0, sq[b]:sq[b + 1]], k[0, sk[b]:sk[b + 1]],
                                                  v[0, sk[b]:sk[b + 1]], True)
    params = [("q", ann((1, "t", 2, 4))), ("k", ann((1, 7, 1, 4))), ("v", ann((1, 7, 1, 3))),
              ("sq", ann((3,), "int32")), ("mq", ann((), "int32")), ("sk", ann((3,), "int32")),
              ("mk", ann((), "int32"))]
    _case(out, "attention_var_len_two_sequences", params,
          'y = R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="BottomRight")',
          [ok([T_(q), T_(k), T_(v), T_(sq), T_(np.array(4, np.int32)), T_(sk),
               T_(np.array(4, np.int32))], [T_(want.astype(F32))], rtol=1e-5, atol=1e-5)],
          ["relax.nn.attention_var_len", "SI-nn-attention_var_len-2",
           "EXEC-nn-attention_var_len-1"],
          "two concatenated sequences (2 and 4 queries over 4 and 3 keys), grouped-query "
          "heads, bottom-right causal masks per sequence", sym=("t",))
    _invalid(out, "attention_var_len_batch_two", [("q", ann((2, 3, 1, 4))),
                                                  ("k", ann((2, 3, 1, 4))),
                                                  ("v", ann((2, 3, 1, 4))),
                                                  ("s", ann((2,), "int32")),
                                                  ("m", ann((), "int32"))],
             "y = R.nn.attention_var_len(q, k, v, s, m)", "SI-nn-attention_var_len-1",
             ["relax.nn.attention_var_len"], "attention_var_len with a batch of 2")
    _case(out, "attention_var_len_bad_starts_trap", [("q", ann((1, 3, 1, 2))),
                                                     ("s", ann((2,), "int32")),
                                                     ("m", ann((), "int32"))],
          "y = R.nn.attention_var_len(q, q, q, s, m)",
          [trap([T_(np.zeros((1, 3, 1, 2), F32)), T_(np.array([0, 2], np.int32)),
                 T_(np.array(3, np.int32))], "invalid_value")],
          ["relax.nn.attention_var_len", "EXEC-nn-attention_var_len-1"],
          "attention_var_len whose sequence starts cover 2 of the 3 rows")


def cases() -> list[Case]:
    out: list[Case] = []
    _rearrange(out)
    _instance_norm(out)
    _convolutions(out)
    _pools(out)
    _losses(out)
    _resize(out)
    _sampling(out)
    _attention_var_len(out)
    return out
