"""The NumPy dtype that holds values of a TVM data type, and back.

Standard widths map to NumPy's own types; ``bfloat16`` and the float8/float6/float4
kinds, and the sub-byte integers, map to the types of ``ml_dtypes``, whose names are
TVM's names. ``bool`` is ``numpy.bool_`` (one byte per element). Vector types (lanes > 1),
``handle`` and ``void`` have no NumPy counterpart.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .dtype import BOOL, DataType, DTypeError, parse_dtype

_STANDARD = {
    ("int", 8): np.int8, ("int", 16): np.int16, ("int", 32): np.int32, ("int", 64): np.int64,
    ("uint", 8): np.uint8, ("uint", 16): np.uint16, ("uint", 32): np.uint32,
    ("uint", 64): np.uint64,
    ("float", 16): np.float16, ("float", 32): np.float32, ("float", 64): np.float64,
}
# TVM names that are also the names of ml_dtypes types.
_ML_DTYPES_NAMES = (
    "bfloat16", "int1", "int2", "int4", "uint1", "uint2", "uint4",
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
)


def numpy_dtype(dt: DataType) -> np.dtype:
    """The NumPy dtype of one element of ``dt``; DTypeError when there is none."""
    if dt.lanes != 1:
        raise DTypeError(f"no NumPy dtype for vector type {dt} (expected lanes 1, "
                         f"found {dt.lanes})")
    if dt.is_bool:
        return np.dtype(np.bool_)
    standard = _STANDARD.get((dt.code, dt.bits))
    if standard is not None:
        return np.dtype(standard)
    name = str(dt)
    if name in _ML_DTYPES_NAMES and hasattr(ml_dtypes, name):
        return np.dtype(getattr(ml_dtypes, name))
    raise DTypeError(f"no NumPy dtype for TVM data type {name!r}")


_OF_NUMPY: dict[np.dtype, DataType] = {}


def dtype_of_numpy(dtype: np.dtype | type) -> DataType:
    """The TVM data type whose values ``dtype`` holds (byte order is ignored)."""
    dtype = np.dtype(dtype)
    hit = _OF_NUMPY.get(dtype)
    if hit is None:
        hit = _OF_NUMPY[dtype] = _dtype_of_numpy(dtype)
    return hit


def _dtype_of_numpy(dtype: np.dtype) -> DataType:
    if dtype == np.bool_:
        return BOOL
    for (code, bits), np_type in _STANDARD.items():
        if dtype.kind == np.dtype(np_type).kind and dtype.itemsize * 8 == bits:
            return DataType(code, bits)
    if dtype.name in _ML_DTYPES_NAMES:
        return parse_dtype(dtype.name)
    raise DTypeError(f"no TVM data type for NumPy dtype {dtype.str!r} ({dtype.name})")
