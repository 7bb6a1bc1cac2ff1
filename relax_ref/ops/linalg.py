"""Linear algebra: ``matmul``, ``einsum``, ``outer`` (spec/ops/linalg.md).

``relax.linear`` is not an op in TVM 0.27: ``R.linear`` is a Python helper that emits
``permute_dims`` + ``matmul`` (+ ``add``), so it has no entry here.

Each op's struct-info rule, NumPy semantics and lowering (LegalizeOps) sit side by side.
Products accumulate in the result dtype, as TVM's legalized ``matmul`` does (each operand
element is converted to ``out_dtype`` first when one is given); integer products wrap
around. The narrow floats (float16, bfloat16, float8...) accumulate in float64 and round
once (EXEC-linalg-matmul-3), so that the sum does not depend on the order of its terms.
"""
from __future__ import annotations

import numpy as np

from relax_ref import te
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, FLOAT64, DataType
from relax_ref.ir.equal import structural_equal
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
        if a.dtype == result and b.dtype == result and _accumulation_np(result) == result:
            return np.asarray(np.matmul(a, b))  # the usual case: nothing to convert
        return _in_computable_dtype(np.matmul, result, a, b)


def _accumulation_np(result: np.dtype) -> np.dtype:
    """EXEC-linalg-matmul-3: the dtype sums of products are computed in: float64 for
    the narrow floats (float16 and the ml_dtypes floats, kind "V"), else the result's."""
    result = np.dtype(result)
    if result == np.float16 or result.kind == "V":
        return np.dtype(np.float64)
    return working_dtype(result)


def _in_computable_dtype(fn, result: np.dtype, *arrays: np.ndarray) -> np.ndarray:
    """Apply ``fn`` to the arrays converted to ``result``, computing in
    ``_accumulation_np(result)`` and rounding once to ``result``."""
    work = _accumulation_np(result)
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


# -- lowering (spec/ops/linalg.md "Lowering") ----------------------------------------------------
# Names follow TVM's TOPI: matmul computes "matmul" over loops i0, i1, ... and k.

def accumulation_dtype(dt: DataType) -> DataType:
    """The TIR type of a sum of products with a result of ``dt`` (EXEC-linalg-matmul-3,
    the TIR twin of ``_accumulation_np``): float64 for the narrow floats."""
    if dt.is_float and (dt.bits < 32 or dt.code != "float"):
        return FLOAT64
    return dt


def _is_one(d: P.PrimExpr) -> bool:
    return isinstance(d, P.IntImm) and d.value == 1


def _same(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def broadcast_index(dims, out_dims, idx, what: str, ctx) -> list:
    """The index into ``dims`` (aligned at the right with ``out_dims``) of the element
    broadcast to ``idx``: a dimension literally 1 is read at 0, one structurally equal
    to the result's at the result's index; anything else is undecided at compile time,
    so the call stays (TE-leg-3)."""
    lead = len(out_dims) - len(dims)
    index = []
    for d, dim in enumerate(dims):
        if _is_one(dim):
            index.append(0)
        elif _same(dim, out_dims[lead + d]):
            index.append(idx[lead + d])
        else:
            raise ctx.decline(f"cannot tell at compile time whether {what} broadcasts")
    return index


def rounded_sum(name: str, out_shape, dtype: DataType, formula, reduce_axes):
    """``out[idx] = sum over reduce_axes of formula(idx)`` in ``accumulation_dtype``
    (the formula's type), rounded once to ``dtype``. One stage ``<name>`` where it can
    be; a summing stage ``<name>_sum`` and a rounding stage ``<name>`` for the narrow
    floats, and where a reduction extent may be 0: a reduction block whose loops run
    no iteration never runs its ``T.init``, so the rounding stage gives 0 there
    (TE-leg-linalg-4)."""
    acc = accumulation_dtype(dtype)
    if not reduce_axes:
        return te.compute(out_shape, lambda *i: te.cast(dtype, formula(i)), name=name)
    extents = [ax.dom.extent for ax in reduce_axes]
    maybe_empty = [e for e in extents if not (isinstance(e, P.IntImm) and e.value > 0)]
    if acc == dtype and not maybe_empty:
        return te.compute(out_shape, lambda *i: te.sum(formula(i), axis=reduce_axes),
                          name=name)
    total = te.compute(out_shape, lambda *i: te.sum(formula(i), axis=reduce_axes),
                       name=f"{name}_sum")
    nonempty = te.all_of(*(P.GT(e, P.IntImm(0, e.dtype), BOOL) for e in maybe_empty))

    def rounded(*i):
        value = te.cast(dtype, total[i])
        return te.if_then_else(nonempty, value, te.const(0, dtype)) if maybe_empty else value
    return te.compute(out_shape, rounded, name=name)


def _legalize_matmul(ctx):
    """TE-leg-linalg-1: ``matmul[b..., i, j] = sum_k x1[b1..., i, k] * x2[b2..., k, j]``
    over the broadcast batch (a batch dimension of 1 read at 0, TE-leg-3), each element
    converted to the result dtype first, summed in ``accumulation_dtype``. The second
    operand's reduction dimension is written as the first's, so lengths that differ at
    run time fail the PrimFunc's argument binding (``shape_mismatch``, as
    EXEC-linalg-matmul-2)."""
    out_shape = ctx.result_shape()
    dtype = ctx.result_sinfo.dtype
    if dtype.is_bool:
        raise ctx.decline("a bool matmul is a logical or of ands, not a sum")
    a = ctx.tensor(0)
    sb = ctx.arg_sinfo[1]
    if not isinstance(sb, si.TensorStructInfo) or sb.shape is None or sb.dtype.is_void:
        raise ctx.decline("operand 1 has no known shape and dtype")
    if a.ndim == 0 or len(sb.shape) == 0:
        raise ctx.decline("a 0-d operand (the op traps)")
    kb = 0 if len(sb.shape) == 1 else len(sb.shape) - 2
    k_len = a.shape[-1]
    if isinstance(sb.shape[kb], P.IntImm) and not isinstance(k_len, P.IntImm):
        k_len = sb.shape[kb]  # a constant extent where there is one
        a = _reshaped_placeholder(ctx, 0, a.shape[:-1] + (k_len,))
    b_shape = tuple(sb.shape[:kb]) + (k_len,) + tuple(sb.shape[kb + 1:])
    b = ctx.placeholder(ctx.args[1], b_shape, sb.dtype)
    rows, cols = a.ndim >= 2, b.ndim >= 2
    nbatch = len(out_shape) - rows - cols
    batch_shape = out_shape[:nbatch]
    k = te.reduce_axis(k_len, "k")
    a_batch = a.shape[:-2] if rows else ()
    b_batch = b.shape[:-2] if cols else ()

    wa, wb = widened(a, dtype), widened(b, dtype)

    def formula(idx):
        bi = idx[:nbatch]
        ai = broadcast_index(a_batch, batch_shape, bi, a.name, ctx) + \
            ([idx[nbatch]] if rows else []) + [k]
        bj = broadcast_index(b_batch, batch_shape, bi, b.name, ctx) + [k] + \
            ([idx[-1]] if cols else [])
        return wa(tuple(ai)) * wb(tuple(bj))

    out = rounded_sum("matmul", out_shape, dtype, formula, [k])
    return ctx.call_te(out, "matmul")


def widened(t, dtype: DataType):
    """``t``'s elements converted to ``dtype`` and then to ``accumulation_dtype(dtype)``,
    as a function of the index. A float conversion is a stage of its own
    (``<name>_<type>``), so that the sum's update is a product of two loads of its own
    type and runs as a contraction (EXEC-tir-vec-7); an integer one stays inline."""
    acc = accumulation_dtype(dtype)
    if t.dtype == acc:
        return lambda idx: t[idx]
    if not acc.is_float:
        return lambda idx: te.cast(acc, te.cast(dtype, t[idx]))
    wide = te.compute(t.shape, lambda *i: te.cast(acc, te.cast(dtype, t[i])),
                      name=f"{t.name}_{acc}")
    return lambda idx: wide[idx]


def _reshaped_placeholder(ctx, i: int, shape):
    """Operand ``i`` as a placeholder of ``shape`` (equal to its own where both are
    known; where not, the PrimFunc's argument binding checks it at run time)."""
    s = ctx.arg_sinfo[i]
    return ctx.placeholder(ctx.args[i], shape, s.dtype)


def _legalize_einsum(ctx):
    """TE-leg-linalg-2: one stage ``T_einsum`` over the output labels (and the ``...``
    dimensions), the product of the operands summed over the other labels in
    ``accumulation_dtype`` (a repeated label reads a diagonal). Declines where NumPy's
    einsum traps or the broadcast is undecided: a repeated label of one operand on
    dimensions not structurally equal, an ellipsis of nonzero rank missing from the
    output, a label's dimensions neither 1 nor structurally equal."""
    out_shape = ctx.result_shape()
    tensors = ctx.tuple_tensors(0)
    dtype = tensors[0].dtype
    if dtype.is_bool:
        raise ctx.decline("a bool einsum is a logical or of ands, not a sum")
    inputs, output = parse_einsum(ctx.attr("subscripts"), len(tensors))
    ell_rank = len(out_shape) - (len(output) - 1) if ELLIPSIS in output else 0
    # Each operand dimension's key: its letter, or ("...", position in the output's ...).
    keys: list[list] = []
    for t, labels in zip(tensors, inputs):
        row: list = []
        for lab in labels:
            if lab != ELLIPSIS:
                row.append(lab)
                continue
            rank = t.ndim - (len(labels) - 1)
            if rank > ell_rank:
                raise ctx.decline("an ellipsis with dimensions the output does not have")
            row.extend((ELLIPSIS, ell_rank - rank + p) for p in range(rank))
        keys.append(row)
    extent: dict = {}
    pos = 0
    for lab in output:
        if lab == ELLIPSIS:
            for p in range(ell_rank):
                extent[(ELLIPSIS, p)] = out_shape[pos + p]
            pos += ell_rank
        else:
            extent[lab] = out_shape[pos]
            pos += 1
    summed: dict = {}  # the other labels' extents: a dimension not 1 if there is one
    for t, row in zip(tensors, keys):
        for key, dim in zip(row, t.shape):
            if key not in extent and (key not in summed or _is_one(summed[key])):
                summed[key] = dim
    for t, row in zip(tensors, keys):
        for key, dim in zip(row, t.shape):
            whole = extent[key] if key in extent else summed[key]
            if not (_is_one(dim) or _same(dim, whole)):
                raise ctx.decline(f"label {key!r}: dimensions not decided equal")
        for key in set(k for k in row if row.count(k) > 1):
            dims = [d for k2, d in zip(row, t.shape) if k2 == key]
            if not all(_same(d, dims[0]) for d in dims):
                raise ctx.decline(f"label {key!r} repeated on unequal dimensions")
    axes = {key: te.reduce_axis(dim, key if isinstance(key, str) else f"e{key[1]}")
            for key, dim in summed.items()}
    operands = [widened(t, dtype) for t in tensors]

    def formula(idx):
        where = {}
        pos = 0
        for lab in output:
            if lab == ELLIPSIS:
                for p in range(ell_rank):
                    where[(ELLIPSIS, p)] = idx[pos + p]
                pos += ell_rank
            else:
                where[lab] = idx[pos]
                pos += 1
        where.update(axes)
        product = None
        for t, w, row in zip(tensors, operands, keys):
            index = tuple(0 if _is_one(dim) else where[key] for key, dim in zip(row, t.shape))
            v = w(index)
            product = v if product is None else product * v
        return product

    out = rounded_sum("T_einsum", out_shape, dtype, formula, list(axes.values()))
    return ctx.call_te(out, "einsum")


def _legalize_outer(ctx):
    """TE-leg-linalg-3: ``T_outer[i, j] = x1[i] * x2[j]`` in the operands' dtype (one
    rounding, as EXEC-linalg-outer-1's product computed wider and rounded once)."""
    a, b = ctx.tensor(0), ctx.tensor(1)
    if a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype:
        raise ctx.decline("not two 1-d operands of one dtype (the op traps)")
    if a.dtype.is_bool:
        raise ctx.decline("a bool product has no TIR multiplication")
    out = te.compute((a.shape[0], b.shape[0]), lambda i, j: a[i] * b[j], name="T_outer")
    return ctx.call_te(out, "outer")


# -- registration ------------------------------------------------------------------------------

def _register_all() -> None:
    register(OpDef("relax.matmul", (Operand("x1"), Operand("x2")),
                   (Attr("out_dtype", None, to_dtype),), deduce=deduce_matmul,
                   compute=_matmul, family=FAMILY, spec_rule="SI-linalg-matmul-1",
                   legalize=_legalize_matmul))
    register(OpDef("relax.einsum", (Operand("operands", "tuple"),),
                   (Attr("subscripts", convert=to_str),), deduce=deduce_einsum,
                   compute=_einsum, family=FAMILY, spec_rule="SI-linalg-einsum-1",
                   legalize=_legalize_einsum))
    register(OpDef("relax.outer", (Operand("x1"), Operand("x2")), deduce=deduce_outer,
                   compute=_outer, family=FAMILY, spec_rule="SI-linalg-outer-1",
                   legalize=_legalize_outer))


_register_all()
