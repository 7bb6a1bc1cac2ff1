"""Relations between struct infos (spec/struct_info.md, sections "Subtyping", "Join",
"Erasure" and "Calls of functions"):

- ``base_check(base, derived)``: may a value of ``derived`` flow where ``base`` is
  expected? PASS (always), RUNTIME (only a run-time check can tell), FAIL (never);
- ``join(a, b)``: the finest struct info covering both (after ``if``);
- ``erase(s, defined)``: forget symbolic expressions that use variables not defined in
  scope (what a function's caller may know of its result);
- ``bind_symbolic(params, args)`` and ``substitute``: deriving a call's result from the
  callee's signature (paper Fig. 7 and 8).

Symbolic questions go to the analyzer; an unproved equality is never assumed.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Iterable

from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import VOID
from relax_ref.solver.expr_utils import structural_key
from relax_ref.solver.simplify import substitute as substitute_prim


class Check(IntEnum):
    """Outcome of a base check, ordered from worst to best."""

    FAIL = 0      # a value of the derived info can never satisfy the base (SI-sub-2)
    RUNTIME = 1   # some can: only a run-time check decides (SI-sub-3)
    PASS = 2      # every value of the derived info satisfies the base (SI-sub-1)


def base_check(base: si.StructInfo, derived: si.StructInfo, analyzer) -> Check:
    """How ``derived`` relates to ``base`` (SI-sub-1..3)."""
    if isinstance(base, si.ObjectStructInfo):
        return Check.PASS
    if isinstance(derived, si.ObjectStructInfo):
        return Check.RUNTIME
    if type(base) is not type(derived):
        return Check.FAIL
    if isinstance(base, si.PrimStructInfo):
        if base.dtype != derived.dtype:
            return Check.FAIL
        if base.value is None:
            return Check.PASS
        if derived.value is None:
            return Check.RUNTIME
        if _same_prim_value(base.value, derived.value):
            return Check.PASS
        return _dims_check((base.value,), (derived.value,), analyzer)
    if isinstance(base, si.ShapeStructInfo):
        result = _ndim_check(base.ndim, derived.ndim)
        if result is Check.FAIL or base.values is None:
            return result
        if derived.values is None:
            return Check.RUNTIME
        return min(result, _dims_check(base.values, derived.values, analyzer))
    if isinstance(base, si.TensorStructInfo):
        result = Check.PASS
        if not base.dtype.is_void:
            if derived.dtype.is_void:
                result = Check.RUNTIME
            elif base.dtype != derived.dtype:
                return Check.FAIL
        if base.vdevice is not None and derived.vdevice is not None \
                and base.vdevice != derived.vdevice:
            return Check.FAIL
        result = min(result, _ndim_check(base.ndim, derived.ndim))
        if result is Check.FAIL or base.shape is None:
            return result
        if derived.shape is None:
            return Check.RUNTIME
        return min(result, _dims_check(base.shape, derived.shape, analyzer))
    if isinstance(base, si.TupleStructInfo):
        if len(base.fields) != len(derived.fields):
            return Check.FAIL
        result = Check.PASS
        for b, d in zip(base.fields, derived.fields):
            result = min(result, base_check(b, d, analyzer))
            if result is Check.FAIL:
                return result
        return result
    if isinstance(base, si.FuncStructInfo):
        if base.purity and not derived.purity:
            return Check.FAIL
        if base.params is None:
            return min(Check.PASS, base_check(base.ret, derived.ret, analyzer))
        if derived.params is None:
            return Check.RUNTIME
        if len(base.params) != len(derived.params):
            return Check.FAIL
        result = base_check(base.ret, derived.ret, analyzer)
        for b, d in zip(base.params, derived.params):
            # Parameters are contravariant.
            result = min(result, base_check(d, b, analyzer))
        return result
    return Check.FAIL


def _same_prim_value(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """The same written value (SI-sub-1): structural identity, which holds for float
    values too (``T.float32(0.5)`` twice), where the analyzer proves integer facts only."""
    return a is b or structural_key(a) == structural_key(b)


def _ndim_check(base: int, derived: int) -> Check:
    if base == si.UNKNOWN_NDIM:
        return Check.PASS
    if derived == si.UNKNOWN_NDIM:
        return Check.RUNTIME
    return Check.PASS if base == derived else Check.FAIL


def _dims_check(base: Iterable[P.PrimExpr], derived: Iterable[P.PrimExpr], analyzer) -> Check:
    base, derived = tuple(base), tuple(derived)
    if len(base) != len(derived):
        return Check.FAIL
    result = Check.PASS
    for b, d in zip(base, derived):
        if b is d or analyzer.prove_equal(b, d):
            continue
        if analyzer.prove_not_equal(b, d):
            return Check.FAIL
        result = Check.RUNTIME
    return result


# -- join (SI-join-1..4) -------------------------------------------------------------------------

def join(a: si.StructInfo, b: si.StructInfo, analyzer) -> si.StructInfo:
    """The finest struct info that both ``a`` and ``b`` are derived from: what is known
    of a value that is either (SI-join-1). Known facts common to both are kept: equal
    dtypes, equal ndims, dimensions provably equal (SI-join-2), Prim values provably
    equal (SI-join-3)."""
    if isinstance(a, si.ObjectStructInfo) or isinstance(b, si.ObjectStructInfo):
        return si.ObjectStructInfo()
    if type(a) is not type(b):
        return si.ObjectStructInfo()
    if isinstance(a, si.PrimStructInfo):
        if a.dtype != b.dtype:
            return si.ObjectStructInfo()
        value = a.value if (a.value is not None and b.value is not None
                            and (_same_prim_value(a.value, b.value)
                                 or analyzer.prove_equal(a.value, b.value))) \
            else None
        return si.PrimStructInfo(a.dtype, value)
    if isinstance(a, si.ShapeStructInfo):
        ndim = a.ndim if a.ndim == b.ndim else si.UNKNOWN_NDIM
        values = _join_dims(a.values, b.values, analyzer)
        return si.ShapeStructInfo(values, ndim)
    if isinstance(a, si.TensorStructInfo):
        dtype = a.dtype if a.dtype == b.dtype else VOID
        ndim = a.ndim if a.ndim == b.ndim else si.UNKNOWN_NDIM
        vdevice = a.vdevice if a.vdevice == b.vdevice else None
        shape = _join_dims(a.shape, b.shape, analyzer)
        return si.TensorStructInfo(shape, dtype, ndim if shape is None else len(shape), vdevice)
    if isinstance(a, si.TupleStructInfo):
        if len(a.fields) != len(b.fields):
            return si.ObjectStructInfo()
        return si.TupleStructInfo(tuple(join(x, y, analyzer) for x, y in zip(a.fields, b.fields)))
    if isinstance(a, si.FuncStructInfo):
        if a.params is not None and b.params is not None and len(a.params) == len(b.params) \
                and all(base_check(x, y, analyzer) is Check.PASS and
                        base_check(y, x, analyzer) is Check.PASS
                        for x, y in zip(a.params, b.params)):
            return si.FuncStructInfo(a.params, join(a.ret, b.ret, analyzer),
                                     a.purity and b.purity)
        return si.FuncStructInfo(None, join(a.ret, b.ret, analyzer), a.purity and b.purity)
    return si.ObjectStructInfo()


def _join_dims(a, b, analyzer):
    """Both shapes when every dimension is provably equal; otherwise unknown (TVM drops
    the whole shape rather than keep part of it, and so do we: SI-join-2)."""
    if a is None or b is None or len(a) != len(b):
        return None
    for x, y in zip(a, b):
        if not (x is y or analyzer.prove_equal(x, y)):
            return None
    return a


# -- erasure (SI-erase-1) -----------------------------------------------------------------------

def erase(s: si.StructInfo, defined: set[int]) -> si.StructInfo:
    """``s`` with every symbolic expression that uses a variable outside ``defined``
    (ids of prim Vars) replaced by what is still known: a Tensor keeps its ndim, a Shape
    its ndim, a Prim its dtype (SI-erase-1)."""
    def ok(e: P.PrimExpr) -> bool:
        return all(id(v) in defined for v in P.free_vars(e))

    if isinstance(s, si.PrimStructInfo):
        if s.value is not None and not ok(s.value):
            return si.PrimStructInfo(s.dtype)
        return s
    if isinstance(s, si.ShapeStructInfo):
        if s.values is not None and not all(ok(d) for d in s.values):
            return si.ShapeStructInfo(None, s.ndim)
        return s
    if isinstance(s, si.TensorStructInfo):
        if s.shape is not None and not all(ok(d) for d in s.shape):
            return si.TensorStructInfo(None, s.dtype, s.ndim, s.vdevice)
        return s
    if isinstance(s, si.TupleStructInfo):
        return si.TupleStructInfo(tuple(erase(f, defined) for f in s.fields))
    if isinstance(s, si.FuncStructInfo):
        return s
    return s


# -- calls of functions (SI-call-fn-1..3) ------------------------------------------------------

def defined_symbols(params: Iterable[si.StructInfo]) -> list[P.Var]:
    """The symbolic variables a signature defines: those appearing bare as a dimension
    of a parameter's shape or as an R.Prim value (SI-def-1), in order."""
    out: dict[int, P.Var] = {}
    for p in params:
        _defined_into(p, out)
    return list(out.values())


def _defined_into(s: si.StructInfo, out: dict[int, P.Var]) -> None:
    if isinstance(s, si.TensorStructInfo) and s.shape is not None:
        for d in s.shape:
            if isinstance(d, P.Var):
                out.setdefault(id(d), d)
    elif isinstance(s, si.ShapeStructInfo) and s.values is not None:
        for d in s.values:
            if isinstance(d, P.Var):
                out.setdefault(id(d), d)
    elif isinstance(s, si.PrimStructInfo) and isinstance(s.value, P.Var):
        out.setdefault(id(s.value), s.value)
    elif isinstance(s, si.TupleStructInfo):
        for f in s.fields:
            _defined_into(f, out)


def bind_symbolic(params: Iterable[si.StructInfo], args: Iterable[si.StructInfo]
                  ) -> dict[P.Var, P.PrimExpr]:
    """The caller's expression for each symbolic variable the callee's signature defines,
    matched position by position (SI-call-fn-1). A variable that matches two different
    expressions keeps the first; the run-time check compares them (SI-call-fn-3)."""
    mapping: dict[P.Var, P.PrimExpr] = {}
    for p, a in zip(params, args):
        _bind_into(p, a, mapping)
    return mapping


def _bind_into(p: si.StructInfo, a: si.StructInfo, mapping: dict[P.Var, P.PrimExpr]) -> None:
    if isinstance(p, si.TensorStructInfo) and isinstance(a, si.TensorStructInfo):
        pd, ad = p.shape, a.shape
    elif isinstance(p, si.ShapeStructInfo) and isinstance(a, si.ShapeStructInfo):
        pd, ad = p.values, a.values
    else:
        if isinstance(p, si.PrimStructInfo) and isinstance(a, si.PrimStructInfo):
            if isinstance(p.value, P.Var) and a.value is not None and p.value not in mapping:
                mapping[p.value] = a.value
        elif isinstance(p, si.TupleStructInfo) and isinstance(a, si.TupleStructInfo):
            for x, y in zip(p.fields, a.fields):
                _bind_into(x, y, mapping)
        return
    if pd is None or ad is None or len(pd) != len(ad):
        return
    for d, e in zip(pd, ad):
        if isinstance(d, P.Var) and d not in mapping:
            mapping[d] = e


def substitute(s: si.StructInfo, mapping: dict[P.Var, P.PrimExpr]) -> si.StructInfo:
    """``s`` with symbolic variables replaced by expressions."""
    if not mapping:
        return s

    def sub(e: P.PrimExpr) -> P.PrimExpr:
        return substitute_prim(e, mapping)

    if isinstance(s, si.PrimStructInfo):
        return si.PrimStructInfo(s.dtype, None if s.value is None else sub(s.value))
    if isinstance(s, si.ShapeStructInfo):
        return si.ShapeStructInfo(None if s.values is None else tuple(sub(d) for d in s.values),
                                  s.ndim)
    if isinstance(s, si.TensorStructInfo):
        return si.TensorStructInfo(None if s.shape is None else tuple(sub(d) for d in s.shape),
                                   s.dtype, s.ndim, s.vdevice)
    if isinstance(s, si.TupleStructInfo):
        return si.TupleStructInfo(tuple(substitute(f, mapping) for f in s.fields))
    if isinstance(s, si.FuncStructInfo):
        params = None if s.params is None else tuple(substitute(p, mapping) for p in s.params)
        return si.FuncStructInfo(params, substitute(s.ret, mapping), s.purity, s.derive_func)
    return s


def free_symbols(s: si.StructInfo) -> list[P.Var]:
    """Every symbolic variable mentioned anywhere in ``s``."""
    out: dict[int, P.Var] = {}
    _free_symbols_into(s, out)
    return list(out.values())


def _free_symbols_into(x: si.StructInfo, out: dict[int, P.Var]) -> None:
    if isinstance(x, si.PrimStructInfo):
        dims = () if x.value is None else (x.value,)
    elif isinstance(x, si.ShapeStructInfo):
        dims = x.values or ()
    elif isinstance(x, si.TensorStructInfo):
        dims = x.shape or ()
    else:
        if isinstance(x, si.TupleStructInfo):
            for f in x.fields:
                _free_symbols_into(f, out)
        elif isinstance(x, si.FuncStructInfo):
            for p in x.params or ():
                _free_symbols_into(p, out)
            _free_symbols_into(x.ret, out)
        return
    for d in dims:
        for v in P.free_vars(d):
            out.setdefault(id(v), v)
