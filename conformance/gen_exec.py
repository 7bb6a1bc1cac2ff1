"""The `exec` area: what a Relax program computes and which run-time checks it makes
(spec/semantics.md, EXEC-*).

The cases cover bindings and dataflow blocks, match_cast (binding new symbolic variables,
checking the others), tuples, shape and R.Prim values and symbolic expressions as values,
strings and dtypes, `if` on a bool tensor and on an R.Prim condition, recursion (with a
base case, and past the depth limit), local functions and closures, calls of functions
with symbolic signatures (binding order independence), return checks, call_tir in its
forms (static and symbolic outputs, R.Prim arguments and the earlier tir_vars, a tuple of
outputs, call_tir_inplace), explicit memory (storage and views, builtin.alloc_tensor,
kill, use after kill, views out of bounds, huge allocations), the destination-passing
form calling a PrimFunc directly, packed calls of the shipped `vm.builtin.*` functions,
R.print and R.assert_op. Each error kind of spec/semantics.md section 9 has a trap case
here or in the `tir` area. Symbolic cases run with two or three sizes.

Expected outputs come from NumPy formulas written next to each case, or by hand. Never
from relax_ref.

`python conformance/generate.py exec` writes conformance/exec/*.
"""
from __future__ import annotations

import textwrap

import numpy as np

from generate import Case, ok, prim, shape, tensor, trap, tuple_

AREA = "exec"


# -- building modules ---------------------------------------------------------------------------

def module(body: str, typevars: tuple[str, ...] = ()) -> str:
    """``body`` (the class body, written at column 0) inside ``class Module``."""
    lines = []
    if typevars:
        lines.append("# from typing import TypeVar")
    lines += ["# from tvm.script import ir as I", "# from tvm.script import relax as R",
              "# from tvm.script import tirx as T", ""]
    for v in typevars:
        lines.append(f'{v} = TypeVar("{v}")')
    lines += ["@I.ir_module", "class Module:",
              textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")]
    return "\n".join(lines) + "\n"


def case(name, text, runs, covers, description) -> Case:
    return Case(AREA, name, text, runs=runs, covers=covers, description=description)


def _rng(seed):
    return np.random.default_rng(seed)


def quarters(shape_, seed, lo=-2.0, hi=2.0) -> np.ndarray:
    """float32 multiples of 1/4: sums and products of a few are exact."""
    return (np.round(_rng(seed).uniform(lo, hi, size=shape_) * 4) / 4).astype(np.float32)


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def i32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int32)


def wrap64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def wrap32(v: int) -> int:
    v &= (1 << 32) - 1
    return v - (1 << 32) if v >= 1 << 31 else v


# PrimFuncs shared by several cases (TVM 0.27 dialect).
ADD_ONE_4 = '''
@T.prim_func(private=True, s_tir=True)
def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
'''

COPY_N = '''
@T.prim_func(private=True, s_tir=True)
def copy(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i]
'''

SCALE_N = '''
@T.prim_func(private=True, s_tir=True)
def scale(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i] * T.float32(3)
'''


# ==================================================================================================
# Bindings, dataflow blocks, variables, tuples
# ==================================================================================================

def binding_cases() -> list[Case]:
    cases = []
    x, y = quarters((3, 4), 1), quarters((3, 4), 2)

    text = module('''
@R.function
def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
    a = R.add(x, y)
    b = R.multiply(a, x)
    c = R.subtract(b, y)
    return c
''')
    cases.append(case(
        "binding_sequence", text,
        [ok([tensor(x), tensor(y)], [tensor((x + y) * x - y)])],
        ["EXEC-bind-1", "EXEC-var-1", "EXEC-op-1", "relax.add", "relax.multiply",
         "relax.subtract"],
        "Three bindings in order, each using earlier variables: (x + y) * x - y (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
    n = T.int64()
    a: R.Tensor((n, 4), "float32") = R.add(x, x)
    b: R.Tensor((n, 4), "float32") = R.multiply(a, x)
    c: R.Tensor((n, 4), "float32") = R.subtract(b, x)
    d: R.Tensor(ndim=2, dtype="float32") = c
    return d
''')
    runs = []
    for n in (1, 2, 5):
        v = quarters((n, 4), 3 + n)
        runs.append(ok([tensor(v)], [tensor((v + v) * v - v)]))
    cases.append(case(
        "annotated_bindings_symbolic", text, runs,
        ["EXEC-bind-1", "EXEC-sinfo-2", "EXEC-call-3", "EXEC-call-4", "SI-ann-1"],
        "Bindings annotated with their struct info (one coarser), checked against every "
        "value, for n = 1, 2, 5: (x + x) * x - x (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        lv0 = R.exp(x)
        lv1 = R.add(lv0, x)
        gv = R.multiply(lv1, R.const(2.0, "float32"))
        R.output(gv)
    return gv
''')
    v = quarters((2, 3), 7)
    cases.append(case(
        "dataflow_block", text,
        [ok([tensor(v)], [tensor(((np.exp(v.astype(np.float64)) + v) * 2).astype(np.float32))])],
        ["EXEC-bind-1", "EXEC-var-1", "relax.exp"],
        "A dataflow block runs its bindings in order and R.output makes gv visible: "
        "(exp(x) + x) * 2 (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a)
    b = R.multiply(a, a)
    with R.dataflow():
        c = R.subtract(b, x)
        d = R.negative(c)
        R.output(d)
    return d
''')
    v = f32([1, -2, 0.5])
    cases.append(case(
        "dataflow_blocks_around_a_binding_block", text,
        [ok([tensor(v)], [tensor(-((v + v) * (v + v) - v))])],
        ["EXEC-bind-1", "EXEC-var-1", "relax.negative"],
        "Two dataflow blocks with an ordinary binding between them: -((2x)^2 - x) (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.add(x, x)
    y = R.multiply(y, y)
    x = R.subtract(y, x)
    return x
''')
    v = f32([1, 2, -3])
    cases.append(case(
        "rebinding_a_name", text,
        [ok([tensor(v)], [tensor((v + v) * (v + v) - v)])],
        ["EXEC-var-1", "EXEC-bind-1"],
        "Assigning a name again binds a new variable; each use sees the latest binding "
        "before it: (2x)^2 - x (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor((2, 2), "int32")):
    c = R.const([[1, 2], [3, 4]], "int32")
    d = R.add(x, c)
    e = R.multiply(d, R.const(3, "int32"))
    return e
''')
    v = i32([[10, 20], [30, 40]])
    cases.append(case(
        "constants", text,
        [ok([tensor(v)], [tensor((v + i32([[1, 2], [3, 4]])) * 3)])],
        ["EXEC-var-1", "EXEC-op-1"],
        "R.const tensors (a 2x2 and a scalar) evaluate to their data: (x + c) * 3 (NumPy)."))

    # Tuples
    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
    t = (x, y)
    a = t[0]
    b = t[1]
    c = R.add(a, b)
    return (c, t)
''')
    a, b = f32([1, 2, 3]), f32([10, 20, 30])
    cases.append(case(
        "tuple_construct_and_get_item", text,
        [ok([tensor(a), tensor(b)], [tensor(a + b), tensor(a), tensor(b)])],
        ["EXEC-tuple-1", "EXEC-var-1"],
        "A tuple is built, its fields taken with t[0] and t[1]; the result (c, (x, y)) is "
        "flattened depth-first: x + y, x, y."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
    t = ((x, y), (y,), x)
    u = t[0]
    v = u[1]
    w = t[1]
    z = w[0]
    s = R.add(v, z)
    return (s, t)
''')
    a, b = f32([1, 2]), f32([5, 7])
    cases.append(case(
        "tuple_nested", text,
        [ok([tensor(a), tensor(b)], [tensor(b + b), tensor(a), tensor(b), tensor(b),
                                     tensor(a)])],
        ["EXEC-tuple-1"],
        "Nested tuples: t[0][1] + t[1][0] = 2y, and t itself flattened depth-first "
        "(x, y, y, x)."))

    text = module('''
@R.function
def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "int32"))):
    a = t[1]
    b = t[0]
    return (a, b)
''')
    cases.append(case(
        "tuple_parameter", text,
        [ok([tuple_(tensor(f32([1, 2])), tensor(i32([3, 4, 5])))],
            [tensor(i32([3, 4, 5])), tensor(f32([1, 2]))]),
         trap([tuple_(tensor(f32([1, 2])), tensor(i32([3, 4])))], "signature")],
        ["EXEC-tuple-1", "EXEC-call-3", "EXEC-sinfo-2"],
        "A tuple argument is checked field by field (a 2-element second field fails the "
        "signature check) and its fields are swapped."))

    text = module('''
@R.function
def main(t: R.Object):
    a = t[1]
    return a
''')
    cases.append(case(
        "tuple_get_item_on_object_checked", text,
        [ok([tuple_(tensor(f32([1])), tensor(f32([2, 3])))], [tensor(f32([2, 3]))]),
         trap([tuple_(tensor(f32([1])))], "struct_info")],
        ["EXEC-tuple-1"],
        "t[1] on an R.Object parameter is checked at run time: fine on a 2-tuple, a "
        "struct_info trap on a 1-tuple."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tuple:
    t = ()
    return t
''')
    cases.append(case(
        "empty_tuple", text,
        [ok([tensor(f32([1, 2]))], [])],
        ["EXEC-tuple-1", "EXEC-call-4"],
        "A function returning the empty tuple has no outputs."))
    return cases


# ==================================================================================================
# match_cast
# ==================================================================================================

def match_cast_cases() -> list[Case]:
    cases = []

    text = module('''
@R.function
def main(x: R.Tensor(ndim=2, dtype="float32")):
    n = T.int64()
    m = T.int64()
    y = R.match_cast(x, R.Tensor((n, m), "float32"))
    z = R.add(y, y)
    return (z, R.shape([m, n]), R.prim_value(n * m + 1))
''')
    runs = []
    for n, m in ((1, 1), (2, 3), (4, 2)):
        v = quarters((n, m), 10 + n + m)
        runs.append(ok([tensor(v)], [tensor(v + v), shape([m, n]), prim(n * m + 1)]))
    cases.append(case(
        "match_cast_binds_new_variables", text, runs,
        ["EXEC-match-cast-1", "EXEC-sym-1", "EXEC-sym-2", "SI-def-1"],
        "match_cast to (n, m) binds n and m from the value; they are then used as values: "
        "x + x, R.shape([m, n]) and R.prim_value(n * m + 1), for three shapes."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    z = R.match_cast(y, R.Tensor((n,), "float32"))
    w = R.add(x, z)
    return w
''')
    cases.append(case(
        "match_cast_checks_bound_variable", text,
        [ok([tensor(f32([1, 2, 3])), tensor(f32([4, 5, 6]))], [tensor(f32([5, 7, 9]))]),
         ok([tensor(f32([1])), tensor(f32([2]))], [tensor(f32([3]))]),
         trap([tensor(f32([1, 2, 3])), tensor(f32([4, 5, 6, 7]))], "match_cast")],
        ["EXEC-match-cast-1", "EXEC-call-3"],
        "n is bound by the signature, so match_cast(y, (n,)) checks y's length against it: "
        "x + y when the lengths agree, a match_cast trap for lengths 3 and 4."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    z = R.match_cast(y, R.Tensor((n * 2,), "float32"))
    return z
''')
    cases.append(case(
        "match_cast_expression_dimension", text,
        [ok([tensor(f32([1, 2])), tensor(f32([1, 2, 3, 4]))], [tensor(f32([1, 2, 3, 4]))]),
         ok([tensor(f32([1, 2, 3])), tensor(f32([0] * 6))], [tensor(f32([0] * 6))]),
         trap([tensor(f32([1, 2])), tensor(f32([1, 2, 3]))], "match_cast")],
        ["EXEC-match-cast-1"],
        "A dimension written n * 2 is evaluated and checked: 4 elements for n = 2 pass, 3 "
        "elements trap (match_cast)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,))):
    y = R.match_cast(x, R.Tensor((4,), "float32"))
    z = R.add(y, R.const(1.0, "float32"))
    return z
''')
    cases.append(case(
        "match_cast_dtype", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5]))]),
         trap([tensor(i32([1, 2, 3, 4]))], "match_cast")],
        ["EXEC-match-cast-1"],
        "A tensor of unknown dtype cast to float32: a float32 value passes (x + 1), an "
        "int32 one traps (match_cast)."))

    text = module('''
@R.function
def main(x: R.Tensor(dtype="float32")):
    a = T.int64()
    b = T.int64()
    y = R.match_cast(x, R.Tensor((a, b), "float32"))
    return R.shape([a, b])
''')
    cases.append(case(
        "match_cast_ndim", text,
        [ok([tensor(np.zeros((2, 5), np.float32))], [shape([2, 5])]),
         ok([tensor(np.zeros((0, 3), np.float32))], [shape([0, 3])]),
         trap([tensor(np.zeros((2, 3, 4), np.float32))], "match_cast")],
        ["EXEC-match-cast-1"],
        "A tensor of unknown rank cast to (a, b): 2-d values bind a and b (also a 0 x 3 "
        "one), a 3-d value traps (match_cast)."))

    text = module('''
@R.function
def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((3, 4), "float32"):
    with R.dataflow():
        y = R.match_cast(x, R.Tensor((3, 4), "float32"))
        z = R.multiply(y, y)
        R.output(z)
    return z
''')
    v = quarters((3, 4), 12)
    cases.append(case(
        "match_cast_static_shape", text,
        [ok([tensor(v)], [tensor(v * v)]),
         trap([tensor(quarters((4, 3), 13))], "match_cast")],
        ["EXEC-match-cast-1"],
        "match_cast to a static (3, 4) inside a dataflow block: (3, 4) passes (x * x), "
        "(4, 3) traps (match_cast)."))

    text = module('''
@R.function
def main(x: R.Tensor(ndim=2, dtype="float32")):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n, n), "float32"))
    z = R.add(y, y)
    return (z, R.prim_value(n))
''')
    v = quarters((3, 3), 14)
    cases.append(case(
        "match_cast_repeated_variable", text,
        [ok([tensor(v)], [tensor(v + v), prim(3)]),
         trap([tensor(quarters((3, 2), 15))], "match_cast")],
        ["EXEC-match-cast-1"],
        "match_cast to (n, n): the first dimension binds n, the second is checked against "
        "it; a square matrix passes, a 3 x 2 one traps."))

    text = module('''
@R.function
def main(s: R.Shape(ndim=2)):
    a = T.int64()
    b = T.int64()
    t = R.match_cast(s, R.Shape([a, b]))
    return (R.prim_value(a * b), R.shape([b, a, a + b]))
''')
    cases.append(case(
        "match_cast_shape_value", text,
        [ok([shape([2, 3])], [prim(6), shape([3, 2, 5])]),
         ok([shape([7, 1])], [prim(7), shape([1, 7, 8])])],
        ["EXEC-match-cast-1", "EXEC-sym-1", "EXEC-sym-2"],
        "match_cast of an R.Shape value binds its dimensions: a * b and [b, a, a + b]."))

    text = module('''
@R.function
def main(s: R.Shape(ndim=2)):
    a = T.int64()
    t = R.match_cast(s, R.Shape([a, a]))
    return R.prim_value(a)
''')
    cases.append(case(
        "match_cast_shape_value_checks", text,
        [ok([shape([4, 4])], [prim(4)]), trap([shape([4, 5])], "match_cast")],
        ["EXEC-match-cast-1"],
        "match_cast(s, R.Shape([a, a])) passes for [4, 4] and traps for [4, 5]."))

    text = module('''
@R.function
def main(t: R.Tuple(R.Tensor(ndim=1, dtype="float32"), R.Tensor(ndim=1, dtype="float32"))):
    n = T.int64()
    u = R.match_cast(t, R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")))
    a = u[0]
    b = u[1]
    c = R.add(a, b)
    return c
''')
    cases.append(case(
        "match_cast_tuple", text,
        [ok([tuple_(tensor(f32([1, 2])), tensor(f32([3, 4])))], [tensor(f32([4, 6]))]),
         trap([tuple_(tensor(f32([1, 2])), tensor(f32([3, 4, 5])))], "match_cast")],
        ["EXEC-match-cast-1", "EXEC-tuple-1"],
        "match_cast of a tuple to two fields of the same length n: the first field binds n, "
        "the second is checked (lengths 2 and 3 trap)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
    m = T.int64()
    with R.dataflow():
        u = R.unique(x, sorted=True)
        v = R.match_cast(u, R.Tensor((m,), "int32"))
        w = R.add(v, v)
        R.output(w)
    return w
''')
    runs = []
    for vals in ([3, 1, 3, 2, 1], [5, 5, 5], [4, -1, 0, 4]):
        v = i32(vals)
        runs.append(ok([tensor(v)], [tensor(np.unique(v) * 2)]))
    cases.append(case(
        "match_cast_data_dependent_shape", text, runs,
        ["EXEC-match-cast-1", "relax.unique"],
        "R.unique has a data-dependent length; match_cast names it m and the program goes "
        "on: 2 * np.unique(x)."))
    return cases


# ==================================================================================================
# Shapes, R.Prim values, strings
# ==================================================================================================

def value_cases() -> list[Case]:
    cases = []

    text = module('''
@R.function
def main(s: R.Shape([a, b])):
    return R.shape([a * b, a + b, b, a // 2])
''', typevars=("a", "b"))
    runs = [ok([shape([a, b])], [shape([a * b, a + b, b, a // 2])])
            for a, b in ((2, 3), (5, 1), (0, 4))]
    cases.append(case(
        "shape_parameter_and_expression", text, runs,
        ["EXEC-sym-1", "EXEC-call-3"],
        "An R.Shape([a, b]) parameter binds a and b; R.shape([a * b, a + b, b, a // 2]) "
        "evaluates each dimension (three argument shapes)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()
    s = R.shape_of(x)
    return (s, R.shape([m, n]))
''')
    runs = [ok([tensor(np.zeros((n, m), np.float32))], [shape([n, m]), shape([m, n])])
            for n, m in ((2, 3), (1, 1), (4, 0))]
    cases.append(case(
        "shape_of_tensor", text, runs,
        ["EXEC-sym-1", "relax.shape_of"],
        "R.shape_of(x) is the shape value [n, m]; R.shape([m, n]) builds another."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    s = R.shape([n - 3])
    return s
''')
    cases.append(case(
        "shape_negative_dimension_traps", text,
        [ok([tensor(np.zeros(5, np.float32))], [shape([2])]),
         ok([tensor(np.zeros(3, np.float32))], [shape([0])]),
         trap([tensor(np.zeros(2, np.float32))], "shape_mismatch")],
        ["EXEC-sym-1"],
        "R.shape([n - 3]) is [2] for n = 5 and [0] for n = 3; for n = 2 the dimension is "
        "-1, an error (shape_mismatch)."))

    text = module('''
@R.function
def main(k: T.int64, m: T.int64):
    return (R.prim_value(k * m + 1), R.prim_value(k // m), R.prim_value(k % m), R.prim_value(k - m))
''')
    runs = []
    for k, m in ((7, 2), (-7, 2), (7, -2), (0, 5)):
        runs.append(ok([prim(k), prim(m)], [prim(k * m + 1), prim(k // m), prim(k % m),
                                            prim(k - m)]))
    cases.append(case(
        "prim_parameters_arithmetic", text, runs,
        ["EXEC-sym-2", "EXEC-call-3", "SYN-sinfo-4"],
        "`k: T.int64` parameters hold their values; symbolic expressions of them become "
        "values with R.prim_value: k*m + 1, k // m and k % m (floor division and modulo, "
        "Python's // and %), k - m."))

    text = module('''
@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()
    return (R.prim_value(n * m), R.prim_value(n - m))
''')
    runs = [ok([tensor(np.zeros((n, m), np.float32))], [prim(n * m), prim(n - m)])
            for n, m in ((2, 3), (5, 1), (3, 3))]
    cases.append(case(
        "prim_value_from_shape_variables", text, runs,
        ["EXEC-sym-2"],
        "Symbolic dimensions used as R.Prim values: n * m and n - m (negative for 2 x 3)."))

    text = module('''
@R.function
def main(k: T.int64) -> R.Prim("int64"):
    return R.prim_value(k * k)
''')
    runs = [ok([prim(k)], [prim(wrap64(k * k))]) for k in (3, 3037000500, 2**32)]
    cases.append(case(
        "prim_value_int64_wraps", text, runs,
        ["EXEC-sym-2"],
        "R.prim_value(k * k) wraps to int64: 3037000500^2 = 9223372037000250000 wraps "
        "negative, 2^64 wraps to 0 (Python ints wrapped by hand)."))

    text = module('''
@R.function
def main(k: T.int32) -> R.Prim("int32"):
    return R.prim_value(k * k + 1)
''')
    runs = [ok([prim(k, "int32")], [prim(wrap32(k * k + 1), "int32")]) for k in (3, 65536, 46341)]
    cases.append(case(
        "prim_value_int32_wraps", text, runs,
        ["EXEC-sym-2"],
        "An int32 parameter: k * k + 1 wraps to 32 bits (65536^2 + 1 = 1, 46341^2 + 1 "
        "wraps negative)."))

    text = module('''
@R.function
def main(k: T.int64):
    return R.prim_value(k * k)
''')
    runs = [ok([prim(k)], [prim(wrap64(k * k))]) for k in (3, 3037000500)]
    cases.append(case(
        "prim_value_wraps_without_return_annotation", text, runs,
        ["EXEC-sym-2", "EXEC-call-4"],
        "The same wrapping R.prim_value(k * k) in a function without a return annotation: "
        "its deduced result R.Prim(value=k * k) must describe the wrapped value it "
        "returns (EXEC-sym-2), not trap its own return check."))

    text = module('''
@R.function
def main(p: R.Prim("float32"), b: R.Prim("bool"), k: T.int64):
    c = R.prim_value(k > 3)
    return (p, b, c)
''')
    cases.append(case(
        "prim_float_and_bool_values", text,
        [ok([prim(2.5, "float32"), prim(True, "bool"), prim(5)],
            [prim(2.5, "float32"), prim(True, "bool"), prim(True, "bool")]),
         ok([prim(-0.25, "float32"), prim(False, "bool"), prim(3)],
            [prim(-0.25, "float32"), prim(False, "bool"), prim(False, "bool")])],
        ["EXEC-sym-2", "EXEC-call-3"],
        "float32 and bool R.Prim arguments pass through; R.prim_value(k > 3) is a bool."))

    text = module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32"), s: R.Object):
    t = R.str("hello")
    R.print(s, t, format="{} {}")
    return x
''')
    cases.append(case(
        "string_values", text,
        [ok([tensor(f32([1, 2, 3])), _string("tag")],
            [tensor(f32([1, 2, 3]))])],
        ["EXEC-var-1", "SI-struct-void-1", "relax.print"],
        "A string argument (R.Object) and an R.str value are values like any other: "
        "printed, and x returned unchanged."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
    cls.add_one(x, out)
    return out
''' + ADD_ONE_4)
    cases.append(case(
        "dtype_and_string_as_arguments", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5]))])],
        ["EXEC-mem-alloc-1", "EXEC-tir-call-1", "relax.builtin.alloc_tensor"],
        "R.dtype(\"float32\") and R.str(\"global\") values given to "
        "R.builtin.alloc_tensor, then filled by a PrimFunc: x + 1."))
    return cases


def _string(s):
    from generate import Value

    return Value("string", s)


# ==================================================================================================
# if
# ==================================================================================================

def if_cases() -> list[Case]:
    cases = []

    text = module('''
@R.function(private=True)
def double(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    return R.add(x, x)

@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    cls = Module
    if c:
        y = cls.double(x)
    else:
        y = R.negative(x)
    return y
''')
    runs = []
    for c, n in ((True, 3), (False, 3), (True, 1), (False, 5)):
        v = quarters(n, 20 + n)
        runs.append(ok([tensor(np.array(c)), tensor(v)], [tensor(v + v if c else -v)]))
    cases.append(case(
        "if_bool_tensor_condition", text, runs,
        ["EXEC-if-1", "EXEC-call-3"],
        "if on a 0-d bool tensor: the true branch doubles x (through a module function), "
        "the false branch negates it; several lengths."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
    if k > 0:
        y = R.multiply(x, R.const(2.0, "float32"))
    else:
        y = R.subtract(x, R.const(1.0, "float32"))
    return y
''')
    v = f32([1, -2, 0.5])
    cases.append(case(
        "if_prim_condition", text,
        [ok([tensor(v), prim(3)], [tensor(v * 2)]), ok([tensor(v), prim(0)], [tensor(v - 1)]),
         ok([tensor(v), prim(-5)], [tensor(v - 1)])],
        ["EXEC-if-1", "EXEC-sym-2"],
        "if k > 0 on an R.Prim parameter: 2x for k = 3, x - 1 for k = 0 and k = -5."))

    text = module('''
@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
    if c:
        y = x
    else:
        z = R.match_cast(x, R.Tensor((99,), "float32"))
        y = R.add(z, z)
    return y
''')
    v = f32([1, 2, 3])
    cases.append(case(
        "if_evaluates_only_the_branch_taken", text,
        [ok([tensor(np.array(True)), tensor(v)], [tensor(v)]),
         trap([tensor(np.array(False)), tensor(v)], "match_cast")],
        ["EXEC-if-1", "EXEC-match-cast-1"],
        "The false branch holds a match_cast that fails for a 3-element x: with c true it "
        "is never evaluated and x is returned; with c false it traps (match_cast)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
    if k > 0:
        if k > 10:
            z = R.multiply(x, R.const(100.0, "float32"))
        else:
            z = R.multiply(x, R.const(10.0, "float32"))
        y = z
    else:
        y = R.negative(x)
    return y
''')
    v = f32([1, 2])
    cases.append(case(
        "if_nested", text,
        [ok([tensor(v), prim(20)], [tensor(v * 100)]), ok([tensor(v), prim(5)], [tensor(v * 10)]),
         ok([tensor(v), prim(0)], [tensor(-v)])],
        ["EXEC-if-1"],
        "Nested ifs pick one of three results: 100x (k > 10), 10x (0 < k <= 10), -x."))

    text = module('''
@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")):
    if c:
        t = (x, R.prim_value(1))
    else:
        t = (R.negative(x), R.prim_value(0))
    return t
''')
    v = f32([3, 4])
    cases.append(case(
        "if_tuple_result", text,
        [ok([tensor(np.array(True)), tensor(v)], [tensor(v), prim(1)]),
         ok([tensor(np.array(False)), tensor(v)], [tensor(-v), prim(0)])],
        ["EXEC-if-1", "EXEC-tuple-1"],
        "Each branch binds a tuple; the if's value is the branch's tuple."))

    text = module('''
@R.function
def main(c: R.Tensor(dtype="bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = x
    else:
        y = R.negative(x)
    return y
''')
    v = f32([3, 4])
    cases.append(case(
        "if_condition_not_a_scalar_traps", text,
        [ok([tensor(np.array(False)), tensor(v)], [tensor(-v)]),
         trap([tensor(np.array([True, False])), tensor(v)], "struct_info")],
        ["EXEC-if-1"],
        "A condition of unknown rank is checked when the if runs: a 0-d bool works, a "
        "1-d bool tensor is a struct_info trap."))
    return cases


# ==================================================================================================
# Functions: calls, signatures, returns, recursion, closures
# ==================================================================================================

RECURSION = '''
@R.function
def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
    cls = Module
    if k <= 0:
        r = x
    else:
        y = R.add(x, R.const(1.0, "float32"))
        r = cls.main(y, R.prim_value(k - 1))
    return r
'''


def function_cases() -> list[Case]:
    cases = []
    v = f32([0, 1, 2])

    cases.append(case(
        "recursion_with_base_case", module(RECURSION),
        [ok([tensor(v), prim(k)], [tensor(v + k)]) for k in (0, 3, 50)],
        ["EXEC-call-1", "EXEC-call-3", "EXEC-if-1"],
        "main calls itself with k - 1 until k <= 0, adding 1 each time: x + k for k = 0, "
        "3, 50."))

    cases.append(case(
        "recursion_depth_150", module(RECURSION),
        [ok([tensor(v), prim(150)], [tensor(v + 150)])],
        ["EXEC-limit-2", "EXEC-call-1"],
        "151 nested calls stay within the call-depth limit (200): x + 150."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
    cls = Module
    if k < 0:
        r = x
    else:
        r = cls.main(x, R.prim_value(k + 1))
    return r
''')
    cases.append(case(
        "recursion_unbounded_resource", text,
        [trap([tensor(v), prim(0)], "resource")],
        ["EXEC-limit-2"],
        "The base case k < 0 is never reached as k grows: past the call-depth limit the "
        "run stops with a resource error (never a host stack overflow)."))

    text = module('''
@R.function
def is_even(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
    cls = Module
    if k == 0:
        r = x
    else:
        r = cls.is_odd(x, R.prim_value(k - 1))
    return r

@R.function
def is_odd(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
    cls = Module
    if k == 0:
        r = R.negative(x)
    else:
        r = cls.is_even(x, R.prim_value(k - 1))
    return r

@R.function
def main(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
    cls = Module
    r = cls.is_even(x, k)
    return r
''')
    v2 = f32([1, -2])
    cases.append(case(
        "mutual_recursion", text,
        [ok([tensor(v2), prim(k)], [tensor(v2 if k % 2 == 0 else -v2)]) for k in (0, 7, 10)],
        ["EXEC-call-1", "EXEC-call-3"],
        "is_even and is_odd call each other, counting k down: x for even k, -x for odd."))

    text = module('''
@R.function(private=True)
def helper(x: R.Tensor((n, 4), "float32"), y: R.Tensor((n * 2,), "float32")):
    s = R.sum(x, axis=[1])
    return (R.prim_value(n), R.add(y, y), s)

@R.function(private=True)
def helper_reversed(y: R.Tensor((n * 2,), "float32"), x: R.Tensor((n, 4), "float32")):
    return R.prim_value(n * 10)

@R.function
def main(x: R.Tensor((a, 4), "float32"), y: R.Tensor((b,), "float32")):
    cls = Module
    r = cls.helper(x, y)
    q = cls.helper_reversed(y, x)
    return (r, q)
''', typevars=("n", "a", "b"))
    runs = []
    for n in (1, 3):
        xv, yv = quarters((n, 4), 30 + n), quarters(2 * n, 40 + n)
        runs.append(ok([tensor(xv), tensor(yv)], [prim(n), tensor(yv + yv), tensor(xv.sum(axis=1)),
                                                  prim(10 * n)]))
    runs.append(trap([tensor(quarters((3, 4), 33)), tensor(quarters(5, 34))], "signature"))
    cases.append(case(
        "call_symbolic_signature", text, runs,
        ["EXEC-call-3", "EXEC-sinfo-2", "SI-call-fn-3", "relax.sum"],
        "helper(x: (n, 4), y: (n * 2,)) called with (a, 4) and (b,): n binds from x and y "
        "must have 2n elements; helper_reversed takes the same parameters in the other "
        "order (n is used before the parameter that defines it). For a = 3, b = 5 the call "
        "fails its signature check."))

    text = module('''
@R.function
def main(y: R.Tensor(("n * 2",), "float32"), x: R.Tensor(("n", 4), "float32")):
    n = T.int64()
    return (R.prim_value(n), R.add(y, y))
''')
    runs = []
    for n in (1, 2, 4):
        runs.append(ok([tensor(f32(np.arange(2 * n))), tensor(np.zeros((n, 4), np.float32))],
                       [prim(n), tensor(f32(np.arange(2 * n)) * 2)]))
    runs.append(trap([tensor(f32(np.arange(5))), tensor(np.zeros((2, 4), np.float32))], "signature"))
    runs.append(trap([tensor(f32(np.arange(4))), tensor(np.zeros((2, 3), np.float32))], "signature"))
    cases.append(case(
        "signature_binding_order_independent", text, runs,
        ["EXEC-call-3", "SI-def-1"],
        "y: (n * 2,) comes before x: (n, 4), which defines n: binding happens first, then "
        "every check, so the order of parameters does not matter. 5 elements for n = 2 "
        "and a (2, 3) x both fail (signature)."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    return x
''')
    cases.append(case(
        "signature_static_checks", text,
        [ok([tensor(f32([1, 2, 3]))], [tensor(f32([1, 2, 3]))]),
         trap([tensor(i32([1, 2, 3]))], "signature"),
         trap([tensor(f32([1, 2, 3, 4]))], "signature"),
         trap([tensor(np.zeros((3, 1), np.float32))], "signature"),
         trap([prim(3)], "signature")],
        ["EXEC-call-3", "EXEC-sinfo-2"],
        "x: (3,) float32 rejects an int32 tensor, 4 elements, a (3, 1) tensor and an "
        "R.Prim (signature)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
    return R.add(x, y)
''')
    cases.append(case(
        "signature_argument_count", text,
        [ok([tensor(f32([1, 2])), tensor(f32([3, 4]))], [tensor(f32([4, 6]))]),
         trap([tensor(f32([1, 2]))], "signature"),
         trap([tensor(f32([1, 2])), tensor(f32([1, 2])), tensor(f32([1, 2]))], "signature")],
        ["EXEC-call-2"],
        "A two-parameter function called with one or three arguments (signature)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n", "n"), "float32")):
    n = T.int64()
    return R.prim_value(n)
''')
    cases.append(case(
        "signature_repeated_variable", text,
        [ok([tensor(np.zeros((3, 3), np.float32))], [prim(3)]),
         trap([tensor(np.zeros((3, 2), np.float32))], "signature")],
        ["EXEC-call-3"],
        "x: (n, n) binds n from the first dimension and checks the second: 3 x 3 passes, "
        "3 x 2 fails."))

    text = module('''
@R.function
def main(k: T.int64, x: R.Tensor((k,), "float32")):
    return R.add(x, x)
''')
    cases.append(case(
        "signature_prim_defines_dimension", text,
        [ok([prim(3), tensor(f32([1, 2, 3]))], [tensor(f32([2, 4, 6]))]),
         ok([prim(0), tensor(np.zeros(0, np.float32))], [tensor(np.zeros(0, np.float32))]),
         trap([prim(3), tensor(f32([1, 2, 3, 4]))], "signature")],
        ["EXEC-call-3"],
        "k: T.int64 binds k from the R.Prim argument; x: (k,) is then checked against it."))

    text = module('''
@R.function
def main(s: R.Shape([2, "n"])):
    n = T.int64()
    return R.prim_value(n)
''')
    cases.append(case(
        "signature_shape_parameter", text,
        [ok([shape([2, 5])], [prim(5)]), trap([shape([3, 5])], "signature"),
         trap([shape([2, 5, 1])], "signature")],
        ["EXEC-call-3"],
        "s: R.Shape([2, n]): [2, 5] binds n = 5; [3, 5] and [2, 5, 1] fail."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(("n",), "float32"):
    return y
''')
    cases.append(case(
        "return_check", text,
        [ok([tensor(f32([1, 2])), tensor(f32([3, 4]))], [tensor(f32([3, 4]))]),
         trap([tensor(f32([1, 2])), tensor(f32([3, 4, 5]))], "return")],
        ["EXEC-call-4"],
        "The result y must have n elements, n bound from x: a 3-element y for n = 2 fails "
        "the return check."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(dtype="float32")) -> R.Tensor(("n * 2",), "float32"):
    return y
''')
    cases.append(case(
        "return_check_expression", text,
        [ok([tensor(f32([1])), tensor(f32([3, 4]))], [tensor(f32([3, 4]))]),
         trap([tensor(f32([1])), tensor(f32([3]))], "return"),
         trap([tensor(f32([1])), tensor(np.zeros((2, 1), np.float32))], "return")],
        ["EXEC-call-4"],
        "The return annotation (n * 2,) is evaluated with n from x: a 1-element or a 2-d "
        "result fails."))

    text = module('''
@R.function(private=True)
def f(y: R.Tensor((3,))) -> R.Tensor((3,), "float32"):
    return y

@R.function
def main(x: R.Tensor((3,))):
    cls = Module
    r = cls.f(x)
    return r
''')
    cases.append(case(
        "return_check_dtype_in_callee", text,
        [ok([tensor(f32([1, 2, 3]))], [tensor(f32([1, 2, 3]))]),
         trap([tensor(i32([1, 2, 3]))], "return")],
        ["EXEC-call-4", "EXEC-call-1"],
        "A called function promising float32 returns an int32 tensor: its return check "
        "fails."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    @R.function
    def twice(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        z = R.add(y, y)
        return z

    a = twice(x)
    b = twice(a)
    return b
''')
    cases.append(case(
        "local_function", text,
        [ok([tensor(f32([1, 2, 3]))], [tensor(f32([4, 8, 12]))])],
        ["EXEC-call-1", "EXEC-var-1", "SYN-relax-7"],
        "A local function (no captures) called twice: 4x."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), w: R.Tensor(("n",), "float32")):
    n = T.int64()

    @R.function
    def affine(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        z = R.multiply(y, w)
        u = R.add(z, x)
        return u

    a = affine(x)
    b = affine(a)
    return b
''')
    runs = []
    for n in (2, 4):
        xv, wv = quarters(n, 50 + n), quarters(n, 60 + n)
        runs.append(ok([tensor(xv), tensor(wv)], [tensor((xv * wv + xv) * wv + xv)]))
    cases.append(case(
        "closure_captures_outer_variables", text, runs,
        ["EXEC-var-1", "EXEC-call-1", "EXEC-call-3"],
        "A local function captures x, w and the symbolic n of its enclosing function: "
        "affine(affine(x)) = (x w + x) w + x (NumPy)."))

    text = module('''
@R.function(private=True)
def make_adder(c: R.Tensor((2,), "float32")) -> R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")):
    @R.function
    def adder(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.add(y, c)
        return z

    return adder

@R.function
def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "float32")):
    cls = Module
    f = cls.make_adder(a)
    g = cls.make_adder(b)
    r = f(b)
    s = g(r)
    return s
''')
    av, bv = f32([1, 2]), f32([10, 20])
    cases.append(case(
        "closure_returned_and_called_later", text,
        [ok([tensor(av), tensor(bv)], [tensor(bv + av + bv)])],
        ["EXEC-var-1", "EXEC-call-1"],
        "make_adder returns a closure over its argument; two closures (over a and over b) "
        "outlive the call that made them: g(f(b)) = b + a + b."))

    text = module('''
@R.function(private=True)
def double(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
    return R.add(x, x)

@R.function(private=True)
def apply_twice(f: R.Callable([R.Tensor((3,), "float32")], R.Tensor((3,), "float32")), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
    y = f(x)
    z = f(y)
    return z

@R.function
def main(x: R.Tensor((3,), "float32")):
    cls = Module
    r = cls.apply_twice(cls.double, x)
    return r
''')
    cases.append(case(
        "function_as_argument", text,
        [ok([tensor(f32([1, -1, 0.5]))], [tensor(f32([4, -4, 2]))])],
        ["EXEC-call-1", "EXEC-call-3"],
        "A module function passed as an R.Callable argument and called through the "
        "parameter: double(double(x)) = 4x."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32"), k: T.int64):
    @R.function
    def countdown(y: R.Tensor((2,), "float32"), j: T.int64) -> R.Tensor((2,), "float32"):
        if j <= 0:
            r = y
        else:
            z = R.multiply(y, R.const(2.0, "float32"))
            r = countdown(z, R.prim_value(j - 1))
        return r

    out = countdown(x, k)
    return out
''')
    cases.append(case(
        "local_function_recursion", text,
        [ok([tensor(f32([1, 3])), prim(k)], [tensor(f32([1, 3]) * 2**k)]) for k in (0, 4)],
        ["EXEC-call-1", "EXEC-var-1", "SI-fn-local-1"],
        "A local function calls itself through its own name: x * 2^k."))
    return cases


# ==================================================================================================
# call_tir and the destination-passing forms
# ==================================================================================================

def dps_cases() -> list[Case]:
    cases = []

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    cls = Module
    y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
    return y
''' + ADD_ONE_4)
    cases.append(case(
        "call_tir_static", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5]))])],
        ["EXEC-dps-1", "EXEC-dps-2", "SI-struct-dps-1", "SI-struct-kind-1", "relax.call_tir"],
        "call_tir allocates the (4,) output and calls the PrimFunc: x + 1."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def repeat2(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n * T.int64(2),), "float32")
    for i in range(n * T.int64(2)):
        B[i] = A[i // T.int64(2)]

@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.repeat2, (x,), out_ty=R.Tensor((n * 2,), "float32"))
    return y
''')
    runs = [ok([tensor(quarters(n, 70 + n))], [tensor(np.repeat(quarters(n, 70 + n), 2))])
            for n in (1, 3, 0)]
    cases.append(case(
        "call_tir_symbolic_output", text, runs,
        ["EXEC-dps-1", "EXEC-tir-bind-1", "relax.call_tir"],
        "The output's struct info (n * 2,) is evaluated with the current n; the PrimFunc "
        "binds its own n and checks 2n: np.repeat(x, 2), for n = 1, 3, 0."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def shift(a: T.handle, k: T.int64, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i] + T.Cast("float32", k)

@R.function
def main(x: R.Tensor(("n",), "float32"), k: T.int64):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.shift, (x, R.prim_value(k)), out_ty=R.Tensor((n,), "float32"))
    return y
''')
    runs = [ok([tensor(f32([1, 2, 3])), prim(k)], [tensor(f32([1, 2, 3]) + k)]) for k in (0, 5, -2)]
    cases.append(case(
        "call_tir_prim_argument", text, runs,
        ["EXEC-dps-1", "EXEC-tir-bind-2"],
        "An R.Prim among call_tir's arguments reaches the PrimFunc's scalar parameter "
        "(TVM 0.27's form): x + k."))

    text = module('''
@T.prim_func(private=True)
def tile(a: T.handle, b: T.handle, m: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n * m,), "float32")
    for i in range(n * m):
        B[i] = A[i % n]

@R.function
def main(x: R.Tensor(("n",), "float32"), k: T.int64):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.tile, (x,), out_sinfo=R.Tensor((n * k,), "float32"), tir_vars=R.shape([k]))
    return y
''')
    runs = [ok([tensor(f32([1, 2, 3])), prim(k)], [tensor(np.tile(f32([1, 2, 3]), k))])
            for k in (1, 2, 0)]
    cases.append(case(
        "call_tir_tir_vars", text, runs,
        ["EXEC-dps-1", "EXEC-tir-bind-2", "relax.call_tir"],
        "The earlier spelling: tir_vars=R.shape([k]) passes k after the output; the output "
        "has n * k elements: np.tile(x, k). (TVM 0.27 has no tir_vars.)"))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def split_parts(a: T.handle, f: T.handle, i: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    F = T.match_buffer(f, (n,), "float32")
    I = T.match_buffer(i, (n,), "int32")
    for j in range(n):
        I[j] = T.Cast("int32", T.floor(A[j]))
        F[j] = A[j] - T.floor(A[j])

@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    cls = Module
    t = R.call_tir(cls.split_parts, (x,), out_ty=[R.Tensor((n,), "float32"), R.Tensor((n,), "int32")])
    frac = t[0]
    whole = t[1]
    return (whole, frac)
''')
    runs = []
    for vals in ([1.25, -1.25, 3.0], [0.5]):
        v = f32(vals)
        runs.append(ok([tensor(v)], [tensor(np.floor(v).astype(np.int32)),
                                     tensor(v - np.floor(v))]))
    cases.append(case(
        "call_tir_tuple_of_outputs", text, runs,
        ["EXEC-dps-1", "EXEC-tuple-1", "relax.call_tir"],
        "out_ty with two tensors makes call_tir return a tuple: the fractional part "
        "(float32) and the floor (int32), returned swapped (np.floor)."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def accumulate(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + B[i]

@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    cls = Module
    z = R.call_tir_inplace(cls.accumulate, (x, y), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
    return z
''')
    a, b = f32([1, 2, 3, 4]), f32([10, 20, 30, 40])
    cases.append(case(
        "call_tir_inplace", text,
        [ok([tensor(a), tensor(b)], [tensor(a + b)])],
        ["EXEC-dps-3", "relax.call_tir_inplace"],
        "call_tir_inplace with inplace_indices=[0]: input 0 is the output, written in "
        "place: x + y."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def both(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32"), C: T.Buffer((3,), "float32")):
    for i in range(3):
        C[i] = A[i] * B[i]
        A[i] = A[i] + B[i]

@R.function
def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
    cls = Module
    t = R.call_tir_inplace(cls.both, (x, y), inplace_indices=[-1, 0], out_ty=[R.Tensor((3,), "float32"), R.Tensor((3,), "float32")])
    return t
''')
    a, b = f32([1, 2, 3]), f32([4, 5, 6])
    cases.append(case(
        "call_tir_inplace_mixed", text,
        [ok([tensor(a), tensor(b)], [tensor(a * b), tensor(a + b)])],
        ["EXEC-dps-3", "relax.call_tir_inplace"],
        "inplace_indices=[-1, 0]: output 0 is fresh (x * y), output 1 is input 0 updated "
        "in place (x + y)."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def half(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(2):
        B[i] = A[i]

@R.function
def main(x: R.Tensor((4,), "float32")):
    cls = Module
    y = R.call_tir(cls.half, (x,), out_ty=R.Tensor((4,), "float32"))
    return y
''')
    cases.append(case(
        "call_tir_output_starts_poisoned", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([1, 2, np.nan, np.nan]))])],
        ["EXEC-mem-poison-1", "EXEC-dps-1"],
        "A PrimFunc writing only half of its output: the other half is the poison call_tir "
        "filled it with, NaN for float32. Compiled code returns whatever the memory held."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n,), "float32"))
    return y
''' + ADD_ONE_4)
    cases.append(case(
        "call_tir_buffer_shape_mismatch", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5]))]),
         trap([tensor(f32([1, 2, 3, 4, 5]))], "shape_mismatch")],
        ["EXEC-tir-bind-1", "EXEC-dps-1"],
        "The PrimFunc's buffers are (4,); called on 5 elements (and a 5-element output) "
        "its argument check fails (shape_mismatch)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,))):
    cls = Module
    y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
    return y
''' + ADD_ONE_4)
    cases.append(case(
        "call_tir_buffer_dtype_mismatch", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5]))]),
         trap([tensor(i32([1, 2, 3, 4]))], "dtype_mismatch")],
        ["EXEC-tir-bind-1"],
        "An int32 tensor given to a float32 buffer fails the PrimFunc's argument check "
        "(dtype_mismatch)."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def gather(a: T.handle, k: T.int64, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i + k]

@R.function
def main(x: R.Tensor(("n",), "float32"), k: T.int64):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.gather, (x, R.prim_value(k)), out_ty=R.Tensor((n,), "float32"))
    return y
''')
    cases.append(case(
        "call_tir_index_out_of_bounds", text,
        [ok([tensor(f32([1, 2, 3])), prim(0)], [tensor(f32([1, 2, 3]))]),
         trap([tensor(f32([1, 2, 3])), prim(1)], "index_out_of_bounds")],
        ["EXEC-tir-load-1", "EXEC-dps-1"],
        "B[i] = A[i + k]: for k = 1 the last load is past the end (index_out_of_bounds)."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def checked(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
    for i in range(3):
        assert A[i] >= T.float32(0), "negative input"
        B[i] = T.sqrt(A[i])

@R.function
def main(x: R.Tensor((3,), "float32")):
    cls = Module
    y = R.call_tir(cls.checked, (x,), out_ty=R.Tensor((3,), "float32"))
    return y
''')
    cases.append(case(
        "call_tir_tir_assert", text,
        [ok([tensor(f32([0, 4, 9]))], [tensor(f32([0, 2, 3]))]),
         trap([tensor(f32([4, -1, 9]))], "tir_assert")],
        ["EXEC-tir-assert-1", "EXEC-dps-1"],
        "A PrimFunc asserting its input is non-negative: sqrt for [0, 4, 9], a tir_assert "
        "trap for a negative element."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def mystery(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    for i in range(2):
        B[i] = T.call_pure_extern("float32", "relax_ref_no_such_function", A[i])

@R.function
def main(x: R.Tensor((2,), "float32")):
    cls = Module
    y = R.call_tir(cls.mystery, (x,), out_ty=R.Tensor((2,), "float32"))
    return y
''')
    cases.append(case(
        "call_tir_unsupported_intrinsic", text,
        [trap([tensor(f32([1, 2]))], "unsupported")],
        ["EXEC-tir-intrin-4", "EXEC-op-1"],
        "A PrimFunc calling an external function nobody defines has no semantics: an "
        "unsupported trap."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def dense(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), w: T.Buffer((T.int64(3), T.int64(4)), "float32"), y: T.Buffer((T.int64(2), T.int64(4)), "float32")):
    for i, j, k in T.grid(T.int64(2), T.int64(4), T.int64(3)):
        with T.sblock("dense"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                y[vi, vj] = T.float32(0)
            y[vi, vj] = y[vi, vj] + x[vi, vk] * w[vk, vj]

@T.prim_func(private=True, s_tir=True)
def bias_relu(y: T.Buffer((T.int64(2), T.int64(4)), "float32"), b: T.Buffer((T.int64(4),), "float32"), z: T.Buffer((T.int64(2), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(2), T.int64(4)):
        with T.sblock("bias_relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            z[vi, vj] = T.max(y[vi, vj] + b[vj], T.float32(0))

@R.function
def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((2, 4), "float32"):
    cls = Module
    with R.dataflow():
        lv = R.call_tir(cls.dense, (x, w), out_ty=R.Tensor((2, 4), "float32"))
        gv = R.call_tir(cls.bias_relu, (lv, b), out_ty=R.Tensor((2, 4), "float32"))
        R.output(gv)
    return gv
''')
    xv, wv, bv = quarters((2, 3), 80), quarters((3, 4), 81), quarters(4, 82)
    cases.append(case(
        "call_tir_chain_in_dataflow", text,
        [ok([tensor(xv), tensor(wv), tensor(bv)], [tensor(np.maximum(xv @ wv + bv, 0))])],
        ["EXEC-dps-1", "EXEC-bind-1", "relax.call_tir"],
        "Two call_tirs in a dataflow block (a dense layer, then bias + relu): "
        "max(x @ w + b, 0) (NumPy, exact on quarter values)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    R.func_attr({"relax.force_pure": True})
    n = T.int64()
    cls = Module
    out = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0)
    cls.scale(x, out)
    return out
''' + SCALE_N)
    runs = [ok([tensor(quarters(n, 90 + n))], [tensor(quarters(n, 90 + n) * 3)]) for n in (1, 4, 7)]
    cases.append(case(
        "dps_direct_call", text, runs,
        ["EXEC-tir-call-1", "EXEC-mem-alloc-1", "relax.builtin.alloc_tensor"],
        "The form after CallTIRRewrite: R.builtin.alloc_tensor then cls.scale(x, out), a "
        "direct call of the PrimFunc that writes into out (relax.force_pure): 3x."))

    text = module('''
@T.prim_func(private=True)
def twice(a: T.int64) -> T.int64:
    return a * T.int64(2) + T.int64(1)

@R.function(pure=False)
def main(k: T.int64):
    cls = Module
    r = cls.twice(R.prim_value(k))
    return r
''')
    cases.append(case(
        "prim_func_returning_a_value", text,
        [ok([prim(k)], [prim(2 * k + 1)]) for k in (0, 20, -3)],
        ["EXEC-tir-eval-2", "EXEC-tir-call-1"],
        "A PrimFunc that returns a scalar (`return a * 2 + 1`, T.ret) called directly: "
        "its value is the call's R.Prim result."))
    return cases


# ==================================================================================================
# Explicit memory
# ==================================================================================================

FILL_8 = '''
@T.prim_func(private=True, s_tir=True)
def fill(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i]
'''


def memory_cases() -> list[Case]:
    cases = []
    x8 = f32([1, 2, 3, 4, 5, 6, 7, 8])

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
    cls.add_one(x, a)
    b = R.memory.alloc_tensor(storage, 16, R.shape([4]), R.dtype("float32"), 0)
    cls.add_one(a, b)
    return (a, b)

@T.prim_func(private=True, s_tir=True)
def add_one(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
''')
    cases.append(case(
        "storage_with_two_views", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([2, 3, 4, 5])), tensor(f32([3, 4, 5, 6]))])],
        ["EXEC-mem-storage-1", "EXEC-mem-view-1", "EXEC-tir-call-1", "SI-struct-storage-1",
         "SI-struct-alloc-1", "relax.memory.alloc_storage", "relax.memory.alloc_tensor"],
        "A 32-byte storage holds two float32 (4,) tensors at offsets 0 and 16: a = x + 1, "
        "b = a + 1. (The PrimFunc's buffers take offset_factor=1, so that compiled code "
        "accepts a tensor starting inside its storage.)"))

    text = module('''
@R.function
def main(x: R.Tensor((8,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("float32"), 0)
    cls.fill(x, a)
    b = R.memory.alloc_tensor(storage, 16, R.shape([4]), R.dtype("float32"), 0)
    c = R.memory.alloc_tensor(storage, 8, R.shape([2, 2]), R.dtype("float32"), 0)
    d = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("int32"), 0)
    return (b, c, d)
''' + FILL_8)
    cases.append(case(
        "views_share_memory", text,
        [ok([tensor(x8)], [tensor(x8[4:8]), tensor(x8[2:6].reshape(2, 2)),
                           tensor(x8.view(np.int32))])],
        ["EXEC-mem-view-1", "EXEC-mem-storage-1"],
        "Views made after a is written see its bytes: bytes 16.. are x[4:8], bytes 8.. as "
        "(2, 2) are x[2:6], and an int32 view of bytes 0.. reads x's bit patterns "
        "(NumPy slicing and .view(int32))."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_attr({"relax.force_pure": True})
    storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
    f = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
    i = R.memory.alloc_tensor(storage, 0, R.shape([2]), R.dtype("int64"), 0)
    u = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("uint8"), 0)
    g = R.builtin.alloc_tensor(R.shape([2]), R.dtype("int32"), 0)
    return (f, i, u, g)
''')
    cases.append(case(
        "fresh_memory_is_poisoned", text,
        [ok([tensor(f32([1, 2, 3, 4]))],
            [tensor(f32([np.nan] * 4)), tensor(np.array([-1, -1], np.int64)),
             tensor(np.array([255] * 4, np.uint8)), tensor(i32([-1, -1]))])],
        ["EXEC-mem-poison-1", "EXEC-mem-storage-1", "EXEC-mem-alloc-1"],
        "Nothing writes the storage or the builtin tensor: every byte is 0xFF, read as NaN "
        "(float32), -1 (int64, int32) and 255 (uint8). Compiled code returns whatever the "
        "memory held."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    R.func_attr({"relax.force_pure": True})
    n = T.int64()
    cls = Module
    storage = R.memory.alloc_storage(R.shape([n * 4]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([n]), R.dtype("float32"), 0)
    cls.scale(x, a)
    b = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), 0)
    cls.scale(a, b)
    return b
''' + SCALE_N)
    runs = [ok([tensor(quarters(n, 100 + n))], [tensor(quarters(n, 100 + n) * 9)]) for n in (1, 3, 6)]
    cases.append(case(
        "symbolic_storage_size", text, runs,
        ["EXEC-mem-storage-1", "EXEC-mem-view-1", "EXEC-mem-alloc-1", "EXEC-tir-call-1"],
        "A storage of n * 4 bytes for an (n,) float32 view, then a builtin tensor: 9x."))

    text = module('''
@R.function
def main(x: R.Tensor((8,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("float32"), 0)
    cls.fill(x, a)
    kept = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), 0)
    cls.fill(a, kept)
    R.memory.kill_tensor(a)
    return (kept, a)
''' + FILL_8)
    cases.append(case(
        "kill_tensor_repoisons", text,
        [ok([tensor(x8)], [tensor(x8), tensor(f32([np.nan] * 8))])],
        ["EXEC-mem-kill-1", "relax.memory.kill_tensor"],
        "After R.memory.kill_tensor(a), a reads poison (NaN); the copy made before the kill "
        "keeps x. Compiled code does not re-poison."))

    text = module('''
@R.function
def main(x: R.Tensor((8,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("float32"), 0)
    b = R.memory.alloc_tensor(storage, 16, R.shape([4]), R.dtype("float32"), 0)
    cls.fill(x, a)
    R.memory.kill_storage(storage)
    return b
''' + FILL_8)
    cases.append(case(
        "kill_storage_repoisons_views", text,
        [ok([tensor(x8)], [tensor(f32([np.nan] * 4))])],
        ["EXEC-mem-kill-1", "relax.memory.kill_storage"],
        "A view made before R.memory.kill_storage reads poison afterwards (NaN)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
    cls.add_one(x, a)
    R.memory.kill_storage(storage)
    b = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
    cls.add_one(x, b)
    return b
''' + ADD_ONE_4)
    cases.append(case(
        "use_after_kill_traps", text,
        [trap([tensor(f32([1, 2, 3, 4]))], "use_after_kill")],
        ["EXEC-mem-kill-2", "relax.memory.kill_storage"],
        "R.memory.alloc_tensor on a killed storage is an error (use_after_kill)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    c = R.const([1, 2, 3, 4], "float32")
    cls.increment(c)
    y = R.add(x, c)
    return y
''' + '''
@T.prim_func(private=True, s_tir=True)
def increment(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1)
''')
    cases.append(case(
        "store_into_constant_traps", text,
        [trap([tensor(f32([0, 0, 0, 0]))], "read_only")],
        ["EXEC-tir-bind-4", "EXEC-tir-call-1"],
        "A PrimFunc called directly that writes into a module constant is an error "
        "(read_only): constants never change."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    cls = Module
    y = R.call_tir(cls.increment_input, (x,), out_ty=R.Tensor((4,), "float32"))
    z = R.add(x, y)
    return z
''' + '''
@T.prim_func(private=True, s_tir=True)
def increment_input(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1)
        B[i] = A[i]
''')
    cases.append(case(
        "call_tir_store_into_input_traps", text,
        [trap([tensor(f32([0, 1, 2, 3]))], "read_only")],
        ["EXEC-dps-4", "EXEC-tir-bind-4"],
        "call_tir's inputs are read-only: a PrimFunc that stores into its input A is an "
        "error (read_only); the caller's x never changes."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    z = R.add(x, y)
    return z
''')
    cases.append(case(
        "signature_mismatch_located", text,
        [ok([tensor(f32([1, 2, 3, 4])), tensor(f32([1, 1, 1, 1]))],
            [tensor(f32([2, 3, 4, 5]))]),
         trap([tensor(f32([1, 2, 3, 4])), tensor(f32([1, 1, 1]))], "signature")],
        ["EXEC-call-3", "EXEC-error-1"],
        "y of three elements where main's parameter says (4,) is a signature error; "
        "relax_ref locates it at y's parameter (the runner checks the kind only)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")):
    R.func_attr({"relax.force_pure": True})
    n = T.int64()
    cls = Module
    storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([n]), R.dtype("float32"), 0)
    cls.scale(x, a)
    return a
''' + SCALE_N)
    cases.append(case(
        "view_out_of_bounds_traps", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([3, 6, 9, 12]))]),
         ok([tensor(f32([1]))], [tensor(f32([3]))]),
         trap([tensor(f32([1, 2, 3, 4, 5]))], "out_of_bounds")],
        ["EXEC-mem-view-1"],
        "An (n,) float32 view of a 16-byte storage fits for n <= 4 (3x); for n = 5 it would "
        "need 20 bytes (out_of_bounds)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32")):
    R.func_attr({"relax.force_pure": True})
    storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 12, R.shape([2]), R.dtype("float32"), 0)
    return a
''')
    cases.append(case(
        "view_past_the_end_traps", text,
        [trap([tensor(f32([1, 2]))], "out_of_bounds")],
        ["EXEC-mem-view-1"],
        "Two float32 at byte offset 12 of a 16-byte storage end at byte 20 (out_of_bounds)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32")):
    R.func_attr({"relax.force_pure": True})
    storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 2, R.shape([2]), R.dtype("float32"), 0)
    return a
''')
    cases.append(case(
        "view_misaligned_traps", text,
        [trap([tensor(f32([1, 2]))], "out_of_bounds")],
        ["EXEC-mem-view-1"],
        "A float32 view at byte offset 2 is misaligned for its 4-byte elements "
        "(out_of_bounds)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32")):
    R.func_attr({"relax.force_pure": True})
    a = R.builtin.alloc_tensor(R.shape([1099511627776]), R.dtype("float32"), 0)
    return x
''')
    cases.append(case(
        "huge_builtin_alloc_resource", text,
        [trap([tensor(f32([1, 2]))], "resource")],
        ["EXEC-limit-1", "EXEC-mem-alloc-1"],
        "R.builtin.alloc_tensor of 2^40 float32 elements (4 TiB) exceeds the tensor size "
        "limit: a resource error before anything is allocated."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32")):
    R.func_attr({"relax.force_pure": True})
    storage = R.memory.alloc_storage(R.shape([1099511627776]), 0, R.str("global"), R.dtype("uint8"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([2]), R.dtype("float32"), 0)
    return a
''')
    cases.append(case(
        "huge_storage_resource", text,
        [trap([tensor(f32([1, 2]))], "resource")],
        ["EXEC-limit-1", "EXEC-mem-storage-1"],
        "A 2^40-byte (1 TiB) storage exceeds the limit (resource)."))

    text = module('''
@T.prim_func(private=True, s_tir=True)
def zeros(a: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, n, n), "float32")
    for i, j, k in T.grid(n, n, n):
        A[i, j, k] = T.float32(0)

@R.function
def main(k: T.int64):
    cls = Module
    y = R.call_tir(cls.zeros, (), out_ty=R.Tensor((k, k, k), "float32"))
    return y
''')
    cases.append(case(
        "huge_call_tir_output_resource", text,
        [ok([prim(2)], [tensor(np.zeros((2, 2, 2), np.float32))]),
         trap([prim(20000)], "resource")],
        ["EXEC-limit-1", "EXEC-dps-1"],
        "A call_tir output of k^3 float32: fine for k = 2 (zeros), 3.2e13 bytes for "
        "k = 20000 (resource)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_attr({"relax.force_pure": True})
    cls = Module
    storage = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"))
    a = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
    cls.add_one(x, a)
    b = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0)
    cls.add_one(a, b)
    R.vm.kill_object(a)
    return (b, a)
''' + ADD_ONE_4)
    cases.append(case(
        "vm_alloc_and_kill_object", text,
        [ok([tensor(f32([1, 2, 3, 4]))], [tensor(f32([3, 4, 5, 6])), tensor(f32([np.nan] * 4))])],
        ["EXEC-mem-storage-1", "EXEC-mem-view-1", "EXEC-mem-kill-1", "relax.vm.alloc_storage",
         "relax.vm.alloc_tensor", "relax.vm.kill_object"],
        "The VM-level R.vm.alloc_storage / R.vm.alloc_tensor behave like the memory ops; "
        "R.vm.kill_object re-poisons a: b = x + 2, a reads NaN."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32")):
    R.func_attr({"relax.force_pure": True})
    n = T.int64()
    a = R.builtin.alloc_tensor(R.shape([n - 5]), R.dtype("float32"), 0)
    return R.shape_of(a)
''')
    cases.append(case(
        "builtin_alloc_negative_dimension", text,
        [ok([tensor(np.zeros(7, np.float32))], [shape([2])]),
         trap([tensor(np.zeros(3, np.float32))], "shape_mismatch")],
        ["EXEC-mem-alloc-1", "EXEC-sym-1"],
        "R.builtin.alloc_tensor(R.shape([n - 5])): shape [2] for n = 7; for n = 3 the "
        "dimension is negative (shape_mismatch)."))
    return cases


# ==================================================================================================
# Packed functions, print, assert, op checks
# ==================================================================================================

def packed_cases() -> list[Case]:
    cases = []
    x34 = quarters((3, 4), 110)

    text = module('''
@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    s = R.call_pure_packed("vm.builtin.shape_of", x, ty_args=R.Shape(ndim=2))
    return s
''')
    cases.append(case(
        "packed_shape_of", text,
        [ok([tensor(np.zeros((n, m), np.float32))], [shape([n, m])]) for n, m in ((3, 4), (1, 0))],
        ["EXEC-packed-1", "EXEC-packed-2", "SI-struct-packed-1", "relax.call_pure_packed"],
        "R.call_pure_packed(\"vm.builtin.shape_of\", x) returns x's shape; its result is "
        "checked against sinfo_args R.Shape(ndim=2)."))

    text = module('''
@R.function
def main(x: R.Tensor((3, 4), "float32")):
    y = R.call_pure_packed("vm.builtin.reshape", x, R.shape([2, 6]), ty_args=R.Tensor((2, 6), "float32"))
    z = R.call_pure_packed("vm.builtin.copy", y, ty_args=R.Tensor((2, 6), "float32"))
    return z
''')
    cases.append(case(
        "packed_reshape_and_copy", text,
        [ok([tensor(x34)], [tensor(x34.reshape(2, 6))])],
        ["EXEC-packed-1", "EXEC-packed-2", "relax.call_pure_packed"],
        "vm.builtin.reshape then vm.builtin.copy: x.reshape(2, 6) (NumPy)."))

    text = module('''
@R.function
def main(x: R.Tensor((3, 4), "float32")):
    y = R.call_pure_packed("vm.builtin.reshape", x, R.shape([2, 6]), ty_args=R.Tensor((3, 4), "float32"))
    return y
''')
    cases.append(case(
        "packed_result_checked_against_sinfo", text,
        [trap([tensor(x34)], "struct_info")],
        ["EXEC-packed-2"],
        "The call promises a (3, 4) result but vm.builtin.reshape returns (2, 6): the "
        "result check fails (struct_info)."))

    text = module('''
@R.function
def main(x: R.Tensor((3, 4), "float32")):
    y = R.call_pure_packed("vm.builtin.reshape", x, R.shape([5, 5]), ty_args=R.Tensor((5, 5), "float32"))
    return y
''')
    cases.append(case(
        "packed_function_failure", text,
        [trap([tensor(x34)], "packed")],
        ["EXEC-packed-3"],
        "vm.builtin.reshape of 12 elements to [5, 5] (25) fails inside the packed function: a "
        "packed trap."))

    text = module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    y = R.call_packed("vm.builtin.copy", x, ty_args=R.Tensor((3,), "float32"))
    return y
''')
    cases.append(case(
        "packed_call_impure", text,
        [ok([tensor(f32([1, 2, 3]))], [tensor(f32([1, 2, 3]))])],
        ["EXEC-packed-1", "EXEC-packed-2"],
        "R.call_packed in an impure function: vm.builtin.copy returns a copy of x."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.call_pure_packed("relax_ref.no.such.function", x, ty_args=R.Tensor((3,), "float32"))
    return y
''')
    cases.append(case(
        "packed_unknown_name", text,
        [trap([tensor(f32([1, 2, 3]))], None)],
        ["EXEC-packed-1"],
        "An ExternFunc naming no registered function is an error when it is called (the "
        "spec names no kind for it; any trap matches)."))

    text = module('''
@R.function
def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "int32")):
    t = R.call_pure_packed("vm.builtin.make_tuple", x, y, ty_args=R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "int32")))
    a = R.call_pure_packed("vm.builtin.tuple_getitem", t, R.prim_value(1), ty_args=R.Tensor((3,), "int32"))
    return (a, t)
''')
    cases.append(case(
        "packed_tuple_builtins", text,
        [ok([tensor(f32([1, 2])), tensor(i32([3, 4, 5]))],
            [tensor(i32([3, 4, 5])), tensor(f32([1, 2])), tensor(i32([3, 4, 5]))])],
        ["EXEC-packed-1", "EXEC-packed-2"],
        "vm.builtin.make_tuple builds (x, y) and vm.builtin.tuple_getitem takes field 1."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.call_dps_packed("vm.builtin.copy", (x,), out_ty=R.Tensor((3,), "float32"))
    return y
''')
    cases.append(case(
        "call_dps_packed_passes_outputs_after_inputs", text,
        [trap([tensor(f32([1, 2, 3]))], "packed")],
        ["EXEC-dps-2", "EXEC-packed-3", "relax.call_dps_packed"],
        "R.call_dps_packed calls the packed function with the inputs and then the freshly "
        "allocated output: vm.builtin.copy(x, out). No shipped vm.builtin function is in "
        "destination-passing style, and copy takes one argument, so the call fails inside "
        "the packed function (packed)."))

    text = module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32"), k: T.int64):
    R.print(x, R.prim_value(k), format="x = {}, k = {}")
    u = R.print(x)
    y = R.add(x, x)
    return (y, u)
''')
    cases.append(case(
        "print", text,
        [ok([tensor(f32([1, 2, 3])), prim(4)], [tensor(f32([2, 4, 6]))])],
        ["relax.print", "SYN-relax-12"],
        "R.print writes to standard output and returns the empty tuple (u contributes no "
        "output): 2x."))

    text = module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32"), k: T.int64):
    R.assert_op(k > 0, [R.prim_value(k)], format="k must be positive, got {}")
    y = R.add(x, x)
    return y
''')
    cases.append(case(
        "assert_op_prim_condition", text,
        [ok([tensor(f32([1, 2, 3])), prim(1)], [tensor(f32([2, 4, 6]))]),
         trap([tensor(f32([1, 2, 3])), prim(0)], "assert")],
        ["EXEC-assert-1", "relax.assert_op", "SYN-relax-12"],
        "R.assert_op(k > 0, ...) passes for k = 1 (2x) and fails for k = 0 (assert)."))

    text = module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    c = R.greater(R.sum(x), R.const(0.0, "float32"))
    R.assert_op(c, format="the sum must be positive")
    return x
''')
    cases.append(case(
        "assert_op_tensor_condition", text,
        [ok([tensor(f32([1, -2, 3]))], [tensor(f32([1, -2, 3]))]),
         trap([tensor(f32([1, -2, 0]))], "assert")],
        ["EXEC-assert-1", "relax.assert_op", "relax.greater"],
        "The condition is a 0-d bool tensor (sum(x) > 0): true for [1, -2, 3], false for "
        "[1, -2, 0] (assert)."))

    text = module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")):
    z = R.add(x, y)
    return z
''')
    cases.append(case(
        "broadcast_mismatch_at_run_time", text,
        [ok([tensor(f32([1, 2, 3])), tensor(f32([10, 20, 30]))], [tensor(f32([11, 22, 33]))]),
         ok([tensor(f32([1, 2, 3])), tensor(f32([10]))], [tensor(f32([11, 12, 13]))]),
         trap([tensor(f32([1, 2, 3])), tensor(f32([10, 20]))], "shape_mismatch")],
        ["EXEC-broadcast-1", "EXEC-op-1", "relax.add"],
        "(n,) + (m,) is decided when it runs: equal lengths or a length of 1 broadcast "
        "(NumPy), lengths 3 and 2 do not (shape_mismatch)."))

    text = module('''
@R.function
def main(x: R.Tensor((4,), "float32"), i: R.Tensor((2,), "int64")):
    y = R.take(x, i, axis=0)
    return y
''')
    cases.append(case(
        "take_index_out_of_bounds", text,
        [ok([tensor(f32([1, 2, 3, 4])), tensor(np.array([3, 0], np.int64))], [tensor(f32([4, 1]))]),
         trap([tensor(f32([1, 2, 3, 4])), tensor(np.array([1, 4], np.int64))],
              "index_out_of_bounds")],
        ["EXEC-op-1", "relax.take"],
        "R.take with indices [3, 0] gathers [4, 1]; an index of 4 into 4 elements is "
        "index_out_of_bounds."))

    text = module('''
@R.function
def main(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "int32")):
    z = R.floor_divide(x, y)
    return z
''')
    cases.append(case(
        "op_integer_division_by_zero", text,
        [ok([tensor(i32([7, -7, 6])), tensor(i32([2, 2, -4]))], [tensor(i32([3, -4, -2]))]),
         trap([tensor(i32([7, -7, 6])), tensor(i32([2, 0, 1]))], "division_by_zero")],
        ["EXEC-op-1", "relax.floor_divide"],
        "R.floor_divide on int32 rounds toward minus infinity (Python //); a zero divisor "
        "is division_by_zero."))
    return cases


def cases() -> list[Case]:
    out = binding_cases() + match_cast_cases() + value_cases() + if_cases() + \
        function_cases() + dps_cases() + memory_cases() + packed_cases()
    return out
