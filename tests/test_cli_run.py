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
    with pytest.raises(SystemExit) as exc:
        main(["run", str(samples / "mlp.fused.py"), "--tir-mode", "fast"])
    assert exc.value.code != 0
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
