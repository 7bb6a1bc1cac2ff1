"""DispatchSortScan (spec/passes.md PASS-dispatch-*): sort, argsort and topk become
library calls, cumsum and cumprod serial-scan PrimFuncs; each drawn case keeps its results
under check_pass at several symbolic values (0 and 1 included), ties and NaNs included."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref import transform
from relax_ref.conformance import DEFAULT_SUITE, RelaxRefImpl, check_case, discover
from relax_ref.ir import tir
from relax_ref.passes.dispatch_sort_scan import dispatch_sort_scan
from relax_ref.verify import check_pass

from ..ops.legalize_helpers import calls_of, module

_SETTINGS = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
_SHAPES = ['("n", 3)', '(2, "n")', '("n", "m", 2)', '("n",)', '(0, 4)']
_OPS = ("relax.sort", "relax.argsort", "relax.topk", "relax.cumsum", "relax.cumprod")


def dispatched(text: str, op: str, *, trials: int = 4) -> relax_ref.IRModule:
    """The pass on ``text`` verified by check_pass; no call of ``op`` may remain."""
    mod = relax_ref.check(relax_ref.from_source(text))
    assert calls_of(mod, op) > 0
    check_pass(dispatch_sort_scan, mod, trials=trials)
    out = dispatch_sort_scan(mod)
    assert calls_of(out, op) == 0, out.script()
    return out


def _ndim(shape: str) -> int:
    return shape.count(",") if not shape.endswith(",)") else 1


@_SETTINGS
@given(st.sampled_from(["sort", "argsort"]), st.sampled_from(_SHAPES), st.booleans(),
       st.sampled_from(["float32", "int32", "float16"]), st.integers(-3, 2),
       st.sampled_from(["int32", "int64", "float32"]))
def test_sort_and_argsort(name, shape, descending, dtype, axis, index_dtype):
    axis = axis % _ndim(shape)
    extra = f', dtype="{index_dtype}"' if name == "argsort" else ""
    text = module(f'x: R.Tensor({shape}, "{dtype}")',
                  f"y = R.{name}(x, axis={axis}, descending={descending}{extra})")
    out = dispatched(text, f"relax.{name}")
    assert f'"relax_ref.sort.{name}"' in out.script()


@_SETTINGS
@given(st.sampled_from(_SHAPES), st.integers(-1, 4), st.booleans(),
       st.sampled_from(["both", "values", "indices"]), st.sampled_from(["float32", "int8"]),
       st.sampled_from(["int32", "int64"]))
def test_topk(shape, k, largest, ret_type, dtype, index_dtype):
    text = module(f'x: R.Tensor({shape}, "{dtype}")',
                  f'y = R.topk(x, k={k}, axis=0, ret_type="{ret_type}", largest={largest}, '
                  f'dtype="{index_dtype}")')
    dispatched(text, "relax.topk")


@_SETTINGS
@given(st.sampled_from(["cumsum", "cumprod"]), st.sampled_from(_SHAPES + ["()"]),
       st.sampled_from([None, 0, -1, 1]), st.booleans(),
       st.sampled_from([("float32", None), ("int32", None), ("int8", "int8"),
                        ("int32", "int64"), ("float16", "float32"), ("bool", "int32"),
                        ("int64", "float16"), ("bfloat16", None)]))
def test_scans(name, shape, axis, exclusive, dtypes):
    ndim = 0 if shape == "()" else _ndim(shape)
    if axis is not None and not -ndim <= axis < ndim:
        axis = None
    in_dtype, out_dtype = dtypes
    attrs = f"axis={axis}, exclusive={exclusive}" + \
        (f', dtype="{out_dtype}"' if out_dtype else "")
    text = module(f'x: R.Tensor({shape}, "{in_dtype}")', f"y = R.{name}(x, {attrs})")
    dispatched(text, f"relax.{name}")


def _run_both(text: str, *args):
    mod = relax_ref.check(relax_ref.from_source(text))
    return relax_ref.run(mod, *args), relax_ref.run(dispatch_sort_scan(mod), *args)


def test_ties_nans_and_signed_zeros_keep_the_ops_order():
    """EXEC-search-sort-1: the library calls run the ops' own semantics, so stable ties,
    NaN placement and -0.0 come out exactly as the op has them."""
    x = np.array([[2.0, np.nan, -0.0, 1.0, 0.0, np.nan, 1.0, 2.0]], "float32")
    for descending in (False, True):
        text = module('x: R.Tensor((1, 8), "float32")',
                      f'''a = R.sort(x, descending={descending})
b = R.argsort(x, descending={descending}, dtype="int64")
c = R.topk(x, k=5, largest={not descending})
y = (a, b, c)''')
        before, after = _run_both(text, x)
        np.testing.assert_array_equal(before[0], after[0])
        assert before[0].tobytes() == after[0].tobytes()  # -0.0 where it was
        np.testing.assert_array_equal(before[1], after[1])
        np.testing.assert_array_equal(before[2][1], after[2][1])


def test_topk_with_k_over_n_gives_n_entries():
    """Our topk keeps min(k, n) entries (SI-search-topk-1); TVM's kernel assumes k."""
    text = module('x: R.Tensor(("n",), "float32")', 'y = R.topk(x, k=7, ret_type="indices")')
    before, after = _run_both(text, np.array([3.0, 1.0, 2.0], "float32"))
    np.testing.assert_array_equal(after, [0, 2, 1])
    np.testing.assert_array_equal(before, after)


def test_exclusive_scans_start_from_the_identity_without_adding_it():
    """TE-scan-2: an exclusive float sum keeps a leading -0.0 (0.0 + -0.0 would be 0.0)."""
    x = np.array([[-0.0, 1.5], [-0.0, 2.5]], "float32")
    text = module('x: R.Tensor((2, 2), "float32")',
                  "y = (R.cumsum(x, axis=0, exclusive=True), R.cumsum(x, exclusive=True))")
    before, after = _run_both(text, x)
    for b, a in zip(before, after):
        assert b.tobytes() == a.tobytes()
    assert np.signbit(after[0][1, 0]) and np.signbit(after[1][1])


def test_integer_scans_wrap_exactly():
    x = np.array([[2 ** 30, 2 ** 30, 2 ** 30]], "int32")
    text = module('x: R.Tensor((1, 3), "int32")', "y = R.cumsum(x, axis=1)")
    before, after = _run_both(text, x)
    np.testing.assert_array_equal(before, after)
    assert after[0, 2] == -(2 ** 30)


def test_scan_prim_func_is_shared_and_named_after_the_op():
    text = module('x: R.Tensor(("n", 4), "float32"), z: R.Tensor(("n", 4), "float32")',
                  "y = (R.cumsum(x, axis=1), R.cumsum(z, axis=1), R.cumprod(x))")
    out = dispatched(text, "relax.cumsum")
    prims = sorted(n for n, f in out.functions.items() if isinstance(f, tir.PrimFunc))
    assert prims == ["cumprod", "cumsum"]


def test_what_stays():
    """PASS-dispatch-1: unknown shapes and bool scans stay; other ops are not touched."""
    text = module('x: R.Tensor(ndim=2, dtype="float32"), b: R.Tensor((3,), "bool")',
                  "y = (R.sort(x), R.cumsum(x, axis=0), R.cumsum(b), R.add(x, x))")
    mod = relax_ref.check(relax_ref.from_source(text))
    out = dispatch_sort_scan(mod)
    for op in ("relax.sort", "relax.cumsum", "relax.add"):
        assert calls_of(out, op) == calls_of(mod, op)


def test_a_float_to_integer_scan_converts_as_a_tir_cast():
    """EXEC-reduce-5: the input converts as R.astype does (NaN, infinities and values
    out of range as x86 converts them), so the scan lowers and keeps its results."""
    text = module('f: R.Tensor((5,), "float32")', 'y = R.cumsum(f, dtype="uint8")')
    mod = relax_ref.check(relax_ref.from_source(text))
    out = dispatch_sort_scan(mod)
    assert calls_of(out, "relax.cumsum") == 0
    x = np.array([np.nan, 300.0, -1.5, np.inf, 2.7], "float32")
    np.testing.assert_array_equal(relax_ref.run(mod, x), relax_ref.run(out, x))
    check_pass(dispatch_sort_scan, mod, trials=3)


def test_transform_entry_and_pipeline_with_legalize_ops():
    text = module('x: R.Tensor(("n", 3), "float32")',
                  "y = R.add(R.cumsum(x, axis=1), R.sort(x))")
    mod = relax_ref.check(relax_ref.from_source(text))
    seq = transform.Sequential([transform.DispatchSortScan(), transform.LegalizeOps()])
    check_pass(seq, mod, trials=3)


# -- the conformance cases of the dispatched ops, after the pass -----------------------------

CASES = [c for c in (discover(DEFAULT_SUITE) if DEFAULT_SUITE.is_dir() else [])
         if any(f"R.{op[6:]}(" in c.text for op in _OPS)]
_IMPL = RelaxRefImpl(passes=("DispatchSortScan", "LegalizeOps"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_conformance_cases_after_dispatch(case):
    result = check_case(case, _IMPL)
    assert result.passed, result.detail


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_check_pass_on_conformance_modules(case):
    """The same modules on random inputs at several values of each symbolic variable."""
    try:
        mod = relax_ref.check(relax_ref.from_source(case.text, case.id))
    except relax_ref.RelaxError:
        pytest.skip("the case's module is rejected before any pass")
    check_pass(dispatch_sort_scan, mod, trials=4)


def test_tvm_reads_the_output_and_runs_the_scans_to_the_same_values():
    """TVM 0.27 parses the dispatched module and compiles each scan PrimFunc for the host;
    run there, each gives what our interpreter gives (TE-scan-1, TE-scan-2)."""
    tvm = pytest.importorskip("tvm")
    text = module('x: R.Tensor((3, 5), "int32"), f: R.Tensor((4, 3), "float32")',
                  '''y = (R.cumsum(x, axis=0, dtype="int64", exclusive=True), R.cumsum(x),
     R.cumprod(f, axis=1, exclusive=True), R.sort(f, axis=0))''')
    out = dispatch_sort_scan(relax_ref.check(relax_ref.from_source(text)))
    parsed = tvm.script.from_source(out.script())
    rng = np.random.default_rng(0)
    args = {"x": rng.integers(-9, 9, (3, 5)).astype("int32"),
            "f": rng.uniform(-2, 2, (4, 3)).astype("float32")}
    expected = relax_ref.run(out, args["x"], args["f"])
    for k, name in enumerate(["cumsum", "cumsum1", "cumprod"]):
        func = parsed[name].with_attr("global_symbol", "main")
        lib = tvm.compile(tvm.IRModule({"main": func}), target="llvm")
        arg = args[func.params[0].name]
        result = tvm.runtime.tensor(np.zeros(expected[k].shape, expected[k].dtype))
        lib["main"](tvm.runtime.tensor(arg), result)
        assert result.numpy().tobytes() == expected[k].tobytes(), name
