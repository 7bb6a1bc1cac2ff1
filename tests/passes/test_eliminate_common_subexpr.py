"""EliminateCommonSubexpr (spec/passes.md, PASS-cse-*): Before/Expected pairs, the
traps of DESIGN.md section 7 (impure calls, DataflowVars escaping, match_casts that
define symbolic variables), scopes, the samples, and TVM 0.27."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.passes.eliminate_common_subexpr import eliminate_common_subexpr_with
from relax_ref.passes.registry import get_pass
from relax_ref.verify import check_pass
from relax_ref.semantics.well_formed import check_well_formed
from tests.conftest import sample_files
from tests.passes.test_normalize_pass import (
    assert_pass_gives, compare_with_tvm, parsed, tvm_can_parse,
)

CSE = get_pass("EliminateCommonSubexpr")
CSE_CALLS = eliminate_common_subexpr_with(call_only=True)
TVM_CSE = lambda t: t.EliminateCommonSubexpr()  # noqa: E731


def _values(mod, name="main"):
    return [b.value for block in mod[name].body.blocks for b in block.bindings]


# -- PASS-cse-1, PASS-cse-3: blocks ----------------------------------------------------------

BLOCKS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(x, y)
            c = R.multiply(a, b)
            d = R.add(x, y)
            e = R.multiply(b, d)
            R.output(d, e)
        f = R.add(x, y)
        g = R.multiply(d, f)
        t1 = (d, e)
        t2 = (d, e)
        h = R.add(g, R.add(t2[0], t1[1]))
        return h
'''
BLOCKS_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            a = R.add(x, y)
            b = a
            c = R.multiply(a, a)
            d = a
            e = c
            R.output(d, e)
        f = d
        g = R.multiply(d, d)
        t1 = (d, e)
        t2 = t1
        lv = t1[0]
        lv1 = t1[1]
        lv2 = R.add(lv, lv1)
        h = R.add(g, lv2)
        return h
'''


def test_duplicates_become_copies_and_no_dataflow_var_escapes():
    """Inside the block, ``d`` copies the DataflowVar ``a``; after it, ``f`` reuses the
    output ``d``, never ``a`` (which does not exist there)."""
    after = assert_pass_gives(CSE, BLOCKS, BLOCKS_EXPECTED)
    assert not check_well_formed(after)


def test_call_only_leaves_tuples_and_copies_alone():
    after = CSE_CALLS(parsed(BLOCKS))
    plain = after["main"].body.blocks[1].bindings
    t2 = next(b for b in plain if b.var.name_hint == "t2")
    assert isinstance(t2.value, rx.Tuple)
    check_pass(CSE_CALLS, parsed(BLOCKS), trials=2)


# -- PASS-cse-2: what is never merged --------------------------------------------------------

def test_impure_calls_are_never_merged():
    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a = R.builtin.alloc_tensor(R.shape([2]), R.dtype("float32"), 0)
        b = R.builtin.alloc_tensor(R.shape([2]), R.dtype("float32"), 0)
        p = R.call_packed("vm.builtin.copy", x, sinfo_args=R.Tensor((2,), "float32"))
        q = R.call_packed("vm.builtin.copy", x, sinfo_args=R.Tensor((2,), "float32"))
        c = R.add(p, q)
        return c
'''
    after = CSE(parsed(text))
    assert all(isinstance(v, rx.Call) for v in _values(after))
    check_pass(CSE, parsed(text), trials=2)


TWINS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            a: R.Tensor(dtype="float32", ndim=2) = R.add(x, x)
            b: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
            c = R.multiply(b, b)
            R.output(c)
        return c
'''


def test_differently_annotated_twins_are_not_merged():
    """A copy ``b: R.Tensor((2, 3)) = a`` of ``a: R.Tensor(ndim=2)`` would be finer than
    its value; TVM does not merge these either."""
    after = CSE(parsed(TWINS))
    assert all(isinstance(v, rx.Call) for v in _values(after))
    check_pass(CSE, parsed(TWINS), trials=2)


MATCH_CASTS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), c: R.Tensor((), "bool")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        m = T.int64()
        p = T.int64()
        a = R.add(x, x)
        if c:
            b = R.add(x, x)
            d = R.multiply(b, a)
            r = R.add(d, d)
        else:
            e = R.multiply(x, x)
            r = R.multiply(x, x)
        f = R.multiply(x, x)
        g = R.match_cast(f, R.Tensor((m,), "float32"))
        h = R.match_cast(f, R.Tensor((m,), "float32"))
        k = R.match_cast(f, R.Tensor((p,), "float32"))
        s1 = R.shape([m, p])
        s2 = R.shape([m, p])
        z = R.add(r, h)
        return z
'''
MATCH_CASTS_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), c: R.Tensor((), "bool")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        m = T.int64()
        p = T.int64()
        a = R.add(x, x)
        if c:
            b = a
            d = R.multiply(a, a)
            r = R.add(d, d)
        else:
            e = R.multiply(x, x)
            r_else = e
            r = e
        f = R.multiply(x, x)
        g = R.match_cast(f, R.Tensor((m,), "float32"))
        h = g
        k = R.match_cast(f, R.Tensor((p,), "float32"))
        s1 = R.shape([m, p])
        s2 = s1
        z = R.add(r, g)
        return z
'''


def test_if_branches_and_match_casts():
    """A branch reuses what is bound before the ``if``, but its own bindings end with
    it (``f`` is not ``e``). The first cast to ``(m,)`` stays and defines ``m``; the same
    cast again is a copy of it; a cast to ``(p,)`` defines another variable and stays."""
    after = assert_pass_gives(CSE, MATCH_CASTS, MATCH_CASTS_EXPECTED)
    assert not check_well_formed(after)


def test_nested_functions_start_afresh():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a = R.add(x, x)

        @R.function
        def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            b = R.add(x, x)
            c = R.add(x, x)
            d = R.add(b, c)
            return d

        e = inner(a)
        return e
'''
    after = CSE(parsed(text))
    inner = _values(after)[1]
    inner_values = [b.value for blk in inner.body.blocks for b in blk.bindings]
    assert isinstance(inner_values[0], rx.Call) and isinstance(inner_values[1], rx.Var)
    assert inner_values[1] is not _values(after)[0]
    check_pass(CSE, parsed(text), trials=2)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_cse_on_every_sample(path):
    check_pass(CSE, parsed(path.read_text()), trials=2)


# -- TVM 0.27 ---------------------------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("text", [BLOCKS, MATCH_CASTS, TWINS],
                         ids=["blocks", "match_casts", "twins"])
def test_agrees_with_tvm(text):
    compare_with_tvm(text, CSE, TVM_CSE, check_ours=False)


@pytest.mark.tvm
def test_call_only_agrees_with_tvm():
    compare_with_tvm(BLOCKS, CSE_CALLS, lambda t: t.EliminateCommonSubexpr(call_only=True),
                     check_ours=False)


@pytest.mark.tvm
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_agrees_with_tvm_on_samples(path):
    text = path.read_text()
    if not tvm_can_parse(text):
        pytest.skip("TVM 0.27 cannot parse this text")
    compare_with_tvm(text, CSE, TVM_CSE, check_ours=False)


def test_allocations_are_never_merged():
    # SI-struct-alloc-2: allocations are pure (they may sit in a dataflow block) but two
    # equal calls are two tensors; merged, both writes would land in one.
    text = '''
@I.ir_module
class Module:
    @T.prim_func
    def fill(x: T.Buffer((2,), "float32"), c: T.float32, out: T.Buffer((2,), "float32")):
        for i in range(2):
            out[i] = x[i] + c

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        with R.dataflow():
            a = R.builtin.alloc_tensor(R.shape([2]), "float32", 0)
            b = R.builtin.alloc_tensor(R.shape([2]), dtype="float32", runtime_device_index=0)
            R.output(a, b)
        _1 = cls.fill(x, R.prim_value(T.float32(1)), a)
        _2 = cls.fill(x, R.prim_value(T.float32(2)), b)
        return (a, b)
'''
    after = CSE(parsed(text))
    allocs = [v for v in _values(after) if isinstance(v, rx.Call) and isinstance(v.op, rx.Op)]
    assert len(allocs) == 2
    check_pass(CSE, parsed(text), trials=2)
