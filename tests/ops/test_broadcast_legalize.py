"""Broadcast reads of lowered ops (spec/te.md TE-leg-3): a dimension provably 1 or
provably the result's is decided at compile time, with nothing checked; any other is the
PrimFunc's guard ``d == 1 or d == out`` with a ``T.Select`` read (check_pass tries the
symbolic values 1, 0, 2, 3, where the guard both holds and fails)."""
from __future__ import annotations

from .legalize_helpers import check_lowered, module


def test_a_provably_equal_dimension_written_differently_needs_no_guard():
    # n * 2 and 2 * n are one length, so deduction gives the result (n * 2,).
    text = module('s: R.Shape(["n"]), x: R.Tensor(("n * 2",), "float32"), '
                  'y: R.Tensor(("2 * n",), "float32")', "z = R.add(x, y)", "z")
    script = check_lowered(text, "relax.add").script()
    assert "assert" not in script and "T.Select" not in script, script


def test_where_of_a_decided_broadcast_needs_no_guard():
    text = module('c: R.Tensor(("n", 1), "bool"), a: R.Tensor((1, 3), "float32"), '
                  'b: R.Tensor(("n", 3), "float32")', "y = R.where(c, a, b)")
    script = check_lowered(text, "relax.where").script()
    assert "assert" not in script, script


def test_an_undecided_dimension_of_broadcast_to_is_guarded_per_dimension():
    # m may be 1 or n, k may be 1 or 3: two guards, two selected reads.
    text = module('x: R.Tensor(("m", "k"), "int32"), z: R.Tensor(("n",), "float32")',
                  "n = T.int64()\ny = R.broadcast_to(x, R.shape([2, n, 3]))")
    script = check_lowered(text, "relax.broadcast_to").script()
    assert script.count('"shape_mismatch: relax.broadcast_to: dimension') == 2, script
    assert "x[T.Select(m == T.int64(1), T.int64(0), v_ax1), " \
           "T.Select(k == T.int64(1), T.int64(0), v_ax2)]" in script, script
