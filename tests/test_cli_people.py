"""The command line for people (spec/api.md): --version and --help, the entry default,
pass options and IR dumps, budgets refused before work, and every file problem a clear
error with exit 1, never a traceback or a hang."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from relax_ref import cli_io
from relax_ref.cli import main
from relax_ref.passes.registry import all_passes
from tests.conftest import REPO

MLP = REPO / "examples" / "mlp.py"

TWO = '''
@I.ir_module
class Module:
    @R.function
    def double(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        return R.add(x, x)

    @R.function
    def square(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        return R.multiply(x, x)
'''

TUPLE_PARAM = '''
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tuple(R.Tensor((1,), "float32"))), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a = t[0]
        return R.add(a, y)
'''

LOOP = '''
@I.ir_module
class Module:
    @T.prim_func
    def count(A: T.Buffer((1,), "int32"), B: T.Buffer((1,), "int32")):
        B[0] = A[0]
        for i in range(100000):
            B[0] = B[0] + 1

    @R.function
    def main(x: R.Tensor((1,), "int32")) -> R.Tensor((1,), "int32"):
        y = R.call_tir(cls.count, (x,), out_sinfo=R.Tensor((1,), "int32"))
        return y
'''


def cli(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- the front door ---------------------------------------------------------------------------

def test_version_and_help_list_every_command(capsys):
    rc, out, _ = cli(capsys, "--version")
    assert rc == 0 and out.startswith("relax-ref ")
    rc, out, _ = cli(capsys, "--help")
    assert rc == 0
    for command in ("print", "check", "run", "conformance", "opt", "passes", "fuzz"):
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(command))
        described = line.strip() != command or out.split(line, 1)[1].strip()
        assert described, f"{command} has no description"


def test_entry_defaults_to_the_only_function_and_lists_candidates(tmp_path, capsys):
    one = write(tmp_path, "one.py", TWO.split("    @R.function\n    def square")[0])
    rc, out, err = cli(capsys, "run", one)
    assert rc == 0, err
    rc, _, err = cli(capsys, "run", write(tmp_path, "two.py", TWO))
    assert rc == 2 and "double, square" in err and "--entry" in err
    rc, out, err = cli(capsys, "run", tmp_path / "two.py", "--entry", "square")
    assert rc == 0, err



def test_check_prints_a_warning_with_its_place_and_succeeds(tmp_path, capsys):
    """SI-ann-4: a return annotation that contradicts the body is accepted, as TVM does,
    with one located warning; running it then fails the return check (exit 1)."""
    path = write(tmp_path, "ret.py", '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "int32"):
        return x
''')
    rc, _, err = cli(capsys, "check", path)
    assert rc == 0, err
    assert err.count("warning:") == 1 and f"{path}:5:47: warning:" in err, err
    assert "^^^" in err and "[SI-ann-4]" in err
    rc, _, err = cli(capsys, "run", path)  # random arguments
    assert rc == 1 and "EXEC-call-4" in err, err

def test_passes_lists_every_pass_with_its_contract(capsys):
    rc, out, _ = cli(capsys, "passes")
    assert rc == 0
    for name in all_passes():
        assert f"\n{name}: " in "\n" + out
    assert "produces: no dataflow blocks" in out
    assert "options: order='depth-first', direction='from-inputs'" in out


def test_print_after_all_and_after_one_pass(capsys):
    rc, out, err = cli(capsys, "opt", MLP, "--passes", "ToNonDataflow,DeadCodeElimination",
                       "--print-after-all")
    assert rc == 0
    assert err.count("# IR after ") == 2 and "# IR after ToNonDataflow\n" in err
    assert "R.dataflow" not in err.split("# IR after ToNonDataflow")[1]
    rc, out, err = cli(capsys, "opt", MLP, "--passes", "ToNonDataflow,DeadCodeElimination",
                       "--print-after", "DeadCodeElimination")
    assert rc == 0 and err.count("# IR after ") == 1 and "DeadCodeElimination\n" in err
    rc, _, err = cli(capsys, "opt", MLP, "--passes", "ToNonDataflow", "--print-after", "Nope")
    assert rc == 2 and "not among --passes" in err


def test_pass_options_on_the_command_line(capsys):
    rc, out, err = cli(capsys, "opt", MLP, "--passes", "BindSymbolicVars",
                       "--pass-opt", "BindSymbolicVars:b=4", "--verify", "1")
    assert rc == 0, err
    assert "R.Tensor((4, 16)" in out
    rc, out, err = cli(capsys, "opt", MLP, "--passes", "TopologicalSort",
                       "--pass-opt", "TopologicalSort:order=breadth-first",
                       "--pass-opt", "TopologicalSort:direction=from-outputs")
    assert rc == 0, err
    for bad, words in [("TopologicalSort:order", "PASS:KEY=VALUE"),
                       ("TopologicalSort:colour=red", "no option 'colour'"),
                       ("TopologicalSort:order=sideways", "order must be one of"),
                       ("LambdaLift:x=1", "not among --passes")]:
        rc, _, err = cli(capsys, "opt", MLP, "--passes", "TopologicalSort", "--pass-opt", bad)
        assert rc == 2 and words in err, (bad, err)


def test_option_values_are_read_not_evaluated():
    from relax_ref.cli import _option_value

    assert _option_value("4") == 4 and _option_value("2.5") == 2.5
    assert _option_value("true") is True and _option_value("none") is None
    assert _option_value("f,g") == ["f", "g"] and _option_value("1,2") == [1, 2]
    assert _option_value("__import__('os')") == "__import__('os')"
    assert _option_value("nan") == "nan"


def test_max_steps_bounds_a_tir_loop(tmp_path, capsys):
    path = write(tmp_path, "loop.py", LOOP)
    rc, _, err = cli(capsys, "run", path, "--arg", "x=random:1:int32", "--tir-mode", "scalar",
                     "--max-steps", "50")
    assert rc == 1 and "50 steps" in err
    rc, _, err = cli(capsys, "run", path, "--max-steps", "0")
    assert rc == 2 and "positive integer" in err


def test_tuple_parameters_read_by_field_from_npz(tmp_path, capsys):
    path = write(tmp_path, "t.py", TUPLE_PARAM)
    np.savez(tmp_path / "in.npz", in_0_0=np.array([1, 2], np.float32),
             in_0_1_0=np.array([9], np.float32), in_1=np.array([10, 20], np.float32))
    rc, out, err = cli(capsys, "run", path, "--args", tmp_path / "in.npz")
    assert rc == 0, err
    assert "11" in out and "22" in out
    np.savez(tmp_path / "bad.npz", in_0_0=np.array([1, 2], np.float32),
             in_1=np.array([10, 20], np.float32))
    rc, _, err = cli(capsys, "run", path, "--args", tmp_path / "bad.npz")
    assert rc == 1 and "no array in_0_1_0" in err


# -- budgets that would check nothing (issue 18) ------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["--time", "nan"], ["--time", "inf"], ["--time", "0"], ["--time", "-3"],
    ["--trials", "0"], ["--trials", "-1"], ["--programs", "0"], ["--seed", "-1"],
    ["--seed", "x"],
])
def test_fuzz_refuses_budgets_that_check_nothing(tmp_path, capsys, argv):
    rc, out, err = cli(capsys, "fuzz", "--pass", "Normalize", "--out", tmp_path, *argv)
    assert rc == 2 and argv[0] in err and "programs" not in out


@pytest.mark.parametrize("argv", [
    ["fuzz", "--pass", "Normalize", "--programs", "99999999999999999999"],
    ["fuzz", "--pass", "Normalize", "--trials", "100001"],
    ["fuzz", "--pass", "Normalize", "--time", "1e9"],
    ["opt", MLP, "--passes", "Normalize", "--verify", "99999999999999999999"],
])
def test_budgets_that_would_never_end_are_refused(tmp_path, capsys, argv):
    rc, out, err = cli(capsys, *argv)
    assert rc == 2 and argv[-2] in err and out == ""


@pytest.mark.parametrize("value,fragment", [
    ("nan", "not 'nan'"), ("99999999999999999999", "outside its range"),
])
def test_a_symbolic_value_a_pass_refuses_is_an_error(capsys, value, fragment):
    rc, out, err = cli(capsys, "opt", MLP, "--passes", "BindSymbolicVars",
                       "--pass-opt", f"BindSymbolicVars:b={value}")
    assert rc == 1 and fragment in err and out == ""


def test_fuzz_counts_programs(tmp_path, capsys):
    rc, out, err = cli(capsys, "fuzz", "--pass", "Normalize", "--programs", "5",
                       "--out", tmp_path / "f")
    assert rc == 0 and "Normalize: 5 programs" in out


# -- files (CLI-input-1, CLI-input-2, CLI-output-1) -------------------------------------------

@pytest.mark.parametrize("command", [["print"], ["check"], ["opt", "--passes", "Normalize"]])
@pytest.mark.parametrize("target", ["dir", "missing-dir", "full"])
def test_output_paths_that_cannot_be_written(tmp_path, capsys, command, target):
    out = {"dir": tmp_path, "missing-dir": tmp_path / "no" / "out.py",
           "full": "/dev/full"}[target]
    if target == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    rc, _, err = cli(capsys, command[0], MLP, *command[1:], "-o", out)
    assert rc == 1 and f"cannot write {out}" in err


@pytest.mark.parametrize("target", ["dir", "full"])
def test_run_out_junit_and_fuzz_out_that_cannot_be_written(tmp_path, capsys, target):
    out = tmp_path if target == "dir" else "/dev/full"
    if target == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    rc, _, err = cli(capsys, "run", MLP, "--sym", "b=1", "--out", out)
    assert rc == 1 and f"cannot write {out}" in err
    case = REPO / "conformance" / "exec"
    rc, _, err = cli(capsys, "conformance", case, "-k", "match_cast", "--junit", out)
    assert rc == 1 and f"cannot write {out}" in err
    if target == "full":
        rc, _, err = cli(capsys, "fuzz", "--pass", "Normalize", "--programs", "1", "--out", out)
        assert rc == 1 and "not a directory" in err


def test_conformance_path_that_is_not_a_suite(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    toml_alone = write(tmp_path, "x.toml", "a = 1")
    for path in (MLP, tmp_path / "empty", tmp_path / "missing", toml_alone):
        rc, _, err = cli(capsys, "conformance", path)
        assert rc == 1 and "conformance suite, area or case" in err, (path, err)


def test_conformance_with_tvm_missing_is_one_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tvm", None)  # `import tvm` now fails
    rc, out, err = cli(capsys, "conformance", "--impl", "tvm")
    assert rc == 2 and err.count("\n") == 1 and "relax-ref[tvm]" in err and not out


def _npy_header_only(path, shape, dtype=np.float32):
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                "fortran_order": False, "shape": shape})


def test_an_enormous_declared_array_is_refused_before_loading(tmp_path, capsys):
    _npy_header_only(tmp_path / "big.npy", (1 << 40,))
    rc, _, err = cli(capsys, "run", MLP, "--sym", "b=1", "--arg", f"x={tmp_path / 'big.npy'}")
    assert rc == 1 and "declares an array of shape [1099511627776]" in err
    np.savez(tmp_path / "in.npz", in_0=np.zeros(1))
    import zipfile
    with zipfile.ZipFile(tmp_path / "in.npz", "a") as zf:
        _npy_header_only(tmp_path / "in_1.npy", (1 << 20, 1 << 20))
        zf.write(tmp_path / "in_1.npy", "in_1.npy")
    rc, _, err = cli(capsys, "run", MLP, "--args", tmp_path / "in.npz")
    assert rc == 1 and "in_1 declares an array" in err


def test_non_regular_and_oversized_inputs(tmp_path, capsys, monkeypatch):
    if os.path.exists("/dev/zero"):
        rc, _, err = cli(capsys, "print", "/dev/zero")
        assert rc == 1 and "a device" in err
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)  # reading it would block forever
    rc, _, err = cli(capsys, "check", fifo)
    assert rc == 1 and "a FIFO" in err
    rc, _, err = cli(capsys, "print", tmp_path)
    assert rc == 1 and "a directory" in err
    monkeypatch.setattr(cli_io, "MAX_TEXT_BYTES", 100)
    rc, _, err = cli(capsys, "print", MLP)
    assert rc == 1 and "MiB an input text may have" in err


def test_a_million_line_input_is_refused_before_parsing(tmp_path, capsys):
    path = tmp_path / "long.py"
    path.write_text("# a comment\n" * 1_000_000)
    for command in ("print", "check", "run"):
        rc, out, err = cli(capsys, command, path)
        assert rc == 1 and out == ""
        assert "1000000 lines, more than the 100000 an input text may have" in err


def test_not_utf8_is_a_located_error_with_exit_1(tmp_path, capsys):
    path = tmp_path / "bin.py"
    path.write_bytes(b"@I.ir_module\nclass \xff\n")
    for command in ("print", "check", "run"):
        rc, _, err = cli(capsys, command, path)
        assert rc == 1 and f"{path}:2:7: error: the file is not UTF-8" in err


def test_check_reports_every_error_with_its_line(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", '''
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
''')
    rc, out, err = cli(capsys, "check", bad)
    assert rc == 1 and not out
    assert f"{bad}:6:9: error" in err and f"{bad}:11:9: error" in err
    assert f"{bad}: 2 error(s)" in err
