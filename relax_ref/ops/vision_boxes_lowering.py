"""The lowering of ``R.vision.get_valid_counts`` (spec/ops/vision.md TE-leg-vision-4): a
serial loop nest written as TIR directly, as topi's IRBuilder kernel, since ``compute``
stages cannot express a running count."""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT32, INT64
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import substitute

_TRUE = P.IntImm(1, BOOL)
_ZERO = P.IntImm(0, INT64)


def _loop(name: str, extent: P.PrimExpr, body) -> tir.For:
    v = P.Var(name, INT64)
    return tir.For(v, _ZERO, extent, "serial", body(v))


def get_valid_counts_prim_func(shape, dtype, threshold: float, id_index: int,
                               score_index: int) -> tir.PrimFunc:
    """TE-leg-vision-4: per batch ``i``, ``count[i]`` runs over the anchors, copying each
    valid row to position ``count[i]`` with its index; a second loop fills the rest with
    -1. The caller's symbolic dimensions are the PrimFunc's own (bound by the buffers)."""
    fresh = {}
    for d in shape:
        for v in P.free_vars(d):
            fresh.setdefault(v, P.Var(v.name, v.dtype))
    b, a, e = (substitute(d, fresh) for d in shape)
    data = tir.Buffer("data", (b, a, e), dtype)
    count = tir.Buffer("valid_count", (b,), INT32)
    out = tir.Buffer("out_tensor", (b, a, e), dtype)
    idx = tir.Buffer("out_indices", (b, a), INT32)
    minus = P.FloatImm(-1.0, dtype)

    def batch(i):
        cur = tir.BufferLoad(count, (i,), INT32)
        cur64 = P.Cast(INT64, cur)

        def anchor(j):
            score = tir.BufferLoad(data, (i, j, P.IntImm(score_index, INT64)), dtype)
            valid = P.GT(score, P.FloatImm(threshold, dtype), BOOL)
            if id_index >= 0:
                cls = tir.BufferLoad(data, (i, j, P.IntImm(id_index, INT64)), dtype)
                valid = P.And(valid, P.GE(cls, P.FloatImm(0.0, dtype), BOOL), BOOL)
            copy = _loop("k", e, lambda k: tir.BufferStore(
                out, tir.BufferLoad(data, (i, j, k), dtype), (i, cur64, k)))
            return tir.IfThenElse(valid, tir.SeqStmt((
                copy, tir.BufferStore(idx, P.Cast(INT32, j), (i, cur64)),
                tir.BufferStore(count, P.Add(cur, P.IntImm(1, INT32), INT32), (i,)))))

        def fill(j):
            rest = P.GE(P.Cast(INT32, j), cur, BOOL)
            return tir.IfThenElse(rest, tir.SeqStmt((
                _loop("k", e, lambda k: tir.BufferStore(out, minus, (i, j, k))),
                tir.BufferStore(idx, P.IntImm(-1, INT32), (i, j)))))
        return tir.SeqStmt((tir.BufferStore(count, P.IntImm(0, INT32), (i,)),
                            _loop("j", a, anchor), _loop("j", a, fill)))

    block = tir.SBlock("get_valid_counts", (), (), (), _loop("i", b, batch))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    handles = tuple(P.Var(buf.name, HANDLE) for buf in (data, count, out, idx))
    return tir.PrimFunc(handles, tuple(zip(handles, (data, count, out, idx))),
                        tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)


def legalize_get_valid_counts(ctx):
    data = ctx.arg_sinfo[0]
    if not isinstance(data, si.TensorStructInfo) or data.shape is None or data.dtype.is_void:
        raise ctx.decline("the shape or dtype of data is unknown")
    if not all(isinstance(d, (P.Var, P.IntImm)) for d in data.shape):
        raise ctx.decline("a dimension of data is a compound expression")
    func = get_valid_counts_prim_func(tuple(data.shape), data.dtype,
                                      ctx.attr("score_threshold"), ctx.attr("id_index"),
                                      ctx.attr("score_index"))
    gv = ctx.add_prim_func("get_valid_counts", func)
    out = ctx.result_sinfo
    return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple((ctx.args[0],))),
                   sinfo_args=tuple(out.fields), span=ctx.call.span)
