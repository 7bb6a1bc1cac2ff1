"""The interpreter checks what the language says is checked, and makes bugs visible:
poisoned outputs and storage expose reads of unwritten memory, overlapping plans and
uses after kill (issue: interpreter, "Done when")."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir.dtype import parse_dtype
from relax_ref.parser.builder import parse
from relax_ref.errors import ResourceError, RuntimeCheckError
from relax_ref.semantics.interpreter import Interpreter, Limits, run
from relax_ref.semantics.packed import register_packed
from relax_ref.values import PrimScalar, ShapeValue

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
        storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("float32"))
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


def test_in_place_output_of_a_tuple_argument_is_an_error():
    # Ill-formed (WF-call-4), but the interpreter runs unchecked modules too.
    text = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(a: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = a[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir_inplace(cls.double, [[x]], inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
        return y
'''
    with pytest.raises(RuntimeCheckError, match="not a tensor") as info:
        _run(text, np.zeros(4, F32))
    assert info.value.rule == "EXEC-dps-3"


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


def _main(params: str, body: str, *, pure: bool = True) -> str:
    """A module whose main takes ``params`` and runs the indented ``body`` lines."""
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    decorator = "@R.function" if pure else "@R.function(pure=False)"
    return f'''
n = TypeVar("n")
@I.ir_module
class Module:
    {decorator}
    def main({params}):
{lines}
'''


@pytest.mark.parametrize("body", [
    'y = R.ones(R.shape([100000, 100000]), "float32")\nreturn y',  # a static result
    'y = R.ones(R.shape([n, n]), "float32")\nreturn y',  # sized by the symbolic n
])
def test_op_results_are_checked_against_the_limit_before_they_are_made(body):
    """EXEC-limit-1: the result's struct info gives its size before the op runs."""
    text = _main("x: R.Tensor((n,), dtype=\"float32\")", body)
    with pytest.raises(ResourceError) as info:
        _run(text, np.zeros(100000, F32), limits=Limits(max_tensor_bytes=10**9))
    assert "40000000000 bytes" in info.value.message and info.value.rule == "EXEC-limit-1"


def test_op_results_of_unknown_shape_are_checked_once_made():
    text = _main("x: R.Tensor(dtype=\"float32\", ndim=1), s: R.Shape(ndim=2)",
                 "y = R.broadcast_to(x, s)\nreturn y")
    with pytest.raises(ResourceError):
        _run(text, np.zeros(1000, F32), ShapeValue((1000, 1000)),
             limits=Limits(max_tensor_bytes=10**6))


def test_dimensions_beyond_int64_are_refused():
    text = _main("x: R.Tensor((n,), dtype=\"float32\")",
                 'y = R.zeros(R.shape([n * n * n * n, 0]), "float32")\nreturn y')
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, np.zeros(65536, F32))
    assert info.value.check == "shape_mismatch" and "int64" in info.value.message
    text = _main("", 'a = R.builtin.alloc_tensor(R.shape([0, 4611686018427387904, 4]), '
                     'R.dtype("float32"), 0)\nreturn a', pure=False)
    with pytest.raises(ResourceError):
        _run(text)


@pytest.mark.parametrize("dtype", ["float32x4", "handle"])
def test_memory_of_a_type_no_tensor_holds_is_refused(dtype):
    text = _main("", f'''
s = R.memory.alloc_storage(R.shape([64]), 0, R.str("global"), R.dtype("uint8"))
a = R.memory.alloc_tensor(s, 0, R.shape([2]), R.dtype("{dtype}"), 0)
return a''', pure=False)
    with pytest.raises(RuntimeCheckError) as info:
        _run(text)
    assert info.value.check == "dtype_mismatch" and dtype in info.value.message


@pytest.mark.parametrize("body, args, words", [
    ("y = R.bitwise_and(x, x)\nreturn y", [np.ones(3, F32)], "R.bitwise_and"),
    ("y = R.power(x, x)\nreturn y", [np.array([2, -1, 3], np.int32)], "R.power"),
])
def test_ops_numpy_cannot_compute_are_unsupported_checks(body, args, words):
    """EXEC-op-1: a dtype NumPy has no loop for is reported, not a Python error."""
    text = _main(f"x: R.Tensor((3,), dtype=\"{args[0].dtype}\")", body)
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, *args)
    assert info.value.check == "unsupported" and words in info.value.message


def test_assert_needs_a_bool_scalar():
    text = _main("c: R.Tensor((3,), dtype=\"bool\")",
                 '_ = R.assert_op(c, format="hi")\nreturn c', pure=False)
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, np.ones(3, bool))
    assert info.value.check == "struct_info" and info.value.rule == "EXEC-assert-1"


def test_formats_fill_positions_only(capsys):
    text = _main("x: R.Tensor((2,), dtype=\"float32\")", '''
_1 = R.print(x, format="x={0:>12}|")
_2 = R.print(x, format="{0.__class__}")
return x''', pure=False)
    _run(text, np.array([1, 2], F32))
    first, second = capsys.readouterr().out.splitlines()
    assert first == "x=     [1. 2.]|"
    assert second == "{0.__class__} [1. 2.]"  # no attribute lookups from program text


def test_negative_shape_values_are_refused():
    text = _main('s: R.Shape(["a", "b"])', 'y = R.zeros(s, "float32")\nreturn y')
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, ShapeValue((-1, 3)))
    assert info.value.check == "signature" and "negative" in info.value.message


def test_long_shape_expressions_run():
    """A 1000-term sum nests 1000 deep; normalization gets the room the call depth
    limit gives (EXEC-limit-2) instead of Python's default."""
    terms = " + ".join(["n"] * 1000)
    text = _main("x: R.Tensor((n,), dtype=\"float32\")",
                 f"y = R.reshape(x, R.shape([{terms} - 999 * n]))\nreturn y")
    assert _run(text, np.zeros(3, F32)).shape == (3,)


@pytest.mark.parametrize("index", ["R.prim_value(-1)", "R.prim_value(2)",
                                   'R.prim_value(T.float32(0.5))'])
def test_tuple_getitem_builtin_needs_an_index_within_the_tuple(index):
    text = _main("x: R.Tensor((2,), dtype=\"float32\")", f'''
t = (x, x)
y = R.call_pure_packed("vm.builtin.tuple_getitem", t, {index}, sinfo_args=(R.Tensor((2,), dtype="float32"),))
return y''')
    with pytest.raises(RuntimeCheckError) as info:
        _run(text, np.zeros(2, F32))
    assert info.value.check == "packed" and "integer index" in info.value.message
    ok = text.replace(index, "R.prim_value(1)")
    assert _run(ok, np.ones(2, F32)).tolist() == [1, 1]


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


# -- errors are located (EXEC-error-1) ---------------------------------------------------------

TWO_PARAMS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        z = R.add(x, y)
        return z
'''


def test_signature_errors_name_the_parameter_location():
    mod = parse(TWO_PARAMS, "two.py")
    with pytest.raises(RuntimeCheckError) as info:
        run(mod, "main", [np.zeros(4, F32), np.zeros(3, F32)])
    assert str(info.value).startswith("two.py:5:44: error: argument 'y' of main")
    with pytest.raises(RuntimeCheckError) as info:
        run(mod, "main", [np.zeros(4, F32)])
    assert str(info.value).startswith("two.py:5:5: error: main takes 2 arguments")


def test_resource_errors_name_the_binding_location():
    mod = parse(TWO_PARAMS, "two.py")
    with pytest.raises(ResourceError) as info:
        run(mod, "main", [np.zeros(4, F32)] * 2, limits=Limits(max_tensor_bytes=8))
    assert str(info.value).startswith("two.py:6:")


# -- SI-if-1, EXEC-if-1: a condition of one element -----------------------------------------

ONE_ELEMENT_CONDITION = '''
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor({shape}, "bool"), x: R.Tensor((2,), "float32")):
        if c:
            y = x
        else:
            y = R.negative(x)
        return y
'''


def test_if_condition_of_one_element_as_tvm_onnx_writes_it():
    text = ONE_ELEMENT_CONDITION.format(shape="(1,)")
    out = _run(text, np.array([False]), np.array([3, 4], F32))
    np.testing.assert_array_equal(out, [-3, -4])


def test_if_condition_of_unknown_shape_is_checked_where_the_if_runs():
    text = ONE_ELEMENT_CONDITION.format(shape="(n,)").replace("def main", "def main", 1)
    text = text.replace('R.Tensor((n,), "bool")', 'R.Tensor(("n",), "bool")')
    np.testing.assert_array_equal(_run(text, np.array([True]), np.array([3, 4], F32)), [3, 4])
    with pytest.raises(RuntimeCheckError) as err:
        _run(text, np.array([True, False]), np.array([3, 4], F32))
    assert err.value.rule == "EXEC-if-1" and err.value.span.line == 6


def test_if_condition_of_several_elements_is_an_error():
    from relax_ref.errors import StructInfoError
    from relax_ref.semantics.normalize import normalize

    with pytest.raises(StructInfoError) as err:
        normalize(parse(ONE_ELEMENT_CONDITION.format(shape="(1, 3)")))
    assert err.value.rule == "SI-if-1"
