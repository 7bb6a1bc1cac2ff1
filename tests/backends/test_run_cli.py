"""``relax-ref run FILE --target opencl|cuda [--compare]`` (spec/backends.md
BE-cli-run-*): the examples compiled as tvm.compile does and run with their kernels on
OpenCL, each kernel call within the bound of the interpreter's; CUDA without a GPU is a
clear error after the kernels compiled."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.backends import nvrtc
from relax_ref.backends.runtime_cuda import cuda_device
from relax_ref.backends.runtime_opencl import default_platform
from relax_ref.cli import main

from .kernels import ROOT

MLP = ROOT / "examples" / "mlp.py"
LLAMA = ROOT / "examples" / "llama_layer.py"
opencl = pytest.mark.skipif(default_platform() is None,
                            reason="no OpenCL platform here builds kernels")


@opencl
def test_mlp_on_opencl_compared_with_the_interpreter(tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert main(["run", str(MLP), "--target", "opencl", "--compare", "--sym", "b=2",
                 "--out", str(out)]) == 0
    text = capsys.readouterr()
    assert "out_0: Tensor((2, 8), float32)" in text.out
    assert "fused_matmul_add_gelu: 1 calls" in text.out and "OUTSIDE" not in text.out
    assert "3 PrimFuncs" in text.err and "shape_func" in text.err
    assert np.load(out)["out_0"].shape == (2, 8)


@opencl
@pytest.mark.slow
def test_llama_layer_on_opencl(capsys):
    assert main(["run", str(LLAMA), "--target", "opencl", "--compare", "--sym", "n=4"]) == 0
    text = capsys.readouterr().out
    assert "largest |difference|" in text and "OUTSIDE" not in text


@opencl
def test_an_already_lowered_module_runs_too(tmp_path, capsys):
    assert main(["opt", str(MLP), "--pipeline", "default", "-o", str(tmp_path / "low.py")]) == 0
    capsys.readouterr()
    assert main(["run", str(tmp_path / "low.py"), "--target", "opencl", "--compare",
                 "--sym", "b=3"]) == 0
    assert "OUTSIDE" not in capsys.readouterr().out


def test_compare_needs_a_target(capsys):
    assert main(["run", str(MLP), "--compare", "--sym", "b=2"]) != 0
    assert "give --target" in capsys.readouterr().err


@pytest.mark.skipif(not nvrtc.available(), reason="the cuda extra (NVRTC) is not installed")
@pytest.mark.skipif(cuda_device()[0] is not None, reason="a CUDA device is present")
def test_cuda_without_a_gpu_says_so_after_compiling(capsys):
    assert main(["run", str(MLP), "--target", "cuda", "--sym", "b=2"]) != 0
    err = capsys.readouterr().err
    assert "no CUDA device is available" in err and "compiled for sm_90" in err


F16 = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float16"), w: R.Tensor((8, 8), dtype="float16")) -> R.Tensor((4, 8), dtype="float16"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.softmax(y, axis=-1)
            s = R.nn.silu(z)
            R.output(s)
        return s
"""


@opencl
def test_float16_runs_with_half_as_storage(tmp_path, capsys):
    path = tmp_path / "f16.py"
    path.write_text(F16)
    assert main(["run", str(path), "--target", "opencl", "--compare"]) == 0
    text = capsys.readouterr().out
    assert "float16" in text and "matmul: 1 calls, largest 0 ULP" in text
