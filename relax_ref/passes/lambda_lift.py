"""LambdaLift (TVM's name): local functions become private functions of the module
(spec/passes.md, PASS-lambda-lift-*).

Contract:
- PASS-lambda-lift-1: every local function ``f = R.function(...)`` is lifted to a new
  private module function, innermost first, named as TVM names it: ``<top>_<f>``, else
  the whole path ``<top>_<outer>_<f>``, else ``<top>_<f>_<k>``, avoiding every name
  already taken.
- PASS-lambda-lift-2: a local function that captures nothing (no variable of an
  enclosing function, no symbolic variable of one) becomes a reference to the lifted
  function: its binding disappears, calls ``f(args)`` become ``cls.<lifted>(args)``, and
  other uses of ``f`` become the GlobalVar, recursive ones included.
- PASS-lambda-lift-3: a capturing local function gets extra trailing parameters, in
  this order: one per captured Relax variable (same name and struct info; TVM's order),
  then one ``R.Prim("int64", value=n)`` per captured symbolic variable ``n`` that no
  captured variable's annotation defines. Every call ``f(args)``, recursive ones inside
  its own body included, becomes ``cls.<lifted>(args, captured..., R.prim_value(n)...)``.
  The lifted copy has fresh symbolic variables of its own (WF-sym-4), so a dimension
  that referred to an enclosing function's symbol is still checked against that value
  at every call.
- PASS-lambda-lift-4: a capturing local function that uses itself as a value inside its
  own body (returns or passes on itself) stays local. Local functions inside it are
  still lifted.
- PASS-lambda-lift-5: results are preserved exactly; the signatures of the existing
  module functions do not change.
- PASS-lambda-lift-6: a capturing local function used as a value (returned, stored,
  passed as an argument) is lifted too, and its binding becomes TVM's closure:
  ``f_closure = R.make_closure(cls.<lifted>, (captured..., R.prim_value(n)...))`` then
  ``f = R.match_cast(f_closure, <f's function type>)``; calling the closure passes the
  captured values after the call's own arguments (EXEC-closure-2). Direct calls of
  ``f`` still call the lifted function (PASS-lambda-lift-3).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols

from .symbols import fresh_symbols, substitute_symbols, symbols_of
from .registry import register_pass
from .rewrite import Rewriter, finish


# -- names (PASS-lambda-lift-1) ------------------------------------------------------------

def _lifted_names(mod: rx.IRModule) -> dict[int, str]:
    """The name of every local function of ``mod`` (by id of its Function node), chosen
    as TVM's LambdaNameCollector chooses, in program order."""
    locations: list[tuple[int, list[str]]] = []

    class _Collect(Rewriter):
        def __init__(self, top: str):
            super().__init__()
            self.path = [top]

        def binding(self, b):
            if isinstance(b.value, rx.Function):
                self.path.append(b.var.name_hint)
                locations.append((id(b.value), list(self.path)))
                self.function(b.value)
                self.path.pop()
                return [b]
            return super().binding(b)

    for name, func in mod.functions.items():
        if isinstance(func, rx.Function):
            _Collect(name).function(func)

    taken = set(mod.functions)
    names: dict[int, str] = {}
    remaining = list(locations)

    def attempt(propose) -> None:
        nonlocal remaining
        proposals: dict[str, list[int]] = {}
        for key, loc in remaining:
            name = propose(key, loc)
            if name is not None and name not in taken:
                proposals.setdefault(name, []).append(key)
        for name, keys in proposals.items():
            if len(keys) == 1:
                names[keys[0]] = name
                taken.add(name)
        remaining = [(k, loc) for k, loc in remaining if k not in names]

    attempt(lambda key, loc: f"{loc[0]}_{loc[-1]}")
    attempt(lambda key, loc: "_".join(loc) if len(loc) > 2 else None)
    usage: dict[str, int] = {}
    while remaining:
        def fallback(key, loc):
            stem = f"{loc[0]}_{loc[-1]}"
            k = usage.get(stem, 0)
            usage[stem] = k + 1
            return f"{stem}_{k}"
        attempt(fallback)
    return names


# -- what a local function uses ------------------------------------------------------------

def _free_vars(func: rx.Function) -> list[rx.Var]:
    """The Relax variables ``func`` uses but does not bind, in order of first use."""
    bound: set[int] = set()
    used: dict[int, rx.Var] = {}

    class _Walk(Rewriter):
        def param(self, p):
            bound.add(id(p))
            return p

        def bind_var(self, var):
            bound.add(id(var))
            return var

        def binding(self, b):
            bound.add(id(b.var))  # before the value: a local function may call itself
            return super().binding(b)

        def use(self, v):
            used.setdefault(id(v), v)
            return v

    _Walk().function(func)
    return [v for k, v in used.items() if k not in bound]


def _value_uses(func: rx.Function) -> set[int]:
    """Ids of the Relax variables ``func`` uses other than as a callee."""
    out: set[int] = set()

    class _Walk(Rewriter):
        def use(self, v):
            out.add(id(v))
            return v

        def call(self, e):
            for a in e.args:
                self.expr(a)
            if not isinstance(e.op, rx.Var):
                self.expr(e.op)
            return e

    _Walk().function(func)
    return out


_MAKE_CLOSURE = rx.Op("relax.make_closure")


# -- lifting -------------------------------------------------------------------------------

class _Lifter(Rewriter):
    def __init__(self, mod: rx.IRModule, names: dict[int, str], lifted: dict[str, rx.Function]):
        super().__init__()
        self.mod = mod
        self.names = names
        self.lifted = lifted
        self.escaping: set[int] = set()
        self.symbols: set[int] = set()  # symbolic variables defined in enclosing scopes
        # id of a lifted capturing function's variable -> (GlobalVar, extra arguments)
        self.direct_calls: dict[int, tuple[rx.GlobalVar, tuple[rx.Expr, ...]]] = {}

    def top(self, func: rx.Function) -> rx.Function:
        self.escaping = _value_uses(func)
        return self.function(func)

    def function(self, func: rx.Function) -> rx.Function:
        saved = set(self.symbols)
        self.symbols |= {id(v) for v in defined_symbols(p.struct_info for p in func.params)}
        try:
            return super().function(func)
        finally:
            self.symbols = saved

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Function):
            return self.local_function(b)
        out = super().binding(b)
        if isinstance(b, rx.MatchCast):
            self.symbols |= {id(v) for v in defined_symbols([b.struct_info])}
        return out

    def call(self, e: rx.Call) -> rx.Expr:
        if isinstance(e.op, rx.Var) and id(e.op) in self.direct_calls:
            gv, extra = self.direct_calls[id(e.op)]
            args = tuple(self.expr(a) for a in e.args) + tuple(self.expr(x) for x in extra)
            return rx.Call(gv, args, e.attrs, e.sinfo_args, span=e.span)
        return super().call(e)

    def local_function(self, b: rx.VarBinding) -> list[rx.Binding]:
        f = b.var
        outer_symbols = set(self.symbols)
        body = self.function(b.value)  # lifts the functions inside first
        captured = [v for v in _free_vars(body) if v is not f]
        symbols = symbols_of(body)
        by_captured = {id(v) for c in captured if c.struct_info is not None
                       for v in defined_symbols([c.struct_info])}
        captured_syms = [v for k, v in symbols.used.items()
                         if k in outer_symbols and k not in by_captured]
        escapes = id(f) in self.escaping
        if (captured or captured_syms) and id(f) in _value_uses(body):
            return [rx.VarBinding(self.bind_var(f), body, span=b.span)]  # PASS-lambda-lift-4

        name = self.names[id(b.value)]
        gv = rx.GlobalVar(name, span=b.value.span)
        # The lifted function, in terms of the enclosing function's variables first.
        params = [rx.Var(v.name_hint, v.struct_info, span=v.span) for v in captured]
        sym_params = [rx.Var(v.name, si.PrimStructInfo(v.dtype, v), span=v.span)
                      for v in captured_syms]
        extra = tuple(params) + tuple(sym_params)
        outside = tuple(captured) + tuple(rx.PrimValue(v) for v in captured_syms)
        inner = _Close(f, gv, {id(v): p for v, p in zip(captured, params)},
                       tuple(params) + tuple(rx.PrimValue(v) for v in captured_syms))
        lifted = inner.function(body)
        lifted = rx.Function(lifted.params + extra, lifted.body, lifted.ret_struct_info,
                             lifted.is_pure, lifted.attrs, True, span=lifted.span)
        # Symbolic variables of its own (WF-sym-4), the captured ones included.
        lifted = substitute_symbols(lifted, fresh_symbols(symbols_of(lifted).used.values()))
        self.lifted[name] = lifted
        if not extra:
            self.var_map[id(f)] = gv  # PASS-lambda-lift-2
            return []
        self.direct_calls[id(f)] = (gv, outside)
        if not escapes:
            return []
        # PASS-lambda-lift-6: a value of f is TVM's closure of the lifted function and
        # the captured values, cast back to f's function type so its uses stay typed.
        closure_var = rx.Var(f"{f.name_hint}_closure", si.ObjectStructInfo(), span=b.span)
        make = rx.Call(_MAKE_CLOSURE, (gv, rx.Tuple(outside)), span=b.span)
        return [rx.VarBinding(closure_var, make, span=b.span),
                rx.MatchCast(self.bind_var(f), closure_var, f.struct_info, span=b.span)]


class _Close(Rewriter):
    """Inside a lifted function: captured variables become its parameters and its own
    recursive calls pass them on."""

    def __init__(self, f: rx.Var, gv: rx.GlobalVar, renames: dict[int, rx.Var],
                 extra: tuple[rx.Expr, ...]):
        super().__init__()
        self.f = f
        self.gv = gv
        self.var_map.update(renames)
        self.extra = extra
        if not extra:
            self.var_map[id(f)] = gv

    def call(self, e: rx.Call) -> rx.Expr:
        if e.op is self.f:
            args = tuple(self.expr(a) for a in e.args) + self.extra
            return rx.Call(self.gv, args, e.attrs, e.sinfo_args, span=e.span)
        return super().call(e)


@register_pass("LambdaLift", exact=True)
def lambda_lift(mod: rx.IRModule) -> rx.IRModule:
    """Lift local functions to private module functions (closures become parameters)."""
    mod = normalize(mod)
    names = _lifted_names(mod)
    functions: dict[str, object] = {}
    for name, func in mod.functions.items():
        if not isinstance(func, rx.Function):
            functions[name] = func
            continue
        lifted: dict[str, rx.Function] = {}
        functions[name] = _Lifter(mod, names, lifted).top(func)
        functions.update(lifted)
    return finish(mod.with_functions(functions))
