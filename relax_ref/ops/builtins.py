"""Builtins, devices and views: ``R.size``, ``R.wrap_param``,
``R.builtin.stop_lift_params``, ``R.to_vdevice``, ``R.call_py_func``,
``R.memory.view``, ``R.memory.ensure_zero_offset`` (spec/ops/builtins.md, family
"builtins"), each with its struct-info rule (TVM 0.27's, src/relax/op/op.cc,
tensor/datatype.cc, memory/view.cc), its semantics and, where TVM has one, its lowering.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64, VOID
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.values import PrimScalar, ShapeValue, describe_value

from .common import OpRuntimeError, cast_value, fold_mul, fresh, int_const, same_as, shape_product, \
    shape_values_of, tensor_arg
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype, to_str

FAMILY = "builtins"


# -- size --------------------------------------------------------------------------------------

def deduce_size(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-size-1: size(x) of a tensor is a 0-d int64 tensor (on x's device)."""
    x = tensor_arg(ctx, 0)
    return si.TensorStructInfo((), INT64, vdevice=x.vdevice)


def _size(attrs, x):
    """EXEC-builtin-size-1: the number of elements (an empty tensor has 0)."""
    return np.asarray(int(np.prod(x.shape, dtype=np.int64)), np.int64)


def _legalize_size(ctx):
    """TE-leg-builtin-1: a 0-d int64 tensor holding the product of x's dimensions (a
    symbolic one passed as a tir_var); x's shape unknown: declined (TVM reads the shape
    at run time with shape_of)."""
    x = ctx.arg_sinfo[0]
    if not isinstance(x, si.TensorStructInfo) or x.shape is None:
        raise ctx.decline("the shape of x is unknown")
    total = shape_product(tuple(x.shape))
    out = te.compute((), lambda: te.cast(total, INT64) if total.dtype != INT64 else total,
                     name="T_size")
    return ctx.call_te(out, "size")


# -- wrap_param, stop_lift_params, to_vdevice --------------------------------------------------

def deduce_wrap_param(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-wrap-1: wrap_param(x, dtype) is x's struct info with ``dtype``."""
    x = tensor_arg(ctx, 0)
    return si.TensorStructInfo(x.shape, ctx.attr("dtype"), x.ndim, x.vdevice)


def _wrap_param(attrs, x):
    """EXEC-builtin-wrap-1: each element cast to ``dtype`` (as R.astype)."""
    return cast_value(x, numpy_dtype(attrs.get("dtype")))


def deduce_identity(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-identity-1: stop_lift_params(x) has x's struct info; x is a tensor."""
    return same_as(tensor_arg(ctx, 0))


def deduce_to_vdevice(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-vdevice-1: to_vdevice(x, dst_vdevice) is x's shape and dtype on the
    virtual device ``dst_vdevice`` (a string, as TVM prints it: "llvm:0:global")."""
    x = tensor_arg(ctx, 0)
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, ctx.attr("dst_vdevice"))


def _copy(attrs, x):
    """EXEC-builtin-identity-1: the values of x (a fresh tensor; there is one device)."""
    return fresh(x)


# -- call_py_func -------------------------------------------------------------------------------

def deduce_call_py_func(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-pyfunc-1: call_py_func("name", (args...), ty_args=(s,)) has the one
    struct info written; the name is a string literal and the arguments a tuple."""
    if len(ctx.args) != 2 or not isinstance(ctx.args[0], rx.StringImm):
        raise ctx.error('takes ("function name", (arguments...))', rule="SI-builtin-pyfunc-1")
    if not isinstance(ctx.arg_sinfo[1], si.TupleStructInfo):
        raise ctx.error("the arguments must be a tuple", rule="SI-builtin-pyfunc-1")
    if len(ctx.call.sinfo_args) != 1:
        raise ctx.error(f"needs exactly one output struct info (ty_args), found "
                        f"{len(ctx.call.sinfo_args)}", rule="SI-builtin-pyfunc-1")
    return ctx.call.sinfo_args[0]


def _call_py_func(attrs, name, args):
    """EXEC-builtin-pyfunc-1: a Python function named in the module's text is not run
    (running code named by untrusted text is not something a reference does)."""
    raise OpRuntimeError("unsupported", f"calls the Python function {name.value!r}: "
                         f"relax_ref runs no Python function named by a module",
                         rule="EXEC-builtin-pyfunc-1")


# -- memory.view, memory.ensure_zero_offset -------------------------------------------------------

def _nbytes(dims, dtype) -> P.PrimExpr | None:
    if dims is None or dtype.is_void:
        return None
    return fold_mul(shape_product(dims), P.IntImm((dtype.bits * dtype.lanes + 7) // 8, INT64))


def deduce_view(ctx: DeduceContext) -> si.StructInfo:
    """SI-builtin-view-1: view(x, shape, dtype, relative_byte_offset) is a tensor of
    ``shape`` (x's when absent) and ``dtype`` (x's when absent). SI-builtin-view-2: where
    both sizes and the offset are constants, the view must lie inside x's bytes and the
    offset be non-negative (else checked at run time, EXEC-builtin-view-1)."""
    x = tensor_arg(ctx, 0)
    args = ctx.args
    dims = x.shape
    ndim = x.ndim
    if len(args) > 1 and not _absent(args[1]):
        dims = shape_values_of(ctx, 1)
        s = ctx.arg_sinfo[1]
        ndim = len(dims) if dims is not None else getattr(s, "ndim", si.UNKNOWN_NDIM)
    dtype = x.dtype
    if len(args) > 2 and not _absent(args[2]):
        if isinstance(args[2], rx.DataTypeImm):
            dtype = args[2].value
        elif isinstance(ctx.arg_sinfo[2], si.ObjectStructInfo):
            # A variable (TVM's LegalizeOps binds R.null_value() to one): a dtype, or
            # nothing for x's, known at run time only.
            dtype = VOID
        else:
            raise ctx.error("the dtype must be R.dtype(...)", rule="SI-builtin-view-1")
    offset = None
    if len(args) > 3 and not _absent(args[3]):
        if not isinstance(ctx.arg_sinfo[3], si.PrimStructInfo) or \
                not ctx.arg_sinfo[3].dtype.is_integer:
            raise ctx.error("the byte offset must be an integer R.Prim",
                            rule="SI-builtin-view-1")
        offset = int_const(args[3].value) if isinstance(args[3], rx.PrimValue) else None
        if offset is not None and offset < 0:
            raise ctx.error(f"the byte offset {offset} is negative", rule="SI-builtin-view-2")
    have = _nbytes(x.shape, x.dtype)
    want = _nbytes(dims, dtype)
    have_c = int_const(ctx.analyzer.simplify(have)) if have is not None else None
    want_c = int_const(ctx.analyzer.simplify(want)) if want is not None else None
    if have_c is not None and want_c is not None and want_c + (offset or 0) > have_c:
        raise ctx.error(f"a view of {want_c} bytes at offset {offset or 0} does not fit in "
                        f"the {have_c} bytes of the tensor", rule="SI-builtin-view-2")
    if dims is not None:
        return si.TensorStructInfo(tuple(dims), dtype, vdevice=x.vdevice)
    return si.TensorStructInfo(None, dtype, ndim, x.vdevice)


def _absent(e) -> bool:
    """SI-builtin-view-1: an optional operand left out: ``R.null_value()`` written in
    place, or the empty tuple (void), which is how TVM 0.27 prints a missing one."""
    if isinstance(e, rx.Tuple) and not e.fields:
        return True
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.null_value"


def _view(attrs, x, shape=None, dtype=None, offset=None):
    """EXEC-builtin-view-1: a tensor sharing x's bytes, ``offset`` bytes in (x must be
    contiguous); the view lies inside x, else an ``index_out_of_bounds`` trap."""
    if not isinstance(x, np.ndarray):
        raise OpRuntimeError("struct_info", f"needs a tensor, found {describe_value(x)}",
                             rule="EXEC-builtin-view-1")
    dims = tuple(shape.dims) if isinstance(shape, ShapeValue) else x.shape
    dt = numpy_dtype(dtype.dtype) if hasattr(dtype, "dtype") and not isinstance(
        dtype, np.ndarray) else x.dtype
    off = int(offset.value) if isinstance(offset, PrimScalar) else 0
    want = int(np.prod(dims, dtype=np.int64)) * np.dtype(dt).itemsize
    if off < 0 or off + want > x.nbytes:
        raise OpRuntimeError("index_out_of_bounds",
                             f"a view of {want} bytes at byte offset {off} does not fit in "
                             f"the {x.nbytes} bytes of {describe_value(x)}",
                             rule="EXEC-builtin-view-1")
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    raw = x.reshape(-1).view(np.uint8)
    return raw[off:off + want].view(dt).reshape(dims)


def _ensure_zero_offset(attrs, x):
    """EXEC-builtin-view-2: x's values in a tensor that starts its memory block: x itself
    when its byte offset (as R.inspect.tensor_byte_offset reads it) is 0, else a fresh
    copy."""
    from .inspection import _byte_offset

    return x if _byte_offset(x) == 0 else fresh(x)


def _reg(name, operands, deduce, compute, rule, attrs=(), legalize=None, raw=False,
         any_shape=False):
    register(OpDef(name, operands, attrs, deduce=deduce, compute=compute, family=FAMILY,
                   spec_rule=rule, legalize=legalize, raw_call=raw,
                   legalize_any_shape=any_shape))


_reg("relax.size", (Operand("input"),), deduce_size, _size, "SI-builtin-size-1",
     legalize=_legalize_size)
_reg("relax.wrap_param", (Operand("data"),), deduce_wrap_param, _wrap_param,
     "SI-builtin-wrap-1", attrs=(Attr("dtype", "float32", to_dtype),))
_reg("relax.builtin.stop_lift_params", (Operand("x"),), deduce_identity, _copy,
     "SI-builtin-identity-1")
_reg("relax.to_vdevice", (Operand("data"),), deduce_to_vdevice, _copy,
     "SI-builtin-vdevice-1", attrs=(Attr("dst_vdevice", convert=to_str),))
_reg("relax.call_py_func", (Operand("func_name", "any"), Operand("args", "any")),
     deduce_call_py_func, _call_py_func, "SI-builtin-pyfunc-1", raw=True)
_reg("relax.memory.view", (Operand("data"), Operand("shape", "shape", optional=True),
                           Operand("dtype", "dtype", optional=True),
                           Operand("relative_byte_offset", "prim", optional=True)),
     deduce_view, _view, "SI-builtin-view-1")
_reg("relax.memory.ensure_zero_offset", (Operand("data"),), deduce_identity,
     _ensure_zero_offset, "SI-builtin-identity-1")
