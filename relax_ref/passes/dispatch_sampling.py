"""DispatchSampling (TVM's ``relax.backend.DispatchSampling``, CPU path): each call of
``relax.multinomial_from_uniform`` becomes a cumsum of the probabilities and an
``R.call_tir`` of a PrimFunc picking each sample's index (spec/passes.md,
PASS-dispatch-sample-*), before DispatchSortScan and LegalizeOps.

- PASS-dispatch-sample-1. ``lv = R.cumsum(prob, axis=1, dtype=<prob's>, exclusive=False)``
  is bound before the call, which becomes ``R.call_tir(get_sample_index, (lv,
  uniform_sample, sample_indices), out_ty=<the call's>)``; a call whose operands or
  result have unknown shapes or dtypes stays (PASS-legalize-2).
- PASS-dispatch-sample-2. ``get_sample_index`` computes EXEC-sample-1 with te stages:
  ``sample_index[i, 0]`` is the largest ``j`` meeting the two conditions (a ``T.max``
  fold; TVM's kernel writes every such ``j`` in order, the last write staying), and the
  result reads it, or ``cumsum[r, vocab]`` when no ``j`` exists (an empty vocabulary, NaN
  sums), a read out of bounds that traps as the op does (a row index out of range traps
  on the first read).
"""
from __future__ import annotations

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.semantics.normalize import normalize
from relax_ref.te.legalize import LegalizeContext

from .legalize_ops import Legalizer
from .registry import register_pass
from .rewrite import finish


@register_pass("DispatchSampling", exact=True)
def dispatch_sampling(mod: rx.IRModule) -> rx.IRModule:
    """PASS-dispatch-sample-1..2."""
    mod = normalize(mod)
    rewriter = _Sampler(mod)
    out = rewriter.module(mod)
    return finish(out.with_functions({**out.functions, **rewriter.added}))


class _Sampler(Legalizer):
    """LegalizeOps' traversal with this pass's one rewrite."""

    def __init__(self, mod: rx.IRModule) -> None:
        super().__init__(mod, {"relax.multinomial_from_uniform": _multinomial}, ())

    def _legalize(self, e: rx.Expr, depth: int) -> rx.Expr:
        if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and \
                e.op.name == "relax.multinomial_from_uniform":
            return super()._legalize(e, depth)
        return e


def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, INT64)


def _multinomial(ctx: LegalizeContext) -> rx.Expr:
    prob = ctx.arg_sinfo[0]
    if not isinstance(prob, si.TensorStructInfo) or prob.shape is None or prob.dtype.is_void:
        raise ctx.decline("prob has no known shape and dtype")
    cumsum_call = ctx.call_op("relax.cumsum", ctx.args[0], axis=1, dtype=prob.dtype,
                              exclusive=False)
    cumsum_var = ctx.emit(cumsum_call, "cumsum")
    c = ctx.placeholder(cumsum_var, prob.shape, prob.dtype, "cumsum")
    usample, indices = ctx.tensor(1, "usample"), ctx.tensor(2, "sample_indices")
    vocab = prob.shape[1]
    out_shape = ctx.result_shape()
    dtype = ctx.result_sinfo.dtype
    f64 = "float64"

    def picked(i, z):
        row = te.cast(INT64, indices[i, 0])
        u = te.cast(f64, usample[i, 0])
        j = te.reduce_axis(vocab, "j")
        k = j.var
        first = te.any_of(P.LT(u, te.cast(f64, c[row, k]), BOOL),
                          P.EQ(P.Add(k, _i64(1), INT64), vocab, BOOL))
        earlier = P.Max(P.Sub(k, _i64(1), INT64), _i64(0), INT64)
        before = te.any_of(P.EQ(k, _i64(0), BOOL), P.GE(u, te.cast(f64, c[row, earlier]), BOOL))
        return te.max(te.select(P.And(first, before, BOOL), k, _i64(-1)), axis=j)
    index = te.compute(out_shape, picked, name="sample_index", axis_prefix="ax")

    def result(i, z):
        row = te.cast(INT64, indices[i, 0])
        found = index[i, z]
        # no j qualifies (an empty vocabulary, NaN sums): a read past the row traps
        fallback = te.cast(INT64, c[row, vocab])
        return te.cast(dtype, te.if_then_else(P.GE(found, _i64(0), BOOL), found, fallback))
    out = te.compute(out_shape, result, name="T_get_sample_index", axis_prefix="ax")
    return ctx.call_te(out, "get_sample_index")
