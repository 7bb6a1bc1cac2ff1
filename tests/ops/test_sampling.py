"""multinomial_from_uniform (spec/ops/sampling.md SI-sample-1, EXEC-sample-1):
deduction, and the sampled index against a search written out."""
from __future__ import annotations

import numpy as np

from .helpers import assert_ndim, assert_tensor, compute, deduce, fails, sym, tensor, traps

N, B = sym("n"), sym("b")


def test_deduction():
    p, u, i = tensor((B, 5)), tensor((N, 1)), tensor((N, 1), "int64")
    assert_tensor(deduce("multinomial_from_uniform", [p, u, i]), (N, 1), "int64")
    assert_tensor(deduce("multinomial_from_uniform", [p, u, tensor((N, 1), "int32")],
                         dtype="int32"), (N, 1), "int32")
    assert_ndim(deduce("multinomial_from_uniform", [p, tensor(2), i]), 2, "int64")
    fails("SI-sample-1", "multinomial_from_uniform", [tensor((B, 5), "int32"), u, i])
    fails("SI-sample-1", "multinomial_from_uniform", [p, u, tensor((N, 1))])
    fails("SI-sample-1", "multinomial_from_uniform", [tensor((5,)), u, i])
    fails("SI-sample-1", "multinomial_from_uniform", [p, tensor((N, 2)), tensor((N, 2), "int64")])
    fails("SI-sample-1", "multinomial_from_uniform", [p, u, tensor((3, 1), "int64")])
    fails("SI-sample-1", "multinomial_from_uniform", [p, u, i], dtype="float32")


def _first_above(prob, u, rows):
    """The first j whose cumulative probability exceeds u, else the last index."""
    out = []
    for r, x in zip(rows, u):
        total, pick = 0.0, len(prob[r]) - 1
        for j, q in enumerate(prob[r]):
            total = np.float32(total + q)
            if x < total:
                pick = j
                break
        out.append([pick])
    return np.array(out, np.int64)


def test_samples_the_first_index_whose_cumulative_sum_exceeds_u():
    prob = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]], "float32")
    u = np.array([[0.05], [0.35], [0.99], [0.5], [0.0], [1.5]], "float32")
    rows = np.array([[0], [0], [0], [1], [1], [1]], "int64")
    got = compute("multinomial_from_uniform", prob, u, rows)
    np.testing.assert_array_equal(got, _first_above(prob, u[:, 0], rows[:, 0]))
    assert got[:, 0].tolist() == [0, 2, 3, 2, 0, 3]


def test_bad_rows_and_empty_vocabularies_trap():
    prob = np.full((2, 3), 1 / 3, "float32")
    with traps("index_out_of_bounds", "EXEC-sample-1"):
        compute("multinomial_from_uniform", prob, np.zeros((1, 1), "float32"),
                np.array([[2]], "int64"))
    with traps("index_out_of_bounds", "EXEC-sample-1"):
        compute("multinomial_from_uniform", np.zeros((2, 0), "float32"),
                np.zeros((1, 1), "float32"), np.array([[0]], "int64"))
    assert compute("multinomial_from_uniform", prob, np.zeros((0, 1), "float32"),
                   np.zeros((0, 1), "int64")).shape == (0, 1)
