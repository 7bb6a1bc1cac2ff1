"""Rules shared by several op families, each in one place (STYLE.md "one rule, one
place"): reading operand struct info, axis normalization, dtype agreement, and the
broadcasting rule used by deduction and by the NumPy semantics alike."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, VOID, DataType

from .registry import DeduceContext


class OpRuntimeError(Exception):
    """A run-time check of an op's NumPy semantics failed; the interpreter adds the
    span. ``check`` is the error kind (spec/semantics.md), e.g. ``shape_mismatch``."""

    def __init__(self, check: str, message: str, rule: str | None = None):
        super().__init__(message)
        self.check = check
        self.message = message
        self.rule = rule


# -- operands ------------------------------------------------------------------------------

def tensor_arg(ctx: DeduceContext, i: int, what: str = "operand") -> si.TensorStructInfo:
    """The struct info of operand ``i``, which must be a tensor (SI-op-tensor-1)."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.TensorStructInfo):
        return s
    if isinstance(s, si.ObjectStructInfo):
        # Nothing is known; the op still needs a tensor, checked at run time.
        return si.TensorStructInfo()
    raise ctx.error(f"{what} {i} must be a tensor, but its struct info is "
                    f"{describe_sinfo(s)}", rule="SI-op-tensor-1")


def prim_arg(ctx: DeduceContext, i: int) -> si.PrimStructInfo:
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.PrimStructInfo):
        return s
    raise ctx.error(f"operand {i} must be a scalar (R.Prim), but its struct info is "
                    f"{describe_sinfo(s)}", rule="SI-op-prim-1")


def shape_values_of(ctx: DeduceContext, i: int) -> tuple[P.PrimExpr, ...] | None:
    """The dimensions held by a Shape operand, when known."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.ShapeStructInfo):
        return s.values
    arg = ctx.args[i]
    if isinstance(arg, rx.ShapeExpr):
        return arg.values
    raise ctx.error(f"operand {i} must be a shape, but its struct info is "
                    f"{describe_sinfo(s)}", rule="SI-op-shape-1")


def describe_sinfo(s: si.StructInfo) -> str:
    from relax_ref.parser.printer import print_struct_info

    try:
        return print_struct_info(s)
    except Exception:  # noqa: BLE001 - a description must never fail
        return type(s).__name__


def normalize_axis(ctx: DeduceContext, axis: int, ndim: int, what: str = "axis") -> int:
    """An axis in [-ndim, ndim) as a non-negative index (SI-op-axis-1)."""
    if not -ndim <= axis < ndim:
        raise ctx.error(f"{what} {axis} is out of range for a tensor of {ndim} dimensions",
                        rule="SI-op-axis-1")
    return axis + ndim if axis < 0 else axis


def normalize_axes(ctx: DeduceContext, axes: Sequence[int], ndim: int) -> list[int]:
    out = [normalize_axis(ctx, a, ndim) for a in axes]
    if len(set(out)) != len(out):
        raise ctx.error(f"axes {list(axes)} repeat an axis", rule="SI-op-axis-2")
    return out


def common_dtype(ctx: DeduceContext, *dtypes: DataType) -> DataType:
    """The dtype of an elementwise result: all known operand dtypes must agree; unknown
    (void) operands do not constrain it (SI-op-dtype-1)."""
    known = [d for d in dtypes if not d.is_void]
    if not known:
        return VOID
    first = known[0]
    for d in known[1:]:
        if d != first:
            raise ctx.error(f"operand dtypes differ ({first} and {d}); use R.astype first",
                            rule="SI-op-dtype-1")
    return first


def common_vdevice(*tensors: si.TensorStructInfo) -> str | None:
    for t in tensors:
        if t.vdevice is not None:
            return t.vdevice
    return None


def int_const(e: P.PrimExpr) -> int | None:
    return e.value if isinstance(e, P.IntImm) else None


def i64(value: int) -> P.IntImm:
    return P.IntImm(value, INT64)


# -- broadcasting (SI-broadcast-1..3, EXEC-broadcast-1) ---------------------------------------

def broadcast_shapes(ctx: DeduceContext, shapes: Sequence[tuple[P.PrimExpr, ...]]
                     ) -> tuple[P.PrimExpr, ...] | None:
    """NumPy broadcasting on symbolic shapes, aligned from the right.

    Per dimension (SI-broadcast-2): a dimension equal to the constant 1 takes the other;
    two dimensions proved equal give that dimension; two different constants are an
    error; anything else cannot be decided statically, and the result falls back to
    ndim only (None), the run-time check deciding (EXEC-broadcast-1)."""
    ndim = max(len(s) for s in shapes)
    out: list[P.PrimExpr] = []
    for k in range(1, ndim + 1):
        dims = [s[-k] for s in shapes if len(s) >= k]
        result = dims[0]
        for d in dims[1:]:
            merged = _broadcast_dim(ctx, result, d)
            if merged is None:
                return None
            result = merged
        out.append(result)
    return tuple(reversed(out))


def _broadcast_dim(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr | None:
    ca, cb = int_const(a), int_const(b)
    if ca == 1:
        return b
    if cb == 1:
        return a
    if ca is not None and cb is not None:
        if ca != cb:
            raise ctx.error(f"shapes cannot broadcast: dimension {ca} against {cb}",
                            rule="SI-broadcast-1")
        return a
    if a is b or ctx.analyzer.prove_equal(a, b):
        return a
    return None


def broadcast_sinfo(ctx: DeduceContext, tensors: Sequence[si.TensorStructInfo],
                    dtype: DataType) -> si.TensorStructInfo:
    """The struct info of an elementwise result over broadcast operands (SI-broadcast-3):
    the broadcast shape when every shape is known and decidable, else only the ndim
    (the maximum of the operands' when all are known), else nothing."""
    vdevice = common_vdevice(*tensors)
    if all(t.shape is not None for t in tensors):
        shape = broadcast_shapes(ctx, [t.shape for t in tensors])
        if shape is not None:
            return si.TensorStructInfo(shape, dtype, vdevice=vdevice)
    if all(t.ndim >= 0 for t in tensors):
        return si.TensorStructInfo(None, dtype, max(t.ndim for t in tensors), vdevice)
    return si.TensorStructInfo(None, dtype, si.UNKNOWN_NDIM, vdevice)


def broadcast_values(check_rule: str, *arrays: np.ndarray) -> tuple[int, ...]:
    """The run-time broadcast shape of concrete arrays (EXEC-broadcast-1), or an
    OpRuntimeError of kind shape_mismatch."""
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = " and ".join(str(tuple(a.shape)) for a in arrays)
        raise OpRuntimeError("shape_mismatch", f"shapes {shapes} cannot broadcast",
                             rule=check_rule) from None


BOOL_DTYPE = BOOL
