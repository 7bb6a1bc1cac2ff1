"""Scalar numerics shared by the ops' NumPy semantics, the interpreters and the solver.

A rule that both ``ops/`` (``R.astype``, ``R.divide`` on integers, ``R.erf``) and
``semantics/tir_exprs.py`` (``T.Cast``, ``T.truncdiv``, ``T.erf``) follow is written
here once, below both layers, so that neither imports the other; so is the integer wrap
that TIR, ``R.prim_value`` and the solver's cast rule share. Every function takes NumPy
scalars and arrays alike and keeps that form. Depends on NumPy and ``ir`` only.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from relax_ref.ir.dtype import DataType
from relax_ref.ir.numpy_dtype import numpy_dtype

__all__ = ["erf", "float_floor_div", "float_floor_mod", "float_to_int", "out_of_range_int",
           "trunc_div", "trunc_mod", "wrap_int"]


def wrap_int(value, dtype: DataType):
    """An integer taken modulo ``2**bits`` into the range of ``dtype`` (two's complement):
    TIR integer arithmetic and casts (EXEC-tir-int-1, SYM-cast-2), integer
    ``R.prim_value``s (EXEC-sym-2). Only ``-``, ``%`` and ``+``, so a Python int and a Z3
    integer term wrap by the same formula."""
    lo, hi = dtype.int_range()
    return (value - lo) % (hi - lo + 1) + lo


@lru_cache(maxsize=None)
def out_of_range_int(dtype: DataType) -> np.generic:
    """The result of converting NaN, an infinity or an out-of-range float to the integer
    type ``dtype`` (EXEC-tir-cast-2). LLVM leaves it undefined; x86's "integer
    indefinite" is the signed minimum, and we use the unsigned maximum for unsigned
    types. It is a value, not poison (EXEC-tir-poison-1)."""
    lo, hi = dtype.int_range()
    return numpy_dtype(dtype).type(lo if dtype.is_int else hi)


def float_to_int(v, to: np.dtype):
    """EXEC-tir-cast-2 on a NumPy float value or array: truncation toward zero; NaN,
    infinities and values outside ``to``'s range give x86's value, as
    ``out_of_range_int``. TIR casts and ``R.astype`` (``ops.common.cast_value``) both
    convert with it."""
    t = np.trunc(v.astype(np.float64))
    info = np.iinfo(to)
    ok = np.isfinite(t) & (t >= float(info.min)) & (t < float(info.max) + 1.0)
    poison = info.min if to.kind == "i" else info.max
    if not isinstance(ok, np.ndarray):
        return to.type(int(t) if ok else poison)
    out = np.where(ok, t, 0.0).astype(to)
    out[~ok] = poison
    return out


def trunc_div(a, b):
    """Integer division rounding toward zero (TIR's ``Div`` on integers, C's ``/``);
    NumPy's ``//`` rounds toward minus infinity. ``a - fmod(a, b)`` is a multiple of
    ``b``, so the floor division after it is exact. The caller checks for zero."""
    return (a - np.fmod(a, b)) // b


def trunc_mod(a, b):
    """The remainder with the sign of the dividend (``T.truncmod``, C's ``%``); exact
    for floats of any precision. The caller checks for zero."""
    return np.fmod(a, b)


def float_floor_div(a, b):
    """Floor division of floats as TVM lowers ``floordiv``: ``floor(a / b)``, the
    division rounded first (NumPy's ``floor_divide`` computes through ``fmod`` and can
    differ by one). Integers use NumPy's ``//``, which already rounds down."""
    return np.floor(a / b)


def float_floor_mod(a, b):
    """``a - floor(a / b) * b`` on floats, each operation rounded, as TVM lowers
    ``floormod`` (the result has the divisor's sign). Integers use NumPy's ``%``."""
    return a - np.floor(a / b) * b


_ERF_UFUNC = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    """The error function in float64, elementwise, through ``math.erf`` (NumPy has
    none): an array for an array (of any dimension), a ``float64`` for a scalar."""
    if isinstance(x, np.ndarray):
        return np.asarray(_ERF_UFUNC(x), dtype=np.float64)
    return np.float64(math.erf(float(x)))
