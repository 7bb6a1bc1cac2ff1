"""Conformance cases (area ``ops``) for checks that the lowerings keep as the PrimFunc's
guards (spec/te.md TE-leg-7): an ``R.Prim`` index of take under ``mode="fast"``. Run
them on lowered modules with ``relax-ref conformance --passes LegalizeOps -k _guard_``.

Expected values come from NumPy indexing written below.
"""
from __future__ import annotations

from generate import Case, ok, prim, trap
from gen_ops import AREA, T_, ann, fdata, module, prim_ann


def _case(name, params, body, runs, covers, desc, sym=()):
    return Case(AREA, name, module(params, body, sym=sym), list(runs), "ok", None, desc,
                list(covers))


def cases() -> list[Case]:
    out = []
    x = fdata((2, 3, 4), 901)
    out.append(_case(
        "take_guard_prim_index", [("x", ann((2, 3, 4))), ("k", prim_ann())],
        'y = R.take(x, k, axis=1, mode="fast")',
        [ok([T_(x), prim(2)], [T_(x[:, 2, :])]),
         trap([T_(x), prim(3)], "index_out_of_bounds"),
         trap([T_(x), prim(-1)], "index_out_of_bounds")],
        ["relax.take", "EXEC-index-take-1", "TE-leg-index-1"],
        "take of an R.Prim index under mode='fast': 2 reads x[:, 2, :]; 3 and -1 lie "
        "outside [0, 3) and trap index_out_of_bounds (the lowered PrimFunc's guard)"))
    return out
