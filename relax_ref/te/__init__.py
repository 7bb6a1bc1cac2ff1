"""A small tensor-expression layer (spec/te.md): compute definitions written as PrimFuncs.

Legalizations (``ops/*``, ``OpDef.legalize``) are written in it; ``LegalizeOps``
(``passes/legalize_ops.py``) calls them. It depends on ``ir`` and ``solver`` only.
"""
from .tensor import (  # noqa: F401
    CommReducer, ComputeOp, Placeholder, Reduce, TEError, Tensor, all_of, any_of, call_intrin,
    cast, comm_reducer, compute, const, div, highest, if_then_else, index_expr, lowest, max, min,
    placeholder, prod, reduce_axis, select, sum,
)
from .prim_func import CreatedFunc, create_prim_func  # noqa: F401
