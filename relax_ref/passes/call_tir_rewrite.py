"""CallTIRRewrite (TVM's name): destination-passing calls become explicit allocations and
a direct call of the kernel (spec/passes.md, PASS-call-tir-rw-*).

    y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((n,), "float32"))
becomes
    alloc = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0, R.str("global"))
    _ = cls.f(x, alloc)
    y = alloc

The direct call stores into ``alloc``, an effect: it is only legal where effects are
(outside dataflow blocks, in an impure or ``relax.force_pure`` function, WF-pure-1..2),
which is where TVM's pipeline runs the pass (after ToNonDataflow and
RemovePurityChecking). Elsewhere the call is kept as it is (PASS-call-tir-rw-4).
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.call_kinds import CALL_KINDS, call_kind
from relax_ref.ir.dtype import INT64
from relax_ref.ir.uses import stored_storage
from relax_ref.semantics.normalize import normalize

from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import EffectScopeRewriter, finish

#: PASS-call-tir-rw-1: the calls the pass lowers: every destination-passing call kind
#: but call_tir_with_grad (TVM's set).
REWRITTEN = tuple(name for name, kind in CALL_KINDS.items()
                  if kind.dps and name != "relax.call_tir_with_grad")
ALLOC_TENSOR = rx.Op("relax.builtin.alloc_tensor")


def alloc_tensor_call(sinfo: si.TensorStructInfo) -> rx.Call:
    """PASS-call-tir-rw-2: ``R.builtin.alloc_tensor`` of a tensor of ``sinfo`` on device
    0, global scope (what TVM writes for a tensor without a virtual device)."""
    return rx.Call(ALLOC_TENSOR, (rx.ShapeExpr(tuple(sinfo.shape)), rx.DataTypeImm(sinfo.dtype),
                                  rx.PrimValue(P.IntImm(0, INT64)), rx.StringImm("global")),
                   sinfo_args=(sinfo,))


def _writes_inputs(func: tir.PrimFunc, inputs: int, allowed: set[int]) -> bool:
    """Whether the kernel stores into one of its first ``inputs`` parameters other than
    those in ``allowed`` (a call_tir input it may not write, EXEC-dps-4)."""
    stored = stored_storage(func)
    for k, param in enumerate(func.params[:inputs]):
        buf = func.buffer_of(param)
        if k not in allowed and buf is not None and \
                (buf.data if buf.data is not None else buf) in stored:
            return True
    return False


class _CallTIRRewrite(EffectScopeRewriter):
    def __init__(self, mod: rx.IRModule) -> None:
        super().__init__()
        self.mod = mod
        self.read_only: set[int] = set()  # variables that may hold a constant's data

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        value = b.value
        if isinstance(value, rx.Constant) or (isinstance(value, rx.Var)
                                             and id(value) in self.read_only):
            self.read_only.add(id(b.var))
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name in REWRITTEN and self.effects_allowed
                and not self.in_dataflow):
            return super().binding(b)
        call = self.expr(value)
        lowered = self._lower(call)
        if lowered is None:
            return super().binding(b)
        bindings, result = lowered
        var = self.bind_var(b.var)
        if isinstance(b, rx.MatchCast):
            return bindings + [rx.MatchCast(var, result, b.struct_info, span=b.span)]
        return bindings + [rx.VarBinding(var, result, span=b.span)]

    def _lower(self, call: rx.Call) -> tuple[list[rx.Binding], rx.Expr] | None:
        """The allocations and the direct call replacing ``call``, and the expression of
        its result; None where the pass declines (PASS-call-tir-rw-4)."""
        kind = call_kind(call.op.name)
        callee, args = call.args[0], call.args[1]
        if not isinstance(args, rx.Tuple) or not call.sinfo_args:
            return None
        inputs = list(args.fields)
        extra: list[rx.Expr] = []
        if len(call.args) > 2:  # tir_vars (the earlier dialect): scalars after the outputs
            if not isinstance(call.args[2], rx.ShapeExpr):
                return None
            extra = [rx.PrimValue(d) for d in call.args[2].values]
        indices = [-1] * len(call.sinfo_args)
        if kind.inplace:
            written = call.attrs.get("inplace_indices")
            indices = list(written) if isinstance(written, (tuple, list)) else [written]
            if len(indices) != len(call.sinfo_args) or any(
                    not isinstance(i, int) or not -1 <= i < len(inputs) for i in indices):
                return None
        for sinfo, idx in zip(call.sinfo_args, indices):
            if idx >= 0:
                # PASS-call-tir-rw-3: the input is the output; a constant's data is
                # copied by call_tir_inplace (EXEC-dps-3), never written in place.
                arg = inputs[idx]
                if not isinstance(arg, rx.Var) or id(arg) in self.read_only:
                    return None
            elif not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None \
                    or sinfo.dtype.is_void or sinfo.vdevice is not None:
                return None
        if kind.tir_callee:
            func = self.mod.functions.get(callee.name_hint) \
                if isinstance(callee, rx.GlobalVar) else None
            if not isinstance(func, tir.PrimFunc) or \
                    _writes_inputs(func, len(inputs), {i for i in indices if i >= 0}):
                return None
        bindings: list[rx.Binding] = []
        outs: list[rx.Expr] = []
        for sinfo, idx in zip(call.sinfo_args, indices):
            if idx >= 0:
                outs.append(inputs[idx])
                continue
            alloc = rx.Var("alloc", None, span=call.span)
            bindings.append(rx.VarBinding(alloc, alloc_tensor_call(sinfo), span=call.span))
            outs.append(alloc)
        fresh = [o for o, idx in zip(outs, indices) if idx < 0]
        target = callee if not isinstance(callee, rx.ExternFunc) else \
            rx.ExternFunc(callee.global_symbol, span=callee.span)
        bindings.append(rx.VarBinding(rx.Var("_", None, span=call.span),
                                      rx.Call(target, tuple(inputs + fresh + extra),
                                              span=call.span), span=call.span))
        result = outs[0] if len(outs) == 1 else rx.Tuple(tuple(outs), span=call.span)
        return bindings, result


def effects_allowed_form(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: a random program as TVM's pipeline hands it to the lowering passes
    (LegalizeOps, ToNonDataflow, RemovePurityChecking)."""
    from .legalize_ops import legalize_ops
    from .remove_purity_checking import remove_purity_checking
    from .to_non_dataflow import to_non_dataflow

    return remove_purity_checking(to_non_dataflow(legalize_ops(mod)))


@register_pass("CallTIRRewrite", exact=True, fuzz_inputs=fuzz_inputs_for("CallTIRRewrite"))
def call_tir_rewrite(mod: rx.IRModule) -> rx.IRModule:
    """PASS-call-tir-rw-1..5: call_tir, call_tir_inplace and call_dps_packed become
    R.builtin.alloc_tensor and a direct call of the kernel."""
    mod = normalize(mod)
    return finish(_CallTIRRewrite(mod).module(mod))
