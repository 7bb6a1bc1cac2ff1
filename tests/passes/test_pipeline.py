"""PASS-pipe-1..3: pipelines check the IR forms passes require and produce."""
from __future__ import annotations

import dataclasses

import pytest

from relax_ref.cli import main
from relax_ref.parser.builder import parse
from relax_ref.passes.pipeline import Pipeline, PipelineError
from relax_ref.passes.registry import FORMS, missing_form
from relax_ref.passes.registry import Pass, get_pass
from relax_ref.verify import PassVerificationError, check_pass, verify_pipeline
from relax_ref.semantics.well_formed import check_well_formed
from tests.conftest import REPO, sample_files

NESTED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        @R.function
        def twice(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            z: R.Tensor((3,), dtype="float32") = R.add(y, y)
            return z

        with R.dataflow():
            a: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
            R.output(a)
        b: R.Tensor((3,), dtype="float32") = twice(a)
        return b
'''

NEEDS_FLAT = Pass("NeedsFlat", lambda mod: mod, requires=("no dataflow blocks",))


def test_forms_find_what_they_exclude():
    mod = parse(NESTED)
    assert "dataflow block" in missing_form("no dataflow blocks", mod)
    assert "local function" in missing_form("no local functions", mod)
    flat = Pipeline(["LambdaLift", "ToNonDataflow"])(mod)
    assert all(missing_form(f, flat) is None for f in FORMS)
    with pytest.raises(KeyError, match="unknown IR form"):
        missing_form("no such form", mod)


def test_a_missing_requirement_names_the_pass_that_makes_it():
    with pytest.raises(PipelineError, match="NeedsFlat requires 'no dataflow blocks'.*"
                                            "run ToNonDataflow first"):
        Pipeline([NEEDS_FLAT])(parse(NESTED))
    out = Pipeline(["ToNonDataflow", NEEDS_FLAT])(parse(NESTED))
    assert missing_form("no dataflow blocks", out) is None


def test_a_broken_promise_is_caught_by_the_pipeline_and_by_check_pass():
    liar = dataclasses.replace(get_pass("DeadCodeElimination"), name="Liar",
                               produces=("no dataflow blocks",))
    with pytest.raises(PipelineError, match="Liar claims to produce 'no dataflow blocks'"):
        Pipeline([liar])(parse(NESTED))
    with pytest.raises(PassVerificationError, match="claims to produce"):
        check_pass(liar, parse(NESTED), trials=1)


def test_a_pass_naming_an_unknown_form_is_refused():
    with pytest.raises(KeyError, match="unknown IR form"):
        Pipeline([Pass("Odd", lambda mod: mod, produces=("shiny",))])


def test_the_pipeline_as_one_pass():
    seq = Pipeline(["ToNonDataflow", NEEDS_FLAT, "ConvertToDataflow"]).as_pass()
    assert seq.name == "Sequential[ToNonDataflow,NeedsFlat,ConvertToDataflow]"
    assert seq.requires == () and seq.produces == () and seq.exact
    report = check_pass(seq, parse(NESTED), trials=2)
    assert report.compared == 2
    flat = Pipeline(["ConvertToDataflow", "LambdaLift", "ToNonDataflow"]).as_pass()
    assert flat.produces == ("no dataflow blocks",)


def test_lambda_lift_does_not_claim_every_function_lifted():
    """A capturing closure used as a value stays local (tests/passes/test_lambda_lift.py),
    so LambdaLift cannot promise 'no local functions'; check_pass would catch the claim."""
    assert "no local functions" not in get_pass("LambdaLift").produces


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem)
def test_pipeline_on_samples_with_verification(path):
    """Every step verified (check_pass) on the module it receives; forms hold."""
    mod = parse(path.read_text(), str(path))
    out, steps = verify_pipeline(Pipeline(["LambdaLift", "ToNonDataflow", "CanonicalizeBindings",
                                           "DeadCodeElimination"]), mod, trials=2)
    assert [s.name for s in steps] == ["LambdaLift", "ToNonDataflow", "CanonicalizeBindings",
                                       "DeadCodeElimination"]
    assert not check_well_formed(out)
    assert all(missing_form(f, out) is None for f in FORMS)


def test_opt_reports_a_missing_requirement(monkeypatch, capsys):
    from relax_ref.passes import registry

    monkeypatch.setitem(registry._PASSES, "NeedsFlat", NEEDS_FLAT)
    mlp = REPO / "examples" / "mlp.py"
    assert main(["opt", str(mlp), "--passes", "NeedsFlat"]) != 0
    err = capsys.readouterr().err
    assert "requires 'no dataflow blocks'" in err and "Traceback" not in err
    assert main(["opt", str(mlp), "--passes", "ToNonDataflow,NeedsFlat"]) == 0


def test_every_registered_pass_has_a_transform_function():
    """relax_ref.transform names each registered pass as TVM does (spec/api.md)."""
    from relax_ref import transform
    from relax_ref.passes.registry import all_passes

    assert sorted(all_passes()) == sorted(
        n for n in transform.__all__ if n not in ("Sequential", "build_pass", "pass_options"))


def test_passes_run_with_cycle_collection_paused_and_restore_it():
    import gc

    seen = []
    probe = Pass("Probe", lambda mod: seen.append(gc.isenabled()) or mod)
    failing = Pass("Failing", lambda mod: 1 / 0)
    mod = parse(NESTED)
    was = gc.isenabled()
    try:
        gc.enable()
        Pipeline([probe, probe])(mod)
        probe(mod)
        assert seen == [False, False, False] and gc.isenabled()
        with pytest.raises(ZeroDivisionError):
            failing(mod)
        assert gc.isenabled()
        gc.disable()  # a caller's choice is kept
        probe(mod)
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_the_walks_passes_repeat_make_no_reference_cycles():
    """Passes run with cycle collection paused (registry.cycle_collection_paused), so
    what they drop must be freed by reference counting: the walks run per binding or per
    PrimFunc (normalization, symbol substitution and matching, free variables) make no
    reference cycles, such as a recursive closure."""
    import gc

    from relax_ref.ir import tir
    from relax_ref.passes.legalize_ops import legalize_ops
    from relax_ref.passes.tir_merge import free_vars as tir_free_vars
    from relax_ref.semantics import sinfo_relations as rel
    from relax_ref.semantics.normalize import normalize
    from relax_ref.solver.expr_utils import substitute

    mod = legalize_ops(parse((REPO / "examples" / "llama_layer.py").read_text()))
    main = mod.functions["main"]
    params = [p.struct_info for p in main.params]
    syms = rel.defined_symbols(params)
    prims = [f for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        normalize(parse((REPO / "examples" / "llama_layer.py").read_text()))
        rel.bind_symbolic(params, params)
        for s in params:
            rel.free_symbols(s)
            rel.substitute(s, {v: v * 2 for v in syms})
        for f in prims:
            tir_free_vars(f.body, [b for _, b in f.buffer_map])
        substitute(syms[0] * 2 + syms[0], {syms[0]: syms[0] + 1})
        cyclic = gc.collect()
    finally:
        (gc.enable if was else gc.disable)()
    assert syms and prims and cyclic == 0


ILL_CONDITIONED = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((100,), "float32")):
        s = R.sum(x)
        y = R.sin(R.multiply(s, R.const(1e7, "float32")))
        z = R.multiply(s, R.const(2.0, "float32"))
        return (y, z)
'''


def test_ill_conditioned_results_are_not_counted_against_a_pass():
    """PASS-verify-6: summing in another order changes the sum in its last place, which
    sin(1e7 * s) turns into another number. Moving the inputs by one ulp moves that
    result as much, so it is not compared; 2 * s is, and a change there still fails."""
    reordered = ILL_CONDITIONED.replace("s = R.sum(x)", "s = R.sum(R.flip(x, axis=0))")
    report = check_pass(Pass("reorder the sum", lambda m: parse(reordered), exact=False),
                        parse(ILL_CONDITIONED), trials=6)
    assert report.ill_conditioned >= 1 and report.compared + report.ill_conditioned == 6
    assert "ill-conditioned" in report.notes[0]
    off = parse(reordered.replace("2.0", "2.001"))
    with pytest.raises(PassVerificationError, match="result 1: values differ"):
        check_pass(Pass("off by 0.05%", lambda m: off, exact=False), parse(ILL_CONDITIONED),
                   trials=6)
