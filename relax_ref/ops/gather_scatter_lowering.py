"""Lowerings of the gather and scatter ops (spec/ops/indexing.md "Lowering",
TE-leg-index-4..10).

Gathers and ``slice_scatter`` are ``te.compute`` stages: an index read from an index
tensor is a load position, so an index out of range is a load out of bounds, which
traps ``index_out_of_bounds`` as the op does. Scatters need ordered stores, which
``compute`` cannot express: ``serial_scatter_func`` writes a PrimFunc with one copy nest
(``out = data``) and one serial nest over the update positions in row-major order
storing ``out[target] = combine(out[target], update)`` (the order the op defines,
EXEC-index-scatter-1); a target out of range is a store out of bounds, which traps
``index_out_of_bounds`` too. Every lowering declines where the op would need a run-time
shape check its kernel cannot make (operand shapes not provably fitting), so the call
stays and the op's own check reports ``shape_mismatch``.
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
from relax_ref.te.prim_func import CreatedFunc

from .common import int_const

_ZERO = P.IntImm(0, INT64)
_ONE = P.IntImm(1, INT64)
_TRUE = P.IntImm(1, BOOL)


def _same(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _fits(inner: P.PrimExpr, outer: P.PrimExpr) -> bool:
    """``inner <= outer`` known at compile time: the same expression, or constants."""
    ci, co = int_const(inner), int_const(outer)
    return _same(inner, outer) or (ci is not None and co is not None and ci <= co)


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
    indices' shape. Declines unless each off-axis indices dimension is known not to
    exceed the data's (the same expression, or constants)."""
    data, ind = ctx.tensor(0), ctx.tensor(1)
    axis = _axis(ctx, data.ndim)
    for d in range(data.ndim):
        if d != axis and not _fits(ind.shape[d], data.shape[d]):
            raise ctx.decline(f"indices dimension {d} may exceed the data's")

    def element(*p):
        pos = list(p)
        pos[axis] = _as_index(ind[tuple(p)])
        return data[tuple(pos)]
    out = te.compute(ind.shape, element, name="T_gather", axis_prefix="ax")
    return ctx.call_te(out, "gather_elements")


def legalize_gather_nd(ctx):
    """TE-leg-index-5: ``out[i..., r...] = data[i[:b]..., int64(indices[i..., k])
    for each k..., r...]``. Declines unless the batch dimensions of indices and data are
    the same expressions."""
    data, ind = ctx.tensor(0), ctx.tensor(1)
    b = ctx.attr("batch_dims")
    if any(not _same(ind.shape[d], data.shape[d]) for d in range(b)):
        raise ctx.decline("batch dimensions not known equal")
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


def _broadcast_shape(ctx, shapes: Sequence[Sequence[P.PrimExpr]]) -> list[P.PrimExpr]:
    """The broadcast of index shapes decided at compile time (TE-leg-3): per dimension
    the ones not literally 1 are the same expression, else the lowering declines."""
    ndim = max(len(s) for s in shapes)
    out: list[P.PrimExpr] = []
    for k in range(1, ndim + 1):
        dim: P.PrimExpr = _ONE
        for s in shapes:
            if len(s) < k or int_const(s[-k]) == 1:
                continue
            if int_const(dim) == 1:
                dim = s[-k]
            elif not _same(dim, s[-k]):
                raise ctx.decline("cannot tell at compile time whether the indices broadcast")
        out.append(dim)
    return list(reversed(out))


def _read_broadcast(buf_load: Callable, shape: Sequence[P.PrimExpr],
                    out_shape: Sequence[P.PrimExpr], idx: Sequence[P.PrimExpr]):
    """A tensor of ``shape`` read at position ``idx`` of the ``out_shape`` it broadcasts
    to (dimensions literally 1 read at 0)."""
    lead = len(out_shape) - len(shape)
    pos = tuple(_ZERO if int_const(d) == 1 and int_const(out_shape[lead + k]) != 1
                else idx[lead + k] for k, d in enumerate(shape))
    return buf_load(pos)


def legalize_index_tensor(ctx):
    """TE-leg-index-6: ``out[j..., r...] = data[I0[j], ..., Ik-1[j], r...]`` with the
    indices broadcast at compile time (TE-leg-3)."""
    data = ctx.tensor(0)
    idx = ctx.tuple_tensors(1)
    bshape = _broadcast_shape(ctx, [t.shape for t in idx])
    nb = len(bshape)

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
    (TVM's masked form). Lowers only where the op's run-time checks provably pass
    (``1 <= step``, ``0 <= start <= end <= n``, src's shape the slice's), since the
    kernel makes none of them."""
    from .indexing import slice_count
    from .manipulate_lowering import provable

    data, src = ctx.tensor(0), ctx.tensor(1)
    start, end, step = (_as_index(ctx.prim(i)) for i in (2, 3, 4))
    axis = _axis(ctx, data.ndim)
    n = data.shape[axis]
    facts = [P.GE(step, _ONE, BOOL), P.LE(_ZERO, start, BOOL), P.LE(start, end, BOOL),
             P.LE(end, n, BOOL), P.EQ(src.shape[axis], slice_count(start, end, step), BOOL)]
    if not all(provable(f, nonneg=data.shape + src.shape) for f in facts):
        raise ctx.decline("the slice is not provably within the input and of src's length")
    if any(d != axis and not _same(data.shape[d], src.shape[d]) for d in range(data.ndim)):
        raise ctx.decline("src's shape is not known to match the input's")

    def element(*p):
        k = P.Sub(p[axis], start, INT64)
        inside = te.all_of(P.LE(start, p[axis], BOOL), P.LT(p[axis], end, BOOL),
                           P.EQ(P.FloorMod(k, step, INT64), _ZERO, BOOL))
        pos = list(p)
        pos[axis] = P.FloorDiv(k, step, INT64)
        return te.if_then_else(inside, src[tuple(pos)], data[tuple(p)])
    out = te.compute(data.shape, element, name="T_slice_scatter", axis_prefix="ax")
    return ctx.call_te(out, "slice_scatter")


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


def legalize_scatter_elements(ctx):
    """TE-leg-index-9: the serial form (TE-leg-index-8) with one update per indices
    position ``p`` in row-major order: ``out[p with p[axis] = wrap(indices[p])]``
    combined with ``updates[p]`` (``wrap``: a negative index plus ``n``). Declines unless
    indices and updates have the same shape expressions and off-axis indices dimensions
    are known to fit the data's."""
    data, ind, upd = (known_tensor(ctx, i) for i in range(3))
    axis = _axis(ctx, data.ndim)
    if not all(_same(a, b) for a, b in zip(ind.shape, upd.shape)):
        raise ctx.decline("indices and updates are not known to have one shape")
    if any(d != axis and not _fits(ind.shape[d], data.shape[d]) for d in range(data.ndim)):
        raise ctx.decline("indices may be longer than the data off the axis")
    reduction = ctx.attr("reduction")

    def updates(bufs, out):
        d_buf, i_buf, u_buf = bufs

        def one(p):
            k = _as_index(tir.BufferLoad(i_buf, p, i_buf.dtype))
            target = list(p)
            target[axis] = _wrapped(k, d_buf.shape[axis])
            return store_combined(out, tuple(target), tir.BufferLoad(u_buf, p, u_buf.dtype), reduction)
        return serial_nest(i_buf.shape, one, "j")
    return call_serial(ctx, "scatter_elements",
                        [(ctx.args[0], "data", data), (ctx.args[1], "indices", ind),
                         (ctx.args[2], "updates", upd)], updates)


def legalize_scatter_nd(ctx):
    """TE-leg-index-10: the serial form with one update per index position ``i`` (row
    major) and trailing position ``r``: ``out[indices[i, 0], ..., indices[i, K-1], r...]``
    combined with ``updates[i..., r...]``. Declines unless updates' shape is the same
    expressions as ``indices.shape[:-1] + data.shape[K:]``."""
    data, ind, upd = (known_tensor(ctx, i) for i in range(3))
    k = int_const(ind.shape[-1])
    if k is None:
        raise ctx.decline("the number of coordinates is not a constant")
    expected = tuple(ind.shape[:-1]) + tuple(data.shape[k:])
    if len(expected) != upd.ndim or not all(_same(a, b) for a, b in zip(expected, upd.shape)):
        raise ctx.decline("updates' shape is not known to fit")
    reduction = ctx.attr("reduction")
    lead = ind.ndim - 1

    def updates(bufs, out):
        d_buf, i_buf, u_buf = bufs

        def one(q):
            i, r = q[:lead], q[lead:]
            coords = tuple(_as_index(tir.BufferLoad(i_buf, tuple(i) + (P.IntImm(c, INT64),),
                                                    i_buf.dtype)) for c in range(k))
            return store_combined(out, coords + tuple(r), tir.BufferLoad(u_buf, q, u_buf.dtype),
                          reduction)
        return serial_nest(u_buf.shape, one, "j")
    return call_serial(ctx, "scatter_nd",
                        [(ctx.args[0], "data", data), (ctx.args[1], "indices", ind),
                         (ctx.args[2], "updates", upd)], updates)


def legalize_index_put(ctx):
    """TE-leg-index-11: the serial form with one update per position ``j`` of the
    indices' broadcast shape ``B`` (row major): ``out[wrap(I0[j]), ..., wrap(Ik-1[j])]``
    becomes (``accumulate``: is added) the values read at ``j`` broadcast to ``B``.
    Broadcasts are decided at compile time (TE-leg-3)."""
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
    bshape = _broadcast_shape(ctx, [f.shape for f in fields])
    if vals.ndim > len(bshape):
        raise ctx.decline("the values have more dimensions than the indices")
    _broadcast_shape(ctx, [bshape, vals.shape])
    if any(int_const(d) != 1 and not _same(d, bshape[len(bshape) - vals.ndim + k])
           for k, d in enumerate(vals.shape)):
        raise ctx.decline("the values are not known to broadcast to the indices' shape")
    reduction = "add" if ctx.attr("accumulate") else "update"
    nidx = len(fields)

    def updates(bufs, out):
        d_buf, i_bufs, v_buf = bufs[0], bufs[1:1 + nidx], bufs[-1]
        # B's dimensions in the function's own variables, taken from the index buffers.
        fshape = _broadcast_of_buffers([b.shape for b in i_bufs])

        def one(j):
            coords = []
            for d, b in enumerate(i_bufs):
                k = _as_index(_read_broadcast(lambda q, b=b: tir.BufferLoad(b, q, b.dtype),
                                              b.shape, fshape, j))
                coords.append(_wrapped(k, d_buf.shape[d]))
            value = _read_broadcast(lambda q: tir.BufferLoad(v_buf, q, v_buf.dtype),
                                    v_buf.shape, fshape, j)
            return store_combined(out, tuple(coords), value, reduction)
        return serial_nest(fshape, one, "j")
    operands = [(ctx.args[0], "data", data)]
    operands += [(src, f"index{k}", f) for k, (src, f) in enumerate(zip(sources, fields))]
    operands.append((ctx.args[2], "values", vals))
    return call_serial(ctx, "index_put", operands, updates)


def _broadcast_of_buffers(shapes: Sequence[Sequence[P.PrimExpr]]) -> list[P.PrimExpr]:
    """The broadcast shape of buffers already known to broadcast (``_broadcast_shape``
    passed on the caller's shapes)."""
    ndim = max(len(s) for s in shapes)
    out: list[P.PrimExpr] = []
    for k in range(1, ndim + 1):
        dim: P.PrimExpr = _ONE
        for s in shapes:
            if len(s) >= k and int_const(s[-k]) != 1:
                dim = s[-k]
                break
        out.append(dim)
    return list(reversed(out))
