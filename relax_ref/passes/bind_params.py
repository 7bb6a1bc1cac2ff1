"""BindParams (TVM's name): replace parameters of one function by constants
(spec/passes.md, PASS-bind-params-*).

    bind_params("main", {"w": np.ones((16, 32), "float32")})(mod)

Contract:
- PASS-bind-params-1: ``func_name`` names a Relax function of the module; each key of
  ``params`` is a parameter of it, by name (which must be unique among its parameters)
  or as the parameter variable itself; each value is a NumPy array (or an
  ``rx.Constant``, ``rx.PrimValue`` or ``rx.ShapeExpr`` without symbolic variables).
- PASS-bind-params-2: the symbolic variables that the bound parameters' annotations
  define (bare dimensions matched position by position with the values' shapes, as
  TVM's InferSymbolicVarMap) take those concrete values everywhere in the function:
  the remaining parameters' and the return annotation, binding annotations, match_cast
  targets, call output annotations (call_tir's ``out_ty``), ``R.shape`` and
  ``R.prim_value`` values; changed expressions are simplified. No symbolic variable is
  left undefined.
- PASS-bind-params-3: each value must provably satisfy its parameter's annotation once
  those variables are bound (dtype, rank, every dimension). A value that does not, or
  that only a run-time check could accept, is rejected with ValueError: the bound
  function could no longer perform the signature check the original performed. (TVM
  binds without checking.)
- PASS-bind-params-4: the function must not be referenced anywhere in the module (its
  callers, itself included when recursive, would pass the removed arguments); such a
  binding is rejected with ValueError. (TVM rewrites the function and leaves the calls
  broken.)
- PASS-bind-params-5: the bound parameters leave the signature; the others keep their
  order. For every argument list of the new function, calling it gives exactly what
  the original gives when called with the bound values inserted at their positions.
- PASS-bind-params-6: a binding after which the function is no longer valid Relax (say
  a reshape target dimension ``n`` becomes the literal 0, which reads as "copy the
  input's dimension") is rejected with ValueError.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.errors import StructInfoError
from relax_ref.semantics.inputs import InputError, random_value, symbols_needed
from relax_ref.semantics.normalize import constant_sinfo, normalize, print_sinfo
from relax_ref.semantics.sinfo_relations import Check, base_check, bind_symbolic
from relax_ref.values import PrimScalar, ShapeValue
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.evaluate import evaluate_int

from .references import global_uses, unreferenced_public_functions
from .symbols import substitute_sinfo, substitute_symbols
from .registry import Adapter, Pass, register_pass
from .rewrite import finish


def _as_value(key, value) -> tuple[rx.Expr, si.StructInfo]:
    """PASS-bind-params-1: the expression replacing a parameter, and its struct info."""
    if isinstance(value, np.ndarray):
        value = rx.Constant(value)
    if isinstance(value, rx.Constant):
        return value, constant_sinfo(value)
    if isinstance(value, rx.PrimValue) and not P.free_vars(value.value):
        return value, si.PrimStructInfo(value.value.dtype, value.value)
    if isinstance(value, rx.ShapeExpr) and not any(P.free_vars(d) for d in value.values):
        return value, si.ShapeStructInfo(value.values)
    raise TypeError(f"PASS-bind-params-1: parameter {key!r} is bound to a NumPy array, an "
                    f"rx.Constant, or a constant rx.PrimValue / rx.ShapeExpr, not "
                    f"{type(value).__name__}")


def _param_for(func_name: str, func: rx.Function, key) -> rx.Var:
    if isinstance(key, rx.Var):
        hits = [p for p in func.params if p is key]
    elif isinstance(key, str):
        hits = [p for p in func.params if p.name_hint == key]
    else:
        raise TypeError(f"PASS-bind-params-1: a key is a parameter name or variable, not "
                        f"{key!r}")
    if not hits:
        names = ", ".join(p.name_hint for p in func.params)
        raise ValueError(f"PASS-bind-params-1: function {func_name!r} has no parameter {key!r} "
                         f"(parameters: {names})")
    if len(hits) > 1:
        raise ValueError(f"PASS-bind-params-1: function {func_name!r} has {len(hits)} "
                         f"parameters named {key!r}; bind one by passing the variable itself")
    return hits[0]


def bind_function_params(func_name: str, func: rx.Function, params: Mapping) -> rx.Function:
    """PASS-bind-params-1..3 and 5 on one normalized function."""
    bound: dict[int, rx.Expr] = {}
    pairs: list[tuple[rx.Var, rx.Expr, si.StructInfo]] = []
    for key, value in params.items():
        p = _param_for(func_name, func, key)
        if id(p) in bound:
            raise ValueError(f"PASS-bind-params-1: parameter {p.name_hint!r} is bound twice")
        expr, sinfo = _as_value(key, value)
        bound[id(p)] = expr
        pairs.append((p, expr, sinfo))
    if not pairs:
        return func
    mapping = bind_symbolic([p.struct_info for p, _, _ in pairs], [s for _, _, s in pairs])
    analyzer = Analyzer()
    for p, _, sinfo in pairs:
        want = substitute_sinfo(p.struct_info, mapping)
        if base_check(want, sinfo, analyzer) is not Check.PASS:
            raise ValueError(f"PASS-bind-params-3: the value bound to {p.name_hint!r} of "
                             f"{func_name!r} has struct info {print_sinfo(sinfo)}, which does not "
                             f"provably satisfy the parameter's {print_sinfo(want)}")
    return substitute_symbols(func, mapping, replace=bound)


def bind_params(func_name: str, params: Mapping) -> Pass:
    """The pass binding ``params`` (name or parameter -> value) in ``func_name``."""
    params = dict(params)

    def run(mod: rx.IRModule) -> rx.IRModule:
        mod = normalize(mod)
        func = mod.functions.get(func_name)
        if not isinstance(func, rx.Function):
            raise ValueError(f"PASS-bind-params-1: the module has no Relax function "
                             f"{func_name!r}")
        if not params:
            return finish(mod)
        refs = global_uses(mod)[func_name]
        if refs.calls or refs.values:
            where = ", ".join(sorted(set(refs.calls + refs.values)))
            raise ValueError(f"PASS-bind-params-4: {func_name!r} is referenced by {where}; "
                             f"binding its parameters would break those calls")
        new = bind_function_params(func_name, func, params)
        try:
            return finish(mod.with_functions({**mod.functions, func_name: new}))
        except StructInfoError as err:
            raise ValueError(f"PASS-bind-params-6: after binding, {err.message}") from err

    def adapters(mod: rx.IRModule) -> dict[str, Adapter]:
        """PASS-bind-params-5 as the harness's Adapter: inputs of the bound function,
        with the bound values inserted at their positions for the original."""
        func = normalize(mod).functions.get(func_name)
        if not isinstance(func, rx.Function) or not params:
            return {}
        values = {}
        for key, value in params.items():
            values[id(_param_for(func_name, func, key))] = _runtime_value(_as_value(key, value)[0])
        slots = [values.get(id(p)) for p in func.params]

        def to_before(args: list) -> list:
            rest = iter(args)
            return [next(rest) if v is None else _fresh(v) for v in slots]

        return {func_name: Adapter(draw_from="after", to_before=to_before)}

    names = ", ".join(str(getattr(k, "name_hint", k)) for k in params)
    return Pass("BindParams", run, exact=True, doc=f"Bind {names} of {func_name}.",
                options={"func_name": func_name, "params": params}, adapters=adapters)


def _runtime_value(expr: rx.Expr):
    """The interpreter's value of a bound constant (PASS-bind-params-1's forms)."""
    if isinstance(expr, rx.Constant):
        return expr.data
    if isinstance(expr, rx.PrimValue):
        v = expr.value
        return PrimScalar(v.value if isinstance(v, P.FloatImm) else evaluate_int(v, {}),
                          v.dtype)
    return ShapeValue(tuple(int(evaluate_int(d, {})) for d in expr.values))


def _fresh(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def random_binding(mod: rx.IRModule, rng) -> Pass | None:
    """PASS-fuzz-2: BindParams of one random tensor parameter of a public function no
    one references, to a random value of its annotation (its symbolic dimensions at
    random small values); None when no parameter can be bound."""
    mod = normalize(mod)
    candidates = [(name, p) for name, f in unreferenced_public_functions(mod)
                  for p in f.params if isinstance(p.struct_info, si.TensorStructInfo)]
    if not candidates:
        return None
    name, param = candidates[int(rng.integers(len(candidates)))]
    func = mod.functions[name]
    env = {v: int(rng.integers(0, 4)) for v in symbols_needed(func)}
    try:
        value = random_value(param.struct_info, env, rng, what=param.name_hint)
        p = bind_params(name, {param: value})
        p(mod)  # PASS-bind-params-3 may reject the value (an undecidable annotation)
    except (InputError, ValueError, TypeError):
        return None
    return p


@register_pass("BindParams", exact=True, instantiate=random_binding)
def _bind_nothing(mod: rx.IRModule) -> rx.IRModule:
    """BindParams with no parameters (the identity, as in TVM); build a pass that binds
    with ``bind_params(func_name, params)``."""
    return finish(mod)
