"""DeadCodeElimination through the differential harness, and the harness catching a
deliberately broken pass."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.passes.rewrite import Rewriter, finish
from relax_ref.verify import PassVerificationError, check_pass
from relax_ref.semantics.normalize import normalize
from tests.conftest import sample_files

DCE = get_pass("DeadCodeElimination")

MODULE = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def unused(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), y: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor((n, 4), dtype="float32"):
        m = T.int64()
        with R.dataflow():
            dead = R.multiply(x, x)
            z = R.match_cast(y, R.Tensor((m,), dtype="float32"))
            live = R.add(x, x)
            R.output(live)
        return live
'''


def _names(mod):
    out = []
    for block in mod["main"].body.blocks:
        out.extend(b.var.name_hint for b in block.bindings)
    return out


def test_removes_unused_pure_bindings_and_unreachable_private_functions():
    mod = parse(MODULE)
    after = DCE(mod)
    assert "dead" not in _names(after)
    assert "unused" not in after.functions
    # The match_cast defines m and checks y at run time: it stays.
    assert "z" in _names(after)
    check_pass(DCE, mod, trials=4)


def test_keeps_effects():
    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.print(x, format=R.str("x: {}"))
        a = R.builtin.alloc_tensor(R.shape([2]), R.dtype("float32"), 0)
        return x
'''
    after = DCE(parse(text))
    kinds = [b.value.op.name for b in after["main"].body.blocks[0].bindings]
    assert "relax.print" in kinds


def test_an_unused_allocation_over_the_size_limit_may_go():
    """PASS-verify-4: a resource trap of dead pure code is a trap DCE may remove (the
    pass sweep: conformance/exec/huge_builtin_alloc_resource.py failed verification)."""
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        a = R.builtin.alloc_tensor(R.shape([1099511627776]), R.dtype("float32"), 0)
        return x
'''
    report = check_pass(DCE, parse(text), trials=1)
    assert report.trials == 1 and report.traps_matched == 1


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_dce_on_every_sample(path):
    check_pass(DCE, parse(path.read_text(), str(path)), trials=3)


class _DropsUsedBinding(Rewriter):
    """A broken DCE: it drops the first binding of every dataflow block, used or not."""

    def block(self, block):
        if isinstance(block, rx.DataflowBlock) and len(block.bindings) > 1:
            first = block.bindings[0]
            self.var_map[id(first.var)] = block.bindings[1].var
            rest = tuple(self.binding(b)[0] for b in block.bindings[1:])
            return rx.DataflowBlock(rest, span=block.span)
        return super().block(block)


def test_the_harness_catches_a_pass_that_drops_a_used_binding():
    broken = Pass("BrokenDCE", lambda m: finish(_DropsUsedBinding().module(normalize(m))))
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(x, x)
            c = R.add(a, b)
            R.output(c)
        return c
'''
    with pytest.raises(PassVerificationError):
        check_pass(broken, parse(text), trials=2)
