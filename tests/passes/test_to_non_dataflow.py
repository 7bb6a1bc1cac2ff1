"""ToNonDataflow: Before/Expected, every sample through the harness, TVM's pass."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.passes.to_non_dataflow import merge_adjacent_blocks
from relax_ref.verify import check_pass
from relax_ref.semantics.normalize import normalize
from relax_ref.testing.strategies import modules
from tests.conftest import sample_files, sample_path

TO_NON_DF = get_pass("ToNonDataflow")

BEFORE = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((n,), dtype="float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            R.output(b)
        if c:
            @R.function
            def inner(y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
                with R.dataflow():
                    t = R.negative(y)
                    u = R.add(t, y)
                    R.output(u)
                return u
            r = inner(b)
        else:
            r = b
        with R.dataflow():
            s = R.subtract(r, x)
            R.output(s)
        return s
'''

EXPECTED = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((n,), dtype="float32"):
        a = R.add(x, x)
        b = R.multiply(a, a)
        if c:
            @R.function
            def inner(y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
                t = R.negative(y)
                u = R.add(t, y)
                return u
            r = inner(b)
        else:
            r = b
        s = R.subtract(r, x)
        return s
'''


def _has_dataflow(mod: rx.IRModule) -> bool:
    text = print_module(mod)
    return "R.dataflow()" in text


def test_dataflow_blocks_and_vars_disappear_everywhere():
    before = parse(BEFORE)
    after = TO_NON_DF(before)
    assert_structural_equal(after, merge_adjacent_blocks(parse(EXPECTED)))
    assert not _has_dataflow(after)
    check_pass(TO_NON_DF, before, trials=4)


def test_the_blocks_of_a_seq_become_one():
    """PASS-to-non-df-1: as TVM's block builder merges them (the text cannot show two
    adjacent ordinary blocks anyway)."""
    after = TO_NON_DF(parse(BEFORE))
    assert len(after["main"].body.blocks) == 1
    assert len(normalize(parse(BEFORE))["main"].body.blocks) == 3


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample(path):
    mod = parse(path.read_text(), str(path))
    check_pass(TO_NON_DF, mod, trials=2)
    assert not _has_dataflow(TO_NON_DF(mod))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_random_modules(mod):
    """Property: on generated modules (private helpers, match_cast, call_tir, if/else)
    the result is well formed and computes the same values."""
    check_pass(TO_NON_DF, mod, trials=2)


@pytest.mark.tvm
@pytest.mark.parametrize("name", ["BEFORE", "mlp.legalized.py", "if_else_call.py"])
def test_tvm_gives_the_same_module(name):
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    if name == "BEFORE":
        text = BEFORE
    else:
        text = sample_path(name).read_text()
    text = print_module(parse(text))
    theirs = normalize(parse(relax.transform.ToNonDataflow()(tvm.script.from_source(text)).script()))
    assert_structural_equal(TO_NON_DF(parse(text)), merge_adjacent_blocks(theirs))
