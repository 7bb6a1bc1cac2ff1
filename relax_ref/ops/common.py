"""Rules shared by several op families, each in one place (STYLE.md "one rule, one
place"): reading operand struct info, axis normalization (static and at run time), dtype
agreement, symbolic facts about dimensions, shape arithmetic built as TVM builds it, the
broadcasting rule used by deduction and by the NumPy semantics alike, and the NumPy
pieces of TIR's scalar semantics (casts, truncating division, reducer identities)."""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import INT64, VOID, DataType
from relax_ref.numerics import erf as erf_array  # noqa: F401  (the ops' name for it)
from relax_ref.numerics import float_to_int, trunc_div  # noqa: F401  (re-exported)
from relax_ref.solver.simplify import expr_text  # how messages show a dimension
from relax_ref.solver.simplify import structural_key

from .registry import DeduceContext


class OpRuntimeError(Exception):
    """A run-time check of an op's NumPy semantics failed; the interpreter adds the
    span. ``check`` is the error kind (spec/semantics.md), e.g. ``shape_mismatch``."""

    def __init__(self, check: str, message: str, rule: str | None = None):
        super().__init__(message)
        self.check = check
        self.message = message
        self.rule = rule


# -- operands ------------------------------------------------------------------------------

def tensor_arg(ctx: DeduceContext, i: int, what: str = "operand") -> si.TensorStructInfo:
    """The struct info of operand ``i``, which must be a tensor (SI-op-tensor-1)."""
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.TensorStructInfo):
        return s
    if isinstance(s, si.ObjectStructInfo):
        # Nothing is known; the op still needs a tensor, checked at run time.
        return si.TensorStructInfo()
    raise ctx.error(f"{what} {i} must be a tensor, but its struct info is "
                    f"{describe_sinfo(s)}", rule="SI-op-tensor-1")


def prim_arg(ctx: DeduceContext, i: int) -> si.PrimStructInfo:
    s = ctx.arg_sinfo[i]
    if isinstance(s, si.PrimStructInfo):
        return s
    raise ctx.error(f"operand {i} must be a scalar (R.Prim), but its struct info is "
                    f"{describe_sinfo(s)}", rule="SI-op-prim-1")


def shape_operand(ctx: DeduceContext, i: int) -> si.ShapeStructInfo:
    """The struct info of Shape operand ``i`` (SI-op-shape-1): a literal ``R.shape``
    gives its values; otherwise the operand's ShapeStructInfo. Every known dimension
    must be an integer expression."""
    arg = ctx.args[i]
    s = ctx.arg_sinfo[i]
    if isinstance(arg, rx.ShapeExpr):
        s = si.ShapeStructInfo(tuple(arg.values))
    elif not isinstance(s, si.ShapeStructInfo):
        raise ctx.error(f"operand {i} must be a shape (R.Shape), but its struct info is "
                        f"{describe_sinfo(s)}", rule="SI-op-shape-1")
    for d in s.values or ():
        if not (d.dtype.is_integer and d.dtype.lanes == 1):
            raise ctx.error(f"shape dimensions must be integers, found {d.dtype}",
                            rule="SI-op-shape-1")
    return s


def shape_values_of(ctx: DeduceContext, i: int) -> tuple[P.PrimExpr, ...] | None:
    """The dimensions held by a Shape operand (SI-op-shape-1), when known."""
    return shape_operand(ctx, i).values


def same_as(x: si.TensorStructInfo) -> si.TensorStructInfo:
    """``x``'s struct info as a result's (the same fields, without ``x``'s span)."""
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, x.vdevice)


def unknown_tensor(x: si.TensorStructInfo, ndim: int = si.UNKNOWN_NDIM) -> si.TensorStructInfo:
    """A tensor of ``x``'s dtype and virtual device with only ``ndim`` known."""
    return si.TensorStructInfo(None, x.dtype, ndim, x.vdevice)


def describe_sinfo(s: si.StructInfo) -> str:
    from relax_ref.ir.text import print_struct_info

    try:
        return print_struct_info(s)
    except Exception:  # noqa: BLE001 - a description must never fail
        return type(s).__name__


def normalize_axis(ctx: DeduceContext, axis: int, ndim: int, what: str = "axis") -> int:
    """An axis in [-ndim, ndim) as a non-negative index (SI-op-axis-1)."""
    if not -ndim <= axis < ndim:
        raise ctx.error(f"{what} {axis} is out of range for a tensor of {ndim} dimensions",
                        rule="SI-op-axis-1")
    return axis + ndim if axis < 0 else axis


def normalize_axes(ctx: DeduceContext, axes: Sequence[int], ndim: int) -> list[int]:
    out = [normalize_axis(ctx, a, ndim) for a in axes]
    if len(set(out)) != len(out):
        raise ctx.error(f"axes {list(axes)} repeat an axis", rule="SI-op-axis-2")
    return out


def runtime_axis(axis: int, ndim: int, rule: str, what: str = "axis",
                 check: str = "invalid_value") -> int:
    """An axis checked at run time (the run-time SI-op-axis-1, for operands whose ndim
    was unknown statically): in ``[-ndim, ndim)``, returned non-negative. ``check`` is
    the error kind the calling op's EXEC rule reports."""
    if not -ndim <= axis < ndim:
        raise OpRuntimeError(check, f"{what} {axis} is out of range for a tensor of "
                             f"{ndim} dimensions", rule=rule)
    return axis + ndim if axis < 0 else axis


def runtime_axes(axes: Sequence[int], ndim: int, rule: str,
                 check: str = "invalid_value") -> list[int]:
    """Axes checked at run time: each as ``runtime_axis``, none repeated (the run-time
    SI-op-axis-2)."""
    out = [runtime_axis(a, ndim, rule, check=check) for a in axes]
    if len(set(out)) != len(out):
        raise OpRuntimeError(check, f"axes {list(axes)} repeat an axis", rule=rule)
    return out


def common_dtype(ctx: DeduceContext, *dtypes: DataType) -> DataType:
    """The dtype of an elementwise result: all known operand dtypes must agree; unknown
    (void) operands do not constrain it (SI-op-dtype-1)."""
    known = [d for d in dtypes if not d.is_void]
    if not known:
        return VOID
    first = known[0]
    for d in known[1:]:
        if d != first:
            raise ctx.error(f"operand dtypes differ ({first} and {d}); use R.astype first",
                            rule="SI-op-dtype-1")
    return first


def common_vdevice(*tensors: si.TensorStructInfo) -> str | None:
    for t in tensors:
        if t.vdevice is not None:
            return t.vdevice
    return None


def int_const(e: P.PrimExpr) -> int | None:
    return e.value if isinstance(e, P.IntImm) else None


def i64(value: int) -> P.IntImm:
    return P.IntImm(value, INT64)


# -- symbolic facts about dimensions ----------------------------------------------------------

def provably_ne(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr | int) -> bool:
    """Whether ``a != b`` holds wherever the assumptions hold: two constants compare,
    anything else asks the analyzer. Deduction rules reject a requirement only when it
    is provably violated; one not provable either way is left to the run-time check."""
    return ctx.analyzer.prove_not_equal(a, b)


def same_expr(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """Structural identity (same tree, same Var objects), as TVM's StructuralEqual."""
    return a is b or structural_key(a) == structural_key(b)


# -- shape arithmetic built as TVM builds it ---------------------------------------------------

def fold_mul(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a * b`` folded the way TVM's ``TryConstFold<Mul>`` folds it: two constants
    multiply, a constant 1 disappears, a constant 0 absorbs; nothing is reordered."""
    ca, cb = int_const(a), int_const(b)
    if ca is not None and cb is not None:
        return P.IntImm(ca * cb, a.dtype)
    if ca == 1 or cb == 0:
        return b
    if cb == 1 or ca == 0:
        return a
    return P.Mul(a, b, a.dtype)


def fold_add(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a + b`` folded like TVM's ``TryConstFold<Add>`` (a constant 0 disappears)."""
    ca, cb = int_const(a), int_const(b)
    if ca is not None and cb is not None:
        return P.IntImm(ca + cb, a.dtype)
    if ca == 0:
        return b
    if cb == 0:
        return a
    return P.Add(a, b, a.dtype)


def shape_product(dims: Sequence[P.PrimExpr]) -> P.PrimExpr:
    """The element count of a shape, as TVM's ``ComputeShapeProduct`` builds it
    (``(2, n, 4)`` gives ``2 * n * 4``); rules for which TVM simplifies the count pass it
    through ``ctx.analyzer.simplify``."""
    prod: P.PrimExpr = P.IntImm(1, INT64)
    for d in dims:
        prod = fold_mul(prod, d)
    return prod


# -- broadcasting (SI-broadcast-1..3, EXEC-broadcast-1) ---------------------------------------

def broadcast_shapes(ctx: DeduceContext, shapes: Sequence[tuple[P.PrimExpr, ...]]
                     ) -> tuple[P.PrimExpr, ...] | None:
    """NumPy broadcasting on symbolic shapes, aligned from the right.

    Per dimension (SI-broadcast-2): a dimension equal to the constant 1 takes the other;
    two dimensions proved equal give that dimension; two different constants are an
    error; anything else cannot be decided statically, and the result falls back to
    ndim only (None), the run-time check deciding (EXEC-broadcast-1)."""
    ndim = max(len(s) for s in shapes)
    out: list[P.PrimExpr] = []
    for k in range(1, ndim + 1):
        dims = [s[-k] for s in shapes if len(s) >= k]
        result = dims[0]
        for d in dims[1:]:
            merged = _broadcast_dim(ctx, result, d)
            if merged is None:
                return None
            result = merged
        out.append(result)
    return tuple(reversed(out))


def _broadcast_dim(ctx: DeduceContext, a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr | None:
    ca, cb = int_const(a), int_const(b)
    if ca == 1:
        return b
    if cb == 1:
        return a
    if ca is not None and cb is not None:
        if ca != cb:
            raise ctx.error(f"shapes cannot broadcast: dimension {ca} against {cb}",
                            rule="SI-broadcast-1")
        return a
    if a is b or ctx.analyzer.prove_equal(a, b):
        return a
    return None


def broadcast_sinfo(ctx: DeduceContext, tensors: Sequence[si.TensorStructInfo],
                    dtype: DataType) -> si.TensorStructInfo:
    """The struct info of an elementwise result over broadcast operands (SI-broadcast-3):
    the broadcast shape when every shape is known and decidable, else only the ndim
    (the maximum of the operands' when all are known), else nothing."""
    vdevice = common_vdevice(*tensors)
    if all(t.shape is not None for t in tensors):
        shape = broadcast_shapes(ctx, [t.shape for t in tensors])
        if shape is not None:
            return si.TensorStructInfo(shape, dtype, vdevice=vdevice)
    if all(t.ndim >= 0 for t in tensors):
        return si.TensorStructInfo(None, dtype, max(t.ndim for t in tensors), vdevice)
    return si.TensorStructInfo(None, dtype, si.UNKNOWN_NDIM, vdevice)


def broadcast_values(check_rule: str, *arrays: np.ndarray) -> tuple[int, ...]:
    """The run-time broadcast shape of concrete arrays (EXEC-broadcast-1), or an
    OpRuntimeError of kind shape_mismatch."""
    return broadcast_runtime_shapes(check_rule, *(a.shape for a in arrays))


def broadcast_runtime_shapes(check_rule: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """``broadcast_values`` on the shapes alone (tuples of Python ints, as ``.shape``)."""
    # NumPy's rule, aligned from the right: on each axis the lengths other than 1 agree,
    # and the result has that length (1 if all are 1). Written out (np.broadcast_shapes
    # costs several microseconds, and this runs for every elementwise op): start from
    # the longest shape and merge the others into it axis by axis.
    longest = max(shapes, key=len)
    out = None
    for s in shapes:
        if s == longest:
            continue
        if out is None:
            out = list(longest)
        offset = len(out) - len(s)
        for i, n in enumerate(s):
            have = out[offset + i]
            if n != have:
                if have == 1:
                    out[offset + i] = n
                elif n != 1:
                    text = " and ".join(str(tuple(s)) for s in shapes)
                    raise OpRuntimeError("shape_mismatch", f"shapes {text} cannot "
                                         f"broadcast", rule=check_rule)
    return tuple(longest) if out is None else tuple(out)


# -- NumPy pieces of TIR's scalar semantics ---------------------------------------------------

def quiet(fn: Callable) -> Callable:
    """Run a NumPy computation without overflow/invalid/divide warnings: wrap-around,
    NaN and inf are the defined results of TIR arithmetic (EXEC rules say where a value
    is an error instead, and raise OpRuntimeError)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return run


def cast_value(value, dtype) -> np.ndarray:
    """A TIR ``Cast`` of NumPy values: floats to integers as ``numerics.float_to_int``
    (EXEC-tir-cast-2: truncation toward zero; NaN, infinities and values outside the
    target's range give x86's value), any other conversion NumPy's astype."""
    value = np.asarray(value)
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        if _is_float_dtype(value.dtype) and dtype.kind in "iu":
            return np.asarray(float_to_int(value, dtype))
        return value.astype(dtype)


def _is_float_dtype(dtype: np.dtype) -> bool:
    # ml_dtypes floats (bfloat16, float8_*) have kind "V"
    return dtype.kind == "f" or (dtype.kind == "V" and "float" in dtype.name)


def fresh(a: np.ndarray) -> np.ndarray:
    """A new, writable, C-contiguous array (results never alias their operands)."""
    return np.array(a, copy=True, order="C")


def working_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype NumPy computes a ``dtype`` result in: the dtype itself, except the
    ml_dtypes floats (bfloat16, float8; kind "V"), which have no NumPy matmul/einsum or
    arithmetic loops worth using and compute in float32 (rounded once at the end)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype.kind == "V" else dtype


def lowest_value(dtype: np.dtype):
    """TVM's ``min_value(dtype)``: the lowest finite value (the identity of max, max
    pooling's padding)."""
    return _limits(np.dtype(dtype)).min if np.dtype(dtype) != np.bool_ else False


def highest_value(dtype: np.dtype):
    """TVM's ``max_value(dtype)``: the highest finite value (the identity of min)."""
    return _limits(np.dtype(dtype)).max if np.dtype(dtype) != np.bool_ else True


def _limits(dtype: np.dtype):
    if dtype.kind in "iu":
        return np.iinfo(dtype)
    if dtype.kind == "f":
        return np.finfo(dtype)
    import ml_dtypes  # bfloat16, float8, int4: the ml_dtypes kinds ("V")

    try:
        return ml_dtypes.finfo(dtype)
    except ValueError:
        return ml_dtypes.iinfo(dtype)


# -- shared by the nn ops and their lowerings (nn.py, nn_lowering.py) ----------------------

# The canonical data and kernel layouts of a convolution, by number of spatial axes.
CONV_LAYOUTS = {1: ("NCW", "OIW"), 2: ("NCHW", "OIHW"), 3: ("NCDHW", "OIDHW")}


def layout_letters(layout: str) -> str:
    """A layout's axis letters without the split factors (``NCHW16c`` -> ``NCHWc``)."""
    return "".join(ch for ch in layout if not ch.isdigit())


def conv_accumulator(dtype: np.dtype) -> np.dtype:
    """EXEC-nn-conv-1: the dtype a convolution sums in: the output dtype, except floats
    narrower than 32 bits (float16, bfloat16, float8), which sum in float32 and are
    rounded once (NumPy's float16 einsum rounds at places of its own choosing; the
    lowering sums in float32 too, so the two agree within float32 rounding)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "V" or (dtype.kind == "f" and dtype.itemsize < 4):
        return np.dtype(np.float32)
    return working_dtype(dtype)
