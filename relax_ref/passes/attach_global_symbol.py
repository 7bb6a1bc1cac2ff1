"""AttachGlobalSymbol (TVM's name): every function of the module gets the attribute
``global_symbol``, the name the compiled module exports it under (spec/passes.md,
PASS-global-symbol-*).

A Relax function's symbol is its name; a PrimFunc's is the module's
``system_lib_prefix`` attribute (empty by default) followed by its name, and a PrimFunc
whose symbol differs from its name is renamed to it, every reference following, so that
name and symbol stay equal (WF-global-2). Every function becomes public: in TVM a
function is private exactly when it has no global symbol.
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import relax as rx
from relax_ref.ir import tir

from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import Rewriter, finish

GLOBAL_SYMBOL = "global_symbol"
SYSTEM_LIB_PREFIX = "system_lib_prefix"


class _Rename(Rewriter):
    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.GlobalVar) and e.name_hint in self.names:
            return rx.GlobalVar(self.names[e.name_hint], span=e.span)
        return super().expr(e)

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        if isinstance(new.op, rx.GlobalVar) and new.op.name_hint in self.names:
            return rx.Call(self.expr(new.op), new.args, new.attrs, new.sinfo_args, span=new.span)
        return new


def _with_symbol(func, symbol: str):
    attrs = func.attrs.with_item(GLOBAL_SYMBOL, symbol)
    return dataclasses.replace(func, attrs=attrs, is_private=False)


@register_pass("AttachGlobalSymbol", exact=True,
               fuzz_inputs=fuzz_inputs_for("AttachGlobalSymbol"))
def attach_global_symbol(mod: rx.IRModule) -> rx.IRModule:
    """PASS-global-symbol-1..3: every function public with its global symbol."""
    prefix = mod.attrs.get(SYSTEM_LIB_PREFIX) or ""
    names = {name: prefix + name for name, f in mod.functions.items()
             if isinstance(f, tir.PrimFunc) and prefix}
    funcs = {}
    for name, f in mod.functions.items():
        new_name = names.get(name, name)
        funcs[new_name] = _with_symbol(f, new_name)
    out = mod.with_functions(funcs)
    if names:
        out = _Rename(names).module(out)
    return finish(out)
