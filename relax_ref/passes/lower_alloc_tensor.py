"""LowerAllocTensor (TVM's name): each remaining ``R.builtin.alloc_tensor`` (those memory
planning did not place) becomes a storage of its own and a tensor at offset 0 in it
(spec/passes.md, PASS-lower-alloc-*).

    alloc = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype("float32"), 0, R.str("global"))
becomes
    storage = R.memory.alloc_storage(R.shape([4 * n * 8]), 0, R.str("global"), R.dtype("uint8"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([n, 8]), R.dtype("float32"), 0)
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import DataType, INT64, parse_dtype
from relax_ref.semantics.normalize import normalize

from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import Rewriter, finish

ALLOC_STORAGE = rx.Op("relax.memory.alloc_storage")
MEMORY_ALLOC_TENSOR = rx.Op("relax.memory.alloc_tensor")
UINT8 = parse_dtype("uint8")


def storage_bytes(dtype: DataType) -> int:
    """The bytes one element of ``dtype`` occupies (TVM's StorageBytes: whole bytes)."""
    return (dtype.bits * dtype.lanes + 7) // 8


def byte_size(dims, dtype: DataType) -> P.PrimExpr:
    """PASS-lower-alloc-2: the bytes of a tensor, written as TVM writes them: the element
    size times each dimension in order, left to right, folded only where both sides are
    constants or one is 0 or 1 (TVM's constant folding of ``*``)."""
    size: P.PrimExpr = P.IntImm(storage_bytes(dtype), INT64)
    for d in dims:
        size = _times(size, d)
    return size


def _times(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    ca = a.value if isinstance(a, P.IntImm) else None
    cb = b.value if isinstance(b, P.IntImm) else None
    if ca is not None and cb is not None:
        return P.IntImm(ca * cb, INT64)
    if ca == 1 or cb == 0:
        return b
    if cb == 1 or ca == 0:
        return a
    return P.Mul(a, b, INT64)


def _shape_values(shape: rx.Expr):
    if isinstance(shape, rx.ShapeExpr):
        return shape.values
    s = shape.struct_info
    return s.values if isinstance(s, si.ShapeStructInfo) else None


class _LowerAllocTensor(Rewriter):
    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        value = b.value
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name == "relax.builtin.alloc_tensor" and len(value.args) == 4):
            return super().binding(b)
        shape, dtype, device, scope = (self.expr(a) for a in value.args)
        dims = _shape_values(shape)
        if dims is None or not isinstance(dtype, rx.DataTypeImm) or dtype.value.is_void \
                or not isinstance(scope, rx.StringImm):
            return super().binding(b)  # PASS-lower-alloc-3: declines
        storage = rx.Var("storage", None, span=value.span)
        alloc = rx.Call(ALLOC_STORAGE, (rx.ShapeExpr((byte_size(dims, dtype.value),)), device,
                                        scope, rx.DataTypeImm(UINT8)), span=value.span)
        tensor = rx.Call(MEMORY_ALLOC_TENSOR, (storage, rx.PrimValue(P.IntImm(0, INT64)), shape,
                                               dtype, device), span=value.span)
        var = self.bind_var(b.var)
        new = rx.MatchCast(var, tensor, b.struct_info, span=b.span) \
            if isinstance(b, rx.MatchCast) else rx.VarBinding(var, tensor, span=b.span)
        return [rx.VarBinding(storage, alloc, span=value.span), new]


@register_pass("LowerAllocTensor", exact=True, fuzz_inputs=fuzz_inputs_for("LowerAllocTensor"))
def lower_alloc_tensor(mod: rx.IRModule) -> rx.IRModule:
    """PASS-lower-alloc-1..4: R.builtin.alloc_tensor becomes R.memory.alloc_storage of
    its byte size and R.memory.alloc_tensor at offset 0."""
    mod = normalize(mod)
    return finish(_LowerAllocTensor().module(mod))
