"""ComputePrimValue: composite R.prim_value expressions become calls of one shared host
PrimFunc each, variables and constants stay, the samples at its stage, and TVM's pass."""
from __future__ import annotations


import numpy as np
import pytest

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import run
from relax_ref.values import ShapeValue
from relax_ref.verify import check_pass
from tests.conftest import model_files
from tests.passes.lowering_helpers import at_stage, needs_tvm, tvm_pass

COMPUTE = get_pass("ComputePrimValue")

BEFORE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), s: R.Shape(["m"])):
        n = T.int64()
        m = T.int64()
        p = R.prim_value(n * 2 + m)
        q = R.prim_value(n)
        r = R.prim_value(n * 2 + m)
        return (p, q, r)
'''


def test_a_composite_value_is_computed_by_a_host_prim_func():
    mod = parse(BEFORE)
    out = COMPUTE(mod)
    text = print_module(out)
    assert text.count("cls.compute_symbolic_expr(R.prim_value(n), R.prim_value(m))") == 2
    assert "q = R.prim_value(n)" in text  # PRINT-prim-3: the annotation is what it deduces
    assert [name for name in out.functions if name != "main"] == ["compute_symbolic_expr"]
    assert out.functions["compute_symbolic_expr"].attrs.get("tirx.is_host_func") is True
    result = run(out, "main", [np.zeros(3, "float32"), ShapeValue((5,))])
    assert [v.value for v in result] == [11, 3, 11]
    check_pass(COMPUTE, mod)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_samples_and_examples_at_its_stage(path):
    check_pass(COMPUTE, at_stage("ComputePrimValue", path.read_text()), trials=2)


@needs_tvm
def test_same_prim_func_and_calls_as_tvms_pass():
    mod = parse(BEFORE)
    ours, theirs = COMPUTE(mod), tvm_pass("ComputePrimValue", mod)
    name = "compute_symbolic_expr"
    assert_structural_equal(ours.functions[name], theirs.functions[name], map_free_vars=True)
    for k in (0, 2):  # the bindings of p and r (TVM prints q without its value)
        assert_structural_equal(ours.functions["main"].body.blocks[0].bindings[k].value,
                                theirs.functions["main"].body.blocks[0].bindings[k].value,
                                map_free_vars=True)
