"""Making arguments for a function from its signature: random values of a struct info
(for ``relax-ref run`` without inputs, the pass verifier and the fuzzer), and reading
arguments from NumPy files in the samples' ``in_0, in_1, ...`` convention; choosing the
entry function and converting Python values to and from the interpreter's (the API)."""
from __future__ import annotations

import math
import re
from typing import Mapping

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import DataType, DTypeError, parse_dtype
from relax_ref.ir.numpy_dtype import dtype_of_numpy, numpy_dtype
from relax_ref.solver.evaluate import EvaluationError, evaluate_int

from relax_ref.errors import ResourceError
from .memory import DEFAULT_MAX_BYTES, INT64_MAX, MemoryCheckError, check_size
from relax_ref.values import PrimScalar, ShapeValue

# Random tensors are drawn this many elements at a time into the result, so no float64
# or int64 temporary of the full size exists; chunked draws give the same values.
_CHUNK = 1 << 20


class InputError(ValueError):
    """Arguments cannot be made or read for this signature."""


def symbols_needed(func: rx.Function) -> list[P.Var]:
    """The symbolic variables a caller must choose to build arguments: those the
    signature defines (bare dimensions and R.Prim values), in order."""
    from .sinfo_relations import defined_symbols

    # A float R.Prim parameter names its value too, but no dimension can use it.
    return [v for v in defined_symbols(p.struct_info for p in func.params)
            if not v.dtype.is_float]


def random_value(sinfo: si.StructInfo, env: Mapping[P.Var, int], rng: np.random.Generator,
                 *, what: str = "value", max_bytes: int = DEFAULT_MAX_BYTES):
    """A random value of ``sinfo`` with every symbolic dimension taken from ``env``;
    ResourceError for a tensor over ``max_bytes`` (EXEC-limit-1)."""
    if isinstance(sinfo, si.TensorStructInfo):
        if sinfo.shape is None:
            raise InputError(f"{what}: the shape of {what} is not known; give it explicitly")
        shape = tuple(_dim(d, env, what) for d in sinfo.shape)
        dtype = sinfo.dtype if not sinfo.dtype.is_void else DataType("float", 32)
        return random_tensor(shape, dtype, rng, max_bytes=max_bytes, what=what)
    if isinstance(sinfo, si.ShapeStructInfo):
        if sinfo.values is None:
            raise InputError(f"{what}: the shape's values are not known; give it explicitly")
        return ShapeValue(tuple(_dim(d, env, what) for d in sinfo.values))
    if isinstance(sinfo, si.PrimStructInfo):
        if isinstance(sinfo.value, P.Var) and sinfo.value not in env and sinfo.dtype.is_float:
            # A float R.Prim parameter names its value, but no shape can depend on it.
            return PrimScalar(float(rng.standard_normal()), sinfo.dtype)
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
        return tuple(random_value(f, env, rng, what=f"{what}[{i}]", max_bytes=max_bytes)
                     for i, f in enumerate(sinfo.fields))
    raise InputError(f"{what}: cannot make a random value of this annotation")


def random_tensor(shape: tuple[int, ...], dtype: DataType, rng: np.random.Generator, *,
                  max_bytes: int = DEFAULT_MAX_BYTES, what: str = "value") -> np.ndarray:
    """Standard-normal floats (rounded through float32), small integers or bools of
    ``shape``. The size is checked before anything is allocated (EXEC-limit-1)."""
    try:
        np_dtype = numpy_dtype(dtype)
    except DTypeError as err:
        raise InputError(f"{what}: {err}") from None
    for d in shape:
        if not 0 <= d <= INT64_MAX:
            raise InputError(f"{what}: dimension {d} of shape {list(shape)} is outside "
                             f"[0, 2**63-1] (shapes are int64)")
    try:
        check_size(shape, dtype, max_bytes)
    except MemoryCheckError as err:
        if err.check == "resource":
            raise ResourceError(f"{what}: {err.message}", rule=err.rule) from None
        raise InputError(f"{what}: {err.message}") from None
    try:
        out = np.empty(shape, np_dtype)
    except ValueError as err:  # e.g. (0, 2**62, 4): empty, but NumPy refuses the shape
        raise InputError(f"{what}: NumPy cannot hold shape {list(shape)}: {err}") from None
    flat = out.reshape(-1)  # a view: ``out`` is contiguous
    for start in range(0, flat.size, _CHUNK):
        n = min(_CHUNK, flat.size - start)
        # The same draws, in the same order, as one call of the full size.
        if dtype.is_bool:
            draw = rng.integers(0, 2, size=n).astype(np.bool_)
        elif dtype.is_integer:
            lo, hi = (0, 10) if dtype.is_uint else (-8, 9)
            draw = rng.integers(lo, hi, size=n).astype(np_dtype)
        else:
            draw = rng.standard_normal(size=n).astype(np.float32).astype(np_dtype)
        flat[start:start + n] = draw
    return out


def _dim(d: P.PrimExpr, env: Mapping[P.Var, int], what: str) -> int:
    try:
        value = int(evaluate_int(d, env))
    except EvaluationError:
        names = ", ".join(v.name for v in P.free_vars(d) if v not in env)
        raise InputError(f"{what}: give a value for the symbolic variable(s) {names} "
                         f"(e.g. --sym {names.split(',')[0]}=4)") from None
    if value < 0:
        raise InputError(f"{what}: dimension evaluates to {value}")
    if value > INT64_MAX:
        raise InputError(f"{what}: dimension evaluates to {value}, beyond the int64 range")
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
    """The argument ``arr`` stands for: a 0-d array for an R.Prim (a whole number in the
    dtype's range for integers and bool), a 1-d (or 0-d) array of non-negative whole
    numbers for an R.Shape, an array for a tensor."""
    arr = np.asarray(arr)
    if isinstance(sinfo, si.PrimStructInfo):
        if arr.ndim != 0:
            raise InputError(f"{what}: a scalar parameter needs a 0-d array, got shape "
                             f"{arr.shape}")
        item = _numeric(arr, what).item()
        dt = sinfo.dtype
        if dt.is_bool:
            return PrimScalar(bool(_whole(item, what, 0, 1, "a bool")), dt)
        if dt.is_integer:
            lo, hi = dt.int_range()
            return PrimScalar(_whole(item, what, lo, hi, f"an {dt} value"), dt)
        try:
            return PrimScalar(float(item), dt)
        except OverflowError:  # a Python int from the command line, beyond any float
            raise InputError(f"{what}: {item} is too large for {dt}") from None
    if isinstance(sinfo, si.ShapeStructInfo):
        if arr.ndim > 1:
            raise InputError(f"{what}: a shape parameter needs a 1-d array, got shape "
                             f"{arr.shape}")
        items = _numeric(arr, what).reshape(-1).tolist()
        return ShapeValue(tuple(_whole(x, f"{what}: dimension {i}", 0, INT64_MAX,
                                       "a shape dimension")
                                for i, x in enumerate(items)))
    if isinstance(sinfo, si.TensorStructInfo) and arr.dtype.kind == "V" \
            and arr.dtype.names is None:
        # np.save writes bfloat16 and the other ml_dtypes types as raw void ('|V2'):
        # read the bytes as the parameter's dtype when the widths agree.
        try:
            want = numpy_dtype(sinfo.dtype)
        except DTypeError:
            return arr
        if want.itemsize == arr.dtype.itemsize:
            return arr.view(want)
    return arr


def _numeric(arr: np.ndarray, what: str) -> np.ndarray:
    """``arr`` if its items are numbers (ml_dtypes types as float64), else InputError."""
    if arr.dtype.kind in "biufO":  # O: a Python int too large for NumPy, from the CLI
        return arr
    try:
        dtype_of_numpy(arr.dtype)
    except DTypeError:
        raise InputError(f"{what}: expected numbers, found an array of dtype "
                         f"{arr.dtype}") from None
    return arr.astype(np.float64)


def _whole(x, what: str, lo: int, hi: int, expected: str) -> int:
    """``x`` as an int in [lo, hi]; InputError for NaN, inf, fractions and out-of-range
    values (truncating them would silently change the program's input)."""
    if isinstance(x, (bool, int, np.integer)):
        value = int(x)
    else:
        try:
            f = float(x)
        except (TypeError, ValueError):
            raise InputError(f"{what}: expected {expected}, found {x!r}") from None
        if not (math.isfinite(f) and f.is_integer()):
            raise InputError(f"{what}: expected a whole number for {expected}, found {f!r}")
        value = int(f)
    if not lo <= value <= hi:
        raise InputError(f"{what}: expected {expected} in [{lo}, {hi}], found {value}")
    return value


def stored_form(arr: np.ndarray) -> tuple[np.ndarray, str | None]:
    """``arr`` as np.save/np.load round-trip it: arrays of ml_dtypes types (bfloat16,
    float8, int4, ...), which NumPy writes as raw void or an unloadable '<f1', become
    their bits as the unsigned integer of the same width, with the TVM dtype name to
    record beside them; other arrays stay as they are (None)."""
    try:
        if np.dtype(arr.dtype.str) == arr.dtype:
            return arr, None
    except TypeError:  # '<f1' (float8_e5m2) is no NumPy dtype
        pass
    bits = arr.view(np.dtype(f"u{arr.dtype.itemsize}"))
    return bits, str(dtype_of_numpy(arr.dtype))


def from_stored_form(arr: np.ndarray, dtype_name: str, what: str) -> np.ndarray:
    """The inverse of ``stored_form``: the bits in ``arr`` read as ``dtype_name``."""
    try:
        want = numpy_dtype(parse_dtype(dtype_name))
    except DTypeError as err:
        raise InputError(f"{what}: bad dtype {dtype_name!r}: {err}") from None
    if arr.dtype.kind not in "uV" or arr.dtype.itemsize != want.itemsize:
        raise InputError(f"{what}: the bits of {dtype_name} must be an array of uint"
                         f"{8 * want.itemsize}, found {arr.dtype}")
    return arr.view(want)


def entry_function(mod: rx.IRModule, entry: str | None = None) -> str:
    """API-entry-1: the function to run. ``entry`` when given (it must be a Relax
    function of ``mod``); else ``main``; else the only Relax function of ``mod``.
    InputError names the candidates when there is no such choice."""
    relax_funcs = [name for name, f in mod.functions.items() if isinstance(f, rx.Function)]
    listed = ", ".join(relax_funcs) or "none"
    if entry is not None:
        func = mod.functions.get(entry)
        if func is None:
            raise InputError(f"the module has no function {entry!r} (its Relax functions: "
                             f"{listed})")
        if not isinstance(func, rx.Function):
            raise InputError(f"{entry!r} is a prim_func; run a Relax function (its Relax "
                             f"functions: {listed})")
        return entry
    if isinstance(mod.functions.get("main"), rx.Function):
        return "main"
    if len(relax_funcs) == 1:
        return relax_funcs[0]
    if not relax_funcs:
        raise InputError("the module has no Relax function to run")
    raise InputError(f"the module has no 'main' and {len(relax_funcs)} Relax functions; "
                     f"choose one as the entry: {listed}")


def value_from_python(x, sinfo: si.StructInfo, what: str):
    """API-args-1: the interpreter's value for a Python argument ``x`` of a parameter
    annotated ``sinfo``: a tuple (or list) for an R.Tuple, field by field; a number,
    bool or 0-d array for an R.Prim; a sequence of whole numbers or a 1-d array for an
    R.Shape; a NumPy array for a tensor, or Python numbers (nested lists) that take the
    tensor's annotated dtype.
    Whether the value fits the annotation is the interpreter's signature check."""
    if isinstance(sinfo, si.TupleStructInfo):
        if not isinstance(x, (tuple, list)):
            raise InputError(f"{what}: expected a tuple of {len(sinfo.fields)} values, "
                             f"found {type(x).__name__}")
        if len(x) != len(sinfo.fields):
            raise InputError(f"{what}: expected a tuple of {len(sinfo.fields)} values, "
                             f"found {len(x)}")
        return tuple(value_from_python(v, f, f"{what}[{i}]")
                     for i, (v, f) in enumerate(zip(x, sinfo.fields)))
    if isinstance(x, (PrimScalar, ShapeValue)) or not isinstance(
            sinfo, (si.PrimStructInfo, si.ShapeStructInfo, si.TensorStructInfo)):
        return x  # already the interpreter's value, or one it checks as it is
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as err:
            raise InputError(f"{what}: cannot read {type(x).__name__} as an array: {err}") \
                from None
        if isinstance(sinfo, si.TensorStructInfo) and arr.dtype.kind in "biuf":
            arr = _as_annotated(arr, sinfo.dtype, what)
    if arr.dtype.hasobject:
        raise InputError(f"{what}: expected numbers, found {type(x).__name__} holding "
                         f"Python objects")
    return value_from_array(arr, sinfo, what)


def _as_annotated(arr: np.ndarray, dtype: DataType, what: str) -> np.ndarray:
    """API-args-1: Python numbers for a tensor take its annotated dtype: any number for a
    float tensor; for an integer or bool tensor only values it holds exactly."""
    try:
        want = numpy_dtype(dtype)
    except DTypeError:
        return arr  # void or a dtype without a NumPy type: the signature check decides
    if dtype.is_float:
        return arr.astype(want)
    with np.errstate(all="ignore"):
        out = arr.astype(want)
        exact = np.array_equal(out.astype(np.float64), arr.astype(np.float64))
    if not exact:  # 1.5, 2**40 or NaN for int32, 2 for bool
        raise InputError(f"{what}: the values do not all fit {dtype} exactly")
    return out


def value_to_python(value):
    """API-args-1, the other way: tensors stay NumPy arrays, tuples become tuples, an
    R.Prim becomes a NumPy scalar of its dtype (a Python value for dtypes NumPy lacks),
    an R.Shape a 1-d int64 array (as ``--out`` saves it), strings and dtypes ``str``."""
    from relax_ref.values import DTypeValue, StringValue

    if isinstance(value, tuple):
        return tuple(value_to_python(v) for v in value)
    if isinstance(value, PrimScalar):
        try:
            return numpy_dtype(value.dtype).type(value.value)
        except (DTypeError, TypeError, ValueError, OverflowError):
            return value.value
    if isinstance(value, ShapeValue):
        return np.asarray(value.dims, dtype=np.int64)
    if isinstance(value, StringValue):
        return value.value
    if isinstance(value, DTypeValue):
        return str(value.dtype)
    return value


_STRUCTURED_KEY = re.compile(r"in_\d+(?:_\d+)+")


def arguments_from_named_arrays(func: rx.Function, arrays: Mapping[str, np.ndarray],
                                source: str = "the archive") -> list:
    """CLI-input-3: arguments from an archive's arrays by name. Either one array per
    parameter, ``in_K``, with a tuple parameter given by its fields ``in_K_0, in_K_1,
    ...`` (nested: ``in_K_0_1``); or every leaf in order, ``in_0, in_1, ...``, tuples
    flattened depth-first (the samples' and the fuzzer's form). ``NAME__dtype`` beside an
    array names the ml_dtypes type whose bits it holds (``stored_form``)."""
    # Other arrays (the samples keep their expected out_K beside) are not inputs.
    names = {k for k in arrays if k.startswith("in_") and not k.endswith("__dtype")}
    for k in sorted(arrays):
        if k.startswith("in_") and k.endswith("__dtype") and k[:-len("__dtype")] not in names:
            raise InputError(f"{source}: {k} has no array {k[:-len('__dtype')]} beside it")

    def leaf(key: str) -> np.ndarray:
        arr = arrays[key]
        name = arrays.get(key + "__dtype")
        if name is None:
            return arr
        if name.dtype.kind != "U" or name.ndim != 0:
            raise InputError(f"{source}: {key}__dtype must be a 0-d string array, found "
                             f"{name.dtype} of shape {name.shape}")
        return from_stored_form(arr, name.item(), f"{source}: {key}")

    if any(_STRUCTURED_KEY.fullmatch(k) for k in names):
        used: set[str] = set()

        def take(sinfo: si.StructInfo, key: str, what: str):
            if isinstance(sinfo, si.TupleStructInfo):
                return tuple(take(f, f"{key}_{i}", f"{what}[{i}]")
                             for i, f in enumerate(sinfo.fields))
            if key not in names:
                raise InputError(f"{source}: no array {key} for {what}")
            used.add(key)
            return value_from_array(leaf(key), sinfo, what)

        out = [take(p.struct_info, f"in_{k}", p.name_hint) for k, p in enumerate(func.params)]
        extra = sorted(names - used)
        if extra:
            raise InputError(f"{source}: {', '.join(extra)} match(es) no parameter of the "
                             f"function")
        return out
    expected = [f"in_{i}" for i in range(len(names))]
    if sorted(names) != sorted(expected):
        raise InputError(f"{source}: the inputs must be named {', '.join(expected[:3])}"
                         f"{', ...' if len(expected) > 3 else ''} without gaps (or in_K_0, "
                         f"in_K_1, ... for the fields of a tuple parameter K); found "
                         f"{', '.join(sorted(names))}")
    return arguments_from_arrays(func, [leaf(k) for k in expected])
