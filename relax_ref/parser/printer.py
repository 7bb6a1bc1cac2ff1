"""IR -> TVMScript text in the TVM 0.27 dialect (spec/syntax.md, section "Printing").

``print_module`` writes a module the way TVM 0.27's ``mod.script()`` does: the comment
header, module-level ``n = TypeVar("n")`` lines, ``@I.ir_module class Module:`` and each
function in module order. Where TVM 0.27's own output cannot be read back (by TVM or by
our parser), a spelling both read is chosen instead; every such choice is listed in
spec/syntax.md ("Printing: where we differ from TVM") and marked ``PRINT-dev`` below.

The work is split by dialect: relax_printer.py (Relax functions), tir_printer.py
(PrimFuncs), both built on ir/text.py (PrimExprs, struct info, names, literals), which
also serves error messages below the parser. This module holds the entry points and the
module frame (header comments, TypeVar lines, the class).

The printer never mutates the IR and its output depends only on the IR (deterministic).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.text import (INDENT, Names, PrintError, TextContext, identifier,
                               print_prim_expr, print_struct_info)

from .relax_printer import RelaxPrinter
from .tir_printer import TirPrinter


class ModuleContext(TextContext):
    """What the module header needs to know, gathered while the functions print."""

    def header_lines(self) -> list[str]:
        lines = []
        if self.type_vars:
            lines.append("# from typing import TypeVar")
        lines.append("# from tvm.script import ir as I")
        if self.uses_tir:
            lines.append("# from tvm.script import tirx as T")
            lines.append("# from tvm.tirx.layout import Axis")
        if self.uses_relax:
            lines.append("# from tvm.script import relax as R")
        return lines


def print_module(mod: rx.IRModule) -> str:
    """The TVMScript text of ``mod`` (no trailing newline, as TVM prints it)."""
    ctx = ModuleContext(identifier(mod.name) if mod.name else "Module")
    chunks = [_function_lines(ctx, func, name, 1) for name, func in mod.functions.items()]
    clash = ctx.type_vars & ctx.body_declared
    if clash:
        # PRINT-sym-1 (PRINT-dev): TVM cannot read ``m = T.int64()`` in a body when a
        # module-level ``m = TypeVar("m")`` exists (TVM 0.27 prints exactly that after
        # LegalizeOps of a match_cast-defined dimension). Print again with the TypeVar
        # side renamed: each function has its own variables, so only the name changes.
        ctx = ModuleContext(ctx.module_name)
        ctx.avoid = set(clash)
        chunks = [_function_lines(ctx, func, name, 1) for name, func in mod.functions.items()]
    class_lines: list[str] = []
    if len(mod.attrs):
        class_lines.append(INDENT + f"I.module_attrs({RelaxPrinter(ctx).attr_value(mod.attrs)})")
    if len(mod.global_infos):
        infos = RelaxPrinter(ctx).attr_value(mod.global_infos)
        class_lines.append(INDENT + f"I.module_global_infos({infos})")
    for i, chunk in enumerate(chunks):
        if i:
            class_lines.append("")
        class_lines.extend(chunk)
    if not class_lines:
        class_lines.append(INDENT + "pass")
    lines = ctx.header_lines()
    lines.append("")
    lines.extend(f'{n} = TypeVar("{n}")' for n in sorted(ctx.type_vars))
    lines.append("@I.ir_module")
    lines.append(f"class {ctx.module_name}:")
    lines.extend(class_lines)
    return "\n".join(lines)


def print_function(func: rx.Function | tir.PrimFunc, name: str = "main") -> str:
    """One function as it reads inside a module class, without the module header (for
    messages; module-level TypeVar lines are not included)."""
    return "\n".join(_function_lines(ModuleContext("Module"), func, name, 0))


def print_expr(expr: rx.Expr) -> str:
    """A Relax expression on one line, variables under their own names (for messages)."""
    return RelaxPrinter(ModuleContext("Module"), Names.raw()).expr(expr)


def _function_lines(ctx: ModuleContext, func, name: str, indent: int) -> list[str]:
    if isinstance(func, rx.Function):
        return RelaxPrinter(ctx).function(func, name, indent)
    if isinstance(func, tir.PrimFunc):
        return TirPrinter(ctx).function(func, name, indent)
    raise PrintError(f"cannot print {type(func).__name__} {name!r} as a module function "
                     f"(expected a Relax Function or a PrimFunc)")


__all__ = ["print_module", "print_function", "print_struct_info", "print_prim_expr",
           "print_expr", "PrintError"]
