"""FuseTransposeMatmul (spec/passes.md, PASS-tmatmul-*): matmul of a transposed operand
becomes one NT_matmul PrimFunc, over operand shapes (1-D, batched, broadcast, symbolic)
and dtypes; what is left alone; and TVM 0.27 on the same input."""
from __future__ import annotations

import pytest

from relax_ref import transform
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import assert_structural_equal, structural_equal
from relax_ref.parser.builder import parse
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.normalize import normalize
from relax_ref.verify import check_pass
from tests.passes.test_legalize_samples import FILES, _load
from tests.passes.test_normalize_pass import tvm_output

FTM = get_pass("FuseTransposeMatmul")


def _values(mod: rx.IRModule, name: str = "main") -> dict[str, str]:
    """Each binding's variable -> what its value calls (an op or a PrimFunc)."""
    out = {}
    for block in mod[name].body.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, rx.Call) and isinstance(v.op, rx.Op):
                is_tir = v.op.name == "relax.call_tir"
                out[b.var.name_hint] = v.args[0].name_hint if is_tir else v.op.name
    return out


def _module(x: str, w: str, axes: str = "", dtype: str = "float32", out_dtype: str = "",
            decls: str = "") -> str:
    wdtype = dtype
    extra = f', out_dtype="{out_dtype}"' if out_dtype else ""
    return f'''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({x}, "{dtype}"), w: R.Tensor({w}, "{wdtype}")):
{decls}        with R.dataflow():
            wt = R.permute_dims(w{axes})
            y = R.matmul(x, wt{extra})
            R.output(y)
        return y
'''


N = "        n = T.int64()\n"
K = "        k = T.int64()\n"

# (x shape, w shape, permute_dims axes, declarations)
FUSED = {
    "2d": ("(2, 4)", "(3, 4)", "", ""),
    "2d_axes": ("(2, 4)", "(3, 4)", ", [1, 0]", ""),
    "vector_x": ("(4,)", "(3, 4)", "", ""),
    "symbolic": ('("n", "k")', '(3, "k")', "", N + K),
    "batched_w": ('("n", 4)', "(2, 3, 4)", ", [0, 2, 1]", N),
    "negative_axes": ('("n", 4)', "(2, 3, 4)", ", [0, -1, -2]", N),
    "broadcast_batch": ('(1, "n", 4)', "(2, 3, 4)", ", [0, 2, 1]", N),
    "both_batched": ('(2, "n", 4)', '(2, 3, 4)', ", [0, 2, 1]", N),
    "zero_reduction": ('("n", 0)', "(3, 0)", "", N),
}


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_and_results_kept(name):
    x, w, axes, decls = FUSED[name]
    mod = parse(_module(x, w, axes, decls=decls))
    out = FTM(mod)
    assert _values(out) == {"y": "NT_matmul"}  # PASS-tmatmul-3: the transpose is gone
    report = check_pass(FTM, mod, trials=4)
    assert report.compared == 4  # symbolic values 1, 0, 2, 3 ran


@pytest.mark.parametrize("dtype,out_dtype", [("float16", ""), ("float16", "float32"),
                                             ("int32", ""), ("int8", "int32"),
                                             ("bfloat16", "")])
def test_dtypes_follow_the_matmul_rules(dtype, out_dtype):
    # EXEC-linalg-matmul-3: float16 and bfloat16 sum in float64 and round once.
    mod = parse(_module('("n", 4)', "(3, 4)", dtype=dtype, out_dtype=out_dtype, decls=N))
    assert _values(FTM(mod)) == {"y": "NT_matmul"}
    check_pass(FTM, mod, trials=4)


def test_reduction_lengths_that_differ_trap_alike():
    # matmul traps (shape_mismatch) when k != j; NT_matmul's argument binding does too.
    mod = parse(_module('("n", "k")', '(3, "j")', decls=N + K + "        j = T.int64()\n"))
    assert _values(FTM(mod)) == {"y": "NT_matmul"}
    report = check_pass(FTM, mod, trials=4)
    assert report.traps_matched > 0


def test_one_prim_func_per_distinct_computation():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32"), v: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            vt = R.permute_dims(v)
            a = R.matmul(x, wt)
            b = R.matmul(x, vt)
            c = R.matmul(x, R.permute_dims(x))
            R.output(a, b, c)
        return (a, b, c)
'''
    out = FTM(parse(text))
    assert _values(out) == {"a": "NT_matmul", "b": "NT_matmul", "c": "NT_matmul1"}
    check_pass(FTM, parse(text), trials=2)


def test_a_transpose_used_elsewhere_stays():
    # PASS-tmatmul-3: the matmul is fused; wt still feeds the add (TVM's pass fails here).
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 4), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            z = R.add(wt, wt)
            R.output(y, z)
        return (y, z)
'''
    out = FTM(parse(text))
    assert _values(out) == {"wt": "relax.permute_dims", "y": "NT_matmul", "z": "relax.add"}
    check_pass(FTM, parse(text), trials=2)


def test_transform_function():
    assert transform.FuseTransposeMatmul() is FTM


# -- left alone -------------------------------------------------------------------------------

LEFT_ALONE = {
    # axes=None reverses all three axes: not an exchange of the last two
    "reversal_3d": _module("(2, 3)", "(4, 3, 2)"),
    "other_permutation": _module("(2, 4)", "(4, 2, 3)", ", [1, 0, 2]"),
    "bool": _module("(2, 4)", "(3, 4)", dtype="bool"),
    "unknown_shape": _module("(2, 4)", "(3, 4)").replace(
        'w: R.Tensor((3, 4), "float32")', 'w: R.Tensor("float32", ndim=2)'),
    "transposed_first_operand": _module("(4, 2)", "(4, 3)").replace(
        "R.matmul(x, wt)", "R.matmul(R.permute_dims(x), w)"),
}


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_left_alone(name):
    mod = parse(LEFT_ALONE[name])
    out = FTM(mod)
    assert "NT_matmul" not in out.functions
    assert _values(out).get("y") == "relax.matmul"


def test_outside_dataflow_blocks_left_alone():
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32")):
        wt = R.permute_dims(w)
        with R.dataflow():
            y = R.matmul(x, wt)
            R.output(y)
        z = R.matmul(x, wt)
        return (y, z)
'''
    assert "NT_matmul" not in FTM(parse(text)).functions


# -- TVM 0.27 ---------------------------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("name", ["2d", "symbolic", "batched_w", "broadcast_batch",
                                  "vector_x"])
def test_agrees_with_tvm(name):
    # TVM's output keeps the dead Composite functions of its FuseOpsByPattern step and
    # names the result gv; main is the same, and so is NT_matmul, except where the
    # reduction length is symbolic: ours rounds in a second stage that gives 0 where the
    # length is 0 (TE-leg-linalg-4), TVM's leaves the output unwritten there.
    x, w, axes, decls = FUSED[name]
    text = _module(x, w, axes, decls=decls)
    theirs = normalize(parse(tvm_output(text, lambda t: t.FuseTransposeMatmul())))
    ours = FTM(parse(text))
    assert_structural_equal((ours["main"].params, ours["main"].body),
                            (theirs["main"].params, theirs["main"].body), map_free_vars=True)
    if name == "symbolic":
        assert not structural_equal(ours["NT_matmul"], theirs["NT_matmul"])
    else:
        assert_structural_equal(ours["NT_matmul"], theirs["NT_matmul"])


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_on_samples_and_examples(path):
    mod = _load(path)
    if mod is None:
        pytest.skip("not well-formed on purpose")
    # The Llama layer's q @ k^T is fused; the tolerance is test_legalize_samples' (a long
    # float32 chain on large random activations).
    tol = {"rtol": 1e-4, "atol": 0.1} if path.name.startswith("llama") else {}
    check_pass(FTM, mod, trials=2, **tol)
