"""VMShapeLower: the shape heap and the vm.builtin calls on the mlp stage (the same calls
and codes as TVM's pass), match_cast checks that trap as the match_cast does, composite
expressions computed by shape_func, declining where the builtins would be out of place,
and every sample and example at its stage."""
from __future__ import annotations


import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import run
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.packed import lookup_packed, register_packed
from relax_ref.verify import check_pass
from tests.conftest import model_files, sample_path
from tests.passes.lowering_helpers import at_stage, needs_tvm, tvm_pass

LOWER = get_pass("VMShapeLower")

MATCH = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), dtype="float32"), s: R.Shape(["m"])):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((m, 2), dtype="float32"))
        k = R.shape([n * 2, m + 1])
        return (y, k)
'''


def builtin_calls(mod, func: str = "main", skip_return: bool = False) -> list[tuple]:
    """(builtin name, integer operands) of each packed call in ``func``, in order;
    without the checks of the result when ``skip_return``."""
    out = []
    for block in mod.functions[func].body.blocks:
        for b in block.bindings:
            v = b.value
            if skip_return and any(isinstance(a, rx.StringImm) and "loc=return" in a.value
                                   for a in getattr(v, "args", ())):
                continue
            if isinstance(v, rx.Call) and isinstance(v.op, rx.ExternFunc):
                ints = tuple(a.value.value for a in v.args
                             if isinstance(a, rx.PrimValue) and hasattr(a.value, "value"))
                out.append((v.op.global_symbol, ints))
    return out


def test_parameters_are_checked_and_matched_then_shapes_built_from_the_heap():
    mod = parse(MATCH)
    out = LOWER(mod)
    calls = builtin_calls(out)
    assert calls[:4] == [("vm.builtin.check_tensor_info", (2,)),
                         ("vm.builtin.check_shape_info", (1,)),
                         ("vm.builtin.match_shape", (2, 1, 0, 0, 2)),   # n stored in slot 0
                         ("vm.builtin.match_shape", (1, 1, 1))]         # m stored in slot 1
    # the match_cast compares with slots already filled; the shape reads computed slots
    assert ("vm.builtin.match_shape", (2, 3, 1, 0, 2)) in calls
    assert calls[-1][0] == "vm.builtin.make_shape"
    assert "shape_func" in out.functions
    x = np.ones((3, 2), "float32")
    result = run(out, "main", [x, rx_shape(3)])
    assert result[1].dims == (6, 4)
    check_pass(LOWER, mod)


def rx_shape(*dims):
    from relax_ref.values import ShapeValue

    return ShapeValue(dims)


def test_a_failing_match_cast_traps_as_the_match_cast_does():
    mod = parse(MATCH)
    args = [np.ones((3, 2), "float32"), rx_shape(4)]
    with pytest.raises(RuntimeCheckError) as before:
        run(mod, "main", args)
    with pytest.raises(RuntimeCheckError) as after:
        run(LOWER(mod), "main", args)
    assert before.value.check == after.value.check == "match_cast"
    assert "vm.builtin" not in str(before.value) and "ErrorContext(match_cast" in str(after.value)


def test_a_function_with_a_dataflow_block_or_without_effects_is_kept():
    pure = normalize(parse(MATCH.replace('        R.func_attr({"relax.force_pure": True})\n',
                                         "")))
    assert_structural_equal(LOWER(pure), pure)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_samples_and_examples_at_its_stage(path):
    check_pass(LOWER, at_stage("VMShapeLower", path.read_text()), trials=2)


@needs_tvm
def test_same_builtin_calls_as_tvms_pass():
    # TVM's make_shape results carry only their rank (R.Shape(ndim=2)), ours the values
    # too, so the modules differ in struct info, and TVM then checks the result again
    # (PASS-vm-shape-5); the other calls and their codes agree.
    for mod in (parse(MATCH), at_stage("VMShapeLower", sample_path("mlp.py").read_text())):
        assert builtin_calls(LOWER(mod)) == \
            builtin_calls(tvm_pass("VMShapeLower", mod), skip_return=True)


TUPLE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tuple(R.Tensor(("n", "m"), "float32"), R.Tuple(R.Shape, R.Tensor(("n", "k"), "int32"))),
             w: R.Tensor((4, 4), "float32"), v: R.Tensor(("j",), "float32")):
        R.func_attr({"relax.force_pure": True, "num_input": 1})
        return x
'''


def test_tuples_are_checked_field_by_field_and_weights_trusted_where_static():
    mod = parse(TUPLE)
    calls = builtin_calls(LOWER(mod))
    assert [name.split(".")[-1] for name, _ in calls] == [
        "check_tuple_info", "check_tensor_info", "check_tuple_info", "check_shape_info",
        "check_tensor_info", "check_tensor_info", "match_shape", "match_shape", "match_shape"]
    # n stored from x[0], compared from x[1][1]; the static weight w is not checked
    assert calls[-3:] == [("vm.builtin.match_shape", (2, 1, 0, 1, 1)),
                          ("vm.builtin.match_shape", (2, 3, 0, 1, 2)),
                          ("vm.builtin.match_shape", (1, 1, 3))]
    check_pass(LOWER, mod)


IF_BRANCHES = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor(("m",), "float32"))
            s = R.shape([n * 2])
        else:
            s = R.shape([n * 2])
        return s
'''


def test_each_branch_of_an_if_starts_from_the_slots_before_it():
    mod = parse(IF_BRANCHES)
    out = LOWER(mod)
    text = print_module(out)
    assert text.count("vm.builtin.make_shape") == 2
    check_pass(LOWER, mod)


@needs_tvm
def test_same_builtin_calls_as_tvm_on_tuples_and_weights():
    mod = parse(TUPLE)
    assert builtin_calls(LOWER(mod)) == \
        builtin_calls(tvm_pass("VMShapeLower", mod), skip_return=True)


COMPUTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(ndim=3)) -> R.Shape(ndim=3):
        R.func_attr({"relax.force_pure": True})
        m = T.int64()
        k = T.int64()
        z = R.match_cast(y, R.Tensor((k, m, k + 1)))
        return R.shape([k + 1, m, 2])
'''

RETURNED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "n"), "float32")) -> R.Tensor(("n * n",), "float32"):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        out = R.call_packed("test.vm.flatten", x, sinfo_args=R.Any)
        return out
'''

if lookup_packed("test.vm.flatten") is None:
    @register_packed("test.vm.flatten")
    def _flatten(x):
        return x.reshape(-1)


def test_a_composite_slot_completes_a_match_cast_and_the_result_is_checked():
    # k + 1 is matched after shape_func computes it; a result whose struct info does
    # not prove the annotation is checked against it (loc=return)
    calls = builtin_calls(LOWER(parse(COMPUTED)))
    assert calls[3:5] == [("vm.builtin.match_shape", (3, 1, 2, 3, 1, 2, 0)),
                          ("vm.builtin.match_shape", (3, 3, 2, 3, 1, 3, 3))]
    check_pass(LOWER, parse(COMPUTED))
    returned = LOWER(parse(RETURNED))
    assert builtin_calls(returned)[-1] == ("vm.builtin.match_shape", (1, 3, 1))
    check_pass(LOWER, parse(RETURNED))


@needs_tvm
def test_same_builtin_calls_as_tvm_with_computed_slots_and_result_checks():
    for text in (COMPUTED, RETURNED):
        mod = parse(text)
        assert builtin_calls(LOWER(mod)) == builtin_calls(tvm_pass("VMShapeLower", mod))
