"""`relax-ref run` (relax_ref/cli.py: cmd_run, _build_arguments, _summary).

The samples in ../shared/tvmscript-samples carry TVM's own inputs and outputs, so most
checks run a sample with ``--args X.runK.npz --out`` and compare the saved results with
TVM's. Small modules written into tmp_path cover the other argument forms, --trace and
the error paths: every bad input must end with a message and a non-zero exit code, not
with an exception escaping ``main``.
"""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from relax_ref.cli import main
from tests.conftest import REPO, SAMPLES, sample_manifest


def _manifest_runs():
    out = []
    for sample in sample_manifest():
        for run in sample["runs"]:
            if run["expect"].startswith("ok"):
                out.append(pytest.param(sample["name"], sample["entry"], run["file"],
                                        id=f"{sample['name']}:{run['file']}"))
    return out


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """Run ``relax-ref run ARGV...`` in this process; (exit code, stdout, stderr)."""
    rc = main(["run", *map(str, argv)])
    out, err = capsys.readouterr()
    assert isinstance(rc, int)
    return rc, out, err


def assert_failed(rc: int, err: str, *fragments: str) -> None:
    assert rc != 0
    assert "Traceback" not in err
    for f in fragments:
        assert f in err, f"{f!r} not in {err!r}"


def load_outputs(path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        keys = sorted(data.files, key=lambda k: int(k.split("_")[1]))
        assert keys == [f"out_{i}" for i in range(len(keys))]
        return [data[k] for k in keys]


def assert_matches(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


# Small modules for the argument forms. The samples' texts comment out their imports;
# these do the same.

ADD_SQUARE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            z = R.add(x, y)
            w = R.multiply(z, z)
            R.output(w)
        return w
'''

NESTED_TUPLES = '''
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), dtype="int32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((1,), dtype="int64")))) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((1,), dtype="int64"))):
        a = t[0]
        b = t[1]
        c = b[0]
        d = b[1]
        return (c, (a, d))
'''

SHAPE_AND_PRIMS = '''
@I.ir_module
class Module:
    @R.function
    def one_dim(s: R.Shape(["a"])) -> R.Shape(["a"]):
        return s

    @R.function
    def two_dims(s: R.Shape(["a", "b"])) -> R.Shape(["a", "b"]):
        return s

    @R.function
    def prims(x: R.Prim("float32"), y: R.Prim("bool")) -> R.Tuple(R.Prim("float32"), R.Prim("bool")):
        return (x, y)

    @T.prim_func(private=True)
    def copy(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        for i in range(T.int64(2)):
            with T.sblock("c"):
                vi = T.axis.spatial(T.int64(2), i)
                B[vi] = A[vi]
'''

# Writes only the first half of each output: the rest stays poison (NaN for floats).
HALF_WRITTEN = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def half(A: T.Buffer((T.int64(4),), "int32"), B: T.Buffer((T.int64(4),), "int32"), C: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(2)):
            with T.sblock("w"):
                vi = T.axis.spatial(T.int64(2), i)
                B[vi] = A[vi]
                C[vi] = T.float32(1)

    @R.function
    def main(a: R.Tensor((4,), dtype="int32")) -> R.Tuple(R.Tensor((4,), dtype="int32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        with R.dataflow():
            r = R.call_tir(cls.half, (a,), out_ty=[R.Tensor((4,), dtype="int32"), R.Tensor((4,), dtype="float32")])
            b = r[0]
            c = r[1]
            R.output(b, c)
        return (b, c)
'''


@pytest.fixture(scope="module")
def samples():
    if not SAMPLES.is_dir():
        pytest.skip(f"samples directory {SAMPLES} is absent")
    return SAMPLES


# -- the samples against TVM's recorded results --------------------------------------------

@pytest.mark.parametrize("name,entry,npz", _manifest_runs())
def test_sample_matches_tvm(samples, tmp_path, capsys, name, entry, npz):
    out = tmp_path / "out.npz"
    rc, stdout, err = run_cli(capsys, samples / f"{name}.py", "--entry", entry,
                              "--args", samples / npz, "--out", out)
    assert rc == 0, err
    with np.load(samples / npz) as data:
        want = [data[k] for k in sorted((k for k in data.files if k.startswith("out_")),
                                        key=lambda k: int(k[4:]))]
    got = load_outputs(out)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_matches(g, w)
    # One printed summary per result.
    assert [line.split(":")[0] for line in stdout.splitlines() if line.startswith("out_")] \
        == [f"out_{i}" for i in range(len(want))]


def test_printed_summary_names_shape_dtype_and_values(samples, capsys):
    rc, out, _ = run_cli(capsys, samples / "unique_match_cast.py",
                         "--args", samples / "unique_match_cast.run0.npz")
    assert rc == 0
    with np.load(samples / "unique_match_cast.run0.npz") as data:
        want = data["out_0"]
    head, values = out.splitlines()[:2]
    assert head.startswith("out_0")
    assert "(3,)" in head and "int32" in head
    assert f"min={want.min()}" in head and f"max={want.max()}" in head
    assert [int(v) for v in re.findall(r"-?\d+", values)] == want.tolist()


def test_tuple_result_is_flattened_depth_first(samples, tmp_path, capsys):
    # tuples_shapes returns (tensor, shape, prim): saved as a tensor, an int64 vector and
    # a 0-d int64 array.
    out = tmp_path / "out.npz"
    rc, stdout, _ = run_cli(capsys, samples / "tuples_shapes.py",
                            "--args", samples / "tuples_shapes.run0.npz", "--out", out)
    assert rc == 0
    got = load_outputs(out)
    assert [g.shape for g in got] == [(3, 2), (2,), ()]
    assert got[1].tolist() == [3, 2] and got[1].dtype == np.int64
    assert got[2] == 12 and got[2].dtype == np.int64
    assert "Shape([3, 2])" in stdout and "12" in stdout


def test_nested_tuples_in_and_out(tmp_path, capsys):
    # The tuple parameter is read from in_0..in_2 depth-first, and the nested result
    # (c, (a, d)) is written depth-first as out_0 = c, out_1 = a, out_2 = d.
    mod = write(tmp_path, "t.py", NESTED_TUPLES)
    a = np.array([7, -3], dtype=np.int32)
    c = np.array([0.5, 1.5, -2.0], dtype=np.float32)
    d = np.array([42], dtype=np.int64)
    np.savez(tmp_path / "in.npz", in_0=a, in_1=c, in_2=d)
    rc, _, err = run_cli(capsys, mod, "--args", tmp_path / "in.npz", "--out", tmp_path / "o.npz")
    assert rc == 0, err
    got = load_outputs(tmp_path / "o.npz")
    assert len(got) == 3
    for g, w in zip(got, [c, a, d]):
        assert_matches(g, w)


def test_out_keeps_scalar_dtypes_and_the_given_name(tmp_path, capsys):
    mod = write(tmp_path, "p.py", SHAPE_AND_PRIMS)
    out = tmp_path / "results.bin"  # no .npz suffix: the file is written as named
    rc, stdout, err = run_cli(capsys, mod, "--entry", "prims", "--arg", "x=1.5",
                              "--arg", "y=1", "--out", out)
    assert rc == 0, err
    assert out.is_file()
    x, y = load_outputs(out)
    assert x.shape == () and x.dtype == np.float32 and x == 1.5
    assert y.shape == () and y.dtype == np.bool_ and bool(y) is True
    assert "1.5" in stdout and "float32" in stdout


# -- argument forms --------------------------------------------------------------------------

def test_arguments_from_npy_files(samples, tmp_path, capsys):
    with np.load(samples / "call_tir_bias_add.run0.npz") as data:
        x, b, want = data["in_0"], data["in_1"], data["out_0"]
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "b.npy", b)
    rc, _, err = run_cli(capsys, samples / "call_tir_bias_add.py",
                         "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"b={tmp_path / 'b.npy'}",
                         "--out", tmp_path / "o.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "o.npz")
    assert_matches(got, want)


def test_number_for_a_prim_parameter(samples, tmp_path, capsys):
    # recursion.main(x, k) doubles x k times.
    x = np.array([1.0, -2.0, 0.25], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--arg", "k=3", "--out", tmp_path / "o.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "o.npz")
    assert_matches(got, x * 8)


def test_sym_gives_a_prim_parameter_its_value(samples, tmp_path, capsys):
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--sym", "k=2", "--out", tmp_path / "o.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "o.npz")
    assert_matches(got, x * 4)


def test_number_and_sym_for_shape_parameters(tmp_path, capsys):
    mod = write(tmp_path, "s.py", SHAPE_AND_PRIMS)
    rc, out, err = run_cli(capsys, mod, "--entry", "one_dim", "--arg", "s=3",
                           "--out", tmp_path / "a.npz")
    assert rc == 0, err
    assert load_outputs(tmp_path / "a.npz")[0].tolist() == [3]
    assert "Shape([3])" in out
    rc, out, err = run_cli(capsys, mod, "--entry", "two_dims", "--sym", "a=2", "--sym", "b=5",
                           "--out", tmp_path / "b.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "b.npz")
    assert got.tolist() == [2, 5] and got.dtype == np.int64


def test_random_spec_and_sym_choose_shapes(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    # x given as random:2x4, y random from its annotation; n follows from x.
    rc, _, err = run_cli(capsys, mod, "--arg", "x=random:2x4:float32",
                         "--out", tmp_path / "a.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "a.npz")
    assert got.shape == (2, 4) and got.dtype == np.float32
    assert np.all(got >= 0) and np.all(np.isfinite(got))  # a square
    # Everything random, n from --sym.
    rc, _, err = run_cli(capsys, mod, "--sym", "n=6", "--out", tmp_path / "b.npz")
    assert rc == 0, err
    assert load_outputs(tmp_path / "b.npz")[0].shape == (6, 4)


def test_sym_on_a_sample(samples, tmp_path, capsys):
    rc, _, err = run_cli(capsys, samples / "flatten_dynamic.py", "--sym", "n=3",
                         "--out", tmp_path / "o.npz")
    assert rc == 0, err
    (got,) = load_outputs(tmp_path / "o.npz")
    assert got.shape == (12,) and got.dtype == np.float32


def test_seed_makes_random_arguments_reproducible(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)

    def result(*extra):
        path = tmp_path / f"o{len(list(tmp_path.iterdir()))}.npz"
        rc, _, err = run_cli(capsys, mod, "--sym", "n=3", *extra, "--out", path)
        assert rc == 0, err
        return load_outputs(path)[0]

    first, again = result("--seed", "7"), result("--seed", "7")
    assert first.tobytes() == again.tobytes()
    assert result("--seed", "8").tobytes() != first.tobytes()
    # The default seed is fixed too.
    assert result().tobytes() == result().tobytes()
    # A random: spec draws from the same seeded generator.
    spec = ("--arg", "x=random:3x4:float32")
    assert result(*spec, "--seed", "1").tobytes() == result(*spec, "--seed", "1").tobytes()
    assert result(*spec, "--seed", "1").tobytes() != result(*spec, "--seed", "2").tobytes()


# -- --trace -----------------------------------------------------------------------------

def test_trace_reports_each_binding_on_stderr(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    np.save(tmp_path / "x.npy", np.array([[0, 1, 2, 3]], dtype=np.float32))
    np.save(tmp_path / "y.npy", np.array([1, 1, 1, -3], dtype=np.float32))
    rc, out, err = run_cli(capsys, mod, "--arg", f"x={tmp_path / 'x.npy'}",
                           "--arg", f"y={tmp_path / 'y.npy'}", "--trace")
    assert rc == 0
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    # z = x + y = [1, 2, 3, 0]; w = z * z = [1, 4, 9, 0], in execution order.
    assert [line.split("=")[0].strip() for line in lines] == ["z", "w"]
    z, w = lines
    assert "(1, 4)" in z and "float32" in z
    assert "min=0" in z and "max=3" in z and "mean=1.5" in z
    assert "min=0" in w and "max=9" in w and "mean=3.5" in w
    # The trace stays off stdout, which still has the result.
    assert "min=0" in out and "z =" not in out and "w =" not in out


def test_no_trace_without_the_flag(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod, "--sym", "n=2")
    assert rc == 0 and err == ""


def test_trace_counts_nan_and_poison(tmp_path, capsys):
    mod = write(tmp_path, "h.py", HALF_WRITTEN)
    np.save(tmp_path / "a.npy", np.array([6, 2, 8, 9], dtype=np.int32))
    rc, out, err = run_cli(capsys, mod, "--arg", f"a={tmp_path / 'a.npy'}", "--trace")
    assert rc == 0
    trace = {line.split("=")[0].strip(): line for line in err.splitlines() if "=" in line}
    assert set(trace) == {"r", "b", "c"}
    assert "poison=2" in trace["b"] and "nan=" not in trace["b"]
    assert "nan=2" in trace["c"]
    # The tuple binding summarizes each field, poison and NaN included.
    assert "poison=2" in trace["r"] and "nan=2" in trace["r"]
    # Min/max/mean skip NaN.
    assert "min=1" in trace["c"] and "max=1" in trace["c"] and "mean=1" in trace["c"]
    # The printed results carry the counts as well.
    assert "poison=2" in out and "nan=2" in out


# -- --tir-mode ------------------------------------------------------------------------------

@pytest.mark.parametrize("npz", ["mlp.fused.run0.npz", "mlp.fused.run1.npz"])
def test_tir_mode_ordered_is_bit_identical_to_scalar(samples, tmp_path, capsys, npz):
    results = {}
    for mode in ("ordered", "scalar"):
        path = tmp_path / f"{mode}.npz"
        rc, _, err = run_cli(capsys, samples / "mlp.fused.py", "--args", samples / npz,
                             "--tir-mode", mode, "--out", path)
        assert rc == 0, err
        (results[mode],) = load_outputs(path)
    assert results["ordered"].dtype == results["scalar"].dtype
    assert results["ordered"].tobytes() == results["scalar"].tobytes()
    with np.load(samples / npz) as data:
        assert_matches(results["scalar"], data["out_0"])


def test_unknown_tir_mode_is_rejected(samples, capsys):
    assert main(["run", str(samples / "mlp.fused.py"), "--tir-mode", "fast"]) == 2
    assert "fast" in capsys.readouterr().err


# -- errors ----------------------------------------------------------------------------------

def test_failing_match_cast(samples, tmp_path, capsys):
    out = tmp_path / "o.npz"
    rc, stdout, err = run_cli(capsys, samples / "match_cast_fail.py",
                              "--args", samples / "match_cast_fail.run1.npz", "--out", out)
    assert_failed(rc, err, "match_cast", "dimension 1 is 5, expected 4")
    assert "match_cast_fail.py:9" in err  # points at the binding
    assert not out.exists() and "out_0" not in stdout


def test_missing_file(tmp_path, capsys):
    rc, _, err = run_cli(capsys, tmp_path / "absent.py")
    assert_failed(rc, err, "absent.py", "No such file")


def test_malformed_text(tmp_path, capsys):
    mod = write(tmp_path, "bad.py", ADD_SQUARE.replace("R.add(x, y)", "R.add(x, y"))
    rc, _, err = run_cli(capsys, mod, "--sym", "n=2")
    assert_failed(rc, err, "bad.py:")
    assert "error" in err


def test_not_utf8(tmp_path, capsys):
    path = tmp_path / "bin.py"
    path.write_bytes(b"@I.ir_module\nclass \xff\n")
    rc, _, err = run_cli(capsys, path)
    assert_failed(rc, err, "not UTF-8")


def test_wrong_argument_shape_from_npy(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    np.save(tmp_path / "y.npy", np.zeros(5, dtype=np.float32))
    rc, _, err = run_cli(capsys, mod, "--sym", "n=2", "--arg", f"y={tmp_path / 'y.npy'}")
    assert_failed(rc, err, "'y'", "dimension 0 is 5, expected 4")


def test_wrong_argument_dtype_from_random(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod, "--arg", "x=random:3x4:int32")
    assert_failed(rc, err, "'x'", "int32", "float32")


def test_wrong_argument_shape_from_npz(samples, tmp_path, capsys):
    np.savez(tmp_path / "in.npz", in_0=np.zeros((3, 5), np.float32),
             in_1=np.zeros(8, np.float32))
    rc, _, err = run_cli(capsys, samples / "call_tir_bias_add.py", "--args", tmp_path / "in.npz")
    assert_failed(rc, err, "'x'", "dimension 1 is 5, expected 8")


@pytest.mark.parametrize("arrays,message", [
    ({"in_0": np.zeros(3, np.float32)}, "no array for parameter 'k'"),
    ({"in_0": np.zeros(3, np.float32), "in_1": np.asarray(1), "in_2": np.zeros(1)},
     "1 more arrays"),
    ({"in_0": np.zeros(3, np.float32), "in_2": np.asarray(1)}, "in_2"),
    ({"in_0": np.zeros(3, np.float32), "in_k": np.asarray(1)}, "in_k"),
    ({"in_0": np.zeros((3, 1), np.float32), "in_1": np.asarray(1)}, "'x'"),
    ({"in_0": np.zeros(3, np.float32), "in_1": np.zeros(2, np.int64)}, "0-d"),
], ids=["too-few", "too-many", "gap", "bad-name", "wrong-rank", "prim-not-scalar"])
def test_bad_npz_arguments(samples, tmp_path, capsys, arrays, message):
    np.savez(tmp_path / "in.npz", **arrays)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args", tmp_path / "in.npz")
    assert_failed(rc, err, message)


@pytest.mark.parametrize("content", [b"", b"not an archive at all"], ids=["empty", "junk"])
def test_unreadable_npz(samples, tmp_path, capsys, content):
    path = tmp_path / "in.npz"
    path.write_bytes(content)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args", path)
    assert_failed(rc, err, "cannot load", "in.npz")


def test_npy_given_to_args(samples, tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.zeros(3, np.float32))
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args", tmp_path / "x.npy")
    assert_failed(rc, err, "x.npy", "not an .npz")


def test_missing_npz(samples, tmp_path, capsys):
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args", tmp_path / "no.npz")
    assert_failed(rc, err, "cannot load", "no.npz")


def test_symbolic_variable_without_a_value(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod)
    assert_failed(rc, err, "symbolic variable", "n", "--sym n=")


def test_prim_parameter_without_a_value(samples, tmp_path, capsys):
    rc, _, err = run_cli(capsys, samples / "recursion.py")
    assert_failed(rc, err, "k", "--arg k=", "--sym k=")
    mod = write(tmp_path, "p.py", SHAPE_AND_PRIMS)
    rc, _, err = run_cli(capsys, mod, "--entry", "prims", "--arg", "y=1")
    assert_failed(rc, err, "x", "--arg x=")


def test_unknown_entry(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod, "--entry", "nope")
    assert_failed(rc, err, "'nope'", "main")


def test_prim_func_entry(tmp_path, capsys):
    mod = write(tmp_path, "p.py", SHAPE_AND_PRIMS)
    rc, _, err = run_cli(capsys, mod, "--entry", "copy")
    assert_failed(rc, err, "'copy'", "prim_func")


@pytest.mark.parametrize("argv,fragments", [
    (["--sym", "n=2", "--arg", "q=random:2x4:float32"], ["'q'", "x, y"]),
    (["--arg", "x"], ["NAME=VALUE"]),
    (["--arg", "x=hello"], ["'hello'", ".npy"]),
    (["--arg", "x=random:3:4:float32"], ["random:3x4:float32"]),
    (["--arg", "x=random:3xq:float32"], ["random:3xq:float32"]),
    (["--arg", "x=random:3x4:flurb"], ["flurb"]),
    (["--arg", "x=random:-1x4:float32"], ["negative"]),
    (["--sym", "n"], ["NAME=INT"]),
    (["--sym", "n=two"], ["'two'", "integer"]),
    (["--sym", "n=-1"], ["-1"]),
], ids=["unknown-param", "arg-no-value", "arg-unreadable", "random-parts", "random-dim",
        "random-dtype", "random-negative", "sym-no-value", "sym-not-int", "sym-negative"])
def test_bad_argument_specs(tmp_path, capsys, argv, fragments):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod, *argv)
    assert_failed(rc, err, *fragments)


def test_missing_npy(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    rc, _, err = run_cli(capsys, mod, "--sym", "n=2", "--arg", f"y={tmp_path / 'no.npy'}")
    assert_failed(rc, err, "--arg y", "no.npy")


def test_empty_npy(tmp_path, capsys):
    mod = write(tmp_path, "m.py", ADD_SQUARE)
    (tmp_path / "y.npy").write_bytes(b"")
    rc, _, err = run_cli(capsys, mod, "--sym", "n=2", "--arg", f"y={tmp_path / 'y.npy'}")
    assert_failed(rc, err, "cannot load", "y.npy")


def test_fraction_for_an_integer_prim(samples, capsys):
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", "k=2.5")
    assert_failed(rc, err, "--arg k", "2.5", "int64")


def test_args_and_arg_together(samples, capsys):
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args",
                         samples / "recursion.run0.npz", "--arg", "k=1")
    assert_failed(rc, err, "--args", "--arg")


def test_unwritable_out(samples, tmp_path, capsys):
    out = tmp_path / "no-such-dir" / "o.npz"
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--args",
                         samples / "recursion.run0.npz", "--out", out)
    assert_failed(rc, err, "cannot write", "o.npz")


def test_command_line_error_has_no_traceback(samples, tmp_path):
    # Through a real process: the message and exit code are what a user sees.
    proc = subprocess.run(
        [sys.executable, "-m", "relax_ref.cli", "run", str(samples / "match_cast_fail.py"),
         "--args", str(samples / "match_cast_fail.run1.npz")],
        cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "match_cast" in proc.stderr
    assert proc.stdout == ""


def test_a_sym_the_signature_does_not_have_is_an_error(capsys):
    """A misspelt --sym would otherwise be ignored and the inputs drawn at other sizes."""
    rc, _, err = run_cli(capsys, REPO / "examples" / "mlp.py", "--sym", "b=2", "--sym", "bb=3")
    assert_failed(rc, err, "--sym bb", "its symbolic variables: b")



class _ClosedPipe:
    """A standard output whose reader has gone away."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_closed_pipe_is_not_a_traceback(monkeypatch, capsys):
    """`relax-ref run ... | head -1`: the reader leaving early ends the command quietly."""
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    rc = main(["run", str(REPO / "examples" / "mlp.py"), "--sym", "b=2"])
    assert rc == 1
    assert "Traceback" not in capsys.readouterr().err


# -- sizes, dtypes and values of given arguments ---------------------------------------------

MLP = REPO / "examples" / "mlp.py"


@pytest.mark.parametrize("argv,fragments", [
    (["--arg", "x=random:100000x100000:float32"],
     ["--arg x", "40000000000 bytes", "EXEC-limit-1"]),
    # 3037000500 x 16 x 4 bytes: x from its annotation is over the limit too.
    (["--sym", "b=3037000500"], ["x:", "194368032000 bytes", "EXEC-limit-1"]),
], ids=["random-spec", "sym"])
def test_random_arguments_over_the_size_limit(capsys, argv, fragments):
    # Checked before anything is allocated: NumPy would fail (or the process be killed).
    rc, _, err = run_cli(capsys, MLP, *argv)
    assert_failed(rc, err, *fragments)
    assert rc == 1  # a ResourceError, like any tensor over the limit


@pytest.mark.parametrize("argv,fragments", [
    (["--arg", "x=random:99999999999999999999x16:float32"], ["--arg x", "int64"]),
    (["--arg", "x=random:0x99999999999999999999:float32"], ["--arg x", "int64"]),
    (["--arg", "x=random:0x4611686018427387904x4:float32"], ["4611686018427387904"]),
    (["--sym", "b=99999999999999999999"], ["--sym b", "int64"]),
    (["--sym", "b=-99999999999999999999"], ["--sym b", "int64"]),
], ids=["dim", "dim-beside-zero", "product-beside-zero", "sym", "sym-negative"])
def test_sizes_beyond_int64(capsys, argv, fragments):
    rc, _, err = run_cli(capsys, MLP, *argv)
    assert_failed(rc, err, *fragments)


@pytest.mark.parametrize("spec,fragments", [
    ("random:2x16:", ["dtype is missing"]),
    ("random:2x16:handle", ["'handle'"]),
    ("random:2x16:void", ["'void'"]),
    ("random:2x16:float32x4", ["float32x4", "vector"]),
], ids=["empty", "handle", "void", "vector"])
def test_random_dtype_without_a_numpy_type(capsys, spec, fragments):
    rc, _, err = run_cli(capsys, MLP, "--arg", f"x={spec}")
    assert_failed(rc, err, "--arg x", *fragments)


@pytest.mark.parametrize("value,fragments", [
    (np.array(np.nan), ["whole number", "nan"]),
    (np.array(np.inf), ["whole number", "inf"]),
    (np.array(2.5), ["whole number", "2.5"]),
    (np.array(2.0 ** 70), ["int64", "1180591620717411303424"]),
    (np.array("3"), ["expected numbers", "<U1"]),
    (np.array([3]), ["0-d"]),
], ids=["nan", "inf", "fraction", "beyond-int64", "string", "1-d"])
def test_bad_npy_for_an_integer_prim(samples, tmp_path, capsys, value, fragments):
    np.save(tmp_path / "k.npy", value)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"k={tmp_path / 'k.npy'}")
    assert_failed(rc, err, "--arg k", "k.npy", *fragments)


def test_whole_float_npy_for_an_integer_prim(samples, tmp_path, capsys):
    x = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "k.npy", np.array(2.0))
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--arg", f"k={tmp_path / 'k.npy'}", "--out", tmp_path / "o.npz")
    assert rc == 0, err
    assert_matches(load_outputs(tmp_path / "o.npz")[0], x * 4)


def test_whole_number_with_a_point_for_an_integer_prim(samples, tmp_path, capsys):
    # 2.0 is the integer 2, as a 0-d float .npy holding 2.0 is.
    x = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--arg", "k=2.0", "--out", tmp_path / "o.npz")
    assert rc == 0, err
    assert_matches(load_outputs(tmp_path / "o.npz")[0], x * 4)


@pytest.mark.parametrize("argv,fragments", [
    (["--arg", "x=1" + "0" * 400, "--arg", "y=1"], ["--arg x", "too large for float32"]),
    (["--arg", "x=1.5", "--arg", "y=2"], ["--arg y", "bool in [0, 1]", "found 2"]),
], ids=["float-overflow", "bool-2"])
def test_numbers_out_of_a_prims_range(tmp_path, capsys, argv, fragments):
    mod = write(tmp_path, "p.py", SHAPE_AND_PRIMS)
    rc, _, err = run_cli(capsys, mod, "--entry", "prims", *argv)
    assert_failed(rc, err, *fragments)


@pytest.mark.parametrize("spec,fragments", [
    ("99999999999999999999", ["int64", "99999999999999999999"]),
    ("-99999999999999999999", ["int64", "-99999999999999999999"]),
], ids=["above", "below"])
def test_number_beyond_an_integer_prims_range(samples, capsys, spec, fragments):
    # It used to be wrapped around and reported as a mismatch with another value.
    rc, _, err = run_cli(capsys, samples / "recursion.py", "--arg", f"k={spec}")
    assert_failed(rc, err, "--arg k", *fragments)


@pytest.mark.parametrize("value,fragments", [
    (np.array([np.nan, 3.0]), ["dimension 0", "whole number", "nan"]),
    (np.array([2.5, 3.0]), ["dimension 0", "whole number", "2.5"]),
    (np.array([2, -3]), ["dimension 1", "[0, 9223372036854775807]", "-3"]),
    (np.zeros((1, 2), np.int64), ["1-d", "(1, 2)"]),
], ids=["nan", "fraction", "negative", "2-d"])
def test_bad_npy_for_a_shape(tmp_path, capsys, value, fragments):
    mod = write(tmp_path, "s.py", SHAPE_AND_PRIMS)
    np.save(tmp_path / "s.npy", value)
    rc, out, err = run_cli(capsys, mod, "--entry", "two_dims", "--arg", f"s={tmp_path / 's.npy'}")
    assert_failed(rc, err, "--arg s", "s.npy", *fragments)
    assert out == ""


def test_whole_float_npy_for_a_shape(tmp_path, capsys):
    mod = write(tmp_path, "s.py", SHAPE_AND_PRIMS)
    np.save(tmp_path / "s.npy", np.array([2.0, 3.0]))
    rc, out, err = run_cli(capsys, mod, "--entry", "two_dims", "--arg", f"s={tmp_path / 's.npy'}")
    assert rc == 0, err
    assert "Shape([2, 3])" in out


def test_bad_shape_in_npz(tmp_path, capsys):
    mod = write(tmp_path, "s.py", SHAPE_AND_PRIMS)
    np.savez(tmp_path / "in.npz", in_0=np.array([2.5, 3.0]))
    rc, _, err = run_cli(capsys, mod, "--entry", "two_dims", "--args", tmp_path / "in.npz")
    assert_failed(rc, err, "dimension 0", "2.5")


@pytest.mark.parametrize("argv,fragments", [
    (["--arg", "x=random:2x16:float32", "--arg", "x=random:3x16:float32"],
     ["--arg x is given twice"]),
    (["--sym", "b=2", "--sym", "b=3"], ["--sym b is given twice"]),
    (["--sym", "b=2", "--seed", "-1"], ["--seed", "-1"]),
], ids=["arg", "sym", "negative-seed"])
def test_repeated_or_bad_options(capsys, argv, fragments):
    rc, _, err = run_cli(capsys, MLP, *argv)
    assert_failed(rc, err, *fragments)


# -- what --out writes -----------------------------------------------------------------------

VALUES = '''
@I.ir_module
class Module:
    @R.function
    def objects(x: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tuple(R.Object, R.Object), R.Tuple, R.Tensor((2,), dtype="float32")):
        return (x, (R.str("hi"), R.dtype("float16")), R.tuple(), x)

    @R.function
    def with_null(x: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Object):
        return (x, R.null_value())

    @R.function
    def with_closure(x: R.Tensor((2,), dtype="float32")):
        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            return y
        return (x, inner)

    @R.function
    def casts(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="bfloat16"), R.Tensor((3,), dtype="int4"), R.Tensor((3,), dtype="float8_e5m2"), R.Prim("bfloat16"), R.Tensor((3,), dtype="float32")):
        a = R.astype(x, "bfloat16")
        b = R.astype(x, "int4")
        c = R.astype(x, "float8_e5m2")
        return (a, b, c, R.prim_value(T.bfloat16(1.5)), x)

    @R.function
    def double(x: R.Tensor((3,), dtype="bfloat16")) -> R.Tensor((3,), dtype="bfloat16"):
        return R.add(x, x)
'''


def _npz(path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def test_out_saves_strings_and_dtypes_as_text(tmp_path, capsys):
    # The empty tuple has no leaves: depth-first flattening numbers x, "hi", float16, x.
    mod = write(tmp_path, "v.py", VALUES)
    rc, out, err = run_cli(capsys, mod, "--entry", "objects", "--arg", "x=random:2:float32",
                           "--out", tmp_path / "o.npz")
    assert rc == 0, err
    got = _npz(tmp_path / "o.npz")  # no pickled object arrays: allow_pickle=False reads it
    assert sorted(got) == ["out_0", "out_1", "out_2", "out_3"]
    assert got["out_1"].dtype.kind == "U" and got["out_1"].shape == () and got["out_1"] == "hi"
    assert got["out_2"].dtype.kind == "U" and got["out_2"] == "float16"
    assert got["out_0"].tobytes() == got["out_3"].tobytes()
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("out_")] \
        == ["out_0", "out_1", "out_2", "out_3"]


@pytest.mark.parametrize("entry,fragments", [
    ("with_null", ["out_1 is R.null_value()", "not data"]),
    ("with_closure", ["out_1 is Closure", "not data"]),
])
def test_out_rejects_results_that_are_not_data(tmp_path, capsys, entry, fragments):
    mod = write(tmp_path, "v.py", VALUES)
    out = tmp_path / "o.npz"
    rc, stdout, err = run_cli(capsys, mod, "--entry", entry, "--arg", "x=random:2:float32",
                              "--out", out)
    assert_failed(rc, err, "--out", *fragments)
    assert not out.exists()
    # The printed results number the null (or closure) as out_1, as the error does.
    assert "out_1: " in stdout


def test_null_result_is_printed_in_its_place(tmp_path, capsys):
    mod = write(tmp_path, "v.py", VALUES)
    rc, out, err = run_cli(capsys, mod, "--entry", "with_null", "--arg", "x=random:2:float32")
    assert rc == 0, err
    assert "out_1: R.null_value()" in out


def test_out_saves_ml_dtypes_as_bits_with_their_dtype(tmp_path, capsys):
    import ml_dtypes

    mod = write(tmp_path, "v.py", VALUES)
    x = np.array([0.5, -1.0, 3.0], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, _, err = run_cli(capsys, mod, "--entry", "casts", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--out", tmp_path / "o.npz")
    assert rc == 0, err
    got = _npz(tmp_path / "o.npz")
    assert sorted(got) == ["out_0", "out_0__dtype", "out_1", "out_1__dtype", "out_2",
                           "out_2__dtype", "out_3", "out_3__dtype", "out_4"]
    for i, name, bits in [(0, "bfloat16", np.uint16), (1, "int4", np.uint8),
                          (2, "float8_e5m2", np.uint8), (3, "bfloat16", np.uint16)]:
        assert got[f"out_{i}"].dtype == bits
        assert got[f"out_{i}__dtype"].dtype.kind == "U" and got[f"out_{i}__dtype"] == name
        want = np.asarray(x if i < 3 else np.float32(1.5)).astype(getattr(ml_dtypes, name))
        assert got[f"out_{i}"].view(want.dtype).tobytes() == want.tobytes()
    assert got["out_4"].dtype == np.float32  # standard dtypes are saved as they are


def test_bfloat16_results_feed_back_as_arguments(tmp_path, capsys):
    import ml_dtypes

    mod = write(tmp_path, "v.py", VALUES)
    x = np.array([0.5, -1.0, 3.0], dtype=ml_dtypes.bfloat16)
    # What --out writes, renamed in_0 / in_0__dtype, is read back by --args ...
    np.savez(tmp_path / "in.npz", in_0=x.view(np.uint16), in_0__dtype=np.array("bfloat16"))
    rc, _, err = run_cli(capsys, mod, "--entry", "double", "--args", tmp_path / "in.npz",
                         "--out", tmp_path / "a.npz")
    assert rc == 0, err
    got = _npz(tmp_path / "a.npz")
    assert got["out_0__dtype"] == "bfloat16"
    assert got["out_0"].view(ml_dtypes.bfloat16).tolist() == [1.0, -2.0, 6.0]
    # ... and so is what np.save writes for a bfloat16 array (raw void, '|V2').
    np.save(tmp_path / "x.npy", x)
    rc, _, err = run_cli(capsys, mod, "--entry", "double", "--arg", f"x={tmp_path / 'x.npy'}",
                         "--out", tmp_path / "b.npz")
    assert rc == 0, err
    assert _npz(tmp_path / "b.npz")["out_0"].tobytes() == got["out_0"].tobytes()
    # Without the dtype beside them the bits are a uint16 tensor: a signature error.
    np.savez(tmp_path / "raw.npz", in_0=x.view(np.uint16))
    rc, _, err = run_cli(capsys, mod, "--entry", "double", "--args", tmp_path / "raw.npz")
    assert_failed(rc, err, "uint16", "bfloat16")


@pytest.mark.parametrize("arrays,fragments", [
    ({"in_0": np.zeros(3, np.uint16), "in_0__dtype": np.array("float8_e5m2")},
     ["in_0", "uint8", "uint16"]),
    ({"in_0": np.zeros(3, np.uint16), "in_0__dtype": np.array("nonsense")}, ["nonsense"]),
    ({"in_0": np.zeros(3, np.uint16), "in_0__dtype": np.array(["bfloat16"])}, ["0-d string"]),
    ({"in_0": np.zeros(3, np.uint16), "in_0__dtype": np.array("bfloat16"),
      "in_1__dtype": np.array("bfloat16")}, ["in_1__dtype", "no array in_1"]),
], ids=["width", "unknown-dtype", "not-0d", "orphan"])
def test_bad_dtype_beside_an_input(tmp_path, capsys, arrays, fragments):
    mod = write(tmp_path, "v.py", VALUES)
    np.savez(tmp_path / "in.npz", **arrays)
    rc, _, err = run_cli(capsys, mod, "--entry", "double", "--args", tmp_path / "in.npz")
    assert_failed(rc, err, "in.npz", *fragments)


def test_empty_out_path(samples, capsys):
    rc, out, err = run_cli(capsys, samples / "recursion.py", "--args",
                           samples / "recursion.run0.npz", "--out", "")
    assert_failed(rc, err, "--out needs a file name")
    assert out == ""  # rejected before running


HUGE_KERNEL_OUTPUT = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fill(a: T.Buffer((2147483648,), "float32")):
        for i in range(2147483648):
            a[i] = T.float32(1)

    @R.function
    def main() -> R.Tensor((2147483648,), "float32"):
        cls = Module
        y = R.call_tir(cls.fill, (), out_ty=R.Tensor((2147483648,), "float32"))
        return y
'''


def test_kernel_output_of_2_31_elements_is_refused_before_allocation(tmp_path, capsys):
    # 8 GiB, over the default limit: refused before allocation, the kernel never runs.
    rc, out, err = run_cli(capsys, write(tmp_path, "huge.py", HUGE_KERNEL_OUTPUT))
    assert_failed(rc, err, "huge.py:12:13", "8589934592 bytes", "EXEC-limit-1")
    assert rc == 1 and out == ""


def test_summary_is_the_same_computed_chunk_by_chunk(monkeypatch):
    # Large results are summarized in chunks (no float64 copy of the whole result).
    from relax_ref import cli

    ints = np.array([3, -1, 7, -1, 2], np.int32)
    floats = np.array([[1.5, np.nan, -2.0], [np.inf, 4.0, np.nan]], np.float32)
    whole = cli._summary(ints), cli._summary(floats)
    monkeypatch.setattr(cli, "_SUMMARY_CHUNK", 2)
    assert (cli._summary(ints), cli._summary(floats)) == whole
    assert "min=-1 max=7 mean=2 poison=2" in whole[0]
    assert "min=-2 max=4 mean=1.16667 nan=2" in whole[1]
