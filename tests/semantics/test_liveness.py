"""The interpreter drops a value after its last use (semantics/liveness.py): the plan
is right, dropping never changes a result, and a dead intermediate is really freed."""
from __future__ import annotations

import weakref

import numpy as np

from relax_ref.parser.builder import parse
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.semantics.liveness import release_plan

from .test_interpreter import CAPTURES_OUTER

F32 = np.float32

CHAIN = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32"), flag: R.Tensor((), dtype="bool")) -> R.Tensor((4,), dtype="float32"):
        a = R.add(x, x)
        unused = R.multiply(x, x)
        b = R.multiply(a, a)
        c = R.add(b, x)
        if flag:
            d = R.add(c, w)
            e: R.Tensor((4,), dtype="float32") = d
        else:
            e: R.Tensor((4,), dtype="float32") = c
        out = R.add(e, a)
        return out
'''


def _names(func, plan):
    names = {id(p): p.name_hint for p in func.params}
    bindings = [b for block in func.body.blocks for b in block.bindings]
    names.update({id(b.var): b.var.name_hint for b in bindings})
    return {b.var.name_hint: sorted(names[v] for v in plan.get(id(b), ())) for b in bindings
            if plan.get(id(b))}


def test_each_value_is_dropped_after_its_last_top_level_use():
    func = parse(CHAIN).functions["main"]
    plan = release_plan(func)
    # x is last read by c; w, c and flag by the If (bound to e); a and e by out; the
    # result is kept; a binding nothing reads is dropped at once.
    assert _names(func, plan) == {"unused": ["unused"], "c": ["b", "x"],
                                  "e": ["c", "flag", "w"], "out": ["a", "e"]}


def test_dropping_does_not_change_results():
    mod = parse(CHAIN)
    x, w = np.arange(4, dtype=F32), np.full(4, 0.5, F32)
    for flag in (True, False):
        got = Interpreter(mod).run("main", [x, w, np.array(flag)])
        c = (x + x) * (x + x) + x
        want = (c + w if flag else c) + (x + x)
        np.testing.assert_array_equal(got, want)


def test_a_dead_intermediate_is_freed_before_the_function_returns():
    mod = parse(CHAIN)
    refs: dict[str, weakref.ref] = {}
    alive_at_out: dict[str, bool] = {}

    def trace(binding, value):
        name = binding.var.name_hint
        if isinstance(value, np.ndarray):
            refs.setdefault(name, weakref.ref(value))
        if name == "out":
            alive_at_out.update({k: r() is not None for k, r in refs.items()})

    Interpreter(mod, trace=trace).run("main", [np.ones(4, F32), np.ones(4, F32),
                                               np.array(True)])
    assert alive_at_out["b"] is False and alive_at_out["unused"] is False
    assert alive_at_out["a"] is True  # read by out itself


def test_a_body_that_creates_a_closure_keeps_every_value():
    mod = parse(CAPTURES_OUTER)
    assert release_plan(mod.functions["main"]) is None
    x = np.array([1, 2], F32)
    np.testing.assert_array_equal(Interpreter(mod).run("main", [x]), x * (x + x))
