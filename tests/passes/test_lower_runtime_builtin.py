"""LowerRuntimeBuiltin: memory ops to the VM's, reshape/shape_of/tensor_to_shape to VM
builtins with the ops' own checks, not inside dataflow blocks, the samples and examples
at its stage, and TVM's pass."""
from __future__ import annotations


import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import run
from relax_ref.semantics.normalize import normalize
from relax_ref.verify import check_pass
from tests.conftest import model_files, sample_path
from tests.passes.lowering_helpers import assert_same_as_tvm, at_stage, needs_tvm

LOWER = get_pass("LowerRuntimeBuiltin")

BEFORE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), t: R.Tensor((2,), dtype="int64")):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        s = R.memory.alloc_storage(R.shape([4 * n]), 0, R.str("global"), R.dtype("float32"))
        a = R.memory.alloc_tensor(s, 0, R.shape([n]), R.dtype("float32"), 0)
        R.memory.kill_storage(s)
        y = R.reshape(x, R.shape([1, n]))
        q = R.shape_of(y)
        u = R.tensor_to_shape(t)
        R.memory.kill_tensor(a)
        return (y, q, u)
'''

EXPECTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), t: R.Tensor((2,), dtype="int64")):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        s = R.vm.alloc_storage(R.shape([4 * n]), 0, R.dtype("uint8"), R.str("global"))
        a = R.vm.alloc_tensor(s, 0, R.shape([n]), R.dtype("float32"), 0)
        R.vm.kill_object(s)
        y = R.call_packed("vm.builtin.reshape", x, R.shape([1, n]), sinfo_args=R.Tensor((1, n), dtype="float32"))
        q = R.call_packed("vm.builtin.shape_of", y, sinfo_args=R.Shape([1, n]))
        u = R.call_packed("vm.builtin.tensor_to_shape", t, sinfo_args=R.Shape(ndim=2))
        R.vm.kill_object(a)
        return (y, q, u)
'''


def test_memory_ops_and_builtin_ops_become_the_vms():
    mod = parse(BEFORE)
    assert_structural_equal(LOWER(mod), normalize(parse(EXPECTED)))
    check_pass(LOWER, mod)


def test_the_builtins_trap_as_the_ops_do():
    # R.tensor_to_shape of a negative dimension: the op's own check, same kind after.
    mod = parse(BEFORE)
    args = [np.zeros(3, "float32"), np.array([2, -1], "int64")]
    with pytest.raises(RuntimeCheckError) as before:
        run(mod, "main", args)
    with pytest.raises(RuntimeCheckError) as after:
        run(LOWER(mod), "main", args)
    assert before.value.check == after.value.check == "invalid_value"


def test_ops_in_a_dataflow_block_stay_ops():
    # a packed call is an effect, which a dataflow block may not hold (WF-pure-1)
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        R.func_attr({"relax.force_pure": True})
        with R.dataflow():
            y = R.reshape(x, R.shape([2, 2]))
            R.output(y)
        return y
'''
    mod = normalize(parse(text))
    assert_structural_equal(LOWER(mod), mod)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_samples_and_examples_at_its_stage(path):
    check_pass(LOWER, at_stage("LowerRuntimeBuiltin", path.read_text()), trials=2)


@needs_tvm
def test_same_result_as_tvms_pass():
    assert_same_as_tvm("LowerRuntimeBuiltin", parse(BEFORE))
    assert_same_as_tvm("LowerRuntimeBuiltin",
                       at_stage("LowerRuntimeBuiltin", sample_path("mlp.py").read_text()))
