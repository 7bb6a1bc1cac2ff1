"""Conformance cases for the `struct_info` area: struct-info deduction and well-formedness
(spec/struct_info.md SI-*, spec/well_formed.md WF-*, and the operator rules of spec/ops/
where an op is given invalid operands).

Valid cases make deduction observable at run time: a binding annotated with exactly what
deduction must find (an annotation finer than deduction is rejected, SI-ann-2, so an
annotation that passes proves the deduction was at least that precise), functions without a
return annotation whose callers rely on the deduced result, symbolic relations kept
through calls (paper Fig. 8), and joins after ``if``; every such case runs ``main`` with
several symbolic sizes and checks outputs computed with NumPy. Invalid cases (``expect =
"invalid"``) each break one rule and name it in ``rule``. Where TVMScript text cannot
express the broken IR at all (a variable out of scope is an unknown *name* to any parser),
the case is ``malformed`` and says so.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, trap, tensor, tuple_

AREA = "struct_info"


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _f32(rng, *dims) -> np.ndarray:
    return rng.uniform(-2.0, 2.0, size=dims).astype("float32")


def valid(name, text, runs, covers, description) -> Case:
    return Case(AREA, name, text, runs=runs, covers=covers, description=description)


def invalid(name, text, rule, covers, description) -> Case:
    if rule and rule not in covers:
        covers = [rule] + list(covers)
    return Case(AREA, name, text, expect="invalid", rule=rule, covers=covers,
                description=description)


def malformed(name, text, covers, description) -> Case:
    return Case(AREA, name, text, expect="malformed", covers=covers, description=description)


def _module(body: str, header: str = "") -> str:
    return header + "@I.ir_module\nclass Module:\n" + body


# ==============================================================================================
# Deduction observable at run time
# ==============================================================================================

def deduction_cases() -> list[Case]:
    cases = []
    rng = _rng(100)

    bcast = _module('''    @R.function
    def main(x: R.Tensor(("n", 1), "float32"), y: R.Tensor((1, "m"), "float32")):
        n = T.int64()
        m = T.int64()
        z: R.Tensor((n, m), "float32") = R.add(x, y)
        w: R.Tensor((n, m), "float32") = R.multiply(z, x)
        return w
''')
    runs = []
    for n, m in ((1, 1), (2, 3), (4, 1)):
        x, y = _f32(rng, n, 1), _f32(rng, 1, m)
        runs.append(ok([tensor(x), tensor(y)], [tensor((x + y) * x)]))
    cases.append(valid("broadcast_symbolic_shape_deduced", bcast, runs,
                       ["SI-anf-1", "SI-ann-1", "SI-ann-2", "SI-broadcast-1", "SI-def-1"],
                       "(n, 1) + (1, m) deduces (n, m): the exact annotations pass only if "
                       "deduction is that precise (SI-ann-2). No return annotation; output "
                       "(x + y) * x for several n, m."))

    flatten = _module('''    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        with R.dataflow():
            lv0: R.Tensor((n, 4), "float32") = R.exp(x)
            lv1: R.Tensor((n * 4,), "float32") = R.reshape(lv0, R.shape([n * 4]))
            lv2: R.Tensor((n * 4,), "float32") = R.add(lv1, lv1)
            lv3: R.Tensor((n, 4), "float32") = R.reshape(lv2, R.shape([n, 4]))
            R.output(lv3)
        return lv3
''')
    runs = []
    for n in (1, 2, 7):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor(np.exp(x) * 2)]))
    cases.append(valid("flatten_n_to_n_times_4", flatten, runs,
                       ["SI-ann-2", "SI-manip-reshape-1", "SI-def-1"],
                       "reshape (n, 4) -> (n * 4,) and back keeps the symbolic relation; each "
                       "binding is annotated exactly. Output 2 * exp(x) for n = 1, 2, 7."))

    minus_one = _module('''    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        y: R.Tensor((n * 4,), "float32") = R.reshape(x, R.shape([-1]))
        s: R.Shape([n * 4]) = R.shape_of(y)
        return (y, s)
''')
    runs = []
    for n in (1, 3):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor(x.reshape(-1)), shape([n * 4])]))
    cases.append(valid("reshape_minus_one_and_shape_of", minus_one, runs,
                       ["SI-manip-reshape-1", "SI-ann-2", "SI-erase-1"],
                       "reshape to -1 deduces (n * 4,), and R.shape_of gives R.Shape([n * 4]); "
                       "main has no return annotation."))

    fig8 = _module('''    @R.function(private=True)
    def flat(a: R.Tensor(("m", 4), "float32")) -> R.Tensor(("m * 4",), "float32"):
        m = T.int64()
        b = R.reshape(a, R.shape([m * 4]))
        return b

    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 8",), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv0: R.Tensor((2 * n, 4), "float32") = R.concat((x, x), axis=0)
            lv1: R.Tensor((n * 8,), "float32") = cls.flat(lv0)
            R.output(lv1)
        return lv1
''')
    runs = []
    for n in (1, 2, 3, 6):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor(np.concatenate([x, x]).reshape(-1))]))
    cases.append(valid("fig8_subgraph_call_2n", fig8, runs,
                       ["SI-call-fn-1", "SI-ann-2", "SI-def-1"],
                       "Paper Fig. 8: calling flat(a: (m, 4)) -> (m * 4,) with an argument of "
                       "shape (2 * n, 4) substitutes m := 2n, so the result is (2n * 4,), "
                       "which the annotation (n * 8,) must equal (SI-call-fn-1). Runs n = 1, 2, "
                       "3, 6."))

    fig8_param_expr = _module('''    @R.function(private=True)
    def glue(a: R.Tensor(("k",), "float32"), b: R.Tensor(("2 * k",), "float32")) -> R.Tensor(("3 * k",), "float32"):
        c = R.concat((a, b), axis=0)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 3",), "float32"):
        n = T.int64()
        cls = Module
        xx: R.Tensor((n * 2,), "float32") = R.concat((x, x), axis=0)
        y: R.Tensor((n + n + n,), "float32") = cls.glue(x, xx)
        return y
''')
    runs = []
    for n in (1, 2, 5):
        x = _f32(rng, n)
        runs.append(ok([tensor(x)], [tensor(np.concatenate([x, x, x]))]))
    cases.append(valid("call_parameter_2k_checked_statically", fig8_param_expr, runs,
                       ["SI-call-fn-1", "SI-call-fn-2", "SI-sub-1", "SI-def-1"],
                       "A callee parameter (\"2 * k\",) with k defined by another parameter; "
                       "the caller passes (n,) and (n * 2,), so k := n and 2k = 2n is proved; "
                       "the result (3k,) becomes (3n,) = (n + n + n,)."))

    fig8_runtime = _module('''    @R.function(private=True)
    def glue(a: R.Tensor(("k",), "float32"), b: R.Tensor(("2 * k",), "float32")) -> R.Tensor(("3 * k",), "float32"):
        c = R.concat((a, b), axis=0)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("j",), "float32")) -> R.Tensor(("n * 3",), "float32"):
        cls = Module
        z = cls.glue(x, y)
        return z
''')
    x2, y4, y3 = _f32(rng, 2), _f32(rng, 4), _f32(rng, 3)
    cases.append(valid("call_parameter_2k_checked_at_run_time", fig8_runtime,
                       [ok([tensor(x2), tensor(y4)], [tensor(np.concatenate([x2, y4]))]),
                        trap([tensor(x2), tensor(y3)], "signature")],
                       ["SI-call-fn-2", "SI-call-fn-3", "SI-sub-3", "EXEC-call-3"],
                       "(j,) against the parameter (2 * k,) with k := n can neither be proved "
                       "nor refuted (SI-sub-3): the call is accepted and checked at run time, "
                       "so j = 4 = 2n runs and j = 3 traps (signature)."))

    same_sym = _module('''    @R.function(private=True)
    def add2(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        z: R.Tensor((n,), "float32") = cls.add2(x, y)
        return z
''')
    x3, y3b, y2 = _f32(rng, 3), _f32(rng, 3), _f32(rng, 2)
    cases.append(valid("call_symbol_matched_twice", same_sym,
                       [ok([tensor(x3), tensor(y3b)], [tensor(x3 + y3b)]),
                        trap([tensor(x3), tensor(y2)], "signature")],
                       ["SI-call-fn-3", "SI-call-fn-1"],
                       "k is matched by n and by m: the first match (n) gives the result "
                       "(n,) and the run-time check compares the other (SI-call-fn-3)."))

    erase_callee = _module('''    @R.function(private=True)
    def uniq(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x, sorted=True)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        w = R.add(v, v)
        return w

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        cls = Module
        y: R.Tensor(ndim=1, dtype="int32") = cls.uniq(x)
        return y
''')
    xi = np.array([3, 1, 3, 2, 1], "int32")
    xj = np.array([5, 5], "int32")
    cases.append(valid("erase_match_cast_symbol_from_return", erase_callee,
                       [ok([tensor(xi)], [tensor(np.unique(xi) * 2)]),
                        ok([tensor(xj)], [tensor(np.unique(xj) * 2)])],
                       ["SI-erase-1", "SI-cast-1", "SI-ann-2"],
                       "A function without a return annotation whose result shape (m,) "
                       "uses a symbol of its body's match_cast: its callers see R.Tensor(ndim=1) "
                       "(SI-erase-1). Output 2 * unique(x)."))

    erase_keeps = _module('''    @R.function(private=True)
    def twice(a: R.Tensor(("k",), "float32")):
        b = R.concat((a, a), axis=0)
        return b

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("2 * n",), "float32"):
        n = T.int64()
        cls = Module
        y: R.Tensor((n * 2,), "float32") = cls.twice(x)
        return y
''')
    runs = [ok([tensor(v)], [tensor(np.concatenate([v, v]))]) for v in (_f32(rng, 1), _f32(rng, 4))]
    cases.append(valid("erase_keeps_parameter_symbols", erase_keeps, runs,
                       ["SI-erase-1", "SI-call-fn-1"],
                       "A function without a return annotation returning (k * 2,) keeps it: k "
                       "is defined by its parameter, so the caller gets (n * 2,)."))

    join_eq = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        z: R.Tensor((n, 4), "float32") = y
        return z
''')
    runs = []
    for n in (1, 3):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(np.bool_(True)), tensor(x)], [tensor(x + x)]))
        runs.append(ok([tensor(np.bool_(False)), tensor(x)], [tensor(x * x)]))
    cases.append(valid("join_keeps_equal_shapes", join_eq, runs,
                       ["SI-if-1", "SI-join-1", "SI-join-2", "SI-ann-2"],
                       "Both branches deduce (n, 4), so the join keeps (n, 4) and the exact "
                       "annotation after the if passes (SI-join-2)."))

    join_equiv = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        if c:
            y = R.concat((x, x), axis=0)
        else:
            y = R.reshape(R.broadcast_to(x, R.shape([2, n])), R.shape([2 * n]))
        z: R.Tensor((n * 2,), "float32") = y
        return z
''')
    runs = []
    for n in (1, 3):
        x = _f32(rng, n)
        runs.append(ok([tensor(np.bool_(True)), tensor(x)], [tensor(np.concatenate([x, x]))]))
        runs.append(ok([tensor(np.bool_(False)), tensor(x)],
                       [tensor(np.broadcast_to(x, (2, n)).reshape(-1))]))
    cases.append(valid("join_keeps_provably_equal_shapes", join_equiv, runs,
                       ["SI-join-2", "SI-anf-1", "SI-ann-2"],
                       "The branches deduce (n + n,) and (2 * n,) (concat vs. reshape of broadcast_to): provably equal, so the "
                       "join keeps the shape (SI-join-2); the else branch nests a call "
                       "(SI-anf-1)."))

    join_ndim = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        if c:
            y = R.concat((x, x), axis=0)
        else:
            y = R.negative(x)
        z: R.Tensor(ndim=1, dtype="float32") = y
        return z
''')
    x = _f32(rng, 3)
    cases.append(valid("join_different_shapes_keeps_ndim", join_ndim,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(np.concatenate([x, x]))]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(-x)])],
                       ["SI-join-1", "SI-join-2"],
                       "Branches of shapes (2n,) and (n,) join to R.Tensor(ndim=1, float32)."))

    join_dtype = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,)):
        if c:
            y = R.add(x, x)
        else:
            y = R.astype(x, "int32")
        z: R.Tensor((4,)) = y
        return z
''')
    x = np.array([1.5, -2.5, 3.0, 0.25], "float32")
    cases.append(valid("join_different_dtypes_keeps_shape", join_dtype,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(x + x)]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(x.astype("int32"))])],
                       ["SI-join-1", "SI-join-2"],
                       "float32 and int32 branches of shape (4,) join to R.Tensor((4,)) with "
                       "the dtype unknown; astype truncates toward zero."))

    join_obj = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Object:
        if c:
            y = R.add(x, x)
        else:
            y = (x, x)
        z: R.Object = y
        return z
''')
    x = _f32(rng, 2)
    cases.append(valid("join_tensor_and_tuple_is_object", join_obj,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(x + x)]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(x), tensor(x)])],
                       ["SI-join-1"],
                       "A tensor and a tuple join to R.Object (SI-join-1)."))

    join_tuple = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
        n = T.int64()
        if c:
            y = (x, R.shape([n, 2]))
        else:
            y = (R.negative(x), R.shape([n, 2]))
        z: R.Tuple(R.Tensor((n,), "float32"), R.Shape([n, 2])) = y
        return z
''')
    x = _f32(rng, 3)
    cases.append(valid("join_tuples_fieldwise", join_tuple,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(x), shape([3, 2])]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(-x), shape([3, 2])])],
                       ["SI-join-1", "SI-join-2", "SI-tuple-1"],
                       "Two tuples join field by field; equal fields are kept exactly."))

    join_prim = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), k: T.int64) -> R.Prim("int64"):
        if c:
            p = R.prim_value(k + 1)
        else:
            p = R.prim_value(1 + k)
        q: R.Prim(value=k + 1) = p
        return q
''')
    cases.append(valid("join_keeps_equal_prim_values", join_prim,
                       [ok([tensor(np.bool_(b)), prim(5)], [prim(6)]) for b in (True, False)],
                       ["SI-join-3", "SI-ann-2"],
                       "R.prim_value(k + 1) and R.prim_value(1 + k) join to R.Prim(value=k + 1) "
                       "(SI-join-3)."))

    coarser = _module('''    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        a: R.Tensor(ndim=2, dtype="float32") = R.add(x, x)
        b: R.Tensor(ndim=2) = R.multiply(a, x)
        c: R.Tensor = R.subtract(x, x)
        d: R.Object = R.negative(x)
        e: R.Tuple(R.Tensor(ndim=2), R.Object) = (b, c)
        return (a, b, c, d, e)
''')
    x = _f32(rng, 2, 3)
    cases.append(valid("annotations_coarser_than_deduction", coarser,
                       [ok([tensor(x)], [tensor(x + x), tensor((x + x) * x), tensor(x - x),
                                         tensor(-x), tensor((x + x) * x), tensor(x - x)])],
                       ["SI-ann-1", "SI-ann-2", "SI-sub-1"],
                       "Annotations coarser than deduction (ndim only, dtype dropped, bare "
                       "R.Tensor, R.Object, a tuple of coarser fields) are accepted (SI-sub-1). "
                       "A later op on a coarser variable uses the annotation."))

    split = _module('''    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        t: R.Tuple(R.Tensor((n, 2), "float32"), R.Tensor((n, 2), "float32")) = R.split(x, 2, axis=1)
        a: R.Tensor((n, 2), "float32") = t[0]
        b: R.Tensor((n, 2), "float32") = t[1]
        c: R.Tensor((n, 2), "float32") = R.subtract(a, b)
        return c
''')
    runs = []
    for n in (1, 3):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor(x[:, :2] - x[:, 2:])]))
    cases.append(valid("tuple_get_item_deduced", split, runs,
                       ["SI-tuple-1", "SI-ann-2"],
                       "R.split deduces a tuple of two (n, 2) tensors; t[0] and t[1] take "
                       "their fields' struct info (SI-tuple-1)."))

    nested_anf = _module('''    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")):
        n = T.int64()
        z: R.Tensor((n,), "float32") = R.add(R.multiply(x, y), R.subtract(R.exp(x), y))
        t: R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")) = (R.negative(z), R.add(z, z))
        return t
''')
    runs = []
    for n in (2, 5):
        x, y = _f32(rng, n), _f32(rng, n)
        z = x * y + (np.exp(x) - y)
        runs.append(ok([tensor(x), tensor(y)], [tensor(-z), tensor(z + z)], rtol=1e-5))
    cases.append(valid("nested_calls_normalized", nested_anf, runs,
                       ["SI-anf-1", "SI-ann-2", "SI-tuple-1"],
                       "Nested calls and calls inside a tuple literal are bound to fresh "
                       "variables with their deduced struct info (SI-anf-1)."))

    match_cast_rt = _module('''    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((3, 4), "float32"):
        with R.dataflow():
            y = R.match_cast(x, R.Tensor((3, 4), "float32"))
            z: R.Tensor((3, 4), "float32") = R.multiply(y, y)
            R.output(z)
        return z
''')
    x = _f32(rng, 3, 4)
    cases.append(valid("match_cast_checked_at_run_time", match_cast_rt,
                       [ok([tensor(x)], [tensor(x * x)]),
                        trap([tensor(_f32(rng, 2, 4))], "match_cast")],
                       ["SI-cast-1", "SI-sub-3", "EXEC-match-cast-1"],
                       "A match_cast from R.Tensor(ndim=2) to (3, 4) may succeed (SI-sub-3): "
                       "it is accepted and checked at run time."))

    match_cast_sym = _module('''    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x, sorted=True)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        w: R.Tensor((m,), "int32") = R.add(v, v)
        s: R.Shape([m]) = R.shape_of(w)
        return (w, s, R.prim_value(m * 10))
''')
    runs = []
    for arr in ([4, 4, 1, 9, 1], [7]):
        a = np.array(arr, "int32")
        u = np.unique(a)
        runs.append(ok([tensor(a)], [tensor(u * 2), shape([u.size]), prim(u.size * 10)]))
    cases.append(valid("match_cast_defines_symbol", match_cast_sym, runs,
                       ["SI-cast-1", "SI-def-1", "SI-ann-2"],
                       "match_cast defines m from a data-dependent shape; later bindings "
                       "and R.prim_value use it."))

    nested_fn = _module('''    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        @R.function
        def inner(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
            z = R.multiply(y, y)
            return z
        w: R.Tensor((n,), "float32") = inner(x)
        return w
''')
    runs = [ok([tensor(v)], [tensor(v * v)]) for v in (_f32(rng, 2), _f32(rng, 5))]
    cases.append(valid("nested_function_uses_enclosing_symbol", nested_fn, runs,
                       ["SI-call-fn-1", "SI-def-1"],
                       "A nested function's signature uses the enclosing n; calling it with "
                       "x deduces (n,)."))

    return_finer = _module('''    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y
''')
    x4 = _f32(rng, 4)
    cases.append(valid("return_annotation_checked_at_run_time", return_finer,
                       [ok([tensor(x4)], [tensor(x4 + x4)]),
                        trap([tensor(_f32(rng, 5))], "return")],
                       ["SI-ann-1", "SI-sub-3", "EXEC-call-4"],
                       "A return annotation finer than the body (R.Tensor((4,)) for an (n,) "
                       "result) is checked when the function returns (EXEC-call-4)."))

    object_param = _module('''    @R.function(private=True)
    def need4(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return a

    @R.function
    def main(x: R.Object) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.need4(x)
        return y
''')
    cases.append(valid("object_argument_checked_at_run_time", object_param,
                       [ok([tensor(x4)], [tensor(x4)]),
                        trap([tensor(_f32(rng, 3))], "signature"),
                        trap([shape([4])], "signature")],
                       ["SI-sub-3", "SI-call-fn-2", "EXEC-call-3"],
                       "An R.Object argument for an R.Tensor((4,)) parameter may match "
                       "(SI-sub-3): the call is accepted and checked at run time."))

    prim_param = _module('''    @R.function
    def main(k: T.int64) -> R.Tensor(("k",), "float32"):
        z: R.Tensor((k,), "float32") = R.zeros(R.shape([k]), "float32")
        o: R.Tensor((k,), "float32") = R.ones(R.shape([k]), "float32")
        y: R.Tensor((k,), "float32") = R.add(z, o)
        return y
''')
    cases.append(valid("prim_parameter_defines_symbol", prim_param,
                       [ok([prim(k)], [tensor(np.ones(k, "float32"))]) for k in (1, 4, 0)],
                       ["SI-def-1", "SI-ann-2", "SI-create-shape-1"],
                       "k: T.int64 defines k; R.zeros(R.shape([k])) deduces (k,), as does the "
                       "return annotation (\"k\",)."))

    call_tir = _module('''    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in T.serial(n):
            with T.sblock("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        y: R.Tensor((n,), "float32") = R.call_tir(cls.double, (x,), out_ty=R.Tensor((n,), "float32"))
        z: R.Tensor((n,), "float32") = R.add(y, x)
        return z
''')
    runs = [ok([tensor(v)], [tensor(v * 3)]) for v in (_f32(rng, 1), _f32(rng, 6))]
    cases.append(valid("call_tir_result_is_out_ty", call_tir, runs,
                       ["SI-deduce-1", "SI-ann-2"],
                       "R.call_tir's result is its out_ty (n,); output 3x."))

    if_prim = _module('''    @R.function
    def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
        if k > 2:
            y = R.add(x, x)
        else:
            y = x
        return y
''')
    x3 = _f32(rng, 3)
    cases.append(valid("if_condition_bool_prim", if_prim,
                       [ok([tensor(x3), prim(5)], [tensor(x3 + x3)]),
                        ok([tensor(x3), prim(2)], [tensor(x3)])],
                       ["SI-if-1"],
                       "An if condition that is a bool R.Prim (k > 2 for k: T.int64) is "
                       "accepted (SI-if-1)."))

    if_one = _module('''    @R.function
    def main(c: R.Tensor((1,), "bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
''')
    cases.append(valid("if_condition_one_element_tensor", if_one,
                       [ok([tensor(np.array([True])), tensor(x3)], [tensor(x3 + x3)]),
                        ok([tensor(np.array([False])), tensor(x3)], [tensor(x3)])],
                       ["SI-if-1", "EXEC-if-1"],
                       "An if condition that is a bool tensor of shape (1,), as TVM's ONNX "
                       "importer writes it, is accepted and read (SI-if-1, EXEC-if-1)."))

    pure_extern = _module('''    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            v = R.ExternFunc("vm.builtin.copy", R.Callable(purity=True))(x)
            y = R.match_cast(v, R.Tensor((3,), "float32"))
            z = R.add(y, y)
            R.output(z)
        return z
''')
    cases.append(valid("extern_func_annotated_pure", pure_extern,
                       [ok([tensor(x3)], [tensor(x3 + x3)])],
                       ["SI-extern-1"],
                       "A packed function written with R.Callable(purity=True) is a pure "
                       "call: it may stand in a dataflow block (SI-extern-1)."))

    allocs = _module('''    @T.prim_func(private=True)
    def fill(x: T.Buffer((3,), "float32"), c: T.float32, out: T.Buffer((3,), "float32")):
        for i in range(3):
            out[i] = x[i] + c

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        with R.dataflow():
            a: R.Tensor((3,), "float32") = R.builtin.alloc_tensor(R.shape([3]), dtype="float32", runtime_device_index=0)
            b: R.Tensor((3,), "float32") = R.builtin.alloc_tensor(R.shape([3]), "float32", 0)
            R.output(a, b)
        cls.fill(x, R.prim_value(T.float32(1)), a)
        cls.fill(x, R.prim_value(T.float32(2)), b)
        return (a, b)
''')
    cases.append(valid("allocations_pure_and_distinct", allocs,
                       [ok([tensor(x3)], [tensor(x3 + np.float32(1)),
                                            tensor(x3 + np.float32(2))])],
                       ["SI-struct-alloc-2", "SI-struct-alloc-1"],
                       "Allocations written as TVM writes them (keywords, a dtype string) "
                       "are pure, so they stand in a dataflow block; two equal ones are two "
                       "tensors (SI-struct-alloc-2)."))

    pure_prim = _module('''    @T.prim_func(private=True)
    def first_is_positive(a: T.Buffer((3,), "float32")) -> T.bool:
        tmp = T.alloc_buffer((1,), "float32")
        tmp[0] = a[0]
        return tmp[0] > T.float32(0)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Prim("bool"):
        cls = Module
        with R.dataflow():
            p = cls.first_is_positive(x)
            R.output(p)
        return p
''')
    cases.append(valid("pure_prim_func_called_directly", pure_prim,
                       [ok([tensor(np.array([2, -1, 0], np.float32))], [prim(True, "bool")]),
                        ok([tensor(np.array([-2, 1, 0], np.float32))], [prim(False, "bool")])],
                       ["WF-pure-4"],
                       "A PrimFunc that stores only into its own buffer is pure: called "
                       "directly, it may stand in a dataflow block (WF-pure-4)."))

    func_join = _module('''    @R.function(private=True)
    def dbl(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        b = R.add(a, a)
        return b

    @R.function(private=True)
    def neg(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        b = R.negative(a)
        return b

    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        if c:
            f = cls.dbl
        else:
            f = cls.neg
        y: R.Tensor((2,), "float32") = f(x)
        return y
''')
    x = _f32(rng, 2)
    cases.append(valid("join_of_functions_keeps_signature", func_join,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(x + x)]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(-x)])],
                       ["SI-join-1", "SI-call-fn-1"],
                       "Two functions of the same signature join to that signature, so the "
                       "call's result is deduced as (2,) float32."))
    branch_cast = _module('''    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        m = T.int64()
        if c:
            y1 = R.match_cast(x, R.Tensor((m,), "float32"))
            y2: R.Tensor((m,), "float32") = R.add(y1, y1)
            y = y2
        else:
            y = R.negative(x)
        z: R.Tensor(ndim=1, dtype="float32") = y
        return z
''')
    x = _f32(rng, 3)
    cases.append(valid("branch_match_cast_symbol_erased", branch_cast,
                       [ok([tensor(np.bool_(True)), tensor(x)], [tensor(x + x)]),
                        ok([tensor(np.bool_(False)), tensor(x)], [tensor(-x)])],
                       ["SI-erase-2", "SI-join-2", "SI-cast-1"],
                       "m is defined by a match_cast inside the then branch; the branch's "
                       "(m,) is erased to ndim 1 when it leaves the branch (SI-erase-2); joined "
                       "with the else branch's (n,) it is R.Tensor(ndim=1)."))

    local_rec = _module('''    @R.function
    def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
        @R.function
        def loop(y: R.Tensor((3,), "float32"), j: T.int64) -> R.Tensor((3,), "float32"):
            if j <= 0:
                r = y
            else:
                z = R.add(y, y)
                r = loop(z, R.prim_value(j - 1))
            return r
        w: R.Tensor((3,), "float32") = loop(x, R.prim_value(k))
        return w
''')
    x3 = np.array([0.5, -1.0, 3.0], "float32")
    cases.append(valid("local_function_recursion", local_rec,
                       [ok([tensor(x3), prim(k)], [tensor(x3 * np.float32(2 ** k))])
                        for k in (0, 3)],
                       ["SI-fn-local-1", "SI-call-fn-1", "SI-if-1"],
                       "A local function calls itself: its variable is in scope in its own "
                       "body with its signature's struct info (SI-fn-local-1). Output "
                       "x * 2**k."))

    leaves = _module('''    @R.function
    def main(x: R.Tensor((2,), "float32")):
        c: R.Tensor((2,), "float32") = R.const([1.0, 2.0], "float32")
        d: R.Tensor((), "int32") = R.const(3)
        s: R.Shape([2, 3]) = R.shape([2, 3])
        p: R.Prim("int64") = R.prim_value(5)
        o: R.Object = R.str("text")
        t: R.Tuple(R.Tensor((2,), "float32"), R.Shape([2, 3])) = (c, s)
        y: R.Tensor((2,), "float32") = R.add(x, c)
        return (y, d, t, p)
''')
    x = _f32(rng, 2)
    cases.append(valid("leaf_struct_info_deduced", leaves,
                       [ok([tensor(x)], [tensor(x + np.array([1, 2], "float32")),
                                         tensor(np.int32(3)), tensor(np.array([1, 2], "float32")),
                                         shape([2, 3]), prim(5)])],
                       ["SI-deduce-1", "SI-ann-2"],
                       "Leaves get their struct info from their values (SI-deduce-1): a "
                       "constant its shape and dtype, R.shape its shape, R.prim_value int64, "
                       "a string R.Object, a tuple its fields'. Each binding is annotated "
                       "exactly."))

    canon = _module('''    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        a: R.Tensor((n, 1), "float32") = R.sum(x, [1], True)
        b: R.Tensor((3,), "float32") = R.max(x, axis=0)
        d: R.Tensor((3, n), "float32") = R.permute_dims(x)
        return (a, b, d)
''')
    runs = []
    for n in (1, 4):
        x = _f32(rng, n, 3)
        runs.append(ok([tensor(x)], [tensor(x.sum(axis=1, keepdims=True)), tensor(x.max(axis=0)),
                                    tensor(x.T.copy())]))
    cases.append(valid("canonical_call_attributes_deduced", canon, runs,
                       ["SI-call-1", "SI-deduce-1", "SI-ann-2"],
                       "Attributes given by position (sum(x, [1], True)), by keyword, or left "
                       "to defaults (permute_dims reverses) are bound canonically before "
                       "deduction (SI-call-1)."))
    return cases


# ==============================================================================================
# Invalid: annotations, casts, calls, tuples, conditions, operators
# ==============================================================================================

F4 = 'R.Tensor((4,), "float32")'


def _main(params: str, body: str, ret: str = "", extra: str = "") -> str:
    arrow = f" -> {ret}" if ret else ""
    return _module(extra + f'''    @R.function
    def main({params}){arrow}:
{body}''')


def annotation_cases() -> list[Case]:
    c = []
    c.append(invalid("ann_contradicts_dtype", _main(f"x: {F4}", '''        y: R.Tensor((4,), "int32") = R.add(x, x)
        return y
'''), "SI-ann-1", ["SI-sub-2", "WF-sinfo-1"], "A binding annotated int32 where deduction "
        "gives float32 (reported under SI-ann-1 by WF-sinfo-1's re-normalization)."))
    c.append(invalid("ann_contradicts_static_shape", _main(f"x: {F4}", '''        y: R.Tensor((5,), "float32") = R.add(x, x)
        return y
'''), "SI-ann-1", ["SI-sub-2"], "A binding annotated (5,) where deduction gives (4,)."))
    c.append(invalid("ann_contradicts_ndim", _main(f"x: {F4}", '''        y: R.Tensor(ndim=2, dtype="float32") = R.add(x, x)
        return y
'''), "SI-ann-1", ["SI-sub-2"], "A binding annotated ndim=2 where deduction gives ndim 1."))
    c.append(invalid("ann_contradicts_kind", _main(f"x: {F4}", '''        y: R.Shape = R.add(x, x)
        return x
'''), "SI-ann-1", ["SI-sub-2"], "A tensor bound to a variable annotated R.Shape."))
    c.append(invalid("tensor_of_vector_dtype", _main('x: R.Tensor((4,), "float32x4")',
                                                     '''        return x
'''), "WF-dtype-1", [], "A parameter annotated as a tensor of float32x4: a Relax "
        "tensor's elements are scalars, so check reports it at the annotation."))
    c.append(invalid("ann_contradicts_tuple_length", _main(f"x: {F4}", '''        t: R.Tuple(R.Tensor, R.Tensor, R.Tensor) = R.split(x, 2)
        return x
'''), "SI-ann-1", ["SI-sub-2"], "A 2-tuple annotated as a 3-tuple."))
    c.append(invalid("ann_contradicts_symbolic_shape", _main('x: R.Tensor(("n",), "float32")', '''        n = T.int64()
        y: R.Tensor((n + 1,), "float32") = R.add(x, x)
        return x
'''), "SI-ann-1", ["SI-sub-2"], "(n + 1,) can never equal the deduced (n,)."))
    c.append(invalid("ann_contradicts_prim_dtype", _main(f"x: {F4}", '''        p: R.Prim("int32") = R.prim_value(1)
        return x
'''), "SI-ann-1", ["SI-sub-2"], "R.prim_value(1) is int64; annotated int32."))
    c.append(invalid("ann_contradicts_shape_values", _main(f"x: {F4}", '''        s: R.Shape([2, 4]) = R.shape([2, 3])
        return x
'''), "SI-ann-1", ["SI-sub-2"], "R.shape([2, 3]) annotated R.Shape([2, 4])."))
    c.append(invalid("ann_contradicts_in_dataflow", _main(f"x: {F4}", '''        with R.dataflow():
            y = R.add(x, x)
            z: R.Tensor((4,), "float16") = R.multiply(y, y)
            R.output(z)
        return z
'''), "SI-ann-1", ["SI-sub-2"], "A contradicting annotation inside a dataflow block."))
    c.append(invalid("return_annotation_contradicts_body", _main(f"x: {F4}", '''        y = R.add(x, x)
        return y
''', ret='R.Tensor((4,), "int32")'), "SI-ann-1", ["SI-sub-2"],
        "The function's return annotation (int32) contradicts its body (float32)."))
    c.append(invalid("ann_after_join_finer", _main('c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")', '''        n = T.int64()
        if c:
            y = R.concat((x, x), axis=0)
        else:
            y = x
        z: R.Tensor((n,), "float32") = y
        return z
'''), "SI-ann-2", ["SI-join-2"],
        "After the if, y joins (2n,) and (n,) to ndim 1; annotating z as (n,) is finer than "
        "deduction and needs R.match_cast (SI-ann-2)."))
    c.append(invalid("ann_finer_static_shape", _main('x: R.Tensor(ndim=1, dtype="float32")', '''        y: R.Tensor((4,), "float32") = R.add(x, x)
        return y
'''), "SI-ann-2", ["SI-sub-3"], "A (4,) annotation on a value deduced R.Tensor(ndim=1)."))
    c.append(invalid("ann_finer_dtype", _main('x: R.Tensor((4,))', '''        y: R.Tensor((4,), "float32") = R.add(x, x)
        return y
'''), "SI-ann-2", ["SI-sub-3"], "A float32 annotation on a value of unknown dtype."))
    c.append(invalid("ann_finer_than_object", _main("x: R.Object", '''        y: R.Tensor = x
        return y
'''), "SI-ann-2", ["SI-sub-3"], "An R.Tensor annotation on an R.Object value."))
    c.append(invalid("ann_finer_symbolic", _main('x: R.Tensor(("n",), "float32"), w: R.Tensor(ndim=1, dtype="float32")', '''        m = T.int64()
        v = R.match_cast(w, R.Tensor((m,), "float32"))
        y: R.Tensor((m,), "float32") = R.add(x, x)
        return y
'''), "SI-ann-2", ["SI-sub-3"],
        "(m,) on a value deduced (n,): m and n may or may not be equal, so it needs a "
        "match_cast."))
    c.append(invalid("ann_finer_after_erasure", _module('''    @R.function(private=True)
    def f(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        return v

    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        n = T.int64()
        cls = Module
        y: R.Tensor((n,), "int32") = cls.f(x)
        return y
'''), "SI-ann-2", ["SI-erase-1"],
        "f's result is erased to R.Tensor(ndim=1) for its callers (SI-erase-1), so the "
        "caller's (n,) annotation is finer than deduction."))
    c.append(malformed("parameter_without_annotation", _main("x", '''        return x
''', ret=F4), ["SYN-func-2", "SI-ann-3"],
        "A parameter without an annotation. The parser rejects it (SYN-func-2), so SI-ann-3 "
        "(normalization's check) is never reached from text; TVM's parser rejects it too."))
    c.append(malformed("nested_parameter_without_annotation", _main(f"x: {F4}", '''        @R.function
        def inner(y) -> R.Tensor((4,), "float32"):
            return y
        z = inner(x)
        return z
''', ret=F4), ["SYN-func-2", "SI-ann-3"],
        "A nested function's parameter without an annotation (SYN-func-2)."))
    return c


def cast_cases() -> list[Case]:
    c = []
    for name, src, target, desc in (
            ("match_cast_never_dtype", F4, 'R.Tensor((4,), "int32")', "float32 to int32"),
            ("match_cast_never_static_shape", F4, 'R.Tensor((5,), "float32")', "(4,) to (5,)"),
            ("match_cast_never_ndim", F4, 'R.Tensor(ndim=2, dtype="float32")', "ndim 1 to 2"),
            ("match_cast_never_kind", F4, "R.Shape(ndim=1)", "a tensor to R.Shape"),
            ("match_cast_never_prim", F4, 'R.Prim("int64")', "a tensor to R.Prim"),
            ("match_cast_never_symbolic", 'R.Tensor(("n",), "float32")',
             'R.Tensor((n + 1,), "float32")', "(n,) to (n + 1,)")):
        c.append(invalid(name, _main(f"x: {src}", f'''        n = T.int64()
        y = R.match_cast(x, {target})
        return x
''') if '"n"' in src else _main(f"x: {src}", f'''        y = R.match_cast(x, {target})
        return x
'''), "SI-cast-1", ["SI-sub-2"], f"A match_cast that can never succeed: {desc}."))
    c.append(invalid("match_cast_never_tuple_length", _main(f"x: {F4}", '''        t = (x, x)
        u = R.match_cast(t, R.Tuple(R.Tensor, R.Tensor, R.Tensor))
        return x
'''), "SI-cast-1", ["SI-sub-2"], "A 2-tuple cast to a 3-tuple."))
    return c


def call_cases() -> list[Case]:
    c = []
    two = '''    @R.function(private=True)
    def add2(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, b)
        return c

'''
    c.append(invalid("call_too_few_arguments", _main(f"x: {F4}", '''        cls = Module
        y = cls.add2(x)
        return y
''', extra=two), "WF-call-1", ["SI-call-fn-2"], "A call of a two-parameter function with one "
        "argument (arity is rule WF-call-1, which SI-call-fn-2 refers to)."))
    c.append(invalid("call_too_many_arguments", _main(f"x: {F4}", '''        cls = Module
        y = cls.add2(x, x, x)
        return y
''', extra=two), "WF-call-1", ["SI-call-fn-2"], "Three arguments for two parameters."))
    c.append(invalid("call_argument_static_shape", _main('x: R.Tensor((5,), "float32")', '''        cls = Module
        y = cls.add2(x, x)
        return y
''', extra=two), "SI-call-fn-2", ["SI-sub-2", "WF-sinfo-1"], "A (5,) argument for a (4,) parameter."))
    c.append(invalid("call_argument_dtype", _main('x: R.Tensor((4,), "int32")', '''        cls = Module
        y = cls.add2(x, x)
        return y
''', extra=two), "SI-call-fn-2", ["SI-sub-2"], "An int32 argument for a float32 parameter."))
    c.append(invalid("call_argument_kind", _main("s: R.Shape([4])", '''        cls = Module
        y = cls.add2(s, s)
        return y
''', extra=two), "SI-call-fn-2", ["SI-sub-2"], "An R.Shape argument for a tensor parameter."))
    same = '''    @R.function(private=True)
    def same(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        c = R.add(a, b)
        return c

'''
    c.append(invalid("call_symbol_bound_to_two_constants",
                     _main('x: R.Tensor((3,), "float32"), y: R.Tensor((4,), "float32")', '''        cls = Module
        z = cls.same(x, y)
        return z
''', extra=same), "SI-call-fn-2", ["SI-call-fn-3"],
        "k := 3 from the first argument, so the second parameter is (3,) and the (4,) "
        "argument can never match."))
    c.append(invalid("call_symbolic_argument_provably_different",
                     _main('x: R.Tensor(("n",), "float32")', '''        n = T.int64()
        cls = Module
        y = R.concat((x, R.const([1.0], "float32")), axis=0)
        z = cls.same(x, y)
        return z
''', extra=same), "SI-call-fn-2", ["SI-call-fn-3"],
        "k := n, and the second argument has shape (n + 1,): provably different."))
    c.append(invalid("call_local_function_arity", _main(f"x: {F4}", '''        @R.function
        def twice(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            z = R.add(y, y)
            return z
        w = twice(x, x)
        return w
'''), "WF-call-1", ["SI-call-fn-2"], "A local function called with too many arguments."))
    c.append(invalid("call_callable_parameter_arity",
                     _main(f'f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), x: {F4}', '''        y = f(x, x)
        return y
'''), "WF-call-1", ["SI-call-fn-2"], "An R.Callable parameter called with two arguments."))
    c.append(invalid("call_of_a_tensor", _main(f"x: {F4}", '''        y = x(x)
        return y
'''), "SI-call-fn-1", [], "Calling a tensor: its struct info is not a function."))
    return c


def tuple_and_if_cases() -> list[Case]:
    c = []
    c.append(invalid("tuple_index_out_of_range", _main(f"x: {F4}", '''        t = (x, x)
        y = t[2]
        return y
'''), "SI-tuple-1", [], "t[2] on a 2-tuple."))
    c.append(invalid("tuple_index_out_of_range_nested", _main(f"x: {F4}", '''        t = (x, (x,))
        u = t[1]
        y = u[1]
        return y
'''), "SI-tuple-1", [], "u[1] on a 1-tuple nested in a tuple."))
    c.append(invalid("tuple_index_of_parameter_out_of_range",
                     _main('t: R.Tuple(R.Tensor((4,), "float32"), R.Shape([2]))', '''        y = t[5]
        return y
'''), "SI-tuple-1", [], "t[5] on a parameter annotated as a 2-tuple."))
    c.append(invalid("tuple_index_of_tensor", _main(f"x: {F4}", '''        y = x[0]
        return y
'''), "SI-tuple-1", [], "x[0] on a tensor: only tuples are indexed."))
    if_tpl = '''        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
'''
    c.append(invalid("call_tir_output_size_differs_from_buffer", _module('''    @T.prim_func(private=True)
    def flatten(a: T.handle, b: T.handle):
        m, n = T.int64(), T.int64()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (m * n,), "float32")
        for i in T.serial(m * n):
            B[i] = A[i // n, i % n]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((5,), "float32"):
        cls = Module
        y = R.call_tir(cls.flatten, (x,), out_ty=R.Tensor((5,), "float32"))
        return y
'''), "WF-call-4", [], "out_ty (5,) for a buffer of m * n elements with m, n bound to "
                         "2, 3 by the argument: can never match."))
    for name, ann, desc in (
            ("if_condition_float_tensor", 'R.Tensor((), "float32")', "a float32 0-d tensor"),
            ("if_condition_bool_vector", 'R.Tensor((2,), "bool")', "a 1-d bool tensor"),
            ("if_condition_int_prim", 'R.Prim("int64")', "an int64 R.Prim"),
            ("if_condition_shape", "R.Shape([1])", "an R.Shape")):
        c.append(invalid(name, _main(f"c: {ann}, x: {F4}", if_tpl), "SI-if-1", [],
                         f"The condition of an if is {desc}, not a bool scalar."))
    return c


def op_cases() -> list[Case]:
    c = []

    def op(name, params, expr, rule, desc, covers=()):
        c.append(invalid(name, _main(params, f'''        y = {expr}
        return y
'''), rule, list(covers), desc))

    op("op_unknown", f"x: {F4}", "R.no_such_op(x)", "SI-op-unknown-1",
       "An op that does not exist is kept as a call and rejected by normalization.")
    op("op_broadcast_static_mismatch", f'x: {F4}, y: R.Tensor((5,), "float32")', "R.add(x, y)",
       "SI-broadcast-1", "(4,) + (5,) cannot broadcast.", ["relax.add"])
    op("op_broadcast_inner_mismatch",
       'x: R.Tensor(("n", 2), "float32"), y: R.Tensor(("n", 3), "float32")', "R.multiply(x, y)",
       "SI-broadcast-1", "(n, 2) * (n, 3): the static dimensions 2 and 3 cannot broadcast.",
       ["relax.multiply"])
    op("op_dtype_mismatch", f'x: {F4}, y: R.Tensor((4,), "int32")', "R.add(x, y)",
       "SI-op-dtype-1", "float32 + int32: operand dtypes must agree.", ["relax.add"])
    op("op_matmul_reduction_mismatch",
       'x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32")', "R.matmul(x, y)",
       "SI-linalg-matmul-4", "(2, 3) @ (4, 5): the reduction dimensions differ.",
       ["relax.matmul"])
    op("op_matmul_scalar_operand",
       'x: R.Tensor((), "float32"), y: R.Tensor((4, 5), "float32")', "R.matmul(x, y)",
       "SI-linalg-matmul-2", "A 0-d operand of matmul.", ["relax.matmul"])
    op("op_reshape_element_count", 'x: R.Tensor((2, 3), "float32")',
       "R.reshape(x, R.shape([4]))", "SI-manip-reshape-2",
       "reshape of 6 elements to (4,).", ["relax.reshape"])
    op("op_axis_out_of_range", 'x: R.Tensor((2, 3), "float32")', "R.nn.softmax(x, axis=2)",
       "SI-op-axis-1", "softmax on axis 2 of a 2-d tensor.", ["relax.nn.softmax"])
    op("op_sum_axis_out_of_range", 'x: R.Tensor((2, 3), "float32")', "R.sum(x, axis=[-3])",
       "SI-op-axis-1", "sum over axis -3 of a 2-d tensor.", ["relax.sum"])
    op("op_shape_operand_not_tensor", "s: R.Shape([4])", "R.add(s, s)", "SI-op-tensor-1",
       "R.add of two shapes.", ["relax.add"])
    op("op_float_op_on_integers", 'x: R.Tensor((4,), "int32")', "R.exp(x)", "SI-ew-unary-2",
       "exp of an int32 tensor.", ["relax.exp"])
    op("op_permute_dims_axes_length", 'x: R.Tensor((2, 3, 4), "float32")',
       "R.permute_dims(x, axes=[1, 0])", "SI-manip-permute-2",
       "permute_dims with two axes for a 3-d tensor.", ["relax.permute_dims"])
    op("op_concat_rank_mismatch", f'x: {F4}, y: R.Tensor((2, 2), "float32")',
       "R.concat((x, y), axis=0)", "SI-manip-concat-2",
       "concat of a 1-d and a 2-d tensor: the ndims must agree.", ["relax.concat"])
    return c


# ==============================================================================================
# Well-formedness (WF-*) from text
# ==============================================================================================

IMPURE_HELPERS = '''    @R.function(pure=False)
    def effect(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.print(x, format="{}")
        return x

    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                b[vi] = a[vi]

'''

IMPURE_LINES = {
    "print": 'R.print(a, format="{}")',
    "assert": 'R.assert_op(R.const(True), format="never")',
    "call_packed": 'p = R.call_packed("my_func", a, sinfo_args=R.Tensor((4,), "float32"))',
    "impure_function": "e = cls.effect(a)",
    "prim_func_direct": "cls.copy(a, a)",
}


def wf_cases() -> list[Case]:
    c = []
    for key, line in IMPURE_LINES.items():
        c.append(invalid(f"impure_{key}_in_dataflow", _module(IMPURE_HELPERS + f'''    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            a = R.add(x, x)
            {line}
            R.output(a)
        return a
'''), "WF-pure-1", [], f"An impure call ({key}) in a dataflow block."))
        c.append(invalid(f"impure_{key}_in_pure_function", _module(IMPURE_HELPERS + f'''    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        a = R.add(x, x)
        {line}
        return a
'''), "WF-pure-2", [], f"An impure call ({key}) in a pure function."))
    c.append(invalid("impure_call_in_branch_of_pure_function", _main(
        f'c: R.Tensor((), "bool"), x: {F4}', '''        if c:
            R.print(x, format="{}")
            y = R.add(x, x)
        else:
            y = x
        return y
''', ret=F4), "WF-pure-2", [], "R.print in an if branch of a pure function."))
    c.append(invalid("impure_callable_parameter_in_dataflow", _module('''    @R.function(pure=False)
    def main(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32"), False), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = f(x)
            R.output(y)
        return y
'''), "WF-pure-1", [], "Calling an impure R.Callable parameter in a dataflow block."))
    c.append(invalid("force_pure_on_impure_function", _module('''    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        R.print(x, format="{}")
        return x
'''), "WF-pure-3", [], "relax.force_pure set on a function declared pure=False."))
    c.append(invalid("if_inside_dataflow", _main(f'c: R.Tensor((), "bool"), x: {F4}', '''        with R.dataflow():
            if c:
                y = R.add(x, x)
            else:
                y = R.multiply(x, x)
            R.output(y)
        return y
''', ret=F4), "WF-dataflow-3", [], "An if inside a dataflow block."))
    c.append(invalid("dataflow_var_captured_by_nested_function", _main(f"x: {F4}", '''        with R.dataflow():
            a = R.add(x, x)
            @R.function
            def f(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                z = R.add(y, a)
                return z
            b = f(x)
            R.output(b)
        return b
''', ret=F4), "WF-dataflow-2", [],
        "A function defined in a dataflow block captures a DataflowVar of the block."))
    c.append(malformed("dataflow_var_used_after_block", _main(f"x: {F4}", '''        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            R.output(b)
        c = R.add(a, x)
        return c
''', ret=F4), ["SYN-relax-3", "SYN-name-1", "WF-dataflow-2"],
        "a is a DataflowVar not named in R.output, so after the block the name a is unknown: "
        "the parser rejects it (SYN-relax-3, SYN-name-1); in IR this is WF-dataflow-2. "
        "TVM's parser rejects it too (undefined variable)."))
    c.append(malformed("branch_var_used_after_if", _main(f'c: R.Tensor((), "bool"), x: {F4}', '''        if c:
            t = R.add(x, x)
            y = R.multiply(t, t)
        else:
            y = R.negative(x)
        z = R.add(y, t)
        return z
''', ret=F4), ["SYN-name-1", "WF-var-1"],
        "t is bound in a branch and unknown after the if: the parser rejects the name "
        "(SYN-name-1); in IR this is WF-var-1."))
    c.append(malformed("undefined_variable", _main(f"x: {F4}", '''        y = R.add(x, q)
        return y
''', ret=F4), ["SYN-name-1", "WF-var-1"], "An undefined variable q (SYN-name-1)."))
    c.append(malformed("undefined_symbolic_variable", _main(f"x: {F4}", '''        y: R.Tensor((k,), "float32") = R.add(x, x)
        return y
''', ret=F4), ["SYN-name-1", "WF-sym-1"],
        "A dimension k that no signature, declaration or TypeVar names (SYN-name-1)."))
    unique = '''        m = T.int64()
        with R.dataflow():
            u = R.unique(x, sorted=True)
            {before}
            v = R.match_cast(u, R.Tensor((m,), "int32"))
            w = R.add(v, v)
            R.output(w)
        return w
'''
    ux = 'x: R.Tensor(("n",), "int32")'
    ur = 'R.Tensor(ndim=1, dtype="int32")'
    c.append(invalid("symbol_in_shape_before_match_cast",
                     _main(ux, unique.format(before="s = R.shape([m, 2])"), ret=ur),
                     "WF-sym-1", [], "R.shape([m, 2]) before the match_cast that defines m."))
    c.append(invalid("symbol_in_prim_value_before_match_cast",
                     _main(ux, unique.format(before="k = R.prim_value(m + 1)"), ret=ur),
                     "WF-sym-1", [], "R.prim_value(m + 1) before the match_cast that defines m."))
    c.append(invalid("symbol_in_annotation_before_match_cast",
                     _main(ux, unique.format(before='e: R.Tensor((m,), "int32") = R.add(u, u)'),
                           ret=ur),
                     "WF-sym-1", [], "A binding annotation using m before the match_cast that "
                     "defines m."))
    c.append(invalid("symbol_in_call_tir_output_before_match_cast", _module('''    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, c: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m,), "int32")
        C = T.match_buffer(c, (m,), "int32")
        for i in T.serial(m):
            with T.sblock("c"):
                vi = T.axis.spatial(m, i)
                C[vi] = A[vi] * 2

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        m = T.int64()
        cls = Module
        with R.dataflow():
            u = R.unique(x, sorted=True)
            d = R.call_tir(cls.double, (u,), out_ty=R.Tensor((m,), "int32"))
            v = R.match_cast(d, R.Tensor((m,), "int32"))
            R.output(v)
        return v
'''), "WF-sym-1", [], "call_tir's out_ty uses m before the match_cast that defines it."))
    c.append(invalid("symbol_of_branch_used_after_if", _main(
        'c: R.Tensor((), "bool"), x: R.Tensor(ndim=1, dtype="float32")', '''        m = T.int64()
        if c:
            y1 = R.match_cast(x, R.Tensor((m,), "float32"))
            y = y1
        else:
            y = x
        s = R.shape([m])
        return s
''', ret="R.Shape(ndim=1)"), "WF-sym-1", [],
        "m is defined by a match_cast inside a branch and used after the if."))
    c.append(invalid("match_cast_target_symbol_only_in_expression", _main(
        'x: R.Tensor(ndim=1, dtype="float32")', '''        m = T.int64()
        y = R.match_cast(x, R.Tensor((m * 2,), "float32"))
        return y
''', ret='R.Tensor(ndim=1, dtype="float32")'), "WF-sym-1", [],
        "A match_cast target (m * 2,) where m is defined nowhere."))
    c.append(invalid("parameter_symbol_only_in_expression", _module('''    @R.function
    def main(x: R.Tensor((n * 2,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        y = R.add(x, x)
        return y
''', header='n = TypeVar("n")\n'), "WF-sym-2", [],
        "A parameter (n * 2,) where n appears bare in no parameter: no argument defines it."))
    c.append(invalid("tuple_parameter_symbol_only_in_expression", _module('''    @R.function
    def main(t: R.Tuple(R.Tensor((n - 1,), "float32"), R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
        y = t[1]
        return y
''', header='n = TypeVar("n")\n'), "WF-sym-2", [],
        "A tuple parameter whose field uses n only inside n - 1."))
    c.append(invalid("return_annotation_uses_match_cast_symbol", _module('''    @R.function
    def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor((m,), "float32"):
        m = T.int64()
        y = R.match_cast(x, R.Tensor((m,), "float32"))
        return y
''', header='m = TypeVar("m")\n'), "WF-sym-3", [],
        "A return annotation using m, which only the body's match_cast defines."))
    c.append(invalid("return_annotation_uses_undeclared_symbol", _module('''    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n + k,), "float32"):
        y = R.add(x, x)
        return y
''', header='n = TypeVar("n")\nk = TypeVar("k")\n'), "WF-sym-3", [],
        "A return annotation using k, which no parameter defines."))
    c.append(invalid("shape_of_floats", _main(f"x: {F4}", '''        s = R.shape([T.float32(1.5)])
        return s
''', ret="R.Shape(ndim=1)"), "WF-shape-1", [], "R.shape with a float value."))
    c.append(invalid("global_symbol_differs_from_name", _main(f"x: {F4}", '''        R.func_attr({"global_symbol": "entry"})
        return x
''', ret=F4), "WF-global-2", [], "global_symbol \"entry\" on the function main."))
    c.append(malformed("call_of_missing_module_function", _main(f"x: {F4}", '''        cls = Module
        y = cls.absent(x)
        return y
''', ret=F4), ["SYN-name-2", "WF-global-1"],
        "cls.absent names no function of the module: the parser rejects it (SYN-name-2); in "
        "IR this is WF-global-1."))
    c.append(invalid("call_tir_of_relax_function", _module('''    @R.function
    def double(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, a)
        return c

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
'''), "WF-call-2", [], "R.call_tir of a Relax function."))
    c.append(invalid("call_tir_output_not_a_tensor", _module('''    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Shape([4]))
        return y
'''), "SI-struct-dps-2", ["SI-struct-kind-1"],
        "The outputs of R.call_tir are tensors; a shape is an error."))
    call_tir = '''    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in T.serial(n):
            with T.sblock("c"):
                vi = T.axis.spatial(n, i)
                C[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")){ret}:
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.add_one, {args}, out_ty={out})
        return y
'''
    c.append(invalid("call_tir_missing_argument", _module(call_tir.format(
        args="()", out='R.Tensor((n,), "float32")', ret=' -> R.Tensor(("n",), "float32")')), "WF-call-3", [],
        "R.call_tir with no input for a PrimFunc of two parameters."))
    c.append(invalid("call_tir_extra_output", _module(call_tir.format(
        args="(x,)", out='[R.Tensor((n,), "float32"), R.Tensor((n,), "float32")]', ret="")),
        "WF-call-3", [], "R.call_tir with two outputs for a PrimFunc of two parameters."))
    c.append(invalid("call_tir_inplace_counts_new_outputs_only", _module('''    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("a"):
                vi = T.axis.spatial(4, i)
                a[vi] = a[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir_inplace(cls.inc, (x,), inplace_indices=[0, -1], out_ty=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
        return y
'''), "WF-call-3", [], "call_tir_inplace with a new output (-1) the PrimFunc has no "
        "parameter for."))
    # -- TIR ----------------------------------------------------------------------------------
    c.append(invalid("tir_block_uses_outer_loop_variable", _module('''    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.Buffer((8, 8), "float32"), b: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[i, vj]
'''), "WF-tir-4", [], "A block body reads the outer loop variable i instead of vi."))
    c.append(invalid("tir_binding_uses_own_iteration_variable", _module('''    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.Buffer((8, 8), "float32"), b: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(8, vi)
                b[vi, vj] = a[vi, vj]
'''), "WF-tir-3", [], "A block iteration variable bound to another of the same block."))
    c.append(invalid("tir_symbol_declared_not_defined", _module('''    @T.prim_func(private=True, s_tir=True)
    def scratch(a: T.Buffer((8,), "float32")):
        n = T.int64()
        t = T.alloc_buffer((n,), "float32")
        for i in T.serial(8):
            with T.sblock("a"):
                vi = T.axis.spatial(8, i)
                a[vi] = T.float32(0)
'''), "WF-tir-6", [], "n = T.int64() declares n, which no parameter defines."))
    c.append(invalid("tir_loop_extent_uses_undefined_symbol", _module('''    @T.prim_func(private=True)
    def fill(a: T.Buffer((8,), "float32")):
        m = T.int32()
        for i in T.serial(m):
            a[i] = T.float32(0)
'''), "WF-tir-6", [], "A loop extent m that no parameter defines."))
    c.append(malformed("tir_loop_variable_used_after_loop", _module('''    @T.prim_func(private=True)
    def two(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in T.serial(8):
            a[i] = T.float32(0)
        b[i] = a[0]
'''), ["SYN-name-1", "WF-tir-1"],
        "The loop variable i used after its loop: an unknown name to the parser "
        "(SYN-name-1); in IR this is WF-tir-1."))
    c.append(malformed("tir_block_buffer_used_after_block", _module('''    @T.prim_func(private=True, s_tir=True)
    def scratch(a: T.Buffer((8,), "float32")):
        for i in T.serial(8):
            with T.sblock("a"):
                vi = T.axis.spatial(8, i)
                t = T.sblock_alloc_buffer((1,), "float32")
                t[0] = T.float32(1)
                a[vi] = t[0]
        t[0] = T.float32(2)
'''), ["SYN-name-1", "WF-tir-2"],
        "A buffer allocated in a block used after the block: an unknown name (SYN-name-1); "
        "in IR this is WF-tir-2."))
    c.append(malformed("tir_wrong_number_of_indices", _module('''    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.Buffer((8, 8), "float32"), b: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vi]
'''), ["SYN-tir-9", "WF-tir-5"],
        "A load with one index from a 2-d buffer: the parser checks it (SYN-tir-9); in IR "
        "this is WF-tir-5."))
    return c


def cases() -> list[Case]:
    return (deduction_cases() + annotation_cases() + cast_cases() + call_cases()
            + tuple_and_if_cases() + op_cases() + wf_cases())
