"""Emitted CUDA kernels compile for sm_90 with NVRTC, contraction off (spec/backends.md
BE-run-2, BE-emit-2); no GPU needed. Needs the cuda extra (nvidia-cuda-nvrtc-cu12,
nvidia-cuda-runtime-cu12)."""
from __future__ import annotations

import pytest

from relax_ref.backends import lower as L
from relax_ref.backends import nvrtc
from relax_ref.backends.cuda import cuda_source
from relax_ref.backends.gpu_schedule import ScheduleError, default_gpu_schedule
from relax_ref.backends.schedule import device_schedule

from .kernels import SAMPLE, case_prim_funcs, conformance_cases, multiply_add

if not nvrtc.available():
    pytest.skip("the cuda extra (nvidia-cuda-nvrtc-cu12) is not installed",
                allow_module_level=True)


def cuda_of(case: str, strict: bool = True, schedule=default_gpu_schedule) -> str:
    progs = [L.lower_for_device(schedule(f, 1024), name)
             for name, f in case_prim_funcs(case, strict)]
    return cuda_source(progs)


@pytest.mark.parametrize("case", SAMPLE)
def test_conformance_kernels_sample_compile(case):
    source = cuda_of(case)
    out = nvrtc.compile_cuda(source)
    assert out.cubin and ".target sm_90" in out.ptx
    for name, _ in case_prim_funcs(case):
        assert f".entry {name}_kernel" in out.ptx


def test_half_kernels_use_cuda_fp16():
    source = cuda_of("act_leg_softmax_f16_sum")
    assert "#include <cuda_fp16.h>" in source and "__half*" in source
    nvrtc.compile_cuda(source)


def test_no_fused_multiply_add_in_the_ptx():
    func = multiply_add()
    source = cuda_source([L.lower_for_device(default_gpu_schedule(func), "f")])
    assert "fma.rn.f32" not in nvrtc.compile_cuda(source).ptx
    # NVRTC's default would fuse x * y + y into one rounding:
    assert "fma.rn.f32" in nvrtc.compile_cuda(source, contract=True).ptx


def test_a_broken_kernel_is_rejected_with_the_log():
    source = cuda_of("add_i32_wrap").replace("threadIdx.x", "threadIdx.w", 1)
    with pytest.raises(nvrtc.CompileError) as err:
        nvrtc.compile_cuda(source, name="broken.cu")
    assert "broken.cu" in err.value.log and "threadIdx" in err.value.log


def test_device_schedule_kernels_compile():
    """The schedule emit and run use (BE-sched-9): a tiled matmul, an inlined chain."""
    for case in ("matmul_symbolic", "act_leg_softmax_f16_sum", "add_broadcast_size1"):
        nvrtc.compile_cuda(cuda_of(case, schedule=device_schedule), name=f"{case}.cu")


@pytest.mark.slow
@pytest.mark.parametrize("schedule", [default_gpu_schedule, device_schedule],
                         ids=["default", "device"])
def test_every_conformance_kernel_compiles(schedule):
    failed = []
    for case in conformance_cases():
        try:
            nvrtc.compile_cuda(cuda_of(case, strict=False, schedule=schedule),
                               name=f"{case}.cu")
        except ScheduleError:
            continue
        except Exception as err:
            failed.append(f"{case}: {str(err)[:300]}")
    assert not failed, "\n".join(failed)
