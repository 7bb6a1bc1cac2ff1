"""The public API (spec/api.md), used as a user would: only names ``relax_ref`` exports."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref import (
    CheckError, Interpreter, IRModule, ParseError, RelaxError, ResourceError,
    RuntimeCheckError, StructInfoError, WellFormedError, check, from_source, parse, run,
    transform, verify,
)

SCALE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: R.Prim("float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.multiply(x, k)
        unused = R.add(x, x)
        return y
'''

TWO_FUNCTIONS = '''
@I.ir_module
class Module:
    @R.function
    def double(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        return R.add(x, x)

    @R.function
    def pair(x: R.Tensor((2,), "int32"), s: R.Shape(["m"])) -> R.Tuple(R.Tensor((2,), "int32"), R.Shape(["m"])):
        return (x, s)
'''


def test_parse_check_print_run():
    mod = from_source(SCALE, "scale.py")
    assert isinstance(mod, IRModule) and parse is from_source
    checked = check(mod)
    assert "R.multiply(x, k)" in checked.script()
    assert from_source(checked.script()).script() == checked.script()
    out = run(checked, np.arange(3, dtype="float32"), 2.0)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


def test_errors_share_one_base_and_check_reports_every_problem():
    for cls in (ParseError, WellFormedError, StructInfoError, RuntimeCheckError,
                ResourceError, CheckError):
        assert issubclass(cls, RelaxError)
    with pytest.raises(ParseError) as info:
        from_source("@I.ir_module\nclass M:\n    x = = 1\n", "bad.py")
    assert "bad.py:3" in str(info.value)
    two_bad = SCALE.replace("R.multiply(x, k)", "R.multiply(x, q)").replace(
        "R.add(x, x)", "R.add(x, z)")
    with pytest.raises(RelaxError) as info:
        check(from_source(two_bad))
    errors = getattr(info.value, "errors", [info.value])
    assert isinstance(info.value, (CheckError, ParseError))
    assert len(errors) >= 1 and all(e.span is not None for e in errors)


def test_check_collects_every_well_formedness_error():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a: R.Tensor((3,), "float32") = R.add(x, x)
        return x

    @R.function
    def g(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        b: R.Tensor((2,), "int32") = R.add(x, x)
        return x
''', "two.py")
    with pytest.raises(CheckError) as info:
        check(mod)
    assert [str(e.span) for e in info.value.errors] == ["two.py:6:9", "two.py:11:9"]
    assert "two.py:11:9" in info.value.render()


def test_entry_defaults_to_the_only_function_and_lists_candidates():
    one = from_source(SCALE.replace("def main", "def scale"))
    np.testing.assert_array_equal(run(one, np.ones(2, "float32"), 3.0), [3.0, 3.0])
    two = from_source(TWO_FUNCTIONS)
    with pytest.raises(RuntimeCheckError, match="double, pair"):
        run(two, np.ones(2, "int32"))
    np.testing.assert_array_equal(run(two, np.array([1, 2], "int32"), entry="double"), [2, 4])


def test_tuples_shapes_and_prims_cross_the_boundary_as_python_values():
    interp = Interpreter(from_source(TWO_FUNCTIONS))
    x, s = interp.run(np.array([5, 6], "int32"), (7,), entry="pair")
    np.testing.assert_array_equal(x, [5, 6])
    assert s.dtype == np.int64 and s.tolist() == [7]
    with pytest.raises(RuntimeCheckError, match="whole number"):
        interp.run(np.array([5, 6], "int32"), (7.5,), entry="pair")
    with pytest.raises(RuntimeCheckError):  # the signature check: wrong shape
        interp(np.zeros(3, "int32"), entry="double")
    # Python numbers take the annotated dtype, when they fit it exactly.
    np.testing.assert_array_equal(interp([1, 2], entry="double"), [2, 4])
    with pytest.raises(RuntimeCheckError, match="fit int32"):
        interp([1.5, 2], entry="double")
    with pytest.raises(RuntimeCheckError):  # an array keeps its dtype: int64 is not int32
        interp(np.array([1, 2]), entry="double")


def test_interpreter_options():
    interp = Interpreter(from_source(SCALE), tir_mode="scalar")
    assert interp.limits.tir_mode == "scalar"
    for _ in range(2):  # one normalization, many calls
        np.testing.assert_array_equal(interp(np.ones(1, "float32"), 1.5), [1.5])
    with pytest.raises(ValueError, match="tir_mode"):
        Interpreter(from_source(SCALE), tir_mode="fast")
    with pytest.raises(ValueError, match="max_steps"):
        Interpreter(from_source(SCALE), max_steps=0)


def test_every_transform_function_makes_its_pass():
    for name in transform.__all__:
        if name in ("Sequential", "build_pass", "pass_options"):
            continue
        args = {"BindParams": ["main", {}], "BindSymbolicVars": [{}]}.get(name, [])
        p = getattr(transform, name)(*args)
        assert p.name == name and callable(p)


def test_transform_passes_take_tvms_arguments():
    mod = check(from_source(SCALE))
    assert "unused" not in transform.DeadCodeElimination()(mod).script()
    bound = transform.BindSymbolicVars({"n": 4})(mod)
    assert "R.Tensor((4,)" in bound.script()
    seq = transform.Sequential([transform.ToNonDataflow(), transform.DeadCodeElimination()])
    assert "unused" not in seq(mod).script()
    report = verify.check_pass(transform.DeadCodeElimination(), mod, trials=2)
    assert report.compared == 2


def test_dead_code_elimination_keeps_named_entry_functions():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
''')
    assert "helper" not in transform.DeadCodeElimination()(mod).functions
    kept = transform.DeadCodeElimination(entry_functions=["helper"])(mod)
    assert "helper" in kept.functions
    with pytest.raises(ValueError, match="no function 'nope'"):
        transform.DeadCodeElimination(entry_functions=["nope"])(mod)


def test_version():
    assert relax_ref.__version__.count(".") >= 1


def test_max_steps_is_the_tir_step_budget():
    mod = from_source('''
@I.ir_module
class Module:
    @T.prim_func
    def count(A: T.Buffer((1,), "int32"), B: T.Buffer((1,), "int32")):
        B[0] = A[0]
        for i in range(1000):
            B[0] = B[0] + 1

    @R.function
    def main(x: R.Tensor((1,), "int32")) -> R.Tensor((1,), "int32"):
        y = R.call_tir(cls.count, (x,), out_sinfo=R.Tensor((1,), "int32"))
        return y
''')
    x = np.zeros(1, "int32")
    assert run(mod, x, tir_mode="scalar").tolist() == [1000]
    with pytest.raises(ResourceError, match="50 steps"):
        run(mod, x, tir_mode="scalar", max_steps=50)
