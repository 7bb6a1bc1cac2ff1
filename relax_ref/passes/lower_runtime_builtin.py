"""LowerRuntimeBuiltin (TVM's name): the memory ops become the VM's and the ops the VM
runs as builtins become calls of them (spec/passes.md, PASS-lower-builtin-*).

    R.memory.alloc_storage(size, dev, scope, dtype)  ->  R.vm.alloc_storage(size, dev, R.dtype("uint8"), scope)
    R.memory.alloc_tensor(s, off, shape, dtype, dev) ->  R.vm.alloc_tensor(s, off, shape, dtype, dev)
    R.memory.kill_tensor(x) / kill_storage(s)        ->  R.vm.kill_object(x)
    R.reshape(x, shape)                              ->  R.call_packed("vm.builtin.reshape", x, shape, ty_args=...)
    R.shape_of(x)                                    ->  R.call_packed("vm.builtin.shape_of", x, ty_args=...)
    R.tensor_to_shape(x)                             ->  R.call_packed("vm.builtin.tensor_to_shape", x, ty_args=...)
"""
from __future__ import annotations

import math

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64
from relax_ref.semantics.normalize import normalize
from relax_ref.solver.analyzer import Analyzer

from .lower_alloc_tensor import UINT8
from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import EffectScopeRewriter, finish

VM_ALLOC_STORAGE = rx.Op("relax.vm.alloc_storage")
VM_ALLOC_TENSOR = rx.Op("relax.vm.alloc_tensor")
VM_KILL_OBJECT = rx.Op("relax.vm.kill_object")

#: PASS-lower-builtin-2: ops the VM runs as a packed builtin of the same semantics.
AS_BUILTIN = {
    "relax.reshape": "vm.builtin.reshape",
    "relax.shape_of": "vm.builtin.shape_of",
    "relax.tensor_to_shape": "vm.builtin.tensor_to_shape",
}


def _same_size(e: rx.Call) -> bool:
    """PASS-lower-builtin-2: the analyzer proves the reshape keeps the element count, so
    ``vm.builtin.reshape`` (which checks nothing of R.reshape's) cannot fail where the op
    would not."""
    src, dst = e.args[0].struct_info, e.struct_info
    if not (isinstance(src, si.TensorStructInfo) and isinstance(dst, si.TensorStructInfo)
            and src.shape is not None and dst.shape is not None):
        return False
    count = lambda dims: math.prod(dims, start=P.IntImm(1, INT64))  # noqa: E731
    return Analyzer().prove_equal(count(src.shape), count(dst.shape))


class _LowerRuntimeBuiltin(EffectScopeRewriter):

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        if not isinstance(new.op, rx.Op):
            return new
        name, args = new.op.name, new.args
        if name == "relax.memory.alloc_storage" and len(args) == 4:  # PASS-lower-builtin-1
            return rx.Call(VM_ALLOC_STORAGE, (args[0], args[1], rx.DataTypeImm(UINT8), args[2]),
                           span=new.span)
        if name == "relax.memory.alloc_tensor" and len(args) in (4, 5):
            return rx.Call(VM_ALLOC_TENSOR, args, span=new.span)
        if name in ("relax.memory.kill_tensor", "relax.memory.kill_storage") and len(args) == 1:
            return rx.Call(VM_KILL_OBJECT, args, span=new.span)
        builtin = AS_BUILTIN.get(name)
        # A packed call is an effect: only where effects are allowed (PASS-lower-builtin-3).
        if builtin is not None and self.effects_allowed and not self.in_dataflow \
                and e.struct_info is not None and \
                (name != "relax.reshape" or _same_size(e)):
            return rx.Call(rx.ExternFunc(builtin), args, sinfo_args=(e.struct_info,),
                           span=new.span)
        return new


@register_pass("LowerRuntimeBuiltin", exact=True,
               fuzz_inputs=fuzz_inputs_for("LowerRuntimeBuiltin"))
def lower_runtime_builtin(mod: rx.IRModule) -> rx.IRModule:
    """PASS-lower-builtin-1..4: memory ops to the VM's, reshape/shape_of/tensor_to_shape
    to the VM's builtins."""
    mod = normalize(mod)
    return finish(_LowerRuntimeBuiltin().module(mod))
