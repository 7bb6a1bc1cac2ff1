"""Tensor creation: ``full``, ``full_like``, ``ones``, ``ones_like``, ``zeros``,
``zeros_like``, ``eye``, ``eye_like``, ``arange``, ``tril``, ``triu``,
``hamming_window`` (spec/ops/create.md).

Each op's struct-info rule and NumPy semantics sit side by side. Shapes come from a
Shape operand (``R.shape([n, 4])`` or a variable of ``R.Shape`` struct info), sizes and
offsets from PrimValue operands, as in TVM 0.27. Fill values are cast to the result dtype
like a TIR ``Cast`` (floats to integers truncate toward zero).
"""
from __future__ import annotations

import math

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT32, INT64, DataType, parse_dtype
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import OpRuntimeError, cast_value, int_const, prim_arg, shape_values_of, tensor_arg
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype

FAMILY = "create"
UINT64 = parse_dtype("uint64")


# -- shared pieces ---------------------------------------------------------------------------

def _shape_sinfo(ctx: DeduceContext, i: int, dtype: DataType, vdevice: str | None,
                 rule: str) -> si.TensorStructInfo:
    """SI-create-shape-1: the result of a creation op takes the Shape operand's
    dimensions when known (a constant negative one is an error), else its ndim."""
    values = shape_values_of(ctx, i)
    if values is None:
        s = ctx.arg_sinfo[i]
        return si.TensorStructInfo(None, dtype, getattr(s, "ndim", si.UNKNOWN_NDIM), vdevice)
    for d in values:
        c = int_const(d)
        if c is not None and c < 0:
            raise ctx.error(f"shape dimension {c} is negative", rule=rule)
    return si.TensorStructInfo(tuple(values), dtype, vdevice=vdevice)


def _fill_arg(ctx: DeduceContext, i: int) -> si.TensorStructInfo:
    """SI-create-full-1: the fill value is a 0-d tensor (a known ndim must be 0)."""
    fill = tensor_arg(ctx, i, "fill_value")
    if fill.ndim >= 0 and fill.ndim != 0:
        raise ctx.error(f"fill_value must be a 0-d tensor, found ndim {fill.ndim}",
                        rule="SI-create-full-1")
    return fill


def _with_dtype(x: si.TensorStructInfo, dtype: DataType) -> si.TensorStructInfo:
    """``x``'s struct info with the attribute dtype when one is given (not void)."""
    if dtype.is_void:
        return x
    return si.TensorStructInfo(x.shape, dtype, x.ndim, x.vdevice)


def _int_prim(ctx: DeduceContext, i: int, what: str, rule: str) -> si.PrimStructInfo:
    p = prim_arg(ctx, i)
    if not p.dtype.is_void and not (p.dtype.is_integer or p.dtype.is_bool):
        raise ctx.error(f"{what} must be an integer, found {p.dtype}", rule=rule)
    return p


def _scalar(v, what: str, rule: str) -> int:
    value = v.value if hasattr(v, "value") else v
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise OpRuntimeError("invalid_value", f"{what} must be an integer, found {value!r}",
                             rule=rule)
    return int(value)


def _shape_dims(shape) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


# -- full, ones, zeros and the *_like forms ----------------------------------------------------

def deduce_full(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-full-1..2: ``full(shape, fill_value, dtype)``: the fill value is a 0-d
    tensor (1); the result has the shape operand's dimensions (SI-create-shape-1) and
    ``dtype``, or the fill value's dtype when ``dtype`` is None (2)."""
    fill = _fill_arg(ctx, 1)
    dtype = ctx.attr("dtype")
    return _shape_sinfo(ctx, 0, fill.dtype if dtype.is_void else dtype, fill.vdevice,
                        "SI-create-shape-1")


def deduce_full_like(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-full_like-1: ``x``'s struct info, with ``dtype`` when given; the fill
    value is a 0-d tensor (SI-create-full-1)."""
    x = tensor_arg(ctx, 0)
    _fill_arg(ctx, 1)
    return _with_dtype(x, ctx.attr("dtype"))


def deduce_ones_zeros(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-ones-1: ``ones``/``zeros(shape, dtype)`` need a dtype; the shape as in
    SI-create-shape-1."""
    dtype = ctx.attr("dtype")
    if dtype.is_void:
        raise ctx.error("needs a dtype", rule="SI-create-ones-1")
    return _shape_sinfo(ctx, 0, dtype, None, "SI-create-shape-1")


def deduce_like(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-full_like-1 for ``ones_like``/``zeros_like``."""
    return _with_dtype(tensor_arg(ctx, 0), ctx.attr("dtype"))


def _fill_scalar(fill: np.ndarray, rule: str) -> np.ndarray:
    if np.ndim(fill) != 0:
        raise OpRuntimeError("shape_mismatch", f"fill_value must be 0-d, found shape "
                             f"{np.shape(fill)}", rule=rule)
    return fill


def _full(attrs, shape, fill):
    """EXEC-create-full-1: every element is the fill value cast to the result dtype."""
    fill = _fill_scalar(fill, "EXEC-create-full-1")
    dtype = attrs.get("dtype")
    dt = fill.dtype if dtype.is_void else numpy_dtype(dtype)
    return np.full(_shape_dims(shape), cast_value(fill, dt), dt)


def _full_like(attrs, x, fill):
    fill = _fill_scalar(fill, "EXEC-create-full-1")
    dtype = attrs.get("dtype")
    dt = x.dtype if dtype.is_void else numpy_dtype(dtype)
    return np.full(x.shape, cast_value(fill, dt), dt)


def _constant(value: int):
    def create(attrs, shape):
        return np.full(_shape_dims(shape), value, numpy_dtype(attrs.get("dtype")))

    def create_like(attrs, x):
        dtype = attrs.get("dtype")
        return np.full(x.shape, value, x.dtype if dtype.is_void else numpy_dtype(dtype))
    return create, create_like


# -- eye ---------------------------------------------------------------------------------------

def _prim_dim(ctx: DeduceContext, i: int, what: str) -> P.PrimExpr | None:
    p = _int_prim(ctx, i, what, "SI-create-eye-1")
    if p.value is not None:
        c = int_const(p.value)
        if c is not None and c < 0:
            raise ctx.error(f"{what} must be >= 0, found {c}", rule="SI-create-eye-1")
    return p.value


def deduce_eye(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-eye-1: ``eye(n, m, k, dtype)``: integer scalars ``n``, ``m`` (>= 0 when
    constant) and ``k``; the result is ``(n, m)`` when both values are known, else 2-d."""
    n, m = _prim_dim(ctx, 0, "n"), _prim_dim(ctx, 1, "m")
    _int_prim(ctx, 2, "k", "SI-create-eye-1")
    dtype = ctx.attr("dtype")
    if dtype.is_void:
        raise ctx.error("needs a dtype", rule="SI-create-ones-1")
    if n is None or m is None:
        return si.TensorStructInfo(None, dtype, 2)
    return si.TensorStructInfo((n, m), dtype)


def deduce_eye_like(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-eye-2: ``eye_like(x, k, dtype)``: ``x`` of known ndim is 2-d; ``x``'s
    struct info with ``dtype`` when given."""
    x = tensor_arg(ctx, 0)
    if x.ndim >= 0 and x.ndim != 2:
        raise ctx.error(f"needs a 2-d tensor, found ndim {x.ndim}", rule="SI-create-eye-2")
    _int_prim(ctx, 1, "k", "SI-create-eye-1")
    return _with_dtype(x, ctx.attr("dtype"))


def bind_eye(args: dict) -> dict:
    """SI-call-3 for ``eye``: ``m`` absent means ``n`` (TVM's ``eye(n, m=None)``)."""
    if "m" not in args and "n" in args:
        args["m"] = args["n"]
    return args


def _eye(attrs, n, m, k):
    """EXEC-create-eye-1: ones where ``column - row == k``, zeros elsewhere."""
    rule = "EXEC-create-eye-1"
    rows, cols = _scalar(n, "n", rule), _scalar(m, "m", rule)
    if rows < 0 or cols < 0:
        raise OpRuntimeError("invalid_value", f"eye({rows}, {cols}) has a negative size",
                             rule=rule)
    return np.eye(rows, cols, _scalar(k, "k", rule), dtype=numpy_dtype(attrs.get("dtype")))


def _eye_like(attrs, x, k):
    rule = "EXEC-create-eye-1"
    if x.ndim != 2:
        raise OpRuntimeError("shape_mismatch", f"needs a 2-d tensor, found {x.ndim}-d",
                             rule=rule)
    dtype = attrs.get("dtype")
    return np.eye(*x.shape, _scalar(k, "k", rule),
                  dtype=x.dtype if dtype.is_void else numpy_dtype(dtype))


# -- arange ------------------------------------------------------------------------------------

def arange_dtype(attr_dtype: DataType, operand_dtypes) -> DataType:
    """SI-create-arange-1: the ``dtype`` attribute, or (None) int64 when start, end and
    step are all integers and float32 otherwise (TVM's Python wrapper)."""
    if not attr_dtype.is_void:
        return attr_dtype
    return INT64 if all(d.is_integer or d.is_bool for d in operand_dtypes) else FLOAT32


def arange_length(start, end, step) -> int:
    """SI-create-arange-2 on numbers: ``max(0, ceil((end - start) / step))``, exact for
    integers, in float64 otherwise (NumPy's rule)."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in
           (start, end, step)):
        return max(0, -((start - end) // step))
    return max(0, math.ceil((end - start) / step))


def bind_arange(args: dict) -> dict:
    """SI-call-3 for ``arange``: with ``end`` absent the one bound value is the end and
    the start is 0 (TVM's ``arange(start, end=None)``: ``R.arange(n)`` is
    ``R.arange(0, n)``)."""
    if "end" not in args and "start" in args:
        args["start"], args["end"] = 0, args["start"]
    return args


def _prim_number(e: P.PrimExpr | None):
    """A constant's value as the program holds it: a float rounded to its dtype (a
    ``T.float32(3.2)`` is 3.2000000476837..., the value the run-time length uses)."""
    if isinstance(e, P.IntImm):
        return bool(e.value) if e.dtype.is_bool else e.value
    if isinstance(e, P.FloatImm):
        return float(np.asarray(e.value).astype(numpy_dtype(e.dtype)))
    return None


def deduce_arange(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-arange-1..3: ``arange(start, end, step, dtype)`` is 1-d.

    1. The dtype follows ``arange_dtype``.
    2. Constant operands: length ``arange_length``; a zero step is an error.
    3. Integer operands with a symbolic one: ``(end - start + step - 1) // step`` for a
       provably positive step, ``(end - start + step + 1) // step`` for a provably
       negative one, clamped with ``max(., 0)`` unless provably non-negative; anything
       else (symbolic floats, a step of unknown sign) gives only the ndim."""
    prims = [prim_arg(ctx, i) for i in range(3)]
    dtype = arange_dtype(ctx.attr("dtype"), [p.dtype for p in prims])
    values = [p.value for p in prims]
    numbers = [_prim_number(v) for v in values]
    if numbers[2] == 0:
        raise ctx.error("step must not be zero", rule="SI-create-arange-2")
    if all(n is not None for n in numbers):
        return si.TensorStructInfo((P.IntImm(arange_length(*numbers)),), dtype)
    if any(v is None for v in values) or not all(p.dtype.is_integer for p in prims):
        return si.TensorStructInfo(None, dtype, 1)
    start, end, step = (ctx.analyzer.simplify(P.Cast(INT64, v)) if v.dtype != INT64 else v
                        for v in values)
    zero = P.IntImm(0)
    if ctx.analyzer.can_prove(P.GT(step, zero, BOOL)):
        length = P.FloorDiv(end - start + step - 1, step, INT64)
    elif ctx.analyzer.can_prove(P.LT(step, zero, BOOL)):
        length = P.FloorDiv(end - start + step + 1, step, INT64)
    else:
        return si.TensorStructInfo(None, dtype, 1)
    length = ctx.analyzer.simplify(length)
    if not ctx.analyzer.can_prove(P.GE(length, zero, BOOL)):
        length = ctx.analyzer.simplify(P.Max(length, zero, INT64))
    return si.TensorStructInfo((length,), dtype)


def _arange(attrs, start, end, step):
    """EXEC-create-arange-1: ``arange_length`` elements ``start + step * i``, computed in
    the result dtype (topi.arange)."""
    rule = "EXEC-create-arange-1"
    dtype = arange_dtype(attrs.get("dtype"), [v.dtype for v in (start, end, step)])
    dt = numpy_dtype(dtype)
    if step.value == 0:
        raise OpRuntimeError("invalid_value", "arange step is zero", rule=rule)
    n = arange_length(start.value, end.value, step.value)
    with np.errstate(all="ignore"):
        i = np.arange(n, dtype=np.int64).astype(dt)
        return (cast_value(start.value, dt) + cast_value(step.value, dt) * i).astype(dt)


# -- tril, triu --------------------------------------------------------------------------------

def deduce_trilu(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-trilu-1: ``tril``/``triu(x, k)`` keep ``x``'s struct info; a known ndim
    is at least 2; ``k`` is an integer scalar."""
    x = tensor_arg(ctx, 0)
    if x.ndim >= 0 and x.ndim < 2:
        raise ctx.error(f"needs at least 2 dimensions, found {x.ndim}", rule="SI-create-trilu-1")
    _int_prim(ctx, 1, "k", "SI-create-trilu-1")
    return x


def _trilu(np_fn):
    def compute(attrs, x, k):
        """EXEC-create-trilu-1: over the last two axes, keep elements with
        ``column - row <= k`` (tril) or ``>= k`` (triu), zero the others."""
        rule = "EXEC-create-trilu-1"
        if x.ndim < 2:
            raise OpRuntimeError("shape_mismatch", f"needs at least 2 dimensions, found "
                                 f"{x.ndim}", rule=rule)
        return np_fn(x, _scalar(k, "k", rule)).astype(x.dtype)
    return compute


# -- legalization (spec/ops/create.md "Lowering", TE-leg-create-*) ----------------------------

def _fill_stage(ctx, value_of, name: str):
    """One stage over the result shape (symbolic dimensions no buffer carries become
    prim-value arguments, TE-func-2)."""
    return te.compute(ctx.result_shape(), value_of, name=name, axis_prefix="ax")


def _legalize_full(ctx):
    """TE-leg-create-1: the fill value (a 0-d placeholder) cast to the result dtype."""
    fill = ctx.tensor(1)
    dtype = ctx.result_sinfo.dtype
    return ctx.call_te(_fill_stage(ctx, lambda *i: te.cast(dtype, fill[()]), "T_full"),
                       _short(ctx))


def _legalize_constant(value: int):
    def legalize(ctx):
        """TE-leg-create-1: the constant in the result dtype."""
        c = te.const(value, ctx.result_sinfo.dtype)
        return ctx.call_te(_fill_stage(ctx, lambda *i: c, "T_full"), _short(ctx))
    return legalize


def _short(ctx) -> str:
    return ctx.op_name.rsplit(".", 1)[-1]


def _prim_operand(ctx, i: int) -> P.PrimExpr:
    """``R.Prim`` operand ``i`` (TE-leg-create-1), of any value: an offset (``k``),
    ``arange``'s bounds and a negative-capable formula are exact for every value, and a
    size (``eye``'s ``n``, ``m``, a window size) is a result dimension, whose negative
    value traps where the lowered call allocates the result, as the op's
    ``invalid_value`` (TE-leg-7)."""
    return ctx.prim(i)


def _int_operand(ctx, i: int) -> P.PrimExpr:
    """An integer ``R.Prim`` operand as int64. A bool (which the run-time check rejects,
    ``invalid_value``) or a uint64 (which int64 cannot hold) declines."""
    value = _prim_operand(ctx, i)
    if value.dtype.is_bool or value.dtype == UINT64:
        raise ctx.decline(f"operand {i} is {value.dtype}")
    return te.cast(INT64, value)


def _legalize_eye(ctx):
    """TE-leg-create-2: 1 where ``j - i == k``, else 0."""
    if ctx.op_name == "relax.eye":
        _int_operand(ctx, 0), _int_operand(ctx, 1)  # sizes: constants (checked >= 0)
    k = _int_operand(ctx, 2 if ctx.op_name == "relax.eye" else 1)
    dtype = ctx.result_sinfo.dtype
    one, zero = te.const(1, dtype), te.const(0, dtype)
    out = te.compute(ctx.result_shape(), lambda i, j: te.select(
        P.EQ(j - i, k, BOOL), one, zero), name="eye")
    return ctx.call_te(out, _short(ctx))


def _legalize_arange(ctx):
    """TE-leg-create-3: element ``i`` is ``start + step * i`` in the result dtype
    (EXEC-create-arange-1), over the deduced length; a result of unknown length is not
    lowered (PASS-legalize-2)."""
    dtype = ctx.result_sinfo.dtype
    if dtype.is_bool:
        raise ctx.decline("a bool arange")
    _check_deduced_length(ctx)
    start, _, step = (te.cast(dtype, _prim_operand(ctx, i)) for i in range(3))
    out = te.compute(ctx.result_shape(), lambda ax0: start + step * te.cast(dtype, ax0),
                     name="T_arange")
    return ctx.call_te(out, "arange")


def _check_deduced_length(ctx) -> None:
    """Deduction simplified the length assuming every variable non-negative
    (SYM-assume-1), but an ``R.Prim`` operand's variable may be negative: lower only
    where the deduced length is provably ``max(0, ceil((end - start) / step))`` with
    just the sizes (TE-leg-4) assumed non-negative, else the call stays (the op and its
    struct info then decide at run time)."""
    from relax_ref.te.legalize import provable

    (length,) = ctx.result_shape()
    ops = [ctx.prim(i) for i in range(3)]
    if not all(v.dtype.is_integer for v in ops):
        return  # constant floats: the length is a constant deduction computed
    start, end, step = (te.cast(INT64, v) for v in ops)
    sizes = [v for e in (length, start, end, step) for v in P.free_vars(e) if ctx.is_size(v)]
    zero, one = P.IntImm(0, INT64), P.IntImm(1, INT64)
    if provable(P.GT(step, zero, BOOL), nonneg=sizes):
        count = P.FloorDiv(P.Sub(P.Add(P.Sub(end, start, INT64), step, INT64), one, INT64),
                           step, INT64)
    elif provable(P.LT(step, zero, BOOL), nonneg=sizes):
        count = P.FloorDiv(P.Add(P.Add(P.Sub(end, start, INT64), step, INT64), one, INT64),
                           step, INT64)
    else:
        raise ctx.decline("the step's sign depends on a variable that may be negative")
    if not provable(P.EQ(length, P.Max(count, zero, INT64), BOOL), nonneg=sizes):
        raise ctx.decline("the deduced length relies on a variable being non-negative")


def _legalize_trilu(lower: bool):
    def legalize(ctx):
        """TE-leg-create-4: over the last two axes, ``x`` where ``j - i <= k`` (tril)
        or ``>= k`` (triu), else 0."""
        x = ctx.tensor(0)
        k = _int_operand(ctx, 1)
        zero = te.const(0, x.dtype)

        def formula(*idx):
            diff = idx[-1] - idx[-2]
            keep = P.LE(diff, k, BOOL) if lower else P.GE(diff, k, BOOL)
            return te.select(keep, x[idx], zero)
        out = te.compute(x.shape, formula, name="trilu", axis_prefix="i")
        return ctx.call_te(out, _short(ctx))
    return legalize


# -- hamming_window -----------------------------------------------------------------------------

def deduce_hamming_window(ctx: DeduceContext) -> si.StructInfo:
    """SI-create-hamming-1: ``hamming_window(window_size, periodic, alpha, beta, dtype)``:
    an integer ``window_size`` (a constant one below 1 is an error, as in TVM), an
    integer or bool ``periodic``, number ``alpha`` and ``beta``, a float ``dtype`` (TVM
    rejects only integer types). The result is ``(window_size,)`` when its value is
    known, else 1-d."""
    n = _int_prim(ctx, 0, "window_size", "SI-create-hamming-1")
    _int_prim(ctx, 1, "periodic", "SI-create-hamming-1")
    for i, what in ((2, "alpha"), (3, "beta")):
        p = prim_arg(ctx, i)
        if not p.dtype.is_void and p.dtype.is_bool:
            raise ctx.error(f"{what} must be a number, found bool", rule="SI-create-hamming-1")
    dtype = ctx.attr("dtype")
    if dtype.is_void or not dtype.is_float:
        raise ctx.error(f"dtype must be a float type, found {dtype}", rule="SI-create-hamming-1")
    if n.value is None:
        return si.TensorStructInfo(None, dtype, 1)
    c = int_const(n.value)
    if c is not None and c < 1:
        raise ctx.error(f"window_size must be at least 1, found {c}",
                        rule="SI-create-hamming-1")
    return si.TensorStructInfo((te.cast(INT64, n.value),), dtype)


_TWO_PI = 2.0 * math.pi


def _hamming_window(attrs, n, periodic, alpha, beta):
    """EXEC-create-hamming-1: ``alpha - beta * cos(2 pi i / (M - 1))`` for ``i`` in
    ``[0, n)``, ``M = n + 1`` when ``periodic`` else ``n``, in TVM's steps: ``i``,
    ``2 pi * i`` and the division by ``M - 1`` rounded in ``dtype``, the cosine rounded
    once to ``dtype``, the rest in float64, converted to ``dtype``. ``n == 1`` gives
    ``[1]``, ``n == 0`` an empty window, a negative ``n`` is an ``invalid_value``."""
    rule = "EXEC-create-hamming-1"
    size = _scalar(n, "window_size", rule)
    if size < 0:
        raise OpRuntimeError("invalid_value", f"window_size {size} is negative", rule=rule)
    dtype = numpy_dtype(attrs.get("dtype"))
    if size == 1:
        return np.ones(1, dtype)
    denom = size if periodic.value else size - 1
    with np.errstate(all="ignore"):
        t = (np.asarray(_TWO_PI, dtype) * np.arange(size).astype(dtype)).astype(dtype)
        t = (t / np.asarray(denom, dtype)).astype(dtype)
        c = np.cos(t.astype(np.float64)).astype(dtype)
        return (float(alpha.value) - float(beta.value) * c.astype(np.float64)).astype(dtype)


def _legalize_hamming_window(ctx):
    """TE-leg-create-5: EXEC-create-hamming-1's steps in one block over ``(n,)``,
    ``n == 1`` selecting 1 (a negative ``n`` traps at the result's allocation)."""
    n = _int_operand(ctx, 0)
    periodic = ctx.prim(1)
    alpha, beta = (te.cast("float64", ctx.prim(i)) for i in (2, 3))
    dtype = ctx.result_sinfo.dtype
    is_periodic = periodic if periodic.dtype.is_bool else P.NE(periodic, te.const(
        0, periodic.dtype), BOOL)
    denom = te.cast(dtype, te.select(is_periodic, n, P.Sub(n, te.const(1, INT64), INT64)))

    def formula(i):
        t = P.Mul(te.const(_TWO_PI, dtype), te.cast(dtype, i), dtype)
        c = te.call_intrin("cos", te.div(t, denom))
        v = P.Sub(alpha, P.Mul(beta, te.cast("float64", c), alpha.dtype), alpha.dtype)
        return te.select(P.EQ(n, te.const(1, INT64), BOOL), te.const(1, dtype),
                         te.cast(dtype, v))
    out = te.compute(ctx.result_shape(), formula, name="hamming_window")
    return ctx.call_te(out, "hamming_window")


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    def op(name, operands, attrs, deduce, compute, rule, **extra):
        register(OpDef(f"relax.{name}", operands, attrs, deduce=deduce, compute=compute,
                       family=FAMILY, spec_rule=rule, **extra))

    opt_dtype = (Attr("dtype", None, to_dtype),)
    op("full", (Operand("shape", "shape"), Operand("fill_value")), opt_dtype, deduce_full,
       _full, "SI-create-full-1", legalize=_legalize_full)
    op("full_like", (Operand("x"), Operand("fill_value")), opt_dtype, deduce_full_like,
       _full_like, "SI-create-full_like-1", legalize=_legalize_full)
    for name, value in (("ones", 1), ("zeros", 0)):
        create, create_like = _constant(value)
        op(name, (Operand("shape", "shape"),), (Attr("dtype", convert=to_dtype),),
           deduce_ones_zeros, create, "SI-create-ones-1", legalize=_legalize_constant(value))
        op(f"{name}_like", (Operand("x"),), opt_dtype, deduce_like, create_like,
           "SI-create-full_like-1", legalize=_legalize_constant(value))
    op("eye", (Operand("n", "prim"), Operand("m", "prim"), Operand("k", "prim", default=0)),
       (Attr("dtype", "float32", to_dtype),), deduce_eye, _eye, "SI-create-eye-1",
       bind=bind_eye, legalize=_legalize_eye)
    op("eye_like", (Operand("x"), Operand("k", "prim", default=0)), opt_dtype, deduce_eye_like,
       _eye_like, "SI-create-eye-2", legalize=_legalize_eye)
    op("arange", (Operand("start", "prim"), Operand("end", "prim"),
                  Operand("step", "prim", default=1)), opt_dtype, deduce_arange, _arange,
       "SI-create-arange-1", bind=bind_arange, legalize=_legalize_arange)
    op("hamming_window", tuple(Operand(n, "prim") for n in ("window_size", "periodic", "alpha",
                                                            "beta")),
       (Attr("dtype", convert=to_dtype),), deduce_hamming_window, _hamming_window,
       "SI-create-hamming-1", legalize=_legalize_hamming_window)
    op("tril", (Operand("x"), Operand("k", "prim", default=0)), (), deduce_trilu,
       _trilu(np.tril), "SI-create-trilu-1", legalize=_legalize_trilu(True))
    op("triu", (Operand("x"), Operand("k", "prim", default=0)), (), deduce_trilu,
       _trilu(np.triu), "SI-create-trilu-1", legalize=_legalize_trilu(False))


_register_all()
