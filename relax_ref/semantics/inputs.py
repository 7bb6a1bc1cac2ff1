"""Making arguments for a function from its signature: random values of a struct info
(for ``relax-ref run`` without inputs, the pass verifier and the fuzzer), and reading
arguments from NumPy files in the samples' ``in_0, in_1, ...`` convention."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import DataType
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.solver.evaluate import EvaluationError, evaluate_int

from .values import PrimScalar, ShapeValue


class InputError(ValueError):
    """Arguments cannot be made or read for this signature."""


def symbols_needed(func: rx.Function) -> list[P.Var]:
    """The symbolic variables a caller must choose to build arguments: those the
    signature defines (bare dimensions and R.Prim values), in order."""
    from .sinfo_relations import defined_symbols

    return defined_symbols(p.struct_info for p in func.params)


def random_value(sinfo: si.StructInfo, env: Mapping[P.Var, int], rng: np.random.Generator,
                 *, what: str = "value"):
    """A random value of ``sinfo`` with every symbolic dimension taken from ``env``."""
    if isinstance(sinfo, si.TensorStructInfo):
        if sinfo.shape is None:
            raise InputError(f"{what}: the shape of {what} is not known; give it explicitly")
        shape = tuple(_dim(d, env, what) for d in sinfo.shape)
        dtype = sinfo.dtype if not sinfo.dtype.is_void else DataType("float", 32)
        return random_tensor(shape, dtype, rng)
    if isinstance(sinfo, si.ShapeStructInfo):
        if sinfo.values is None:
            raise InputError(f"{what}: the shape's values are not known; give it explicitly")
        return ShapeValue(tuple(_dim(d, env, what) for d in sinfo.values))
    if isinstance(sinfo, si.PrimStructInfo):
        if sinfo.value is not None:
            try:
                value = evaluate_int(sinfo.value, env)
            except EvaluationError as err:
                raise InputError(f"{what}: {err}") from None
            return PrimScalar(bool(value) if sinfo.dtype.is_bool else int(value), sinfo.dtype)
        if sinfo.dtype.is_float:
            return PrimScalar(float(rng.standard_normal()), sinfo.dtype)
        if sinfo.dtype.is_bool:
            return PrimScalar(bool(rng.integers(0, 2)), sinfo.dtype)
        return PrimScalar(int(rng.integers(0, 8)), sinfo.dtype)
    if isinstance(sinfo, si.TupleStructInfo):
        return tuple(random_value(f, env, rng, what=f"{what}[{i}]")
                     for i, f in enumerate(sinfo.fields))
    raise InputError(f"{what}: cannot make a random value of this annotation")


def random_tensor(shape: tuple[int, ...], dtype: DataType, rng: np.random.Generator) -> np.ndarray:
    np_dtype = numpy_dtype(dtype)
    if dtype.is_bool:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.is_integer:
        lo, hi = (0, 10) if dtype.is_uint else (-8, 9)
        return rng.integers(lo, hi, size=shape).astype(np_dtype)
    return rng.standard_normal(size=shape).astype(np.float32).astype(np_dtype)


def _dim(d: P.PrimExpr, env: Mapping[P.Var, int], what: str) -> int:
    try:
        value = int(evaluate_int(d, env))
    except EvaluationError:
        names = ", ".join(v.name for v in P.free_vars(d) if v not in env)
        raise InputError(f"{what}: give a value for the symbolic variable(s) {names} "
                         f"(e.g. --sym {names.split(',')[0]}=4)") from None
    if value < 0:
        raise InputError(f"{what}: dimension evaluates to {value}")
    return value


def arguments_from_arrays(func: rx.Function, arrays: list[np.ndarray]) -> list:
    """Arguments from arrays in parameter order, tuple parameters flattened depth-first;
    a 0-d array stands for an R.Prim argument, a 1-d int64 array for an R.Shape."""
    it = iter(arrays)
    out = []
    for p in func.params:
        out.append(_take(p.struct_info, it, p.name_hint))
    rest = list(it)
    if rest:
        raise InputError(f"{len(rest)} more arrays than the function's parameters need")
    return out


def _take(sinfo: si.StructInfo, it, what: str):
    if isinstance(sinfo, si.TupleStructInfo):
        return tuple(_take(f, it, f"{what}[{i}]") for i, f in enumerate(sinfo.fields))
    try:
        arr = next(it)
    except StopIteration:
        raise InputError(f"no array for parameter {what!r}") from None
    return value_from_array(arr, sinfo, what)


def value_from_array(arr: np.ndarray, sinfo: si.StructInfo, what: str):
    if isinstance(sinfo, si.PrimStructInfo):
        if np.ndim(arr) != 0:
            raise InputError(f"{what}: a scalar parameter needs a 0-d array, got shape "
                             f"{np.shape(arr)}")
        item = np.asarray(arr).item()
        if sinfo.dtype.is_bool:
            return PrimScalar(bool(item), sinfo.dtype)
        if sinfo.dtype.is_integer:
            return PrimScalar(int(item), sinfo.dtype)
        return PrimScalar(float(item), sinfo.dtype)
    if isinstance(sinfo, si.ShapeStructInfo):
        return ShapeValue(tuple(int(v) for v in np.asarray(arr).reshape(-1)))
    return np.asarray(arr)
