"""``relax-ref emit`` (spec/backends.md BE-cli-1): one source file per module and a
launch table whose kernels are the source's; the fused kernels of the examples run on
OpenCL and equal the interpreter, and compile for sm_90."""
from __future__ import annotations

import json

import numpy as np
import pytest

import relax_ref
from relax_ref.backends import lower as L
from relax_ref.backends.gpu_schedule import default_gpu_schedule
from relax_ref.backends.schedule import device_schedule
from relax_ref.cli import main
from relax_ref.ir import tir
from relax_ref.semantics.normalize import normalize
from relax_ref.transform import Sequential

from .kernels import ROOT, args_and_reference, assert_same, copy_args

MLP = ROOT / "examples" / "mlp.py"
LLAMA = ROOT / "examples" / "llama_layer.py"


def test_emit_writes_the_source_and_the_launch_table(tmp_path, capsys):
    assert main(["emit", str(MLP), "--target", "opencl", "--fuse", "-o", str(tmp_path)]) == 0
    source = (tmp_path / "mlp.cl").read_text()
    table = json.loads((tmp_path / "mlp.launch.json").read_text())
    assert table["target"] == "opencl" and "FP_CONTRACT OFF" in source
    kernels = [k for f in table["functions"] for k in f["kernels"]]
    assert kernels and all(f"__kernel void {k['name']}(" in source for k in kernels)
    # Launch extents are expressions of the symbolic batch size b (BE-lower-4).
    (matmul,) = [f for f in table["functions"] if f["prim_func"] == "matmul1"]
    assert matmul["params"][0]["shape"][0] == "b"
    assert matmul["kernels"][0]["arguments"][-1] == "b"
    assert "wrote" in capsys.readouterr().out


def test_emit_prints_cuda_to_standard_output(capsys):
    assert main(["emit", str(MLP), "--target", "cuda"]) == 0
    out = capsys.readouterr().out
    assert 'extern "C" __global__ void' in out and "blockIdx.x" in out


def test_emit_rejects_an_unknown_target(capsys):
    assert main(["emit", str(MLP), "--target", "metal"]) == 2


def fused_prim_funcs(path):
    mod = Sequential(["LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"])(
        normalize(relax_ref.from_source(path.read_text())))
    return [(name, f) for name, f in mod.items() if isinstance(f, tir.PrimFunc)]


def check_fused(path):
    pytest.importorskip("pyopencl", reason="the opencl extra is not installed")
    from relax_ref.backends import nvrtc
    from relax_ref.backends.cuda import cuda_source
    from relax_ref.backends.opencl import opencl_source
    from relax_ref.backends.runtime_opencl import default_platform, run_opencl
    if default_platform() is None:
        pytest.skip("no OpenCL platform here builds kernels")
    for name, func in fused_prim_funcs(path):
        args, ref = args_and_reference(func, np.random.default_rng(0))
        prog = L.lower_for_device(default_gpu_schedule(func, 16, 4), name)
        out = copy_args(args)
        run_opencl(prog, opencl_source([prog]), out)
        assert_same(ref, out, func, f"{path.name}: {name}")
        if nvrtc.available():  # both schedules: the default and the one emit uses
            for schedule in (default_gpu_schedule, device_schedule):
                nvrtc.compile_cuda(cuda_source([L.lower_for_device(schedule(func), name)]))


def test_fused_kernels_of_the_mlp_example():
    check_fused(MLP)


@pytest.mark.slow
def test_fused_kernels_of_the_llama_layer():
    check_fused(LLAMA)


def test_the_emitted_files_build_whole(tmp_path):
    """The .cl file builds as one OpenCL program and the .cu file compiles with NVRTC."""
    from relax_ref.backends import nvrtc
    assert main(["emit", str(MLP), "--target", "cuda", "--fuse", "--row-reductions",
                 "-o", str(tmp_path)]) == 0
    if nvrtc.available():
        ptx = nvrtc.compile_cuda((tmp_path / "mlp.cu").read_text()).ptx
        table = json.loads((tmp_path / "mlp.launch.json").read_text())
        assert all(f".entry {k['name']}(" in ptx for f in table["functions"]
                   for k in f["kernels"])
    pytest.importorskip("pyopencl", reason="the opencl extra is not installed")
    from relax_ref.backends.runtime_opencl import build, default_platform
    assert main(["emit", str(MLP), "--target", "opencl", "--fuse", "--row-reductions",
                 "-o", str(tmp_path)]) == 0
    platform = default_platform()
    if platform is not None:
        program = build((tmp_path / "mlp.cl").read_text(), platform)
        assert {k.function_name for k in program.all_kernels()} >= {"softmax_kernel_0"}


def test_a_kernel_the_schedule_declines_is_a_located_error(tmp_path, capsys):
    path = tmp_path / "serial.py"
    path.write_text("""
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(1)
""")
    assert main(["emit", str(path), "--target", "opencl"]) == 1
    err = capsys.readouterr().err
    assert "BE-sched-1" in err and "serial.py" in err


def test_the_launch_table_lists_the_hosts_checks(tmp_path):
    """BE-cli-1, BE-lower-4: a guarded PrimFunc (TE-leg-7) emits; its guard is in the
    launch table, for the host to check before the launches."""
    path = tmp_path / "reshape.py"
    path.write_text('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        y = R.reshape(x, R.shape([2, 2]))
        return y
''')
    assert main(["emit", str(path), "--target", "opencl", "-o", str(tmp_path)]) == 0
    (func,) = json.loads((tmp_path / "reshape.launch.json").read_text())["functions"]
    ((check),) = func["checks"]
    assert check["condition"] == "n == 4" and check["message"].startswith("shape_mismatch:")
