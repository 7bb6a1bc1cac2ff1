"""Explicit memory: storage objects, tensor views into them, poisoning and kill
(spec/semantics.md, section "Memory"; DESIGN.md decision 6).

Fresh storage is filled with the poison byte 0xFF: a float view of it reads NaN (every
IEEE format's all-ones pattern is a NaN) and an integer view reads -1 (or the maximum
for unsigned types). Killing a storage or a tensor re-poisons its bytes, so a plan that
lets two live tensors overlap, or a read after a kill, produces visibly wrong values
instead of silently right ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from relax_ref.ir.dtype import DataType, DTypeError
from relax_ref.ir.numpy_dtype import numpy_dtype

POISON_BYTE = 0xFF

# A single tensor or storage may not exceed this many bytes (ResourceError beyond).
DEFAULT_MAX_BYTES = 4 << 30  # 4 GiB: room for real weights; 2**31 float32 elements are over it


class MemoryCheckError(Exception):
    """A memory rule was broken; the interpreter turns it into a RuntimeCheckError of
    kind ``check`` with the span of the call."""

    def __init__(self, check: str, message: str, rule: str):
        super().__init__(message)
        self.check = check
        self.message = message
        self.rule = rule


@dataclass(eq=False)
class Storage:
    """A byte buffer from ``alloc_storage``. ``alive`` turns False when killed."""

    nbytes: int
    scope: str = "global"
    data: np.ndarray = field(default=None)  # uint8, nbytes long
    alive: bool = True

    def __post_init__(self) -> None:
        if self.data is None:
            self.data = np.full(self.nbytes, POISON_BYTE, dtype=np.uint8)


def poison_array(shape: tuple[int, ...], dtype: DataType) -> np.ndarray:
    """A fresh tensor whose every byte is the poison byte (EXEC-mem-poison-1)."""
    np_dtype = numpy_dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    raw = np.full(count * np_dtype.itemsize, POISON_BYTE, dtype=np.uint8)
    return raw.view(np_dtype).reshape(shape)


INT64_MIN, INT64_MAX = -2**63, 2**63 - 1  # the range of TVM's shapes and integer scalars


def itemsize(dtype: DataType) -> int:
    """The bytes of one element of ``dtype``; a MemoryCheckError for a type no tensor
    can hold (vector lanes, handles, void)."""
    try:
        return numpy_dtype(dtype).itemsize
    except DTypeError as err:
        raise MemoryCheckError("dtype_mismatch", f"no tensor can hold elements of type "
                               f"{dtype}: {err}", rule="EXEC-mem-alloc-1") from None


def check_size(shape: tuple[int, ...], dtype: DataType, max_bytes: int) -> int:
    """The byte size of a tensor, or a MemoryCheckError for negative or absurd sizes
    (a dimension beyond int64, or a size beyond the limit; a zero dimension does not
    excuse absurd others, which no array can have)."""
    for d in shape:
        if d < 0:
            raise MemoryCheckError("shape_mismatch", f"negative dimension in shape {list(shape)}",
                                   rule="EXEC-mem-alloc-1")
    size = itemsize(dtype)
    count, nonzero = 1, size
    for d in shape:
        count *= d
        nonzero *= max(d, 1)
    nbytes = count * size
    if nbytes > max_bytes or nonzero > INT64_MAX:
        raise MemoryCheckError("resource", f"a tensor of shape {list(shape)} and dtype {dtype} "
                               f"needs {nbytes} bytes, more than the limit of {max_bytes}"
                               if nbytes > max_bytes else f"shape {list(shape)} is too large "
                               f"for any array", rule="EXEC-limit-1")
    return nbytes


def alloc_storage(nbytes: int, scope: str, max_bytes: int) -> Storage:
    """EXEC-mem-storage-1: a fresh poisoned storage of ``nbytes`` bytes."""
    if nbytes < 0:
        raise MemoryCheckError("shape_mismatch", f"storage size {nbytes} is negative",
                               rule="EXEC-mem-storage-1")
    if nbytes > max_bytes:
        raise MemoryCheckError("resource", f"storage of {nbytes} bytes exceeds the limit of "
                               f"{max_bytes}", rule="EXEC-limit-1")
    return Storage(nbytes, scope)


def view_tensor(storage: Storage, offset: int, shape: tuple[int, ...], dtype: DataType,
                max_bytes: int) -> np.ndarray:
    """EXEC-mem-view-1: the tensor of ``shape`` and ``dtype`` whose bytes start at
    ``offset`` in ``storage``. It must lie inside the storage, and the storage must be
    alive. The view shares memory with the storage (and with every other view)."""
    if not storage.alive:
        raise MemoryCheckError("use_after_kill", "alloc_tensor on a storage that was killed",
                               rule="EXEC-mem-kill-2")
    nbytes = check_size(shape, dtype, max_bytes)
    if offset < 0 or offset + nbytes > storage.nbytes:
        raise MemoryCheckError("out_of_bounds", f"a tensor of {nbytes} bytes at offset {offset} "
                               f"does not fit in a storage of {storage.nbytes} bytes",
                               rule="EXEC-mem-view-1")
    np_dtype = numpy_dtype(dtype)  # check_size made sure it has one
    if offset % np_dtype.itemsize:
        raise MemoryCheckError("out_of_bounds", f"offset {offset} is not aligned to the "
                               f"{np_dtype.itemsize}-byte elements of {dtype}",
                               rule="EXEC-mem-view-1")
    raw = storage.data[offset:offset + nbytes]
    return raw.view(np_dtype).reshape(shape)


def kill_storage(storage: Storage) -> None:
    """EXEC-mem-kill-1: the storage's bytes are re-poisoned and it may not be used to
    create new tensors; views created earlier read poison from now on."""
    storage.data[:] = POISON_BYTE
    storage.alive = False


def kill_tensor(tensor: np.ndarray) -> None:
    """EXEC-mem-kill-1: the tensor's bytes are re-poisoned, whatever its layout. A
    read-only tensor (a module constant) is not memory the program owns and keeps its
    bytes."""
    if not tensor.size or not tensor.flags.writeable:
        return
    if tensor.flags.c_contiguous:
        tensor.reshape(-1).view(np.uint8)[:] = POISON_BYTE
    else:  # a strided view: element by element, each element's bytes all poison
        poison = np.full(tensor.dtype.itemsize, POISON_BYTE, np.uint8).view(tensor.dtype)
        tensor[...] = poison[0]


def poison_mask(arr: np.ndarray) -> np.ndarray:
    """Where ``arr`` holds poison: NaN for floats, all-0xFF elements otherwise."""
    if np.issubdtype(arr.dtype, np.floating) or arr.dtype.kind == "V" or \
            arr.dtype.name in ("bfloat16",) or arr.dtype.name.startswith("float8"):
        return np.isnan(arr.astype(np.float32))
    item = arr.dtype.itemsize
    raw = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.shape + (item,))
    return np.all(raw == POISON_BYTE, axis=-1)


def count_poison(arr: np.ndarray) -> int:
    """How many elements of ``arr`` hold the poison pattern (NaN counts for floats)."""
    if arr.size == 0:
        return 0
    if np.issubdtype(arr.dtype, np.floating) or arr.dtype.kind == "V":
        try:
            return int(np.isnan(arr.astype(np.float32)).sum())
        except (TypeError, ValueError):
            return 0
    item = arr.dtype.itemsize
    raw = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.size, item)
    return int(np.all(raw == POISON_BYTE, axis=1).sum())
