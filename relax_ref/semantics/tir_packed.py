"""Packed calls inside TIR: the DLTensor descriptors TVM builds on the stack and the
sort functions its lowered kernels call (spec/tir_semantics.md, "Packed calls";
EXEC-tir-packed-1 .. 5).

TVM's CPU lowering of sort-based ops (``median``, ``non_max_suppression``, ...) calls
its C++ sorts from TIR:

    T.call_packed("tvm.contrib.sort.argsort",
                  T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n, 4), 0, 2,
                                         T.float32(0.0), T.int64(0)), ..., axis, is_ascend)

Here a descriptor is a ``StackArray``: a NumPy view of the memory behind the handle,
with the shape, dtype and element offset the call gives (checked against that memory),
and each packed function is a NumPy implementation of TVM's, writing its output array in
place. Where TVM's function has no defined answer (a NaN under its comparison, a valid
count past the row) the call fails with a located error instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import prim_expr as P
from relax_ref.ir.dtype import DataType
from relax_ref.ir.numpy_dtype import numpy_dtype


def _error(message: str, node, check: str, rule: str) -> RuntimeCheckError:
    return RuntimeCheckError(message, getattr(node, "span", None), check=check, rule=rule)


@dataclass(frozen=True)
class StackShape:
    """``T.tvm_stack_make_shape(dims...)``: the dimensions, evaluated."""

    dims: tuple[int, ...]


@dataclass(frozen=True)
class StackArray:
    """``T.tvm_stack_make_array(...)``: a view of a handle's memory (writes go through)."""

    array: np.ndarray
    dtype: DataType
    handle: str          # the handle's name, for messages
    offset: int = 0      # elem_offset: where the view starts in the handle's memory


def _i_make_shape(m, e: P.Call) -> StackShape:
    """EXEC-tir-packed-2: each dimension an integer, none negative."""
    dims = tuple(m.to_int(a, e) for a in e.args)
    if any(d < 0 for d in dims):
        raise _error(f"T.tvm_stack_make_shape: negative dimension in {dims}", e,
                     "shape_mismatch", "EXEC-tir-packed-2")
    return StackShape(dims)


def _i_make_array(m, e: P.Call) -> StackArray:
    """EXEC-tir-packed-2: ``(data, shape, strides, ndim, dtype hint, elem_offset)``. The
    element type is the hint's type (its value is ignored, as in TVM); strides must be
    0 (compact); ``ndim`` must be the shape's length; the elements from ``elem_offset``
    on must lie inside the handle's memory."""
    if len(e.args) != 6:
        raise _error(f"T.tvm_stack_make_array takes (data, shape, strides, ndim, dtype, "
                     f"elem_offset), found {len(e.args)} arguments", e, "signature",
                     "EXEC-tir-packed-2")
    data, shape_e, strides, ndim_e, hint, offset_e = e.args
    if not isinstance(data, P.Var) or not data.dtype.is_handle:
        raise _error("T.tvm_stack_make_array: the data argument must be a buffer's handle "
                     "(A.data)", e, "signature", "EXEC-tir-packed-2")
    storage = getattr(m, "storage", {})
    flat = storage.get(data)
    if flat is None:
        raise _error(f"T.tvm_stack_make_array: handle {data.name} has no memory here (a "
                     f"buffer not allocated at this point, or a parameter bound to a "
                     f"non-contiguous array)", e, "undefined_buffer", "EXEC-tir-packed-2")
    shape = m.eval(shape_e)
    if not isinstance(shape, StackShape):
        raise _error("T.tvm_stack_make_array: the shape must be T.tvm_stack_make_shape(...)",
                     e, "signature", "EXEC-tir-packed-2")
    if not (isinstance(strides, P.IntImm) and strides.value == 0):
        raise _error("T.tvm_stack_make_array with explicit strides is not supported by the "
                     "reference TIR interpreter", e, "unsupported", "EXEC-tir-intrin-4")
    ndim = m.to_int(ndim_e, e)
    if ndim != len(shape.dims):
        raise _error(f"T.tvm_stack_make_array: ndim {ndim} but the shape has "
                     f"{len(shape.dims)} dimensions {shape.dims}", e, "shape_mismatch",
                     "EXEC-tir-packed-2")
    offset = m.to_int(offset_e, e)
    count = math.prod(shape.dims)
    want = numpy_dtype(hint.dtype)
    if flat.dtype != want:
        if flat.dtype.itemsize != want.itemsize:
            raise _error(f"T.tvm_stack_make_array: a {hint.dtype} array over handle "
                         f"{data.name}'s memory of {flat.dtype} (another element size)", e,
                         "dtype_mismatch", "EXEC-tir-packed-2")
        flat = flat.view(want)  # the same bytes under the descriptor's type, as in TVM
    if offset < 0 or offset + count > flat.size:
        raise _error(f"T.tvm_stack_make_array: shape {shape.dims} at element offset "
                     f"{offset} needs elements [{offset}, {offset + count}) of handle "
                     f"{data.name}, which has {flat.size}", e, "index_out_of_bounds",
                     "EXEC-tir-packed-2")
    return StackArray(flat[offset:offset + count].reshape(shape.dims), hint.dtype, data.name,
                      offset)


# ---------------------------------------------------------------------------------------
# The packed functions (TVM's src/runtime/extra/contrib/sort/sort.cc, in NumPy)
# ---------------------------------------------------------------------------------------

_SORT_KEYS = ("float16", "float32", "float64", "int32", "int64")
_ARGSORT_OUT = ("int32", "int64", "float32", "float64")


def _arg(args: list, i: int, kind: type, what: str, name: str, e):
    if i >= len(args) or not isinstance(args[i], kind):
        raise _error(f"{name}: argument {i} must be {what}", e, "signature",
                     "EXEC-tir-packed-3")
    value = args[i]
    if isinstance(value, StackArray) and value.offset != 0:
        # TVM's sorts use the DLTensor's data pointer and ignore its byte_offset: they
        # would read and write the handle's first elements instead.
        raise _error(f"{name}: argument {i} starts at element offset {value.offset} of "
                     f"handle {value.handle}; TVM's sort functions ignore a descriptor's "
                     f"offset (they would use element 0)", e, "invalid_value",
                     "EXEC-tir-packed-3")
    return value


def _scalar(args: list, i: int, what: str, name: str, e) -> int:
    value = args[i] if i < len(args) else None
    if isinstance(value, (StackArray, StackShape)) or value is None:
        raise _error(f"{name}: argument {i} must be {what}", e, "signature",
                     "EXEC-tir-packed-3")
    return int(value)


def _axis(axis: int, ndim: int, name: str, e) -> int:
    """TVM adds ndim to a negative axis and requires the result below ndim."""
    if axis < 0:
        axis += ndim
    if not 0 <= axis < ndim:
        raise _error(f"{name}: axis {axis} is outside the input's {ndim} dimensions", e,
                     "invalid_value", "EXEC-tir-packed-3")
    return axis


def _no_nan(keys: np.ndarray, name: str, e) -> None:
    """EXEC-tir-packed-4: TVM compares with ``<`` / ``>``, which orders no NaN; its
    std::stable_sort then has no defined result, so a NaN is an error here."""
    if keys.dtype.kind == "f" and np.isnan(keys).any():
        raise _error(f"{name}: the input holds a NaN, which TVM's comparison does not "
                     f"order (its result is unspecified)", e, "invalid_value",
                     "EXEC-tir-packed-4")


def stable_order(keys: np.ndarray, axis: int, ascend: bool) -> np.ndarray:
    """The positions of ``keys`` along ``axis`` in sorted order, equal keys in their
    original order whichever the direction (std::stable_sort with ``<`` or ``>``)."""
    if ascend:
        return np.argsort(keys, axis=axis, kind="stable")
    # Descending and stable: sort the reversed row ascending, then reverse the result.
    n = keys.shape[axis]
    order = np.argsort(np.flip(keys, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - order, axis)


def _sort_inputs(args: list, e, name: str, values: bool):
    src = _arg(args, 1, StackArray, "an array", name, e)
    dst = _arg(args, 2, StackArray, "an array", name, e)
    axis = _axis(_scalar(args, 3, "the axis", name, e), src.array.ndim, name, e)
    ascend = bool(_scalar(args, 4, "is_ascend", name, e))
    if str(src.dtype) not in _SORT_KEYS:
        raise _error(f"{name}: unsupported input dtype {src.dtype} (TVM's takes "
                     f"{', '.join(_SORT_KEYS)})", e, "dtype_mismatch", "EXEC-tir-packed-3")
    allowed = (str(src.dtype),) if values else _ARGSORT_OUT
    if str(dst.dtype) not in allowed:
        raise _error(f"{name}: unsupported output dtype {dst.dtype} for input {src.dtype} "
                     f"(TVM's takes {', '.join(allowed)})", e, "dtype_mismatch",
                     "EXEC-tir-packed-3")
    # TVM writes the output at the input's positions: a shape that differs would be
    # written past its end or in the wrong places.
    if dst.array.shape != src.array.shape:
        raise _error(f"{name}: output shape {dst.array.shape} differs from the input's "
                     f"{src.array.shape}", e, "shape_mismatch", "EXEC-tir-packed-3")
    _no_nan(src.array, name, e)
    return src, dst, axis, ascend


def _argsort(args: list, e) -> None:
    """``argsort(input, output, axis, is_ascend)``: each row's positions in stable
    sorted order, as the output's dtype."""
    src, dst, axis, ascend = _sort_inputs(args, e, "tvm.contrib.sort.argsort", False)
    dst.array[...] = stable_order(src.array, axis, ascend).astype(dst.array.dtype)


def _sort(args: list, e) -> None:
    """``sort(input, output, axis, is_ascend)``: each row's values, stably sorted."""
    src, dst, axis, ascend = _sort_inputs(args, e, "tvm.contrib.sort.sort", True)
    order = stable_order(src.array, axis, ascend)
    dst.array[...] = np.take_along_axis(src.array, order, axis)


def _argsort_nms(args: list, e) -> None:
    """``argsort_nms(input, valid_count, output, axis, is_ascend)``: in each row only the
    first valid_count elements are sorted (stably); positions from there on are written
    as themselves. The input is float32, valid_count int32 (the input's shape without
    the axis), the output int32."""
    name = "tvm.contrib.sort.argsort_nms"
    src = _arg(args, 1, StackArray, "an array", name, e)
    counts = _arg(args, 2, StackArray, "an array", name, e)
    dst = _arg(args, 3, StackArray, "an array", name, e)
    axis = _axis(_scalar(args, 4, "the axis", name, e), src.array.ndim, name, e)
    ascend = bool(_scalar(args, 5, "is_ascend", name, e))
    for arr, want, what in ((src, "float32", "input"), (counts, "int32", "valid count"),
                            (dst, "int32", "output")):
        if str(arr.dtype) != want:
            raise _error(f"{name}: the {what} must be {want}, found {arr.dtype}", e,
                         "dtype_mismatch", "EXEC-tir-packed-3")
    rows_shape = src.array.shape[:axis] + src.array.shape[axis + 1:]
    if counts.array.size != math.prod(rows_shape) or dst.array.shape != src.array.shape:
        raise _error(f"{name}: input {src.array.shape}, valid count {counts.array.shape} "
                     f"and output {dst.array.shape} do not fit (the valid count has the "
                     f"input's shape without axis {axis}; the output, the input's)", e,
                     "shape_mismatch", "EXEC-tir-packed-3")
    data = np.moveaxis(src.array, axis, -1).reshape(-1, src.array.shape[axis])
    n = src.array.shape[axis]
    result = np.empty(data.shape, np.int32)
    for row, count in enumerate(counts.array.reshape(-1).astype(np.int64)):
        # EXEC-tir-packed-5: TVM reads count elements from the row's start; past the
        # row's end it reads the next rows' data (or beyond the input).
        if count > n:
            raise _error(f"{name}: valid count {count} of row {row} exceeds the axis "
                         f"length {n}; TVM reads past the row", e, "index_out_of_bounds",
                         "EXEC-tir-packed-5")
        k = max(int(count), 0)
        _no_nan(data[row, :k], name, e)
        result[row, :k] = stable_order(data[row, :k], 0, ascend)
        result[row, k:] = np.arange(k, n)
    out = np.moveaxis(dst.array, axis, -1)            # a view: writes reach dst
    out[...] = result.reshape(out.shape)


_TOPK_KEYS = ("float16", "float32", "float64", "int8", "uint8", "int32", "int64")


def _topk(args: list, e) -> None:
    """``topk(input, outputs..., k, axis, ret_type, is_ascend)``: the first k of each
    row's stable sorted order (TVM selects them with a heap ordered by value, then
    position, and sorts them: the same k in the same order). ``ret_type`` "both" takes
    a values and an indices output, "values" or "indices" one. A k below 1 means the
    whole row. With k past the row's length only the row's length of positions is
    written, as in TVM: the rest keep what they held (poison, for a fresh buffer)."""
    name = "tvm.contrib.sort.topk"
    if len(args) < 7 or not isinstance(args[-2], str):
        raise _error(f"{name} takes (input, outputs..., k, axis, ret_type, is_ascend)", e,
                     "signature", "EXEC-tir-packed-3")
    ret_type = args[-2]
    wanted = {"both": ("values", "indices"), "values": ("values",),
              "indices": ("indices",)}.get(ret_type)
    if wanted is None or len(args) != 6 + len(wanted):
        raise _error(f"{name}: ret_type {ret_type!r} with {len(args) - 6} output arrays "
                     f"(\"both\" takes values and indices, \"values\" or \"indices\" one)", e,
                     "signature", "EXEC-tir-packed-3")
    src = _arg(args, 1, StackArray, "an array", name, e)
    outs = {what: _arg(args, 2 + i, StackArray, "an array", name, e)
            for i, what in enumerate(wanted)}
    k = _scalar(args, len(args) - 4, "k", name, e)
    axis = _axis(_scalar(args, len(args) - 3, "the axis", name, e), src.array.ndim, name, e)
    ascend = bool(_scalar(args, len(args) - 1, "is_ascend", name, e))
    n = src.array.shape[axis]
    k = n if k < 1 else k
    key = str(src.dtype)
    index_types = _ARGSORT_OUT + ((key,) if key in ("int8", "uint8") else ())
    if key not in _TOPK_KEYS:
        raise _error(f"{name}: unsupported input dtype {key}", e, "dtype_mismatch",
                     "EXEC-tir-packed-3")
    shape = src.array.shape[:axis] + (k,) + src.array.shape[axis + 1:]
    for what, out in outs.items():
        allowed = (key,) if what == "values" else index_types
        if str(out.dtype) not in allowed:
            raise _error(f"{name}: unsupported {what} dtype {out.dtype} for input {key}", e,
                         "dtype_mismatch", "EXEC-tir-packed-3")
        if out.array.shape != shape:
            raise _error(f"{name}: {what} shape {out.array.shape}, expected {shape} (the "
                         f"input's with k = {k} along axis {axis})", e, "shape_mismatch",
                         "EXEC-tir-packed-3")
    _no_nan(src.array, name, e)
    order = np.take(stable_order(src.array, axis, ascend), range(min(k, n)), axis)
    written = [slice(None)] * src.array.ndim
    written[axis] = slice(0, min(k, n))
    if "values" in outs:
        outs["values"].array[tuple(written)] = np.take_along_axis(src.array, order, axis)
    if "indices" in outs:
        index = outs["indices"].array
        index[tuple(written)] = order.astype(index.dtype)


PACKED_TIR: dict[str, Callable[[list, P.Call], None]] = {
    "tvm.contrib.sort.argsort": _argsort,
    "tvm.contrib.sort.argsort_nms": _argsort_nms,
    "tvm.contrib.sort.sort": _sort,
    "tvm.contrib.sort.topk": _topk,
}


def _i_call_packed(m, e: P.Call):
    """EXEC-tir-packed-1: ``T.call_packed(name, args...)`` runs the named function of
    PACKED_TIR on the evaluated arguments (descriptors and scalars); it returns 0."""
    if not e.args or not isinstance(e.args[0], P.StringImm):
        raise _error("T.call_packed takes the function's name (a string) first", e,
                     "signature", "EXEC-tir-packed-1")
    name = e.args[0].value
    fn = PACKED_TIR.get(name)
    if fn is None:
        raise _error(f"T.call_packed: no packed function {name!r} in the reference TIR "
                     f"interpreter (it has {', '.join(sorted(PACKED_TIR))})", e,
                     "unsupported", "EXEC-tir-packed-1")
    args = [name] + [a.value if isinstance(a, P.StringImm) else m.eval(a)
                     for a in e.args[1:]]
    fn(args, e)
    return np.int32(0)


PACKED_INTRINSICS: dict[str, Callable] = {
    "tvm_stack_make_shape": _i_make_shape,
    "tvm_stack_make_array": _i_make_array,
    "call_packed": _i_call_packed,
}
