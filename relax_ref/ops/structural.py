"""Structural calls and the lowered-form builtins: ``call_tir`` and the other
destination-passing calls, packed calls, explicit memory (``R.memory.*``, ``R.vm.*``,
``R.builtin.alloc_tensor``), ``R.print`` and ``R.assert_op`` (spec/ops/structural.md).

Their deduction rules live here; their evaluation needs the interpreter's state (the
module, memory, the packed-function registry), so ``compute`` is None and
``semantics/interpreter.py`` evaluates them by name. Their calls are kept exactly as
written (``raw_call``): operands are positional, as TVM prints them.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import VOID

from .common import shape_values_of
from .registry import DeduceContext, OpDef, Operand, register

FAMILY = "structural"
VOID_SINFO = si.TupleStructInfo(())


def _sinfo_args_result(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-dps-1: the written output struct info (a tuple when several)."""
    out = ctx.call.sinfo_args
    if not out:
        raise ctx.error("needs the output struct info (out_ty=...)", rule="SI-struct-dps-1")
    return out[0] if len(out) == 1 else si.TupleStructInfo(tuple(out))


def deduce_call_tir(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-dps-1..2: call_tir(f, (args...), [tir_vars]) has the struct info written
    in out_ty; f must be a function of the module and args a tuple."""
    args = ctx.args
    if len(args) not in (2, 3):
        raise ctx.error("takes (function, (arguments...)) and optionally tir_vars",
                        rule="SI-struct-dps-2")
    if not isinstance(args[0], (rx.GlobalVar, rx.ExternFunc, rx.Var)):
        raise ctx.error("calls a function of the module", rule="SI-struct-dps-2")
    if not isinstance(ctx.arg_sinfo[1], si.TupleStructInfo):
        raise ctx.error("takes its arguments as a tuple", rule="SI-struct-dps-2")
    if len(args) == 3 and not isinstance(ctx.arg_sinfo[2], si.ShapeStructInfo):
        raise ctx.error("takes tir_vars as a shape (R.shape([...]))", rule="SI-struct-dps-2")
    out = _sinfo_args_result(ctx)
    for s in ctx.call.sinfo_args:
        if not isinstance(s, si.TensorStructInfo):
            raise ctx.error("outputs must be tensors", rule="SI-struct-dps-2")
    return out


def deduce_packed(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-packed-1: a packed call has the struct info written in sinfo_args, or
    nothing is known (R.Any)."""
    out = ctx.call.sinfo_args
    if not out:
        return si.ObjectStructInfo()
    return out[0] if len(out) == 1 else si.TupleStructInfo(tuple(out))


def deduce_void(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-void-1: effects only; the value is the empty tuple."""
    return VOID_SINFO


def deduce_object(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-storage-1: a storage object."""
    return si.ObjectStructInfo()


def _dtype_operand(ctx: DeduceContext, i: int):
    arg = ctx.args[i]
    if isinstance(arg, rx.DataTypeImm):
        return arg.value
    return VOID


def deduce_alloc_tensor_at(shape_index: int, dtype_index: int):
    def deduce(ctx: DeduceContext) -> si.StructInfo:
        """SI-struct-alloc-1: a tensor of the given shape and dtype."""
        if len(ctx.args) <= max(shape_index, dtype_index):
            raise ctx.error("has too few operands", rule="SI-struct-alloc-1")
        dims = shape_values_of(ctx, shape_index)
        dtype = _dtype_operand(ctx, dtype_index)
        if ctx.call.sinfo_args and isinstance(ctx.call.sinfo_args[0], si.TensorStructInfo):
            written = ctx.call.sinfo_args[0]
            if dims is None:
                return written
        if dims is None:
            s = ctx.arg_sinfo[shape_index]
            ndim = s.ndim if isinstance(s, si.ShapeStructInfo) else si.UNKNOWN_NDIM
            return si.TensorStructInfo(None, dtype, ndim)
        return si.TensorStructInfo(tuple(dims), dtype)
    return deduce


def _reg(name: str, operands, deduce, pure: bool, rule: str, doc: str = "",
         legalize=None) -> None:
    register(OpDef(name, tuple(Operand(o, "any") for o in operands), deduce=deduce,
                   compute=None, pure=pure, family=FAMILY, raw_call=True, spec_rule=rule,
                   doc=doc, legalize=legalize, legalize_any_shape=legalize is not None))


def _legalize_print(ctx):
    """PASS-legalize-7: ``R.call_packed("relax.run.print", format, values...)``."""
    return ctx.call_packed("relax.run.print", *ctx.args, pure=False)


def _legalize_assert(ctx):
    """PASS-legalize-7: ``R.call_packed("relax.run.assert_op", condition, format,
    values...)``; a tuple of format arguments written as a tuple is spread."""
    args = list(ctx.args[:2])
    for a in ctx.args[2:]:
        args.extend(a.fields if isinstance(a, rx.Tuple) else (a,))
    return ctx.call_packed("relax.run.assert_op", *args, pure=False)


_reg("relax.call_tir", ("func", "args", "tir_vars"), deduce_call_tir, True, "SI-struct-dps-1")
_reg("relax.call_tir_inplace", ("func", "args", "tir_vars"), deduce_call_tir, True,
     "SI-struct-dps-1")
_reg("relax.call_tir_with_grad", ("func", "args", "tir_vars"), deduce_call_tir, True,
     "SI-struct-dps-1")
_reg("relax.call_dps_packed", ("func", "args"), deduce_call_tir, True, "SI-struct-dps-1")
_reg("relax.call_pure_packed", ("func",), deduce_packed, True, "SI-struct-packed-1")
_reg("relax.call_inplace_packed", ("func",), deduce_packed, True, "SI-struct-packed-1")
_reg("relax.call_builtin_with_ctx", ("func", "args"), deduce_packed, False, "SI-struct-packed-1")
_reg("relax.print", ("values",), deduce_void, False, "SI-struct-void-1",
     legalize=_legalize_print)
_reg("relax.assert_op", ("condition", "format_args"), deduce_void, False, "SI-struct-void-1",
     legalize=_legalize_assert)
_reg("relax.memory.kill_storage", ("storage",), deduce_void, False, "SI-struct-void-1")
_reg("relax.memory.kill_tensor", ("tensor",), deduce_void, False, "SI-struct-void-1")


def _reg_alloc(name: str, operands: tuple[Operand, ...], deduce, rule: str) -> None:
    """SI-struct-alloc-2: an allocation binds its arguments as TVM's Python function
    does (keywords, TVM's defaults filled in, a dtype written as a string read as
    ``R.dtype``), so its canonical call has every operand, positional, as TVM prints it.
    It is pure (TVM's FPurity) but an ``allocator``: equal calls are distinct values
    (spec/ops/structural.md)."""
    register(OpDef(name, operands, deduce=deduce, compute=None, pure=True, family=FAMILY,
                   spec_rule=rule, allocator=True))


_SCOPE = Operand("storage_scope", "str", default="global")
_DEVICE0 = Operand("runtime_device_ind", "prim", default=0)
_reg_alloc("relax.memory.alloc_storage",
           (Operand("size", "shape"), Operand("virtual_device_index", "prim"),
            Operand("storage_scope", "str"), Operand("dtype", "dtype")),
           deduce_object, "SI-struct-storage-1")
_reg_alloc("relax.memory.alloc_tensor",
           (Operand("storage", "any"), Operand("offset", "prim"), Operand("shape", "shape"),
            Operand("dtype", "dtype"), _DEVICE0),
           deduce_alloc_tensor_at(2, 3), "SI-struct-alloc-1")
_reg_alloc("relax.builtin.alloc_tensor",
           (Operand("shape", "shape"), Operand("dtype", "dtype"),
            Operand("runtime_device_index", "prim"), _SCOPE),
           deduce_alloc_tensor_at(0, 1), "SI-struct-alloc-1")
_reg_alloc("relax.vm.alloc_storage",
           (Operand("shape", "shape"), Operand("runtime_device_index", "prim"),
            Operand("dtype", "dtype"), _SCOPE),
           deduce_object, "SI-struct-storage-1")
_reg_alloc("relax.vm.alloc_tensor",
           (Operand("storage", "any"), Operand("offset", "prim"), Operand("shape", "shape"),
            Operand("dtype", "dtype"), _DEVICE0),
           deduce_alloc_tensor_at(2, 3), "SI-struct-alloc-1")
_reg("relax.vm.kill_object", ("obj",), deduce_void, False, "SI-struct-void-1")


def deduce_call_tir_dyn(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-dyn-1: vm.call_tir_dyn(f, (args..., shape)) calls PrimFunc ``f`` of the
    module in place on tensors already allocated (inputs and outputs), the last field
    a shape holding the symbolic arguments; its value is the empty tuple (impure)."""
    if len(ctx.args) != 2:
        raise ctx.error("takes (function, (arguments..., R.shape([...])))",
                        rule="SI-struct-dyn-1")
    if not isinstance(ctx.args[0], rx.GlobalVar):
        raise ctx.error("calls a PrimFunc of the module (cls.f)", rule="SI-struct-dyn-1")
    s = ctx.arg_sinfo[1]
    if not isinstance(s, si.TupleStructInfo) or not s.fields or \
            not isinstance(s.fields[-1], si.ShapeStructInfo):
        raise ctx.error("takes its arguments as a tuple whose last field is a shape (the "
                        "symbolic arguments)", rule="SI-struct-dyn-1")
    return VOID_SINFO


_reg("relax.vm.call_tir_dyn", ("func", "args"), deduce_call_tir_dyn, False, "SI-struct-dyn-1")
_reg("relax.null_value", (), deduce_object, True, "SI-struct-storage-1")


__all__ = ["VOID_SINFO"]
