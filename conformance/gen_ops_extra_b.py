"""Conformance cases (area ``ops``) for the gathers and scatters (spec/ops/indexing.md
"Gather and scatter"), the gradient ops (spec/ops/gradient.md) and the inspection ops
(spec/ops/inspection.md).

    python conformance/generate.py ops_extra_b

Expected values come from the loops and NumPy formulas below (scatters apply their
updates one at a time in row-major order, written out here), never from relax_ref.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, trap
from gen_ops import AREA, T_, ann, fdata, idata, module

I64 = "int64"


def _case(name, params, body, runs, covers, desc, sym=()):
    return Case(AREA, name, module(params, body, sym=sym), list(runs), "ok", None, desc,
                list(covers))


def _invalid(name, params, body, rule, covers, desc, sym=()):
    return Case(AREA, name, module(params, body, sym=sym), [], "invalid", rule, desc,
                list(covers) + [rule])


def _scatter(data, targets, updates, f):
    out = data.copy()
    for t, u in zip(targets, updates):
        out[t] = f(out[t], u)
    return out


def _gathers() -> list[Case]:
    out = []
    GE = ["relax.gather_elements", "SI-index-gelem-1", "EXEC-index-gelem-1"]
    x = fdata((3, 4), 900)
    i = np.array([[3, 0], [1, 1], [0, 2]], I64)
    want = np.array([[x[r, i[r, c]] for c in range(2)] for r in range(3)], "float32")
    runs = [ok([T_(x), T_(i)], [T_(want)])]
    x5 = fdata((5, 4), 901)
    i5 = np.array([[0, 3], [2, 2], [1, 0], [3, 3], [0, 0]], I64)
    runs.append(ok([T_(x5), T_(i5)],
                   [T_(np.array([[x5[r, i5[r, c]] for c in range(2)] for r in range(5)],
                                "float32"))]))
    runs.append(trap([T_(x), T_(np.array([[0, 4], [0, 0], [0, 0]], I64))],
                     "index_out_of_bounds"))
    runs.append(trap([T_(x), T_(np.array([[-1, 0], [0, 0], [0, 0]], I64))],
                     "index_out_of_bounds"))
    out.append(_case("gather_elements_axis1_symbolic",
                     [("x", ann(("n", 4))), ("i", ann(("n", 2), I64))],
                     "y = R.gather_elements(x, i, axis=1)", runs, GE,
                     "out[r, c] = x[r, i[r, c]] at n = 3 and 5; an index 4 on a length-4 axis "
                     "and a negative index (no wrap) trap index_out_of_bounds", sym=("n",)))
    out.append(_invalid("gather_elements_rank_mismatch",
                        [("x", ann((3, 4))), ("i", ann((3,), I64))],
                        "y = R.gather_elements(x, i)", "SI-index-gelem-3",
                        ["relax.gather_elements"], "data of rank 2, indices of rank 1"))
    out.append(_invalid("gather_elements_uint_indices",
                        [("x", ann((3,))), ("i", ann((3,), "uint8"))],
                        "y = R.gather_elements(x, i)", "SI-index-gelem-2",
                        ["relax.gather_elements"], "uint8 indices (TVM: signed only)"))

    GN = ["relax.gather_nd", "SI-index-gnd-1", "EXEC-index-gnd-1"]
    x = idata((2, 3, 4), 902)
    i = np.array([[1, 2], [0, 0], [1, 0]], I64)
    runs = [ok([T_(x), T_(i)], [T_(np.stack([x[1, 2], x[0, 0], x[1, 0]]))]),
            trap([T_(x), T_(np.array([[0, 3]], I64))], "index_out_of_bounds")]
    out.append(_case("gather_nd_pairs", [("x", ann((2, 3, 4), "int32")),
                                         ("i", ann(("k", 2), I64))],
                     "y = R.gather_nd(x, i)", runs, GN,
                     "gather (2, 3, 4) rows by (k, 2) coordinates; coordinate 3 on a "
                     "length-3 axis traps", sym=("k",)))
    b = np.array([[2], [1]], I64)
    out.append(_case("gather_nd_batch_dims", [("x", ann((2, 3, 4), "int32")),
                                              ("i", ann((2, 1), I64))],
                     "y = R.gather_nd(x, i, batch_dims=1)",
                     [ok([T_(x), T_(b)], [T_(np.stack([x[0, 2], x[1, 1]]))])], GN,
                     "batch_dims=1: out[b] = x[b, i[b, 0]]"))
    out.append(_invalid("gather_nd_too_many_coords", [("x", ann((3, 2))),
                                                      ("i", ann((4, 3), I64))],
                        "y = R.gather_nd(x, i)", "SI-index-gnd-3", ["relax.gather_nd"],
                        "three coordinates for data of rank 2"))

    IT = ["relax.index_tensor", "SI-index-itensor-1", "EXEC-index-itensor-1"]
    x = fdata((3, 4), 903)
    r, c = np.array([[0], [2]], I64), np.array([1, 3, 0], I64)
    want = np.array([[x[r[a, 0], c[b]] for b in range(3)] for a in range(2)], "float32")
    runs = [ok([T_(x), T_(r), T_(c)], [T_(want)]),
            trap([T_(x), T_(np.array([[3], [0]], I64)), T_(c)], "index_out_of_bounds")]
    out.append(_case("index_tensor_broadcast", [("x", ann((3, 4))), ("a", ann((2, 1), I64)),
                                                ("b", ann((3,), I64))],
                     "y = R.index_tensor(x, (a, b))", runs, IT,
                     "x[a, b] with a (2, 1) and b (3,) broadcast to (2, 3); row 3 traps"))
    out.append(_invalid("index_tensor_no_broadcast", [("x", ann((3, 4))),
                                                      ("a", ann((2,), I64)),
                                                      ("b", ann((3,), I64))],
                        "y = R.index_tensor(x, (a, b))", "SI-broadcast-1",
                        ["relax.index_tensor"], "index shapes (2,) and (3,) do not broadcast"))
    return out


def _scatters() -> list[Case]:
    out = []
    SE = ["relax.scatter_elements", "SI-index-scatter-1", "EXEC-index-scatter-1"]
    x = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    i = np.array([1, -3, 3, 1], I64)
    u = np.array([10.0, 20.0, 30.0, 40.0], "float32")
    targets = [1, 1, 3, 1]
    fns = {"update": lambda a, b: b, "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
           "mean": lambda a, b: (a + b) / np.float32(2), "max": max, "min": min}
    for red, f in fns.items():
        want = _scatter(x, targets, u, lambda a, b: np.float32(f(a, b)))
        runs = [ok([T_(x), T_(i), T_(u)], [T_(want)])]
        if red == "update":
            runs.append(trap([T_(x), T_(np.array([0, 4, 0, 0], I64)), T_(u)],
                             "index_out_of_bounds"))
            runs.append(trap([T_(x), T_(np.array([0, -5, 0, 0], I64)), T_(u)],
                             "index_out_of_bounds"))
        out.append(_case(f"scatter_elements_{red}_duplicates",
                         [("x", ann((4,))), ("i", ann((4,), I64)), ("u", ann((4,)))],
                         f'y = R.scatter_elements(x, i, u, reduction="{red}")', runs, SE,
                         f"reduction {red}: indices [1, -3, 3, 1] (-3 wraps to 1) update "
                         "position 1 three times, in order" +
                         ("; indices 4 and -5 trap" if red == "update" else "")))
    x2 = idata((2, 3, 4), 904)
    i2 = np.array([[[1, 0], [0, 1]]], I64)
    u2 = idata((1, 2, 2), 905)
    pos = [(int(i2[0, b, c]), b, c) for b in range(2) for c in range(2)]
    want = _scatter(x2, pos, u2.reshape(-1), lambda a, b: a + b)
    out.append(_case("scatter_elements_narrow_after_axis",
                     [("x", ann((2, 3, 4), "int32")), ("i", ann((1, 2, 2), I64)),
                      ("u", ann((1, 2, 2), "int32"))],
                     'y = R.scatter_elements(x, i, u, axis=0, reduction="add")',
                     [ok([T_(x2), T_(i2), T_(u2)], [T_(want)])], SE,
                     "axis 0, indices (1, 2, 2) narrower than data (2, 3, 4) on both axes "
                     "after it: out[i[0, b, c], b, c] += u[0, b, c] (TVM's kernel walks "
                     "the data with the indices' flat positions after the axis)"))
    out.append(_invalid("scatter_elements_shape_mismatch",
                        [("x", ann((4,))), ("i", ann((3,), I64)), ("u", ann((2,)))],
                        "y = R.scatter_elements(x, i, u)", "SI-index-scatter-3",
                        ["relax.scatter_elements"], "indices (3,) and updates (2,)"))

    SN = ["relax.scatter_nd", "SI-index-snd-1", "EXEC-index-snd-1"]
    x = np.arange(1, 9, dtype="int32")
    i = np.array([[4], [3], [1], [7], [3]], I64)
    u = np.array([9, 10, 11, 12, 13], "int32")
    for red, f in (("update", lambda a, b: b), ("add", lambda a, b: a + b),
                   ("min", min)):
        want = _scatter(x, [int(t) for t in i[:, 0]], u, f)
        runs = [ok([T_(x), T_(i), T_(u)], [T_(want)])]
        if red == "update":
            runs.append(trap([T_(x), T_(np.array([[4], [8], [1], [7], [3]], I64)), T_(u)],
                             "index_out_of_bounds"))
        out.append(_case(f"scatter_nd_{red}_1d", [("x", ann((8,), "int32")),
                                                  ("i", ann((5, 1), I64)),
                                                  ("u", ann((5,), "int32"))],
                         f'y = R.scatter_nd(x, i, u, reduction="{red}")', runs, SN,
                         f"scatter_nd {red} with position 3 written twice, in order" +
                         ("; index 8 traps" if red == "update" else "")))
    x = fdata((4, 3), 906)
    i = np.array([[2], [0]], I64)
    u = fdata((2, 3), 907)
    want = x.copy()
    want[2], want[0] = u[0], u[1]
    out.append(_case("scatter_nd_rows_symbolic", [("x", ann(("n", 3))), ("i", ann((2, 1), I64)),
                                                  ("u", ann((2, 3)))],
                     "y = R.scatter_nd(x, i, u)", [ok([T_(x), T_(i), T_(u)], [T_(want)])], SN,
                     "rows 2 and 0 of an (n, 3) tensor replaced", sym=("n",)))
    out.append(_invalid("scatter_nd_bad_updates", [("x", ann((3, 2))), ("i", ann((5, 1), I64)),
                                                   ("u", ann((5, 3)))],
                        "y = R.scatter_nd(x, i, u)", "SI-index-snd-3", ["relax.scatter_nd"],
                        "updates (5, 3), but indices.shape[:-1] + data.shape[1:] is (5, 2)"))

    IP = ["relax.index_put", "SI-index-put-1", "EXEC-index-put-1"]
    x = np.zeros((3, 3), "float32")
    a, b = np.array([0, 2, 0], I64), np.array([1, 1, -2], I64)
    v = np.array([1.0, 2.0, 4.0], "float32")
    tg = [(0, 1), (2, 1), (0, 1)]
    for acc, f in ((False, lambda p, q: q), (True, lambda p, q: p + q)):
        runs = [ok([T_(x), T_(a), T_(b), T_(v)], [T_(_scatter(x, tg, v, f))])]
        if not acc:
            runs.append(trap([T_(x), T_(np.array([0, 3, 0], I64)), T_(b), T_(v)],
                             "index_out_of_bounds"))
        out.append(_case(f"index_put_{'accumulate' if acc else 'update'}",
                         [("x", ann((3, 3))), ("a", ann((3,), I64)), ("b", ann((3,), I64)),
                          ("v", ann((3,)))],
                         f"y = R.index_put(x, (a, b), v, accumulate={acc})", runs, IP,
                         "positions (0, 1), (2, 1), (0, 1) (-2 wraps to 1): the repeated "
                         "position " + ("sums in order" if acc else "keeps the last value") +
                         ("" if acc else "; row 3 traps")))
    v1 = np.array([5.0], "float32")
    out.append(_case("index_put_broadcast_value", [("x", ann((3, 3))), ("a", ann((2,), I64)),
                                                   ("b", ann((1,), I64)), ("v", ann((1,)))],
                     "y = R.index_put(x, (a, b), v)",
                     [ok([T_(x), T_(np.array([2, 0], I64)), T_(np.array([2], I64)), T_(v1)],
                         [T_(_scatter(x, [(2, 2), (0, 2)], [5.0, 5.0], lambda p, q: q))])],
                     IP, "one value broadcast to both positions (2, 2) and (0, 2)"))
    out.append(_invalid("index_put_too_few_indices", [("x", ann((3, 3))), ("a", ann((2,), I64)),
                                                      ("v", ann((2,)))],
                        "y = R.index_put(x, (a,), v)", "SI-index-put-2", ["relax.index_put"],
                        "one index tensor for data of rank 2"))

    SS = ["relax.slice_scatter", "SI-index-sscatter-1", "EXEC-index-sscatter-1"]
    runs = []
    for nv, seed in ((2, 908), (3, 909)):
        x = fdata((nv, 8), seed)
        s = fdata((nv, 2), seed + 10)
        want = x.copy()
        for k in range(2):
            want[:, 1 + 3 * k] = s[:, k]
        runs.append(ok([T_(x), T_(s)], [T_(want)]))
    out.append(_case("slice_scatter_step3_symbolic", [("x", ann(("n", 8))),
                                                      ("s", ann(("n", 2)))],
                     "y = R.slice_scatter(x, s, 1, 7, 3, axis=1)", runs, SS,
                     "columns 1 and 4 of (n, 8) replaced by src (slice 1:7:3)", sym=("n",)))
    x = fdata((6,), 910)
    s = fdata((2,), 911)
    out.append(_case("slice_scatter_prim_bounds", [("x", ann((6,))), ("s", ann((2,))),
                                                   ("b", 'R.Prim("int64")'),
                                                   ("e", 'R.Prim("int64")')],
                     "y = R.slice_scatter(x, s, b, e, 2)",
                     [ok([T_(x), T_(s), prim(0), prim(4)],
                         [T_(np.concatenate([s[:1], x[1:2], s[1:], x[3:]]))]),
                      trap([T_(x), T_(s), prim(3), prim(7)], "index_out_of_bounds"),
                      trap([T_(x), T_(s), prim(0), prim(5)], "shape_mismatch")],
                     SS, "run-time bounds: 0:4:2 writes positions 0 and 2; 3:7 runs past "
                     "the end (index_out_of_bounds); 0:5:2 has 3 positions for 2 values"))
    out.append(_invalid("slice_scatter_wrong_src_length", [("x", ann((8,))), ("s", ann((3,)))],
                        "y = R.slice_scatter(x, s, 1, 7, 3)", "SI-index-sscatter-3",
                        ["relax.slice_scatter"], "slice 1:7:3 has 2 positions, src has 3"))
    return out


def cases() -> list[Case]:
    return _gathers() + _scatters()
