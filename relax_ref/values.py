"""Runtime values of the interpreter (DESIGN.md section 4, spec/semantics.md).

Tensor = ``numpy.ndarray`` (bfloat16 and float8 through ml_dtypes); Tuple = Python
``tuple`` of values; the other kinds are the small immutable classes below.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from relax_ref.ir.dtype import DataType


@dataclass(frozen=True, slots=True)
class ShapeValue:
    """A shape: one non-negative int per dimension."""

    dims: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.dims)

    def __iter__(self):
        return iter(self.dims)

    def __getitem__(self, i):
        return self.dims[i]


@dataclass(frozen=True, slots=True)
class PrimScalar:
    """A scalar of a given dtype: int for integers, bool for bool, float for floats."""

    value: Union[int, float, bool]
    dtype: DataType


@dataclass(frozen=True, slots=True)
class StringValue:
    value: str


@dataclass(frozen=True, slots=True)
class DTypeValue:
    dtype: DataType


@dataclass(frozen=True, slots=True, eq=False)
class Closure:
    """A Relax function value: the function, and the values of the free variables it
    captured where it was created (a dict keyed by IR variable identity). ``captured``:
    the values ``R.make_closure`` paired with a module function, passed after the
    call's own arguments (EXEC-closure-1)."""

    func: Any
    env: dict = field(default_factory=dict)
    name: str = "<closure>"
    captured: tuple = ()


@dataclass(frozen=True, slots=True, eq=False)
class PackedFunc:
    """An external function found in the packed-function registry."""

    name: str
    impl: Any


Value = Union[np.ndarray, tuple, ShapeValue, PrimScalar, StringValue, DTypeValue, Closure,
              PackedFunc, Any]


def describe_value(v) -> str:
    """A short description for error messages: ``Tensor((3, 4), float32)``."""
    if isinstance(v, np.ndarray):
        from relax_ref.ir.numpy_dtype import dtype_of_numpy

        try:
            dt = str(dtype_of_numpy(v.dtype))
        except Exception:  # noqa: BLE001 - any numpy dtype we do not name
            dt = str(v.dtype)
        return f"Tensor({tuple(v.shape)}, {dt})"
    if isinstance(v, tuple):
        return "Tuple(" + ", ".join(describe_value(x) for x in v) + ")"
    if isinstance(v, ShapeValue):
        return f"Shape({list(v.dims)})"
    if isinstance(v, PrimScalar):
        return f"Prim({v.value!r}, {v.dtype})"
    if isinstance(v, StringValue):
        return f"String({v.value!r})"
    if isinstance(v, DTypeValue):
        return f"DType({v.dtype})"
    if isinstance(v, Closure):
        return f"Closure({v.name})"
    if isinstance(v, PackedFunc):
        return f"PackedFunc({v.name})"
    return type(v).__name__
