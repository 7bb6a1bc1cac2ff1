"""`relax-ref opt` and `relax-ref fuzz` (relax_ref/cli.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from relax_ref.cli import main
from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal
from relax_ref.parser.builder import parse
from relax_ref.passes import registry
from relax_ref.passes.registry import Pass
from relax_ref.passes.rewrite import Rewriter, finish
from relax_ref.semantics.normalize import normalize

REPO = Path(__file__).resolve().parents[1]
MLP = REPO / "examples" / "mlp.py"

WITH_DEAD_CODE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            dead = R.multiply(x, x)
            y = R.add(x, x)
            R.output(y)
        return y
'''


class _AddBecomesSubtract(Rewriter):
    def call(self, e):
        e = super().call(e)
        if isinstance(e.op, rx.Op) and e.op.name == "relax.add":
            return rx.Call(rx.Op("relax.subtract"), e.args, e.attrs, e.sinfo_args, span=e.span)
        return e


@pytest.fixture
def broken_pass(monkeypatch):
    """A wrong pass, in the registry for this test only."""
    p = Pass("AddBecomesSubtract", lambda m: finish(_AddBecomesSubtract().module(m)))
    registry._load()
    monkeypatch.setitem(registry._PASSES, p.name, p)
    return p


# -- opt ------------------------------------------------------------------------------------

def test_opt_verifies_and_prints_the_module(capsys):
    assert main(["opt", str(MLP), "--passes", "DeadCodeElimination", "--verify", "2"]) == 0
    out, err = capsys.readouterr()
    assert "DeadCodeElimination: OK (2 trials, 2 compared" in err
    assert structural_equal(normalize(parse(out)), normalize(parse(MLP.read_text())))


def test_opt_applies_passes_in_order_and_writes_output(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(WITH_DEAD_CODE)
    out = tmp_path / "out.py"
    assert main(["opt", str(src), "--passes", "DeadCodeElimination,DeadCodeElimination",
                 "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    text = out.read_text()
    assert "dead" not in text and "R.add(x, x)" in text
    parse(text)


def test_opt_unknown_pass_lists_the_known_ones(capsys):
    assert main(["opt", str(MLP), "--passes", "DeadCodeElimination,NoSuchPass"]) == 2
    err = capsys.readouterr().err
    assert "unknown pass 'NoSuchPass'" in err
    assert "known passes:" in err and "DeadCodeElimination" in err


def test_opt_verify_reports_a_failing_pass(broken_pass, capsys):
    assert main(["opt", str(MLP), "--passes", "DeadCodeElimination,AddBecomesSubtract",
                 "--verify", "2"]) == 1
    out, err = capsys.readouterr()
    assert "DeadCodeElimination: OK" in err
    assert "AddBecomesSubtract: FAILED" in err and "changed the result of main" in err
    assert out == ""


def test_opt_without_verify_runs_a_failing_pass(broken_pass, capsys):
    assert main(["opt", str(MLP), "--passes", "AddBecomesSubtract"]) == 0
    assert "R.subtract(h, b1)" in capsys.readouterr().out


def test_opt_console_script():
    exe = Path(sys.executable).with_name("relax-ref")
    if not exe.exists():
        pytest.skip("the relax-ref console script is not installed next to python")
    proc = subprocess.run([str(exe), "opt", str(MLP), "--passes", "Nope"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "known passes" in proc.stderr


# -- fuzz -------------------------------------------------------------------------------------

def test_fuzz_runs_and_reports(tmp_path, capsys):
    out_dir = tmp_path / "failures"
    rc = main(["fuzz", "--pass", "DeadCodeElimination", "--programs", "40",
               "--out", str(out_dir)])
    out = capsys.readouterr().out
    assert "DeadCodeElimination:" in out and "programs/s" in out
    assert rc in (0, 1)
    if rc == 1:  # failures are listed with their files
        assert "failing program" in out
        listed = [line.split("] ", 1)[1].split(" (+")[0] for line in out.splitlines()
                  if line.strip().startswith("[")]
        assert listed
        for path in listed:
            assert Path(path).exists()
            assert Path(path).with_suffix(".npz").exists()
            assert Path(path).with_suffix(".txt").exists()
    else:
        assert "no failures" in out


def test_fuzz_finds_a_broken_pass(broken_pass, tmp_path, capsys):
    out_dir = tmp_path / "failures"
    rc = main(["fuzz", "--pass", "AddBecomesSubtract", "--programs", "30", "--seed", "3",
               "--out", str(out_dir)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "[wrong result]" in out
    assert (out_dir / "AddBecomesSubtract-1.py").exists()
    parse((out_dir / "AddBecomesSubtract-1.py").read_text())


def test_fuzz_unknown_pass(capsys):
    assert main(["fuzz", "--pass", "NoSuchPass", "--time", "1"]) == 2
    assert "known passes" in capsys.readouterr().err


def test_fuzz_prepares_the_input_of_a_pass_on_lowered_modules(monkeypatch, tmp_path, capsys):
    """PASS-fuzz-3: a pass with ``fuzz_inputs`` sees the programs lowered, and a failure is
    saved as the lowered module (here: a pass that breaks every lowered ``add``)."""
    import dataclasses

    from relax_ref.ir import tir
    from relax_ref.passes.legalize_ops import legalize_ops

    def break_adds(mod):
        funcs = {}
        for name, f in mod.functions.items():
            if isinstance(f, tir.PrimFunc) and name.startswith("add"):
                f = dataclasses.replace(f, body=tir.Evaluate(f.params[0]))  # writes nothing
            funcs[name] = f
        return mod.with_functions(funcs)

    p = Pass("BreakLoweredAdds", break_adds, fuzz_inputs=legalize_ops)
    registry._load()
    monkeypatch.setitem(registry._PASSES, p.name, p)
    out_dir = tmp_path / "failures"
    rc = main(["fuzz", "--pass", "BreakLoweredAdds", "--programs", "40", "--seed", "1",
               "--out", str(out_dir)])
    assert rc == 1, capsys.readouterr().out
    saved = (out_dir / "BreakLoweredAdds-1.py").read_text()
    assert "R.call_tir" in saved and "T.prim_func" in saved


def test_opt_runs_the_fuse_pipeline(capsys):
    """PASS-pipe-4: --pipeline fuse lowers, annotates, groups and merges the kernels."""
    from tests.conftest import REPO

    rc = main(["opt", str(REPO / "examples" / "mlp.py"), "--pipeline", "fuse", "--verify", "2"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    for name in ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"):
        assert f"{name}: OK" in captured.err
    assert "fused_" in captured.out and "R.call_tir" in captured.out
    assert main(["opt", str(REPO / "examples" / "mlp.py"), "--pipeline", "nope"]) == 2
