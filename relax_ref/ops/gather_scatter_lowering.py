"""Lowerings of the gather and scatter ops (spec/ops/indexing.md "Lowering",
TE-leg-index-4..10).

Gathers and ``slice_scatter`` are ``te.compute`` stages: an index read from an index
tensor is a load position, so an index out of range is a load out of bounds, which
traps ``index_out_of_bounds`` as the op does (a check on an index tensor's values,
which no guard before the stages can state). Scatters need ordered stores, which
``compute`` cannot express: ``serial_scatter_func`` writes a PrimFunc with one copy nest
(``out = data``) and one serial nest over the update positions in row-major order
storing ``out[target] = combine(out[target], update)`` (the order the op defines,
EXEC-index-scatter-1), each target's index asserted in range first, so no store leaves
the buffer. The op's shape checks that compile time cannot prove are the PrimFunc's
asserts (TE-leg-7: ``ctx.require`` for the ``compute`` forms, ``serial_guards`` for the
serial ones), with the op's check kind.
"""
from __future__ import annotations

from typing import Callable, Sequence

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT64, DataType
from relax_ref.ir.equal import structural_equal
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import substitute
from relax_ref.te.legalize import guard_message, guard_stmt, provable
from relax_ref.te.prim_func import CreatedFunc

from .common import int_const

_ZERO = P.IntImm(0, INT64)
_ONE = P.IntImm(1, INT64)
_TRUE = P.IntImm(1, BOOL)


def _same(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _as_index(load: P.PrimExpr) -> P.PrimExpr:
    return load if load.dtype == INT64 else te.cast(INT64, load)


def _wrapped(k: P.PrimExpr, n: P.PrimExpr) -> P.PrimExpr:
    """A negative index counts from the end (``k + n`` when ``k < 0``)."""
    return P.Select(P.LT(k, _ZERO, BOOL), P.Add(k, n, INT64), k, INT64)


def _axis(ctx, ndim: int) -> int:
    a = ctx.attr("axis")
    return a + ndim if a < 0 else a


# -- gathers (te.compute) ------------------------------------------------------------------

def legalize_gather_elements(ctx):
    """TE-leg-index-4: ``out[p] = data[p with p[axis] = int64(indices[p])]`` over the
    indices' shape. The op's check that no off-axis indices dimension exceeds the
    data's is the PrimFunc's guard where not provable (shape_mismatch, TE-leg-7)."""
    data, ind = ctx.tensor(0), ctx.tensor(1)
    axis = _axis(ctx, data.ndim)
    _guard(ctx, [P.LE(ind.shape[d], data.shape[d], BOOL) for d in range(data.ndim)
                 if d != axis], _sizes(data, ind), "shape_mismatch",
           "the indices must not be longer than the data off the axis")

    def element(*p):
        pos = list(p)
        pos[axis] = _as_index(ind[tuple(p)])
        return data[tuple(pos)]
    out = te.compute(ind.shape, element, name="T_gather", axis_prefix="ax")
    return ctx.call_te(out, "gather_elements")


def legalize_gather_nd(ctx):
    """TE-leg-index-5: ``out[i..., r...] = data[i[:b]..., int64(indices[i..., k])
    for each k..., r...]``. The op's check that the batch dimensions of indices and
    data are equal is the PrimFunc's guard where not provable (shape_mismatch)."""
    data, ind = ctx.tensor(0), ctx.tensor(1)
    b = ctx.attr("batch_dims")
    _guard(ctx, [P.EQ(ind.shape[d], data.shape[d], BOOL) for d in range(b)],
           _sizes(data, ind), "shape_mismatch",
           "the batch dimensions of indices and data must be equal")
    length = int_const(ind.shape[-1])
    if length is None:
        raise ctx.decline("the number of coordinates is not a constant")
    lead = ind.ndim - 1

    def element(*p):
        i, r = p[:lead], p[lead:]
        coords = [_as_index(ind[tuple(i) + (P.IntImm(k, INT64),)]) for k in range(length)]
        return data[tuple(i[:b]) + tuple(coords) + tuple(r)]
    out = te.compute(ctx.result_shape(), element, name="T_gather_nd", axis_prefix="ax")
    return ctx.call_te(out, "gather_nd")


def _read_broadcast(buf_load: Callable, shape: Sequence[P.PrimExpr],
                    out_shape: Sequence[P.PrimExpr], idx: Sequence[P.PrimExpr]):
    """A tensor of ``shape`` read at position ``idx`` of the ``out_shape`` it broadcasts
    to: a dimension literally 1 at 0, one the same as the result's at the index, any
    other (1 or the result's, as a guard checked) at ``T.Select(d == 1, 0, i)``
    (TE-leg-3)."""
    lead = len(out_shape) - len(shape)
    pos = []
    for k, d in enumerate(shape):
        o, i = out_shape[lead + k], idx[lead + k]
        if int_const(d) == 1 and int_const(o) != 1:
            pos.append(_ZERO)
        elif int_const(d) == 1 or _same(d, o) or provable(P.EQ(d, o, BOOL)):
            pos.append(i)
        else:
            pos.append(P.Select(P.EQ(d, _ONE, BOOL), _ZERO, i, INT64))
    return buf_load(tuple(pos))


def legalize_index_tensor(ctx):
    """TE-leg-index-6: ``out[j..., r...] = data[I0[j], ..., Ik-1[j], r...]`` with the
    indices broadcast to ``B``, the result's leading dimensions: deduction gives a
    shape only where it proved each index dimension 1 or ``B``'s (SI-broadcast-2), so a
    dimension not the same expression as ``B``'s is read at ``T.Select(d == 1, 0, j)``
    (TE-leg-3), which needs no guard."""
    data = ctx.tensor(0)
    idx = ctx.tuple_tensors(1)
    nb = max(t.ndim for t in idx)
    bshape = list(ctx.result_shape()[:nb])

    def element(*p):
        j, r = p[:nb], p[nb:]
        coords = [_as_index(_read_broadcast(lambda q, t=t: t[q], t.shape, bshape, j))
                  for t in idx]
        return data[tuple(coords) + tuple(r)]
    out = te.compute(ctx.result_shape(), element, name="T_index_tensor", axis_prefix="ax")
    return ctx.call_te(out, "index_tensor")


def legalize_slice_scatter(ctx):
    """TE-leg-index-7: ``out[p] = src[p with p[axis] = (p[axis] - start) / step]`` where
    ``start <= p[axis] < end`` and ``(p[axis] - start) % step == 0``, else ``input[p]``
    (TVM's masked form). The op's run-time checks, in its order, are the PrimFunc's
    guards where not provable (TE-leg-7): ``1 <= step`` and ``start <= end``
    (invalid_value), ``0 <= start`` and ``end <= n`` (index_out_of_bounds), src's shape
    the slice's (shape_mismatch); every read is then in bounds."""
    from .indexing import slice_count

    data, src = ctx.tensor(0), ctx.tensor(1)
    start, end, step = (_as_index(ctx.prim(i)) for i in (2, 3, 4))
    axis = _axis(ctx, data.ndim)
    n = data.shape[axis]
    sizes = [d for d in data.shape + src.shape if isinstance(d, P.Var)]
    shape_facts = [P.EQ(src.shape[axis], slice_count(start, end, step), BOOL)] + [
        P.EQ(src.shape[d], data.shape[d], BOOL) for d in range(data.ndim) if d != axis]
    for facts, kind, what in (
            ([P.GE(step, _ONE, BOOL), P.LE(start, end, BOOL)], "invalid_value",
             "the slice needs step >= 1 and start <= end"),
            ([P.LE(_ZERO, start, BOOL), P.LE(end, n, BOOL)], "index_out_of_bounds",
             f"the slice must lie in [0, {ctx.show(n)}]"),
            (shape_facts, "shape_mismatch", "src must have the slice's shape")):
        _guard(ctx, facts, sizes, kind, what)

    def element(*p):
        k = P.Sub(p[axis], start, INT64)
        inside = te.all_of(P.LE(start, p[axis], BOOL), P.LT(p[axis], end, BOOL),
                           P.EQ(P.FloorMod(k, step, INT64), _ZERO, BOOL))
        pos = list(p)
        pos[axis] = P.FloorDiv(k, step, INT64)
        return te.if_then_else(inside, src[tuple(pos)], data[tuple(p)])
    out = te.compute(data.shape, element, name="T_slice_scatter", axis_prefix="ax")
    return ctx.call_te(out, "slice_scatter")


def _sizes(*tensors) -> list[P.PrimExpr]:
    """The operands' dimensions (sizes, never negative, TE-leg-4)."""
    return [d for t in tensors for d in t.shape if isinstance(d, P.Var)]


def _guard(ctx, facts: Sequence[P.PrimExpr], sizes: Sequence[P.PrimExpr], kind: str,
           message: str) -> None:
    """The op's checks ``facts`` of one kind: those provable with ``sizes`` non-negative
    go, the rest are one guard of the PrimFunc ``call_te`` writes next (TE-leg-7)."""
    left = [f for f in facts if not provable(f, nonneg=sizes)]
    if left:
        ctx.require(te.all_of(*left), kind, message)


# -- scatters (a serial PrimFunc) ---------------------------------------------------------------

def combine_expr(reduction: str, cur: P.PrimExpr, upd: P.PrimExpr) -> P.PrimExpr:
    """TIR of one update (EXEC-index-scatter-1's ``combine``)."""
    dt = cur.dtype
    if reduction == "update":
        return upd
    if reduction == "add":
        return P.Add(cur, upd, dt)
    if reduction == "mul":
        return P.Mul(cur, upd, dt)
    if reduction == "max":
        return P.Max(cur, upd, dt)
    if reduction == "min":
        return P.Min(cur, upd, dt)
    two = P.FloatImm(2.0, dt) if dt.is_float else P.IntImm(2, dt)
    return P.Div(P.Add(cur, upd, dt), two, dt)


def serial_nest(extents: Sequence[P.PrimExpr], body: Callable, prefix: str) -> tir.Stmt:
    idx = tuple(P.Var(f"{prefix}{k}", INT64) for k in range(len(extents)))
    stmt = body(idx)
    for v, ext in reversed(list(zip(idx, extents))):
        stmt = tir.For(v, _ZERO, ext, "serial", stmt)
    return stmt


def serial_scatter_func(name: str, inputs: Sequence[tuple[str, tuple, DataType]],
                        out_shape: tuple, out_dtype: DataType, updates: Callable,
                        zero: bool = False, scratch: tuple[tir.Buffer, ...] = ()
                        ) -> CreatedFunc:
    """A PrimFunc ``name(inputs..., out)`` that copies ``inputs[0]`` into ``out`` (with
    ``zero``: fills it with zeros) and then runs ``updates(buffers, out) -> Stmt``
    (TE-leg-index-8); ``scratch`` buffers (constant shapes) are the block's own. Shapes
    use the caller's
    symbolic variables; the function gets its own (TE-func-2), and those no buffer has
    as a whole dimension are int64 parameters passed as prim values."""
    caller: dict[int, P.Var] = {}
    for _, shape, _ in inputs:
        for d in shape:
            for v in P.free_vars(d):
                caller.setdefault(id(v), v)
    fresh = {v: P.Var(v.name, v.dtype) for v in caller.values()}
    bufs = [tir.Buffer(n, tuple(substitute(d, fresh) for d in shape), dt)
            for n, shape, dt in inputs]
    out = tir.Buffer("out_buf", tuple(substitute(d, fresh) for d in out_shape), out_dtype)
    zero_value = P.FloatImm(0.0, out_dtype) if out_dtype.is_float else P.IntImm(0, out_dtype)
    copy = serial_nest(out.shape, lambda i: tir.BufferStore(
        out, zero_value if zero else tir.BufferLoad(bufs[0], i, out_dtype), i), "i")
    body = tir.SeqStmt((copy, updates(bufs, out)))
    block = tir.SBlock(name, (), (), (), body, alloc_buffers=tuple(scratch))
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    bound = {id(d) for b in bufs + [out] for d in b.shape if isinstance(d, P.Var)}
    passed = tuple(v for v in caller.values() if id(fresh[v]) not in bound)
    handles = tuple(P.Var(b.name, HANDLE) for b in bufs + [out])
    params = handles[:-1] + tuple(fresh[v] for v in passed) + handles[-1:]
    func = tir.PrimFunc(params, tuple(zip(handles, bufs + [out])),
                        tir.SBlockRealize((), _TRUE, root),
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)
    return CreatedFunc(func, passed)


def call_serial(ctx, name: str, operands: Sequence[tuple[rx.Expr, str, si.TensorStructInfo]],
                updates: Callable, result: si.TensorStructInfo | None = None,
                zero: bool = False, scratch: tuple[tir.Buffer, ...] = ()) -> rx.Call:
    """``R.call_tir`` of ``serial_scatter_func`` over the operands; the result has the
    shape and dtype of ``result`` (default: the first operand's, which is copied)."""
    data = operands[0][2] if result is None else result
    created = serial_scatter_func(name, [(n, tuple(s.shape), s.dtype) for _, n, s in operands],
                                  tuple(data.shape), data.dtype, updates, zero, scratch)
    gv = ctx.add_prim_func(name, created.func)
    args = rx.Tuple(tuple(e for e, _, _ in operands)
                    + tuple(rx.PrimValue(v) for v in created.tir_vars))
    ty = si.TensorStructInfo(tuple(data.shape), data.dtype, data.ndim)
    return rx.Call(rx.Op("relax.call_tir"), (gv, args), sinfo_args=(ty,), span=ctx.call.span)


def known_tensor(ctx, i: int) -> si.TensorStructInfo:
    s = ctx.arg_sinfo[i]
    if not isinstance(s, si.TensorStructInfo) or s.shape is None or s.dtype.is_void:
        raise ctx.decline(f"operand {i} has no known shape and dtype")
    return s


def store_combined(out: tir.Buffer, target: tuple, upd: P.PrimExpr, reduction: str) -> tir.Stmt:
    cur = tir.BufferLoad(out, target, out.dtype)
    return tir.BufferStore(out, combine_expr(reduction, cur, upd), target)


def serial_guards(checks: Sequence[tuple[Sequence[P.PrimExpr], str, str]], op: str
                  ) -> list[tir.Stmt]:
    """``guard_stmt`` of each ``(facts, kind, message)`` that is not proved, in the op's
    order (TE-leg-7)."""
    found = (guard_stmt(facts, kind, op, message) for facts, kind, message in checks)
    return [g for g in found if g is not None]


def _in_range_assert(k: P.PrimExpr, n: P.PrimExpr, wrap: bool, op: str, what: str
                     ) -> tir.Stmt:
    """The op's check of one index read from a tensor (a check on its values, made as
    each update is applied): ``k`` in ``[-n, n)`` with ``wrap``, else ``[0, n)``."""
    cn = int_const(n)
    lo = (_ZERO if not wrap else P.IntImm(-cn, INT64) if cn is not None
          else P.Sub(_ZERO, n, INT64))
    cond = P.And(P.LE(lo, k, BOOL), P.LT(k, n, BOOL), BOOL)
    span = "[-n, n)" if wrap else "[0, n)"
    return tir.AssertStmt(cond, guard_message("index_out_of_bounds", op,
                                              f"{what} must lie in {span}"))


def _then(checks: Sequence[tir.Stmt], stmt: tir.Stmt) -> tir.Stmt:
    return tir.SeqStmt((*checks, stmt)) if checks else stmt


def legalize_scatter_elements(ctx):
    """TE-leg-index-9: the serial form (TE-leg-index-8) with one update per indices
    position ``p`` in row-major order: ``out[p with p[axis] = wrap(indices[p])]``
    combined with ``updates[p]`` (``wrap``: a negative index plus ``n``). The op's
    checks are the PrimFunc's asserts (TE-leg-7): indices and updates of one shape and
    no off-axis indices dimension longer than the data's (shape_mismatch, where not
    proved), and each index in ``[-n, n)`` before its update (index_out_of_bounds), so
    every store is in bounds."""
    data, ind, upd = (known_tensor(ctx, i) for i in range(3))
    axis = _axis(ctx, data.ndim)
    reduction = ctx.attr("reduction")
    op = ctx.op_name

    def updates(bufs, out):
        d_buf, i_buf, u_buf = bufs
        shapes = [P.EQ(a, b, BOOL) for a, b in zip(i_buf.shape, u_buf.shape)] + [
            P.LE(i_buf.shape[d], d_buf.shape[d], BOOL) for d in range(len(d_buf.shape))
            if d != axis]
        checks = serial_guards([(shapes, "shape_mismatch", "indices and updates must have "
                                 "one shape, no longer than the data's off the axis")], op)

        def one(p):
            k = _as_index(tir.BufferLoad(i_buf, p, i_buf.dtype))
            n = d_buf.shape[axis]
            target = list(p)
            target[axis] = _wrapped(k, n)
            store = store_combined(out, tuple(target), tir.BufferLoad(u_buf, p, u_buf.dtype),
                                   reduction)
            return tir.SeqStmt((_in_range_assert(k, n, True, op, "an index"), store))
        return _then(checks, serial_nest(i_buf.shape, one, "j"))
    return call_serial(ctx, "scatter_elements",
                       [(ctx.args[0], "data", data), (ctx.args[1], "indices", ind),
                        (ctx.args[2], "updates", upd)], updates)


def legalize_scatter_nd(ctx):
    """TE-leg-index-10: the serial form with one update per index position ``i`` (row
    major) and trailing position ``r``: ``out[indices[i, 0], ..., indices[i, K-1], r...]``
    combined with ``updates[i..., r...]``. The op's checks are the PrimFunc's asserts
    (TE-leg-7): updates' shape ``indices.shape[:-1] + data.shape[K:]`` (shape_mismatch,
    where not proved) and each coordinate in ``[0, n)`` before its update
    (index_out_of_bounds)."""
    data, ind, upd = (known_tensor(ctx, i) for i in range(3))
    k = int_const(ind.shape[-1])
    if k is None:
        raise ctx.decline("the number of coordinates is not a constant")
    if ind.ndim - 1 + data.ndim - k != upd.ndim:
        raise ctx.decline("updates' rank does not fit (deduction rejects it)")
    reduction = ctx.attr("reduction")
    lead = ind.ndim - 1
    op = ctx.op_name

    def updates(bufs, out):
        d_buf, i_buf, u_buf = bufs
        expected = tuple(i_buf.shape[:-1]) + tuple(d_buf.shape[k:])
        checks = serial_guards([([P.EQ(a, b, BOOL) for a, b in zip(u_buf.shape, expected)],
                                 "shape_mismatch",
                                 "updates must have the shape indices.shape[:-1] + "
                                 "data.shape[K:]")], op)

        def one(q):
            i, r = q[:lead], q[lead:]
            coords = tuple(_as_index(tir.BufferLoad(i_buf, tuple(i) + (P.IntImm(c, INT64),),
                                                    i_buf.dtype)) for c in range(k))
            asserts = [_in_range_assert(c, d_buf.shape[d], False, op, f"coordinate {d}")
                       for d, c in enumerate(coords)]
            store = store_combined(out, coords + tuple(r),
                                   tir.BufferLoad(u_buf, q, u_buf.dtype), reduction)
            return tir.SeqStmt((*asserts, store)) if asserts else store
        return _then(checks, serial_nest(u_buf.shape, one, "j"))
    return call_serial(ctx, "scatter_nd",
                       [(ctx.args[0], "data", data), (ctx.args[1], "indices", ind),
                        (ctx.args[2], "updates", upd)], updates)


def legalize_index_put(ctx):
    """TE-leg-index-11: the serial form with one update per position ``j`` of the
    indices' broadcast shape ``B`` (row major): ``out[wrap(I0[j]), ..., wrap(Ik-1[j])]``
    becomes (``accumulate``: is added) the values read at ``j`` broadcast to ``B``.
    A broadcast not decided at compile time is asserted and read with ``T.Select``
    (TE-leg-3, ``_broadcast_of_buffers``)."""
    data, vals = known_tensor(ctx, 0), known_tensor(ctx, 2)
    s = ctx.arg_sinfo[1]
    arg = ctx.args[1]
    if isinstance(s, si.TensorStructInfo):
        fields, sources = [s], [arg]
    elif isinstance(s, si.TupleStructInfo):
        fields = list(s.fields)
        sources = [arg.fields[k] if isinstance(arg, rx.Tuple) else rx.TupleGetItem(arg, k)
                   for k in range(len(fields))]
    else:
        raise ctx.decline("the indices are not known")
    for f in fields:
        if not isinstance(f, si.TensorStructInfo) or f.shape is None or f.dtype.is_void:
            raise ctx.decline("an index tensor has no known shape")
    if vals.ndim > max(f.ndim for f in fields):
        raise ctx.decline("the values have more dimensions than the indices")
    reduction = "add" if ctx.attr("accumulate") else "update"
    nidx = len(fields)
    op = ctx.op_name

    def updates(bufs, out):
        d_buf, i_bufs, v_buf = bufs[0], bufs[1:1 + nidx], bufs[-1]
        # B's dimensions in the function's own variables, taken from the index buffers.
        fshape, agree = _broadcast_of_buffers([b.shape for b in i_bufs])
        lead = len(fshape) - len(v_buf.shape)
        fits = [P.Or(P.EQ(d, _ONE, BOOL), P.EQ(d, fshape[lead + k], BOOL), BOOL)
                for k, d in enumerate(v_buf.shape)
                if int_const(d) != 1 and not _same(d, fshape[lead + k])]
        checks = serial_guards([(agree, "shape_mismatch", "the indices must broadcast"),
                                (fits, "shape_mismatch",
                                 "the values must broadcast to the indices' shape")], op)

        def one(j):
            coords, asserts = [], []
            for d, b in enumerate(i_bufs):
                k = _as_index(_read_broadcast(lambda q, b=b: tir.BufferLoad(b, q, b.dtype),
                                              b.shape, fshape, j))
                asserts.append(_in_range_assert(k, d_buf.shape[d], True, op, f"index {d}"))
                coords.append(_wrapped(k, d_buf.shape[d]))
            value = _read_broadcast(lambda q: tir.BufferLoad(v_buf, q, v_buf.dtype),
                                    v_buf.shape, fshape, j)
            return tir.SeqStmt((*asserts, store_combined(out, tuple(coords), value,
                                                         reduction)))
        return _then(checks, serial_nest(fshape, one, "j"))
    operands = [(ctx.args[0], "data", data)]
    operands += [(src, f"index{k}", f) for k, (src, f) in enumerate(zip(sources, fields))]
    operands.append((ctx.args[2], "values", vals))
    return call_serial(ctx, "index_put", operands, updates)


def _broadcast_of_buffers(shapes: Sequence[Sequence[P.PrimExpr]]
                          ) -> tuple[list[P.PrimExpr], list[P.PrimExpr]]:
    """The broadcast shape of buffers' shapes and the facts it needs. Per dimension the
    sizes are folded from the right: a size literally 1 or the same as the shape so far
    changes nothing; any other ``d`` needs ``b == 1 or d == 1 or b == d`` and makes the
    dimension ``T.Select(b == 1, d, b)`` (TE-leg-3), which every size folded in is 1 or
    equal to once the facts hold."""
    ndim = max(len(s) for s in shapes)
    out: list[P.PrimExpr] = []
    facts: list[P.PrimExpr] = []
    for k in range(1, ndim + 1):
        dim: P.PrimExpr = _ONE
        for s in shapes:
            if len(s) < k or int_const(s[-k]) == 1 or _same(s[-k], dim):
                continue
            d = s[-k]
            if int_const(dim) == 1:
                dim = d
                continue
            dim_one, d_one = P.EQ(dim, _ONE, BOOL), P.EQ(d, _ONE, BOOL)
            facts.append(P.Or(P.Or(dim_one, d_one, BOOL), P.EQ(dim, d, BOOL), BOOL))
            dim = P.Select(dim_one, d, dim, INT64)
        out.append(dim)
    return list(reversed(out)), facts
