"""``multinomial_from_uniform`` (spec/ops/sampling.md): struct-info rule and NumPy
semantics. As in TVM 0.27 it has no legalization: DispatchSampling
(``passes/dispatch_sampling.py``) lowers it before LegalizeOps, to a cumsum and a
PrimFunc picking the index, and the semantics here are what that pair computes.
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.numpy_dtype import dtype_of_numpy, numpy_dtype

from .common import OpRuntimeError, tensor_arg
from .registry import Attr, DeduceContext, OpDef, Operand, lookup, register, to_dtype

FAMILY = "sampling"


def deduce_multinomial(ctx: DeduceContext) -> si.StructInfo:
    """SI-sample-1: multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype):
    ``prob`` is a 2-d float tensor ``(batch, vocab)``; ``uniform_sample`` a float and
    ``sample_indices`` a signed-integer tensor, both ``(n, 1)``: their first dimensions
    provably equal and their second the constant 1 where the shapes are known; ``dtype``
    is an integer type (TVM does not check it). The result is ``(n, 1)`` of ``dtype``."""
    prob, usample, indices = (tensor_arg(ctx, i) for i in range(3))
    for name, t, ok in (("prob", prob, lambda d: d.is_float),
                        ("uniform_sample", usample, lambda d: d.is_float),
                        ("sample_indices", indices, lambda d: d.is_int)):
        if not t.dtype.is_void and not ok(t.dtype):
            raise ctx.error(f"{name} has dtype {t.dtype}", rule="SI-sample-1")
        if t.ndim >= 0 and t.ndim != 2:
            raise ctx.error(f"{name} must be 2-d, found ndim {t.ndim}", rule="SI-sample-1")
    dtype = ctx.attr("dtype")
    if not dtype.is_int:
        raise ctx.error(f"dtype must be a signed integer type, found {dtype}",
                        rule="SI-sample-1")
    if usample.shape is None or indices.shape is None:
        return si.TensorStructInfo(None, dtype, 2, prob.vdevice)
    n = usample.shape[0]
    if not ctx.analyzer.prove_equal(n, indices.shape[0]):
        raise ctx.error(f"uniform_sample has {n} rows, sample_indices {indices.shape[0]}",
                        rule="SI-sample-1")
    for name, t in (("uniform_sample", usample), ("sample_indices", indices)):
        if not ctx.analyzer.prove_equal(t.shape[1], 1):
            raise ctx.error(f"{name} must have shape (n, 1), found second dimension "
                            f"{t.shape[1]}", rule="SI-sample-1")
    return si.TensorStructInfo((n, usample.shape[1]), dtype, vdevice=prob.vdevice)


def compute_multinomial(attrs, prob: np.ndarray, usample: np.ndarray,
                        indices: np.ndarray) -> np.ndarray:
    """EXEC-sample-1: row ``i`` samples from row ``r = sample_indices[i, 0]`` of ``prob``
    with ``u = uniform_sample[i, 0]``: with ``c`` that row's ``R.cumsum`` (in prob's
    dtype), the index is the largest ``j`` with ``u < c[j]`` or ``j = vocab - 1``, and
    ``j = 0`` or ``u >= c[j - 1]`` (for probabilities that sum to at least ``u``, the
    first ``j`` with ``u < c[j]``); comparisons are exact (float64). ``r`` outside
    ``[0, batch)``, an empty vocabulary, and a row where no ``j`` qualifies (only NaN
    sums allow it; TVM's kernel then writes nothing) are ``index_out_of_bounds``."""
    rule = "EXEC-sample-1"
    if prob.ndim != 2 or usample.ndim != 2 or indices.shape != usample.shape or \
            usample.shape[1:] != (1,):
        raise OpRuntimeError("shape_mismatch", f"shapes {prob.shape}, {usample.shape}, "
                             f"{indices.shape} are not (batch, vocab), (n, 1), (n, 1)", rule=rule)
    batch, vocab = prob.shape
    rows = indices[:, 0].astype(np.int64)
    if rows.size and (vocab == 0 or np.any((rows < 0) | (rows >= batch))):
        raise OpRuntimeError("index_out_of_bounds", f"sample_indices {rows.tolist()} for "
                             f"{batch} rows of {vocab} probabilities", rule=rule)
    out = np.zeros((len(rows), 1), numpy_dtype(attrs.get("dtype")))
    if not rows.size:
        return out
    cumsum = lookup("relax.cumsum").compute(
        rx.Attrs.of({"axis": 1, "dtype": dtype_of_numpy(prob.dtype), "exclusive": False}),
        prob)
    c = cumsum[rows].astype(np.float64)
    u = usample[:, :1].astype(np.float64)
    j = np.arange(vocab)
    first = (u < c) | (j == vocab - 1)
    before = np.concatenate([np.ones((len(rows), 1), bool), u >= c[:, :-1]], axis=1)
    picked = np.where(first & before, j, -1).max(axis=1)
    if np.any(picked < 0):  # only NaN in the cumulative sums leaves no index
        raise OpRuntimeError("index_out_of_bounds", "no index qualifies (NaN "
                             "probabilities)", rule=rule)
    out[:, 0] = picked
    return out


register(OpDef("relax.multinomial_from_uniform",
               (Operand("prob"), Operand("uniform_sample"), Operand("sample_indices")),
               (Attr("dtype", "int64", to_dtype),), deduce=deduce_multinomial,
               compute=compute_multinomial, family=FAMILY, spec_rule="SI-sample-1"))
