"""Helpers for op tests: build a call from TVMScript-like pieces, deduce its struct info,
and run its NumPy semantics."""
from __future__ import annotations

import numpy as np

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.prim_expr import IntImm, Var
from relax_ref.ops.registry import canonicalize_call, deduce_call_sinfo, lookup
from relax_ref.semantics.values import PrimScalar
from relax_ref.solver.analyzer import Analyzer


def tensor(shape, dtype="float32") -> si.TensorStructInfo:
    """Struct info of a tensor; ``shape`` items are ints, Vars or PrimExprs; None means
    unknown shape; an int means ndim only."""
    if shape is None:
        return si.TensorStructInfo(None, parse_dtype(dtype))
    if isinstance(shape, int):
        return si.TensorStructInfo(None, parse_dtype(dtype), shape)
    dims = tuple(IntImm(d) if isinstance(d, int) else d for d in shape)
    return si.TensorStructInfo(dims, parse_dtype(dtype))


def deduce(op_name: str, arg_sinfo: list, *, args=None, analyzer=None, sinfo_args=(), **attrs):
    """Canonicalize ``R.<op_name>(vars of arg_sinfo..., **attrs)`` and deduce it.
    ``args`` may give Relax expressions for some operands (e.g. a ShapeExpr)."""
    exprs = []
    for i, s in enumerate(arg_sinfo):
        if args is not None and i < len(args) and args[i] is not None:
            exprs.append(args[i])
        else:
            exprs.append(rx.Var(f"a{i}", s))
    call = rx.Call(rx.Op(f"relax.{op_name}"), tuple(exprs), rx.Attrs(tuple(attrs.items())),
                   tuple(sinfo_args))
    call = canonicalize_call(call)
    sinfos = [e.struct_info if isinstance(e, rx.Var) else _leaf_sinfo(e) for e in call.args]
    return deduce_call_sinfo(call, sinfos, analyzer or Analyzer())


def _leaf_sinfo(e):
    if isinstance(e, rx.ShapeExpr):
        return si.ShapeStructInfo(e.values)
    if isinstance(e, rx.PrimValue):
        return si.PrimStructInfo(e.value.dtype, e.value)
    if isinstance(e, rx.Tuple):
        return si.TupleStructInfo(tuple(_leaf_sinfo(f) for f in e.fields))
    if isinstance(e, rx.Var):
        return e.struct_info
    if isinstance(e, rx.StringImm):
        return si.ObjectStructInfo()
    if isinstance(e, rx.DataTypeImm):
        return si.ObjectStructInfo()
    raise TypeError(e)


def compute(op_name: str, *values, **attrs):
    """Run the NumPy semantics of ``R.<op_name>`` on runtime values with canonical attrs
    (defaults filled in by canonicalization of a call with placeholder operands)."""
    op = lookup(f"relax.{op_name}")
    placeholders = tuple(rx.Var(f"a{i}", None) for i in range(len(values)))
    call = canonicalize_call(rx.Call(rx.Op(f"relax.{op_name}"), placeholders,
                                     rx.Attrs(tuple(attrs.items()))))
    return op.compute(call.attrs, *values)


def sym(name: str) -> Var:
    return Var(name)


__all__ = ["tensor", "deduce", "compute", "sym", "PrimScalar", "np"]
