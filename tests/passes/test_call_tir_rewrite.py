"""CallTIRRewrite: Before/Expected, where it declines (dataflow blocks, pure functions,
constants written in place), the samples' mlp stage, every sample, and TVM's pass."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.call_tir_rewrite import effects_allowed_form
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.interpreter import run
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.packed import lookup_packed, register_packed
from relax_ref.verify import check_pass
from tests.conftest import sample_files, sample_path

REWRITE = get_pass("CallTIRRewrite")
T4 = 'R.Tensor((n,), dtype="float32")'

KERNELS = '''
    @T.prim_func(private=True, s_tir=True)
    def add(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32")):
        for i in range(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + B[vi]

    @T.prim_func(private=True, s_tir=True)
    def two(A: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32"), D: T.Buffer((n,), "float32")):
        for i in range(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi]
                D[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def acc(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
        for i in range(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                A[vi] = A[vi] + B[vi]
'''

if lookup_packed("test.ctr.double") is None:
    @register_packed("test.ctr.double", dps=True)
    def _double(x, out):
        out[...] = x * 2

BEFORE = f'''
n = TypeVar("n")
@I.ir_module
class Module:
{KERNELS}
    @R.function
    def main(x: {T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        y = R.call_tir(cls.add, (x, x), out_ty={T4})
        z = R.call_tir(cls.two, (y,), out_ty=[{T4}, {T4}])
        w = R.call_tir_inplace(cls.acc, (y, x), inplace_indices=[0], out_ty={T4})
        q = R.call_dps_packed("test.ctr.double", (x,), out_ty={T4})
        return (z, w, q)
'''

EXPECTED = f'''
n = TypeVar("n")
@I.ir_module
class Module:
{KERNELS}
    @R.function
    def main(x: {T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        alloc = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0, R.str("global"))
        cls.add(x, x, alloc)
        y = alloc
        alloc1 = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0, R.str("global"))
        alloc2 = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0, R.str("global"))
        cls.two(y, alloc1, alloc2)
        z = (alloc1, alloc2)
        cls.acc(y, x)
        w = y
        alloc3 = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_packed("test.ctr.double", x, alloc3)
        q = alloc3
        return (z, w, q)
'''


def test_each_call_kind_becomes_allocations_and_a_direct_call():
    mod = parse(BEFORE)
    assert_structural_equal(REWRITE(mod), normalize(parse(EXPECTED)))
    check_pass(REWRITE, mod)
    out = run(REWRITE(mod), "main", [np.arange(3, dtype="float32")])
    np.testing.assert_array_equal(out[2], [0, 2, 4])


def test_tir_vars_become_scalars_after_the_outputs():
    text = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def shift(a: T.handle, c: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in range(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + T.Cast("float32", k)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        y = R.call_tir(Module.shift, (x,), out_ty=R.Tensor((n,), "float32"), tir_vars=R.shape([n + 1]))
        return y
'''
    mod = parse(text)
    out = print_module(REWRITE(mod))
    assert "cls.shift(x, alloc, n + 1)" in out
    check_pass(REWRITE, mod)


@pytest.mark.parametrize("where", ["dataflow", "pure"])
def test_declines_where_the_direct_call_would_be_an_effect_out_of_place(where):
    # TVM rewrites inside dataflow blocks and pure functions alike, producing IR that its
    # own well-formedness check rejects (PASS-call-tir-rw-4).
    body = (f'''        with R.dataflow():
            y = R.call_tir(cls.add, (x, x), out_ty={T4})
            R.output(y)
        return y''' if where == "dataflow" else f'''        y = R.call_tir(cls.add, (x, x), out_ty={T4})
        return y''')
    text = f'''
n = TypeVar("n")
@I.ir_module
class Module:
{KERNELS}
    @R.function
    def main(x: {T4}):
        cls = Module
{body}
'''
    mod = normalize(parse(text))
    assert_structural_equal(REWRITE(mod), mod)


def test_in_place_on_a_constant_is_kept():
    # call_tir_inplace copies a constant before writing it (EXEC-dps-3); a direct call
    # would write, and trap on, the module's constant.
    text = f'''
n = TypeVar("n")
@I.ir_module
class Module:
{KERNELS}
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")):
        cls = Module
        c = R.const(np.array([1, 2, 3], "float32"))
        w = R.call_tir_inplace(cls.acc, (c, x), inplace_indices=[0], out_ty=R.Tensor((3,), "float32"))
        return w
'''.replace("np.array([1, 2, 3], \"float32\")", "[1.0, 2.0, 3.0], \"float32\"")
    mod = normalize(parse(text))
    assert "call_tir_inplace" in print_module(REWRITE(mod))
    check_pass(REWRITE, mod)


def test_the_mlp_sample_matches_tvms_stage():
    mod = effects_allowed_form(parse(sample_path("mlp.fused.py").read_text()))
    expected = normalize(parse(sample_path("mlp.call_tir_rewrite.py").read_text()))
    assert_structural_equal(REWRITE(mod), expected)


# every stage on every sample: slow (test_default_pipeline covers them end to end)
@pytest.mark.slow
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem)
def test_every_sample_after_the_earlier_stages(path):
    mod = parse(path.read_text())
    if "R.dataflow" not in path.read_text() and "call_tir" not in path.read_text() \
            and "call_dps_packed" not in path.read_text():
        pytest.skip("nothing to rewrite")
    check_pass(REWRITE, effects_allowed_form(mod), trials=2)


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                    reason="the cross-check needs Apache TVM 0.27")
def test_same_result_as_tvms_pass():
    import tvm

    mod = parse(BEFORE)
    theirs = tvm.relax.transform.CallTIRRewrite()(tvm.script.from_source(print_module(mod)))
    back = normalize(parse(theirs.script()))
    # TVM's printer adds the deduced return annotation; the bodies are what the pass made
    assert_structural_equal(REWRITE(mod).functions["main"].body, back.functions["main"].body,
                            map_free_vars=True)
