"""Conformance cases (area ``ops``) for what the lowerings of linalg and the activations
must keep: narrow-float sums in float64 (EXEC-linalg-matmul-3, EXEC-act-softmax-2), the
elementary functions of narrow floats through float32 (EXEC-act-math-1), empty
reductions, NaN through relu. Run them on lowered modules with
``relax-ref conformance --passes LegalizeOps -k _leg_``.

Expected values come from the NumPy formulas below, each rounding written out.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok
from gen_ops import AREA, T_, ann, module, rdata

F16, F32, F64 = np.float16, np.float32, np.float64


def _case(name, params, body, runs, covers, desc, sym=()):
    return Case(AREA, name, module(params, body, sym=sym), list(runs), "ok", None, desc,
                list(covers))


def _exp16(d):
    """exp of float16 values: float64, rounded to float32, then to float16."""
    return np.exp(d.astype(F64)).astype(F32).astype(F16)


def _softmax16(x):
    m = x.max(axis=-1, keepdims=True)
    d = (x.astype(F32) - m.astype(F32)).astype(F16)
    e = _exp16(d)
    s = e.astype(F64).sum(axis=-1, keepdims=True).astype(F16)
    return (e.astype(F32) / s.astype(F32)).astype(F16)


def _silu16(x):
    neg = (F32(0) - x.astype(F32)).astype(F16)
    t = (_exp16(neg).astype(F32) + F32(1)).astype(F16)
    sig = (F32(1) / t.astype(F32)).astype(F16)
    return (sig.astype(F32) * x.astype(F32)).astype(F16)


def cases() -> list[Case]:
    out = []
    # 2048 + 1 + 1: float16 sums give 2048 (2049 rounds to even), float64 then one
    # rounding gives 2050 (representable).
    a = np.array([[2048.0, 1.0, 1.0]], F16)
    w = np.ones((3, 2), F16)
    out.append(_case(
        "linalg_leg_matmul_f16_sum", [("x", ann((1, 3), "float16")),
                                      ("w", ann((3, 2), "float16"))],
        "y = R.matmul(x, w)",
        [ok([T_(a), T_(w)], [T_(np.full((1, 2), 2050.0, F16))])],
        ["relax.matmul", "EXEC-linalg-matmul-3"],
        "float16 matmul sums in float64 and rounds once: 2048 + 1 + 1 = 2050 (a float16 "
        "running sum gives 2048)"))
    out.append(_case(
        "linalg_leg_einsum_f16_sum", [("x", ann((3,), "float16")), ("v", ann((3,), "float16"))],
        'y = R.einsum((x, v), subscripts="i,i->")',
        [ok([T_(a[0]), T_(np.ones(3, F16))], [T_(np.array(2050.0, F16))])],
        ["relax.einsum", "EXEC-linalg-einsum-1", "EXEC-linalg-matmul-3"],
        "float16 einsum sums in float64 and rounds once (2050, not 2048)"))
    out.append(_case(
        "linalg_leg_matmul_empty_k", [("x", ann((2, "k"))), ("w", ann(("k", 3)))],
        "y = R.matmul(x, w)",
        [ok([T_(np.zeros((2, 0), F32)), T_(np.zeros((0, 3), F32))],
            [T_(np.zeros((2, 3), F32))]),
         ok([T_(np.array([[1.5], [-2.0]], F32)), T_(np.array([[2.0, 0.5, -1.0]], F32))],
            [T_(np.array([[3.0, 0.75, -1.5], [-4.0, -1.0, 2.0]], F32))])],
        ["relax.matmul", "EXEC-linalg-matmul-3"],
        "matmul with reduction length k = 0 gives zeros (a lowered reduction block that "
        "never runs must not leave its output unwritten)", sym=("k",)))
    x = rdata((2, 32), 401, -6.0, 6.0, "float16")
    out.append(_case(
        "act_leg_softmax_f16_sum", [("x", ann((2, 32), "float16"))], "y = R.nn.softmax(x)",
        [ok([T_(x)], [T_(_softmax16(x))])],
        ["relax.nn.softmax", "EXEC-act-softmax-1", "EXEC-act-softmax-2", "EXEC-act-math-1"],
        "float16 softmax: exp through float32, the exponentials summed in float64 and "
        "rounded once, every other step rounded to float16"))
    x = rdata((4, 8), 402, -8.0, 8.0, "float16")
    out.append(_case(
        "act_leg_silu_f16", [("x", ann((4, 8), "float16"))], "y = R.nn.silu(x)",
        [ok([T_(x)], [T_(_silu16(x))])],
        ["relax.nn.silu", "EXEC-act-math-1"],
        "float16 silu x * (1 / (1 + exp(-x))): exp computed in float64, rounded to "
        "float32 and then to float16; each other step rounded to float16"))
    x = np.array([np.nan, -1.0, 0.0, 2.5, -np.inf, np.inf], F32)
    out.append(_case(
        "act_leg_relu_nan", [("x", ann((6,)))], "y = R.nn.relu(x)",
        [ok([T_(x)], [T_(np.array([np.nan, 0.0, 0.0, 2.5, 0.0, np.inf], F32))])],
        ["relax.nn.relu", "EXEC-act-relu-1"],
        "relu keeps a NaN (NumPy's maximum; TIR's T.max(x, 0) would give 0)"))
    return out
