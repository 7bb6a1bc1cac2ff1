"""Linear algebra: ``matmul``, ``einsum``, ``outer`` (spec/ops/linalg.md).

``relax.linear`` is not an op in TVM 0.27: ``R.linear`` is a Python helper that emits
``permute_dims`` + ``matmul`` (+ ``add``), so it has no entry here.

Each op's struct-info rule and NumPy semantics sit side by side. Products accumulate in
the result dtype, as TVM's legalized ``matmul`` does (each operand element is converted
to ``out_dtype`` first when one is given); integer products wrap around.
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.numpy_dtype import numpy_dtype

from .common import (
    OpRuntimeError, broadcast_runtime_shapes, broadcast_shapes, common_dtype, common_vdevice,
    describe_sinfo, expr_text, provably_ne, tensor_arg, working_dtype,
)
from .registry import Attr, DeduceContext, OpDef, Operand, register, to_dtype, to_str

FAMILY = "linalg"


# -- matmul ------------------------------------------------------------------------------------

def deduce_matmul(ctx: DeduceContext) -> si.StructInfo:
    """SI-linalg-matmul-1..4 (NumPy / array-API matmul).

    1. dtype: ``out_dtype`` when given, else the operands' common dtype (SI-op-dtype-1).
    2. Neither operand may be 0-d.
    3. A 1-d left operand is a row (its dimension removed from the result), a 1-d right
       operand a column; the batch dimensions broadcast (SI-broadcast-*).
    4. The reduction dimensions (``x1.shape[-1]``, ``x2.shape[-2]`` or ``x2.shape[0]``
       when 1-d) must not be provably different; when they are not provably equal the
       run-time check decides (EXEC-linalg-matmul-2)."""
    x1, x2 = tensor_arg(ctx, 0), tensor_arg(ctx, 1)
    out_dtype = ctx.attr("out_dtype")
    dtype = out_dtype if not out_dtype.is_void else common_dtype(ctx, x1.dtype, x2.dtype)
    vdevice = common_vdevice(x1, x2)
    if x1.ndim < 0 or x2.ndim < 0:
        return si.TensorStructInfo(None, dtype, si.UNKNOWN_NDIM, vdevice)
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim == 0:
            raise ctx.error(f"operand {name} must not be 0-d, but its struct info is "
                            f"{describe_sinfo(x)}", rule="SI-linalg-matmul-2")
    prepended, appended = x1.ndim == 1, x2.ndim == 1
    out_ndim = max(x1.ndim + prepended, x2.ndim + appended) - prepended - appended
    if x1.shape is None or x2.shape is None:
        # A 0-d result (two 1-d operands) has the shape () whatever the lengths.
        shape = () if out_ndim == 0 else None
        return si.TensorStructInfo(shape, dtype, out_ndim, vdevice)
    k1 = x1.shape[-1]
    k2 = x2.shape[0] if appended else x2.shape[-2]
    if provably_ne(ctx, k1, k2):
        raise ctx.error(f"the reduction dimensions differ: {expr_text(k1)} (x1.shape[-1]) "
                        f"against {expr_text(k2)} (x2.shape[{0 if appended else -2}])",
                        rule="SI-linalg-matmul-4")
    batch1 = () if prepended else x1.shape[:-2]
    batch2 = () if appended else x2.shape[:-2]
    batch = broadcast_shapes(ctx, [batch1, batch2])
    if batch is None:
        return si.TensorStructInfo(None, dtype, out_ndim, vdevice)
    rows = () if prepended else (x1.shape[-2],)
    cols = () if appended else (x2.shape[-1],)
    return si.TensorStructInfo(tuple(batch) + rows + cols, dtype, vdevice=vdevice)


def _matmul(attrs, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """EXEC-linalg-matmul-1..3: dtypes agree unless ``out_dtype`` is given; the reduction
    lengths are equal; the batch dimensions broadcast. Each element is converted to the
    result dtype, then multiplied and summed in that dtype."""
    out_dtype = attrs.get("out_dtype")
    if out_dtype.is_void:
        if a.dtype != b.dtype:
            raise OpRuntimeError("invalid_value", f"operand dtypes differ ({a.dtype} and "
                                 f"{b.dtype}) and no out_dtype is given",
                                 rule="EXEC-linalg-matmul-1")
        result = a.dtype
    else:
        result = numpy_dtype(out_dtype)
    if a.ndim == 0 or b.ndim == 0:
        raise OpRuntimeError("shape_mismatch", "matmul operands must not be 0-d",
                             rule="EXEC-linalg-matmul-2")
    k1 = a.shape[-1]
    k2 = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k1 != k2:
        raise OpRuntimeError("shape_mismatch", f"the reduction dimensions differ: {k1} "
                             f"against {k2} (shapes {a.shape} and {b.shape})",
                             rule="EXEC-linalg-matmul-2")
    if a.ndim > 2 or b.ndim > 2:
        broadcast_runtime_shapes("EXEC-broadcast-1", a.shape[:-2] if a.ndim > 1 else (),
                                 b.shape[:-2] if b.ndim > 1 else ())
    with np.errstate(all="ignore"):
        if a.dtype == result and b.dtype == result and result.kind != "V":
            return np.asarray(np.matmul(a, b))  # the usual case: nothing to convert
        return _in_computable_dtype(np.matmul, result, a, b)


def _in_computable_dtype(fn, result: np.dtype, *arrays: np.ndarray) -> np.ndarray:
    """Apply ``fn`` to the arrays converted to ``result``, computing in
    ``working_dtype(result)`` and rounding once to ``result``."""
    work = working_dtype(result)
    out = fn(*(x.astype(result, copy=False).astype(work, copy=False) for x in arrays))
    return np.asarray(out).astype(result, copy=False)


# -- einsum ------------------------------------------------------------------------------------

ELLIPSIS = "..."


def parse_einsum(subscripts: str, n_operands: int) -> tuple[list[list[str]], list[str]]:
    """Split ``"ij,jk->ik"`` into the labels of each input and of the output (each label
    a letter or ``...``); the implicit output (no ``->``) is the labels used once, in
    alphabetical order, after ``...`` if any input has one (NumPy's rule). ValueError
    says what is wrong."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != n_operands:
        raise ValueError(f"subscripts {subscripts!r} name {len(terms)} operands, "
                         f"found {n_operands}")
    inputs = [_labels(t, subscripts) for t in terms]
    if arrow:
        output = _labels(rhs, subscripts)
        letters = [l for l in output if l != ELLIPSIS]
        if len(set(letters)) != len(letters):
            raise ValueError(f"output subscripts of {subscripts!r} repeat a label")
        used = {l for term in inputs for l in term}
        for l in output:
            if l not in used:
                raise ValueError(f"output label {l!r} of {subscripts!r} names no input "
                                 f"dimension")
    else:
        counts: dict[str, int] = {}
        for term in inputs:
            for l in term:
                if l != ELLIPSIS:
                    counts[l] = counts.get(l, 0) + 1
        output = ([ELLIPSIS] if any(ELLIPSIS in t for t in inputs) else []) + \
            sorted(l for l, c in counts.items() if c == 1)
    return inputs, output


def _labels(term: str, subscripts: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(term):
        if term.startswith(ELLIPSIS, i):
            if ELLIPSIS in out:
                raise ValueError(f"a term of {subscripts!r} has two ellipses")
            out.append(ELLIPSIS)
            i += 3
        elif term[i].isalpha():
            out.append(term[i])
            i += 1
        else:
            raise ValueError(f"subscripts {subscripts!r} contain {term[i]!r}; labels are "
                             f"letters and '...'")
    return out


def deduce_einsum(ctx: DeduceContext) -> si.StructInfo:
    """SI-linalg-einsum-1..4.

    1. The operand is a non-empty tuple of tensors with a common dtype.
    2. The subscripts parse and name one term per tensor (``parse_einsum``); a tensor of
       known ndim has one dimension per letter (at least that many with ``...``).
    3. The result has one dimension per output letter, plus the broadcast ``...``
       dimensions; its ndim is known when every tensor with ``...`` has a known ndim.
    4. The dimensions bearing one letter broadcast against each other, as do the
       ``...`` dimensions (SI-broadcast-*); where that is undecidable the result keeps
       only its ndim."""
    tup = ctx.arg_sinfo[0]
    if isinstance(tup, si.ObjectStructInfo):
        return si.TensorStructInfo()
    if not isinstance(tup, si.TupleStructInfo):
        raise ctx.error(f"operands must be a tuple of tensors, but their struct info is "
                        f"{describe_sinfo(tup)}", rule="SI-linalg-einsum-1")
    tensors = []
    for i, f in enumerate(tup.fields):
        if isinstance(f, si.ObjectStructInfo):
            f = si.TensorStructInfo()
        if not isinstance(f, si.TensorStructInfo):
            raise ctx.error(f"operand {i} must be a tensor, but its struct info is "
                            f"{describe_sinfo(f)}", rule="SI-linalg-einsum-1")
        tensors.append(f)
    if not tensors:
        raise ctx.error("needs at least one tensor", rule="SI-linalg-einsum-1")
    dtype = common_dtype(ctx, *(t.dtype for t in tensors))
    vdevice = common_vdevice(*tensors)
    try:
        inputs, output = parse_einsum(ctx.attr("subscripts"), len(tensors))
    except ValueError as err:
        raise ctx.error(str(err), rule="SI-linalg-einsum-2") from None
    ellipsis_ndims: list[int] = []
    for i, (t, labels) in enumerate(zip(tensors, inputs)):
        letters = len(labels) - (ELLIPSIS in labels)
        if t.ndim < 0:
            if ELLIPSIS in labels:
                ellipsis_ndims.append(-1)
            continue
        if (ELLIPSIS in labels and t.ndim < letters) or \
                (ELLIPSIS not in labels and t.ndim != letters):
            raise ctx.error(f"operand {i} has {t.ndim} dimensions but its subscripts "
                            f"{''.join(labels)!r} name {letters}", rule="SI-linalg-einsum-2")
        if ELLIPSIS in labels:
            ellipsis_ndims.append(t.ndim - letters)
    out_letters = [l for l in output if l != ELLIPSIS]
    if ELLIPSIS in output:
        if any(n < 0 for n in ellipsis_ndims):
            return si.TensorStructInfo(None, dtype, si.UNKNOWN_NDIM, vdevice)
        out_ndim = len(out_letters) + max(ellipsis_ndims, default=0)
    else:
        out_ndim = len(out_letters)
    if any(t.shape is None for t in tensors):
        return si.TensorStructInfo(None, dtype, out_ndim, vdevice)
    shape = _einsum_shape(ctx, tensors, inputs, output)
    if shape is None:
        return si.TensorStructInfo(None, dtype, out_ndim, vdevice)
    return si.TensorStructInfo(shape, dtype, vdevice=vdevice)


def _einsum_shape(ctx: DeduceContext, tensors, inputs, output):
    dims: dict[str, list[P.PrimExpr]] = {}
    ellipses: list[tuple[P.PrimExpr, ...]] = []
    for t, labels in zip(tensors, inputs):
        if ELLIPSIS in labels:
            pos = labels.index(ELLIPSIS)
            after = len(labels) - pos - 1
            ellipses.append(t.shape[pos:len(t.shape) - after])
            picked = list(t.shape[:pos]) + list(t.shape[len(t.shape) - after:])
            letters = labels[:pos] + labels[pos + 1:]
        else:
            picked, letters = list(t.shape), labels
        for l, d in zip(letters, picked):
            dims.setdefault(l, []).append(d)
    merged: dict[str, P.PrimExpr] = {}
    for l, ds in dims.items():
        try:
            shape = broadcast_shapes(ctx, [(d,) for d in ds])
        except Exception as err:
            raise ctx.error(f"label {l!r}: {getattr(err, 'message', err)}",
                            rule="SI-linalg-einsum-4") from None
        if shape is None:
            return None
        merged[l] = shape[0]
    ell: tuple[P.PrimExpr, ...] = ()
    if ellipses:
        ell = broadcast_shapes(ctx, ellipses)
        if ell is None:
            return None
    out: list[P.PrimExpr] = []
    for l in output:
        out.extend(ell if l == ELLIPSIS else (merged[l],))
    return tuple(out)


def _einsum(attrs, operands: tuple) -> np.ndarray:
    """EXEC-linalg-einsum-1: NumPy's einsum (labels broadcast) in the operands' dtype."""
    arrays = list(operands)
    if not arrays or any(not isinstance(a, np.ndarray) for a in arrays):
        raise OpRuntimeError("invalid_value", "einsum needs a non-empty tuple of tensors",
                             rule="EXEC-linalg-einsum-1")
    if any(a.dtype != arrays[0].dtype for a in arrays):
        raise OpRuntimeError("invalid_value", "einsum operands have different dtypes",
                             rule="EXEC-linalg-einsum-1")
    subscripts = attrs.get("subscripts")
    try:
        parse_einsum(subscripts, len(arrays))
        with np.errstate(all="ignore"):
            return _in_computable_dtype(lambda *xs: np.einsum(subscripts, *xs),
                                        arrays[0].dtype, *arrays)
    except ValueError as err:
        raise OpRuntimeError("shape_mismatch", f"einsum {subscripts!r}: {err}",
                             rule="EXEC-linalg-einsum-1") from None


# -- outer -------------------------------------------------------------------------------------

def deduce_outer(ctx: DeduceContext) -> si.StructInfo:
    """SI-linalg-outer-1: two 1-d tensors of a common dtype give ``(len(x1), len(x2))``."""
    x1, x2 = tensor_arg(ctx, 0), tensor_arg(ctx, 1)
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim >= 0 and x.ndim != 1:
            raise ctx.error(f"operand {name} must be 1-d, found {x.ndim} dimensions",
                            rule="SI-linalg-outer-1")
    dtype = common_dtype(ctx, x1.dtype, x2.dtype)
    vdevice = common_vdevice(x1, x2)
    if x1.shape is None or x2.shape is None:
        return si.TensorStructInfo(None, dtype, 2, vdevice)
    return si.TensorStructInfo((x1.shape[0], x2.shape[0]), dtype, vdevice=vdevice)


def _outer(attrs, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """EXEC-linalg-outer-1: both operands 1-d; ``out[i, j] = a[i] * b[j]``."""
    if a.ndim != 1 or b.ndim != 1:
        raise OpRuntimeError("shape_mismatch", f"outer needs 1-d operands, found shapes "
                             f"{a.shape} and {b.shape}", rule="EXEC-linalg-outer-1")
    if a.dtype != b.dtype:
        raise OpRuntimeError("invalid_value", f"operand dtypes differ ({a.dtype} and "
                             f"{b.dtype})", rule="EXEC-linalg-outer-1")
    with np.errstate(all="ignore"):
        return _in_computable_dtype(np.multiply.outer, a.dtype, a, b)


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    register(OpDef("relax.matmul", (Operand("x1"), Operand("x2")),
                   (Attr("out_dtype", None, to_dtype),), deduce=deduce_matmul,
                   compute=_matmul, family=FAMILY, spec_rule="SI-linalg-matmul-1"))
    register(OpDef("relax.einsum", (Operand("operands", "tuple"),),
                   (Attr("subscripts", convert=to_str),), deduce=deduce_einsum,
                   compute=_einsum, family=FAMILY, spec_rule="SI-linalg-einsum-1"))
    register(OpDef("relax.outer", (Operand("x1"), Operand("x2")), deduce=deduce_outer,
                   compute=_outer, family=FAMILY, spec_rule="SI-linalg-outer-1"))


_register_all()
