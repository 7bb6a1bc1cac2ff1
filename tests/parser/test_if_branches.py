"""SYN-relax-6: what an if branch may hold, as TVM 0.27 prints it: dataflow blocks, and a
result given by R.match_cast (bound to NAME_then / NAME_else, TVM's names)."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.errors import ParseError, RuntimeCheckError
from relax_ref.semantics.interpreter import Interpreter
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.well_formed import check_well_formed

HEADER = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
'''

DATAFLOW_IN_BRANCH = HEADER + '''    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        if c:
            with R.dataflow():
                a: R.Tensor((3,), dtype="float32") = R.add(x, x)
                R.output(a)
            r: R.Tensor((3,), dtype="float32") = a
        else:
            r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
            r: R.Tensor((3,), dtype="float32") = r_else
        return r
'''

MATCH_CAST_RESULT = HEADER + '''    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        if c:
            r_then: R.Tensor((3,), dtype="float32") = R.match_cast(x, R.Tensor((3,), dtype="float32"))
            r: R.Tensor(dtype="float32", ndim=1) = r_then
        else:
            r_else: R.Tensor(dtype="float32", ndim=1) = R.multiply(x, x)
            r: R.Tensor(dtype="float32", ndim=1) = r_else
        return r
'''

# The texts as written by hand: TVM 0.27 prints each as the text above.
SOURCES = {
    "dataflow": DATAFLOW_IN_BRANCH.replace(
        '''            r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
            r: R.Tensor((3,), dtype="float32") = r_else''',
        '''            r = R.multiply(x, x)'''),
    "match_cast": MATCH_CAST_RESULT.replace(
        '''            r_then: R.Tensor((3,), dtype="float32") = R.match_cast(x, R.Tensor((3,), dtype="float32"))
            r: R.Tensor(dtype="float32", ndim=1) = r_then''',
        '''            r = R.match_cast(x, R.Tensor((3,), dtype="float32"))''').replace(
        '''            r_else: R.Tensor(dtype="float32", ndim=1) = R.multiply(x, x)
            r: R.Tensor(dtype="float32", ndim=1) = r_else''',
        '''            r = R.multiply(x, x)'''),
}
PRINTED = {"dataflow": DATAFLOW_IN_BRANCH, "match_cast": MATCH_CAST_RESULT}


def _branch(mod: rx.IRModule, which: str) -> rx.SeqExpr:
    binding = mod.functions["main"].body.blocks[0].bindings[0]
    return getattr(binding.value, "true_branch" if which == "then" else "false_branch")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_reads_and_prints_as_tvm_does(name):
    mod = normalize(parse(SOURCES[name]))
    assert not check_well_formed(mod)
    printed = print_module(mod)
    assert printed.split("class Module:", 1)[1].strip() == \
        PRINTED[name].split("class Module:", 1)[1].strip()
    assert structural_equal(normalize(parse(printed)), mod)


def test_a_dataflow_block_in_a_branch():
    mod = parse(SOURCES["dataflow"])
    then = _branch(mod, "then")
    assert [type(b) for b in then.blocks] == [rx.DataflowBlock]
    x = np.arange(3, dtype=np.float32)
    interp = Interpreter(mod)
    np.testing.assert_array_equal(interp.run("main", [np.array(True), x]), x + x)
    np.testing.assert_array_equal(interp.run("main", [np.array(False), x]), x * x)


def test_a_match_cast_result_is_checked_in_its_branch():
    mod = parse(SOURCES["match_cast"])
    cast = _branch(mod, "then").blocks[0].bindings[0]
    assert isinstance(cast, rx.MatchCast) and cast.var.name_hint == "r_then"
    interp = Interpreter(mod)
    x3 = np.ones(3, np.float32)
    np.testing.assert_array_equal(interp.run("main", [np.array(True), x3]), x3)
    x4 = np.full(4, 2, np.float32)
    np.testing.assert_array_equal(interp.run("main", [np.array(False), x4]), x4 * x4)
    with pytest.raises(RuntimeCheckError) as err:
        interp.run("main", [np.array(True), x4])
    assert err.value.check == "match_cast"


def test_no_dataflow_block_in_a_branch_inside_a_dataflow_block():
    text = HEADER + '''    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            if c:
                with R.dataflow():
                    a = R.add(x, x)
                    R.output(a)
                r = a
            else:
                r = x
            R.output(r)
        return r
'''
    with pytest.raises(ParseError, match="cannot nest") as err:
        parse(text)
    assert "SYN-relax-2" in str(err.value) and err.value.span.line == 10


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_tvm_reads_our_printing_alike(name):
    tvm = pytest.importorskip("tvm")
    from tvm.script import from_source

    theirs = from_source(SOURCES[name]).script()
    assert structural_equal(normalize(parse(theirs)), normalize(parse(SOURCES[name])))
    tvm.ir.assert_structural_equal(from_source(print_module(normalize(parse(SOURCES[name])))),
                                   from_source(SOURCES[name]))


# TVM's other branch endings: a dataflow block whose last binding is the result (renamed
# NAME_then / NAME_else, the if binds NAME), and an expression statement (the if binds _).
ENDS_IN_DATAFLOW = HEADER + '''    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        if c:
            with R.dataflow():
                t = R.add(x, x)
                out = R.multiply(t, x)
                R.output(out)
        else:
            with R.dataflow():
                out = R.subtract(x, x)
                R.output(out)
        return out
'''

ENDS_IN_STATEMENT = HEADER + '''    @R.function(pure=False)
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        if c:
            R.print(x, format="then {}")
        else:
            R.print(x, format="else {}")
        return x
'''


def test_a_branch_may_end_in_its_dataflow_block():
    mod = parse(ENDS_IN_DATAFLOW, "t.py")
    binding = mod.functions["main"].body.blocks[0].bindings[0]
    assert binding.var.name_hint == "out"
    then_body, else_body = binding.value.true_branch.body, binding.value.false_branch.body
    assert (then_body.name_hint, else_body.name_hint) == ("out_then", "out_else")
    assert not check_well_formed(mod)
    x = np.array([1.0, 2.0, 3.0], dtype="float32")
    interp = Interpreter(normalize(mod))
    np.testing.assert_array_equal(interp.run("main", [np.array(True), x]), (x + x) * x)
    np.testing.assert_array_equal(interp.run("main", [np.array(False), x]), x - x)
    again = parse(print_module(mod), "again.py")
    assert structural_equal(again, mod)


def test_a_branch_may_end_in_an_expression_statement():
    mod = parse(ENDS_IN_STATEMENT, "t.py")
    binding = mod.functions["main"].body.blocks[0].bindings[0]
    assert binding.var.name_hint == "_"
    assert not check_well_formed(mod)
    x = np.array([1.0, 2.0, 3.0], dtype="float32")
    np.testing.assert_array_equal(Interpreter(normalize(mod)).run("main", [np.array(True), x]), x)
    assert structural_equal(parse(print_module(mod), "again.py"), mod)


def test_a_dataflow_ending_needs_an_output_last():
    text = ENDS_IN_DATAFLOW.replace("                out = R.subtract(x, x)\n"
                                    "                R.output(out)\n",
                                    "                out = R.subtract(x, x)\n"
                                    "                dead = R.add(x, x)\n"
                                    "                R.output(out)\n")
    with pytest.raises(ParseError) as info:
        parse(text, "t.py")
    assert info.value.rule == "SYN-relax-6"
