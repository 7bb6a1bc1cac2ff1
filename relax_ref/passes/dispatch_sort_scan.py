"""DispatchSortScan (TVM's ``relax.backend.DispatchSortScan``): sort, argsort and topk
become calls of sorting library functions, cumsum and cumprod call_tir of a serial scan,
before LegalizeOps (spec/passes.md, PASS-dispatch-*).

- PASS-dispatch-1. Calls of ``relax.sort``, ``relax.argsort``, ``relax.topk``,
  ``relax.cumsum`` and ``relax.cumprod`` are rewritten (no other op); a call whose operand
  or result has an unknown shape or dtype stays as it is (PASS-legalize-2), as does a
  scan whose result dtype is bool (TIR has no bool arithmetic).
- PASS-dispatch-2. sort, argsort and topk become ``R.call_dps_packed`` of
  ``relax_ref.sort.sort`` / ``.argsort`` / ``.topk`` (``semantics/packed.py``) with TVM's
  CPU kernels' scalar arguments (axis normalized, ``is_ascend``; for topk ``k``, ``axis``,
  ``ret_type``, ``is_ascend``) and the call's struct info as the outputs'.
- PASS-dispatch-3. cumsum and cumprod become ``R.call_tir`` of the PrimFunc
  ``te.scan.scan_prim_func`` writes (TE-scan-1..3), named ``cumsum`` / ``cumprod``; equal
  PrimFuncs are added once (PASS-legalize-3).
"""
from __future__ import annotations

import re
from typing import Callable

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.semantics.normalize import normalize
from relax_ref.te.legalize import LegalizeContext
from relax_ref.te.scan import scan_prim_func

from .legalize_ops import Legalizer
from .registry import register_pass
from .rewrite import finish


@register_pass("DispatchSortScan", exact=True)
def dispatch_sort_scan(mod: rx.IRModule) -> rx.IRModule:
    """PASS-dispatch-1..3: sort/argsort/topk to library calls, cumsum/cumprod to scans."""
    mod = normalize(mod)
    rewriter = _Dispatcher(mod)
    out = rewriter.module(mod)
    return finish(out.with_functions({**out.functions, **rewriter.added}))


class _Dispatcher(Legalizer):
    """LegalizeOps' traversal (re-typing, PrimFunc sharing, the unknown-shape rule) with
    this pass's table instead of the ops' legalizations."""

    def __init__(self, mod: rx.IRModule) -> None:
        super().__init__(mod, _DISPATCH, ())

    def _legalize(self, e: rx.Expr, depth: int) -> rx.Expr:
        if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name in _DISPATCH:
            return super()._legalize(e, depth)
        return e


# -- the rewrites -------------------------------------------------------------------------------

def _data(ctx: LegalizeContext) -> si.TensorStructInfo:
    x = ctx.arg_sinfo[0]
    if not isinstance(x, si.TensorStructInfo) or x.shape is None or x.dtype.is_void:
        raise ctx.decline("the operand has no known shape and dtype")
    return x


def _axis(ctx: LegalizeContext, ndim: int) -> int:
    axis = ctx.attr("axis")
    axis = axis + ndim if axis < 0 else axis
    if not 0 <= axis < ndim:  # deduction rejects it; the op traps at run time
        raise ctx.decline(f"axis {ctx.attr('axis')} is out of range")
    return axis


def _int(value: int) -> rx.PrimValue:
    return rx.PrimValue(P.IntImm(value, INT64))


def _flag(value: bool) -> rx.PrimValue:
    return rx.PrimValue(P.IntImm(int(bool(value)), BOOL))


def _library_call(ctx: LegalizeContext, name: str, *scalars: rx.Expr) -> rx.Call:
    """PASS-dispatch-2: ``R.call_dps_packed(name, (data, scalars...), out_ty=result)``."""
    args = rx.Tuple((ctx.args[0],) + scalars)
    out = ctx.result_sinfo
    outs = tuple(out.fields) if isinstance(out, si.TupleStructInfo) else (out,)
    return rx.Call(rx.Op("relax.call_dps_packed"), (rx.ExternFunc(name), args),
                   sinfo_args=outs, span=ctx.call.span)


def _sort(ctx: LegalizeContext) -> rx.Expr:
    x = _data(ctx)
    return _library_call(ctx, "relax_ref.sort.sort", _int(_axis(ctx, x.ndim)),
                         _flag(not ctx.attr("descending")))


def _argsort(ctx: LegalizeContext) -> rx.Expr:
    x = _data(ctx)
    return _library_call(ctx, "relax_ref.sort.argsort", _int(_axis(ctx, x.ndim)),
                         _flag(not ctx.attr("descending")))


def _topk(ctx: LegalizeContext) -> rx.Expr:
    x = _data(ctx)
    return _library_call(ctx, "relax_ref.sort.topk", _int(ctx.attr("k")),
                         _int(_axis(ctx, x.ndim)), rx.StringImm(ctx.attr("ret_type")),
                         _flag(not ctx.attr("largest")))


_RESERVED = {"out_buf", "carry", "j"}


def _scan(ctx: LegalizeContext) -> rx.Expr:
    """PASS-dispatch-3."""
    x = _data(ctx)
    out = ctx.result_sinfo
    if not isinstance(out, si.TensorStructInfo) or out.dtype.is_bool:
        raise ctx.decline("a bool scan has no TIR arithmetic")
    axis = None if ctx.attr("axis") is None else _axis(ctx, x.ndim)
    op = ctx.op_name.rsplit(".", 1)[-1]
    name = getattr(ctx.args[0], "name_hint", "") or "data"
    if not name.isidentifier() or name in _RESERVED or re.fullmatch(r"i\d+", name):
        name = "data"
    created = scan_prim_func(op, tuple(x.shape), x.dtype, out.dtype, axis,
                             bool(ctx.attr("exclusive")), name)
    gv = ctx.add_prim_func(op, created.func)
    operands = (ctx.args[0],) + tuple(rx.PrimValue(v) for v in created.tir_vars)
    args: tuple[rx.Expr, ...] = (gv, rx.Tuple(operands))
    return rx.Call(rx.Op("relax.call_tir"), args, sinfo_args=(out,), span=ctx.call.span)


_DISPATCH: dict[str, Callable[[LegalizeContext], rx.Expr]] = {
    "relax.sort": _sort, "relax.argsort": _argsort, "relax.topk": _topk,
    "relax.cumsum": _scan, "relax.cumprod": _scan,
}
