"""The cross-checks with TVM 0.27's lowering (spec/conformance.md CONF-lower-1, -2).

1. TVM's LegalizeOps output for each case of the ``ops/`` area, read by our parser and
   run by our interpreter, meets the case's expectations (``--impl tvm-lowered``);
2. TVM reads what our LegalizeOps prints, for every case whose module it changes.

Skipped without TVM. Known differences are listed with their reasons (the TVM ones also
in conformance/TVM_DIFFERENCES.md); a listed case that starts to pass fails the test, so
the lists stay true.
"""
from __future__ import annotations

import importlib.util
import sys

import pytest

from relax_ref.cli import main
from relax_ref.conformance import DEFAULT_SUITE, check_case, discover, tvm_reads_text

needs_tvm = pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                               reason="the cross-checks need Apache TVM 0.27")

# Whose fault each known difference is; the reasons say more.
TVM_BUG = "TVM's lowering"
TVM_CHECK = "TVM's lowering has no run-time check"
TRAP_KIND = "the same trap, reported under another kind"
OURS = "ours (reported, to fix)"

# --impl tvm-lowered on ops/: case name -> (whose, why).
KNOWN_LOWERED = {
    # TVM's lowering computes something else.
    "act_leg_relu_nan": (TVM_BUG, "relu lowers to T.max(x, 0), which drops a NaN"),
    "maximum_nan_f32": (TVM_BUG, "maximum/minimum/clip lower to T.max/T.min, which drop a "
                                 "NaN; not_equal to TIR !=, which is false on NaN"),
    "reduce_leg_nan_extremes": (TVM_BUG, "max/min/argmax/argmin fold with T.max/T.min or "
                                         "ordered comparisons, which skip a NaN"),
    "argmin_nan": (TVM_BUG, "argmin compares with <, so a NaN is never the extreme"),
    "not_equal_f32": (TVM_BUG, "not_equal lowers to TIR !=, an ordered comparison: false "
                               "when either side is NaN"),
    "act_leg_softmax_f16_sum": (TVM_BUG, "float16 sums accumulate in float16"),
    "sigmoid_exp_f16_round_once": (TVM_BUG, "float16 sigmoid lowers to T.sigmoid, "
                                            "1 / (1 + exp(-x)) rounded at each step "
                                            "(EXEC-tir-* intrinsics), not once"),
    "linalg_leg_einsum_f16_sum": (TVM_BUG, "float16 sums accumulate in float16"),
    "linalg_leg_matmul_f16_sum": (TVM_BUG, "float16 sums accumulate in float16"),
    "linalg_leg_matmul_empty_k": (TVM_BUG, "a reduction of length 0 never runs its T.init, "
                                           "so the output is never written (TVM's VM passes "
                                           "only because its memory happens to be zero)"),
    "matmul_symbolic": (TVM_BUG, "k = 0: the reduction never runs its T.init; output unwritten"),
    "reduce_leg_empty_rows": (TVM_BUG, "an empty reduction never runs its T.init; output "
                                       "unwritten"),
    "sum_symbolic_i32": (TVM_BUG, "n = 0: the reduction never runs its T.init; output "
                                  "unwritten"),
    "mean_i32_trunc": (TVM_BUG, "integer mean lowers to an int64 division and an int64 "
                                "result: LegalizeOps changes the result's dtype"),
    "mean_empty": (TVM_BUG, "integer mean's result becomes int64 (as mean_i32_trunc)"),
    "variance_std_i32": (TVM_BUG, "integer variance/std results become int64"),
    "avg_pool2d_i32": (TVM_BUG, "integer avg_pool2d's result becomes int64"),
    "adaptive_avg_pool2d_uneven": (TVM_BUG, "the inner block's iter vars get domains "
                                            "(v, v + (1 - v)), which do not hold their "
                                            "bindings for v >= 1 (EXEC-tir-block-1)"),
    "split_indices_clamped": (TVM_BUG, "an index past the end gives a piece of negative "
                                       "length (-4) instead of clamping"),
    "broadcast_to_symbolic_trap": (TVM_BUG, "with m = 1 the kernel reads x[j] for every j "
                                            "instead of x[0]: out of bounds"),
    "topk_symbolic": (TVM_BUG, "TVM deduces k elements whatever the axis length (min(k, n) "
                                "here), so its printed annotation is finer than ours"),
    "resize2d_split_inner_extent_trap": (TVM_BUG, "the inner axis of NCHW16c is 8 wide at "
                                                  "run time; TVM's kernel reads it as 16 and "
                                                  "returns values"),
    "resize3d_split_ncdhw2d_nearest": (TVM_BUG, "a split depth (NCDHW2d) is resized as a "
                                                "channel split: the result is (1, 1, 8, 4, "
                                                "2, 2), not its own deduction's (1, 1, 4, 4, "
                                                "2, 2)"),
    "scatter_elements_narrow_after_axis": (TVM_BUG, "the kernel walks data with the "
                                                    "indices' flat positions after the axis"),
    "slice_scatter_step3_symbolic": (TVM_BUG, "reads src at clipped input positions, past "
                                              "src's end (masked afterwards)"),
    "slice_scatter_prim_bounds": (TVM_BUG, "as slice_scatter_step3_symbolic"),
    "index_put_broadcast_value": (TVM_BUG, "reads the values flat (values[k]), past the end "
                                           "of a broadcast value"),
    "grad_nll_loss_backward_default_ignore": (TVM_BUG, "a target equal to ignore_index -100 "
                                                       "reads weights[-100]"),
    "grad_max_pool2d_backward_padded": (TVM_BUG, "reads the argmax buffer at window "
                                                 "index -1 (a Select evaluates both arms)"),
    "log_add_exp_large": (TVM_BUG, "log(exp(a) + exp(b)) in float32 overflows to inf for "
                                   "a = 100 (EXEC-ew-logaddexp-1)"),
    "collapse_sum_to_sym": (TVM_BUG, "n = 0: the reduction never runs its T.init; output "
                                     "unwritten"),
    "hamming_window_sym_size": (TVM_BUG, "with a symbolic size the float16 window's angle is "
                                         "computed in float32 (2 pi promotes), not float16 as "
                                         "for a constant size"),
    "adaptive_avg_pool1d_uneven": (TVM_BUG, "as adaptive_avg_pool2d_uneven"),
    "avg_pool1d_exclude_pad_symbolic": (TVM_BUG, "a window over the trailing padding divides "
                                                 "by the full window size (nn.md D14)"),
    **{name: (TVM_BUG, "an ignored target (-100) reads predictions[n, -100] (a Select "
                       "evaluates both arms): out of bounds")
       for name in ("nll_loss_mean_weighted", "nll_loss_sum_weighted", "nll_loss_none_weighted")},
    # Checks TVM's lowering leaves out: the kernel runs without them.
    "layout_transform_pad_missing": (TVM_CHECK, "positions no element reaches without a "
                                                "pad_value (left unwritten)"),
    "grad_max_pool2d_backward_ties": (TVM_CHECK, "output_grad being the pool's output shape"),
    "argmin_symbolic_empty_trap": (TVM_CHECK, "argmin of an empty axis"),
    "max_empty_trap": (TVM_CHECK, "max of an empty axis"),
    "matmul_symbolic_reduction_check": (TVM_CHECK, "the reduction lengths k = j"),
    "reshape_symbolic_count_check": (TVM_CHECK, "the element count of a reshape"),
    "squeeze_symbolic_trap": (TVM_CHECK, "a squeezed dimension being 1"),
    "conv2d_channel_check": (TVM_CHECK, "the channel count; our interpreter traps the "
                                        "kernel's out-of-bounds load instead"),
    "cross_entropy_with_logits_shape_trap": (TVM_CHECK, "the labels' shape; our interpreter "
                                                        "traps the kernel's out-of-bounds load"),
    "instance_norm_gamma_length_trap": (TVM_CHECK, "gamma's length; our interpreter traps the "
                                                   "kernel's out-of-bounds load"),
    "grid_sample_batch_trap": (TVM_CHECK, "the grid's batch size being the data's"),
    # The same failure, found where the output is allocated.
    "conv2d_negative_output_trap": (TRAP_KIND, "a negative output size: shape_mismatch at "
                                               "the call_tir output, not invalid_value"),
    "max_pool2d_negative_output_trap": (TRAP_KIND, "as conv2d_negative_output_trap"),
    "pad_crop_trap": (TRAP_KIND, "as conv2d_negative_output_trap"),
    "conv1d_transpose_crop_trap": (TRAP_KIND, "as conv2d_negative_output_trap"),
    "max_pool3d_negative_output_trap": (TRAP_KIND, "as conv2d_negative_output_trap"),
    "eye_prims": (TRAP_KIND, "a negative n: shape_mismatch at the output, not invalid_value"),
    "reverse_sequence_lengths_mismatch": (TRAP_KIND, "too few seq_lengths: the kernel's "
                                                     "load past their end, not shape_mismatch"),
    # Ours.
    "median_all_keepdims": (TVM_BUG, "keepdims=True without an axis lowers to a (1,) "
                                     "result, not (1, 1)"),
    "median_nan_last": (TVM_BUG, "the kernel argsorts with tvm.contrib.sort.argsort, whose "
                                 "< comparison orders no NaN: the result is unspecified, a "
                                 "trap here (EXEC-tir-packed-4)"),
    "arange_prim_step": (OURS, "TVM's shape ceil(6.0 / float32(s)) casts from float32, "
                               "which our evaluation of dimensions refuses (EXEC-sym-1)"),
    "roi_align_aligned_empty_grid": (TVM_BUG, "an empty sampling grid never runs its T.init; "
                                              "output unwritten (vision.md EXEC-vision-roi-3)"),
    "all_class_non_max_suppression_onnx": (TVM_BUG, "the ONNX-format result has as many rows "
                                                    "as boxes selected (4, 3), not the "
                                                    "deduced (6, 3) padded with zeros"),
}

# CONF-lower-2: cases whose lowered text TVM does not read though it reads the case's
# own text: case id -> why.
KNOWN_UNREAD = {
    "ops/call_py_func_not_run": "our printer writes ty_args=; TVM 0.27's R.call_py_func reads "
                                "out_ty= only",
    "exec/prim_float_and_bool_values": "our printer writes R.Prim(value=...) on parameters "
                                       "(PRINT-prim-2); TVM 0.27's R.Prim takes a dtype only",
    "syntax/prim_value_leaves": "R.Prim(value=...) on parameters (PRINT-prim-2)",
    "exec/prim_func_returning_a_value": "our printer writes T.ret, which TVM 0.27 lacks",
    "syntax/tir_return_annotation": "our printer writes T.ret, which TVM 0.27 lacks",
    "struct_info/pure_prim_func_called_directly": "our printer writes T.sblock_alloc_buffer "
                                                  "in a PrimFunc without s_tir=True",
}

OPS_CASES = discover(DEFAULT_SUITE / "ops") if (DEFAULT_SUITE / "ops").is_dir() else []
ALL_CASES = discover(DEFAULT_SUITE) if DEFAULT_SUITE.is_dir() else []


@pytest.fixture(scope="module")
def tvm_lowered():
    from relax_ref.conformance import TVMLoweredImpl

    return TVMLoweredImpl()


@needs_tvm
@pytest.mark.parametrize("case", OPS_CASES, ids=lambda c: c.name)
def test_tvm_lowering_meets_the_case(case, tvm_lowered):
    result = check_case(case, tvm_lowered)
    if result.unsupported:
        pytest.skip(result.detail)
    if case.name in KNOWN_LOWERED:
        whose, why = KNOWN_LOWERED[case.name]
        assert not result.passed, f"passes now ({whose}: {why}): remove it from KNOWN_LOWERED"
    else:
        assert result.passed, result.detail


def test_known_lowering_differences_name_ops_cases():
    names = {c.name for c in OPS_CASES}
    assert not OPS_CASES or set(KNOWN_LOWERED) <= names


@needs_tvm
@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_tvm_reads_our_lowered_text(case):
    from relax_ref.errors import RelaxError
    from relax_ref.parser.builder import parse
    from relax_ref.semantics.well_formed import check_well_formed
    from relax_ref.transform import LegalizeOps

    if case.expect != "ok":
        pytest.skip("not a module that runs")
    try:
        mod = parse(case.text, str(case.path))
        if check_well_formed(mod):
            pytest.skip("not well-formed")
        lowered = LegalizeOps()(mod).script()
    except RelaxError as err:
        pytest.skip(f"relax_ref does not lower it: {err.rule}")
    if lowered == mod.script():
        pytest.skip("LegalizeOps changes nothing")
    ok, why = tvm_reads_text(lowered)
    if case.id in KNOWN_UNREAD:
        assert not ok, f"TVM reads it now: remove it from KNOWN_UNREAD ({KNOWN_UNREAD[case.id]})"
    elif not ok:
        read_original, _ = tvm_reads_text(case.text)
        if not read_original:
            pytest.skip("TVM does not read the case's own text either")
        pytest.fail(f"TVM reads the case but not our LegalizeOps output: {why}")


@needs_tvm
def test_cli_runs_a_case_on_tvms_lowering(capsys):
    case = str(DEFAULT_SUITE / "ops" / "abs_f32.py")
    assert main(["conformance", case, "--impl", "tvm-lowered"]) == 0
    assert capsys.readouterr().out.strip().endswith("1 passed, 0 failed")


def test_cli_without_tvm_is_one_error_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", None)  # `import tvm` now fails
    assert main(["conformance", "--impl", "tvm-lowered"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("relax-ref: error: --impl tvm-lowered needs Apache TVM 0.27")


EXAMPLES = sorted((DEFAULT_SUITE.parent / "examples").glob("*.py"))


@needs_tvm
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_tvm_lowering_agrees_and_tvm_reads_ours(path):
    """The examples (a Llama-style layer among them) through TVM's LegalizeOps compute what
    their ops do here, on random inputs at several sizes (check_pass with TVM's lowering
    as the pass); and TVM reads what our LegalizeOps prints of them."""
    from relax_ref.conformance import tvm_legalized_text
    from relax_ref.parser.builder import parse
    from relax_ref.passes.registry import Pass
    from relax_ref.transform import LegalizeOps
    from relax_ref.verify import check_pass

    def tvm_legalize(mod):
        ok, text = tvm_legalized_text(mod.script())
        assert ok, text
        return parse(text, f"{path.name} (TVM's LegalizeOps)")

    mod = parse(path.read_text(), str(path))
    report = check_pass(Pass("TVM LegalizeOps", tvm_legalize, exact=False), mod, trials=2)
    assert report.compared > 0
    ok, why = tvm_reads_text(LegalizeOps()(mod).script())
    assert ok, why


SORTS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32"), y: R.Tensor((4, 3), dtype="int32")):
        a = R.sort(x, axis=1, descending=True)
        b = R.argsort(y, axis=0, descending=True, dtype="int64")
        c = R.topk(x, k=2, axis=1, ret_type="both", largest=False, dtype="int32")
        d = R.topk(y, k=3, axis=1, ret_type="indices", largest=True, dtype="int64")
        return (a, b, c, d)
'''


@needs_tvm
def test_tvm_dispatch_sort_scan_on_cpu_runs_here():
    """TVM's DispatchSortScan for an llvm target lowers sort, argsort and topk to
    ``T.call_packed("tvm.contrib.sort.*")`` kernels (EXEC-tir-packed-1); read and run here
    they compute what the ops do (check_pass with TVM's passes as the pass)."""
    from relax_ref.conformance import _in_tvm_child
    from relax_ref.parser.builder import parse
    from relax_ref.passes.registry import Pass
    from relax_ref.verify import check_pass

    def work(tvm, from_source):
        with tvm.target.Target("llvm"):
            mod = tvm.relax.backend.DispatchSortScan()(from_source(SORTS))
        return True, tvm.relax.transform.LegalizeOps()(mod).script()

    ok, text = _in_tvm_child(work, 120.0, "dispatch and lower the sorts")
    assert ok, text
    assert text.count("tvm.contrib.sort.") == 4
    lowered = parse(text, "TVM's DispatchSortScan + LegalizeOps")
    report = check_pass(Pass("TVM DispatchSortScan", lambda mod: lowered, exact=True),
                        parse(SORTS), trials=3)
    assert report.compared > 0
