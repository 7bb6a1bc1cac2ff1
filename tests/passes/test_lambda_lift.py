"""LambdaLift: Before/Expected pairs (no capture, recursion with captures, captured
symbolic variables, closures that escape), naming, every sample, and TVM's pass."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.passes.to_non_dataflow import merge_adjacent_blocks
from relax_ref.verify import check_pass
from relax_ref.errors import RuntimeCheckError
from relax_ref.semantics.interpreter import Interpreter
from tests.conftest import sample_files

LIFT = get_pass("LambdaLift")

T23 = 'R.Tensor((2, 3), dtype="float32")'

BASIC = f'''
@I.ir_module
class Module:
    @R.function
    def main(x1: {T23}, y1: {T23}) -> {T23}:
        @R.function
        def inner(x2: {T23}, y2: {T23}) -> {T23}:
            s = R.add(x2, y2)
            return s
        gv1 = inner(x1, y1)
        return gv1
'''

BASIC_EXPECTED = f'''
@I.ir_module
class Module:
    @R.function(private=True)
    def main_inner(x2: {T23}, y2: {T23}) -> {T23}:
        s = R.add(x2, y2)
        return s

    @R.function
    def main(x1: {T23}, y1: {T23}) -> {T23}:
        cls = Module
        gv1 = cls.main_inner(x1, y1)
        return gv1
'''


def _check_pair(before_text: str, expected_text: str) -> rx.IRModule:
    before = parse(before_text)
    after = LIFT(before)
    assert_structural_equal(merge_adjacent_blocks(after),
                            merge_adjacent_blocks(parse(expected_text)))
    check_pass(LIFT, before, trials=3)
    return after


def _local_functions(func: rx.Function) -> list[str]:
    return [b.var.name_hint for block in func.body.blocks for b in block.bindings
            if isinstance(b.value, rx.Function)]


def test_a_function_that_captures_nothing_becomes_a_global_reference():
    _check_pair(BASIC, BASIC_EXPECTED)


LOOP = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, k: R.Tensor((), dtype="int32")) -> {T23}:
        @R.function
        def while_loop(i: R.Tensor((), dtype="int32"), s: {T23}) -> {T23}:
            cond = R.less(i, k)
            c = R.const(1, "int32")
            if cond:
                new_i = R.add(i, c)
                new_s = R.add(s, x)
                r = while_loop(new_i, new_s)
            else:
                r = s
            return r
        gv = while_loop(R.const(0, "int32"), x)
        return gv
'''

LOOP_EXPECTED = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, k: R.Tensor((), dtype="int32")) -> {T23}:
        cls = Module
        gv = cls.main_while_loop(R.const(0, "int32"), x, k, x)
        return gv

    @R.function(private=True)
    def main_while_loop(i: R.Tensor((), dtype="int32"), s: {T23}, k: R.Tensor((), dtype="int32"), x: {T23}) -> {T23}:
        cls = Module
        cond = R.less(i, k)
        c = R.const(1, "int32")
        if cond:
            new_i = R.add(i, c)
            new_s = R.add(s, x)
            r = cls.main_while_loop(new_i, new_s, k, x)
        else:
            r = s
        return r
'''


def test_recursive_closure_takes_its_captures_as_trailing_parameters():
    """PASS-lambda-lift-3: k and x, in order of first use; the recursive call passes
    the lifted function's own parameters on."""
    after = _check_pair(LOOP, LOOP_EXPECTED)
    x = np.ones((2, 3), "float32")
    out = Interpreter(after).run("main", [x, np.array(3, "int32")])
    assert np.array_equal(out, 4 * x)


SYMBOLIC = '''
n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((n, 4), dtype="float32"), b: R.Tensor((m, 4), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        @R.function
        def inner(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n * 4,), dtype="float32"):
            y = R.reshape(x, R.shape([n * 4]))
            return y
        c = inner(b)
        return c
'''

SYMBOLIC_EXPECTED = '''
n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((n, 4), dtype="float32"), b: R.Tensor((m, 4), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        c = cls.main_inner(b, R.prim_value(n))
        return c

    @R.function(private=True)
    def main_inner(x: R.Tensor((n, 4), dtype="float32"), n: T.int64) -> R.Tensor((n * 4,), dtype="float32"):
        y = R.reshape(x, R.shape([n * 4]))
        return y
'''


def test_a_captured_symbolic_variable_is_passed_and_still_checked():
    """The n of inner is main's n: the lifted copy gets its own n (WF-sym-4), defined by
    an R.Prim parameter as well as by x, so a b whose first dimension is not main's n
    still traps on the call's signature check (TVM's lifted function loses that check)."""
    after = _check_pair(SYMBOLIC, SYMBOLIC_EXPECTED)
    a, b3 = np.ones((3, 4), "float32"), np.arange(12, dtype="float32").reshape(3, 4)
    assert np.array_equal(Interpreter(after).run("main", [a, b3]), b3.reshape(12))
    for mod in (parse(SYMBOLIC), after):
        with pytest.raises(RuntimeCheckError) as err:
            Interpreter(mod).run("main", [a, np.ones((2, 4), "float32")])
        assert err.value.check == "signature"


CLOSURE = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, y: {T23}) -> {T23}:
        @R.function
        def outer_func(c1: {T23}) -> R.Callable(({T23},), {T23}):
            @R.function
            def inner_func(x1: {T23}) -> {T23}:
                s = R.add(x1, c1)
                return s
            return inner_func
        in_call = outer_func(x)
        res = in_call(y)
        return res
'''


def test_a_capturing_closure_used_as_a_value_becomes_tvms_closure():
    """PASS-lambda-lift-6: inner_func captures c1 and is returned: it is lifted, and
    main_outer_func returns R.make_closure of it and c1, cast to its function type."""
    before = parse(CLOSURE)
    after = LIFT(before)
    assert sorted(after.functions) == ["main", "main_inner_func", "main_outer_func"]
    assert _local_functions(after["main_outer_func"]) == []
    assert len(after["main_inner_func"].params) == 2  # x1, then the captured c1
    text = print_module(after)
    assert "R.make_closure(cls.main_inner_func, (c1,))" in text
    assert "R.match_cast(inner_func_closure, R.Callable(" in text
    check_pass(LIFT, before, trials=3)
    x, y = np.ones((2, 3), "float32"), np.full((2, 3), 2, "float32")
    assert np.array_equal(Interpreter(after).run("main", [x, y]), x + y)


MUTUAL = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, k: R.Tensor((), dtype="int32")) -> {T23}:
        @R.function
        def f(i: R.Tensor((), dtype="int32")) -> {T23}:
            @R.function
            def g(j: R.Tensor((), dtype="int32")) -> {T23}:
                r = f(j)
                return r
            zero = R.const(0, "int32")
            cond = R.greater(i, zero)
            if cond:
                one = R.const(1, "int32")
                i1 = R.subtract(i, one)
                t = g(i1)
                u = R.add(t, x)
            else:
                u = x
            return u
        out = f(k)
        return out
'''


def test_a_function_called_from_a_function_it_contains():
    """g calls its enclosing f, so lifting g passes f to it as a value: f, which
    captures x, must then stay local (the escape is found after g is lifted)."""
    before = parse(MUTUAL)
    after = LIFT(before)
    assert sorted(after.functions) == ["main", "main_g"]
    assert _local_functions(after["main"]) == ["f"]
    check_pass(LIFT, before, trials=3)
    out = Interpreter(after).run("main", [np.ones((2, 3), "float32"), np.array(2, "int32")])
    assert np.array_equal(out, np.full((2, 3), 3, "float32"))


def test_names_avoid_existing_functions():
    """PASS-lambda-lift-1: main_inner is taken, and the path has two parts only, so the
    fallback main_inner_0 is used (TVM's scheme)."""
    text = BASIC.replace("class Module:", f'''class Module:
    @R.function
    def main_inner(x: {T23}) -> {T23}:
        return x
''')
    after = LIFT(parse(text))
    assert "main_inner_0" in after.functions
    check_pass(LIFT, parse(text), trials=2)


def test_nested_functions_are_lifted_innermost_first():
    text = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {T23}) -> {T23}:
        @R.function
        def outer(a: {T23}) -> {T23}:
            @R.function
            def inner(b: {T23}) -> {T23}:
                c = R.multiply(b, x)
                return c
            d = inner(a)
            return d
        e = outer(x)
        return e
'''
    after = LIFT(parse(text))
    assert sorted(after.functions) == ["main", "main_inner", "main_outer"]
    assert [p.name_hint for p in after["main_inner"].params] == ["b", "x"]
    assert [p.name_hint for p in after["main_outer"].params] == ["a", "x"]
    check_pass(LIFT, parse(text), trials=2)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample(path):
    check_pass(LIFT, parse(path.read_text(), str(path)), trials=2)


@pytest.mark.tvm
def test_tvm_lifts_the_same_functions():
    """Without captures TVM's module is ours. With captures TVM makes closures
    (R.make_closure / R.invoke_pure_closure, which relax_ref cannot read yet) where we
    call the lifted function directly; the lifted function itself is the same. With a
    captured symbolic variable TVM's lifted function has no R.Prim parameter, and a call
    that should fail its signature check succeeds."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    def run_tvm(text):
        tvm_mod = tvm.script.from_source(print_module(parse(text)))
        return relax.transform.LambdaLift()(tvm_mod).script()

    basic = merge_adjacent_blocks(parse(run_tvm(BASIC)))
    assert_structural_equal(merge_adjacent_blocks(LIFT(parse(BASIC))), basic)
    check_pass(Pass("TVM LambdaLift", lambda m: basic), parse(BASIC), trials=2)

    text = run_tvm(LOOP)
    assert "R.make_closure" in text
    lifted = text[text.index("    @R.function(private=True)"):text.index("    @R.function\n")]
    theirs = merge_adjacent_blocks(parse("@I.ir_module\nclass Module:\n" + lifted))
    ours = merge_adjacent_blocks(LIFT(parse(LOOP)))
    assert_structural_equal(ours["main_while_loop"], theirs["main_while_loop"])

    theirs = merge_adjacent_blocks(parse(run_tvm(SYMBOLIC)))
    assert len(theirs["main_inner"].params) == 1
    out = Interpreter(theirs).run("main", [np.ones((3, 4), "float32"), np.ones((2, 4), "float32")])
    assert out.shape == (8,)
