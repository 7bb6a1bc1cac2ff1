"""``R.nn.attention`` and ``R.nn.attention_bias`` (spec/ops/nn.md, SI-nn-attention-*):
``softmax(Q K^T * scale + bias) V`` in the input dtype, with TVM's causal masks.
"""
from __future__ import annotations


import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT32, INT64
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, common_dtype, expr_text, int_const, lowest_value, provably_ne, quiet,
    same_expr, tensor_arg,
)
from .nn import provably_indivisible
from .nn_lowering import add, cast_stage, proved, zero_if_empty
from .registry import Attr, DeduceContext, OpDef, Operand, one_of, register, to_float, to_int

FAMILY = "nn"  # spec/ops/nn.md


def _opt_scale(value):
    """The attention scale: None, or a number held as a float32 FloatImm like TVM's
    ``Optional<FloatImm>`` attribute (printed ``T.float32(0.5)``)."""
    if value is None:
        return None
    if isinstance(value, (P.FloatImm, P.IntImm)):
        value = value.value
    return P.FloatImm(to_float(value), FLOAT32)


def _opt_window_size(value):
    if value is None:
        return None
    if isinstance(value, P.IntImm):
        value = value.value
    return to_int(value)


def _opt_causal_mask(value):
    if value is None:
        return None
    return one_of("TopLeft", "BottomRight")(value)


def deduce_attention(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-attention-1..5: query ``(B, Sq, H, D)``, key ``(B, Skv, Hk, D)``, value
    ``(B, Skv, Hv, Dv)``, optional bias broadcastable to ``(B, H, Sq, Skv)``; the result is
    ``(B, Sq, H, Dv)`` in the common dtype.

    1. Each operand of known ndim is 4-d (bias included).
    2. Provably different batch sizes, key/value lengths or query/key head dimensions
       are errors; so is a query head count provably not a multiple of the key's or the
       value's (grouped-query attention).
    3. Each bias dimension is 1 or provably not different from the corresponding one;
       the last is provably not different from Skv.
    4. The dtypes agree (SI-op-dtype-1).
    5. ``window_size`` (>= 1) needs a ``causal_mask``.
    The shape is known when query and value shapes are."""
    return _deduce_attention(ctx, with_bias=len(ctx.args) > 3)


def _deduce_attention(ctx: DeduceContext, with_bias: bool) -> si.StructInfo:
    q, k, v = (tensor_arg(ctx, i, n) for i, n in enumerate(("query", "key", "value")))
    bias = tensor_arg(ctx, 3, "bias") if with_bias else None
    named = [("query", q), ("key", k), ("value", v)] + ([("bias", bias)] if bias else [])
    for name, t in named:
        if t.ndim >= 0 and t.ndim != 4:
            raise ctx.error(f"the {name} must be 4-d (batch, sequence, heads, head_dim), "
                            f"found ndim {t.ndim}", rule="SI-nn-attention-1")
    dtype = common_dtype(ctx, *(t.dtype for _, t in named))
    window = ctx.attr("window_size")
    if window is not None:
        if window < 1:
            raise ctx.error(f"window_size must be >= 1, found {window}", rule="SI-nn-attention-5")
        if ctx.attr("causal_mask") is None:
            raise ctx.error("window_size needs a causal_mask", rule="SI-nn-attention-5")

    def must_not_differ(a, b, what):
        if provably_ne(ctx, a, b):
            raise ctx.error(f"{what} differ: {expr_text(a)} and {expr_text(b)}",
                            rule="SI-nn-attention-2")

    def must_divide(heads, other, what):
        if ctx.analyzer.can_prove(P.EQ(other, P.IntImm(0, other.dtype), BOOL)) or \
                provably_indivisible(ctx, heads, other):
            raise ctx.error(f"the query's {expr_text(heads)} heads are not a multiple of the "
                            f"{what}'s {expr_text(other)}", rule="SI-nn-attention-2")

    if q.shape is not None and k.shape is not None:
        must_not_differ(q.shape[0], k.shape[0], "the query and key batch sizes")
        must_not_differ(q.shape[3], k.shape[3], "the query and key head dimensions")
        must_divide(q.shape[2], k.shape[2], "key")
    if q.shape is not None and v.shape is not None:
        must_not_differ(q.shape[0], v.shape[0], "the query and value batch sizes")
        must_divide(q.shape[2], v.shape[2], "value")
    if k.shape is not None and v.shape is not None:
        must_not_differ(k.shape[1], v.shape[1], "the key and value sequence lengths")
    if bias is not None and bias.shape is not None:
        full = [q.shape[0], q.shape[2], q.shape[1]] if q.shape is not None else [None] * 3
        skv = k.shape[1] if k.shape is not None else (v.shape[1] if v.shape is not None else None)
        for dim, want, what in zip(bias.shape, full + [skv],
                                   ("batch size", "head count", "query length", "key length")):
            if want is None or (int_const(dim) == 1 and what != "key length"):
                continue
            if provably_ne(ctx, dim, want):
                raise ctx.error(f"the bias {what} {expr_text(dim)} is neither 1 nor "
                                f"{expr_text(want)}" if what != "key length" else
                                f"the bias key length {expr_text(dim)} differs from "
                                f"{expr_text(want)}",
                                rule="SI-nn-attention-3")
    if q.shape is None or v.shape is None:
        return si.TensorStructInfo(None, dtype, 4, q.vdevice)
    return si.TensorStructInfo((q.shape[0], q.shape[1], q.shape[2], v.shape[3]), dtype,
                               vdevice=q.vdevice)


def attention_mask(seq_q: int, seq_kv: int, causal_mask: str | None,
                   window_size: int | None) -> np.ndarray | None:
    """EXEC-nn-attention-2: which keys each query sees, or None for all. ``TopLeft``:
    key ``j`` is visible to query ``i`` iff ``j <= i``; ``BottomRight``: iff
    ``j <= i + |seq_q - seq_kv|`` (TVM's documented mask, ``np.tril(k=abs(...))``). A
    window additionally hides keys ``j < i + offset - (window_size - 1)``."""
    if causal_mask is None:
        return None
    offset = 0 if causal_mask == "TopLeft" else abs(seq_q - seq_kv)
    i = np.arange(seq_q)[:, None]
    j = np.arange(seq_kv)[None, :]
    visible = j <= i + offset
    if window_size is not None:
        visible &= j >= i + offset - (window_size - 1)
    return visible


def attention_dtype(dtype: np.dtype) -> np.dtype:
    """EXEC-nn-attention-1: the dtype attention computes in: float32 for floats narrower
    than 32 bits (float16, bfloat16, float8; rounded once at the end), else the dtype.
    (NumPy's float16 ``matmul`` and ``sum`` round at places of their own choosing.)"""
    dtype = np.dtype(dtype)
    if dtype.kind == "V" or (dtype.kind == "f" and dtype.itemsize < 4):
        return np.dtype(np.float32)
    return dtype


@quiet
def _attention(attrs, q, k, v, bias=None):
    """EXEC-nn-attention-1..2: ``softmax(Q K^T * scale + bias) V`` per batch and query
    head, query head ``h`` reading key/value head ``h // (H / Hk)``; ``scale`` None means
    ``1 / sqrt(D)``; masked keys get weight 0 (a row that sees no key is NaN). Computed
    in ``attention_dtype``."""
    rule = "EXEC-nn-attention-1"
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim != 4:
            raise OpRuntimeError("shape_mismatch", f"the {name} must be 4-d, found "
                                 f"{t.ndim}-d", rule=rule)
    b, sq, h, d = q.shape
    hk, hv = k.shape[2], v.shape[2]
    if k.shape[0] != b or v.shape[0] != b or k.shape[3] != d or k.shape[1] != v.shape[1] \
            or any((x == 0 and h != 0) or (x != 0 and h % x) for x in (hk, hv)):
        raise OpRuntimeError("shape_mismatch", f"query {q.shape}, key {k.shape} and value "
                             f"{v.shape} do not agree", rule=rule)
    skv = k.shape[1]
    dt = attention_dtype(q.dtype)
    qt = q.astype(dt).transpose(0, 2, 1, 3)
    kt = np.repeat(k.astype(dt).transpose(0, 2, 1, 3), h // hk if hk else 1, axis=1)
    vt = np.repeat(v.astype(dt).transpose(0, 2, 1, 3), h // hv if hv else 1, axis=1)
    p = np.matmul(qt, np.swapaxes(kt, -1, -2))
    scale = attrs.get("scale")
    if scale is None:
        p = p / np.sqrt(dt.type(d))
    else:
        p = p * dt.type(scale.value)
    if bias is not None:
        try:
            if np.broadcast_shapes(bias.shape, p.shape) != p.shape:
                raise ValueError
        except ValueError:
            raise OpRuntimeError("shape_mismatch", f"the bias {bias.shape} does not broadcast "
                                 f"to {p.shape}", rule=rule) from None
        p = p + bias.astype(dt)
    p = p.astype(dt)
    mask = attention_mask(sq, skv, attrs.get("causal_mask"), attrs.get("window_size"))
    if mask is None:
        m = p.max(axis=-1, keepdims=True, initial=lowest_value(dt)) if skv else p
        e = np.exp(p - m)
    else:
        m = np.where(mask, p, lowest_value(dt)).max(axis=-1, keepdims=True,
                                                     initial=lowest_value(dt))
        e = np.where(mask, np.exp(p - m), dt.type(0))
    s = (e / e.sum(axis=-1, keepdims=True, dtype=dt)).astype(dt)
    out = np.matmul(s, vt).astype(q.dtype)
    return np.ascontiguousarray(out.transpose(0, 2, 1, 3))


# -- attention_var_len ------------------------------------------------------------------------

def _bind_var_len(args: dict) -> dict:
    """SI-call-3: ``seqstart_k`` and ``max_seqlen_k`` default to the query's (TVM's
    Python function)."""
    args.setdefault("seqstart_k", args.get("seqstart_q"))
    args.setdefault("max_seqlen_k", args.get("max_seqlen_q"))
    return args


def deduce_attention_var_len(ctx: DeduceContext) -> si.StructInfo:
    """SI-nn-attention_var_len-1..2.

    1. queries, keys and values follow SI-nn-attention-1..5 (no bias); their batch size
       provably different from 1 is an error (the sequences are concatenated on axis 1).
    2. seqstart_q and seqstart_k are 1-d integer tensors, max_seqlen_q and max_seqlen_k
       0-d integer tensors, where known; the two seqstart lengths provably differing is
       an error.
    The result is the attention's: ``(1, total_q, H, Dv)``."""
    out = _deduce_attention(ctx, with_bias=False)
    rule = "SI-nn-attention_var_len-1"
    for i in range(3):
        t = tensor_arg(ctx, i)
        if t.shape is not None and provably_ne(ctx, t.shape[0], 1):
            raise ctx.error(f"operand {i} has batch size {expr_text(t.shape[0])}; the "
                            f"sequences are concatenated in a batch of 1", rule=rule)
    rule2 = "SI-nn-attention_var_len-2"
    starts = []
    for i, name, ndim in ((3, "seqstart_q", 1), (4, "max_seqlen_q", 0), (5, "seqstart_k", 1),
                          (6, "max_seqlen_k", 0)):
        t = tensor_arg(ctx, i, name)
        if not t.dtype.is_void and not t.dtype.is_integer:
            raise ctx.error(f"{name} must be an integer tensor, found {t.dtype}", rule=rule2)
        if t.ndim >= 0 and t.ndim != ndim:
            raise ctx.error(f"{name} must be {ndim}-d, found ndim {t.ndim}", rule=rule2)
        if ndim == 1 and t.shape is not None:
            starts.append(t.shape[0])
    if len(starts) == 2 and provably_ne(ctx, starts[0], starts[1]):
        raise ctx.error(f"seqstart_q has {expr_text(starts[0])} entries, seqstart_k "
                        f"{expr_text(starts[1])}", rule=rule2)
    return out


def _segments(starts: np.ndarray, total: int, bound: np.ndarray, what: str, rule: str):
    """EXEC-nn-attention_var_len-1: ``starts`` begins at 0, never decreases, ends at
    ``total``; ``bound`` (the max_seqlen operand) is at least every length."""
    s = np.asarray(starts).astype(np.int64).reshape(-1)
    lengths = np.diff(s)
    if s.size == 0 or s[0] != 0 or s[-1] != total or np.any(lengths < 0):
        raise OpRuntimeError("invalid_value", f"seqstart_{what} {s.tolist()} must rise from 0 "
                             f"to {total}", rule=rule)
    if lengths.size and int(np.max(lengths)) > int(np.asarray(bound)):
        raise OpRuntimeError("invalid_value", f"max_seqlen_{what} {int(np.asarray(bound))} is "
                             f"below the longest sequence ({int(np.max(lengths))})", rule=rule)
    return s


@quiet
def _attention_var_len(attrs, q, k, v, seqstart_q, max_seqlen_q, seqstart_k, max_seqlen_k):
    """EXEC-nn-attention_var_len-1: sequence ``b`` is query rows
    ``[seqstart_q[b], seqstart_q[b+1])`` with key/value rows
    ``[seqstart_k[b], seqstart_k[b+1])``; each is attended on its own as
    ``R.nn.attention`` (EXEC-nn-attention-1..2: its masks use the sequence's own
    lengths) and written at its query rows."""
    rule = "EXEC-nn-attention_var_len-1"
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or q.shape[0] != 1 or k.shape[0] != 1 \
            or v.shape[0] != 1:
        raise OpRuntimeError("shape_mismatch", f"queries {q.shape}, keys {k.shape}, values "
                             f"{v.shape}: 4-d with batch size 1", rule=rule)
    if np.ndim(seqstart_q) != 1 or np.ndim(seqstart_k) != 1 or \
            np.size(seqstart_q) != np.size(seqstart_k):
        raise OpRuntimeError("shape_mismatch", "seqstart_q and seqstart_k must be 1-d of one "
                             "length", rule=rule)
    sq = _segments(seqstart_q, q.shape[1], max_seqlen_q, "q", rule)
    sk = _segments(seqstart_k, k.shape[1], max_seqlen_k, "k", rule)
    out = np.zeros(q.shape[:3] + (v.shape[3],), q.dtype)
    for b in range(sq.size - 1):
        a, e, c, f = sq[b], sq[b + 1], sk[b], sk[b + 1]
        out[:, a:e] = _attention(attrs, q[:, a:e], k[:, c:f], v[:, c:f])
    return out


# -- lowering (spec/ops/nn.md TE-leg-nn-8) ----------------------------------------------------

def _legalize_attention(ctx):
    """EXEC-nn-attention-1..2 as stages of one PrimFunc: the scores ``Q K^T`` (query head
    ``h`` reading key/value head ``h // (H / Hk)``), scaled, with the bias, then per row
    the maximum over the visible keys (from the lowest finite value, as the semantics),
    the exponentials (zero where masked), their sum, the weights ``e / sum`` and the sum
    of weights times values, written as ``(B, Sq, H, Dv)``. The op's shape checks (batch
    sizes, lengths, head dimension, head counts dividing ``H``), where not proved, are
    the PrimFunc's guards (TE-leg-7), and so is a bias broadcast compile time cannot
    decide (TE-leg-3). Computed in ``attention_dtype`` (float32 for 16-bit floats), then a
    cast stage."""
    q, k, v = ctx.tensor(0, "query"), ctx.tensor(1, "key"), ctx.tensor(2, "value")
    bias = ctx.tensor(3, "bias") if len(ctx.args) > 3 else None
    b, sq, h, d = q.shape
    skv, hk, hv, dv = k.shape[1], k.shape[2], v.shape[2], v.shape[3]
    ctx.require_equal(k.shape[0], b, "the key's batch and the query's")
    ctx.require_equal(v.shape[0], b, "the value's batch and the query's")
    ctx.require_equal(k.shape[3], d, "the key's head dimension and the query's")
    ctx.require_equal(v.shape[1], skv, "the value's length and the key's")
    _guard_heads(ctx, h, hk, "key")
    if not same_expr(hv, hk):
        _guard_heads(ctx, h, hv, "value")
    dt = FLOAT32 if attention_dtype(numpy_dtype(q.dtype)) == np.float32 else q.dtype

    def head(heads, hh):
        if same_expr(heads, h):
            return hh
        return P.FloorDiv(hh, P.FloorDiv(h, heads, INT64), INT64)

    rd = te.reduce_axis(d, "rd")
    score = te.compute((b, h, sq, skv), lambda bb, hh, i, j: te.sum(
        te.cast(dt, q[bb, i, hh, rd]) * te.cast(dt, k[bb, j, head(hk, hh), rd]),
        axis=rd), name="T_score")
    score = zero_if_empty(score, [d])
    scale = ctx.attr("scale")

    def scaled(bb, hh, i, j):
        p = te.cast(dt, score[bb, hh, i, j])
        if scale is None:
            p = te.div(p, te.call_intrin("sqrt", te.cast(dt, d)))
        else:
            p = p * te.const(scale.value, dt)
        if bias is not None:
            p = p + te.cast(dt, ctx.broadcast(bias, (b, h, sq, skv), (bb, hh, i, j)))
        return p
    logits = te.compute((b, h, sq, skv), scaled, name="T_logits")
    visible = _visible(ctx, sq, skv)
    lowest = te.const(lowest_value(numpy_dtype(dt)).item(), dt)
    finite_max = te.comm_reducer(lambda x, y: P.Max(x, y, x.dtype), lambda dts: [lowest],
                                 "max")
    rj = te.reduce_axis(skv, "rj")

    def masked(bb, hh, i, j):
        p = logits[bb, hh, i, j]
        return p if visible is None else te.select(visible(i, j), p, lowest)
    row_max = te.compute((b, h, sq), lambda bb, hh, i: finite_max(masked(bb, hh, i, rj),
                                                                  axis=rj), name="T_max")

    def exp(bb, hh, i, j):
        e = te.call_intrin("exp", logits[bb, hh, i, j] - row_max[bb, hh, i])
        return e if visible is None else te.select(visible(i, j), e, te.const(0, dt))
    exps = te.compute((b, h, sq, skv), exp, name="T_exp")
    rj2 = te.reduce_axis(skv, "rj")
    total = te.compute((b, h, sq), lambda bb, hh, i: te.sum(exps[bb, hh, i, rj2], axis=rj2),
                       name="T_exp_sum")
    weights = te.compute((b, h, sq, skv), lambda bb, hh, i, j: te.div(
        exps[bb, hh, i, j], total[bb, hh, i]), name="T_softmax")
    rv = te.reduce_axis(skv, "rv")
    out = te.compute((b, sq, h, dv), lambda bb, i, hh, e: te.sum(
        te.cast(dt, weights[bb, hh, i, rv]) * te.cast(dt, v[bb, rv, head(hv, hh), e]),
        axis=rv), name="T_attention")
    out = zero_if_empty(out, [skv])
    return ctx.call_te(cast_stage(out, q.dtype), ctx.op_name.split(".")[-1])


def _guard_heads(ctx, h, heads, name: str) -> None:
    """EXEC-nn-attention-1's head check: ``heads`` divides the query's ``h`` (no heads
    only for no query heads), ``h == 0 or (heads > 0 and h % heads == 0)``; the modulus
    is taken by ``max(heads, 1)`` so the guard itself never divides by zero."""
    zero, one = P.IntImm(0, INT64), P.IntImm(1, INT64)
    divides = P.EQ(P.FloorMod(h, P.Max(heads, one, INT64), INT64), zero, BOOL)
    cond = P.Or(P.EQ(h, zero, BOOL), P.And(P.GT(heads, zero, BOOL), divides, BOOL), BOOL)
    if not proved(cond):
        ctx.require(cond, "shape_mismatch", f"the {name}'s {ctx.show(heads)} heads must "
                    f"divide the query's {ctx.show(h)}")


def _visible(ctx, sq, skv):
    """EXEC-nn-attention-2 as a condition on (query i, key j), or None without a mask."""
    mask = ctx.attr("causal_mask")
    if mask is None:
        return None
    diff = P.Sub(sq, skv, INT64)
    offset = P.IntImm(0, INT64) if mask == "TopLeft" else \
        P.Max(diff, P.Sub(P.IntImm(0, INT64), diff, INT64), INT64)
    window = ctx.attr("window_size")

    def visible(i, j):
        i, j = te.index_expr(i), te.index_expr(j)
        cond = P.LE(j, add(i, offset), BOOL)
        if window is not None:
            cond = P.And(cond, P.GE(j, add(add(i, offset), -(window - 1)), BOOL), BOOL)
        return cond
    return visible


def _register_all() -> None:
    def op(name, operands, attrs, deduce, compute, rule, **extra):
        register(OpDef(f"relax.nn.{name}", operands, attrs, deduce=deduce, compute=compute,
                       family=FAMILY, spec_rule=rule, **extra))

    attention_attrs = (Attr("scale", None, _opt_scale),
                       Attr("causal_mask", None, _opt_causal_mask),
                       Attr("window_size", None, _opt_window_size))
    op("attention", (Operand("query"), Operand("key"), Operand("value"),
                     Operand("bias", optional=True)),
       attention_attrs, deduce_attention, _attention, "SI-nn-attention-1",
       when_given=(("bias", "relax.nn.attention_bias"),), legalize=_legalize_attention)
    op("attention_bias", (Operand("query"), Operand("key"), Operand("value"), Operand("bias")),
       attention_attrs, deduce_attention, _attention, "SI-nn-attention-1",
       legalize=_legalize_attention)
    # No lowering: TVM 0.27's legalization raises "not supported", and the validity of
    # seqstart (EXEC-nn-attention_var_len-1) is a run-time check no PrimFunc makes.
    op("attention_var_len",
       tuple(Operand(n) for n in ("queries", "keys", "values", "seqstart_q", "max_seqlen_q")) +
       (Operand("seqstart_k", optional=True), Operand("max_seqlen_k", optional=True)),
       attention_attrs, deduce_attention_var_len, _attention_var_len,
       "SI-nn-attention_var_len-1", bind=_bind_var_len)


_register_all()
