"""RemoveUnusedParameters: Before/Expected pairs, a removed parameter that defined a
symbolic variable (passed as R.Shape), removals refused because a check would go, the
private function compared directly with its rewritten self, every sample, TVM's pass."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.passes.to_non_dataflow import merge_adjacent_blocks
from relax_ref.verify import check_pass
from relax_ref.values import ShapeValue
from relax_ref.testing.strategies import modules
from tests.conftest import sample_files
from tests.passes.test_bind_params import compare_adapted

REMOVE = get_pass("RemoveUnusedParameters")


def _same(a: rx.IRModule, b: rx.IRModule) -> None:
    assert_structural_equal(merge_adjacent_blocks(a), merge_adjacent_blocks(b))


def _params(mod: rx.IRModule, name: str) -> list[str]:
    return [p.name_hint for p in mod[name].params]


BASIC = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((n,), dtype="float32"), y: R.Tensor((n,), dtype="float32"), s: R.Tensor((2,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        a = R.add(y, y)
        return a

    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), s: R.Tensor((2,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
        t = cls.f(x, x, s)
        return t
'''

BASIC_EXPECTED = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        a = R.add(y, y)
        return a

    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), s: R.Tensor((2,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
        t = cls.f(x)
        return t
'''


def test_unused_parameters_and_their_arguments_go():
    before = parse(BASIC)
    after = REMOVE(before)
    _same(after, parse(BASIC_EXPECTED))
    check_pass(REMOVE, before, trials=3)
    compare_adapted(before, after, "f", draw_from="before", to_after=lambda a: [a[1]])


# x is unused but alone defines n, which y's annotation and the body use: n must still
# be defined (DESIGN.md section 7), so it is passed as R.shape([k]).
SYMBOL = '''
k = TypeVar("k")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((n,), dtype="float32"), y: R.Tensor((n * 2,), dtype="float32")) -> R.Tensor((n, 2), dtype="float32"):
        z = R.reshape(y, R.shape([n, 2]))
        return z

    @R.function
    def main(a: R.Tensor((k,), dtype="float32"), b: R.Tensor((k * 2,), dtype="float32")) -> R.Tensor((k, 2), dtype="float32"):
        cls = Module
        c = cls.f(a, b)
        return c
'''

SYMBOL_EXPECTED = '''
k = TypeVar("k")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: R.Tensor((n * 2,), dtype="float32"), param_n: R.Shape([n])) -> R.Tensor((n, 2), dtype="float32"):
        z = R.reshape(y, R.shape([n, 2]))
        return z

    @R.function
    def main(a: R.Tensor((k,), dtype="float32"), b: R.Tensor((k * 2,), dtype="float32")) -> R.Tensor((k, 2), dtype="float32"):
        cls = Module
        c = cls.f(b, R.shape([k]))
        return c
'''


def test_a_removed_parameter_that_defined_a_symbol_is_replaced_by_a_shape():
    before = parse(SYMBOL)
    after = REMOVE(before)
    _same(after, parse(SYMBOL_EXPECTED))
    check_pass(REMOVE, before, trials=4)
    compare_adapted(before, after, "f", draw_from="before",
                    to_after=lambda a: [a[1], ShapeValue((a[0].shape[0],))])


def test_a_removal_that_would_drop_a_check_is_refused():
    """PASS-unused-params-3: f's x and y share n; main passes a (p,) and a (q,). Without
    x, nothing would check that p == q any more."""
    text = '''
p = TypeVar("p")
q = TypeVar("q")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((n,), dtype="float32"), y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        return y

    @R.function
    def main(a: R.Tensor((p,), dtype="float32"), b: R.Tensor((q,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        c = cls.f(a, b)
        return c
'''
    after = REMOVE(parse(text))
    assert _params(after, "f") == ["x", "y"]
    report = check_pass(REMOVE, parse(text), trials=3)
    assert report.traps_matched > 0


MATCH_CAST = '''
k = TypeVar("k")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((n,), dtype="float32"), y: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        z = R.match_cast(y, R.Tensor((n,), dtype="float32"))
        return z

    @R.function
    def main(a: R.Tensor((k,), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        c = cls.f(a, b)
        return c
'''


def test_a_symbol_a_match_cast_checks_stays_defined():
    """x alone defines n, which the match_cast then checks y against. Dropping x without
    passing n would make the match_cast define n instead, and the trap for k != 3 would
    disappear (DESIGN.md section 7, removed match_cast definitions)."""
    after = REMOVE(parse(MATCH_CAST))
    assert _params(after, "f") == ["y", "param_n"]
    report = check_pass(REMOVE, parse(MATCH_CAST), trials=4)
    assert report.traps_matched == 3 and report.compared == 1


def test_functions_used_as_values_and_public_functions_keep_their_parameters():
    text = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((2,), dtype="float32"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return y

    @R.function
    def g(x: R.Tensor((2,), dtype="float32"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return y

    @R.function
    def main(a: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Callable((R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")), R.Tensor((2,), dtype="float32"))):
        cls = Module
        b = cls.f(a, a)
        c = cls.g(b, b)
        d = (c, cls.f)
        return d
'''
    after = REMOVE(parse(text))
    assert _params(after, "f") == ["x", "y"] and _params(after, "g") == ["x", "y"]
    check_pass(REMOVE, parse(text), trials=2)


def test_recursive_calls_are_updated_too():
    """(A parameter passed on to the recursive call is used, as in TVM; here the
    recursive call passes a constant.)"""
    text = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def count(i: R.Tensor((), dtype="int32"), unused: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="int32"):
        cls = Module
        zero = R.const(0, "int32")
        cond = R.greater(i, zero)
        if cond:
            one = R.const(1, "int32")
            j = R.subtract(i, one)
            r = cls.count(j, R.const([0.0, 1.0, 2.0], "float32"))
        else:
            r = i
        return r

    @R.function
    def main(a: R.Tensor((), dtype="int32"), w: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="int32"):
        cls = Module
        b = cls.count(a, w)
        return b
'''
    after = REMOVE(parse(text))
    assert _params(after, "count") == ["i"]
    assert "cls.count(j)" in print_module(after)
    check_pass(REMOVE, parse(text), trials=3)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample(path):
    check_pass(REMOVE, parse(path.read_text(), str(path)), trials=2)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_random_modules(mod):
    """Property: on generated modules (private helpers, match_cast, call_tir, if/else)
    the result is well formed and computes the same values."""
    check_pass(REMOVE, mod, trials=2)


@pytest.mark.tvm
def test_tvm_gives_the_same_module_where_no_check_is_lost():
    """TVM agrees on both pairs, R.Shape parameter included. On MATCH_CAST it drops x
    without passing n, so the match_cast defines n (its k != 3 trap is gone), and it
    annotates the call's result R.Tensor((k,)), finer than deduction: TVM trusts that
    annotation, our normalizer checks it at run time (SI-ann-2)."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    def run_tvm(text):
        tvm_mod = tvm.script.from_source(print_module(parse(text)))
        return parse(relax.transform.RemoveUnusedParameters()(tvm_mod).script())

    for text in (BASIC, SYMBOL):
        theirs = run_tvm(text)
        _same(REMOVE(parse(text)), theirs)
        check_pass(Pass("TVM RemoveUnusedParameters", lambda m: theirs), parse(text), trials=2)
    theirs = run_tvm(MATCH_CAST)
    assert [p.name_hint for p in theirs["f"].params] == ["y"]
    # TVM's result annotates the call R.Tensor((k,)), finer than what f now returns; we
    # check that annotation at run time (SI-ann-2), which brings back the k != 3 trap.
    check_pass(Pass("TVM RemoveUnusedParameters", lambda m: theirs), parse(MATCH_CAST),
               trials=2)
