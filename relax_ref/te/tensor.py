"""Tensors defined by index formulas (spec/te.md, TE-*): what legalizations are written in.

A ``Tensor`` is either a ``placeholder`` (an input with a shape that may be symbolic)
or the result of ``compute(shape, fn)``: element ``[i, j, ...]`` is ``fn(i, j, ...)``,
a PrimExpr built from loads of other tensors (``A[i, j]``), constants, casts and
intrinsics. A compute whose formula is a reduction (``sum(expr, axis=k)`` over a
``reduce_axis``) folds the formula over the reduction axes with a commutative reducer.
``create_prim_func`` (``te/prim_func.py``) writes a set of tensors as a PrimFunc, one
SBlock per compute stage.

Formulas are ordinary ``ir.prim_expr`` nodes: the arithmetic operators build nodes and
never promote types, so a formula that mixes types must cast (``cast``). Indices are
int64, as Relax shapes are.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT64, DataType, parse_dtype


class TEError(ValueError):
    """A compute definition that cannot be written as a tensor program (a bug in a
    legalization, never in the user's program)."""


# -- tensors ------------------------------------------------------------------------------


@dataclass(eq=False)
class Tensor:
    """A placeholder or one output of a compute stage. ``buffer`` is the TIR buffer the
    tensor becomes; ``A[i, j]`` loads from it."""

    name: str
    shape: tuple[P.PrimExpr, ...]
    dtype: DataType
    op: "Placeholder | ComputeOp"
    buffer: tir.Buffer
    value_index: int = 0

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices) -> tir.BufferLoad:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != self.ndim:
            raise TEError(f"{self.name} has {self.ndim} dimensions, indexed with "
                          f"{len(indices)}")
        idx = tuple(index_expr(i) for i in indices)
        _note_read(self)
        return tir.BufferLoad(self.buffer, idx, self.dtype)

    def __repr__(self) -> str:
        return f"te.Tensor({self.name}, {self.dtype})"


@dataclass(eq=False)
class Placeholder:
    name: str


@dataclass(eq=False)
class ComputeOp:
    """One stage: ``axis`` are the spatial variables (one per output dimension), ``body``
    one formula per output (a ``Reduce`` for a reduction), ``inputs`` the tensors the
    formulas load from, ``outputs`` the tensors it defines."""

    name: str
    axis: tuple[P.Var, ...]
    shape: tuple[P.PrimExpr, ...]
    body: tuple[P.PrimExpr, ...]
    inputs: tuple[Tensor, ...]
    outputs: list[Tensor] = field(default_factory=list)
    attrs: dict = field(default_factory=dict)


def index_expr(i) -> P.PrimExpr:
    """An index or shape dimension as an int64 PrimExpr."""
    if isinstance(i, tir.IterVar):
        return i.var
    if isinstance(i, bool):
        raise TEError("a bool is not an index")
    if isinstance(i, int):
        return P.IntImm(i, INT64)
    if isinstance(i, P.PrimExpr):
        if not i.dtype.is_integer:
            raise TEError(f"an index must be an integer, found {i.dtype}")
        return i if i.dtype == INT64 else P.Cast(INT64, i)
    raise TEError(f"not an index: {i!r}")


def placeholder(shape: Sequence, dtype: DataType | str = "float32", name: str = "A") -> Tensor:
    """An input tensor of ``shape`` (ints or PrimExprs: symbolic dimensions stay
    symbolic)."""
    dt = parse_dtype(dtype) if isinstance(dtype, str) else dtype
    dims = tuple(index_expr(d) for d in shape)
    buf = tir.Buffer(name, dims, dt)
    return Tensor(name, dims, dt, Placeholder(name), buf)


# Loads met while a compute formula is built: the stage's inputs (TE-compute-1).
_READS: list[list[Tensor]] = []


def _note_read(t: Tensor) -> None:
    if _READS:
        _READS[-1].append(t)


def _axis_names(fn: Callable, ndim: int, prefix: str) -> list[str]:
    """The formula's parameter names, as TVM names the loops after them; ``i0, i1, ...``
    for ``*args`` formulas."""
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return [f"{prefix}{k}" for k in range(ndim)]
    names = [p.name for p in params]
    if len(names) != ndim:
        raise TEError(f"a compute of {ndim} dimensions needs a formula of {ndim} "
                      f"indices, found {len(names)}")
    return names


def compute(shape: Sequence, fn: Callable, name: str = "compute", *,
            axis_prefix: str = "i", attrs: dict | None = None):
    """The tensor of ``shape`` whose element at ``idx`` is ``fn(*idx)`` (TE-compute-1).
    ``fn`` may return a tuple (one output per formula, all of one shape): then a list
    of tensors is returned. Loops are named after ``fn``'s parameters."""
    dims = tuple(index_expr(d) for d in shape)
    names = _axis_names(fn, len(dims), axis_prefix)
    axis = tuple(P.Var(n, INT64) for n in names)
    _READS.append([])
    try:
        value = fn(*axis)
    finally:
        reads = _READS.pop()
    multi = isinstance(value, (tuple, list))
    bodies = tuple(value) if multi else (value,)
    bodies = tuple(_as_formula(b) for b in bodies)
    if any(isinstance(b, Reduce) for b in bodies):
        if not all(isinstance(b, Reduce) for b in bodies):
            raise TEError(f"{name}: a reduction must be the whole formula of every output")
        first = bodies[0]
        if any(b.combiner is not first.combiner or b.axis != first.axis for b in bodies):
            raise TEError(f"{name}: the outputs of one reduction share its reducer and axes")
    seen: dict[int, Tensor] = {}
    for t in reads:
        seen.setdefault(id(t), t)
    op = ComputeOp(name, axis, dims, bodies, tuple(seen.values()), attrs=dict(attrs or {}))
    for k, body in enumerate(bodies):
        out_name = name if len(bodies) == 1 else f"{name}_v{k}"
        t = Tensor(out_name, dims, body.dtype, op, tir.Buffer(out_name, dims, body.dtype), k)
        op.outputs.append(t)
    return list(op.outputs) if multi else op.outputs[0]


def _as_formula(v) -> P.PrimExpr:
    if isinstance(v, P.PrimExpr):
        return v
    if isinstance(v, bool):
        return P.IntImm(int(v), BOOL)
    raise TEError(f"a compute formula must be a PrimExpr, found {v!r}")


# -- reductions ---------------------------------------------------------------------------


def reduce_axis(dom, name: str = "k") -> tir.IterVar:
    """A reduction variable over ``dom``: an extent, or ``(begin, end)``. Use it as an
    index (``A[i, k]``) or, in arithmetic, as ``k.var``."""
    if isinstance(dom, (tuple, list)):
        begin, end = (index_expr(d) for d in dom)
        rng = tir.Range(begin, end - begin if not _is_zero(begin) else end)
    else:
        rng = tir.Range(P.IntImm(0, INT64), index_expr(dom))
    return tir.IterVar(P.Var(name, INT64), rng, "R")


def _is_zero(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 0


@dataclass(frozen=True, eq=False)
class CommReducer:
    """A commutative, associative combination ``result(lhs, rhs)`` with ``identity``:
    tuples, so that argmax-style reducers combine (index, value) pairs."""

    lhs: tuple[P.Var, ...]
    rhs: tuple[P.Var, ...]
    result: tuple[P.PrimExpr, ...]
    identity: tuple[P.PrimExpr, ...]


_node = dataclass(frozen=True, slots=True, eq=False)


@_node
class Reduce(P.PrimExpr):
    """The fold of ``source`` over ``axis`` with ``combiner`` (only ``where`` holds are
    folded); the value is component ``value_index`` of the result. Exists only inside
    te formulas: ``create_prim_func`` writes it as a block with ``T.init``."""

    combiner: CommReducer
    source: tuple[P.PrimExpr, ...]
    axis: tuple[tir.IterVar, ...]
    condition: P.PrimExpr
    value_index: int
    dtype: DataType


def _axes(axis) -> tuple[tir.IterVar, ...]:
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    for a in axes:
        if not isinstance(a, tir.IterVar) or a.kind != "R":
            raise TEError(f"a reduction axis must come from reduce_axis, found {a!r}")
    return axes


def comm_reducer(combine: Callable, identity: Callable[[Sequence[DataType]], Sequence],
                 name: str = "reduce") -> Callable:
    """A reducer from ``combine(lhs, rhs) -> result`` over tuples of PrimExprs and
    ``identity(dtypes) -> values`` (TE-reduce-1). The returned function is called as
    ``r(expr or tuple of exprs, axis=..., where=...)`` and gives a Reduce, or a tuple of
    Reduces for a tuple source."""

    def reducer(source, axis, where=None):
        multi = isinstance(source, (tuple, list))
        srcs = tuple(_as_formula(s) for s in (source if multi else (source,)))
        dtypes = [s.dtype for s in srcs]
        lhs = tuple(P.Var(f"x{k}", dt) for k, dt in enumerate(dtypes))
        rhs = tuple(P.Var(f"y{k}", dt) for k, dt in enumerate(dtypes))
        out = combine(lhs if multi else lhs[0], rhs if multi else rhs[0])
        result = tuple(out) if multi else (out,)
        ident = identity(dtypes)
        ident = tuple(_typed_const(v, dt) for v, dt in zip(ident, dtypes))
        combiner = CommReducer(lhs, rhs, result, ident)
        cond = P.IntImm(1, BOOL) if where is None else where
        axes = _axes(axis)
        reds = tuple(Reduce(combiner, srcs, axes, cond, k, dt) for k, dt in enumerate(dtypes))
        return reds if multi else reds[0]

    reducer.__name__ = name
    return reducer


def _typed_const(v, dt: DataType) -> P.PrimExpr:
    if isinstance(v, P.PrimExpr):
        return v
    return const(v, dt)


sum = comm_reducer(lambda x, y: x + y, lambda dts: [0] * len(dts), "sum")  # noqa: A001
prod = comm_reducer(lambda x, y: x * y, lambda dts: [1] * len(dts), "prod")
# Float identities are the infinities (TE-reduce-2): max over a row of -inf is -inf.
max = comm_reducer(lambda x, y: P.Max(x, y, x.dtype),  # noqa: A001
                   lambda dts: [lowest(dt) for dt in dts], "max")
min = comm_reducer(lambda x, y: P.Min(x, y, x.dtype),  # noqa: A001
                   lambda dts: [highest(dt) for dt in dts], "min")


def lowest(dt: DataType) -> P.PrimExpr:
    """The identity of max: -inf for floats, the smallest value of an integer type."""
    if dt.is_float:
        return P.FloatImm(-math.inf, dt)
    if dt.is_bool:
        return P.IntImm(0, dt)
    return P.IntImm(dt.int_range()[0], dt)


def highest(dt: DataType) -> P.PrimExpr:
    if dt.is_float:
        return P.FloatImm(math.inf, dt)
    if dt.is_bool:
        return P.IntImm(1, dt)
    return P.IntImm(dt.int_range()[1], dt)


# -- scalar helpers -----------------------------------------------------------------------


def const(value, dtype: DataType | str = "float32") -> P.PrimExpr:
    """A constant of ``dtype`` (floats may be inf/nan)."""
    dt = parse_dtype(dtype) if isinstance(dtype, str) else dtype
    if dt.is_float:
        return P.FloatImm(float(value), dt)
    if dt.is_bool:
        return P.IntImm(int(bool(value)), dt)
    v = int(value)
    lo, hi = dt.int_range()
    if not lo <= v <= hi:
        raise TEError(f"{value} does not fit {dt}")
    return P.IntImm(v, dt)


def cast(dtype: DataType | str, x: P.PrimExpr) -> P.PrimExpr:
    """``x`` converted to ``dtype`` (no node when it already has it)."""
    dt = parse_dtype(dtype) if isinstance(dtype, str) else dtype
    x = _as_formula(x)
    return x if x.dtype == dt else P.Cast(dt, x)


def if_then_else(cond: P.PrimExpr, then_value: P.PrimExpr, else_value: P.PrimExpr) -> P.PrimExpr:
    """``then_value`` where ``cond`` holds, else ``else_value``; only the chosen side is
    evaluated (``T.if_then_else``), so a guarded load never reads out of bounds."""
    t, f = _as_formula(then_value), _as_formula(else_value)
    if t.dtype != f.dtype:
        raise TEError(f"if_then_else of {t.dtype} and {f.dtype}")
    return P.Call("tir.if_then_else", (_as_bool(cond), t, f), t.dtype)


def select(cond: P.PrimExpr, then_value: P.PrimExpr, else_value: P.PrimExpr) -> P.PrimExpr:
    """Both sides evaluated, one chosen (``T.Select``)."""
    t, f = _as_formula(then_value), _as_formula(else_value)
    if t.dtype != f.dtype:
        raise TEError(f"select of {t.dtype} and {f.dtype}")
    return P.Select(_as_bool(cond), t, f, t.dtype)


def _as_bool(c) -> P.PrimExpr:
    c = _as_formula(c)
    if not c.dtype.is_bool:
        raise TEError(f"a condition must be bool, found {c.dtype}")
    return c


def call_intrin(name: str, *args: P.PrimExpr, dtype: DataType | None = None) -> P.PrimExpr:
    """A call of the TIR intrinsic ``T.<name>`` (the result has the first argument's type
    unless ``dtype`` is given)."""
    exprs = tuple(_as_formula(a) for a in args)
    return P.Call(f"tir.{name}", exprs, dtype or exprs[0].dtype)


def all_of(*conds: P.PrimExpr) -> P.PrimExpr:
    """The conjunction of ``conds`` (True when there are none)."""
    out: P.PrimExpr | None = None
    for c in conds:
        c = _as_bool(c)
        out = c if out is None else P.And(out, c, BOOL)
    return out if out is not None else P.IntImm(1, BOOL)


def any_of(*conds: P.PrimExpr) -> P.PrimExpr:
    out: P.PrimExpr | None = None
    for c in conds:
        c = _as_bool(c)
        out = c if out is None else P.Or(out, c, BOOL)
    return out if out is not None else P.IntImm(0, BOOL)


def div(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a / b``: float division, or truncating division of integers (``T.Div``)."""
    a = _as_formula(a)
    b = b if isinstance(b, P.PrimExpr) else const(b, a.dtype)
    if a.dtype != b.dtype:
        raise TEError(f"division of {a.dtype} by {b.dtype}")
    return P.Div(a, b, a.dtype)
