"""Random expressions through the whole backend (BE-emit-3, BE-lower-3): a kernel
computing a random integer and a random float expression per element is scheduled,
lowered, printed as OpenCL and run; every element must equal the TIR interpreter's,
bit for bit (no transcendental functions: + - * / // % min max select casts compare).
This is where C's meaning and TIR's part: signed overflow, floor division of negative
values, narrowing, float != and min/max with NaN, float-to-int conversion out of range,
precedence. The CUDA print of each kernel compiles with NVRTC."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyopencl", reason="the opencl extra is not installed")

import relax_ref  # noqa: E402
from relax_ref.backends import lower as L  # noqa: E402
from relax_ref.backends.gpu_schedule import default_gpu_schedule  # noqa: E402
from relax_ref.backends.opencl import opencl_source  # noqa: E402
from relax_ref.backends.runtime_opencl import default_platform, run_opencl  # noqa: E402

from .kernels import copy_args, reference  # noqa: E402

if default_platform() is None:
    pytest.skip("no OpenCL platform here builds kernels", allow_module_level=True)

N = 16
INT_LEAVES = st.sampled_from(["A[vi]", "B[vi]", "T.Cast(\"int32\", vi)", "T.int32(7)",
                              "T.int32(-3)", "T.int32(2147483647)", "T.int32(-2147483648)"])
FLOAT_LEAVES = st.sampled_from(["C[vi]", "T.float32(0.5)", "T.float32(-2.25)",
                                "T.float32(1e30)", "T.float32(0.0)"])


def _ints(children):
    a = children
    return st.one_of(
        st.tuples(a, st.sampled_from(["+", "-", "*"]), a).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        # divisors that are never 0: a nonzero constant or x * x + 1 of a small load
        st.tuples(a, st.sampled_from(["//", "%"]),
                  st.sampled_from(["T.int32(3)", "T.int32(-4)", "(B[vi] * B[vi] + 1)"]))
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["T.min", "T.max"]), a, a).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(a, st.sampled_from(["<", "==", "!="]), a, a, a)
        .map(lambda t: f"T.Select({t[0]} {t[1]} {t[2]}, {t[3]}, {t[4]})"),
        a.map(lambda x: f"T.Cast(\"int32\", T.Cast(\"int8\", {x}))"),
    )


def _floats(children):
    a = children
    return st.one_of(
        st.tuples(a, st.sampled_from(["+", "-", "*", "/"]), a).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["T.min", "T.max"]), a, a).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(a, st.sampled_from(["<", "!="]), a, a, a)
        .map(lambda t: f"T.Select({t[0]} {t[1]} {t[2]}, {t[3]}, {t[4]})"),
        a.map(lambda x: f"T.floor({x})"),
    )


INTS = st.recursive(INT_LEAVES, _ints, max_leaves=6)
FLOATS = st.recursive(FLOAT_LEAVES | INTS.map(lambda x: f"T.Cast(\"float32\", {x})"),
                      _floats, max_leaves=6)
MIXED = st.tuples(INTS, FLOATS, FLOATS.map(lambda x: f"T.Cast(\"int32\", {x})"))

MODULE = """
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32"), C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "int32"), E: T.Buffer((16,), "float32"), F: T.Buffer((16,), "int32")):
        for i in range(16):
            with T.sblock("d"):
                vi = T.axis.remap("S", [i])
                D[vi] = INT
                E[vi] = FLOAT
                F[vi] = CONVERTED
"""


def check(exprs):
    text = (MODULE.replace("CONVERTED", exprs[2]).replace("INT", exprs[0])
            .replace("FLOAT", exprs[1]))
    func = relax_ref.from_source(text)["f"]
    rng = np.random.default_rng(len(text))
    big = np.array([2**31 - 1, -2**31, 65536, -65536], np.int32)
    args = [np.concatenate([big, rng.integers(-9, 9, N - 4)]).astype(np.int32),
            rng.integers(-5, 5, N).astype(np.int32),
            np.concatenate([[np.nan, np.inf, -0.0, 3e9], rng.standard_normal(N - 4)])
            .astype(np.float32),
            np.zeros(N, np.int32), np.zeros(N, np.float32), np.zeros(N, np.int32)]
    ref = reference(func, args)
    assert ref is not None, "the expressions never trap by construction"
    prog = L.lower_for_device(default_gpu_schedule(func, 8), "f")
    source = opencl_source([prog])
    out = copy_args(args)
    run_opencl(prog, source, out)
    for k in (3, 4, 5):
        assert ref[k].tobytes() == out[k].tobytes(), (
            f"{text}\n{source}\ninterpreter {ref[k]}\ndevice      {out[k]}")
    from relax_ref.backends import nvrtc
    from relax_ref.backends.cuda import cuda_source
    if nvrtc.available():  # the CUDA printer of the same kernel compiles
        nvrtc.compile_cuda(cuda_source([prog]))


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(MIXED)
def test_random_expressions_match_the_interpreter_bit_for_bit(exprs):
    check(exprs)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(MIXED)
def test_many_random_expressions(exprs):
    check(exprs)
