"""Elementwise ops: unary math, binary arithmetic with broadcasting, comparisons and
logic, ``where``, ``astype``, ``clip`` (spec/ops/elementwise.md).

Each op's struct-info rule and NumPy semantics sit side by side. Integer arithmetic
wraps around on overflow, as TVM's generated code does; ``divide`` and ``mod`` on
integers truncate toward zero (TIR ``Div``/``Mod``), ``floor_divide``/``floor_mod``
round toward negative infinity.
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL
from relax_ref.numerics import float_floor_div, float_floor_mod
from relax_ref.values import PrimScalar

from .common import (
    OpRuntimeError, broadcast_runtime_shapes, broadcast_sinfo, broadcast_values, cast_value,
    common_dtype, erf_array, prim_arg, quiet, same_as, tensor_arg, trunc_div,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype

FAMILY = "elementwise"


# -- deduction rules ---------------------------------------------------------------------------

def _is_prim_call(ctx: DeduceContext) -> bool:
    return all(isinstance(s, si.PrimStructInfo) for s in ctx.arg_sinfo)


def deduce_unary(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-1: the result has the operand's shape and dtype."""
    if _is_prim_call(ctx):
        return si.PrimStructInfo(prim_arg(ctx, 0).dtype)
    return same_as(tensor_arg(ctx, 0))


def deduce_unary_float(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-2: math functions need a float operand (or an unknown dtype)."""
    out = deduce_unary(ctx)
    dtype = out.dtype
    if not dtype.is_void and not dtype.is_float:
        raise ctx.error(f"needs a floating-point operand, found {dtype}", rule="SI-ew-unary-2")
    return out


def deduce_unary_bool(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-unary-3: predicates such as isnan give bool of the operand's shape."""
    x = tensor_arg(ctx, 0)
    return si.TensorStructInfo(x.shape, BOOL, x.ndim, x.vdevice)


def deduce_binary(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-binary-1: dtypes agree; the shape broadcasts (SI-broadcast-*)."""
    if _is_prim_call(ctx):
        return si.PrimStructInfo(common_dtype(ctx, prim_arg(ctx, 0).dtype, prim_arg(ctx, 1).dtype))
    a, b = _tensor_or_scalar(ctx, 0), _tensor_or_scalar(ctx, 1)
    return broadcast_sinfo(ctx, [a, b], common_dtype(ctx, a.dtype, b.dtype))


def deduce_compare(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-compare-1: like binary arithmetic, with a bool result."""
    if _is_prim_call(ctx):
        common_dtype(ctx, prim_arg(ctx, 0).dtype, prim_arg(ctx, 1).dtype)
        return si.PrimStructInfo(BOOL)
    a, b = _tensor_or_scalar(ctx, 0), _tensor_or_scalar(ctx, 1)
    common_dtype(ctx, a.dtype, b.dtype)
    return broadcast_sinfo(ctx, [a, b], BOOL)


def _tensor_or_scalar(ctx: DeduceContext, i: int) -> si.TensorStructInfo:
    """A Prim operand of a binary op acts as a 0-d tensor of its dtype."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.PrimStructInfo):
        return si.TensorStructInfo((), s.dtype)
    return tensor_arg(ctx, i)


def deduce_where(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-where-1: the condition is bool; the branches agree in dtype; all three
    broadcast together."""
    cond, a, b = (tensor_arg(ctx, i) for i in range(3))
    if not cond.dtype.is_void and not cond.dtype.is_bool:
        raise ctx.error(f"the condition must be bool, found {cond.dtype}", rule="SI-ew-where-1")
    return broadcast_sinfo(ctx, [cond, a, b], common_dtype(ctx, a.dtype, b.dtype))


def deduce_astype(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-astype-1: the operand's shape with the requested dtype."""
    x = tensor_arg(ctx, 0)
    dtype = ctx.attr("dtype")
    if dtype.is_void:
        raise ctx.error("needs a dtype", rule="SI-ew-astype-1")
    return si.TensorStructInfo(x.shape, dtype, x.ndim, x.vdevice)


def deduce_clip(ctx: DeduceContext) -> si.StructInfo:
    """SI-ew-clip-1: clip(x, min, max) keeps x's struct info; the bounds are scalars."""
    for i in (1, 2):
        prim_arg(ctx, i)
    return deduce_unary(ctx)


# -- NumPy semantics -----------------------------------------------------------------------------

def _binary(np_fn):
    @quiet
    def compute(attrs, a, b):
        if type(a) is np.ndarray and type(b) is np.ndarray:  # the usual case, quickly
            broadcast_runtime_shapes("EXEC-broadcast-1", a.shape, b.shape)
            out = np.asarray(np_fn(a, b))
            return out if out.dtype == a.dtype or out.dtype == np.bool_ else \
                out.astype(a.dtype)
        # EXEC-ew-binary-2: an R.Prim operand acts as a 0-d tensor of its dtype; two
        # R.Prim operands give an R.Prim result.
        both_prim = isinstance(a, PrimScalar) and isinstance(b, PrimScalar)
        a, b = _as_array(a), _as_array(b)
        broadcast_values("EXEC-broadcast-1", a, b)
        out = np_fn(a, b)
        out = np.asarray(out, dtype=a.dtype if out.dtype != np.bool_ else np.bool_)
        if both_prim:
            return PrimScalar(out.item(), BOOL if out.dtype == np.bool_ else _prim_dtype(a, b))
        return out
    return compute


def _as_array(v):
    if isinstance(v, PrimScalar):
        from relax_ref.ir.numpy_dtype import numpy_dtype

        return np.asarray(v.value, dtype=numpy_dtype(v.dtype))
    return v


def _prim_dtype(a, b):
    from relax_ref.ir.numpy_dtype import dtype_of_numpy

    return dtype_of_numpy(a.dtype)


def _int_div_trunc(a, b):
    if np.issubdtype(a.dtype, np.integer):
        if np.any(b == 0):
            raise OpRuntimeError("division_by_zero", "integer division by zero",
                                 rule="EXEC-ew-div-1")
        return trunc_div(a, b).astype(a.dtype)
    return np.true_divide(a, b).astype(a.dtype)


def _int_mod_trunc(a, b):
    if np.issubdtype(a.dtype, np.integer):
        if np.any(b == 0):
            raise OpRuntimeError("division_by_zero", "integer modulo by zero",
                                 rule="EXEC-ew-div-1")
        return np.fmod(a, b).astype(a.dtype)
    return np.fmod(a, b).astype(a.dtype)


def _floor_div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.any(b == 0):
        raise OpRuntimeError("division_by_zero", "integer division by zero", rule="EXEC-ew-div-1")
    if np.issubdtype(a.dtype, np.integer):
        return np.floor_divide(a, b)
    return float_floor_div(a, b).astype(a.dtype)


def _floor_mod(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.any(b == 0):
        raise OpRuntimeError("division_by_zero", "integer modulo by zero", rule="EXEC-ew-div-1")
    if np.issubdtype(a.dtype, np.integer):
        return np.mod(a, b)
    return float_floor_mod(a, b).astype(a.dtype)


def _unary(np_fn):
    @quiet
    def compute(attrs, x):
        return np.asarray(np_fn(x), dtype=x.dtype)
    return compute


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": _int_div_trunc, "floor_divide": _floor_div, "power": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "mod": _int_mod_trunc,
    "floor_mod": _floor_mod,
}
_BITWISE = {
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift,
}
_COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}
_LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
            "logical_xor": np.logical_xor}
_UNARY_ANY = {"negative": np.negative, "abs": np.abs, "square": np.square, "sign": np.sign}
_UNARY_FLOAT = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": _rsqrt, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sigmoid": _sigmoid, "erf": erf_array,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor,
    "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "log1p": np.log1p,
}
# Integer operands that fail a check: a zero divisor (EXEC-ew-div-1), a negative exponent.
_INT_PARTIAL = ("divide", "floor_divide", "mod", "floor_mod", "power")
_UNARY_BOOL = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


def _register_all() -> None:
    two = (Operand("x1"), Operand("x2"))
    for name, fn in _BINARY.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_binary, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-binary-1", dtypes="numeric",
                       int_total=name not in _INT_PARTIAL))
    for name, fn in _BITWISE.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_binary, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-binary-1", dtypes="int"))
    for name, fn in _COMPARE.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_compare, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-compare-1", dtypes="numeric"))
    for name, fn in _LOGICAL.items():
        register(OpDef(f"relax.{name}", two, deduce=deduce_compare, compute=_binary(fn),
                       family=FAMILY, spec_rule="SI-ew-compare-1", dtypes="bool"))
    for name, fn in _UNARY_ANY.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary,
                       compute=_unary(fn), family=FAMILY, spec_rule="SI-ew-unary-1",
                       dtypes="numeric"))
    for name, fn in _UNARY_FLOAT.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary_float,
                       compute=_unary(fn), family=FAMILY, spec_rule="SI-ew-unary-2",
                       dtypes="float"))
    for name, fn in _UNARY_BOOL.items():
        register(OpDef(f"relax.{name}", (Operand("x"),), deduce=deduce_unary_bool,
                       compute=quiet(lambda attrs, x, fn=fn: np.asarray(fn(x))),
                       family=FAMILY, spec_rule="SI-ew-unary-3"))
    register(OpDef("relax.logical_not", (Operand("x"),), deduce=deduce_unary_bool,
                   compute=lambda attrs, x: np.logical_not(x), family=FAMILY,
                   spec_rule="SI-ew-unary-3", dtypes="bool"))
    register(OpDef("relax.bitwise_not", (Operand("x"),), deduce=deduce_unary,
                   compute=lambda attrs, x: np.invert(x), family=FAMILY,
                   spec_rule="SI-ew-unary-1", dtypes="int"))
    register(OpDef("relax.where", (Operand("condition"), Operand("x1"), Operand("x2")),
                   deduce=deduce_where, compute=_where, family=FAMILY,
                   spec_rule="SI-ew-where-1"))
    register(OpDef("relax.astype", (Operand("x"),), (Attr("dtype", convert=to_dtype),),
                   deduce=deduce_astype, compute=_astype, family=FAMILY,
                   spec_rule="SI-ew-astype-1"))
    register(OpDef("relax.clip", (Operand("x"), Operand("min", "prim"), Operand("max", "prim")),
                   deduce=deduce_clip, compute=_clip, family=FAMILY, spec_rule="SI-ew-clip-1"))


@quiet
def _where(attrs, cond, a, b):
    broadcast_values("EXEC-broadcast-1", cond, a, b)
    return np.where(cond, a, b).astype(a.dtype)


def _astype(attrs, x):
    """A TIR ``Cast`` of every element (floats to integers truncate toward zero)."""
    from relax_ref.ir.numpy_dtype import numpy_dtype

    return cast_value(x, numpy_dtype(attrs.get("dtype")))


@quiet
def _clip(attrs, x, lo, hi):
    return np.clip(x, lo.value, hi.value).astype(x.dtype)


_register_all()
