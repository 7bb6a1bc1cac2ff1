"""Conformance cases (area ``ops``) for the ops of issue 20 part A: atan2, log_add_exp,
ewise_fma, stack, one_hot, collapse_sum_like/to, meshgrid, reverse_sequence,
layout_transform, bucketize, median, quantize/dequantize, hamming_window,
multinomial_from_uniform.

Every case name starts with its op's name. Expected values come from the NumPy formulas
written here (each rounding written out), never from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, trap  # noqa: F401
from gen_ops import AREA, T_, ann, fdata, idata, module, rdata

F16, F32, F64 = np.float16, np.float32, np.float64

_CASES: list[Case] = []


def _add(name, params, body, runs, covers, desc, sym=(), ret="y"):
    _CASES.append(Case(AREA, name, module(params, body, ret, sym), list(runs), "ok", None,
                       desc, list(covers)))


def _invalid(name, params, body, rule, covers, desc, sym=()):
    _CASES.append(Case(AREA, name, module(params, body, "y", sym), [], "invalid", rule, desc,
                       list(covers) + [rule]))


# -- atan2, log_add_exp, ewise_fma ------------------------------------------------------------

def _elementwise():
    y = rdata((2, 3), 2001, -3.0, 3.0)
    x = rdata((3,), 2002, -3.0, 3.0)
    want = np.arctan2(y.astype(F64), x.astype(F64)).astype(F32)
    _add("atan2_f32_broadcast", [("a", ann((2, 3))), ("b", ann((3,)))], "y = R.atan2(a, b)",
         [ok([T_(y), T_(x)], [T_(want)])], ["relax.atan2", "SI-ew-binary-2"],
         "float32 atan2 with broadcasting: arctan2 in float64, rounded once")
    sy = np.array([0.0, -0.0, 1.0, -1.0], F32)
    sx = np.array([-1.0, -1.0, 0.0, 0.0], F32)
    _add("atan2_signs", [("a", ann((4,))), ("b", ann((4,)))], "y = R.atan2(a, b)",
         [ok([T_(sy), T_(sx)], [T_(np.arctan2(sy, sx))])], ["relax.atan2"],
         "atan2 quadrants and signed zeros: atan2(+-0, -1) = +-pi, atan2(+-1, 0) = +-pi/2")
    _invalid("atan2_int", [("a", ann((3,), "int32")), ("b", ann((3,), "int32"))],
             "y = R.atan2(a, b)", "SI-ew-binary-2", ["relax.atan2"],
             "atan2 of integers is rejected (TVM accepts it and fails to compile T.atan2)")
    a = rdata((3, 3), 2003, -20.0, 20.0)
    b = rdata((3,), 2004, -20.0, 20.0)
    want = np.logaddexp(a.astype(F64), b.astype(F64)).astype(F32)
    a2, b2 = a[:2], a[2]
    want2 = np.logaddexp(a2.astype(F64), b2.astype(F64)).astype(F32)
    _add("log_add_exp_sym", [("a", ann(("n", 3))), ("b", ann((3,)))],
         "y = R.log_add_exp(a, b)",
         [ok([T_(a), T_(b)], [T_(want)]), ok([T_(a2), T_(b2)], [T_(want2)])],
         ["relax.log_add_exp", "EXEC-ew-logaddexp-1"],
         "log(exp(a) + exp(b)) in float64 rounded once, at n = 3 and 2", sym=("n",))
    big = np.array([100.0, 1000.0, -np.inf, np.inf, -1000.0], F32)
    other = np.array([100.0, 999.0, -np.inf, np.inf, -1000.5], F32)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.logaddexp(big.astype(F64), other.astype(F64)).astype(F32)
    _add("log_add_exp_large", [("a", ann((5,))), ("b", ann((5,)))],
         "y = R.log_add_exp(a, b)", [ok([T_(big), T_(other)], [T_(want)])],
         ["relax.log_add_exp", "EXEC-ew-logaddexp-1"],
         "log_add_exp of large and infinite values does not overflow (TVM computes "
         "log(exp(a) + exp(b)) in float32: inf for a = 100)")
    _invalid("log_add_exp_int", [("a", ann((3,), "int64")), ("b", ann((3,), "int64"))],
             "y = R.log_add_exp(a, b)", "SI-ew-binary-2", ["relax.log_add_exp"],
             "log_add_exp of integers is rejected")
    p, q, r = (fdata((2, 3), 2005 + k) for k in range(3))
    want = ((p * q).astype(F32) + r).astype(F32)
    _add("ewise_fma_f32", [("a", ann(("n", 3))), ("b", ann(("n", 3))), ("c", ann(("n", 3)))],
         "y = R.ewise_fma(a, b, c)",
         [ok([T_(p), T_(q), T_(r)], [T_(want)]),
          ok([T_(p[:0]), T_(q[:0]), T_(r[:0])], [T_(want[:0])])],
         ["relax.ewise_fma", "SI-ew-fma-1", "EXEC-ew-fma-1"],
         "x1 * x2 + x3 on one shape, at n = 2 and 0", sym=("n",))
    i = np.array([2**30, 7, -3], np.int32)
    want = (i.astype(np.int64) * 4 + 1).astype(np.int32)
    _add("ewise_fma_i32_wraps", [("a", ann((3,), "int32")), ("b", ann((3,), "int32")),
                                 ("c", ann((3,), "int32"))], "y = R.ewise_fma(a, b, c)",
         [ok([T_(i), T_(np.full(3, 4, np.int32)), T_(np.ones(3, np.int32))], [T_(want)])],
         ["relax.ewise_fma", "EXEC-ew-fma-1"], "int32 ewise_fma wraps around")
    _invalid("ewise_fma_shape", [("a", ann((2, 3))), ("b", ann((2, 3))), ("c", ann((3,)))],
             "y = R.ewise_fma(a, b, c)", "SI-ew-fma-1", ["relax.ewise_fma"],
             "ewise_fma does not broadcast: operands of different ndim are rejected")


def cases() -> list[Case]:
    _CASES.clear()
    _elementwise()
    return list(_CASES)
