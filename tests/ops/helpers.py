"""Helpers for op tests: build a call from TVMScript-like pieces, deduce its struct info,
run its NumPy semantics, and state the expectations every family checks (shapes,
failures citing a rule). The cross-checks against TVM use ``tvm_bridge.TvmBridge``."""
from __future__ import annotations

import math

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ir.prim_expr import IntImm, Var
from relax_ref.ops.common import OpRuntimeError
from relax_ref.ops.registry import canonicalize_call, deduce_call_sinfo, lookup
from relax_ref.errors import StructInfoError
from relax_ref.values import PrimScalar
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.simplify import expr_text


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


def tup(*fields) -> si.TupleStructInfo:
    return si.TupleStructInfo(tuple(fields))


# -- expectations on struct info -------------------------------------------------------------

def dims(s) -> tuple | None:
    """The shape of a TensorStructInfo as ints where constant, the PrimExpr otherwise."""
    if s.shape is None:
        return None
    return tuple(d.value if isinstance(d, IntImm) else d for d in s.shape)


def same_dims(s, expected) -> bool:
    """Every dimension provably equal to the expected int or PrimExpr."""
    analyzer = Analyzer()
    return s.shape is not None and len(s.shape) == len(expected) and all(
        analyzer.prove_equal(a, IntImm(b) if isinstance(b, int) else b)
        for a, b in zip(s.shape, expected))


def texts(s: si.TensorStructInfo) -> list[str] | None:
    return None if s.shape is None else [expr_text(d) for d in s.shape]


def assert_tensor(s, shape, dtype="float32", *, printed=None):
    """``s`` is a tensor of ``dtype`` whose shape provably equals ``shape`` (ints, Vars or
    PrimExprs); ``printed`` also pins the text of each dimension."""
    assert isinstance(s, si.TensorStructInfo), s
    assert str(s.dtype) == dtype
    assert s.shape is not None, f"expected shape {shape}, found ndim={s.ndim}"
    assert len(s.shape) == len(shape)
    analyzer = Analyzer()
    for got, want in zip(s.shape, shape):
        assert analyzer.prove_equal(got, want), f"{expr_text(got)} != {want}"
    if printed is not None:
        assert texts(s) == printed


def assert_ndim(s, ndim, dtype="float32"):
    assert isinstance(s, si.TensorStructInfo), s
    assert s.shape is None and s.ndim == ndim and str(s.dtype) == dtype


# -- expectations on failures ----------------------------------------------------------------

def fails(rule_id, op, *args, **kwargs):
    """Deducing ``R.<op>(...)`` fails citing ``rule_id``."""
    with pytest.raises(StructInfoError) as e:
        deduce(op, *args, **kwargs)
    assert e.value.rule == rule_id, str(e.value)


def raises_rule(rule: str):
    """Deduction fails citing ``rule`` (a context manager)."""
    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(StructInfoError)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            assert self.info.value.rule == rule, (self.info.value.rule, str(self.info.value))
            return handled
    return _Check()


def traps(kind: str, rule: str):
    """The NumPy semantics fails with the error kind ``kind`` citing ``rule`` (a context
    manager)."""
    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(OpRuntimeError)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            assert (self.info.value.check, self.info.value.rule) == (kind, rule)
            return handled
    return _Check()


# -- values ----------------------------------------------------------------------------------

def arange(*shape, dtype="float32") -> np.ndarray:
    return np.arange(math.prod(shape)).astype(dtype).reshape(shape)


def check_same(got: np.ndarray, want: np.ndarray):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


__all__ = ["tensor", "deduce", "compute", "sym", "tup", "dims", "same_dims", "texts",
           "assert_tensor", "assert_ndim", "fails", "raises_rule", "traps", "arange",
           "check_same", "PrimScalar", "np"]
