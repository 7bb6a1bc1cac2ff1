"""``layout_transform`` (spec/ops/manipulate.md, family "manipulate"): the element at
index ``i`` of x moves to index ``index_map(i)`` of the result; positions no element
reaches hold ``pad_value``.

The result's extents come from interval bounds of the map's expressions over x's index
box (``map_extents``), one rule used by deduction (symbolically) and by the NumPy
semantics (on the concrete shape), so the two always agree. The map must send distinct
elements to distinct positions; that, and padding without a ``pad_value``, are checked
when the op runs (EXEC-manip-layout-1).
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.attr_values import IndexMap
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.solver.expr_utils import substitute

from .common import OpRuntimeError, cast_value, expr_text, tensor_arg
from .registry import Attr, DeduceContext, OpDef, Operand, register

FAMILY = "manipulate"
_RULE = "EXEC-manip-layout-1"


def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, INT64)


class MapError(ValueError):
    """An index map outside what the bounds rule reads (SI-manip-layout-2)."""


# -- the extents of a map ----------------------------------------------------------------------

def _const(e: P.PrimExpr) -> int | None:
    return e.value if isinstance(e, P.IntImm) else None


def _bounds(e: P.PrimExpr, box: dict[P.Var, P.PrimExpr]) -> tuple[P.PrimExpr, P.PrimExpr]:
    """``(lo, hi)`` with ``lo <= e <= hi`` for every index of the box (``box``: each
    parameter's upper bound, ``extent - 1``), for ``e`` built from the parameters and
    constants with ``+``, ``-``, ``*`` by a non-negative constant, and ``//``/``%`` by a
    positive constant (SI-manip-layout-2)."""
    if isinstance(e, P.Var):
        if e not in box:
            raise MapError(f"{e.name} is not a parameter of the map")
        return _i64(0), box[e]
    if isinstance(e, P.IntImm):
        return _i64(e.value), _i64(e.value)
    if isinstance(e, (P.Add, P.Sub)):
        (alo, ahi), (blo, bhi) = _bounds(e.a, box), _bounds(e.b, box)
        if isinstance(e, P.Add):
            return P.Add(alo, blo, INT64), P.Add(ahi, bhi, INT64)
        return P.Sub(alo, bhi, INT64), P.Sub(ahi, blo, INT64)
    if isinstance(e, P.Mul):
        c, x = (_const(e.b), e.a) if _const(e.b) is not None else (_const(e.a), e.b)
        if c is None or c < 0:
            raise MapError(f"{expr_text(e)} multiplies by other than a non-negative constant")
        lo, hi = _bounds(x, box)
        return P.Mul(lo, _i64(c), INT64), P.Mul(hi, _i64(c), INT64)
    if isinstance(e, (P.FloorDiv, P.FloorMod)):
        c = _const(e.b)
        if c is None or c <= 0:
            raise MapError(f"{expr_text(e)} divides by other than a positive constant")
        lo, hi = _bounds(e.a, box)
        if isinstance(e, P.FloorDiv):
            return P.FloorDiv(lo, _i64(c), INT64), P.FloorDiv(hi, _i64(c), INT64)
        return _i64(0), _i64(c - 1)
    raise MapError(f"{expr_text(e)} is not an expression of +, -, * by a constant, // or %")


def map_extents(index_map: IndexMap, dims) -> tuple[list[P.PrimExpr], list[P.PrimExpr]]:
    """The lower bound and the extent (``hi + 1``) of each result of the map over the box
    ``[0, dims)``, as expressions in ``dims``."""
    box = {v: P.Sub(d, _i64(1), INT64) for v, d in zip(index_map.params, dims)}
    los, extents = [], []
    for r in index_map.results:
        lo, hi = _bounds(r, box)
        los.append(lo)
        extents.append(P.Add(hi, _i64(1), INT64))
    return los, extents


def _is_empty_box(ctx, dims) -> bool:
    return any(ctx.analyzer.prove_equal(d, _i64(0)) for d in dims)


# -- deduction ---------------------------------------------------------------------------------

def deduce_layout_transform(ctx: DeduceContext) -> si.StructInfo:
    """SI-manip-layout-1: layout_transform(x, index_map, pad_value): the map has one
    parameter per dimension of x (where known); a ``pad_value`` written as a typed
    scalar has x's dtype (a number is read in x's dtype, as TVM's Python function
    converts it). SI-manip-layout-2: each result of the map is built from the parameters
    and constants with ``+``, ``-``, ``*`` by a non-negative constant, ``//`` and ``%``
    by a positive constant, and its lower bound over x's index box is provably >= 0
    (or x is provably empty); the result's extent in that dimension is its upper bound
    plus 1 (simplified). Without x's shape, the result has ndim ``len(results)``."""
    x = tensor_arg(ctx, 0)
    index_map: IndexMap = ctx.attr("index_map")
    pad = ctx.attr("pad_value")
    if isinstance(pad, P.PrimExpr) and not x.dtype.is_void and pad.dtype != x.dtype:
        raise ctx.error(f"pad_value has dtype {pad.dtype}, x has {x.dtype}",
                        rule="SI-manip-layout-1")
    n_out = len(index_map.results)
    if x.ndim >= 0 and x.ndim != len(index_map.params):
        raise ctx.error(f"the index map takes {len(index_map.params)} indices, x has "
                        f"{x.ndim} dimensions", rule="SI-manip-layout-1")
    dims = x.shape if x.shape is not None else [P.Var(f"d{k}") for k in
                                                 range(len(index_map.params))]
    try:
        los, extents = map_extents(index_map, dims)
    except MapError as err:
        raise ctx.error(f"index map: {err}", rule="SI-manip-layout-2") from None
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, n_out, x.vdevice)
    if not _is_empty_box(ctx, dims):
        for k, lo in enumerate(los):
            if not ctx.analyzer.can_prove(P.GE(lo, _i64(0), BOOL)):
                raise ctx.error(f"result {k} of the index map ({expr_text(index_map.results[k])}) "
                                f"may be negative", rule="SI-manip-layout-2")
    shape = tuple(ctx.analyzer.simplify(P.Max(e, _i64(0), INT64)) for e in extents)
    return si.TensorStructInfo(shape, x.dtype, vdevice=x.vdevice)


def _to_pad_value(value):
    if value is None or isinstance(value, P.PrimExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected None, a number or a scalar, found {value!r}")
    return value


def _to_index_map(value) -> IndexMap:
    if not isinstance(value, IndexMap):
        raise ValueError(f"expected T.index_map(lambda ...) or a lambda, found {value!r}")
    return value


# -- NumPy semantics ---------------------------------------------------------------------------

def _np_eval(e: P.PrimExpr, env: dict) -> np.ndarray:
    if isinstance(e, P.Var):
        return env[e]
    if isinstance(e, P.IntImm):
        return np.int64(e.value)
    a, b = _np_eval(e.a, env), _np_eval(e.b, env)
    if isinstance(e, P.Add):
        return a + b
    if isinstance(e, P.Sub):
        return a - b
    if isinstance(e, P.Mul):
        return a * b
    if isinstance(e, P.FloorDiv):
        return np.floor_divide(a, b)
    return np.mod(a, b)


def compute_layout_transform(attrs, x: np.ndarray) -> np.ndarray:
    """EXEC-manip-layout-1: the result of the deduced extents (evaluated on x's shape)
    is ``pad_value`` (converted to x's dtype) everywhere, then each element of x is
    written at ``index_map(i)``. Two elements sent to one position, and a position no
    element reaches when ``pad_value`` is None, are ``index_out_of_bounds`` (TVM writes
    such a result unchecked: a later write wins, an unreached position is garbage)."""
    from relax_ref.solver.evaluate import evaluate_int

    index_map: IndexMap = attrs.get("index_map")
    if x.ndim != len(index_map.params):
        raise OpRuntimeError("shape_mismatch", f"the index map takes {len(index_map.params)} "
                             f"indices, x has shape {x.shape}", rule=_RULE)
    dims = [_i64(d) for d in x.shape]
    _, extents = map_extents(index_map, dims)
    shape = tuple(max(int(evaluate_int(e, {})), 0) for e in extents)
    grid = np.indices(x.shape, dtype=np.int64).reshape(x.ndim, -1)
    env = dict(zip(index_map.params, grid))
    targets = [np.broadcast_to(_np_eval(r, env), (grid.shape[1],)) for r in index_map.results]
    flat = np.ravel_multi_index(targets, shape) if x.size else np.zeros(0, np.int64)
    if len(np.unique(flat)) != flat.size:
        raise OpRuntimeError("index_out_of_bounds", "the index map sends two elements of x "
                             "to one position", rule=_RULE)
    pad = attrs.get("pad_value")
    total = int(np.prod(shape, dtype=np.int64))
    if pad is None and flat.size != total:
        raise OpRuntimeError("index_out_of_bounds", f"the index map leaves {total - flat.size} "
                             "positions unreached and pad_value is None", rule=_RULE)
    pad_number = 0 if pad is None else (pad.value if isinstance(pad, P.PrimExpr) else pad)
    out = cast_value(np.full(total, pad_number), x.dtype) if total else np.zeros(0, x.dtype)
    out = np.array(out, dtype=x.dtype)
    out[flat] = x.reshape(-1)
    return out.reshape(shape)


# -- lowering ----------------------------------------------------------------------------------

def _inverse(index_map: IndexMap, dims, analyzer):
    """``o -> [index of x]`` inverting a map whose results are, each parameter used once:
    the parameter itself, a split ``p // c`` with ``p % c`` (``p = o1 * c + o2``), or a
    fusion ``p * c + q`` with ``q``'s extent provably at most ``c`` (``p = o // c``,
    ``q = o % c``); results without parameters are allowed. None for any other map."""
    params, results = list(index_map.params), list(index_map.results)
    solved: dict[P.Var, object] = {}
    used: set[int] = set()

    def solve(p, fn) -> bool:
        if not (isinstance(p, P.Var) and p in params) or p in solved:
            return False
        solved[p] = fn
        return True

    for k, r in enumerate(results):
        if isinstance(r, P.Var):
            if not solve(r, lambda o, k=k: o[k]):
                return None
        elif isinstance(r, P.FloorDiv) and _const(r.b) is not None:
            c = _const(r.b)
            mods = [m for m, q in enumerate(results) if isinstance(q, P.FloorMod)
                    and q.a is r.a and _const(q.b) == c]
            if len(mods) != 1 or not solve(r.a, lambda o, k=k, m=mods[0], c=c: P.Add(
                    P.Mul(o[k], _i64(c), INT64), o[m], INT64)):
                return None
            used.add(mods[0])
        elif isinstance(r, P.Add):
            mul, q = (r.a, r.b) if isinstance(r.a, P.Mul) else (r.b, r.a)
            if not isinstance(mul, P.Mul) or not isinstance(q, P.Var) or q not in params:
                return None
            c, p = (_const(mul.b), mul.a) if _const(mul.b) is not None else (_const(mul.a), mul.b)
            if c is None or c <= 0 or not analyzer.can_prove(
                    P.LE(dims[params.index(q)], _i64(c), BOOL)):
                return None
            if not (solve(p, lambda o, k=k, c=c: P.FloorDiv(o[k], _i64(c), INT64)) and
                    solve(q, lambda o, k=k, c=c: P.FloorMod(o[k], _i64(c), INT64))):
                return None
        elif isinstance(r, P.FloorMod) or not P.free_vars(r):
            continue  # a split's second half (checked above), or a constant
        else:
            return None
        used.add(k)
    orphans = [k for k, r in enumerate(results) if k not in used and P.free_vars(r)]
    if orphans or set(solved) != set(params):
        return None
    return lambda o: [solved[p](o) for p in params]


def legalize_layout_transform(ctx):
    """TE-leg-manip-14. A map whose results are its parameters in another order is a
    transpose (``T_layout_trans[o] = x[o permuted back]``). A map ``_inverse`` inverts
    (splits, fusions) reads x at the inverse of ``o`` where that lies in x's box and
    maps back to ``o``, else ``pad_value`` (or a read out of bounds: a trap, as
    EXEC-manip-layout-1). Any other map: stage
    ``layout_count`` counts the elements of x each result position receives and
    ``layout_source`` folds the row-major position of the one it receives (``T.max``,
    -1 for none), both reductions over x's whole index box; the result reads x there,
    ``pad_value`` where none arrives, and reads x out of bounds (a trap, as
    EXEC-manip-layout-1) for two arrivals, or none without a ``pad_value``. O(size of
    x times size of the result): a reference, not a kernel."""
    x = ctx.tensor(0)
    index_map: IndexMap = ctx.attr("index_map")
    out_shape = ctx.result_shape()
    params, results = list(index_map.params), list(index_map.results)
    if len(results) == len(params) and all(isinstance(r, P.Var) for r in results) and \
            len({id(r) for r in results}) == len(params):
        where = [results.index(v) for v in params]
        out = te.compute(out_shape, lambda *o: x[tuple(o[w] for w in where)],
                         name="T_layout_trans", axis_prefix="ax")
        return ctx.call_te(out, "te_layout_transform")
    dims = list(x.shape)
    pad = ctx.attr("pad_value")
    if x.ndim == 0:
        raise ctx.decline("a 0-d x has no read out of bounds")
    outside = x[(dims[0],) + (_i64(0),) * (x.ndim - 1)]
    none = outside if pad is None else te.const(
        pad.value if isinstance(pad, P.PrimExpr) else pad, x.dtype)
    from relax_ref.solver.analyzer import Analyzer

    inverse = _inverse(index_map, dims, Analyzer())
    if inverse is not None:
        def read_back(*o):
            src = inverse(o)
            inside = [P.And(P.GE(v, _i64(0), BOOL), P.LT(v, d, BOOL), BOOL)
                      for v, d in zip(src, dims)]
            again = [P.EQ(substitute(r, dict(zip(params, src))), oi, BOOL)
                     for r, oi in zip(results, o)]
            return te.if_then_else(te.all_of(*inside, *again), x[tuple(src)], none)
        out = te.compute(out_shape, read_back, name="T_layout_trans", axis_prefix="ax")
        return ctx.call_te(out, "te_layout_transform")

    def hits(o):
        k = [te.reduce_axis(d, f"k{n}") for n, d in enumerate(dims)]
        kv = [r.var for r in k]
        mapped = [substitute(r, dict(zip(params, kv))) for r in results]
        cond = te.all_of(*(P.EQ(m, oi, BOOL) for m, oi in zip(mapped, o))) if mapped \
            else P.IntImm(1, BOOL)
        return k or [te.reduce_axis(1, "k")], kv, cond

    def count_of(*o):
        axes, _, cond = hits(o)
        return te.sum(te.select(cond, _i64(1), _i64(0)), axis=axes)

    def source_of(*o):
        axes, kv, cond = hits(o)
        pos: P.PrimExpr = _i64(0)
        for v, d in zip(kv, dims):
            pos = P.Add(P.Mul(pos, d, INT64), v, INT64)
        return te.max(te.select(cond, pos, _i64(-1)), axis=axes)
    count = te.compute(out_shape, count_of, name="layout_count", axis_prefix="ax")
    source = te.compute(out_shape, source_of, name="layout_source", axis_prefix="ax")

    def unravel(p):
        out, rest = [], p
        for n in range(len(dims) - 1, 0, -1):
            d = P.Max(dims[n], _i64(1), INT64)
            out.append(P.FloorMod(rest, d, INT64))
            rest = P.FloorDiv(rest, d, INT64)
        return tuple([rest] + list(reversed(out)))

    def value(*o):
        s = source[o]
        found = te.if_then_else(P.GE(s, _i64(0), BOOL), x[unravel(s)], none)
        return te.if_then_else(P.GT(count[o], _i64(1), BOOL), outside, found)
    out = te.compute(out_shape, value, name="T_layout_trans", axis_prefix="ax")
    return ctx.call_te(out, "te_layout_transform")


register(OpDef("relax.layout_transform", (Operand("x"),),
               (Attr("index_map", convert=_to_index_map), Attr("pad_value", None, _to_pad_value)),
               deduce=deduce_layout_transform, compute=compute_layout_transform,
               legalize=legalize_layout_transform, family=FAMILY,
               spec_rule="SI-manip-layout-1"))
