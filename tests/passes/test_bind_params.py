"""BindParams: Before/Expected pairs, the adapted differential comparison (the bound
function has fewer parameters), the traps (symbolic variables left undefined, checks
dropped), and TVM's own BindParams on the same modules.

``compare_adapted`` compares a rewrite that changes a signature through check_pass with an
Adapter; the other signature-changing passes' tests import it from here."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.bind_params import bind_params
from relax_ref.passes.registry import Adapter, Pass, get_pass
from relax_ref.verify import check_pass
from relax_ref.semantics.inputs import random_value, symbols_needed
from relax_ref.semantics.normalize import normalize
from tests.conftest import sample_files, sample_path


def compare_adapted(before: rx.IRModule, after: rx.IRModule, name: str, *,
                    after_name: str | None = None, draw_from: str = "after",
                    to_before: Callable[[list], list] = lambda args: args,
                    to_after: Callable[[list], list] = lambda args: args,
                    select: Callable[[list], list] = lambda outs: outs,
                    trials: int = 4, seed: int = 0, exact: bool = True) -> int:
    """Run ``before[name]`` and ``after[after_name or name]`` on related arguments and
    compare the outcomes by the harness's rules: check_pass with an Adapter
    (PASS-adapt-1), for a rewrite given as its result. Returns the number of runs that
    compared values (not traps)."""
    adapter = Adapter(draw_from=draw_from, to_before=to_before, to_after=to_after,
                      select=select, after_name=after_name)
    rewrite = Pass("rewrite under test", lambda mod: after, exact=exact)
    report = check_pass(rewrite, before, trials=trials, seed=seed, entries=[name],
                        adapters={name: adapter})
    assert report.trials == trials, report.notes
    return report.compared


def _check_pair(before_text: str, expected_text: str, p) -> tuple[rx.IRModule, rx.IRModule]:
    before = parse(before_text)
    after = p(before)
    assert_structural_equal(after, normalize(parse(expected_text)))
    return before, after


MLP = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((n, 3), dtype="float32"):
        with R.dataflow():
            h = R.matmul(x, w)
            o = R.add(h, b)
            R.output(o)
        return o
'''

MLP_BOUND = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 3), dtype="float32"):
        with R.dataflow():
            h = R.matmul(x, R.const(WEIGHT, "float32"))
            o = R.add(h, R.const(BIAS, "float32"))
            R.output(o)
        return o
'''

W = np.arange(12, dtype="float32").reshape(4, 3) / 7
B = np.array([1.0, -2.0, 0.5], dtype="float32")


def test_bind_weights_to_constants():
    expected = MLP_BOUND.replace("WEIGHT", str(W.tolist())).replace("BIAS", str(B.tolist()))
    before, after = _check_pair(MLP, expected, bind_params("main", {"w": W, "b": B}))
    compare_adapted(before, after, "main", to_before=lambda a: [a[0], W, B])


# PASS-bind-params-2: n is defined only by x; binding x must substitute n everywhere,
# call_tir's out_ty, binding annotations, R.shape values and the return annotation
# included, or n is left undefined (DESIGN.md section 7).
SYMBOLIC = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(var_a: T.handle, var_out: T.handle):
        m = T.int64()
        A = T.match_buffer(var_a, (m,))
        Out = T.match_buffer(var_out, (m,))
        for i in range(m):
            with T.sblock("d"):
                vi = T.axis.spatial(m, i)
                Out[vi] = A[vi] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32"), y: R.Tensor((n * 2,), dtype="float32")) -> R.Tensor((n * 2,), dtype="float32"):
        cls = Module
        with R.dataflow():
            f = R.reshape(x, R.shape([n * 2]))
            d = R.call_tir(cls.double, (f,), out_ty=R.Tensor((n * 2,), dtype="float32"))
            s: R.Tensor((n * 2,), dtype="float32") = R.add(d, y)
            R.output(s)
        return s
'''

SYMBOLIC_BOUND = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(var_a: T.handle, var_out: T.handle):
        m = T.int64()
        A = T.match_buffer(var_a, (m,))
        Out = T.match_buffer(var_out, (m,))
        for i in range(m):
            with T.sblock("d"):
                vi = T.axis.spatial(m, i)
                Out[vi] = A[vi] * T.float32(2.0)

    @R.function
    def main(y: R.Tensor((6,), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        cls = Module
        with R.dataflow():
            f = R.reshape(R.const(XVAL, "float32"), R.shape([6]))
            d = R.call_tir(cls.double, (f,), out_ty=R.Tensor((6,), dtype="float32"))
            s: R.Tensor((6,), dtype="float32") = R.add(d, y)
            R.output(s)
        return s
'''

X3 = np.arange(6, dtype="float32").reshape(3, 2)


def test_symbolic_variables_defined_by_a_bound_parameter_get_its_values():
    p = bind_params("main", {"x": X3})
    before, after = _check_pair(SYMBOLIC, SYMBOLIC_BOUND.replace("XVAL", str(X3.tolist())), p)
    assert compare_adapted(before, after, "main", to_before=lambda a: [X3] + a) == 4


def test_bind_by_variable_and_parameter_order_kept():
    mod = normalize(parse(MLP))
    w_param = mod["main"].params[1]
    after = bind_params("main", {w_param: W})(mod)
    assert [p.name_hint for p in after["main"].params] == ["x", "b"]
    compare_adapted(mod, after, "main", to_before=lambda a: [a[0], W, a[1]])


def test_a_value_that_contradicts_the_annotation_is_rejected():
    # PASS-bind-params-3: (2, 3) can never be a (3, 4)-shaped w; (n, 2) with n=3 from x
    # and y of (5,) conflicting with n * 2 = 6 likewise.
    with pytest.raises(ValueError, match="PASS-bind-params-3"):
        bind_params("main", {"w": np.zeros((2, 3), "float32")})(parse(MLP))
    with pytest.raises(ValueError, match="PASS-bind-params-3"):
        bind_params("main", {"x": X3, "y": np.zeros((5,), "float32")})(parse(SYMBOLIC))
    with pytest.raises(ValueError, match="PASS-bind-params-3"):
        bind_params("main", {"w": np.zeros((4, 3), "float64")})(parse(MLP))


def test_a_check_left_to_run_time_is_rejected():
    # y: (n * 2,) does not define n; without x bound too, only a run-time check could
    # tell whether a (6,) constant fits: binding it would drop that check.
    with pytest.raises(ValueError, match="PASS-bind-params-3"):
        bind_params("main", {"y": np.zeros((6,), "float32")})(parse(SYMBOLIC))


def test_bad_keys_and_referenced_functions_are_rejected():
    with pytest.raises(ValueError, match="PASS-bind-params-1"):
        bind_params("main", {"nope": W})(parse(MLP))
    with pytest.raises(ValueError, match="PASS-bind-params-1"):
        bind_params("absent", {"w": W})(parse(MLP))
    recursion = sample_path("recursion.py")
    with pytest.raises(ValueError, match="PASS-bind-params-4"):
        bind_params("main", {"x": np.zeros((3,), "float32")})(parse(recursion.read_text()))


def test_registered_default_binds_nothing():
    p = get_pass("BindParams")
    mod = parse(MLP)
    assert_structural_equal(p(mod), normalize(mod))
    check_pass(p, mod, trials=2)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_bind_first_tensor_parameter_of_every_sample(path):
    """Bind the entry's first tensor parameter to a constant (its symbolic dimensions
    taken as 3); compare with the original called with that constant."""
    mod = normalize(parse(path.read_text(), str(path)))
    main = mod["main"]
    env = {v: 3 for v in symbols_needed(main)}
    for i, param in enumerate(main.params):
        s = param.struct_info
        if getattr(s, "shape", None) is not None and not s.dtype.is_void:
            break
    else:
        pytest.skip("no tensor parameter of known shape")
    value = random_value(s, env, np.random.default_rng(1), what=param.name_hint)
    try:
        after = bind_params("main", {param.name_hint: value})(mod)
    except ValueError as err:
        assert "PASS-bind-params-4" in str(err)  # a recursive entry
        return
    compare_adapted(mod, after, "main", trials=2,
                    to_before=lambda a: a[:i] + [value] + a[i:])


def tvm_text_with_constants(tvm_mod, constants: list[np.ndarray]) -> str:
    """TVM's text of ``tvm_mod`` with its metadata constant references replaced by
    ``R.const`` literals of ``constants`` (in TVM's metadata order). TVM 0.27's
    ``script(show_meta=True)`` crashes (ToJSONGraph), so the constants are supplied."""
    import re

    def const(m):
        arr = constants[int(m.group(1))]
        return f'R.const({arr.tolist()}, "{arr.dtype}")'

    return re.sub(r'metadata\["[\w.]+"\]\[(\d+)\]', const, tvm_mod.script())


@pytest.mark.tvm
@pytest.mark.parametrize("case", ["mlp", "symbolic"])
def test_tvm_binds_the_same_way(case):
    """TVM's BindParams on the same module, printed by TVM and read by us, is
    structurally our result (TVM simplifies n * 2 with n = 3 to 6 as we do) and computes
    the same values."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    text, params, constants, to_before = {
        "mlp": (MLP, {"w": W, "b": B}, [W, B], lambda a: [a[0], W, B]),
        "symbolic": (SYMBOLIC, {"x": X3}, [X3], lambda a: [X3] + a),
    }[case]
    tvm_mod = tvm.script.from_source(print_module(parse(text)))
    theirs = relax.transform.BindParams("main", params)(tvm_mod)
    theirs = normalize(parse(tvm_text_with_constants(theirs, constants)))
    ours = bind_params("main", params)(parse(text))
    assert_structural_equal(ours, theirs)
    compare_adapted(parse(text), theirs, "main", to_before=to_before)
