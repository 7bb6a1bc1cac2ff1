"""A lowered module's ``main`` run by the interpreter with its PrimFuncs on OpenCL
(spec/backends.md BE-host-*): each call equal to the TIR interpreter on the same inputs,
the host's argument checks, and PrimFuncs the schedule declines left to the host."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyopencl", reason="the opencl extra (pyopencl[pocl]) is not installed")

import relax_ref  # noqa: E402
from relax_ref.backends import lower as L  # noqa: E402
from relax_ref.backends.gpu_schedule import default_gpu_schedule  # noqa: E402
from relax_ref.backends.run_device import compile_for_device  # noqa: E402
from relax_ref.backends.device_call import (  # noqa: E402
    HostError, check_arguments, copy_back, device_buffers,
)
from relax_ref.backends.runtime_host import (  # noqa: E402
    DeviceInterpreter, DeviceRunner, difference,
)
from relax_ref.backends.runtime_opencl import default_platform  # noqa: E402
from relax_ref.semantics.interpreter import Interpreter  # noqa: E402

from .kernels import ROOT, multiply_add  # noqa: E402

if default_platform() is None:
    pytest.skip("no OpenCL platform here builds kernels", allow_module_level=True)

MLP = ROOT / "examples" / "mlp.py"


def mlp_inputs(rng, b=3):
    return [rng.standard_normal(s).astype("float32") for s in ((b, 16), (16, 32), (32,), (32, 8))]


def test_mlp_runs_with_every_kernel_on_the_device():
    mod = relax_ref.check(relax_ref.from_source(MLP.read_text()))
    runner = DeviceRunner("opencl", check=True)
    lowered = compile_for_device(mod)
    args = mlp_inputs(np.random.default_rng(0))
    got = DeviceInterpreter(lowered, runner).run("main", [a.copy() for a in args])
    want = Interpreter(mod).run("main", args)
    assert runner.failures == []
    assert set(runner.calls) == {"matmul1", "softmax", "fused_matmul_add_gelu"}
    # VMShapeLower's shape function works on the host's shape heap (BE-host-1).
    assert list(runner.on_host) == ["shape_func"]
    assert difference(want, got)[0] < 1e-5


def test_each_prim_func_compiles_once():
    func = multiply_add()
    runner = DeviceRunner("opencl")
    first = runner.prepare("f", func)
    assert runner.prepare("f", func) is first and first.program is not None


def test_a_tensor_passed_twice_is_one_device_buffer():
    prog = L.lower_for_device(default_gpu_schedule(multiply_add(), 4, 2), "f")
    x = np.zeros((2, 3), "float32")
    distinct, which = device_buffers(prog, [x, np.zeros(3, "float32"), x])
    assert len(distinct) == 2 and which[0] == which[2]
    with pytest.raises(HostError, match="overlaps"):
        device_buffers(prog, [x, np.zeros(3, "float32"), x[:1]])


def test_arguments_are_checked_against_the_buffers():
    prog = L.lower_for_device(default_gpu_schedule(multiply_add(), 4, 2), "f")
    ok = [np.zeros((2, 3), "float32"), np.zeros(3, "float32"), np.zeros((2, 3), "float32")]
    assert [int(v) for v in check_arguments(prog, ok).values()] == [2]
    with pytest.raises(HostError, match=r"expected float32\[2, 3\]") as err:
        check_arguments(prog, [ok[0], ok[1], np.zeros((3, 3), "float32")])
    assert err.value.rule == "BE-host-2"


def test_a_kernel_writing_a_read_only_input_is_an_error():
    prog = L.lower_for_device(default_gpu_schedule(multiply_add(), 4, 2), "f")
    x = np.ones(3, "float32")
    x.flags.writeable = False
    with pytest.raises(HostError, match="may only read"):
        copy_back(prog, [x], [np.zeros(3, "float32")])
    copy_back(prog, [x], [np.ones(3, "float32")])  # unchanged: fine


def test_a_wrong_kernel_is_reported_by_the_per_call_check():
    func = multiply_add()
    runner = DeviceRunner("opencl", check=True)
    args = [np.ones((2, 3), "float32"), np.full(3, 2, "float32"), np.zeros((2, 3), "float32")]
    expected = [a.copy() for a in args]
    expected[2][...] = 4.0
    got = [a.copy() for a in expected]
    got[2][0, 0] = 5.0
    runner.compare("f", func, expected, got)
    assert runner.failures and "exact expected" in runner.failures[0]


def test_difference_in_ulp():
    x = np.array([1.0, 2.0, np.nan], "float32")
    assert difference(x, x.copy()) == (0.0, 0.0, True)
    y = x.copy()
    y[1] = np.nextafter(np.float32(2), np.float32(3))
    assert difference(x, y)[1] == 1.0
    assert difference(np.array([1, 2]), np.array([1, 3]))[2] is False


def test_call_tir_of_a_module_not_lowered_runs_on_the_device():
    # call_tir hands its inputs read-only (EXEC-dps-4): they come back unchanged.
    from relax_ref.passes.legalize_ops import legalize_ops
    mod = legalize_ops(relax_ref.check(relax_ref.from_source(MLP.read_text())))
    runner = DeviceRunner("opencl", check=True)
    args = mlp_inputs(np.random.default_rng(1), b=2)
    got = DeviceInterpreter(mod, runner).run("main", [a.copy() for a in args])
    assert runner.failures == [] and runner.on_host == {}
    assert difference(Interpreter(mod).run("main", args), got)[0] < 1e-5
