"""LowerAllocTensor: Before/Expected, a shape variable, where it declines, the samples
and examples at its stage of the default pipeline, and TVM's pass."""
from __future__ import annotations


import pytest

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.normalize import normalize
from relax_ref.verify import check_pass
from tests.conftest import model_files, sample_path
from tests.passes.lowering_helpers import assert_same_as_tvm, at_stage, needs_tvm

LOWER = get_pass("LowerAllocTensor")

BEFORE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32")):
        n = T.int64()
        a = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype("float32"), 0, R.str("global"))
        b = R.builtin.alloc_tensor(R.shape([3]), R.dtype("bool"), 0, R.str("global"))
        return (x, a, b)
'''

EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32")):
        n = T.int64()
        storage = R.memory.alloc_storage(R.shape([4 * n * 8]), 0, R.str("global"), R.dtype("uint8"))
        a = R.memory.alloc_tensor(storage, 0, R.shape([n, 8]), R.dtype("float32"), 0)
        storage1 = R.memory.alloc_storage(R.shape([3]), 0, R.str("global"), R.dtype("uint8"))
        b = R.memory.alloc_tensor(storage1, 0, R.shape([3]), R.dtype("bool"), 0)
        return (x, a, b)
'''


def test_each_allocation_gets_a_storage_of_its_bytes():
    mod = parse(BEFORE)
    assert_structural_equal(LOWER(mod), normalize(parse(EXPECTED)))
    check_pass(LOWER, mod)


def test_a_shape_variable_sizes_the_storage_from_its_struct_info():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="int32")):
        n = T.int64()
        s = R.shape([n, 2])
        a = R.builtin.alloc_tensor(s, R.dtype("int32"), 0, R.str("global"))
        return a
'''
    out = print_module(LOWER(parse(text)))
    assert "R.memory.alloc_storage(R.shape([4 * n * 2])" in out
    assert "R.memory.alloc_tensor(storage, 0, s," in out


def test_an_unknown_shape_is_kept():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)):
        a = R.builtin.alloc_tensor(s, R.dtype("int32"), 0, R.str("global"))
        return a
'''
    mod = normalize(parse(text))
    assert_structural_equal(LOWER(mod), mod)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_samples_and_examples_at_its_stage(path):
    check_pass(LOWER, at_stage("LowerAllocTensor", path.read_text()), trials=2)


@needs_tvm
def test_same_result_as_tvms_pass():
    assert_same_as_tvm("LowerAllocTensor", parse(BEFORE))
    assert_same_as_tvm("LowerAllocTensor",
                       at_stage("LowerAllocTensor", sample_path("mlp.py").read_text()))
