"""Normalize as a pass (spec/passes.md, PASS-norm-*), and the helpers the tests of the
passes of this family share to compare with Apache TVM 0.27 (``compare_with_tvm``)."""
from __future__ import annotations

import functools

import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.passes.rewrite import Rewriter
from relax_ref.verify import check_pass
from relax_ref.semantics.normalize import normalize
from tests.conftest import sample_files

NORMALIZE = get_pass("Normalize")


# -- shared helpers -------------------------------------------------------------------------

def assert_pass_gives(p: Pass, before: str, expected: str, *, trials: int = 3) -> rx.IRModule:
    """Before/Expected: ``p`` applied to ``before`` is structurally equal to ``expected``
    (both in ``canonical`` form), and the differential harness accepts it."""
    after = p(parse(before))
    assert_structural_equal(canonical(after), canonical(parse(expected)))
    check_pass(p, parse(before), trials=trials)
    return after


class _MergePlainBlocks(Rewriter):
    """Adjacent non-dataflow blocks become one: TVM's parser puts the bindings of an
    ``if`` branch or of a function's result in one block where our normalizer may start
    another for the value, a difference of block structure without any in meaning."""

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        s = super().seq(s)
        blocks: list[rx.BindingBlock] = []
        for b in s.blocks:
            if blocks and type(b) is rx.BindingBlock and type(blocks[-1]) is rx.BindingBlock:
                blocks[-1] = rx.BindingBlock(blocks[-1].bindings + b.bindings)
            else:
                blocks.append(b)
        return rx.SeqExpr(tuple(blocks), s.body, span=s.span)


def canonical(mod: rx.IRModule) -> rx.IRModule:
    """``mod`` normalized, with adjacent plain blocks merged."""
    return normalize(_MergePlainBlocks().module(normalize(mod)))


def assert_same_functions(ours: rx.IRModule, theirs: rx.IRModule) -> None:
    """Structural equality of two modules in ``canonical`` form, return annotations
    aside: TVM's parser writes its own deduction of the return where the text has none,
    and its deduction may be coarser than ours (``R.Prim("int64")`` for ``n * m``), so
    return annotations are left to the harness, which checks them at run time."""
    ours, theirs = canonical(ours), canonical(theirs)
    assert sorted(ours.functions) == sorted(theirs.functions)
    for name, f in ours.functions.items():
        g = theirs.functions[name]
        if not isinstance(f, rx.Function):
            assert_structural_equal(f, g)
            continue
        assert (f.is_pure, f.is_private) == (g.is_pure, g.is_private), name
        assert_structural_equal((f.params, f.attrs, f.body), (g.params, g.attrs, g.body),
                                map_free_vars=True)


@functools.lru_cache(maxsize=None)
def parsed(text: str) -> rx.IRModule:
    """``parse(text)``, once per text (IR is immutable; parsing dominates test time)."""
    return parse(text)


@functools.lru_cache(maxsize=None)
def _tvm_module(text: str):
    tvm = pytest.importorskip("tvm")
    try:
        return tvm.script.from_source(text)
    except Exception:  # noqa: BLE001 - the samples README lists the texts TVM cannot parse
        return None


def tvm_can_parse(text: str) -> bool:
    return _tvm_module(text) is not None


def tvm_output(text: str, make_pass) -> str:
    """TVM's pass (``make_pass(tvm.relax.transform)``) applied to ``text``, printed."""
    pytest.importorskip("tvm")
    from tvm import relax

    return make_pass(relax.transform)(_tvm_module(text)).script()


def compare_with_tvm(text: str, ours: Pass, make_pass, *, structural: bool = True,
                     trials: int = 3, check_ours: bool = True
                     ) -> tuple[rx.IRModule, rx.IRModule]:
    """Run TVM's pass on ``text``, read its printed output with our parser, and check
    (a) that TVM's output and ours give the results of ``text`` on the same inputs (the
    harness, same seed) and (b), with ``structural``, that the two outputs are
    structurally equal. When (b) holds, (a) follows from the harness run on ours
    (``check_ours``, or the sample tests), so the harness runs TVM's output only when
    the outputs may differ. Returns (ours, TVM's), both normalized."""
    theirs = normalize(parsed(tvm_output(text, make_pass)))
    mine = ours(parsed(text))
    if check_ours:
        check_pass(ours, parsed(text), trials=trials, seed=0)
    if structural:
        assert_same_functions(mine, theirs)
    else:
        as_pass = Pass(f"TVM's {ours.name}", lambda _: theirs, exact=ours.exact)
        check_pass(as_pass, parsed(text), trials=trials, seed=0)
    return mine, theirs


# -- Normalize ------------------------------------------------------------------------------

NESTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        z = R.multiply(R.add(x, y), R.exp(x))
        return (z, R.add(z, z))
'''

NESTED_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        lv: R.Tensor((2, 3), "float32") = R.add(x, y)
        lv1: R.Tensor((2, 3), "float32") = R.exp(x)
        z: R.Tensor((2, 3), "float32") = R.multiply(lv, lv1)
        lv2: R.Tensor((2, 3), "float32") = R.add(z, z)
        return (z, lv2)
'''


def test_nested_calls_are_bound_in_order():
    """PASS-norm-1: operands and tuple fields become variables, innermost first."""
    assert_pass_gives(NORMALIZE, NESTED, NESTED_EXPECTED)


def test_every_binding_gets_struct_info_and_calls_are_canonical():
    """PASS-norm-2: struct info everywhere, defaults of op attributes filled."""
    after = NORMALIZE(parse('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        with R.dataflow():
            s = R.sum(x, axis=[1])
            R.output(s)
        return s
'''))
    binding = after["main"].body.blocks[0].bindings[0]
    assert binding.var.struct_info is not None and binding.value.struct_info is not None
    assert "keepdims" in binding.value.attrs
    assert after["main"].struct_info is not None


def test_empty_blocks_are_dropped():
    mod = parse(NESTED)
    empty = rx.DataflowBlock(())
    body = mod["main"].body
    f = mod["main"]
    with_empty = mod.with_functions({"main": rx.Function(
        f.params, rx.SeqExpr((empty,) + body.blocks, body.body), f.ret_struct_info, f.is_pure,
        f.attrs, f.is_private)})
    after = NORMALIZE(with_empty)
    assert all(b.bindings for b in after["main"].body.blocks)


def test_input_is_not_mutated_and_result_is_idempotent():
    """PASS-norm-3."""
    mod = parse(NESTED)
    once = NORMALIZE(mod)
    assert mod["main"].body.blocks[0].bindings[0].var.struct_info is None
    assert_structural_equal(NORMALIZE(once), once)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_normalize_on_every_sample(path):
    mod = parsed(path.read_text())
    check_pass(NORMALIZE, mod, trials=2)
    once = NORMALIZE(mod)
    assert_structural_equal(NORMALIZE(once), once)


@pytest.mark.tvm
def test_agrees_with_tvm_on_a_nested_program():
    compare_with_tvm(NESTED.replace("):\n        z", ") -> R.Tuple(R.Tensor((2, 3), \"float32\"), "
                                    "R.Tensor((2, 3), \"float32\")):\n        z"),
                     NORMALIZE, lambda t: t.Normalize())


@pytest.mark.tvm
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_agrees_with_tvm_on_samples(path):
    """Every sample TVM 0.27 can parse: TVM's Normalize output, read by our parser, is
    structurally equal to ours and gives the same results."""
    text = path.read_text()
    if not tvm_can_parse(text):
        pytest.skip("TVM 0.27 cannot parse this text")
    compare_with_tvm(text, NORMALIZE, lambda t: t.Normalize(), check_ours=False)
