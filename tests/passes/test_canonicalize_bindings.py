"""CanonicalizeBindings (spec/passes.md, PASS-canon-*): Before/Expected pairs, the
traps of DESIGN.md section 7 (match_casts that define or check symbolic variables, no
DataflowVar escaping, no use before definition), the samples, and TVM 0.27."""
from __future__ import annotations

import pytest

from relax_ref.ir import relax as rx
from relax_ref.passes.registry import get_pass
from relax_ref.verify import PassVerificationError, check_pass
from relax_ref.semantics.well_formed import check_well_formed
from tests.conftest import sample_files
from tests.passes.test_normalize_pass import (
    assert_pass_gives, compare_with_tvm, parsed, tvm_can_parse, tvm_output,
)

CANON = get_pass("CanonicalizeBindings")
TVM_CANON = lambda t: t.CanonicalizeBindings()  # noqa: E731

# -- PASS-canon-2: copies disappear --------------------------------------------------------

CHAIN = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            y = x
            z = y
            w = R.add(z, z)
            R.output(w)
        return w
'''
CHAIN_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            w = R.add(x, x)
            R.output(w)
        return w
'''


def test_chains_of_copies_are_removed():
    assert_pass_gives(CANON, CHAIN, CHAIN_EXPECTED)


TUPLE_FIELDS = '''
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        t = (a, b)
        c = t[1]
        u = (t[0], c)
        v = u[0]
        d = R.add(c, v)
        return d
'''
TUPLE_FIELDS_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        t = (a, b)
        u = (a, b)
        d = R.add(b, a)
        return d
'''


def test_fields_of_known_tuples_are_copies():
    assert_pass_gives(CANON, TUPLE_FIELDS, TUPLE_FIELDS_EXPECTED)


# -- PASS-canon-3, PASS-canon-5: dataflow outputs -----------------------------------------

OUTPUT_COPY = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            y = lv
            unused_out = R.multiply(lv, lv)
            R.output(y, unused_out)
        z = R.multiply(y, y)
        return z
'''
OUTPUT_COPY_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            unused_out = R.multiply(y, y)
            R.output(y)
        z = R.multiply(y, y)
        return z
'''


def test_an_output_copying_a_dataflow_var_takes_over_its_binding():
    """The DataflowVar never escapes: ``lv``'s binding now defines ``y``; an output used
    nowhere after its block becomes a DataflowVar."""
    after = assert_pass_gives(CANON, OUTPUT_COPY, OUTPUT_COPY_EXPECTED)
    block = after["main"].body.blocks[0]
    assert isinstance(block.bindings[1].var, rx.DataflowVar)
    assert not isinstance(block.bindings[0].var, rx.DataflowVar)


def test_an_output_used_only_inside_its_block_takes_the_dataflow_var():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            y = lv
            w = R.multiply(y, y)
            R.output(w)
        return w
'''
    expected = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            w = R.multiply(lv, lv)
            R.output(w)
        return w
'''
    assert_pass_gives(CANON, text, expected)


# -- PASS-canon-4: constants -------------------------------------------------------------

CONSTANT = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            c = R.const(2.5, "float32")
            d = R.add(x, c)
            R.output(d)
        return d
'''
CONSTANT_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            c = R.const(2.5, "float32")
            d = R.add(x, R.const(2.5, "float32"))
            R.output(d)
        return d
'''


def test_uses_of_constants_become_the_constant():
    """As TVM: the binding itself stays (DeadCodeElimination removes it)."""
    assert_pass_gives(CANON, CONSTANT, CONSTANT_EXPECTED)


# -- PASS-canon-1, PASS-canon-6: match_cast -------------------------------------------------

RENAMING_CAST = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=2):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            a = R.match_cast(x, R.Tensor((m,), "float32"))
            b = R.add(a, a)
            c = R.match_cast(b, R.Tensor((m,), "float32"))
            s = R.shape([m, m * 2])
            R.output(c, s)
        return s
'''
RENAMING_CAST_EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=2):
        n = T.int64()
        with R.dataflow():
            b = R.add(x, x)
            s = R.shape([n, n * 2])
            R.output(s)
        return s
'''


def test_a_cast_that_only_renames_a_symbolic_variable_goes():
    """``m`` is ``n``: every use of ``m`` becomes ``n`` and the casts are copies. No use
    of ``m`` is left behind (the trap: a removed cast whose variable is still used)."""
    after = assert_pass_gives(CANON, RENAMING_CAST, RENAMING_CAST_EXPECTED, trials=4)
    assert not check_well_formed(after)
    assert not any(isinstance(b, rx.MatchCast) for b in after["main"].body.blocks[0].bindings)


DEFINING_CAST = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("k",), "int32")) -> R.Tensor(("k",), "int32"):
        n = T.int64()
        k = T.int64()
        m = T.int64()
        with R.dataflow():
            u = R.unique(x, True, False, False, False)
            a = R.match_cast(u, R.Tensor((m,), "int32"))
            b = R.match_cast(y, R.Tensor((m,), "int32"))
            c = R.add(a, b)
            s = R.shape([m])
            w = R.match_cast(c, R.Tensor((k,), "int32"))
            R.output(w, s)
        return w
'''


def test_casts_that_define_or_check_symbolic_variables_stay():
    """The trap of DESIGN.md section 7: ``a`` defines ``m`` (its source's length is only
    known at run time) and ``b`` checks ``len(y) == m``. Both stay; the harness tries
    inputs where the check fails, and the trap must stay too."""
    after = CANON(parsed(DEFINING_CAST))
    casts = [b for b in after["main"].body.blocks[0].bindings if isinstance(b, rx.MatchCast)]
    assert len(casts) == 3
    assert not check_well_formed(after)
    report = check_pass(CANON, parsed(DEFINING_CAST), trials=6)
    assert report.traps_matched > 0


def test_a_cast_to_a_coarser_annotation_is_kept():
    """A cast whose target differs from its value's struct info is a check or a
    definition, never a copy."""
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 2), "float32"):
        with R.dataflow():
            a = R.match_cast(x, R.Tensor((4, 2), "float32"))
            b = R.match_cast(x, R.Tensor(dtype="float32", ndim=2))
            c = R.add(b, b)
            R.output(c)
        return c
'''
    after = CANON(parsed(text))
    kinds = [type(b) for b in after["main"].body.blocks[0].bindings]
    assert kinds.count(rx.MatchCast) == 2
    check_pass(CANON, parsed(text), trials=4)


def test_copies_inside_if_branches_and_closures():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = x
        if c:
            z = y
            r = R.add(z, z)
        else:
            r = R.multiply(y, y)
        with R.dataflow():
            lv = R.add(r, r)
            out = lv
            f = R.add(out, x)
            R.output(out)
        return out
'''
    after = CANON(parsed(text))
    assert not check_well_formed(after)
    check_pass(CANON, parsed(text), trials=3)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_canonicalize_bindings_on_every_sample(path):
    check_pass(CANON, parsed(path.read_text()), trials=2)


# -- TVM 0.27 ---------------------------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("text", [CHAIN, TUPLE_FIELDS, OUTPUT_COPY, CONSTANT, RENAMING_CAST],
                         ids=["chain", "tuple_fields", "output_copy", "constant",
                              "renaming_cast"])
def test_agrees_with_tvm(text):
    compare_with_tvm(text, CANON, TVM_CANON, check_ours=False)


@pytest.mark.tvm
def test_tvm_removes_a_cast_that_checks_a_symbolic_variable():
    """PASS-canon-7: TVM infers ``m := k`` from ``b = R.match_cast(y, (m,))`` although
    ``a`` already defined ``m``, substitutes, and drops the check ``len(y) == m``: on
    inputs where the check fails, the original traps in the cast (kind ``match_cast``)
    and TVM's output in ``R.add`` (``shape_mismatch``), or not at all when one length is
    1. Ours keeps the check."""
    theirs = tvm_output(DEFINING_CAST, TVM_CANON)
    casts = theirs.count("R.match_cast")
    assert casts < 3
    with pytest.raises(PassVerificationError):
        compare_with_tvm(DEFINING_CAST, CANON, TVM_CANON, structural=False, trials=6)


@pytest.mark.tvm
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_agrees_with_tvm_on_samples(path):
    text = path.read_text()
    if not tvm_can_parse(text):
        pytest.skip("TVM 0.27 cannot parse this text")
    compare_with_tvm(text, CANON, TVM_CANON, check_ours=False)


def test_field_of_a_tuple_built_in_an_earlier_dataflow_block_is_not_substituted():
    """Found by a 10-minute fuzz campaign: ``lv5 = (lv1, x0)`` leaves its block as an
    output, and ``lv15 = lv5[0]`` in a later block must not become the DataflowVar
    ``lv1``, which would be used outside its block."""
    from relax_ref.parser.builder import parse
    from relax_ref.passes.registry import get_pass
    from relax_ref.verify import check_pass

    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            lv1 = R.negative(x0)
            lv5 = (lv1, x0)
            R.output(lv5)
        with R.dataflow():
            lv15 = lv5[0]
            lv16 = R.negative(lv15)
            R.output(lv16)
        return lv16
'''
    check_pass(get_pass("CanonicalizeBindings"), parse(text), trials=2)
