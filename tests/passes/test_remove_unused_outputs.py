"""RemoveUnusedOutputs: Before/Expected pairs (fields cut, indices remapped through
aliases, one field left, none left), results that count as wholly used, run-time
checked fields kept, the private function compared directly, every sample, TVM's pass."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.passes.to_non_dataflow import merge_adjacent_blocks
from relax_ref.verify import check_pass
from tests.conftest import sample_files
from tests.passes.test_bind_params import compare_adapted

REMOVE = get_pass("RemoveUnusedOutputs")
DCE = get_pass("DeadCodeElimination")
TN = 'R.Tensor((n,), dtype="float32")'


def _same(a: rx.IRModule, b: rx.IRModule) -> None:
    assert_structural_equal(merge_adjacent_blocks(a), merge_adjacent_blocks(b))


def _module(ret: str, result: str, main_body: str, main_ret: str = TN) -> str:
    return f'''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: {TN}) -> {ret}:
        a = R.add(y, y)
        b = R.multiply(y, y)
        c = R.subtract(y, a)
        return {result}

    @R.function
    def main(x: {TN}) -> {main_ret}:
        cls = Module
{main_body}
'''


TUPLE3 = f"R.Tuple({TN}, {TN}, {TN})"
CALL = "        t = cls.f(x)\n"

BEFORE = _module(TUPLE3, "(a, b, c)", CALL + '''        t2 = t
        u = t2[2]
        v = t[0]
        w = R.add(u, v)
        return w''')

EXPECTED = _module(f"R.Tuple({TN}, {TN})", "(a, c)", CALL + '''        t2 = t
        u = t2[1]
        v = t[0]
        w = R.add(u, v)
        return w''')


def test_unused_fields_go_and_indices_follow_through_aliases():
    before = parse(BEFORE)
    after = REMOVE(before)
    _same(after, parse(EXPECTED))
    check_pass(REMOVE, before, trials=3)
    compare_adapted(before, after, "f", draw_from="before", select=lambda o: [o[0], o[2]])


def test_one_field_left_is_returned_bare():
    before = parse(_module(TUPLE3, "(a, b, c)", CALL + "        u = t[1]\n        return u"))
    expected = parse(_module(TN, "b", CALL + "        u = t\n        return u"))
    after = REMOVE(before)
    _same(after, expected)
    check_pass(REMOVE, before, trials=3)
    compare_adapted(before, after, "f", draw_from="before", select=lambda o: [o[1]])


def test_no_field_left_returns_the_empty_tuple():
    before = parse(_module(TUPLE3, "(a, b, c)", CALL + "        return x"))
    after = REMOVE(before)
    assert after["f"].body.body.fields == ()
    check_pass(REMOVE, before, trials=2)


@pytest.mark.parametrize("use", [
    "        return t",                                   # returned whole
    "        z = (t, x)\n        u = z[1]\n        return u",  # put in a tuple
])
def test_a_result_used_whole_keeps_every_field(use):
    main_ret = TUPLE3 if use.endswith("return t") else TN
    before = parse(_module(TUPLE3, "(a, b, c)", CALL + use, main_ret))
    after = REMOVE(before)
    assert len(after["f"].body.body.fields) == 3
    check_pass(REMOVE, before, trials=2)


def test_a_field_checked_at_run_time_stays():
    """PASS-unused-outputs-2: field 1 is annotated (n,) but its value's shape is only
    known at run time; dropping it would drop the return check."""
    text = f'''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: {TN}, z: R.Tensor(dtype="float32", ndim=1)) -> R.Tuple({TN}, {TN}):
        return (y, z)

    @R.function
    def main(x: {TN}, w: R.Tensor((3,), dtype="float32")) -> {TN}:
        cls = Module
        t = cls.f(x, w)
        u = t[0]
        return u
'''
    after = REMOVE(parse(text))
    assert len(after["f"].body.body.fields) == 2
    report = check_pass(REMOVE, parse(text), trials=4)
    assert report.traps_matched > 0


def test_functions_used_as_values_keep_their_outputs():
    text = _module(TUPLE3, "(a, b, c)", CALL + "        u = t[0]\n        g = (u, cls.f)\n        return u")
    after = REMOVE(parse(text))
    assert len(after["f"].body.body.fields) == 3


def test_every_caller_counts():
    text = f'''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: {TN}) -> {TUPLE3}:
        a = R.add(y, y)
        return (a, y, a)

    @R.function
    def g(x: {TN}) -> {TN}:
        cls = Module
        t = cls.f(x)
        u = t[2]
        return u

    @R.function
    def main(x: {TN}) -> {TN}:
        cls = Module
        t = cls.f(x)
        u = t[1]
        return u
'''
    after = REMOVE(parse(text))
    assert len(after["f"].body.body.fields) == 2
    check_pass(REMOVE, parse(text), trials=2)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample(path):
    check_pass(REMOVE, parse(path.read_text(), str(path)), trials=2)


@pytest.mark.tvm
def test_tvm_computes_the_same():
    """Without the alias TVM cuts the same fields (its callee is ours after
    DeadCodeElimination, which TVM runs inside the pass). With the alias ``t2 = t`` TVM
    counts every field as used and changes nothing."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    def run_tvm(text):
        tvm_mod = tvm.script.from_source(print_module(parse(text)))
        return parse(relax.transform.RemoveUnusedOutputs()(tvm_mod).script())

    no_alias = BEFORE.replace("        t2 = t\n", "").replace("t2[2]", "t[2]")
    theirs = run_tvm(no_alias)
    ours = DCE(REMOVE(parse(no_alias)))
    _same(ours.with_functions({"f": ours["f"]}), theirs.with_functions({"f": theirs["f"]}))
    check_pass(Pass("TVM RemoveUnusedOutputs", lambda m: theirs), parse(no_alias), trials=2)

    assert len(run_tvm(BEFORE)["f"].body.body.fields) == 3
