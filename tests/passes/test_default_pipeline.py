"""The default pipeline (PASS-pipe-5): TVM 0.27's order, and its output runs in the
interpreter with the input's results, on every sample and example."""
from __future__ import annotations


import pytest

from relax_ref.cli import main
from relax_ref.parser.builder import parse
from relax_ref.passes.lowering_stages import TVM_DEFAULT_ORDER
from relax_ref.passes.pipeline import PIPELINES, Pipeline
from relax_ref.passes.registry import Pass
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.verify import check_pass
from tests.conftest import REPO, model_files

DEFAULT = Pipeline(PIPELINES["default"]).as_pass("default")


def test_the_order_is_tvms():
    names = PIPELINES["default"]
    assert list(names) == [n for n in TVM_DEFAULT_ORDER if n in names]
    assert set(TVM_DEFAULT_ORDER) - set(names) <= {"RewriteCUDAGraph"}


@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_the_whole_pipeline_keeps_results(path):
    mod = parse(path.read_text(), str(path))
    report = check_pass(DEFAULT, mod, trials=2)
    # random inputs need known shapes (match_cast_fail's parameter has none)
    assert report.compared + report.traps_matched > 0 or report.notes
    assert check_well_formed(DEFAULT(mod)) == []


def test_opt_with_the_default_pipeline_runs(tmp_path, capsys):
    mlp = REPO / "examples" / "mlp.py"
    out = tmp_path / "mlp.lowered.py"
    assert main(["opt", str(mlp), "--pipeline", "default", "-o", str(out)]) == 0
    text = out.read_text()
    assert "R.vm.alloc_storage" in text and "R.call_tir" not in text
    assert "vm.builtin.match_shape" in text and "vm.builtin.make_shape" in text
    # the printed lowered module reads back and computes what the input computes
    reread = Pass("opt --pipeline default, printed and read back", lambda mod: parse(text))
    check_pass(reread, parse(mlp.read_text()), trials=2)
