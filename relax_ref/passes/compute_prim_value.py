"""ComputePrimValue (TVM's name): a Relax ``R.prim_value(expr)`` whose expression is more
than a variable or a constant becomes a call of a host PrimFunc returning it, so the VM
need not evaluate TIR arithmetic itself (spec/passes.md, PASS-prim-value-*).

    p = R.prim_value(n * 2 + m)
becomes
    p = cls.compute_symbolic_expr(n, m)
    @T.prim_func(private=True, s_tir=True)
    def compute_symbolic_expr(n: T.int64, m: T.int64) -> T.int64:
        T.func_attr({"tirx.is_host_func": True})
        return n * T.int64(2) + m
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.semantics.normalize import normalize
from relax_ref.solver.expr_utils import substitute

from .added_functions import AddedFunctions
from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import RetypingRewriter, finish
from .tir_merge import free_vars

HOST_FUNC = "tirx.is_host_func"


def host_prim_func(expr: P.PrimExpr) -> tuple[tir.PrimFunc, list[P.Var]]:
    """PASS-prim-value-2: the PrimFunc returning ``expr`` from its free variables (fresh
    parameters of the same names, in first-seen order), and those variables."""
    used = free_vars(tir.Evaluate(expr), [])
    params = [P.Var(v.name, v.dtype) for v in used]
    body = tir.Evaluate(P.Call("tir.ret", (substitute(expr, dict(zip(used, params))),),
                               expr.dtype))
    func = tir.PrimFunc(tuple(params), (), body, ret_type=expr.dtype,
                        attrs=rx.Attrs.of({HOST_FUNC: True}), is_private=True, s_tir=True)
    return func, used


class _ComputePrimValue(RetypingRewriter):
    def __init__(self, added: AddedFunctions) -> None:
        super().__init__()
        self.added = added

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.PrimValue) and not isinstance(e.value, (P.Var, P.IntImm)):
            func, used = host_prim_func(e.value)
            gv = self.added.add("compute_symbolic_expr", func)
            return rx.Call(gv, tuple(rx.PrimValue(v) for v in used), span=e.span)
        return super().expr(e)

    def call(self, e: rx.Call) -> rx.Expr:
        # PASS-prim-value-1: only a value in Relax's own right; the operands of ops,
        # whose struct info reads them as written (a call_tir's scalar), stay.
        return e if isinstance(e.op, rx.Op) else super().call(e)


@register_pass("ComputePrimValue", exact=True, fuzz_inputs=fuzz_inputs_for("ComputePrimValue"))
def compute_prim_value(mod: rx.IRModule) -> rx.IRModule:
    """PASS-prim-value-1..3: R.prim_value of a composite expression becomes a call of a
    host PrimFunc computing it."""
    mod = normalize(mod)
    added = AddedFunctions(mod)
    out = _ComputePrimValue(added).module(mod)
    return finish(out.with_functions({**out.functions, **added}))
