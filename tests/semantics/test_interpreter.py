"""The interpreter checks what the language says is checked, and makes bugs visible:
poisoned outputs and storage expose reads of unwritten memory, overlapping plans and
uses after kill (issue: interpreter, "Done when")."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir.dtype import parse_dtype
from relax_ref.parser.builder import parse
from relax_ref.semantics.errors import ResourceError, RuntimeCheckError
from relax_ref.semantics.interpreter import Interpreter, Limits, run
from relax_ref.semantics.packed import register_packed
from relax_ref.semantics.values import PrimScalar, ShapeValue

F32 = np.float32


def _run(text: str, *args, entry: str = "main", **kw):
    return run(parse(text), entry, list(args), **kw)


# -- poisoning makes bugs observable ------------------------------------------------------

READS_OUTPUT_FIRST = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def accumulate(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("acc"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = B[vi] + A[vi]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.accumulate, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
'''


def test_kernel_reading_its_output_before_writing_gives_nan():
    out = _run(READS_OUTPUT_FIRST, np.ones(4, F32))
    assert np.isnan(out).all()


def _planned(offset_of_second: int, kill_first_before_use: bool = False) -> str:
    kill = "        R.memory.kill_tensor(a)\n" if kill_first_before_use else ""
    return f'''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("d"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = A[vi] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("a"):
                vi = T.axis.spatial(T.int64(4), i)
                C[vi] = A[vi] + B[vi]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        storage = R.memory.alloc_storage(R.shape([8]), 0, R.str("global"), R.dtype("float32"))
        a = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"))
        cls.double(x, a)
        b = R.memory.alloc_tensor(storage, {offset_of_second}, R.shape([4]), R.dtype("float32"))
        cls.double(a, b)
{kill}        c = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0)
        cls.add(a, b, c)
        return c
'''


def test_a_correct_memory_plan_gives_the_right_result():
    x = np.arange(4, dtype=F32)
    np.testing.assert_array_equal(_run(_planned(16), x), 2 * x + 4 * x)


def test_overlapping_live_tensors_in_a_broken_plan_give_wrong_results():
    # b is placed over a while a is still live: the reference must show the bug.
    x = np.arange(4, dtype=F32)
    out = _run(_planned(0), x)
    assert not np.array_equal(out, 2 * x + 4 * x)


def test_use_after_kill_reads_poison():
    x = np.arange(4, dtype=F32)
    out = _run(_planned(16, kill_first_before_use=True), x)
    assert np.isnan(out).all()


KILLS_ITS_ARGUMENTS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        c = R.const([[1, 2, 3], [4, 5, 6]], "float32")
        _1 = R.memory.kill_tensor(c)
        y = R.add(x, c)
        _2 = R.memory.kill_tensor(x)
        return y
'''


def test_kill_tensor_poisons_strided_tensors_and_leaves_constants():
    """EXEC-mem-kill-1: a killed tensor reads poison whatever its layout (here a
    transposed view the caller passed); a module constant keeps its bytes."""
    mod = parse(KILLS_ITS_ARGUMENTS)
    base = np.arange(6, dtype=F32).reshape(3, 2)
    x = base.T  # not C-contiguous
    out = Interpreter(mod).run("main", [x])
    assert out.tolist() == [[1, 4, 7], [5, 8, 11]]  # the constant was intact
    assert (base.view(np.uint32) == 0xFFFFFFFF).all()  # every byte of x is poison


def test_out_of_bounds_view_is_an_error():
    with pytest.raises(RuntimeCheckError) as info:
        _run(_planned(20), np.zeros(4, F32))
    assert info.value.check == "out_of_bounds"


# -- signatures ------------------------------------------------------------------------------

SIGNATURE = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(y: R.Tensor(("n * 2",), dtype="float32"), x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 2",), dtype="float32"):
        return y
'''


def test_symbolic_variables_bind_at_their_defining_position_in_any_order():
    y = np.zeros(6, F32)
    np.testing.assert_array_equal(_run(SIGNATURE, y, np.zeros((3, 4), F32)), y)


def test_other_occurrences_are_checked():
    with pytest.raises(RuntimeCheckError) as info:
        _run(SIGNATURE, np.zeros(5, F32), np.zeros((3, 4), F32))
    err = info.value
    assert err.check == "signature"
    assert "n * 2 = 6" in err.message and "dimension 0 is 5" in err.message


def test_dtype_and_arity_are_checked():
    with pytest.raises(RuntimeCheckError) as info:
        _run(SIGNATURE, np.zeros(6, np.float64), np.zeros((3, 4), F32))
    assert info.value.check == "signature"
    with pytest.raises(RuntimeCheckError):
        _run(SIGNATURE, np.zeros(6, F32))


def test_return_annotation_is_checked():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor((3,), dtype="float32"):
        return x
'''
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, np.zeros(4, F32))
    assert info.value.check == "return"


# -- closures, recursion, packed functions, limits -------------------------------------------

CAPTURES_OUTER = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y = R.add(x, x)
        @R.function
        def inner(a: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            return R.multiply(a, y)
        z = inner(x)
        return z
'''


def test_local_function_captures_an_outer_variable():
    x = np.array([1, 2], F32)
    np.testing.assert_array_equal(_run(CAPTURES_OUTER, x), x * (x + x))


def test_unbounded_recursion_is_a_resource_error():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        y = cls.main(x)
        return y
'''
    with pytest.raises(ResourceError):
        _run(text, np.zeros(2, F32), limits=Limits(max_call_depth=50))


def test_absurd_allocation_is_a_resource_error():
    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Tensor(dtype="float32", ndim=1):
        a = R.builtin.alloc_tensor(R.shape([1099511627776]), R.dtype("float32"), 0)
        return a
'''
    with pytest.raises(ResourceError):
        _run(text)


def test_user_registered_packed_function():
    @register_packed("test.scale_by", override=True)
    def scale_by(x, factor):
        return x * factor.value

    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        y = R.call_packed("test.scale_by", x, R.prim_value(T.float32(3.0)), sinfo_args=R.Tensor((3,), dtype="float32"))
        return y
'''
    x = np.array([1, 2, 3], F32)
    np.testing.assert_array_equal(_run(text, x), 3 * x)


def test_prim_parameter_and_shape_values():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float32"), k: R.Prim("int64")) -> R.Tuple(R.Shape(ndim=2), R.Prim("int64")):
        n = T.int64()
        m = T.int64()
        s = R.shape_of(x)
        return (s, R.prim_value(n * m + k))
'''
    s, v = _run(text, np.zeros((2, 5), F32), PrimScalar(7, parse_dtype("int64")))
    assert s == ShapeValue((2, 5)) and v == PrimScalar(17, parse_dtype("int64"))


def test_every_binding_is_checked_against_its_struct_info():
    # A packed function that lies about its result is caught at the binding.
    @register_packed("test.liar", override=True)
    def liar(x):
        return np.zeros((5,), F32)

    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        y = R.call_packed("test.liar", x, sinfo_args=R.Tensor((3,), dtype="float32"))
        return y
'''
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, np.zeros(3, F32))
    assert "test.liar" in info.value.message or info.value.check == "struct_info"


def test_trace_hook_sees_every_binding():
    seen = []
    mod = parse(SIGNATURE.replace("return y", "z = R.add(y, y)\n        return z"))
    Interpreter(mod, trace=lambda b, v: seen.append(b.var.name_hint)).run(
        "main", [np.zeros(6, F32), np.zeros((3, 4), F32)])
    assert seen == ["z"]


def test_a_function_reference_bound_to_a_variable_can_be_called():
    text = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def f(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        g = cls.f
        y = g(x)
        return y
'''
    x = np.array([1, 2], F32)
    np.testing.assert_array_equal(_run(text, x), x)
