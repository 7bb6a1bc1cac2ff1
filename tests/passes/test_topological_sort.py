"""TopologicalSort (spec/passes.md, PASS-topo-*): Before/Expected pairs, TVM's four
orders, the trap of DESIGN.md section 7 (a use of a symbolic variable moved above the
match_cast that defines it), ordered bindings, the samples, and TVM 0.27."""
from __future__ import annotations

import pytest

from relax_ref.passes.registry import get_pass
from relax_ref.passes.topological_sort import topological_sort_with
from relax_ref.verify import check_pass
from relax_ref.errors import RelaxError
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.well_formed import check_well_formed
from tests.conftest import sample_files
from tests.passes.test_normalize_pass import (
    assert_pass_gives, compare_with_tvm, parsed, tvm_can_parse, tvm_output,
)

SORT = get_pass("TopologicalSort")
ORDERS = [(o, d) for o in ("depth-first", "breadth-first")
          for d in ("from-inputs", "from-outputs")]


def _names(mod, name="main"):
    return [b.var.name_hint for b in mod[name].body.blocks[0].bindings]


def _tvm(order, direction):
    return lambda t: t.TopologicalSort(order, direction)


INTERLEAVED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(y, y)
            c = R.add(a, a)
            d = R.multiply(b, b)
            e = R.add(c, d)
            R.output(e)
        return e
'''
INTERLEAVED_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            c = R.add(a, a)
            b = R.multiply(y, y)
            d = R.multiply(b, b)
            e = R.add(c, d)
            R.output(e)
        return e
'''


def test_depth_first_from_inputs_follows_each_chain():
    """PASS-topo-1 with TVM's defaults: each input's chain of uses in turn."""
    assert_pass_gives(SORT, INTERLEAVED, INTERLEAVED_EXPECTED)


@pytest.mark.parametrize("order,direction", ORDERS)
def test_every_order_keeps_results(order, direction):
    p = topological_sort_with(order, direction)
    after = p(parsed(INTERLEAVED))
    assert sorted(_names(after)) == sorted(_names(normalize(parsed(INTERLEAVED))))
    check_pass(p, parsed(INTERLEAVED), trials=2)


def test_unknown_options_are_refused():
    with pytest.raises(ValueError):
        topological_sort_with("random", "from-inputs")
    with pytest.raises(ValueError):
        topological_sort_with("depth-first", "sideways")


SYMBOLIC = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor((4,), dtype="float32")):
        m = T.int64()
        with R.dataflow():
            a = R.add(y, y)
            b = R.match_cast(x, R.Tensor((m,), "float32"))
            c = R.multiply(y, a)
            s = R.shape([m, 2])
            d = R.add(b, b)
            R.output(d, s, c)
        return (d, s, c)
'''


@pytest.mark.parametrize("order,direction", ORDERS)
def test_symbolic_variables_stay_after_their_definition(order, direction):
    """The trap of DESIGN.md section 7: ``s`` uses no Relax variable, only ``m``; TVM's
    breadth-first search from the inputs emits it before the cast that defines ``m``.
    Ours never does (PASS-topo-2)."""
    p = topological_sort_with(order, direction)
    after = p(parsed(SYMBOLIC))
    names = _names(after)
    assert names.index("b") < names.index("s")
    assert not check_well_formed(after)
    check_pass(p, parsed(SYMBOLIC), trials=3)


CASTS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        m = T.int64()
        k = T.int64()
        with R.dataflow():
            a = R.match_cast(x, R.Tensor((m,), "float32"))
            b = R.match_cast(y, R.Tensor((k,), "float32"))
            c = R.add(b, b)
            d = R.add(a, a)
            e = R.add(c, d)
            R.output(e)
        return e
'''


@pytest.mark.parametrize("order,direction", ORDERS)
def test_casts_keep_their_relative_order(order, direction):
    """PASS-topo-2: checks run in program order (TVM's depth-first search from the
    outputs swaps ``a`` and ``b``)."""
    after = topological_sort_with(order, direction)(parsed(CASTS))
    names = _names(after)
    assert names.index("a") < names.index("b")
    check_pass(topological_sort_with(order, direction), parsed(CASTS), trials=2)


def test_only_dataflow_blocks_move():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a = R.add(x, x)
        b = R.multiply(y, y)
        c = R.add(a, a)
        d = R.add(c, b)
        return d
'''
    after = SORT(parsed(text))
    assert _names(after) == ["a", "b", "c", "d"]


NESTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a = R.add(x, x)

        @R.function
        def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                b = R.add(y, a)
                c = R.multiply(y, y)
                d = R.add(b, c)
                R.output(d)
            return d

        r = inner(x)
        return r
'''


def test_nested_functions_sort_their_own_blocks():
    """A captured variable (``a``) is available before the nested function runs: it is
    no edge of the nested function's graph (TVM 0.27 too; older TVM could not reach it
    and failed)."""
    after = SORT(parsed(NESTED))
    inner = after["main"].body.blocks[0].bindings[1].value
    assert [b.var.name_hint for b in inner.body.blocks[0].bindings] == ["b", "c", "d"]
    check_pass(SORT, parsed(NESTED), trials=2)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_topological_sort_on_every_sample(path):
    check_pass(topological_sort_with("breadth-first", "from-outputs"), parsed(path.read_text()),
               trials=1)
    check_pass(SORT, parsed(path.read_text()), trials=1)


# -- TVM 0.27 ---------------------------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("order,direction", ORDERS)
def test_agrees_with_tvm(order, direction):
    compare_with_tvm(INTERLEAVED, topological_sort_with(order, direction),
                     _tvm(order, direction), check_ours=False)


@pytest.mark.tvm
def test_nested_functions_agree_with_tvm():
    compare_with_tvm(NESTED, SORT, _tvm("depth-first", "from-inputs"), check_ours=False)


@pytest.mark.tvm
@pytest.mark.parametrize("order,direction", [o for o in ORDERS if o != ("breadth-first",
                                                                         "from-inputs")])
def test_agrees_with_tvm_where_tvm_keeps_definitions_first(order, direction):
    compare_with_tvm(SYMBOLIC, topological_sort_with(order, direction), _tvm(order, direction),
                     check_ours=False)


@pytest.mark.tvm
def test_tvm_moves_a_use_of_a_symbolic_variable_above_its_definition():
    """TVM's output uses ``m`` before ``R.match_cast`` defines it: our normalizer or
    well-formedness check rejects it (PASS-topo-2 is where we differ)."""
    theirs = tvm_output(SYMBOLIC, _tvm("breadth-first", "from-inputs"))
    assert theirs.index("R.shape([m, 2])") < theirs.index("R.match_cast")
    try:
        problems = check_well_formed(parsed(theirs))
    except RelaxError:
        problems = ["rejected"]
    assert problems


@pytest.mark.tvm
def test_tvm_swaps_casts_where_we_keep_them():
    theirs = normalize(parsed(tvm_output(CASTS, _tvm("depth-first", "from-outputs"))))
    names = [b.var.name_hint for b in theirs["main"].body.blocks[0].bindings]
    assert names.index("b") < names.index("a")


@pytest.mark.tvm
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_agrees_with_tvm_on_samples(path):
    text = path.read_text()
    if not tvm_can_parse(text):
        pytest.skip("TVM 0.27 cannot parse this text")
    compare_with_tvm(text, SORT, _tvm("depth-first", "from-inputs"), check_ours=False)
