"""The arrays of the vectorized TIR path (spec/tir_semantics.md, EXEC-tir-vec-3 .. 5,
-7): stores of many elements at once in iteration order, and the grid (a loop
variable's values as an array along one dimension, chunks, folds, contractions).
``tir_vector.VectorPath`` computes with them; nothing here reads the IR beyond a nest's
analysis (``tir_vector_nests``)."""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir.dtype import DataType
from relax_ref.solver.evaluate import dtype_range

from relax_ref.semantics.tir_exprs import _ARITH, _np

if TYPE_CHECKING:
    from relax_ref.semantics.tir_vector_nests import _Nest


class _Fallback(Exception):
    """The vectorized path cannot run this nest; the scalar path will."""


# ---------------------------------------------------------------------------------------
# Stores of many elements at once (EXEC-tir-vec-3)
# ---------------------------------------------------------------------------------------

def _clipped(idx: tuple, shape: tuple) -> tuple:
    return tuple(np.clip(i, 0, max(n - 1, 0)).astype(np.intp) for i, n in zip(idx, shape))


def _last_occurrences(flat: np.ndarray) -> np.ndarray | None:
    """Positions of the last occurrence of each distinct value, in order; None when
    all values are distinct."""
    if flat.size <= 1:
        return None
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    same_as_next = ordered[1:] == ordered[:-1]
    if not same_as_next.any():
        return None
    last = np.ones(flat.size, dtype=bool)
    last[:-1] = ~same_as_next
    return np.sort(order[last])


def _flat(idx: tuple, shape: tuple, n: int) -> np.ndarray:
    if not shape:
        return np.zeros(n, dtype=np.intp)
    return np.ravel_multi_index(idx, shape)


def _store_in_order(target: np.ndarray, idx: tuple, values: np.ndarray) -> None:
    """Store ``values`` at ``idx`` as a sequence of stores would: the last store to an
    element wins (NumPy does not promise that for repeated indices, so keep only it)."""
    if values.size == 0:
        return
    if target.ndim == 0:
        target[()] = values[-1]
        return
    keep = _last_occurrences(_flat(idx, target.shape, values.size))
    if keep is not None:
        idx, values = tuple(i[keep] for i in idx), values[keep]
    target[idx] = values


def _commit_distinct(target: np.ndarray, pending: list) -> None:
    """Store every (indices, values) pair when no element is stored twice; otherwise
    the order of stores would matter and the scalar path runs instead."""
    pending = [(idx, v) for idx, v in pending if v.size]
    if not pending:
        return
    flats = np.concatenate([_flat(idx, target.shape, v.size) for idx, v in pending])
    if flats.size != np.unique(flats).size:
        raise _Fallback()
    for idx, values in pending:
        if target.ndim == 0:
            target[()] = values[0]
        else:
            target[idx] = values


def _commit(target: np.ndarray, pending: list) -> None:
    """The stores of a nest computed in full before any store: ``("box", key, values)``
    (basic indexing; each element once by construction), ``("view", (view, keep),
    values)`` (a view of the target, where ``keep`` holds, or everywhere) or
    ``("flat", indices, values)`` (index arrays, which must store each element at most
    once). Mixed kinds are not compared, so they leave the nest to the scalar path."""
    kinds = {kind for kind, _, _ in pending}
    if not kinds:
        return
    if kinds == {"flat"}:
        _commit_distinct(target, [(idx, values) for _, idx, values in pending])
        return
    if "flat" in kinds:
        raise _Fallback()
    for kind, where, values in pending:
        if kind == "box":
            target[where] = values
        elif where[1] is None:
            where[0][...] = values
        else:
            where[0][where[1]] = values[where[1]]


# ---------------------------------------------------------------------------------------
# The grid of the vectorized path (EXEC-tir-vec-3 .. 5)
# ---------------------------------------------------------------------------------------

class _Axis:
    """Dimension ``pos`` of a grid of ``ndim``, for a loop over ``[start, start +
    extent)``: its variables ``names`` (of type ``dt``) take the values of a part of the
    range as an array that varies along this dimension only. A variable of another type
    is bound to the same values (as the scalar path binds a block iter var to its loop
    variable's value) but is not an axis for indexing. The values of a short axis are
    made once and shared; those of a long one are made for each part (a chunk's, at most
    ``chunk_elements``), so that no index array is the size of the tensor
    (EXEC-tir-vec-5)."""

    __slots__ = ("names", "start", "extent", "to", "values", "pos", "ndim", "whole")

    def __init__(self, names, start: int, extent: int, dt: DataType, pos: int, ndim: int):
        lo, hi = _range(dt)
        if start < lo or start + extent - 1 > hi:
            raise _Fallback()  # the scalar path's loop variable could not hold the values
        to = _np(dt)
        self.names = tuple((var, _np(var.dtype) == to) for var in names)
        self.start, self.extent, self.to, self.pos, self.ndim = start, extent, to, pos, ndim
        shared = extent <= SHARED_AXIS_VALUES
        self.values = _axis_values(start, extent, to) if shared else None
        self.whole = self._part(0, extent) if shared else None

    def part(self, offset: int, length: int) -> tuple:
        """The values ``start + offset, ...`` (``length`` of them), as ``bind_grid``
        takes them."""
        if self.whole is not None and offset == 0 and length == self.extent:
            return self.whole
        return self._part(offset, length)

    def _part(self, offset: int, length: int) -> tuple:
        shape = [1] * self.ndim
        shape[self.pos] = length
        first = self.start + offset
        if self.values is not None:
            values = self.values[offset:offset + length]
        else:
            values = np.arange(first, first + length, dtype=np.int64).astype(self.to, copy=False)
            values.flags.writeable = False
        return self.names, first, length, values.reshape(shape), self.pos


#: Axes of at most this many values keep them, shared by every grid (and call) that has
#: the axis; longer ones make each chunk's part when it is bound.
SHARED_AXIS_VALUES = 1 << 16


@lru_cache(maxsize=256)
def _axis_values(start: int, extent: int, to: np.dtype) -> np.ndarray:
    """``start, start + 1, ...`` (``extent`` values) of type ``to``, read-only (shared by
    every grid that has this axis)."""
    values = np.arange(start, start + extent, dtype=np.int64).astype(to, copy=False)
    values.flags.writeable = False
    return values


def _memo(nest: "_Nest", key: tuple, compute: Callable):
    """``compute()``, kept on the nest for the loop bounds ``key`` (a nest runs with a
    few bounds at most: each symbolic size it is called with)."""
    value = nest.memo.get(key)
    if value is None:
        if len(nest.memo) >= 16:
            nest.memo.clear()
        value = nest.memo[key] = compute()
    return value


def _spatial_axes(nest: "_Nest", mins: list, extents: list) -> list:
    """The grid of a spatial nest (EXEC-tir-vec-3): one axis per loop, in order."""
    def compute():
        ndim = len(nest.loops)
        return [_Axis((lp.loop_var,), lo, ext, lp.loop_var.dtype, pos, ndim)
                for pos, (lp, lo, ext) in enumerate(zip(nest.loops, mins, extents))]
    return _memo(nest, ("spatial", *mins, *extents), compute)


def _reduction_axes(nest: "_Nest", mins: list, extents: list) -> tuple[list, list]:
    """The grid of a reduction nest (EXEC-tir-vec-4): the fold loops' axes first, then
    the cells'; each loop's variable and the block iter var bound to it name its axis."""
    return _memo(nest, ("reduction", *mins, *extents),
                 lambda: _make_reduction_axes(nest, mins, extents))


def _make_reduction_axes(nest: "_Nest", mins: list, extents: list) -> tuple[list, list]:
    ndim = len(nest.loops)

    def axis(j: int, pos: int) -> _Axis:
        var = nest.loops[j].loop_var
        names = (var,) if nest.realize is None else (var, nest.iter_of_loop[j].var)
        return _Axis(names, mins[j], extents[j], var.dtype, pos, ndim)

    nf = len(nest.fold_loops)
    return ([axis(j, pos) for pos, j in enumerate(nest.fold_loops)],
            [axis(j, pos) for pos, j in enumerate(nest.cell_loops, nf)])


@lru_cache(maxsize=None)
def _range(dt: DataType) -> tuple[int, int]:
    if not dt.is_integer:
        raise _Fallback()
    return dtype_range(dt)


def _always(pred: P.PrimExpr) -> bool:
    """A predicate that is the constant true."""
    return type(pred) is P.IntImm and pred.value != 0


def _grid_view(v, dims: list[int], ndim: int):
    """``v`` (a buffer sliced along the grid positions ``dims``, in the buffer's order)
    as a view with the grid's dimensions: transposed to the grid's order, with length-1
    dimensions for the axes it does not vary along. No dimension: ``v`` itself."""
    if not dims:
        return v
    order, expand = _layout(tuple(dims), ndim)
    if order is not None:
        v = v.transpose(order)
    return v if expand is None else v[expand]


@lru_cache(maxsize=1024)
def _layout(dims: tuple, ndim: int) -> tuple:
    """For ``_grid_view``: the transposition to the grid's order (or None) and the index
    that inserts the missing dimensions (or None)."""
    present = sorted(dims)
    order = None if list(dims) == present else \
        tuple(sorted(range(len(dims)), key=dims.__getitem__))
    if len(present) == ndim:
        return order, None
    expand: list = [None] * ndim
    for p in present:
        expand[p] = slice(None)
    return order, tuple(expand)


def _chunks(extents: list[int], limit: int):
    """Boxes that cover the row-major iteration space of ``extents`` in order, each of at
    most ``limit`` elements (at least one): per axis, ``(offset, length)``. Each box is a
    run of consecutive iterations: the axes before the split one have length 1, the
    axes after it their whole extent."""
    if math.prod(extents) <= limit:
        yield [(0, e) for e in extents]
        return
    p, inner = len(extents) - 1, 1
    while p > 0 and inner * extents[p] <= limit:
        inner *= extents[p]
        p -= 1
    step = max(1, limit // inner)
    whole = [(0, e) for e in extents[p + 1:]]
    for outer in itertools.product(*(range(e) for e in extents[:p])):
        head = [(o, 1) for o in outer]
        for s in range(0, extents[p], step):
            yield head + [(s, min(step, extents[p] - s))] + whole


# Neutral elements that leave every accumulator bit-identical: a + (-0.0) == a and
# a - (+0.0) == a for every float a (signed zeros and NaN included), a * 1 == a.
def _neutral(op: type, dt: DataType):
    npdt = _np(dt)
    if op is P.Add and dt.is_float:
        return npdt.type(-0.0)
    return npdt.type(1 if op is P.Mul else 0)


_UFUNCS = {P.Add: np.add, P.Sub: np.subtract, P.Mul: np.multiply}


def _fold(op: type, acc_first: bool, acc: np.ndarray, updates: np.ndarray,
          mask: np.ndarray | None, fold_shape: tuple, dt: DataType) -> np.ndarray:
    """The sequential left fold ``acc = op(acc, u)`` (or ``op(u, acc)``) over a block of
    fold iterations in order (``updates[t]`` for each ``t`` of ``fold_shape``, row-major),
    skipping masked-out positions: per iteration one array operation over all the cells,
    the scalar path's operation on each, so the result is bit-identical. ``+ - *`` run in
    place; small integers stay in their type (they wrap at each step)."""
    ufunc = _UFUNCS.get(op)
    if mask is not None and ufunc is not None and acc_first:
        updates = np.where(mask, updates, _neutral(op, dt))
        mask = None
    if mask is None and acc.ndim == 0 and acc_first:
        whole = _fold_to_scalar(op, acc, updates, fold_shape, dt)
        if whole is not None:
            return whole
    steps = range(fold_shape[0]) if len(fold_shape) == 1 else \
        itertools.product(*(range(e) for e in fold_shape))
    if ufunc is not None and mask is None and acc.ndim:
        if acc_first:
            for t in steps:
                ufunc(acc, updates[t], out=acc)
        else:
            for t in steps:
                ufunc(updates[t], acc, out=acc)
        return acc
    combine = _ARITH[op]
    for t in steps:
        u = updates[t]
        new = combine(acc, u, dt, None) if acc_first else combine(u, acc, dt, None)
        acc = new if mask is None else np.where(mask[t], new, acc)
    return np.asarray(acc)


def _fold_to_scalar(op: type, acc: np.ndarray, updates: np.ndarray, fold_shape: tuple,
                    dt: DataType) -> np.ndarray | None:
    """A fold into one cell (a reduction to a 0-d result) as whole-array operations with
    the sequential fold's exact result (EXEC-tir-vec-3), or None where there is none:
    ``+ - *`` by ``ufunc.accumulate``, which combines strictly left to right in the
    dtype (``ufunc.reduce`` would sum pairwise); ``max``/``min`` by the array's extreme
    when no value is NaN or zero (then the left fold of ``a > b ? a : b`` picks the same
    value in any order; a NaN or a signed zero makes the order matter)."""
    flat = np.asarray(updates).reshape(-1)
    if flat.size != int(np.prod(fold_shape)):
        return None
    ufunc = _UFUNCS.get(op)
    if ufunc is not None:
        seq = np.concatenate([np.asarray(acc).reshape(1).astype(flat.dtype), flat])
        if seq.dtype != np.asarray(acc).dtype:
            return None
        return np.asarray(ufunc.accumulate(seq, dtype=seq.dtype)[-1])
    if op in (P.Max, P.Min) and flat.dtype.kind in "fiu":
        seq = np.concatenate([np.asarray(acc).reshape(1), flat])
        if seq.dtype != np.asarray(acc).dtype:
            return None
        if flat.dtype.kind == "f" and (np.isnan(seq).any() or (seq == 0).any()):
            return None
        return np.asarray(seq.max() if op is P.Max else seq.min())
    return None


def _overflow_free(acc: np.ndarray, factors: list, count: int) -> bool:
    """EXEC-tir-vec-7: whether a contraction keeps the infs and NaNs of the ordered sum.
    BLAS fuses each multiply into its add (a product beyond the dtype's range is not
    rounded to inf first, so inf + -inf does not become NaN) and reassociates the sum
    (a partial sum may overflow in one order only). Neither matters when no factor
    holds an inf and every partial sum of ``count`` products, plus the accumulator,
    stays well inside the range: bounded by the largest magnitudes. NaNs propagate in
    any order."""
    def largest(a: np.ndarray) -> float:
        if a.size == 0:
            return 0.0
        with np.errstate(all="ignore"):
            hi, lo = float(np.nanmax(a, initial=-np.inf)), float(np.nanmin(a, initial=np.inf))
        if hi == -np.inf and lo == np.inf:  # every element is NaN
            return 0.0
        return max(abs(hi), abs(lo))

    bound = float(count)
    for f in factors:
        bound *= largest(f)
    bound += largest(acc)
    return math.isfinite(bound) and bound < float(np.finfo(acc.dtype).max) / 2


def _dot_general(operands: list, out: list[int], summed: list[int]) -> np.ndarray | None:
    """The sum over the grid positions ``summed`` of the product of ``operands`` (one or
    two ``(array, positions)``: each array dimension is the grid position named), with
    the dimensions ``out`` in that order; None when some position of ``out`` is in no
    operand, or a position summed over is not in every operand (a sum of equal terms
    is not their product with a count, in floats). Two operands run as one batched
    matrix product (BLAS): every product is formed, the sums alone are reassociated."""
    have = {p for _, dims in operands for p in dims}
    if not set(out) <= have or any(p not in dims for p in summed for _, dims in operands):
        return None
    if len(operands) == 1:
        arr, dims = operands[0]
        folded = tuple(d for d, p in enumerate(dims) if p not in out)
        if folded:
            arr = arr.sum(axis=folded)
            dims = [p for p in dims if p in out]
        return arr.transpose([dims.index(p) for p in out])
    (a, da), (b, db) = operands
    if any(p not in out and p not in db for p in da) or \
            any(p not in out and p not in da for p in db):
        # A fold axis of one factor only: summing it first would distribute the product
        # over the sum (inf * (1 + -1) is not inf * 1 + inf * -1), not reassociate it.
        return None
    batch = [p for p in out if p in da and p in db]
    left = [p for p in out if p in da and p not in db]
    right = [p for p in out if p in db and p not in da]
    inner = [p for p in da if p in db and p not in out]
    size = dict(zip(da, a.shape)) | dict(zip(db, b.shape))

    def as_matrix(arr, dims, rows, cols):
        arr = arr.transpose([dims.index(p) for p in batch + rows + cols])
        return arr.reshape(math.prod(size[p] for p in batch),
                           math.prod(size[p] for p in rows), math.prod(size[p] for p in cols))

    prod = np.matmul(as_matrix(a, da, left, inner), as_matrix(b, db, inner, right))
    got = batch + left + right
    prod = prod.reshape([size[p] for p in got])
    return prod.transpose([got.index(p) for p in out])
