"""Struct info: Relax's annotations (paper Table 1).

``R.Object``; ``R.Prim(dtype, value=...)``; ``R.Shape(values)`` or ``R.Shape(ndim=k)``;
``R.Tensor(shape, dtype, ndim=...)`` with a symbolic shape, an ndim only, or nothing
known; ``R.Tuple(...)``; ``R.Callable(params, ret, purity)``. Unknown is encoded as in
TVM: ``ndim == -1``, dtype ``void``, ``values``/``shape``/``params`` is None.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .dtype import VOID, DataType
from .prim_expr import PrimExpr
from .span import Span

_node = dataclass(frozen=True, slots=True, eq=False)

UNKNOWN_NDIM = -1


@_node
class StructInfo:
    """Base of all annotations."""


@_node
class ObjectStructInfo(StructInfo):
    """``R.Object`` (printed ``R.Any`` by TVM 0.27): any value at all."""

    span: Span | None = field(default=None, kw_only=True)


@_node
class PrimStructInfo(StructInfo):
    """A scalar of ``dtype``; ``value`` when the scalar is known symbolically."""

    dtype: DataType
    value: PrimExpr | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class ShapeStructInfo(StructInfo):
    """A shape value: its dimensions when known, else only its ndim (or nothing)."""

    values: tuple[PrimExpr, ...] | None = None
    ndim: int = UNKNOWN_NDIM
    span: Span | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.values is not None and self.ndim != len(self.values):
            object.__setattr__(self, "ndim", len(self.values))


@_node
class TensorStructInfo(StructInfo):
    """A tensor: symbolic ``shape`` when known, else ``ndim`` (or -1); dtype ``void``
    means unknown. ``vdevice`` is the virtual device name given in the text, if any."""

    shape: tuple[PrimExpr, ...] | None = None
    dtype: DataType = VOID
    ndim: int = UNKNOWN_NDIM
    vdevice: str | None = None
    span: Span | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.shape is not None and self.ndim != len(self.shape):
            object.__setattr__(self, "ndim", len(self.shape))


@_node
class TupleStructInfo(StructInfo):
    fields: tuple[StructInfo, ...]
    span: Span | None = field(default=None, kw_only=True)


@_node
class FuncStructInfo(StructInfo):
    """``R.Callable(params, ret, purity)``; ``params`` None means any arguments."""

    params: tuple[StructInfo, ...] | None
    ret: StructInfo
    purity: bool = True
    derive_func: str | None = None
    span: Span | None = field(default=None, kw_only=True)
