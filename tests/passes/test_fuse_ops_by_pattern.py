"""FuseOpsByPattern (spec/passes.md PASS-pattern-match-*) and the library lowering
(PASS-library-*): the pattern language, Composite functions, LowerToLibrary and the
``@library`` decorator; every pass run goes through check_pass."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from relax_ref import transform
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.fuse_ops_by_pattern import fuse_ops_by_pattern
from relax_ref.passes.library import library, library_patterns
from relax_ref.passes.lower_to_library import lower_to_library
from relax_ref.passes.patterns import (is_call_tir, is_const, is_op, match_binding,
                                       wildcard)
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.normalize import normalize
from relax_ref.solver.analyzer import Analyzer
from relax_ref.verify import check_pass

HEADER = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
"""

MLP = HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 8), dtype="float32"),
             b: R.Tensor((8,), dtype="float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            q = R.matmul(r, R.permute_dims(w))
            R.output(r, q)
        return (r, q)
"""

MM = is_op("relax.matmul")(wildcard(), wildcard())
MM_BIAS_RELU = is_op("relax.nn.relu")(is_op("relax.add")(MM, wildcard()))


def composites(mod: rx.IRModule) -> dict[str, str]:
    return {name: f.attrs.get("Composite") for name, f in mod.functions.items()
            if isinstance(f, rx.Function) and f.attrs.get("Composite")}


def main_bindings(mod: rx.IRModule) -> list[rx.Binding]:
    return [b for blk in mod.functions["main"].body.blocks for b in blk.bindings]


def bound_of(mod: rx.IRModule):
    bindings = main_bindings(normalize(mod))
    return bindings, {id(b.var): b.value for b in bindings}


# -- the pattern language ---------------------------------------------------------------------

def test_call_patterns_look_through_bindings_of_the_block():
    bindings, bound = bound_of(parse(MLP))
    r = bindings[2].var
    state = match_binding(MM_BIAS_RELU, r, bound, Analyzer())
    assert state is not None
    assert sorted(v.name_hint for v in state.taken.values()) == ["r", "y", "z"]
    assert match_binding(MM, r, bound, Analyzer()) is None


def test_alternatives_constants_and_predicates():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            a = R.add(x, R.const(1, "float32"))
            e = R.exp(x)
            R.output(a, e)
        return (a, e)
""")
    bindings, bound = bound_of(mod)
    a, e = bindings[0].var, bindings[1].var
    unary = is_op("relax.exp")(wildcard()) | is_op("relax.nn.relu")(wildcard())
    assert match_binding(unary, e, bound, Analyzer()) is not None
    assert match_binding(unary, a, bound, Analyzer()) is None
    assert match_binding(is_op("relax.add")(wildcard(), is_const()), a, bound,
                         Analyzer()) is not None
    assert match_binding(is_op("relax.add")(is_const(), wildcard()), a, bound,
                         Analyzer()) is None
    assert match_binding(unary.has_dtype("float32").has_ndim(2), e, bound,
                         Analyzer()) is not None
    assert match_binding(unary.has_dtype("float16"), e, bound, Analyzer()) is None


def test_shape_predicates_ask_the_analyzer_and_fail_unless_proved():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            y = R.reshape(x, R.shape([n * 4]))
            e = R.exp(y)
            R.output(e)
        return e
""")
    bindings, bound = bound_of(mod)
    n = normalize(mod).functions["main"].params[0].struct_info.shape[0]
    e = bindings[1].var
    exp = is_op("relax.exp")(wildcard())
    assert match_binding(exp.has_shape([4 * n]), e, bound, Analyzer()) is not None
    assert match_binding(exp.has_shape([n + n + n + n]), e, bound, Analyzer()) is not None
    assert match_binding(exp.has_shape([16]), e, bound, Analyzer()) is None  # not proved


def test_attribute_predicates():
    bindings, bound = bound_of(parse(MLP))
    y = bindings[0].var
    assert match_binding(MM.has_attr({"out_dtype": "void"}), y, bound, Analyzer())
    assert match_binding(MM.has_attr({"out_dtype": "float16"}), y, bound, Analyzer()) is None


# -- FuseOpsByPattern -------------------------------------------------------------------------

def test_matches_become_composite_functions_in_tvm_form():
    p = transform.FuseOpsByPattern([("blas.matmul_bias_relu", MM_BIAS_RELU),
                                    ("blas.matmul", MM)])
    mod = parse(MLP)
    check_pass(p, mod)
    out = p(mod)
    assert composites(out) == {"fused_relax_matmul_relax_add_relax_nn_relu":
                               "blas.matmul_bias_relu",
                               "fused_relax_matmul": "blas.matmul"}
    text = print_module(out)
    assert 'R.func_attr({"Composite": "blas.matmul_bias_relu", "Primitive": True})' in text
    assert "cls.fused_relax_matmul_relax_add_relax_nn_relu(x, w, b)" in text
    assert parse(text) is not None


def test_earlier_patterns_win_and_bindings_join_one_match():
    p = fuse_ops_by_pattern([("blas.matmul", MM), ("blas.matmul_bias_relu", MM_BIAS_RELU)])
    mod = parse(MLP)
    check_pass(p, mod)
    assert sorted(composites(p(mod)).values()) == ["blas.matmul", "blas.matmul"]


def test_a_match_whose_inner_value_is_read_elsewhere_is_not_lifted():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((4, 8), dtype="float32"),
             b: R.Tensor((8,), dtype="float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            s = R.add(r, y)
            R.output(s)
        return s
""")
    p = fuse_ops_by_pattern([("blas.matmul_bias_relu", MM_BIAS_RELU)])
    check_pass(p, mod)
    assert composites(p(mod)) == {}
    p2 = fuse_ops_by_pattern([("blas.matmul_bias_relu", MM_BIAS_RELU), ("blas.matmul", MM)])
    check_pass(p2, mod)
    assert list(composites(p2(mod)).values()) == ["blas.matmul"]


def test_constants_stay_inside_or_become_parameters():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32")):
        with R.dataflow():
            a = R.add(x, R.const(2, "float32"))
            e = R.exp(a)
            R.output(e)
        return e
""")
    pat = is_op("relax.exp")(is_op("relax.add")(wildcard(), is_const()))
    for bind in (True, False):
        p = fuse_ops_by_pattern([("add_exp", pat)], bind_constants=bind)
        check_pass(p, mod)
        out = p(mod)
        (name,) = composites(out)
        assert len(out.functions[name].params) == (1 if bind else 2)


def test_call_tir_patterns_on_a_lowered_module():
    mod = transform.LegalizeOps()(parse(MLP))
    add = next(n for n in mod.functions if n.startswith("add"))
    p = fuse_ops_by_pattern([("tir.add_relu", is_call_tir("relu", [is_call_tir(add), ])
                              | is_call_tir("relu"))])
    check_pass(p, mod)
    assert list(composites(p(mod)).values()) == ["tir.add_relu"]


def test_declined_when_a_symbolic_variable_is_not_defined_by_the_inputs():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            y = R.reshape(x, R.shape([n, 1]))
            e = R.exp(y)
            R.output(e)
        return e
""")
    p = fuse_ops_by_pattern([("reshape_exp",
                              is_op("relax.exp")(is_op("relax.reshape")(wildcard(),
                                                                        wildcard())))])
    check_pass(p, mod)
    assert list(composites(p(mod)).values()) == ["reshape_exp"]
    mod2 = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), s: R.Shape(["m"])):
        m = T.int64()
        with R.dataflow():
            y = R.zeros(R.shape([m]), "float32")
            e = R.exp(y)
            R.output(e)
        return e
""")
    p2 = fuse_ops_by_pattern([("zeros_exp",
                               is_op("relax.exp")(is_op("relax.zeros")(wildcard())))])
    check_pass(p2, mod2)
    assert composites(p2(mod2)) == {}


def codegens(mod: rx.IRModule) -> dict[str, str]:
    return {name: f.attrs.get("Codegen") for name, f in mod.functions.items()
            if isinstance(f, rx.Function) and f.attrs.get("Codegen")}


def test_annotate_codegen_wraps_each_composite_function():
    fused = transform.FuseOpsByPattern([("blas.mbr", MM_BIAS_RELU), ("dnnl.mm", MM)],
                                       annotate_codegen=True)
    mod = parse(MLP)
    check_pass(fused, mod)
    out = fused(mod)
    assert codegens(out) == {"fused_relax_matmul_relax_add_relax_nn_relu_blas": "blas",
                             "fused_relax_matmul_dnnl": "dnnl"}
    outer = out.functions["fused_relax_matmul_dnnl"]
    assert not outer.is_private  # an entry point for the external codegen, as in TVM
    local = outer.body.blocks[0].bindings[0].value
    assert isinstance(local, rx.Function) and dict(local.attrs.items) == {"Composite": "dnnl.mm"}
    assert composites(out) == {}  # no top-level Composite function is left


def test_library_lowering_reads_through_codegen_functions():
    fused = fuse_ops_by_pattern(library_patterns(), annotate_codegen=True)
    mid = fused(parse(MLP))
    check_pass(get_pass("LowerToLibrary"), mid)
    text = print_module(lower_to_library(mid))
    assert 'R.call_dps_packed("blas.matmul_bias_relu", (x, w, b), ' in text


# -- library lowering -------------------------------------------------------------------------

def test_library_lowering_calls_the_packed_functions():
    fused = fuse_ops_by_pattern(library_patterns())
    mod = parse(MLP)
    check_pass(fused, mod)
    mid = fused(mod)
    check_pass(get_pass("LowerToLibrary"), mid)
    out = lower_to_library(mid)
    assert composites(out) == {}
    text = print_module(out)
    assert 'R.call_dps_packed("blas.matmul_bias_relu", (x, w, b), ' \
           'out_ty=R.Tensor((n, 8), dtype="float32"))' in text
    assert 'R.call_dps_packed("blas.matmul", (r, lv)' in text


def test_library_patterns_check_dtype_rank_and_variable_operands():
    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), w: R.Tensor((4, 8), dtype="float32"),
             h: R.Tensor((2, 4), dtype="float16"), v: R.Tensor((4, 8), dtype="float16")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.matmul(h, v)
            k = R.nn.relu(R.add(R.matmul(x, w), R.const(1, "float32")))
            R.output(y, z, k)
        return (y, z, k)
""")
    fused = fuse_ops_by_pattern(library_patterns())
    check_pass(fused, mod)
    assert composites(fused(mod)) == {}


def test_the_library_decorator_registers_a_pattern_and_its_function():
    pattern = is_op("relax.multiply")(is_op("relax.exp")(wildcard()), wildcard())

    @library("test.scaled_exp", pattern, override=True)
    def scaled_exp(x, s):
        return np.exp(x) * s

    mod = parse(HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32"), s: R.Tensor((3,), dtype="float32")):
        with R.dataflow():
            e = R.exp(x)
            m = R.multiply(e, s)
            R.output(m)
        return m
""")
    fused = fuse_ops_by_pattern([("test.scaled_exp", pattern)])
    check_pass(fused, mod, trials=2)
    mid = fused(mod)
    check_pass(get_pass("LowerToLibrary"), mid, trials=2)
    assert 'R.call_dps_packed("test.scaled_exp", (x, s)' in print_module(lower_to_library(mid))
    assert ("test.scaled_exp", pattern, None) in library_patterns()


CHAIN = HEADER + """\
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32"),
             b: R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            y2 = R.matmul(r, w)
            z2 = R.add(y2, b)
            s = R.add(z2, y2)
            R.output(s)
        return s
"""


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                    reason="the cross-check needs Apache TVM 0.27")
@pytest.mark.parametrize("text", [MLP, CHAIN], ids=["mlp", "chain"])
def test_same_composite_functions_as_tvm(text):
    import tvm
    from tvm.relax.dpl import is_op as tvm_is_op
    from tvm.relax.dpl import wildcard as tvm_wildcard

    tvm_mm = tvm_is_op("relax.matmul")(tvm_wildcard(), tvm_wildcard())
    tvm_patterns = [("mbr", tvm_is_op("relax.nn.relu")(tvm_is_op("relax.add")(
        tvm_mm, tvm_wildcard()))), ("mm", tvm_mm)]
    mod = parse(text)
    ours = fuse_ops_by_pattern([("mbr", MM_BIAS_RELU), ("mm", MM)])(mod)
    theirs = tvm.relax.transform.FuseOpsByPattern(tvm_patterns)(
        tvm.script.from_source(print_module(mod)))
    back = normalize(parse(theirs.script()))
    assert composites(ours) == composites(back)
    for name in composites(ours):
        assert structural_equal(ours.functions[name], back.functions[name])
    assert tvm.script.from_source(print_module(ours)) is not None  # TVM reads ours


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                    reason="the cross-check needs Apache TVM 0.27")
def test_same_codegen_functions_as_tvm():
    import tvm
    from tvm.relax.dpl import is_op as tvm_is_op
    from tvm.relax.dpl import wildcard as tvm_wildcard

    tvm_mm = tvm_is_op("relax.matmul")(tvm_wildcard(), tvm_wildcard())
    tvm_patterns = [("blas.mbr", tvm_is_op("relax.nn.relu")(tvm_is_op("relax.add")(
        tvm_mm, tvm_wildcard()))), ("dnnl.mm", tvm_mm)]
    mod = parse(MLP)
    ours = fuse_ops_by_pattern([("blas.mbr", MM_BIAS_RELU), ("dnnl.mm", MM)],
                               annotate_codegen=True)(mod)
    theirs = tvm.relax.transform.FuseOpsByPattern(tvm_patterns, annotate_codegen=True)(
        tvm.script.from_source(print_module(mod)))
    back = normalize(parse(theirs.script()))
    assert codegens(ours) == codegens(back)
    for name in codegens(ours):
        assert structural_equal(ours.functions[name], back.functions[name])
    assert tvm.script.from_source(print_module(ours)) is not None  # TVM reads ours


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                    reason="the cross-check needs Apache TVM 0.27")
def test_tvm_reads_the_composite_functions():
    import tvm

    out = fuse_ops_by_pattern(library_patterns())(parse(MLP))
    back = tvm.script.from_source(print_module(out))
    attrs = back["fused_relax_matmul_relax_add_relax_nn_relu"].attrs
    assert attrs["Composite"] == "blas.matmul_bias_relu"
