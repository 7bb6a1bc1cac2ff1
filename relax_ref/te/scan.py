"""Scans as PrimFuncs: the serial loop a prefix sum or product needs, which ``compute``
stages cannot express (spec/te.md "Scans", TE-scan-1..3; used by DispatchSortScan).

For ``x`` of shape ``(a, n, b)`` scanned along the middle axis, ``scan_prim_func`` writes

    @T.prim_func(private=True, s_tir=True)
    def cumsum(x: T.Buffer((a, n, b), "int32"), out: T.Buffer((a, n, b), "int64")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("root"):
            with T.sblock("cumsum_scan"):
                T.reads()
                T.writes()
                carry = T.sblock_alloc_buffer((a, b), "int64")
                for j in range(n):
                    for i0, i1 in T.grid(a, b):
                        carry[i0, i1] = T.if_then_else(
                            j == 0, T.Cast("int64", x[i0, j, i1]),
                            carry[i0, i1] + T.Cast("int64", x[i0, j, i1]))
                    for i0, i1 in T.grid(a, b):
                        out[i0, j, i1] = carry[i0, i1]

The scan loop is outermost and serial; inside it, each step is two loop nests over the
other axes that store one element each and load the stored buffer only at that element,
so the TIR interpreter runs them on its vectorized path (EXEC-tir-vec-1). A scan with no
other axis (1-d, or ``axis=None`` over the row-major flattening) is one loop whose store
reads the previous output element.
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT64, DataType
from relax_ref.ir.relax import Attrs
from relax_ref.solver.expr_utils import substitute

from .prim_func import CreatedFunc
from .tensor import TEError

_TRUE = P.IntImm(1, BOOL)
_ZERO = P.IntImm(0, INT64)


def scan_prim_func(op: str, shape: tuple[P.PrimExpr, ...], in_dtype: DataType,
                   out_dtype: DataType, axis: int | None, exclusive: bool,
                   data_name: str = "data") -> CreatedFunc:
    """The PrimFunc of ``op`` ("cumsum" or "cumprod") over a tensor of ``shape`` (the
    caller's symbolic variables) along ``axis`` (normalized; None scans the row-major
    flattening into a 1-d result), in ``out_dtype``.

    - TE-scan-1: each element is converted to ``out_dtype`` first and accumulated in
      ``out_dtype``, left to right along the axis: ``out[0] = x[0]``, ``out[j] =
      out[j-1] op x[j]`` (integers wrap, floats round once per step, as ``numpy.cumsum``).
    - TE-scan-2: ``exclusive`` shifts by one: ``out[0]`` is the identity (0 or 1), ``out[j]``
      the inclusive scan at ``j - 1``; no identity is ever combined with an element, so
      ``-0.0`` and NaN payloads come out as the inclusive scan has them.
    - TE-scan-3: symbolic variables are the function's own; those no buffer has as a
      whole dimension are int64 parameters between the input and the output, passed as
      prim values (as TE-func-2)."""
    if op not in ("cumsum", "cumprod"):
        raise TEError(f"no scan named {op}")
    if out_dtype.is_bool or out_dtype.is_handle:
        raise TEError(f"{op} in {out_dtype} has no TIR arithmetic")
    caller_vars: dict[int, P.Var] = {}
    for d in shape:
        for v in P.free_vars(d):
            caller_vars.setdefault(id(v), v)
    fresh = {v: P.Var(v.name, v.dtype) for v in caller_vars.values()}
    dims = tuple(substitute(d, fresh) for d in shape)

    x = tir.Buffer(data_name, dims, in_dtype)
    if axis is None:
        length = _product(dims)
        out = tir.Buffer("out_buf", (length,), out_dtype)
        outer: tuple[P.PrimExpr, ...] = ()
    else:
        length = dims[axis]
        out = tir.Buffer("out_buf", dims, out_dtype)
        outer = dims[:axis] + dims[axis + 1:]
    carry = tir.Buffer("carry", outer, out_dtype)

    j = P.Var("j", INT64)
    kind = P.Add if op == "cumsum" else P.Mul
    identity = P.FloatImm(float(op == "cumprod"), out_dtype) if out_dtype.is_float \
        else P.IntImm(int(op == "cumprod"), out_dtype)

    def element(idx: tuple[P.Var, ...], t: P.PrimExpr) -> P.PrimExpr:
        """x at position ``t`` along the scan (``idx`` on the other axes), converted."""
        where = _unravel(t, dims) if axis is None else idx[:axis] + (t,) + idx[axis:]
        load = tir.BufferLoad(x, where, in_dtype)
        return load if in_dtype == out_dtype else P.Cast(out_dtype, load)

    if not outer:
        scan = _scan_in_place(out, j, length, element, kind, identity, exclusive)
        allocs: tuple[tir.Buffer, ...] = ()
    else:
        scan = _scan_with_carry(out, carry, j, axis, element, kind, identity, exclusive)
        allocs = (carry,)
    block = tir.SBlock(f"{op}_scan", (), (), (), scan, alloc_buffers=allocs)
    root = tir.SBlock("root", (), (), (), tir.SBlockRealize((), _TRUE, block))
    body = tir.SBlockRealize((), _TRUE, root)

    bound = {id(d) for b in (x, out) for d in b.shape if isinstance(d, P.Var)}
    passed = tuple(v for v in caller_vars.values() if id(fresh[v]) not in bound)
    handles = (P.Var(data_name, HANDLE), P.Var("out_buf", HANDLE))
    func = tir.PrimFunc(handles[:1] + tuple(fresh[v] for v in passed) + handles[1:],
                        ((handles[0], x), (handles[1], out)), body,
                        attrs=Attrs.of({"tirx.noalias": True}), is_private=True, s_tir=True)
    return CreatedFunc(func, passed)


def _if(c: P.PrimExpr, a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``T.if_then_else``: only the chosen arm is evaluated (EXEC-tir-intrin-2)."""
    return P.Call("tir.if_then_else", (c, a, b), a.dtype)


def _at(j: P.Var, k: int) -> P.PrimExpr:
    return P.EQ(j, P.IntImm(k, INT64), BOOL)


def _scan_with_carry(out: tir.Buffer, carry: tir.Buffer, j: P.Var, axis: int, element,
                     kind, identity: P.PrimExpr, exclusive: bool) -> tir.Stmt:
    """The serial loop ``j`` along ``axis`` around two vectorizable nests over the other
    axes: ``carry = x[j]`` (first step) or ``carry op x[j]``, and ``out[.., j, ..] =
    carry`` (exclusive: the identity at the first step, else carry, before the update)."""
    dt = out.dtype
    out_at = lambda idx: idx[:axis] + (j,) + idx[axis:]  # noqa: E731

    def advance(idx: tuple[P.Var, ...]) -> tir.Stmt:
        held = tir.BufferLoad(carry, idx, dt)
        value = _if(_at(j, 0), element(idx, j), kind(held, element(idx, j), dt))
        return tir.BufferStore(carry, value, idx)

    def emit(idx: tuple[P.Var, ...]) -> tir.Stmt:
        held = tir.BufferLoad(carry, idx, dt)
        return tir.BufferStore(out, _if(_at(j, 0), identity, held) if exclusive else held,
                               out_at(idx))

    steps = (emit, advance) if exclusive else (advance, emit)
    nests = tuple(_nest(carry.shape, step) for step in steps)
    return tir.For(j, _ZERO, out.shape[axis], "serial", tir.SeqStmt(nests))


def _scan_in_place(out: tir.Buffer, j: P.Var, length: P.PrimExpr, element, kind,
                   identity: P.PrimExpr, exclusive: bool) -> tir.Stmt:
    """A scan with no other axis (1-d, or flattened): one store per step that reads the
    previous output element (the scalar path runs it; no other axis to vectorize over)."""
    dt = out.dtype
    before = P.Sub(j, P.IntImm(1, INT64), INT64)
    prev = tir.BufferLoad(out, (before,), dt)
    if exclusive:
        value = _if(_at(j, 0), identity,
                    _if(_at(j, 1), element((), before), kind(prev, element((), before), dt)))
    else:
        value = _if(_at(j, 0), element((), j), kind(prev, element((), j), dt))
    return tir.For(j, _ZERO, length, "serial", tir.BufferStore(out, value, (j,)))


def _nest(extents: tuple[P.PrimExpr, ...], body) -> tir.Stmt:
    """Loops over ``extents`` (fresh variables: each nest binds its own) around
    ``body(loop_vars)``."""
    idx = tuple(P.Var(f"i{k}", INT64) for k in range(len(extents)))
    store = body(idx)
    for v, ext in reversed(list(zip(idx, extents))):
        store = tir.For(v, _ZERO, ext, "serial", store)
    return store


def _product(dims: tuple[P.PrimExpr, ...]) -> P.PrimExpr:
    out: P.PrimExpr = P.IntImm(1, INT64)
    for d in dims:
        out = d if isinstance(out, P.IntImm) and out.value == 1 else P.Mul(out, d, INT64)
    return out


def _unravel(t: P.PrimExpr, dims: tuple[P.PrimExpr, ...]) -> tuple[P.PrimExpr, ...]:
    """The row-major index of flat position ``t`` in a tensor of ``dims``."""
    out = []
    rest = t
    for k in range(len(dims) - 1, -1, -1):
        if k == 0:
            out.append(rest)
        else:
            out.append(P.FloorMod(rest, dims[k], INT64))
            rest = P.FloorDiv(rest, dims[k], INT64)
    return tuple(reversed(out))
