"""Conformance cases (area ``ops``) for the ops of issue 20 part D: closures
(make_closure, invoke_closure, invoke_pure_closure), memory views, builtins, devices,
and the vision ops.

Every case name starts with its op's name (less ``relax.``, dots as underscores).
Expected values come from the NumPy formulas written here, never from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, trap  # noqa: F401
from gen_ops import AREA, T_, ann, fdata, idata, module  # noqa: F401

F32 = np.float32
T23 = ann((2, 3))
HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"

_CASES: list[Case] = []


def _add(name, params, body, runs, covers, desc, sym=(), ret="y"):
    _CASES.append(Case(AREA, name, module(params, body, ret, sym), list(runs), "ok", None,
                       desc, list(covers)))


def _add_text(name, text, runs, covers, desc, expect="ok", rule=None):
    _CASES.append(Case(AREA, name, HEAD + text, list(runs), expect, rule, desc,
                       list(covers) + ([rule] if rule else [])))


def _invalid(name, params, body, rule, covers, desc, sym=()):
    _CASES.append(Case(AREA, name, module(params, body, "y", sym), [], "invalid", rule, desc,
                       list(covers) + [rule]))


# -- closures ----------------------------------------------------------------------------------

_LIFTED = f'''@I.ir_module
class Module:
    @R.function(private=True)
    def add_c(x1: {T23}, c1: {T23}, c2: {T23}) -> {T23}:
        s = R.add(x1, c1)
        t = R.multiply(s, c2)
        return t

    @R.function
    def main(x: {T23}, y: {T23}, z: {T23}) -> {T23}:
        cls = Module
        f = R.make_closure(cls.add_c, (y, z))
        r = R.INVOKE(f, (x,), ty_args=({T23},))
        return r
'''


def _closures():
    x, y, z = (fdata((2, 3), 2701 + k) for k in range(3))
    want = ((x + y) * z).astype(F32)
    for op in ("invoke_closure", "invoke_pure_closure"):
        text = _LIFTED.replace("INVOKE", op)
        if op == "invoke_closure":  # impure: main says so
            text = text.replace("@R.function\n    def main", "@R.function(pure=False)\n    def main")
        _add_text(f"{op}_captured_after_args", text,
                  [ok([T_(x), T_(y), T_(z)], [T_(want)])],
                  [f"relax.{op}", "relax.make_closure", "SI-struct-closure-2",
                   "EXEC-closure-1", "EXEC-closure-2"],
                  f"{op} passes its own arguments first, then the two captured values: "
                  "(x + y) * z")
    nested = f'''@I.ir_module
class Module:
    @R.function(private=True)
    def inner(a: {T23}, c: {T23}) -> {T23}:
        s = R.subtract(a, c)
        return s

    @R.function(private=True)
    def outer(c: {T23}) -> R.Any:
        cls = Module
        g = R.make_closure(cls.inner, (c,))
        return g

    @R.function
    def main(x: {T23}, y: {T23}) -> {T23}:
        cls = Module
        g = cls.outer(y)
        r = R.invoke_pure_closure(g, (x,), ty_args=({T23},))
        return r
'''
    _add_text("make_closure_returned", nested, [ok([T_(x), T_(y)], [T_((x - y).astype(F32))])],
              ["relax.make_closure", "relax.invoke_pure_closure", "SI-struct-closure-1"],
              "a closure made in one function and invoked in another (LambdaLift's form "
              "for a returned local function): x - y")
    _add_text("make_closure_not_global", f'''@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, y: {T23}) -> R.Any:
        f = R.make_closure(x, (y,))
        return f
''', [], ["relax.make_closure"], "the closure's function must be a module function "
         "(TVM accepts a tensor here)", expect="invalid", rule="SI-struct-closure-1")
    _add_text("invoke_pure_closure_args_not_tuple",
              _LIFTED.replace("INVOKE", "invoke_pure_closure").replace("(x,), ty_args",
                                                                       "x, ty_args"),
              [], ["relax.invoke_pure_closure"], "the arguments of an invoke are a tuple",
              expect="invalid", rule="SI-struct-closure-2")
    _add_text("invoke_closure_arity",
              _LIFTED.replace("INVOKE", "invoke_closure").replace("(x,), ty_args",
                                                                  "(x, x), ty_args")
              .replace("@R.function\n    def main", "@R.function(pure=False)\n    def main"),
              [trap([T_(x), T_(y), T_(z)], "signature")],
              ["relax.invoke_closure", "EXEC-closure-2"],
              "two arguments and two captured values for a function of three parameters: "
              "a signature error when invoked")
    _add_text("invoke_pure_closure_result_checked", _LIFTED.replace(
        "INVOKE", "invoke_pure_closure").replace(f"(x,), ty_args=({T23},)",
                                                 f"(x,), ty_args=({ann((3, 2))},)")
              .replace(f"-> {T23}:\n        cls = Module\n        f",
                       f"-> {ann((3, 2))}:\n        cls = Module\n        f"),
              [trap([T_(x), T_(y), T_(z)], "struct_info")],
              ["relax.invoke_pure_closure", "EXEC-closure-2"],
              "ty_args says (3, 2) but the closure returns (2, 3): the result check traps")


def cases() -> list[Case]:
    _CASES.clear()
    _closures()
    return list(_CASES)
