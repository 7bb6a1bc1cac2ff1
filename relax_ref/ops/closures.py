"""Closures: ``R.make_closure``, ``R.invoke_closure``, ``R.invoke_pure_closure``
(spec/ops/structural.md, "Closures"; family "structural").

TVM's form of a local function that captures variables, as LambdaLift emits it: the
function is lifted to a module function taking its own parameters followed by the
captured ones, ``R.make_closure(cls.f, (captured...))`` pairs it with the captured
values, and ``R.invoke_closure(c, (args...), ty_args=...)`` calls it with ``args`` then
the captured values. ``make_closure`` is NumPy-level (it builds a value); the invokes
need the interpreter (they run a function), which evaluates them by name.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.values import Closure, describe_value

from .common import OpRuntimeError
from .registry import DeduceContext, OpDef, Operand, register

FAMILY = "structural"


def deduce_make_closure(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-closure-1: make_closure(func, (captured...)) takes a module function
    (a GlobalVar of a Relax function) and a tuple; its value is an object (``R.Any``, as
    TVM). Stricter than TVM, which accepts any expression: the callee must be a
    GlobalVar, so the closure always names a function of the module."""
    if len(ctx.args) != 2:
        raise ctx.error(f"takes (function, (captured...)), found {len(ctx.args)} operands",
                        rule="SI-struct-closure-1")
    func = ctx.args[0]
    if not isinstance(func, rx.GlobalVar) or not isinstance(ctx.arg_sinfo[0],
                                                            si.FuncStructInfo):
        raise ctx.error("the first operand must be a Relax function of the module "
                        "(cls.f)", rule="SI-struct-closure-1")
    if not isinstance(ctx.arg_sinfo[1], si.TupleStructInfo):
        raise ctx.error("the captured values must be a tuple", rule="SI-struct-closure-1")
    return si.ObjectStructInfo()


def deduce_invoke_closure(ctx: DeduceContext) -> si.StructInfo:
    """SI-struct-closure-2: invoke_closure(closure, (args...), ty_args=...) has the
    struct info of ``ty_args``: R.Any when none, the one given, else their tuple. The
    closure operand is an object or a function; the arguments a tuple."""
    if len(ctx.args) != 2:
        raise ctx.error(f"takes (closure, (arguments...)), found {len(ctx.args)} operands",
                        rule="SI-struct-closure-2")
    if not isinstance(ctx.arg_sinfo[0], (si.ObjectStructInfo, si.FuncStructInfo)):
        raise ctx.error("the closure must be an object or a function, found "
                        f"{type(ctx.arg_sinfo[0]).__name__}", rule="SI-struct-closure-2")
    if not isinstance(ctx.arg_sinfo[1], si.TupleStructInfo):
        raise ctx.error("the arguments must be a tuple", rule="SI-struct-closure-2")
    out = ctx.call.sinfo_args
    if not out:
        return si.ObjectStructInfo()
    return out[0] if len(out) == 1 else si.TupleStructInfo(tuple(out))


def make_closure(attrs, func, captured):
    """EXEC-closure-1: the function with the captured values appended to those it
    already holds (a closure of a closure captures both, in order)."""
    if not isinstance(func, Closure) or func.env is not None:
        raise OpRuntimeError("struct_info", f"needs a module function, found "
                             f"{describe_value(func)}", rule="EXEC-closure-1")
    if not isinstance(captured, tuple):
        raise OpRuntimeError("struct_info", f"needs a tuple of captured values, found "
                             f"{describe_value(captured)}", rule="EXEC-closure-1")
    return Closure(func.func, None, func.name, func.captured + captured)


register(OpDef("relax.make_closure", (Operand("func", "any"), Operand("args", "any")),
               deduce=deduce_make_closure, compute=make_closure, pure=True, family=FAMILY,
               raw_call=True, spec_rule="SI-struct-closure-1",
               doc="a module function paired with captured values"))
for _name, _pure in (("relax.invoke_closure", False), ("relax.invoke_pure_closure", True)):
    register(OpDef(_name, (Operand("closure", "any"), Operand("args", "any")),
                   deduce=deduce_invoke_closure, compute=None, pure=_pure, family=FAMILY,
                   raw_call=True, spec_rule="SI-struct-closure-2",
                   doc="call a closure on a tuple of arguments"))
