"""Inspection ops: ``inspect.tensor_dtype_code``, ``tensor_dtype_bits``,
``tensor_dtype_lanes``, ``tensor_ndim``, ``tensor_shape_i``, ``tensor_stride_i``,
``tensor_byte_offset``, ``tensor_elem_offset`` (spec/ops/inspection.md).

Each reads one field of a tensor's DLPack description (TVM 0.27,
src/relax/op/tensor/inspect.cc): the run-time value describes the interpreter's real
tensor, including where it starts inside the memory it views (a tensor made by
``R.memory.alloc_tensor`` at an offset of a storage). Results are ``R.Prim`` scalars of
TVM's dtypes. TVM lowers each to a host PrimFunc reading the DLTensor (``tvm_struct_get``);
here a field that the operand's struct info determines is folded to its value, and the
others (offsets, and fields of a tensor whose struct info does not give them) stay as
the op (spec/ops/inspection.md, TE-leg-inspect-1).
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import DataType, parse_dtype

from .common import OpRuntimeError, describe_sinfo, int_const, tensor_arg
from .registry import DeduceContext, OpDef, Operand, register

FAMILY = "inspection"

# DLPack's type codes, as TVM 0.27 numbers them (tvm.DataType(...).type_code).
_CODES = {"int": 0, "uint": 1, "float": 2, "handle": 3, "bfloat": 4, "bool": 6,
          "float8_e3m4": 7, "float8_e4m3": 8, "float8_e4m3b11fnuz": 9, "float8_e4m3fn": 10,
          "float8_e4m3fnuz": 11, "float8_e5m2": 12, "float8_e5m2fnuz": 13,
          "float8_e8m0fnu": 14, "float6_e2m3fn": 15, "float6_e3m2fn": 16,
          "float4_e2m1fn": 17}

# op -> the dtype of its result (TVM's)
_RESULT = {"tensor_dtype_code": "uint8", "tensor_dtype_bits": "uint8",
           "tensor_dtype_lanes": "uint16", "tensor_ndim": "int32", "tensor_shape_i": "int64",
           "tensor_stride_i": "int64", "tensor_byte_offset": "uint64",
           "tensor_elem_offset": "uint64"}


def _short(ctx_or_name) -> str:
    name = ctx_or_name if isinstance(ctx_or_name, str) else ctx_or_name.call.op.name
    return name.rsplit(".", 1)[1]


def deduce_inspect(ctx: DeduceContext) -> si.StructInfo:
    """SI-inspect-1: the operand is a tensor (R.Object is accepted, checked at run time);
    the result is an R.Prim of the op's dtype: ``uint8`` (dtype code, bits), ``uint16``
    (lanes), ``int32`` (ndim), ``int64`` (shape_i, stride_i), ``uint64`` (byte and
    element offsets). SI-inspect-2: the axis of ``tensor_shape_i`` and
    ``tensor_stride_i`` is an integer R.Prim; a constant axis is non-negative and, where
    the ndim is known, below it."""
    name = _short(ctx)
    x = tensor_arg(ctx, 0, "the inspected operand")
    if name in ("tensor_shape_i", "tensor_stride_i"):
        s = ctx.arg_sinfo[1]
        if not isinstance(s, si.PrimStructInfo) or not s.dtype.is_integer:
            raise ctx.error(f"the axis must be an integer R.Prim, found {describe_sinfo(s)}",
                            rule="SI-inspect-2")
        axis = int_const(s.value) if s.value is not None else None
        if axis is not None and (axis < 0 or (x.ndim >= 0 and axis >= x.ndim)):
            raise ctx.error(f"axis {axis} is out of range for a tensor of "
                            f"{'unknown' if x.ndim < 0 else x.ndim} dimensions",
                            rule="SI-inspect-2")
    return si.PrimStructInfo(parse_dtype(_RESULT[name]))


# -- run time ------------------------------------------------------------------------------

def _dtype_of(x: np.ndarray) -> DataType:
    from relax_ref.ir.numpy_dtype import dtype_of_numpy

    return dtype_of_numpy(x.dtype)


def _byte_offset(x: np.ndarray) -> int:
    """Where the tensor's first byte lies in the memory block it views (the storage of
    ``R.memory.alloc_tensor``, or the array it is a view of); 0 for a tensor of its own."""
    root = x
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is x or x.size == 0:
        return 0
    return x.__array_interface__["data"][0] - root.__array_interface__["data"][0]


def _strides(x: np.ndarray) -> tuple[int, ...]:
    """Element strides: a compact row-major tensor has the products of the later
    dimensions (what TVM reports for a tensor without strides); another layout its own."""
    if x.flags.c_contiguous:
        out, step = [], 1
        for d in reversed(x.shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))
    return tuple(s // x.itemsize for s in x.strides)


def _axis(x: np.ndarray, axis, rule: str) -> int:
    a = int(getattr(axis, "value", axis))
    if not 0 <= a < x.ndim:
        raise OpRuntimeError("invalid_value", f"axis {a} is out of range for a tensor of "
                             f"{x.ndim} dimensions", rule=rule)
    return a


def _inspect(name: str):
    """EXEC-inspect-1: the field of the operand tensor's description: its dtype's DLPack
    type code, bits per lane and lanes; its ndim; the extent and the element stride of
    an axis (an axis outside ``[0, ndim)`` is invalid_value); the byte offset of its
    first element in the memory it views, and that offset in elements
    (``byte_offset // ceil(bits * lanes / 8)``). The value is an R.Prim of the op's
    dtype."""
    from relax_ref.values import PrimScalar

    dtype = parse_dtype(_RESULT[name])
    rule = "EXEC-inspect-1"

    def compute(attrs, x, axis=None):
        if not isinstance(x, np.ndarray):
            raise OpRuntimeError("struct_info", f"{name} needs a tensor, found "
                                 f"{type(x).__name__}", rule=rule)
        dt = _dtype_of(x)
        if name == "tensor_dtype_code":
            value = _CODES[dt.code]
        elif name == "tensor_dtype_bits":
            value = dt.bits
        elif name == "tensor_dtype_lanes":
            value = dt.lanes
        elif name == "tensor_ndim":
            value = x.ndim
        elif name == "tensor_shape_i":
            value = x.shape[_axis(x, axis, rule)]
        elif name == "tensor_stride_i":
            value = _strides(x)[_axis(x, axis, rule)]
        elif name == "tensor_byte_offset":
            value = _byte_offset(x)
        else:
            value = _byte_offset(x) // ((dt.bits * dt.lanes + 7) // 8)
        return PrimScalar(int(value), dtype)
    compute.__name__ = f"compute_{name}"
    compute.__doc__ = _inspect.__doc__
    return compute


# -- lowering ------------------------------------------------------------------------------

def _folded(ctx, name: str) -> P.PrimExpr | None:
    """The value struct info alone determines (TE-leg-inspect-1), or None."""
    s = ctx.arg_sinfo[0]
    if not isinstance(s, si.TensorStructInfo):
        return None
    d = s.dtype
    if name in ("tensor_dtype_code", "tensor_dtype_bits", "tensor_dtype_lanes"):
        if d.is_void:
            return None
        return P.IntImm({"tensor_dtype_code": _CODES[d.code], "tensor_dtype_bits": d.bits,
                         "tensor_dtype_lanes": d.lanes}[name], parse_dtype(_RESULT[name]))
    if name == "tensor_ndim":
        return None if s.ndim < 0 else P.IntImm(s.ndim, parse_dtype("int32"))
    if name in ("tensor_shape_i", "tensor_stride_i"):
        a = ctx.arg_sinfo[1]
        axis = int_const(a.value) if isinstance(a, si.PrimStructInfo) and a.value is not None \
            else None
        if axis is None or s.shape is None:
            return None
        if name == "tensor_shape_i":
            return s.shape[axis]
        out: P.PrimExpr = P.IntImm(1, parse_dtype("int64"))
        for dim in s.shape[axis + 1:]:
            out = dim if int_const(out) == 1 else P.Mul(out, dim, out.dtype)
        return out
    return None


def legalize_inspect(ctx):
    """TE-leg-inspect-1: an ``R.prim_value`` of the field where the operand's struct info
    determines it (dtype fields from a known dtype, ndim from a known ndim, shape_i and
    stride_i from a known shape and a constant axis: every tensor the interpreter makes
    is compact, so a stride is the product of the later dimensions; a symbolic dimension
    becomes a prim value of that variable). Otherwise, and always for the two offsets,
    which depend on where the tensor was allocated, the call stays."""
    name = _short(ctx.call.op.name)
    value = _folded(ctx, name)
    if value is None:
        raise ctx.decline(f"{name} is not determined by the operand's struct info")
    if any(v.dtype != parse_dtype("int64") for v in P.free_vars(value)):
        raise ctx.decline("the value uses a variable that is not int64")
    return rx.PrimValue(value)


def _register_all() -> None:
    for name in _RESULT:
        operands = (Operand("tensor", "any"),)
        if name in ("tensor_shape_i", "tensor_stride_i"):
            operands += (Operand("axis", "prim"),)
        register(OpDef(f"relax.inspect.{name}", operands, deduce=deduce_inspect,
                       compute=_inspect(name), family=FAMILY, spec_rule="SI-inspect-1",
                       legalize=legalize_inspect, legalize_any_shape=True))


_register_all()
