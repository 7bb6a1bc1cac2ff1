"""Conformance cases (area ``ops``) for the ops of issue 20 part A: atan2, log_add_exp,
ewise_fma, stack, one_hot, collapse_sum_like/to, meshgrid, reverse_sequence,
layout_transform, bucketize, median, quantize/dequantize, hamming_window,
multinomial_from_uniform.

Every case name starts with its op's name. Expected values come from the NumPy formulas
written here (each rounding written out), never from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, trap  # noqa: F401
from gen_ops import AREA, T_, ann, fdata, idata, module, rdata

F16, F32, F64 = np.float16, np.float32, np.float64

_CASES: list[Case] = []


def _add(name, params, body, runs, covers, desc, sym=(), ret="y"):
    _CASES.append(Case(AREA, name, module(params, body, ret, sym), list(runs), "ok", None,
                       desc, list(covers)))


def _invalid(name, params, body, rule, covers, desc, sym=()):
    _CASES.append(Case(AREA, name, module(params, body, "y", sym), [], "invalid", rule, desc,
                       list(covers) + [rule]))


# -- atan2, log_add_exp, ewise_fma ------------------------------------------------------------

def _elementwise():
    y = rdata((2, 3), 2001, -3.0, 3.0)
    x = rdata((3,), 2002, -3.0, 3.0)
    want = np.arctan2(y.astype(F64), x.astype(F64)).astype(F32)
    _add("atan2_f32_broadcast", [("a", ann((2, 3))), ("b", ann((3,)))], "y = R.atan2(a, b)",
         [ok([T_(y), T_(x)], [T_(want)])], ["relax.atan2", "SI-ew-binary-2"],
         "float32 atan2 with broadcasting: arctan2 in float64, rounded once")
    sy = np.array([0.0, -0.0, 1.0, -1.0], F32)
    sx = np.array([-1.0, -1.0, 0.0, 0.0], F32)
    _add("atan2_signs", [("a", ann((4,))), ("b", ann((4,)))], "y = R.atan2(a, b)",
         [ok([T_(sy), T_(sx)], [T_(np.arctan2(sy, sx))])], ["relax.atan2"],
         "atan2 quadrants and signed zeros: atan2(+-0, -1) = +-pi, atan2(+-1, 0) = +-pi/2")
    _invalid("atan2_int", [("a", ann((3,), "int32")), ("b", ann((3,), "int32"))],
             "y = R.atan2(a, b)", "SI-ew-binary-2", ["relax.atan2"],
             "atan2 of integers is rejected (TVM accepts it and fails to compile T.atan2)")
    a = rdata((3, 3), 2003, -20.0, 20.0)
    b = rdata((3,), 2004, -20.0, 20.0)
    want = np.logaddexp(a.astype(F64), b.astype(F64)).astype(F32)
    a2, b2 = a[:2], a[2]
    want2 = np.logaddexp(a2.astype(F64), b2.astype(F64)).astype(F32)
    _add("log_add_exp_sym", [("a", ann(("n", 3))), ("b", ann((3,)))],
         "y = R.log_add_exp(a, b)",
         [ok([T_(a), T_(b)], [T_(want)]), ok([T_(a2), T_(b2)], [T_(want2)])],
         ["relax.log_add_exp", "EXEC-ew-logaddexp-1"],
         "log(exp(a) + exp(b)) in float64 rounded once, at n = 3 and 2", sym=("n",))
    big = np.array([100.0, 1000.0, -np.inf, np.inf, -1000.0], F32)
    other = np.array([100.0, 999.0, -np.inf, np.inf, -1000.5], F32)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.logaddexp(big.astype(F64), other.astype(F64)).astype(F32)
    _add("log_add_exp_large", [("a", ann((5,))), ("b", ann((5,)))],
         "y = R.log_add_exp(a, b)", [ok([T_(big), T_(other)], [T_(want)])],
         ["relax.log_add_exp", "EXEC-ew-logaddexp-1"],
         "log_add_exp of large and infinite values does not overflow (TVM computes "
         "log(exp(a) + exp(b)) in float32: inf for a = 100)")
    _invalid("log_add_exp_int", [("a", ann((3,), "int64")), ("b", ann((3,), "int64"))],
             "y = R.log_add_exp(a, b)", "SI-ew-binary-2", ["relax.log_add_exp"],
             "log_add_exp of integers is rejected")
    p, q, r = (fdata((2, 3), 2005 + k) for k in range(3))
    want = ((p * q).astype(F32) + r).astype(F32)
    _add("ewise_fma_f32", [("a", ann(("n", 3))), ("b", ann(("n", 3))), ("c", ann(("n", 3)))],
         "y = R.ewise_fma(a, b, c)",
         [ok([T_(p), T_(q), T_(r)], [T_(want)]),
          ok([T_(p[:0]), T_(q[:0]), T_(r[:0])], [T_(want[:0])])],
         ["relax.ewise_fma", "SI-ew-fma-1", "EXEC-ew-fma-1"],
         "x1 * x2 + x3 on one shape, at n = 2 and 0", sym=("n",))
    i = np.array([2**30, 7, -3], np.int32)
    want = (i.astype(np.int64) * 4 + 1).astype(np.int32)
    _add("ewise_fma_i32_wraps", [("a", ann((3,), "int32")), ("b", ann((3,), "int32")),
                                 ("c", ann((3,), "int32"))], "y = R.ewise_fma(a, b, c)",
         [ok([T_(i), T_(np.full(3, 4, np.int32)), T_(np.ones(3, np.int32))], [T_(want)])],
         ["relax.ewise_fma", "EXEC-ew-fma-1"], "int32 ewise_fma wraps around")
    _invalid("ewise_fma_shape", [("a", ann((2, 3))), ("b", ann((2, 3))), ("c", ann((3,)))],
             "y = R.ewise_fma(a, b, c)", "SI-ew-fma-1", ["relax.ewise_fma"],
             "ewise_fma does not broadcast: operands of different ndim are rejected")


# -- stack, meshgrid, one_hot, reverse_sequence, collapse_sum_to/like -------------------------

def _reverse_ref(x, lengths, seq, batch):
    """reverse_sequence written as loops: the first min(L, n) elements reversed."""
    out = x.copy()
    n = x.shape[seq]
    for b in range(x.shape[batch]):
        k = min(int(lengths[b]), n)
        for i in range(k if k > 1 else 0):
            src = [slice(None)] * x.ndim
            dst = [slice(None)] * x.ndim
            src[batch] = dst[batch] = b
            src[seq], dst[seq] = k - 1 - i, i
            out[tuple(dst)] = x[tuple(src)]
    return out


def _manipulate():
    a, b = fdata((2, 3), 2101), fdata((2, 3), 2102)
    _add("stack_axis1_sym", [("a", ann(("n", 3))), ("b", ann(("n", 3)))],
         "y = R.stack((a, b, a), axis=1)",
         [ok([T_(a), T_(b)], [T_(np.stack([a, b, a], axis=1))]),
          ok([T_(a[:0]), T_(b[:0])], [T_(np.zeros((0, 3, 3), F32))])],
         ["relax.stack", "SI-manip-stack-1", "SI-manip-stack-2"],
         "three tensors stacked on axis 1, at n = 2 and 0", sym=("n",))
    i = idata((4,), 2103)
    _add("stack_single_neg_axis", [("a", ann((4,), "int32"))], "y = R.stack((a,), axis=-1)",
         [ok([T_(i)], [T_(i.reshape(4, 1))])], ["relax.stack"],
         "one tensor stacked on the last axis gains a dimension of length 1")
    _invalid("stack_shape_mismatch", [("a", ann((2, 3))), ("b", ann((2, 4)))],
             "y = R.stack((a, b))", "SI-manip-stack-2", ["relax.stack"],
             "stacking tensors of shapes (2, 3) and (2, 4) is rejected")
    _add("stack_runtime_mismatch", [("a", ann(("n",))), ("b", ann(("m",)))],
         "y = R.stack((a, b))", [trap([T_(a[0]), T_(b[0][:2])], "shape_mismatch"),
                                 ok([T_(a[0]), T_(b[0])], [T_(np.stack([a[0], b[0]]))])],
         ["relax.stack", "EXEC-manip-stack-1"],
         "lengths n and m are compared at run time: 3 and 2 trap, 3 and 3 stack",
         sym=("n", "m"))
    x, z = np.arange(3).astype(F32), (np.arange(2) + 10).astype(F32)
    for ix in ("ij", "xy"):
        _add(f"meshgrid_{ix}", [("a", ann(("n",))), ("b", ann((2,)))],
             f'y = R.meshgrid((a, b), indexing="{ix}")',
             [ok([T_(x), T_(z)], [T_(g) for g in np.meshgrid(x, z, indexing=ix)])],
             ["relax.meshgrid", "SI-manip-meshgrid-1"],
             f"meshgrid of lengths n = 3 and 2 with indexing={ix!r}"
             + (" (NumPy's shape (2, 3); TVM 0.27 deduces (3, 2))" if ix == "xy" else ""),
             sym=("n",))
    _add("meshgrid_runtime_ndim_trap", [("a", ann((3,))), ("b", ann(None))],
         "y = R.meshgrid((a, b))",
         [trap([T_(x), T_(np.zeros((2, 2), F32))], "shape_mismatch"),
          ok([T_(x), T_(z)], [T_(g) for g in np.meshgrid(x, z, indexing="ij")])],
         ["relax.meshgrid", "EXEC-manip-meshgrid-1"],
         "a tensor of unknown ndim: a 2-d one traps at run time, a 1-d one works")
    _invalid("meshgrid_2d", [("a", ann((3,))), ("b", ann((2, 2)))],
             "y = R.meshgrid((a, b))", "SI-manip-meshgrid-1", ["relax.meshgrid"],
             "meshgrid of a 2-d tensor is rejected")
    idx = np.array([[0, 3], [-1, 2], [5, 1]], np.int64)
    want = np.where(idx[..., None] == np.arange(4), F32(2.5), F32(-1.0)).astype(F32)
    _add("one_hot_last_axis", [("i", ann(("n", 2), "int64"))],
         "y = R.one_hot(i, T.float32(2.5), T.float32(-1.0), depth=4)",
         [ok([T_(idx)], [T_(want)]), ok([T_(idx[:0])], [T_(want[:0])])],
         ["relax.one_hot", "SI-manip-one-hot-1", "EXEC-manip-one-hot-1"],
         "one_hot on the last axis; -1 and 5 are outside [0, 4) and give rows of off_value",
         sym=("n",))
    idx32 = np.array([2, 0, 1], np.int32)
    want = np.where(np.arange(3)[:, None] == idx32[None, :], 7, 0).astype(np.int32)
    _add("one_hot_axis0_int", [("i", ann((3,), "int32"))],
         "y = R.one_hot(i, T.int32(7), T.int32(0), depth=3, axis=0)",
         [ok([T_(idx32)], [T_(want)])], ["relax.one_hot"],
         "int32 one_hot with the new axis first")
    _invalid("one_hot_float_indices", [("i", ann((3,)))],
             "y = R.one_hot(i, T.float32(1.0), T.float32(0.0), depth=3)",
             "SI-manip-one-hot-1", ["relax.one_hot"], "one_hot of float indices is rejected")
    _invalid("one_hot_bad_axis", [("i", ann((3,), "int32"))],
             "y = R.one_hot(i, T.float32(1.0), T.float32(0.0), depth=3, axis=2)",
             "SI-op-axis-1", ["relax.one_hot"], "one_hot of a 1-d tensor at axis 2 is rejected")
    data = fdata((3, 5, 2), 2104)
    lengths = np.array([3, 9, -1], np.int64)
    _add("reverse_sequence_lengths", [("x", ann((3, 5, 2))), ("l", ann((3,), "int64"))],
         "y = R.reverse_sequence(x, l, seq_axis=1, batch_axis=0)",
         [ok([T_(data), T_(lengths)], [T_(_reverse_ref(data, lengths, 1, 0))])],
         ["relax.reverse_sequence", "SI-manip-revseq-1", "EXEC-manip-revseq-1"],
         "lengths 3, 9 (above 5: the whole axis) and -1 (nothing reversed)")
    data2 = idata((4, 3), 2105)
    lengths2 = np.array([4, 2, 0], np.int32)
    _add("reverse_sequence_seq_axis0", [("x", ann((4, "n"), "int32")),
                                        ("l", ann(("n",), "int32"))],
         "y = R.reverse_sequence(x, l, seq_axis=0, batch_axis=1)",
         [ok([T_(data2), T_(lengths2)], [T_(_reverse_ref(data2, lengths2, 0, 1))])],
         ["relax.reverse_sequence"], "sequence axis 0, batch axis 1 at n = 3", sym=("n",))
    _add("reverse_sequence_lengths_mismatch", [("x", ann(("n", 5, 2))),
                                               ("l", ann(("m",), "int64"))],
         "y = R.reverse_sequence(x, l)", [trap([T_(data), T_(lengths[:2])], "shape_mismatch")],
         ["relax.reverse_sequence", "EXEC-manip-revseq-1"],
         "2 lengths for a batch of 3 trap at run time", sym=("n", "m"))
    _invalid("reverse_sequence_float_lengths", [("x", ann((3, 5))), ("l", ann((3,)))],
             "y = R.reverse_sequence(x, l)", "SI-manip-revseq-1", ["relax.reverse_sequence"],
             "float seq_lengths are rejected")
    big = fdata((2, 4, 3), 2106)
    _add("collapse_sum_to_sym", [("x", ann(("n", 4, 3)))],
         "y = R.collapse_sum_to(x, R.shape([4, 1]))",
         [ok([T_(big)], [T_(big.sum(axis=(0, 2)).reshape(4, 1).astype(F32))]),
          ok([T_(big[:0])], [T_(np.zeros((4, 1), F32))])],
         ["relax.collapse_sum_to", "SI-manip-collapse-1", "EXEC-manip-collapse-1"],
         "the leading axis and the last (target 1) summed away, at n = 2 and 0 (zeros)",
         sym=("n",))
    ib = idata((2, 4, 3), 2107)
    _add("collapse_sum_like_int", [("x", ann((2, 4, 3), "int32")), ("t", ann((3,), "int32"))],
         "y = R.collapse_sum_like(x, t)",
         [ok([T_(ib), T_(np.zeros(3, np.int32))], [T_(ib.sum(axis=(0, 1)).astype(np.int32))])],
         ["relax.collapse_sum_like"], "int32 collapse to t's shape (3,)")
    _invalid("collapse_sum_to_mismatch", [("x", ann((2, 4, 3)))],
             "y = R.collapse_sum_to(x, R.shape([2, 3]))", "SI-manip-collapse-1",
             ["relax.collapse_sum_to"], "target (2, 3) is no broadcast source of (2, 4, 3)")
    _invalid("collapse_sum_like_more_dims", [("x", ann((3,))), ("t", ann((2, 3)))],
             "y = R.collapse_sum_like(x, t)", "SI-manip-collapse-1",
             ["relax.collapse_sum_like"],
             "a target with more dimensions than data is rejected (TVM accepts it)")
    _add("collapse_sum_to_runtime_trap", [("x", ann(("n", 3))), ("s", "R.Shape(ndim=2)")],
         "y = R.collapse_sum_to(x, s)",
         [trap([T_(big[0]), shape((2, 3))], "shape_mismatch"),
          ok([T_(big[0]), shape((1, 3))], [T_(big[0].sum(axis=0, keepdims=True))])],
         ["relax.collapse_sum_to", "EXEC-manip-collapse-1"],
         "a target shape known only at run time: (2, 3) from (4, 3) traps, (1, 3) sums",
         sym=("n",))


# -- bucketize, median -------------------------------------------------------------------------

def _lower_median(x, axis):
    """The element at (count - 1) // 2 of each row sorted stably (NaN last), and its
    position along the axis."""
    rows = np.moveaxis(x, axis, -1)
    order = np.argsort(rows, axis=-1, kind="stable")
    k = (rows.shape[-1] - 1) // 2
    return np.take_along_axis(rows, order[..., k:k + 1], -1)[..., 0], order[..., k]


def _search():
    b = np.array([-2.0, 0.0, 0.5, 3.0], F32)
    x = np.array([[-3.0, -2.0, 0.25], [0.5, 3.0, 4.0]], F32)
    for right in (False, True):
        want = np.searchsorted(b, x, side="right" if right else "left").astype(np.int64)
        _add(f"bucketize_{'right' if right else 'left'}",
             [("x", ann(("n", 3))), ("b", ann((4,)))], f"y = R.bucketize(x, b, right={right})",
             [ok([T_(x), T_(b)], [T_(want)]), ok([T_(x[:0]), T_(b)], [T_(want[:0])])],
             ["relax.bucketize", "SI-search-bucketize-1", "EXEC-search-bucketize-1"],
             f"bucketize with right={right}: values on a boundary go "
             f"{'after' if right else 'before'} it; at n = 2 and 0", sym=("n",))
    xi = np.array([1, 5, 9, 10, 11], np.int32)
    bi = np.array([5, 10], np.int32)
    _add("bucketize_int32_out", [("x", ann((5,), "int32")), ("b", ann((2,), "int32"))],
         "y = R.bucketize(x, b, out_int32=True)",
         [ok([T_(xi), T_(bi)], [T_(np.searchsorted(bi, xi).astype(np.int32))])],
         ["relax.bucketize"], "int32 values, int32 result")
    _invalid("bucketize_2d_boundaries", [("x", ann((3,))), ("b", ann((2, 2)))],
             "y = R.bucketize(x, b)", "SI-search-bucketize-1", ["relax.bucketize"],
             "2-d boundaries are rejected")
    m = fdata((3, 4), 2201)
    m[1, 2] = m[1, 0]  # a tie
    vals, idx = _lower_median(m, 1)
    _add("median_axis1", [("x", ann(("n", 4)))], "y = R.median(x, axis=1)",
         [ok([T_(m)], [T_(vals), T_(idx.astype(np.int64))])],
         ["relax.median", "SI-search-median-1", "SI-search-median-2", "EXEC-search-median-1"],
         "lower median of each row of 4 and its index (the element at position 1 of the "
         "stable order)", sym=("n",))
    odd = fdata((5, 3), 2202)
    flat = np.sort(odd.reshape(-1), kind="stable")
    _add("median_all_keepdims", [("x", ann((5, 3)))], "y = R.median(x, keepdims=True)",
         [ok([T_(odd)], [T_(np.array([[flat[7]]], F32))])], ["relax.median"],
         "median of all 15 elements, keepdims: the 8th smallest")
    nan = np.array([[np.nan, 1.0, 2.0], [np.nan, np.nan, 0.0]], F32)
    vals, idx = _lower_median(nan, 1)
    _add("median_nan_last", [("x", ann((2, 3)))], "y = R.median(x, axis=-1)",
         [ok([T_(nan)], [T_(vals), T_(idx.astype(np.int64))])], ["relax.median"],
         "NaN sorts last: [nan, 1, 2] has median 1 (index 1), [nan, nan, 0] has nan (index 0)")
    _add("median_empty_row", [("x", ann((2, "n")))], "y = R.median(x, axis=1)",
         [trap([T_(np.zeros((2, 0), F32))], "index_out_of_bounds"),
          ok([T_(m[:2, :3])], [T_(_lower_median(m[:2, :3], 1)[0]),
                               T_(_lower_median(m[:2, :3], 1)[1].astype(np.int64))])],
         ["relax.median", "EXEC-search-median-1"],
         "a row of zero elements has no median (a trap); n = 3 works", sym=("n",))
    _invalid("median_bad_axis", [("x", ann((2, 3)))], "y = R.median(x, axis=2)",
             "SI-op-axis-1", ["relax.median"], "axis 2 of a 2-d tensor is rejected")


# -- quantize, dequantize ----------------------------------------------------------------------

def _quantize_ref(x, scale, zp, out, ct):
    """round(x / scale) + zp in the compute type, clamped to out's range, converted."""
    q = np.rint((x.astype(ct) / scale.astype(ct)).astype(ct)).astype(ct)
    q = (q + zp.astype(ct)).astype(ct)
    info = np.iinfo(out)
    return np.clip(q, info.min, info.max).astype(out)


def _dequantize_ref(x, scale, zp):
    d = (x.astype(np.int64) - zp.astype(np.int64)).astype(np.float32)
    return (d * scale.astype(F32)).astype(F32)


def _quantize():
    x = rdata((2, 4), 2301, -3.0, 3.0)
    x[0, :3] = [0.25, -0.75, 1e6]  # halves round to even; a value beyond int8's range
    s, z = np.array(0.5, F32), np.array(3, np.int8)
    _add("quantize_per_tensor_int8", [("x", ann(("n", 4))), ("s", ann(())),
                                      ("z", ann((), "int8"))],
         'y = R.quantize(x, s, z, axis=-1, out_dtype="int8")',
         [ok([T_(x), T_(s), T_(z)], [T_(_quantize_ref(x, s, z, np.int8, F32))])],
         ["relax.quantize", "SI-quant-1", "SI-quant-2", "EXEC-quant-2"],
         "per-tensor int8: 0.25 / 0.5 = 0.5 rounds to 0, -1.5 to -2; 1e6 clamps to 127",
         sym=("n",))
    sc = np.array([0.25, 0.5, 1.0], F16)
    zc = np.array([0, 10, 250], np.uint8)
    xh = fdata((3, 2), 2302, dtype="float16").T.copy()
    _add("quantize_per_channel_uint8", [("x", ann((2, 3), "float16")), ("s", ann((3,), "float16")),
                                        ("z", ann((3,), "uint8"))],
         'y = R.quantize(x, s, z, axis=1, out_dtype="uint8")',
         [ok([T_(xh), T_(sc), T_(zc)], [T_(_quantize_ref(xh, sc, zc, np.uint8, F16))])],
         ["relax.quantize", "EXEC-quant-1"],
         "float16 data, per-channel scale and zero point along axis 1, computed in float16")
    _invalid("quantize_bad_out_dtype", [("x", ann((3,))), ("s", ann(())), ("z", ann((), "int8"))],
             'y = R.quantize(x, s, z, out_dtype="int32")', "SI-quant-1", ["relax.quantize"],
             "quantize to int32 is not a quantized type TVM accepts")
    _invalid("quantize_scale_length", [("x", ann((2, 3))), ("s", ann((2,))),
                                       ("z", ann((), "int8"))],
             'y = R.quantize(x, s, z, axis=1)', "SI-quant-2", ["relax.quantize"],
             "two scales for an axis of 3 are rejected")
    q = idata((2, 3), 2303, -128, 128, "int8")
    sq, zq = np.array([0.5, 0.25, 2.0], F32), np.array([1, -2, 0], np.int8)
    _add("dequantize_per_channel", [("x", ann(("n", 3), "int8")), ("s", ann((3,))),
                                    ("z", ann((3,), "int8"))],
         "y = R.dequantize(x, s, z, axis=1)",
         [ok([T_(q), T_(sq), T_(zq)], [T_(_dequantize_ref(q, sq[None], zq[None]))])],
         ["relax.dequantize", "SI-quant-1", "EXEC-quant-3"],
         "int8 per-channel dequantize: (x - zp) * scale in float32", sym=("n",))
    big = np.array([30000, -30000, 5], np.int32)
    want = np.clip(_dequantize_ref(big, np.array(4.0, F32), np.array(0, np.int32)),
                   -65504.0, 65504.0).astype(F16)
    _add("dequantize_f16_clamps", [("x", ann((3,), "int32")), ("s", ann((), "float16")),
                                   ("z", ann((), "int32"))],
         'y = R.dequantize(x, s, z, out_dtype="float16")',
         [ok([T_(big), T_(np.array(4.0, F16)), T_(np.array(0, np.int32))], [T_(want)])],
         ["relax.dequantize", "EXEC-quant-3"],
         "a float16 result clamps to +-65504 (120000 would be inf)")
    _add("dequantize_scale_runtime_mismatch", [("x", ann((2, 3), "int8")),
                                               ("s", ann(None, ndim=1)), ("z", ann((), "int8"))],
         "y = R.dequantize(x, s, z, axis=1)",
         [trap([T_(q), T_(sq[:2]), T_(np.array(0, np.int8))], "shape_mismatch"),
          ok([T_(q), T_(sq), T_(np.array(0, np.int8))],
             [T_(_dequantize_ref(q, sq[None], np.array(0, np.int8)))])],
         ["relax.dequantize", "EXEC-quant-1"],
         "a scale of unknown length: 2 values for an axis of 3 trap, 3 values work")
    _invalid("dequantize_float_zero_point_type", [("x", ann((3,), "int8")), ("s", ann(())),
                                                  ("z", ann((), "float32"))],
             "y = R.dequantize(x, s, z)", "SI-quant-1", ["relax.dequantize"],
             "a float32 zero point is not one TVM accepts")


# -- hamming_window ----------------------------------------------------------------------------

def _hamming(n, periodic, alpha, beta, dtype):
    """TVM's steps: i, 2 pi i and / (M - 1) rounded in dtype, the cosine rounded once,
    alpha - beta * c in float64."""
    if n == 1:
        return np.ones(1, dtype)
    m1 = n if periodic else n - 1
    t = (np.asarray(2 * np.pi, dtype) * np.arange(n).astype(dtype)).astype(dtype)
    t = (t / np.asarray(m1, dtype)).astype(dtype)
    c = np.cos(t.astype(F64)).astype(dtype).astype(F64)
    return (alpha - beta * c).astype(dtype)


def _hamming_window():
    for periodic in (0, 1):
        _add(f"hamming_window_{'periodic' if periodic else 'symmetric'}", [], [
            f'y = R.hamming_window(8, {periodic}, T.float64(0.54), T.float64(0.46), '
            'dtype="float32")'], [ok([], [T_(_hamming(8, periodic, 0.54, 0.46, F32))])],
            ["relax.hamming_window", "SI-create-hamming-1", "EXEC-create-hamming-1"],
            f"an 8-point {'periodic' if periodic else 'symmetric'} Hamming window in float32")
    _add("hamming_window_sym_size", [("x", ann(("n",)))],
         ['y = R.hamming_window(R.prim_value(n), 0, T.float64(0.5), T.float64(0.5), '
          'dtype="float16")'],
         [ok([T_(np.zeros(5, F32))], [T_(_hamming(5, 0, 0.5, 0.5, F16))]),
          ok([T_(np.zeros(1, F32))], [T_(np.ones(1, F16))]),
          ok([T_(np.zeros(0, F32))], [T_(np.zeros(0, F16))])],
         ["relax.hamming_window", "EXEC-create-hamming-1"],
         "a float16 Hann window (alpha = beta = 0.5) of x's length: 5, 1 ([1]) and 0 (empty)",
         sym=("n",))
    _invalid("hamming_window_size_zero", [], ['y = R.hamming_window(0, 1, T.float64(0.54), '
                                              'T.float64(0.46), dtype="float32")'],
             "SI-create-hamming-1", ["relax.hamming_window"], "a window of size 0 is rejected")
    _invalid("hamming_window_int_dtype", [], ['y = R.hamming_window(4, 1, T.float64(0.54), '
                                              'T.float64(0.46), dtype="int32")'],
             "SI-create-hamming-1", ["relax.hamming_window"], "an int32 window is rejected")
    _add("hamming_window_negative_trap", [("k", "R.Prim(\"int64\")")],
         ['y = R.hamming_window(k, 1, T.float64(0.54), T.float64(0.46), dtype="float32")'],
         [trap([prim(-2)], "invalid_value"),
          ok([prim(3)], [T_(_hamming(3, 1, 0.54, 0.46, F32))])],
         ["relax.hamming_window", "EXEC-create-hamming-1"],
         "a window size known only at run time: -2 traps, 3 gives 3 points")


# -- multinomial_from_uniform ------------------------------------------------------------------

def _first_above(prob, u, rows):
    """The first j whose running float32 sum exceeds u, else the last index."""
    out = []
    for r, x in zip(rows, u):
        total, pick = F32(0), prob.shape[1] - 1
        for j, q in enumerate(prob[r]):
            total = F32(total + q)
            if x < total:
                pick = j
                break
        out.append([pick])
    return np.array(out, np.int64)


def _sampling():
    prob = np.array([[0.125, 0.25, 0.5, 0.125], [0.5, 0.0, 0.25, 0.25],
                     [0.0, 0.0, 0.0, 1.0]], F32)
    u = np.array([[0.1], [0.375], [0.99], [0.5], [0.0], [1.5], [0.3]], F32)
    rows = np.array([[0], [0], [0], [1], [1], [1], [2]], np.int64)
    _add("multinomial_from_uniform_rows", [("p", ann(("b", 4))), ("u", ann(("n", 1))),
                                           ("i", ann(("n", 1), "int64"))],
         'y = R.multinomial_from_uniform(p, u, i, dtype="int64")',
         [ok([T_(prob), T_(u), T_(rows)], [T_(_first_above(prob, u[:, 0], rows[:, 0]))]),
          ok([T_(prob), T_(u[:0]), T_(rows[:0])], [T_(np.zeros((0, 1), np.int64))])],
         ["relax.multinomial_from_uniform", "SI-sample-1", "EXEC-sample-1"],
         "samples from rows 0, 1 and 2: the first index whose cumulative probability "
         "exceeds u (u = 0.375 on a boundary goes to the next index; u = 1.5 takes the "
         "last); n = 7 and 0", sym=("b", "n"))
    _add("multinomial_from_uniform_int32", [("p", ann((1, 3))), ("u", ann((2, 1))),
                                            ("i", ann((2, 1), "int32"))],
         'y = R.multinomial_from_uniform(p, u, i, dtype="int32")',
         [ok([T_(np.array([[0.25, 0.25, 0.5]], F32)), T_(np.array([[0.3], [0.6]], F32)),
              T_(np.zeros((2, 1), np.int32))], [T_(np.array([[1], [2]], np.int32))])],
         ["relax.multinomial_from_uniform"], "int32 indices and result")
    _add("multinomial_from_uniform_bad_row", [("p", ann((2, 3))), ("u", ann((1, 1))),
                                              ("i", ann((1, 1), "int64"))],
         'y = R.multinomial_from_uniform(p, u, i)',
         [trap([T_(np.full((2, 3), 0.25, F32)), T_(np.array([[0.5]], F32)),
                T_(np.array([[2]], np.int64))], "index_out_of_bounds")],
         ["relax.multinomial_from_uniform", "EXEC-sample-1"],
         "row index 2 of a 2-row prob traps (TVM's kernel reads out of bounds)")
    _invalid("multinomial_from_uniform_shape", [("p", ann((2, 3))), ("u", ann((4, 2))),
                                                ("i", ann((4, 2), "int64"))],
             'y = R.multinomial_from_uniform(p, u, i)', "SI-sample-1",
             ["relax.multinomial_from_uniform"], "uniform samples of shape (4, 2) are rejected")


# -- layout_transform --------------------------------------------------------------------------

def _moved(x, fn, shape, pad):
    out = np.full(shape, pad, x.dtype)
    for idx in np.ndindex(*x.shape):
        out[fn(*idx)] = x[idx]
    return out


def _layout_transform():
    x = fdata((3, 5), 2401)
    _add("layout_transform_permute", [("x", ann(("n", 5)))],
         "y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i)), pad_value=None)",
         [ok([T_(x)], [T_(x.T.copy())]), ok([T_(x[:0])], [T_(np.zeros((5, 0), F32))])],
         ["relax.layout_transform", "SI-manip-layout-1", "SI-manip-layout-2"],
         "a transpose written as an index map, at n = 3 and 0", sym=("n",))
    c = fdata((1, 8, 2, 2), 2402)
    _add("layout_transform_nchw4c", [("x", ann((1, 8, 2, 2)))],
         "y = R.layout_transform(x, index_map=T.index_map(lambda n, c, h, w: "
         "(n, c // 4, h, w, c % 4)), pad_value=None)",
         [ok([T_(c)], [T_(c.reshape(1, 2, 4, 2, 2).transpose(0, 1, 3, 4, 2).copy())])],
         ["relax.layout_transform"], "NCHW to NCHW4c: 8 channels in 2 blocks of 4")
    p = fdata((4, 6), 2403)
    _add("layout_transform_pad", [("x", ann((4, 6)))],
         "y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j // 4, i, j % 4)), "
         "pad_value=T.float32(-1.0))",
         [ok([T_(p)], [T_(_moved(p, lambda i, j: (j // 4, i, j % 4), (2, 4, 4), F32(-1.0)))])],
         ["relax.layout_transform", "EXEC-manip-layout-1"],
         "6 columns split by 4 pad to 8: the 2 extra positions per row hold pad_value -1")
    _add("layout_transform_pad_missing", [("x", ann((6,), "int32"))],
         "y = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), "
         "pad_value=None)",
         [trap([T_(np.arange(6, dtype=np.int32))], "index_out_of_bounds")],
         ["relax.layout_transform", "EXEC-manip-layout-1"],
         "6 elements into (2, 4) leave 2 positions with no value and no pad_value: a trap "
         "(TVM leaves them unwritten)")
    _invalid("layout_transform_ndim", [("x", ann((4, 6)))],
             "y = R.layout_transform(x, index_map=T.index_map(lambda i: (i,)), pad_value=None)",
             "SI-manip-layout-1", ["relax.layout_transform"],
             "a 1-index map for a 2-d tensor is rejected")
    _invalid("layout_transform_negative", [("x", ann((4,)))],
             "y = R.layout_transform(x, index_map=T.index_map(lambda i: (i - 1,)), "
             "pad_value=None)", "SI-manip-layout-2", ["relax.layout_transform"],
             "a map with a negative result (i - 1 at i = 0) is rejected")


def cases() -> list[Case]:
    _CASES.clear()
    _elementwise()
    _manipulate()
    _search()
    _quantize()
    _hamming_window()
    _sampling()
    _layout_transform()
    return list(_CASES)
