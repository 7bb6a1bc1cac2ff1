"""The CUDA host (spec/backends.md BE-host-3) up to the launch, which needs no GPU: the
PrimFunc compiled by NVRTC, its arguments checked and its kernels' parameters laid out;
without a GPU, running says so."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.backends import nvrtc
from relax_ref.backends.runtime_cuda import cuda_device, launch_plan, run_cuda
from relax_ref.backends.runtime_host import DeviceRunner, HostError, NoDeviceError

from .kernels import multiply_add

pytestmark = pytest.mark.skipif(not nvrtc.available(),
                                reason="the cuda extra (NVRTC) is not installed")


def prepared():
    compiled = DeviceRunner("cuda").prepare("f", multiply_add())
    assert compiled.program is not None and compiled.binary
    return compiled


def test_launch_plan_lays_out_buffers_and_scalars():
    compiled = prepared()
    x, y, z = np.ones((5, 3), "float32"), np.ones(3, "float32"), np.zeros((5, 3), "float32")
    plan = launch_plan(compiled, [x, y, z])
    assert [a is b for a, b in zip(plan.arrays, (x, y, z))] == [True] * 3
    ((name, grid, block, params),) = plan.kernels
    assert grid * block >= 15 and name in compiled.source
    kinds = [kind for kind, _ in params]
    assert kinds.count("buffer") == 3 and kinds[-1] == "scalar"
    assert params[-1][1].tolist() == [5] and params[-1][1].dtype == np.int64


def test_launch_plan_checks_the_arguments():
    with pytest.raises(HostError, match="expected float32"):
        launch_plan(prepared(), [np.ones((5, 3), "float32"), np.ones(4, "float32"),
                                 np.zeros((5, 3), "float32")])


@pytest.mark.skipif(cuda_device()[0] is not None, reason="a CUDA device is present")
def test_without_a_gpu_running_says_why():
    with pytest.raises(NoDeviceError, match="no CUDA device is available"):
        run_cuda(prepared(), [np.ones((5, 3), "float32"), np.ones(3, "float32"),
                              np.zeros((5, 3), "float32")])


def test_launch_plan_zeroes_the_error_flag_for_a_kernels_asserts():
    """BE-lower-5 on CUDA, up to the launch: the flag is an extra zeroed buffer that the
    kernel with the scatter's assert takes (run_cuda reads it back after that kernel)."""
    from relax_ref.backends.device_call import Compiled
    from relax_ref.backends.gpu_schedule import default_gpu_schedule
    from relax_ref.backends.lower import lower_for_device

    from .kernels import SCATTER, legalized

    (func,) = legalized(SCATTER).values()
    prog = lower_for_device(default_gpu_schedule(func, 8, 4), "scatter")
    args = [np.zeros(4, "float32"), np.array([3, 2, 1, 0]), np.ones(4, "float32"),
            np.zeros(4, "float32")]
    plan = launch_plan(Compiled("scatter", prog), args)
    flag = plan.intermediates[plan.error_slot - len(plan.arrays)]
    assert flag.dtype == np.int32 and flag.tolist() == [0]
    assert any(("buffer", plan.error_slot) in params for *_, params in plan.kernels)
