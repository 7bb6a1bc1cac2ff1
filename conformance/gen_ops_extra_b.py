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


def _nll_grad(g, pred, t, w, reduction, ignore):
    """nll_loss_backward written out per element, classes on axis 1 (float32 steps)."""
    wt = np.array([0.0 if v == ignore else w[v] for v in t.reshape(-1)],
                  "float32").reshape(t.shape)
    total = np.float32(0)
    for v in wt.reshape(-1):
        total = np.float32(total + v)
    out = np.zeros(pred.shape, "float32")
    for p in np.ndindex(*t.shape):
        gp = g[p] if reduction == "none" else g[()]
        if reduction == "mean":
            gp = np.float32(gp / total)
        if t[p] != ignore:
            out[(p[0], int(t[p])) + p[1:]] = np.float32(np.float32(0 - wt[p]) * gp)
    return out


def _gradient() -> list[Case]:
    out = []
    x = fdata((2, 3), 920)
    out.append(_case("grad_markers_identity", [("x", ann(("n", 3)))],
                     ["a = R.grad.start_checkpoint(x)", "b = R.grad.no_grad(a)",
                      "y = R.grad.end_checkpoint(b)"],
                     [ok([T_(x)], [T_(x)])],
                     ["relax.grad.no_grad", "relax.grad.start_checkpoint",
                      "relax.grad.end_checkpoint", "SI-grad-mark-1", "EXEC-grad-mark-1"],
                     "the gradient markers are the identity", sym=("n",)))
    out.append(_invalid("grad_checkpoint_of_a_constant", [("x", ann((3,)))],
                        'y = R.grad.start_checkpoint(R.const(1.0, "float32"))',
                        "SI-grad-mark-2", ["relax.grad.start_checkpoint"],
                        "a checkpoint marker's operand must be a variable, not a constant"))
    TB = ["relax.grad.take_backward", "SI-grad-take-1", "EXEC-grad-take-1"]
    g = fdata((2, 3), 921)
    i = np.array([3, 1, 3], I64)
    want = np.zeros((2, 4), "float32")
    for r in range(2):
        for k in range(3):
            want[r, i[k]] += g[r, k]
    out.append(_case("grad_take_backward_repeats", [("g", ann(("n", 3))), ("x", ann(("n", 4))),
                                                    ("i", ann((3,), I64))],
                     "y = R.grad.take_backward(g, x, i, axis=1)",
                     [ok([T_(g), T_(np.zeros((2, 4), "float32")), T_(i)], [T_(want)]),
                      trap([T_(g), T_(np.zeros((2, 4), "float32")), T_(np.array([0, 4, 0], I64))],
                           "index_out_of_bounds")], TB,
                     "gradient of take along axis 1: column 3 taken twice gets both "
                     "gradients; index 4 traps", sym=("n",)))
    out.append(_invalid("grad_take_backward_bad_grad", [("g", ann((2, 2))), ("x", ann((2, 4))),
                                                        ("i", ann((3,), I64))],
                        "y = R.grad.take_backward(g, x, i, axis=1)", "SI-grad-take-2", TB[:1],
                        "output_grad (2, 2) is not take's result (2, 3)"))
    NB = ["relax.grad.nll_loss_backward", "SI-grad-nll-1", "EXEC-grad-nll-1"]
    pred = fdata((3, 4), 922)
    t = np.array([0, 3, 2], I64)
    w = np.array([0.5, 1.0, 2.0, 4.0], "float32")
    g0 = np.array(1.5, "float32")
    out.append(_case("grad_nll_loss_backward_mean_ignore",
                     [("g", ann(())), ("p", ann((3, 4))), ("t", ann((3,), I64)),
                      ("w", ann((4,)))],
                     'y = R.grad.nll_loss_backward(g, p, t, w, reduction="mean", '
                     'ignore_index=3)',
                     [ok([T_(g0), T_(pred), T_(t), T_(w)],
                         [T_(_nll_grad(g0, pred, t, w, "mean", 3))]),
                      trap([T_(g0), T_(pred), T_(np.array([0, 4, 2], I64)), T_(w)],
                           "index_out_of_bounds")], NB,
                     "mean reduction with target 3 ignored: -w[t] * g / sum(w[t]) at the "
                     "target class; target 4 traps"))
    t2 = np.array([0, -100, 2], I64)
    out.append(_case("grad_nll_loss_backward_default_ignore",
                     [("g", ann(())), ("p", ann((3, 4))), ("t", ann((3,), I64))],
                     'y = R.grad.nll_loss_backward(g, p, t, reduction="sum")',
                     [ok([T_(g0), T_(pred), T_(t2)],
                         [T_(_nll_grad(g0, pred, t2, np.ones(4, "float32"), "sum", -100))])],
                     NB, "a target equal to the default ignore_index -100 has weight 0 "
                     "(TVM's kernel reads weights[-100])"))
    return out


def _pool_grad(g, x, k, s, pad, kind, include=False):
    """Pool gradients by loops (NCHW, dilation 1): max to each window's first largest
    in-bounds element; avg ``g / count`` to each in-bounds element of the window."""
    out = np.zeros_like(x)
    h, w = x.shape[2:]
    pt, pl, pb, pr = pad
    for a, b, p, q in np.ndindex(*g.shape):
        cells = [(p * s[0] - pt + i, q * s[1] - pl + j) for i in range(k[0]) for j in range(k[1])]
        inside = [(r, t) for r, t in cells if 0 <= r < h and 0 <= t < w]
        if not inside:
            continue
        if kind == "avg":
            if include:
                rows = min(p * s[0] - pt + k[0] - 1, h + pb - 1) - (p * s[0] - pt) + 1
                cols = min(q * s[1] - pl + k[1] - 1, w + pr - 1) - (q * s[1] - pl) + 1
                count = rows * cols
            else:
                count = len(inside)
            for r, t in inside:
                out[a, b, r, t] += g[a, b, p, q] / np.float32(count)
            continue
        best = inside[0]
        for r, t in inside[1:]:
            if x[a, b, r, t] > x[a, b][best]:
                best = (r, t)
        out[a, b][best] += g[a, b, p, q]
    return out


def _pool_gradients() -> list[Case]:
    out = []
    x = np.array([[[[1, 3, 3, 0], [2, 3, 1, 1], [0, 0, 5, 5], [0, 1, 5, 2]],
                   [[4, 4, 4, 4], [4, 4, 4, 4], [1, 2, 3, 4], [5, 6, 7, 8]]]], "float32")
    x = np.concatenate([x, x[:, ::-1]], axis=0)  # n = 2
    g = np.arange(1, 17, dtype="float32").reshape(2, 2, 2, 2) / 4
    MP = ["relax.grad.max_pool2d_backward", "SI-grad-pool-1", "EXEC-grad-pool-1"]
    AP = ["relax.grad.avg_pool2d_backward", "SI-grad-pool-1", "EXEC-grad-pool-1"]
    out.append(_case("grad_max_pool2d_backward_ties", [("g", ann(("n", 2, 2, 2))),
                                                       ("x", ann(("n", 2, "h", "w")))],
                     "y = R.grad.max_pool2d_backward(g, x, pool_size=(2, 2), strides=(2, 2))",
                     [ok([T_(g), T_(x)], [T_(_pool_grad(g, x, (2, 2), (2, 2), (0,) * 4, "max"))]),
                      trap([T_(g), T_(np.zeros((2, 2, 6, 6), "float32"))], "shape_mismatch")],
                     MP, "2x2 windows, stride 2: each window's gradient goes to its first "
                     "largest element (ties: the first in row-major order); data of 6x6 "
                     "does not pool to 2x2 at run time", sym=("n", "h", "w")))
    g3 = np.arange(1, 17, dtype="float32").reshape(2, 2, 2, 2)
    x1 = x[:, :, :, :3]
    out.append(_case("grad_max_pool2d_backward_padded",
                     [("g", ann((2, 2, 2, 2))), ("x", ann((2, 2, 4, 3)))],
                     "y = R.grad.max_pool2d_backward(g, x, pool_size=(3, 3), strides=(2, 2), "
                     "padding=(1, 1, 1, 1))",
                     [ok([T_(g3), T_(x1)],
                         [T_(_pool_grad(g3, x1, (3, 3), (2, 2), (1, 1, 1, 1), "max"))])], MP,
                     "3x3 windows with padding 1: padding never receives gradient"))
    for include in (False, True):
        out.append(_case(f"grad_avg_pool2d_backward_pad_{'incl' if include else 'excl'}",
                         [("g", ann((2, 2, 3, 3))), ("x", ann((2, 2, 4, 4)))],
                         "y = R.grad.avg_pool2d_backward(g, x, pool_size=(2, 2), "
                         f"strides=(2, 2), padding=(1, 1, 1, 1), count_include_pad={include})",
                         [ok([T_(np.arange(1, 37, dtype="float32").reshape(2, 2, 3, 3)),
                              T_(x)],
                             [T_(_pool_grad(np.arange(1, 37, dtype="float32").reshape(2, 2, 3, 3),
                                            x, (2, 2), (2, 2), (1,) * 4, "avg", include))])],
                         AP, "2x2 average windows with padding 1: each in-bounds element gets "
                         "g / count, the count " + ("including" if include else "excluding") +
                         " the padding"))
    out.append(_invalid("grad_avg_pool2d_backward_bad_grad",
                        [("g", ann((1, 1, 3, 3))), ("x", ann((1, 1, 4, 4)))],
                        "y = R.grad.avg_pool2d_backward(g, x, pool_size=(2, 2), strides=(2, 2))",
                        "SI-grad-pool-2", AP[:1], "output_grad 3x3, but 4x4 pools to 2x2"))
    return out


def _inspection() -> list[Case]:
    from generate import Run

    IN = ["SI-inspect-1", "EXEC-inspect-1"]
    ops = ["relax.inspect.tensor_dtype_code", "relax.inspect.tensor_dtype_bits",
           "relax.inspect.tensor_dtype_lanes", "relax.inspect.tensor_ndim",
           "relax.inspect.tensor_shape_i", "relax.inspect.tensor_stride_i"]
    x = fdata((3, 4), 930, dtype="float16")
    body = ["a = R.inspect.tensor_dtype_code(x)", "b = R.inspect.tensor_dtype_bits(x)",
            "c = R.inspect.tensor_dtype_lanes(x)", "d = R.inspect.tensor_ndim(x)",
            "e = R.inspect.tensor_shape_i(x, 0)", "f = R.inspect.tensor_stride_i(x, 0)",
            "y = (a, b, c, d, e, f)"]
    want = [prim(2, "uint8"), prim(16, "uint8"), prim(1, "uint16"), prim(2, "int32"),
            prim(3, I64), prim(4, I64)]
    out = [_case("inspect_fields_f16", [("x", ann(("n", 4), "float16"))], body,
                 [ok([T_(x)], want)], ops + IN,
                 "DLPack fields of a (3, 4) float16 tensor: code 2, 16 bits, 1 lane, "
                 "ndim 2, shape[0] 3, stride[0] 4", sym=("n",))]
    body = ['s = R.memory.alloc_storage(R.shape([64]), 0, "global", "uint8")',
            'v = R.memory.alloc_tensor(s, 24, R.shape([2, 3]), "float32")',
            "a = R.inspect.tensor_byte_offset(v)", "b = R.inspect.tensor_elem_offset(v)",
            "c = R.inspect.tensor_byte_offset(x)", "y = (a, b, c)"]
    out.append(_case("inspect_offsets_of_a_view", [("x", ann((2,)))], body,
                     [ok([T_(np.zeros(2, "float32"))],
                         [prim(24, "uint64"), prim(6, "uint64"), prim(0, "uint64")])],
                     ["relax.inspect.tensor_byte_offset", "relax.inspect.tensor_elem_offset"]
                     + IN, "a float32 tensor at byte 24 of a storage: byte offset 24, "
                     "element offset 6; an argument's offset is 0"))
    out.append(_case("inspect_axis_out_of_range", [("x", ann(ndim=2)), ("k", 'R.Prim("int64")')],
                     "y = R.inspect.tensor_shape_i(x, k)",
                     [ok([T_(np.zeros((2, 5), "float32")), prim(1)], [prim(5, I64)]),
                      Run([T_(np.zeros((2, 5), "float32")), prim(2)], None, "trap",
                          "invalid_value")],
                     ["relax.inspect.tensor_shape_i"] + IN,
                     "shape_i at a run-time axis: 1 gives 5, 2 is past the ndim"))
    out.append(_invalid("inspect_stride_axis_too_large", [("x", ann((2, 3)))],
                        "y = R.inspect.tensor_stride_i(x, 2)", "SI-inspect-2",
                        ["relax.inspect.tensor_stride_i"],
                        "a constant axis 2 of a 2-d tensor"))
    return out


def _more_invalid() -> list[Case]:
    """One invalid case for each deduction rule the cases above leave uncovered."""
    rows = [
        ("gather_elements_longer_indices", [("x", ann((3, 2))), ("i", ann((3, 5), I64))],
         "y = R.gather_elements(x, i, axis=0)", "SI-index-gelem-4", "relax.gather_elements",
         "indices (3, 5) are longer than data (3, 2) off the axis (TVM reads out of bounds)"),
        ("gather_nd_int32_indices", [("x", ann((3,))), ("i", ann((2, 1), "int32"))],
         "y = R.gather_nd(x, i)", "SI-index-gnd-2", "relax.gather_nd",
         "gather_nd takes int64 indices only (TVM's rule)"),
        ("gather_nd_batch_mismatch", [("x", ann((3, 2))), ("i", ann((4, 1), I64))],
         "y = R.gather_nd(x, i, batch_dims=1)", "SI-index-gnd-4", "relax.gather_nd",
         "batch dimension 4 of indices against 3 of data"),
        ("index_tensor_too_many", [("x", ann((3,))), ("a", ann((2,), I64)),
                                   ("b", ann((2,), I64))],
         "y = R.index_tensor(x, (a, b))", "SI-index-itensor-2", "relax.index_tensor",
         "two index tensors for a 1-d tensor"),
        ("index_put_values_rank", [("x", ann((3,))), ("a", ann((2,), I64)),
                                   ("v", ann((1, 2)))],
         "y = R.index_put(x, (a,), v)", "SI-index-put-3", "relax.index_put",
         "values (1, 2) have more dimensions than the indices' shape (2,)"),
        ("scatter_elements_dtype_mismatch", [("x", ann((3,))), ("i", ann((3,), I64)),
                                             ("u", ann((3,), "int32"))],
         "y = R.scatter_elements(x, i, u)", "SI-index-scatter-2", "relax.scatter_elements",
         "int32 updates into float32 data"),
        ("scatter_nd_dtype_mismatch", [("x", ann((3,))), ("i", ann((1, 1), I64)),
                                       ("u", ann((1,), "float16"))],
         "y = R.scatter_nd(x, i, u)", "SI-index-snd-2", "relax.scatter_nd",
         "float16 updates into float32 data"),
        ("slice_scatter_rank_mismatch", [("x", ann((2, 8))), ("s", ann((2,)))],
         "y = R.slice_scatter(x, s, 1, 7, 3, axis=1)", "SI-index-sscatter-2",
         "relax.slice_scatter", "src of rank 1 into input of rank 2"),
        ("slice_scatter_end_past_input", [("x", ann((6,))), ("s", ann((2,)))],
         "y = R.slice_scatter(x, s, 4, 8, 2)", "SI-index-sscatter-4", "relax.slice_scatter",
         "end 8 past a dimension of 6 (TVM ignores the positions past the end)"),
        ("grad_nll_loss_backward_targets_shape", [("g", ann(())), ("p", ann((2, 3))),
                                                  ("t", ann((3,), I64))],
         "y = R.grad.nll_loss_backward(g, p, t)", "SI-grad-nll-2",
         "relax.grad.nll_loss_backward", "targets (3,) for predictions (2, 3)"),
    ]
    for op in ("tensor_dtype_code", "tensor_dtype_bits", "tensor_dtype_lanes", "tensor_ndim",
               "tensor_byte_offset", "tensor_elem_offset"):
        rows.append((f"inspect_{op}_of_a_shape", [("s", "R.Shape([2, 3])")],
                     f"y = R.inspect.{op}(s)", "SI-op-tensor-1", f"relax.inspect.{op}",
                     "the operand is a shape, not a tensor"))
    rows.append(("grad_no_grad_two_operands", [("x", ann((3,)))], "y = R.grad.no_grad(x, x)",
                 "SI-call-1", "relax.grad.no_grad", "no_grad takes one operand"))
    rows.append(("grad_end_checkpoint_of_a_constant", [("x", ann((3,)))],
                 'y = R.grad.end_checkpoint(R.const(1.0, "float32"))', "SI-grad-mark-2",
                 "relax.grad.end_checkpoint", "a checkpoint marker's operand must be a variable"))
    return [_invalid(name, params, body, rule, [op], desc)
            for name, params, body, rule, op, desc in rows]


def cases() -> list[Case]:
    return (_gathers() + _scatters() + _gradient() + _pool_gradients() + _inspection()
            + _more_invalid())
