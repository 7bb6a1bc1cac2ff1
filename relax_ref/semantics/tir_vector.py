"""The vectorized path of the TIR interpreter (spec/tir_semantics.md, EXEC-tir-vec-*).

It runs a perfect loop nest around one store, or around one block whose body is one
store, as array operations over the whole iteration space, when the shape of the nest
guarantees the same final memory as the scalar path (``tir_interp.py``). Whenever a
runtime condition fails or anything goes wrong while it computes (an index out of
bounds, a division by zero, a binding outside its domain), it has either changed nothing
or only written what the scalar path rewrites identically, and the statement is run
again on the scalar path, which raises the error at the exact iteration. In mode
``"auto"``, float sums of products of loads run as contractions (EXEC-tir-vec-7, BLAS).

``VectorPath`` holds the methods; the machine of ``tir_interp.py`` inherits them and
provides the state (``mode``, ``steps``, ``max_steps``, ``stats``, ``failures``, the
limits ``chunk_elements``, ``fold_block_elements``, ``auto_min_iterations``, and the
grid: ``axes``, ``grid_ndim``, ``lengths``). Which nests it takes is read from the IR
by ``tir_vector_nests``; the array helpers it computes with (stores in order, the
grid's axes, chunks, folds, contractions) are ``tir_vector_arrays``.
"""
from __future__ import annotations

import math

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import DataType
from relax_ref.errors import RelaxError

from relax_ref.semantics.tir_exprs import (
    Evaluator, _checked_indices, _constant, _free_vars, _is_array, _np,
)
from relax_ref.semantics.tir_vector_arrays import (
    _Fallback, _always, _chunks, _clipped, _commit, _dot_general, _fold, _grid_view,
    _overflow_free, _range, _reduction_axes, _spatial_axes, _store_in_order,
)
from relax_ref.semantics.tir_vector_nests import (
    _AFFINE_OPS, _ORDERINGS, _Nest, _analysed, _index_forms, _iter_forms,
)


class VectorPath(Evaluator):
    """The vectorized path's methods (EXEC-tir-vec-1 .. 8)."""

    # -- the vectorized path (EXEC-tir-vec-*) ----------------------------------------------------
    def try_vectorize(self, s: tir.For) -> str:
        """``"done"`` when the nest at ``s`` ran vectorized; ``"declined"`` when it is not
        of a shape the vectorized path handles (EXEC-tir-vec-1); ``"failed"`` when it is
        but a runtime condition failed or an error arose (EXEC-tir-vec-6): nothing
        observable happened that the scalar path, which runs it next, does not redo."""
        nest = _analysed(s)
        if nest is None or self.failures.get(id(nest), 0) >= 2:
            return "declined"
        try:
            mins = [self.to_int(lp.min, lp) for lp in nest.loops]
            extents = [max(0, self.to_int(lp.extent, lp)) for lp in nest.loops]
            total = math.prod(extents)
            if self.mode in ("auto", "ordered") and total < self.auto_min_iterations:
                return "declined"
            cost = self._nest_steps(nest, mins, extents)
        except RelaxError:
            return "declined"
        # EXEC-tir-limit-1: the nest's share of the budget, checked before it runs; past
        # the limit the scalar path runs and stops (before its first iteration, or at the
        # exact step). A contraction that cannot run checks the full share first.
        may_contract = self.reassociate and nest.kind != "spatial" and bool(nest.factors) \
            and (nest.realize is None or _always(nest.realize.predicate))
        share = -(-cost // (self.contraction_step_iterations if may_contract
                            else self.vector_step_iterations))
        if self.steps + share > self.max_steps:
            return "declined"
        self.nest_cost = cost
        contracted = self.stats["contracted"]
        saved = self.env
        try:
            if nest.kind == "spatial":
                self._vector_spatial(nest, mins, extents)
            else:
                self._vector_reduction(nest, mins, extents)
        except (_Fallback, RelaxError):
            self.failures[id(nest)] = self.failures.get(id(nest), 0) + 1
            self.stats["fallback"] += 1
            return "failed"
        finally:
            self.env, self.axes = saved, None
        if self.stats["contracted"] == contracted:
            share = -(-cost // self.vector_step_iterations)
        self.steps += share
        self.stats["vectorized"] += 1
        return "done"

    def _nest_steps(self, nest: "_Nest", mins: list[int], extents: list[int]) -> int:
        """EXEC-tir-limit-1: the steps the scalar path takes for the nest beyond the step
        of its outermost loop statement (``exec`` charged it): one per inner loop
        statement run, one per store; with a block, one per instance, one per store it
        runs, one per init it runs. Exact when the block has no predicate (the init then
        runs once per cell when every reduction domain starts inside its loop's range);
        an upper bound when a predicate may skip instances."""
        cost, prefix = 0, 1
        for ext in extents[:-1]:
            prefix *= ext
            cost += prefix
        total = math.prod(extents)
        realize = nest.realize
        if realize is None:
            return cost + total
        if not _always(realize.predicate):
            return cost + total * (3 if nest.init_value is not None else 2)
        cost += 2 * total
        if nest.init_value is not None:
            runs = math.prod(extents[j] for j in nest.cell_loops)
            for j in nest.fold_loops:
                dom_min = self.to_int(nest.iter_of_loop[j].dom.min, realize)
                if not mins[j] <= dom_min < mins[j] + extents[j]:
                    runs = 0
            cost += runs
        return cost

    def _nest_arrays(self, nest: "_Nest") -> np.ndarray:
        """The stored buffer's array, after checking that no buffer the nest reads shares
        memory with it (EXEC-tir-vec-2)."""
        target = self.array_of(nest.store.buffer, nest.store)
        for buf in nest.reads:
            if np.may_share_memory(target, self.array_of(buf, nest.store)):
                raise _Fallback()
        return target

    # -- the grid: loop variables as broadcast index arrays ---------------------------------
    def bind_grid(self, saved: dict, axes: list) -> None:
        """Bind the variables of each axis of the grid (``_Axis.part``, one per
        dimension, in order) to its values."""
        env, grid = dict(saved), {}
        lengths = [1] * len(axes)
        for names, start, length, values, pos in axes:
            lengths[pos] = length
            for var, is_axis in names:
                env[var] = values
                if is_axis:
                    grid[var] = (pos, start, length)
        self.env, self.axes, self.grid_ndim, self.lengths = env, grid, len(axes), lengths

    def rebind_grid(self, axes: list) -> None:
        """Bind some axes of the current grid to other values (in place)."""
        env, grid = self.env, self.axes
        for names, start, length, values, pos in axes:
            self.lengths[pos] = length
            for var, is_axis in names:
                env[var] = values
                if is_axis:
                    grid[var] = (pos, start, length)

    def box(self, exprs, arr: np.ndarray, node) -> tuple | None:
        """The basic-indexing key of ``arr[exprs]`` on the grid, and the grid position of
        each sliced dimension, when every index is an axis plus a constant (zero
        included; each axis at most once; its values in the index type, where the scalar
        path computes them without wrapping) or one in-bounds integer for the whole grid;
        else None (the gather then computes, checks and reports the indices)."""
        forms = _index_forms(node)
        if len(exprs) != arr.ndim:
            return None
        axes = self.axes
        key: list = []
        dims: list[int] = []
        for d, expr in enumerate(exprs):
            form = forms[d]
            ax = None if form is None else axes.get(form[0])
            if ax is not None:
                pos, start, length = ax
                lo = start + form[1]
                hi = lo + length
                if pos in dims or lo < form[2] or hi - 1 > form[3] or lo < 0 or \
                        hi > arr.shape[d]:
                    return None
                key.append(slice(lo, hi))
                dims.append(pos)
                continue
            env = self.env
            if any(type(env.get(v)) is np.ndarray for v in _free_vars(expr)):
                return None  # it varies on the grid: not one integer
            i = self.eval(expr)
            if type(i) is np.ndarray or i.dtype.kind not in "iu":
                return None
            k = int(i)
            if k < 0 or k >= arr.shape[d]:
                return None
            key.append(k)
        return tuple(key), dims

    def load_on_grid(self, arr: np.ndarray, load: tir.BufferLoad) -> np.ndarray | None:
        """``arr[indices]`` on the grid as a view with the grid's dimensions (``load_view``,
        ``_grid_view``), or None."""
        view = self.load_view(arr, load)
        return None if view is None else _grid_view(view[0], view[1], self.grid_ndim)

    def load_view(self, arr: np.ndarray, load: tir.BufferLoad) -> tuple | None:
        """``arr[indices]`` on the grid as a view, and the grid position of each of its
        dimensions (increasing for a strided view): ``box``'s slices, else a strided view
        when every index is an affine form of the axes (``affine``); else None (the
        gather computes, checks and reports the indices)."""
        box = self.box(load.indices, arr, load)
        if box is not None:
            return arr[box[0]], box[1]
        if len(load.indices) != arr.ndim:
            return None
        strides: dict[int, int] = {}
        corner: list[int] = []
        d = 0
        while d < arr.ndim:
            form = self.affine(load.indices[d])
            if form is not None:
                c, coefs, lo, hi = form
                if lo < 0 or hi >= arr.shape[d]:
                    return None  # out of bounds somewhere: the gather reports where
                corner.append(c)
                stride = arr.strides[d]
                d += 1
            else:
                form = self._merged_pair(arr, load.indices, d)
                if form is None:
                    return None
                c, coefs, _, _ = form
                inner = arr.shape[d + 1]
                corner += [c // inner, c % inner]
                stride = arr.strides[d + 1]
                d += 2
            for pos, k in coefs.items():
                strides[pos] = strides.get(pos, 0) + k * stride
        dims = sorted(strides)
        # Every element the view reaches is one the indices name, all in bounds: the
        # view starts at the element of the grid's first point and steps by the sum of
        # each index's coefficient times its dimension's stride.
        view = np.lib.stride_tricks.as_strided(
            arr[tuple(slice(c, None) for c in corner)],
            shape=[self.lengths[p] for p in dims], strides=[strides[p] for p in dims],
            writeable=False)
        self.stats["strided"] += 1
        return view, dims

    def _merged_pair(self, arr: np.ndarray, indices, d: int) -> tuple | None:
        """EXEC-tir-vec-8: indices ``d, d + 1`` that are ``X // B`` and ``X % B`` of one
        affine form ``X`` in ``[0, A * B)``, where dimension ``d + 1`` has length ``B``
        and dimension ``d`` (of length ``A``) steps over it contiguously: the element is
        ``X`` of the two dimensions merged (a reshape that merges dimensions). The form
        of ``X``, else None."""
        if d + 1 >= arr.ndim:
            return None
        quotient, remainder = indices[d], indices[d + 1]
        if type(quotient) is not P.FloorDiv or type(remainder) is not P.FloorMod:
            return None
        inner = arr.shape[d + 1]
        for e in (quotient, remainder):
            if type(e.b) is not P.IntImm or e.a.dtype != e.dtype or e.b.dtype != e.dtype \
                    or int(_constant(e.b)) != inner:
                return None
        if inner <= 0 or arr.strides[d] != inner * arr.strides[d + 1]:
            return None
        x = self.affine(quotient.a)
        if x is None or x[:2] != (self.affine(remainder.a) or (None,))[:2]:
            return None
        if x[2] < 0 or x[3] >= arr.shape[d] * inner:
            return None
        return x

    def affine(self, e: P.PrimExpr) -> tuple | None:
        """EXEC-tir-vec-8: ``e`` on the grid as ``(c, {pos: k}, lo, hi)``, the value
        ``c + sum(k * t_pos)`` where ``t_pos`` counts along grid position ``pos`` from 0,
        and ``[lo, hi]`` its range, when ``e`` is built from integer constants, scalar
        variables, axes, ``+``, ``-``, ``*`` by a constant, and ``//``, ``%`` (floor, or
        truncating on a non-negative range) by a positive constant whose quotient is the
        same over the whole range, with every intermediate value in ``e``'s type (so that
        the scalar path's wrapping arithmetic computes the same values); else None."""
        dt = e.dtype
        if dt.lanes != 1 or not dt.is_integer:
            return None
        t = type(e)
        if t is P.IntImm:
            c = int(_constant(e))
            return c, {}, c, c
        if t is P.Var:
            ax = self.axes.get(e)
            if ax is not None:
                pos, start, length = ax
                return start, {pos: 1}, start, start + length - 1
            v = self.env.get(e)
            if type(v) is np.ndarray or v is None or v.dtype != _np(dt):
                return None
            c = int(v)
            return c, {}, c, c
        if t not in _AFFINE_OPS or e.a.dtype != dt or e.b.dtype != dt:
            return None
        a = self.affine(e.a)
        b = None if a is None else self.affine(e.b)
        if b is None:
            return None
        if t is P.Add or t is P.Sub:
            sign = 1 if t is P.Add else -1
            coefs = dict(a[1])
            for pos, k in b[1].items():
                coefs[pos] = coefs.get(pos, 0) + sign * k
            c = a[0] + sign * b[0]
        elif t is P.Mul:
            if a[1] and b[1]:
                return None
            (k, _, _, _), (c, coefs, _, _) = (a, b) if not a[1] else (b, a)
            c, coefs = c * k, {pos: k * x for pos, x in coefs.items()}
        else:  # floor or truncating division and remainder by a positive constant
            k = b[0]
            if b[1] or k <= 0 or ((t is P.Div or t is P.Mod) and a[2] < 0):
                return None
            q = a[2] // k
            if a[3] // k != q:
                return None
            if t is P.FloorDiv or t is P.Div:
                return q, {}, q, q
            c, coefs = a[0] - q * k, a[1]
        lengths = self.lengths
        lo = hi = c
        for pos, k in coefs.items():
            span = k * (lengths[pos] - 1)
            lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
        d_lo, d_hi = _range(dt)
        if lo < d_lo or hi > d_hi:
            return None
        return c, coefs, lo, hi

    def eval_split(self, cond: P.PrimExpr, t: P.PrimExpr, f: P.PrimExpr, dt: DataType):
        """``if_then_else`` on the grid whose condition compares affine forms
        (EXEC-tir-vec-8) that differ along one grid position only: the condition holds
        on a prefix or a suffix of that position, so each arm is evaluated on its own
        part of the grid (a box: its loads stay views), only where it is chosen
        (EXEC-tir-intrin-2). None when the condition is not of that shape."""
        if type(cond) not in _ORDERINGS or not cond.a.dtype.is_integer or \
                cond.a.dtype != cond.b.dtype:
            return None
        a = self.affine(cond.a)
        b = None if a is None else self.affine(cond.b)
        if b is None:
            return None
        diff = {p: a[1].get(p, 0) - b[1].get(p, 0) for p in a[1].keys() | b[1].keys()}
        moving = [p for p, k in diff.items() if k]
        if len(moving) > 1:
            return None
        lengths = self.lengths
        pos = moving[0] if moving else 0
        length = lengths[pos]
        # The difference of the two sides at each point along ``pos`` (exact integers).
        steps = np.arange(length, dtype=np.int64) * diff.get(pos, 0) + (a[0] - b[0])
        holds = _ORDERINGS[type(cond)](steps, 0)
        first_true, n_true = int(np.argmax(holds)), int(holds.sum())
        if n_true == length:
            return self.eval(t)
        if n_true == 0:
            return self.eval(f)
        parts = [(first_true, first_true + n_true, t)]  # a prefix or a suffix
        parts.append((0, first_true, f) if first_true else (n_true, length, f))
        env = self.env
        ndim = self.grid_ndim
        if any(type(v) is np.ndarray and (v.ndim != ndim or v.shape[pos] not in (1, length))
               for v in env.values()):
            return None
        out = np.empty(tuple(lengths), dtype=_np(dt))
        saved_env, saved_axes = env, self.axes
        try:
            for lo, hi, arm in parts:
                cut = (slice(None),) * pos + (slice(lo, hi),)
                self.env = {k: (v[cut] if type(v) is np.ndarray and v.shape[pos] != 1 else v)
                            for k, v in saved_env.items()}
                self.axes = {k: ((p, start + lo, hi - lo) if p == pos else (p, start, n))
                             for k, (p, start, n) in saved_axes.items()}
                lengths[pos] = hi - lo
                out[cut] = self.eval(arm)
        finally:
            self.env, self.axes, lengths[pos] = saved_env, saved_axes, length
        return out

    def eval_choice(self, c: np.ndarray, t: P.PrimExpr, f: P.PrimExpr, dt: DataType):
        """``if_then_else`` with a condition that varies: each arm is evaluated only
        where it is chosen (EXEC-tir-intrin-2)."""
        shape = np.broadcast_shapes(c.shape, *(v.shape for v in self.env.values() if _is_array(v)))
        chosen = np.broadcast_to(c, shape)
        out = np.zeros(shape, dtype=_np(dt))
        for mask, arm in ((chosen, t), (~chosen, f)):
            if mask.any():
                out[mask] = self.eval_masked(arm, mask, shape)
        return out

    def eval_masked(self, e: P.PrimExpr, mask: np.ndarray, shape: tuple):
        """The value of ``e`` at the positions of ``mask`` (a flat array, or a scalar)."""
        saved, saved_axes = self.env, self.axes
        # Only the variables ``e`` reads are restricted to the mask; the other arrays are
        # left out, so that every array in the environment is flat.
        used = _free_vars(e)
        self.env = {k: (np.broadcast_to(v, shape)[mask] if _is_array(v) else v)
                    for k, v in saved.items() if k in used or not _is_array(v)}
        self.axes = None  # the values are flat now: no axis is an axis any more
        try:
            return self.eval(e)
        finally:
            self.env, self.axes = saved, saved_axes

    def eval_full(self, e: P.PrimExpr, mask: np.ndarray | None, shape: tuple) -> np.ndarray:
        """The value of ``e`` broadcast to ``shape``, computed only where ``mask`` holds
        (elsewhere zeros)."""
        if mask is None:
            return np.broadcast_to(self.eval(e), shape)
        out = np.zeros(shape, dtype=_np(e.dtype))
        if mask.any():
            out[mask] = self.eval_masked(e, mask, shape)
        return out

    # -- EXEC-tir-vec-3: spatial nests --------------------------------------------------------
    def _vector_spatial(self, nest: "_Nest", mins: list, extents: list) -> None:
        """EXEC-tir-vec-3: every iteration computes its value and index from memory the
        nest does not write, so all iterations of a chunk are computed at once, on the
        grid of the loops (one array dimension per loop), and stored in iteration order
        (the last write to an element wins)."""
        target = self._nest_arrays(nest)
        if math.prod(extents) == 0:
            return
        store, realize = nest.store, nest.realize
        ndim = len(nest.loops)
        saved = self.env
        stash: list | None = [] if nest.self_read else None
        specs = _spatial_axes(nest, mins, extents)
        for chunk in _chunks(extents, self.chunk_elements):
            shape = tuple(length for _, length in chunk)
            self.bind_grid(saved, [a.part(off, length) for a, (off, length) in zip(specs, chunk)])
            if realize is not None:
                if not _always(realize.predicate) and not np.all(self.eval(realize.predicate)):
                    # Some instances are skipped: the flat path filters them.
                    self.env, self.axes = saved, None
                    self._vector_spatial_flat(nest, mins, extents)
                    return
                self._bind_iter_values(realize)
            value = self.eval(store.value)
            if value.dtype != target.dtype:
                raise _Fallback()
            box = self.box(store.indices, target, store)
            if box is not None:
                key, dims = box
                unused = [p for p in range(ndim) if p not in dims]
                if stash is not None and any(extents[p] > 1 for p in unused):
                    raise _Fallback()  # it would read what an earlier iteration stored
                v = value if value.shape == shape else np.broadcast_to(value, shape)
                if unused:  # the last iteration that stores each element
                    v = v[tuple(-1 if p in unused else slice(None) for p in range(ndim))]
                present = sorted(dims)
                if dims != present:
                    v = v.transpose([present.index(p) for p in dims])
                if stash is not None:
                    stash.append(("box", key, v))
                else:
                    target[key] = v
                value = v = None
                self.env = saved
                continue
            n = math.prod(shape)
            idx = self.indices(store.buffer, target, store.indices, store, "store")
            idx = tuple(np.broadcast_to(i, shape).reshape(n) for i in idx)
            v = np.broadcast_to(value, shape).reshape(n)
            if stash is not None:
                stash.append(("flat", idx, v))
            else:
                _store_in_order(target, idx, v)
            # This chunk's arrays go before the next chunk's are made.
            value = v = idx = None
            self.env = saved
        if stash:
            _commit(target, stash)

    def _bind_iter_values(self, realize: tir.SBlockRealize) -> None:
        """Block iter vars on the grid: each value is computed and checked against its
        domain (EXEC-tir-block-1); one that is an axis (plus or minus a constant) stays
        an axis."""
        block = realize.block
        env, axes = self.env, self.axes
        bindings = []
        for iv, expr, form in zip(block.iter_vars, realize.iter_values, _iter_forms(realize)):
            ax = None if form is None else axes.get(form[0])
            if ax is not None:
                pos, start, length = ax
                first = start + form[1]
                ax = (pos, first, length) if form[2] <= first and \
                    first + length - 1 <= form[3] else None
            # An iter var bound to an axis itself takes the axis's values.
            value = env[form[0]] if ax is not None and form[1] == 0 else self.eval(expr)
            lo, ext = self.to_int(iv.dom.min, iv), self.to_int(iv.dom.extent, iv)
            if ax is not None:  # the values are first, first + 1, ...: check the ends
                if ax[1] < lo or ax[1] + ax[2] > lo + ext:
                    raise _Fallback()
            elif np.any(value < lo) or np.any(value >= lo + ext):
                raise _Fallback()
            bindings.append((iv.var, value, ax))
        for var, value, ax in bindings:
            env[var] = value
            axes.pop(var, None)
            if ax is not None and type(value) is np.ndarray and value.dtype == _np(var.dtype):
                axes[var] = ax

    def _vector_spatial_flat(self, nest: "_Nest", mins: list, extents: list) -> None:
        """EXEC-tir-vec-3 for a nest whose predicate skips instances: the iterations of a
        chunk are enumerated flat, filtered by the predicate, computed and stored."""
        target = self._nest_arrays(nest)
        store, realize = nest.store, nest.realize
        total = math.prod(extents)
        strides = [math.prod(extents[j + 1:]) for j in range(len(extents))]
        saved = self.env
        stash: list | None = [] if nest.self_read else None
        for t0 in range(0, total, self.chunk_elements):
            t = np.arange(t0, min(total, t0 + self.chunk_elements), dtype=np.int64)
            env = dict(saved)
            for lp, lo, ext, stride in zip(nest.loops, mins, extents, strides):
                env[lp.loop_var] = ((t // stride) % ext + lo).astype(_np(lp.loop_var.dtype))
            self.env = env
            n = t.size
            if realize is not None:
                pred = self.eval(realize.predicate)
                if _is_array(pred):
                    keep = np.broadcast_to(pred, (n,))
                    if not keep.all():
                        for k, v in list(env.items()):
                            if _is_array(v):
                                env[k] = np.broadcast_to(v, (n,))[keep]
                        n = int(keep.sum())
                elif not pred:
                    continue
                if n == 0:
                    continue
                values = [self.eval(v) for v in realize.iter_values]
                for iv, value in zip(realize.block.iter_vars, values):
                    lo, ext = self.to_int(iv.dom.min, iv), self.to_int(iv.dom.extent, iv)
                    if np.any(value < lo) or np.any(value >= lo + ext):
                        raise _Fallback()
                    env[iv.var] = value
            value = self.eval(store.value)
            if value.dtype != target.dtype:
                raise _Fallback()
            idx = self.indices(store.buffer, target, store.indices, store, "store")
            idx = tuple(np.broadcast_to(i, (n,)) for i in idx)
            value = np.broadcast_to(value, (n,))
            if stash is not None:
                stash.append(("flat", idx, value))
            else:
                _store_in_order(target, idx, value)
        if stash:
            _commit(target, stash)

    # -- EXEC-tir-vec-4: reductions -----------------------------------------------------------
    def _vector_reduction(self, nest: "_Nest", mins: list, extents: list) -> None:
        """EXEC-tir-vec-4: each stored element (cell) is the left fold, in iteration
        order, of the combiner over the update values of the iterations that reach it,
        starting from the init value (or the element's current value). The grid has the
        fold loops' dimensions first, then the cells'; the updates of a block of
        consecutive fold iterations are computed at once, then folded into the
        accumulators one fold iteration at a time, in order: one array operation over all
        the cells per fold iteration, the scalar path's operations in its order."""
        target = self._nest_arrays(nest)
        store, realize = nest.store, nest.realize
        if realize is not None:
            for j, iv in enumerate(nest.iter_of_loop):
                lo, ext = self.to_int(iv.dom.min, iv), self.to_int(iv.dom.extent, iv)
                if lo != mins[j] or max(ext, 0) != extents[j]:
                    raise _Fallback()
        folds, cells = nest.fold_loops, nest.cell_loops
        cell_ext = [extents[j] for j in cells]
        fold_ext = [extents[j] for j in folds]
        if math.prod(cell_ext) == 0 or math.prod(fold_ext) == 0:
            return
        if self.reassociate and nest.factors and (realize is None or _always(realize.predicate)):
            if self._contract(nest, mins, extents, target):
                self.stats["contracted"] += 1
                return
            # The ordered path's share of the budget (EXEC-tir-limit-1).
            if self.steps + -(-self.nest_cost // self.vector_step_iterations) > self.max_steps:
                raise _Fallback()
        nf, ndim = len(folds), len(folds) + len(cells)
        dt = store.buffer.dtype
        saved = self.env
        pending: list = []

        fold_specs, cell_specs = _reduction_axes(nest, mins, extents)
        always = realize is None or _always(realize.predicate)

        for cell_chunk in _chunks(cell_ext, self.chunk_elements):
            cell_shape = tuple(length for _, length in cell_chunk)
            n = math.prod(cell_shape)
            cell_axes = [a.part(off, length) for a, (off, length) in zip(cell_specs, cell_chunk)]
            # The first fold iteration (every fold variable at its minimum): the init
            # runs there when the predicate holds (EXEC-tir-block-3).
            first = (1,) * nf + cell_shape
            self.bind_grid(saved, [a.part(0, 1) for a in fold_specs] + cell_axes)
            pred0 = None
            if not always:
                pred0 = self._mask(self.eval(realize.predicate), first)
                pred0 = None if pred0 is None else pred0.reshape(cell_shape)
            box = self.box(store.indices, target, store)
            view = None
            if box is not None and box[1] and sorted(box[1]) == list(range(nf, ndim)):
                # One element per cell: a view of the cells, in the grid's order.
                view = current = _grid_view(target[box[0]], box[1], ndim)[(0,) * nf]
            else:
                idx = tuple(np.broadcast_to(self.eval(i), first).reshape(n)
                            for i in store.indices)
                current = np.broadcast_to(target[_clipped(idx, target.shape)], (n,))
                current = current.reshape(cell_shape)
            if nest.init_value is not None:
                init = self.eval_full(nest.init_value, None if pred0 is None
                                      else pred0.reshape(first), first)
                if init.dtype != target.dtype:
                    raise _Fallback()
                init = init.reshape(cell_shape)
                acc = init if pred0 is None else np.where(pred0, init, current)
            else:
                acc = current
            acc = np.array(acc, dtype=target.dtype, copy=True)
            everywhere, touched = False, None
            block = max(1, min(self.chunk_elements, self.fold_block_elements) // n)
            for fold_chunk in _chunks(fold_ext, block):
                fold_shape = tuple(length for _, length in fold_chunk)
                shape = fold_shape + cell_shape
                self.rebind_grid([a.part(off, length)
                                  for a, (off, length) in zip(fold_specs, fold_chunk)])
                mask = None
                if not always:
                    mask = self._mask(self.eval(realize.predicate), shape)
                if mask is None:
                    everywhere = True
                else:
                    reached = mask.any(axis=tuple(range(nf)))
                    touched = reached if touched is None else touched | reached
                updates = self.eval(nest.update) if mask is None else \
                    self.eval_full(nest.update, mask, shape)
                if updates.shape != shape:
                    updates = np.broadcast_to(updates, shape)
                if updates.dtype != target.dtype:
                    raise _Fallback()
                acc = _fold(nest.combiner, nest.acc_first, acc, updates, mask, fold_shape, dt)
            if everywhere or (touched is not None and touched.all()):
                keep = None
            elif touched is None or not touched.any():
                continue
            else:
                keep = touched
            if view is not None:
                pending.append(("view", (view, keep), acc))
                continue
            acc = acc.reshape(n)
            if keep is not None:
                keep = keep.reshape(n)
                idx, acc = tuple(i[keep] for i in idx), acc[keep]
            idx = _checked_indices(store.buffer, target.shape, idx, store, "store")
            pending.append(("flat", idx, acc))
        _commit(target, pending)

    def _contract(self, nest: "_Nest", mins: list, extents: list,
                  target: np.ndarray) -> bool:
        """EXEC-tir-vec-7: ``X[cells] = X[cells] + A[...] * B[...]`` (or ``+ A[...]``)
        over the whole grid at once, as a batched matrix product (or a sum), when the
        store and every factor read views (every index an axis form, in bounds). True
        when done; False, with nothing stored, when a condition does not hold (the
        ordered path then runs)."""
        saved = self.env
        try:
            return self._contract_on_grid(nest, mins, extents, target, saved)
        finally:
            self.env, self.axes = saved, None

    def _contract_on_grid(self, nest: "_Nest", mins: list, extents: list,
                          target: np.ndarray, saved: dict) -> bool:
        folds, cells = nest.fold_loops, nest.cell_loops
        nf, ndim = len(folds), len(folds) + len(cells)
        store = nest.store
        fold_specs, cell_specs = _reduction_axes(nest, mins, extents)
        cell_axes = [a.part(0, extents[j]) for a, j in zip(cell_specs, cells)]
        cell_shape = tuple(extents[j] for j in cells)
        # The cells' views and the init value at the first fold iteration.
        self.bind_grid(saved, [a.part(0, 1) for a in fold_specs] + cell_axes)
        box = self.box(store.indices, target, store)
        if box is None or not box[1] or sorted(box[1]) != list(range(nf, ndim)):
            return False
        view = _grid_view(target[box[0]], box[1], ndim)[(0,) * nf]
        if nest.init_value is not None:
            acc = self.eval_full(nest.init_value, None, (1,) * nf + cell_shape)
            if acc.dtype != target.dtype:
                return False
            acc = acc.reshape(cell_shape)
        else:
            acc = view
        # The factors, as views of the whole grid.
        self.rebind_grid([a.part(0, extents[j]) for a, j in zip(fold_specs, folds)])
        operands = []
        for load in nest.factors:
            factor = self.load_view(self.array_of(load.buffer, load), load)
            if factor is None:
                return False
            operands.append((factor[0], list(factor[1])))
        if not _overflow_free(acc, [f for f, _ in operands],
                              math.prod(extents[j] for j in folds)):
            return False
        total = _dot_general(operands, list(range(nf, ndim)), list(range(nf)))
        if total is None:
            return False
        first, second = (acc, total) if nest.acc_first else (total, acc)
        if total.dtype == view.dtype:
            np.add(first, second, out=view)  # in place: no temporary the size of the cells
        else:
            view[...] = (first + second).astype(view.dtype, copy=False)
        return True

    @staticmethod
    def _mask(pred, shape: tuple) -> np.ndarray | None:
        """A predicate as a boolean array of ``shape``, or None when it always holds."""
        if _is_array(pred):
            full = np.broadcast_to(pred, shape)
            return None if full.all() else np.ascontiguousarray(full)
        return None if pred else np.zeros(shape, dtype=bool)
