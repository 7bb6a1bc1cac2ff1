"""RemovePurityChecking: Before/Expected, the dataflow trap (an unwrapped packed call
inside a dataflow block would be ill-formed), every sample, and TVM's pass."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.passes.to_non_dataflow import merge_adjacent_blocks
from relax_ref.verify import check_pass
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.testing.strategies import modules
from tests.conftest import sample_files

REMOVE = get_pass("RemovePurityChecking")
TY = 'ty_args=(R.Tensor((4,), dtype="float32"),)'

BEFORE = f'''
@I.ir_module
class Module:
    @R.function(pure=False)
    def impure(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_pure_packed("vm.builtin.copy", x, {TY})
        z = R.call_packed("vm.builtin.copy", y, {TY})
        return z

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(z: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            w = R.call_pure_packed("vm.builtin.copy", z, {TY})
            return w
        a = R.call_pure_packed("vm.builtin.copy", x, {TY})
        b = R.call_inplace_packed("vm.builtin.copy", a, inplace_indices=[0], {TY})
        c = inner(b)
        return c
'''

EXPECTED = f'''
@I.ir_module
class Module:
    @R.function(pure=False)
    def impure(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_packed("vm.builtin.copy", x, {TY})
        z = R.call_packed("vm.builtin.copy", y, {TY})
        return z

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({{"relax.force_pure": True}})
        @R.function
        def inner(z: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            R.func_attr({{"relax.force_pure": True}})
            w = R.call_packed("vm.builtin.copy", z, {TY})
            return w
        a = R.call_packed("vm.builtin.copy", x, {TY})
        b = R.call_packed("vm.builtin.copy", a, {TY})
        c = inner(b)
        return c
'''


def test_pure_functions_force_purity_and_pure_overrides_unwrap():
    before = parse(BEFORE)
    after = REMOVE(before)
    assert_structural_equal(after, merge_adjacent_blocks(parse(EXPECTED)))
    check_pass(REMOVE, before, trials=2)


DATAFLOW = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            a = R.call_pure_packed("vm.builtin.copy", x, {TY})
            R.output(a)
        b = R.call_pure_packed("vm.builtin.copy", a, {TY})
        return b
'''


def test_calls_inside_dataflow_blocks_stay_pure_overrides():
    """PASS-purity-3: an unwrapped R.call_packed inside a dataflow block would be an
    impure call there (WF-pure-1); after ToNonDataflow every call unwraps."""
    after = REMOVE(parse(DATAFLOW))
    assert not check_well_formed(after)
    text = print_module(after)
    assert text.count("R.call_pure_packed") == 1 and text.count("R.call_packed") == 1
    flat = REMOVE(get_pass("ToNonDataflow")(parse(DATAFLOW)))
    assert print_module(flat).count("R.call_packed") == 2
    check_pass(REMOVE, parse(DATAFLOW), trials=2)


def test_idempotent():
    once = REMOVE(parse(BEFORE))
    assert_structural_equal(REMOVE(once), once)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_every_sample(path):
    mod = parse(path.read_text(), str(path))
    check_pass(REMOVE, mod, trials=2)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_random_modules(mod):
    """Property: on generated modules (private helpers, match_cast, call_tir, if/else)
    the result is well formed and computes the same values."""
    check_pass(REMOVE, mod, trials=2)


@pytest.mark.tvm
def test_tvm_gives_the_same_module_and_breaks_dataflow_blocks():
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    def run_tvm(text):
        return relax.transform.RemovePurityChecking()(tvm.script.from_source(text))

    theirs = merge_adjacent_blocks(parse(run_tvm(BEFORE).script()))
    assert_structural_equal(REMOVE(parse(BEFORE)), theirs)
    # TVM unwraps inside the dataflow block too, and its own checker then rejects it.
    with pytest.raises(Exception, match="within a dataflow block"):
        relax.analysis.well_formed(run_tvm(DATAFLOW))
