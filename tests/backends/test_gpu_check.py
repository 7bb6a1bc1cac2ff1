"""bench/gpu_check.py builds everything up to the launches without a GPU: the
Llama-style layer lowered with every kernel compiled by NVRTC, and conformance kernels
with their arguments and launch plans (spec/backends.md BE-host-3). The launches
themselves need an NVIDIA GPU: skipped here with the reason, run where one is."""
from __future__ import annotations

import importlib.util

import pytest

from relax_ref.backends import nvrtc
from relax_ref.backends.runtime_cuda import cuda_device

from .kernels import ROOT

pytestmark = pytest.mark.skipif(not nvrtc.available(),
                                reason="the cuda extra (NVRTC) is not installed")


def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_check_prepares_everything_before_the_launch():
    g = gpu_check()
    ref, lowered, values, runner = g.prepare(2)
    on_device = [c for c in runner.compiled if c.program is not None]
    assert len(on_device) >= 10 and all(c.binary for c in on_device)
    assert list(runner.on_host) == ["shape_func"]
    kernels = list(g.conformance_prepared(3))
    assert len(kernels) == 3 and all(k[2].binary for k in kernels)
    name, why = cuda_device()
    if name is None:
        pytest.skip(f"no CUDA device here ({why}): the launches run in bench/gpu_check.sh "
                    f"on a machine with an NVIDIA GPU")
    assert g.check_llama(ref, lowered, values, runner)
    assert g.check_conformance(kernels, budget=60)
