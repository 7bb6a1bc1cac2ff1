"""The ops the generator calls, drawn from the op registry instead of written by hand.

An op qualifies for a table when the registry says the generator can write a valid call
of it on any tensor it has: its operands are all required tensors and its attributes
all have defaults (the call is ``R.op(x)`` or ``R.op(x, y)``), it declares the element
types it computes on (``OpDef.dtypes``), it fails no check on integers when integers are
asked for (``OpDef.int_total``), and its deduction, asked about 0-d and 1-d operands of
the dtype, gives the struct info the generator will annotate: the operand's for
``same``, a bool tensor of its shape for ``bool``. Order is registration order, the
elementwise family first, so the first op of a table (the one a shrinker ends at) is
the simplest: ``negative``, ``add``, ``equal``.
"""
from __future__ import annotations

from functools import lru_cache

from relax_ref.errors import StructInfoError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, parse_dtype
from relax_ref.ops.registry import OpDef, all_ops, deduce_call_sinfo

_ADMITS = {"numeric": ("int", "float"), "float": ("float",), "int": ("int",),
           "bool": ("bool",)}


def _kind(dtype: str) -> str:
    dt = parse_dtype(dtype)
    return "float" if dt.is_float else "bool" if dt.is_bool else "int"


def _callable_plainly(op: OpDef, arity: int) -> bool:
    return (len(op.operands) == arity and not op.raw_call and not op.when_given
            and all(o.kind == "tensor" and o.required for o in op.operands)
            and not any(a.required for a in op.attrs))


def _deduces(op: OpDef, dtype: str, result: str) -> bool:
    attrs = rx.Attrs(tuple((a.name, a.default) for a in op.attrs))
    for ndim in (0, 1):
        shape = (P.IntImm(3, INT64),) * ndim
        sinfo = si.TensorStructInfo(shape, parse_dtype(dtype))
        args = tuple(rx.Var(f"x{i}", sinfo) for i in range(len(op.operands)))
        try:
            out = deduce_call_sinfo(rx.Call(rx.Op(op.name), args, attrs, ()),
                                    [sinfo] * len(args))
        except StructInfoError:
            return False
        want = sinfo if result == "same" else si.TensorStructInfo(shape, BOOL)
        if not (isinstance(out, si.TensorStructInfo) and out.dtype == want.dtype
                and out.shape is not None and len(out.shape) == ndim):
            return False
    return True


@lru_cache(maxsize=None)
def elementwise_ops(arity: int, dtype: str, result: str = "same") -> tuple[str, ...]:
    """The names after ``R.`` (``add``, ``nn.relu``) of the ops the generator may call
    with ``arity`` tensors of ``dtype`` and annotate with ``result``."""
    kind = _kind(dtype)
    out = []
    ops = list(all_ops().items())
    # elementwise arithmetic before activations: ``negative`` / ``add`` come first
    ops.sort(key=lambda item: item[1].family != "elementwise")
    for name, op in ops:
        if not op.dtypes or kind not in _ADMITS[op.dtypes]:
            continue
        if kind == "int" and not op.int_total:
            continue
        if _callable_plainly(op, arity) and _deduces(op, dtype, result):
            out.append(name[len("relax."):])
    return tuple(out)


__all__ = ["elementwise_ops"]
