"""BindSymbolicVars (TVM's name): replace symbolic variables by given values in Relax
functions' signatures and bodies (spec/passes.md, PASS-bind-sym-*).

    bind_symbolic_vars({"n": 16}, func_name="main")(mod)

Contract:
- PASS-bind-sym-1: a key names a symbolic variable that the function defines (bare in a
  parameter annotation, or in a ``R.match_cast`` target), by name or as the variable
  itself; a name must be unambiguous within the function. A value is an integer (made a
  constant of the variable's dtype; 0 or 1 for a bool) or a PrimExpr of that dtype. Without ``func_name`` every
  Relax function that defines a key is bound, and a key no function defines is an
  error; with ``func_name`` every key must be defined by that function.
- PASS-bind-sym-2: every occurrence of a bound variable is replaced (parameter and
  return annotations, binding annotations, match_cast targets, call output annotations
  such as call_tir's ``out_ty``, attributes, ``R.shape``/``R.prim_value`` values) and
  each changed expression simplified. The result may not leave a symbolic variable
  undefined (a value may itself use symbolic variables, which must then be defined).
- PASS-bind-sym-3: the result is a specialisation. On arguments for which the original
  function binds every bound variable to its given value, results are identical; on
  other arguments the bound function traps (a signature check, or a match_cast that
  used to define the variable and now checks it).
- PASS-bind-sym-4: a binding that makes some call of a bound function impossible (its
  arguments now contradict the bound signature, e.g. a recursive call with ``k - 1``
  when ``k`` is bound) is rejected with ValueError.

The symbol rewriting it shares with the other binding passes is in ``symbols.py``.
"""
from __future__ import annotations

from typing import Mapping

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.errors import StructInfoError
from relax_ref.semantics.normalize import normalize

from .registry import Adapter, Pass, register_pass
from .references import unreferenced_public_functions
from .rewrite import finish
from .symbols import substitute_symbols, symbols_of


# -- the pass ------------------------------------------------------------------------------

def _as_prim(var: P.Var, value) -> P.PrimExpr:
    """PASS-bind-sym-1: the value, of the variable's dtype."""
    if isinstance(value, P.PrimExpr):
        if value.dtype != var.dtype:
            raise ValueError(f"PASS-bind-sym-1: {var.name} is {var.dtype} but is bound to an "
                             f"expression of {value.dtype}")
        return value
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, int):
        raise TypeError(f"a symbolic variable is bound to an integer or a PrimExpr, not "
                        f"{value!r}")
    if var.dtype.is_bool and value not in (0, 1):
        raise ValueError(f"PASS-bind-sym-1: {var.name} is a bool; it cannot be {value}")
    if var.dtype.is_int or var.dtype.is_uint:
        lo, hi = var.dtype.int_range()
        if not lo <= value <= hi:
            raise ValueError(f"PASS-bind-sym-1: {var.name} is {var.dtype}; {value} is outside "
                             f"its range [{lo}, {hi}]")
    return P.IntImm(value, var.dtype)


def _resolve(func_name: str, func: rx.Function, binding: Mapping, *, strict: bool
             ) -> tuple[dict[P.Var, P.PrimExpr], set]:
    """The variables of ``func`` named by ``binding`` (PASS-bind-sym-1) and the keys used."""
    defined = list(symbols_of(func).defined.values())
    by_name: dict[str, list[P.Var]] = {}
    for v in defined:
        by_name.setdefault(v.name, []).append(v)
    mapping: dict[P.Var, P.PrimExpr] = {}
    used = set()
    for key, value in binding.items():
        if isinstance(key, P.Var):
            hits = [v for v in defined if v is key]
        elif isinstance(key, str):
            hits = by_name.get(key, [])
        else:
            raise TypeError(f"a key of BindSymbolicVars is a name or a symbolic variable, not "
                            f"{key!r}")
        if len(hits) > 1:
            raise ValueError(f"PASS-bind-sym-1: function {func_name!r} has {len(hits)} symbolic "
                             f"variables named {key!r}; bind one by passing the variable itself")
        if not hits:
            if strict:
                known = ", ".join(sorted(by_name)) or "none"
                raise ValueError(f"PASS-bind-sym-1: function {func_name!r} defines no symbolic "
                                 f"variable {key!r} (it defines: {known})")
            continue
        used.add(key)
        mapping[hits[0]] = _as_prim(hits[0], value)
    return mapping, used


def bind_function_symbols(func_name: str, func: rx.Function,
                          mapping: Mapping[P.Var, P.PrimExpr]) -> rx.Function:
    """PASS-bind-sym-2: ``func`` with ``mapping`` substituted everywhere."""
    if not mapping:
        return func
    new = substitute_symbols(func, mapping)
    free = symbols_of(new).free()
    if free:
        names = ", ".join(sorted(v.name for v in free))
        raise ValueError(f"PASS-bind-sym-2: binding leaves the symbolic variables {names} of "
                         f"{func_name!r} undefined")
    return new


def bind_symbolic_vars(binding: Mapping, func_name: str | None = None) -> Pass:
    """The pass binding ``binding`` (name or variable -> int or PrimExpr) in function
    ``func_name``, or in every Relax function that defines the keys."""
    binding = dict(binding)

    def run(mod: rx.IRModule) -> rx.IRModule:
        mod = normalize(mod)
        functions = dict(mod.functions)
        if func_name is not None:
            func = functions.get(func_name)
            if not isinstance(func, rx.Function):
                raise ValueError(f"PASS-bind-sym-1: the module has no Relax function "
                                 f"{func_name!r}")
            mapping, _ = _resolve(func_name, func, binding, strict=True)
            functions[func_name] = bind_function_symbols(func_name, func, mapping)
        else:
            all_used = set()
            for name, func in mod.functions.items():
                if isinstance(func, rx.Function):
                    mapping, used = _resolve(name, func, binding, strict=False)
                    all_used |= used
                    functions[name] = bind_function_symbols(name, func, mapping)
            unused = [k for k in binding if k not in all_used]
            if unused:
                raise ValueError(f"PASS-bind-sym-1: no function defines the symbolic "
                                 f"variables {', '.join(map(str, unused))}")
        try:
            return finish(mod.with_functions(functions))
        except StructInfoError as err:
            raise ValueError(f"PASS-bind-sym-4: after binding, {err.message}") from err

    def adapters(mod: rx.IRModule) -> dict[str, Adapter]:
        """PASS-bind-sym-3 as the harness's Adapter: inputs drawn from the bound
        signature, on which the original binds every variable to its value."""
        mod = normalize(mod)
        names = [func_name] if func_name is not None else [
            name for name, f in mod.functions.items()
            if isinstance(f, rx.Function) and _resolve(name, f, binding, strict=False)[1]]
        return {name: Adapter(draw_from="after") for name in names}

    where = f" in {func_name}" if func_name else ""
    shown = ", ".join(f"{getattr(k, 'name', k)}={v}" for k, v in binding.items())
    return Pass("BindSymbolicVars", run, exact=True,
                doc=f"Bind {shown}{where}.", options={"binding": binding,
                                                        "func_name": func_name},
                adapters=adapters)


def random_binding(mod: rx.IRModule, rng) -> Pass | None:
    """PASS-fuzz-2: BindSymbolicVars of one symbolic variable that a parameter of a
    public function no one references defines, to a random small value within its
    upper bound; None when there is none (or the binding is rejected)."""
    from relax_ref.semantics.inputs import symbols_needed

    mod = normalize(mod)
    candidates = [(name, v) for name, f in unreferenced_public_functions(mod)
                  for v in symbols_needed(f)]
    if not candidates:
        return None
    name, var = candidates[int(rng.integers(len(candidates)))]
    bounds = mod.functions[name].attrs.get("tir_var_upper_bound")
    limit = 4
    if isinstance(bounds, rx.Attrs):
        limit = min(limit, next((b for k, b in bounds.items
                                 if k == var.name and isinstance(b, int)), limit))
    p = bind_symbolic_vars({var: int(rng.integers(0, limit + 1))}, name)
    try:
        p(mod)
    except ValueError:
        return None
    return p


@register_pass("BindSymbolicVars", exact=True, instantiate=random_binding)
def _bind_nothing(mod: rx.IRModule) -> rx.IRModule:
    """BindSymbolicVars with an empty binding (the identity, as in TVM); build a pass
    that binds with ``bind_symbolic_vars(binding, func_name)``."""
    return finish(mod)
