"""bench/tvm_corpus.py: finding IRModule classes in a test file and cutting out the text a
user would paste (no TVM or TVM checkout needed, except where a test says so)."""
from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "bench" / "tvm_corpus.py"
_spec = importlib.util.spec_from_file_location("tvm_corpus", _PATH)
corpus = importlib.util.module_from_spec(_spec)
sys.modules["tvm_corpus"] = corpus
_spec.loader.exec_module(corpus)

# A made-up test file with one module per decorator spelling, at several depths.
TEST_FILE = textwrap.dedent('''\
    import numpy as np
    import tvm
    import tvm.testing
    from tvm.script import ir as I, relax as R
    from tvm.script import tir as T
    from tvm.script import ir_module


    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x


    @tvm.script.ir_module
    class Dotted:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x


    def test_nested():
        from tvm.script import relax as RR

        @I.ir_module(check_well_formed=False)
        class Inner:
            @RR.function
            def main(x: RR.Tensor((4,), "float32")):
                y = RR.add(x, x)
                return y

        class NotAModule:
            pass


    class TestGroup:
        def test_method(self):
            @tvm.script.ir.ir_module
            class Deep:
                @T.prim_func
                def f(A: T.Buffer((4,), "float32")):
                    A[0] = T.float32(1)

            @ir_module
            class Bare:
                @R.function
                def main(x: R.Tensor((4,), "float32")):
                    return x

            @I.ir_module
            class Plain:
                @R.function
                def main(x: R.Tensor((2,), "float32")):
                    return x


    @tvm.testing.fixture
    class NotDecoratedAsModule:
        pass
''')


def _found() -> dict:
    return {x.id: x for x in corpus.extract(TEST_FILE, "tests/python/relax/test_sample.py")}


def test_every_decorator_spelling_at_every_depth():
    found = _found()
    assert sorted(found) == sorted([
        "test_sample__Plain__0", "test_sample__Dotted__0", "test_sample__Inner__0",
        "test_sample__Deep__0", "test_sample__Bare__0", "test_sample__Plain__1"])
    assert found["test_sample__Inner__0"].check_well_formed_false
    assert not found["test_sample__Plain__0"].check_well_formed_false


def test_the_hand_form_is_the_used_tvm_imports_then_the_dedented_class():
    found = _found()
    plain = found["test_sample__Plain__0"].hand
    assert plain.startswith("from tvm.script import ir as I, relax as R\n\n@I.ir_module\n")
    assert "numpy" not in plain and "import tvm\n" not in plain  # unused or not tvm
    dotted = found["test_sample__Dotted__0"].hand
    assert dotted.startswith("import tvm\nfrom tvm.script import ir as I, relax as R\n")
    assert "tvm.testing" not in dotted  # the class does not mention it
    # A function's own imports are kept for the modules inside it.
    inner = found["test_sample__Inner__0"].hand
    assert "from tvm.script import relax as RR\n" in inner
    assert "@I.ir_module(check_well_formed=False)\nclass Inner:\n" in inner
    deep = found["test_sample__Deep__0"].hand
    assert "from tvm.script import tir as T\n" in deep
    assert "\n@tvm.script.ir.ir_module\nclass Deep:\n    @T.prim_func\n" in deep
    assert found["test_sample__Bare__0"].hand.startswith(
        "from tvm.script import ir as I, relax as R\nfrom tvm.script import ir_module\n\n"
        "@ir_module\n")
    for x in found.values():
        ast.parse(x.hand)  # every cut is Python on its own


def test_suite_paths_name_modules_uniquely():
    assert corpus.module_stem("tests/python/relax/test_a.py") == "test_a"
    assert corpus.module_stem("tests/python/relax/backend/x/test_a.py") == "backend.x.test_a"


def test_failure_messages_group_without_places_and_numbers():
    a = corpus.normalize_message("hand/a.py:3:7: error: expected 2 operands, found 3 [SYN-x-1]")
    b = corpus.normalize_message("hand/b.py:9:1: error: expected 4 operands, found 1 [SYN-x-1]")
    assert a == b == "expected N operands, found N [SYN-x-N]"
    assert "R.nn.max_pool2d" in corpus.normalize_message("R.nn.max_pool2d: bad layout")


def test_relax_ref_is_measured_per_form_and_failures_are_not_crashes():
    plain = _found()["test_sample__Plain__0"].hand
    ok = corpus.measure_text(plain, "hand/plain.py")
    assert ok.parsed and ok.checked and ok.round_trip and not ok.crash
    bad = corpus.measure_text(plain.replace("return x", "return x +"), "hand/bad.py")
    assert not bad.parsed and bad.parse_error and not bad.crash


def test_tvm_prints_the_hand_form(tmp_path):
    pytest.importorskip("tvm", reason="building the printed form needs TVM")
    hand = tmp_path / "plain.py"
    hand.write_text(_found()["test_sample__Plain__0"].hand)
    result = corpus._tvm_build(str(hand), "Plain", str(tmp_path / "log.txt"))
    assert result["ok"] and result["tvm_well_formed"]
    assert "class Module:" in result["printed"]
    assert corpus.measure_text(result["printed"], "printed/plain.py").checked


def test_a_failure_is_counted_under_the_rule_it_names():
    assert corpus.rule_of("a.py:1:2: error: bad [SYN-call-3]\n    x\n    ^") == "SYN-call-3"
    assert corpus.rule_of("no rule here") == "(none)"


def test_decorator_lines_in_strings_are_counted_apart():
    text = TEST_FILE + 'EXPECTED = """\n@I.ir_module\nclass Module:\n    pass\n"""\n'
    total, in_strings = corpus.decorator_lines(text)
    assert (total, in_strings) == (7, 1)
    assert len(corpus.extract(text, "tests/python/relax/test_sample.py")) == total - in_strings
