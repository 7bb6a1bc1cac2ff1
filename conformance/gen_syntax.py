"""Conformance cases for the `syntax` area (spec/syntax.md SYN-*, spec/metadata.md SYN-meta-*).

Valid texts in both dialects (TVM 0.27: ``T.sblock``, ``T.sblock_alloc_buffer``, ``out_ty=``,
``tirx.noalias``, module-level ``TypeVar``; earlier releases: ``T.block``,
``T.alloc_buffer``, ``out_sinfo=``, ``tir.noalias``, ``n = T.int64()`` in the body), every
annotation form, the leaf constructors, decorators, ``if``/``else``, nested functions,
docstrings and comments, and a metadata section; each runs ``main`` and checks the outputs
against a NumPy formula written next to it. Then malformed texts (``expect =
"malformed"``), one or more per SYN-* error rule.

The metadata blobs are built with ``relax_ref.parser.metadata.encode_metadata`` (a writer
of TVM's format: it only builds the *input*); the expected outputs come from NumPy.
"""
from __future__ import annotations

import base64
import json
import struct

import numpy as np

from generate import Case, ok, prim, shape, tensor, tuple_

AREA = "syntax"


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _f32(rng, *dims) -> np.ndarray:
    return rng.uniform(-2.0, 2.0, size=dims).astype("float32")


def valid(name, text, runs, covers, description) -> Case:
    return Case(AREA, name, text, runs=runs, covers=covers, description=description)


def malformed(name, text, covers, description) -> Case:
    return Case(AREA, name, text, expect="malformed", covers=covers, description=description)


# ==============================================================================================
# Dialects
# ==============================================================================================

ADD_ONE_NEW = '''# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        tmp = T.sblock_alloc_buffer((n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(tmp[vi, vj])
                tmp[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(tmp[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = tmp[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
            z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)
            R.output(z)
        return z
'''

ADD_ONE_CLASSIC = '''# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        tmp = T.alloc_buffer((n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.block("tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(tmp[vi, vj])
                tmp[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(n, T.int64(4)):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(tmp[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = tmp[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)
            R.output(z)
        return z
'''

ADD_ONE_HANDWRITTEN_NEW = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class AddOne:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.handle, b: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)), "float32")
        B = T.match_buffer(b, (n, T.int64(4)), "float32")
        tmp = T.sblock_alloc_buffer((n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("tmp"):
                vi, vj = T.axis.remap("SS", [i, j])
                tmp[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = tmp[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = AddOne
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), "float32"))
            z = R.add(y, x)
            R.output(z)
        return z
'''

ADD_ONE_HANDWRITTEN_CLASSIC = (ADD_ONE_HANDWRITTEN_NEW
                               .replace("tirx as T", "tir as T")
                               .replace("private=True, s_tir=True", "private=True")
                               .replace('"tirx.noalias"', '"tir.noalias"')
                               .replace("T.sblock_alloc_buffer", "T.alloc_buffer")
                               .replace("T.sblock(", "T.block(")
                               .replace("out_ty=", "out_sinfo="))


def _add_one_runs(seed: int) -> list:
    rng = _rng(seed)
    runs = []
    for n in (1, 3, 5):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor((x * 2 + 1) + x)]))
    return runs


def dialect_cases() -> list[Case]:
    cases = [
        valid("dialect_0_27_sblock", ADD_ONE_NEW, _add_one_runs(1),
              ["SYN-module-1", "SYN-typevar-1", "SYN-tir-4", "SYN-tir-7", "SYN-tir-11",
               "SYN-relax-11", "SYN-relax-3"],
              "TVM 0.27 dialect: module-level TypeVar, T.sblock, T.sblock_alloc_buffer, "
              "tirx.noalias, s_tir=True and out_ty=; main computes (2x + 1) + x for several n "
              "(SYN-typevar-1, SYN-tir-7, SYN-tir-11, SYN-relax-11)."),
        valid("dialect_classic_block", ADD_ONE_CLASSIC, _add_one_runs(1),
              ["SYN-module-1", "SYN-typevar-1", "SYN-tir-4", "SYN-tir-7", "SYN-tir-11",
               "SYN-relax-11"],
              "Earlier dialect: T.block, T.alloc_buffer, tir.noalias, no s_tir option, "
              "out_sinfo=; the same module as dialect_0_27_sblock and the same outputs "
              "(SYN-tir-4, SYN-tir-7, SYN-tir-11, SYN-relax-11)."),
        valid("dialect_0_27_handwritten", ADD_ONE_HANDWRITTEN_NEW, _add_one_runs(2),
              ["SYN-sym-1", "SYN-sinfo-2", "SYN-tir-2", "SYN-tir-8", "SYN-tir-13",
               "SYN-relax-11"],
              "Hand-written 0.27 text: T.handle parameters with T.match_buffer, n = T.int64() "
              "in both bodies, string dimensions (\"n\", 4), omitted T.reads/T.writes "
              "(inferred, SYN-tir-13) and omitted binding annotations."),
        valid("dialect_classic_handwritten", ADD_ONE_HANDWRITTEN_CLASSIC, _add_one_runs(2),
              ["SYN-sym-1", "SYN-sinfo-2", "SYN-tir-2", "SYN-tir-4", "SYN-tir-7", "SYN-tir-8",
               "SYN-tir-11", "SYN-relax-11"],
              "The hand-written module in the earlier dialect (T.block, T.alloc_buffer, "
              "tir.noalias, out_sinfo=) with in-body n = T.int64() declarations."),
    ]
    # Both spellings of the dtype keyword and both call_tir output keywords in one module.
    mixed = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in T.serial(T.int64(3)):
            with T.sblock("B"):
                vi = T.axis.spatial(T.int64(3), i)
                B[vi] = A[vi] * T.float32(3.0)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        cls = Module
        a = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((3,), dtype="float32"))
        b = R.call_tir(cls.scale, (a,), out_sinfo=R.Tensor((3,), "float32"))
        return (a, b)
'''
    no_flag = ADD_ONE_NEW.replace("@T.prim_func(private=True, s_tir=True)",
                                  "@T.prim_func(private=True)")
    cases.append(valid("sblock_without_s_tir_flag", no_flag, _add_one_runs(4),
                       ["SYN-func-1", "SYN-tir-11"],
                       "A 0.27-dialect PrimFunc with T.sblock but no s_tir=True: a function "
                       "with blocks is S-TIR in both dialects, whether or not the flag is "
                       "written (spec/syntax.md, Root block)."))
    x = _f32(_rng(3), 3)
    cases.append(valid(
        "out_ty_and_out_sinfo_mixed", mixed, [ok([tensor(x)], [tensor(x * 3), tensor(x * 9)])],
        ["SYN-relax-11", "SYN-tir-10", "SYN-tir-12"],
        "out_ty= and out_sinfo= in one module read to the same Call.sinfo_args (SYN-relax-11); "
        "T.serial with T.axis.spatial (SYN-tir-10, SYN-tir-12)."))
    return cases


# ==============================================================================================
# Symbolic dimensions
# ==============================================================================================

def symbolic_cases() -> list[Case]:
    cases = []
    flatten = '''
@I.ir_module
class Flatten:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 4",), "float32"):
        n = T.int64()
        with R.dataflow():
            lv0 = R.exp(x)
            lv1 = R.reshape(lv0, R.shape([n * 4]))
            R.output(lv1)
        return lv1
'''
    rng = _rng(10)
    runs = []
    for n in (1, 2, 5):
        x = _f32(rng, n, 4)
        runs.append(ok([tensor(x)], [tensor(np.exp(x).reshape(-1))]))
    cases.append(valid("string_dims_flatten", flatten, runs,
                       ["SYN-sinfo-2", "SYN-sym-1", "SYN-relax-9"],
                       "String dimensions (\"n\", 4) and (\"n * 4\",) in the signature; "
                       "n = T.int64() in the body names the same variable (SYN-sym-1); "
                       "R.shape([n * 4]) (SYN-relax-9). Output exp(x).reshape(-1)."))

    typevar = '''
m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tensor((m, n), dtype="float32"):
        y: R.Tensor((m, n), dtype="float32") = R.permute_dims(x, axes=[1, 0])
        return y
'''
    rng = _rng(11)
    runs = []
    for n, m in ((2, 3), (4, 1), (1, 1)):
        x = _f32(rng, n, m)
        runs.append(ok([tensor(x)], [tensor(x.T.copy())]))
    cases.append(valid("typevar_module_level", typevar, runs,
                       ["SYN-typevar-1", "SYN-module-1", "SYN-sinfo-2"],
                       "Two module-level TypeVar declarations used as bare dimensions; "
                       "output x.T for several (n, m)."))

    string_expr = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n + m",), "float32"):
        z = R.concat((x, y), axis=0)
        return z
'''
    rng = _rng(12)
    runs = []
    for n, m in ((1, 2), (3, 3), (0, 2)):
        x, y = _f32(rng, n), _f32(rng, m)
        runs.append(ok([tensor(x), tensor(y)], [tensor(np.concatenate([x, y]))]))
    cases.append(valid("string_dim_expression_in_return", string_expr, runs,
                       ["SYN-sinfo-2"],
                       "A return annotation (\"n + m\",) whose names the parameters' string "
                       "dimensions declared; output concat(x, y)."))

    shape_ret = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Shape(ndim=3):
        n = T.int64()
        m = T.int64()
        return R.shape([m, n * 2, n * m + 1])
'''
    rng = _rng(13)
    runs = []
    for n, m in ((2, 3), (1, 7)):
        runs.append(ok([tensor(_f32(rng, n, m))], [shape([m, n * 2, n * m + 1])]))
    cases.append(valid("shape_expr_symbolic", shape_ret, runs,
                       ["SYN-relax-9", "SYN-sym-1", "SYN-sinfo-1"],
                       "R.shape([m, n * 2, n * m + 1]) of symbolic variables declared by "
                       "in-body T.int64() after string dimensions; R.Shape(ndim=3) return."))

    prim_param = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Prim("int64"):
        return R.prim_value(k * 2 + 1)
'''
    x = _f32(_rng(14), 2)
    cases.append(valid("t_int64_parameter", prim_param,
                       [ok([tensor(x), prim(k)], [prim(k * 2 + 1)]) for k in (0, 5, -3)],
                       ["SYN-sinfo-4", "SYN-relax-9"],
                       "k: T.int64 defines the symbolic variable k holding the argument "
                       "(SYN-sinfo-4); R.prim_value(k * 2 + 1) returns 2k + 1."))

    typevar_in_tir = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rev(A: T.Buffer((n,), "int32"), B: T.Buffer((n,), "int32")):
        for i in T.serial(n):
            with T.sblock("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[n - 1 - vi]

    @R.function
    def main(x: R.Tensor((n,), "int32")) -> R.Tensor((n,), "int32"):
        cls = Module
        y = R.call_tir(cls.rev, (x,), out_ty=R.Tensor((n,), "int32"))
        return y
'''
    runs = [ok([tensor(np.arange(k, dtype="int32") * 3)],
               [tensor((np.arange(k, dtype="int32") * 3)[::-1].copy())]) for k in (1, 4, 6)]
    cases.append(valid("typevar_shared_name_in_tir_and_relax", typevar_in_tir, runs,
                       ["SYN-typevar-1", "SYN-tir-2"],
                       "One TypeVar name n used by a PrimFunc and by main: each function has "
                       "its own variable named n (SYN-typevar-1). Output x reversed."))
    return cases


# ==============================================================================================
# Annotation forms
# ==============================================================================================

def annotation_cases() -> list[Case]:
    cases = []
    rng = _rng(20)
    x23 = _f32(rng, 2, 3)

    def tensor_case(name, ann, ret_ann, covers, desc):
        text = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: {ann}) -> {ret_ann}:
        y = R.match_cast(x, R.Tensor((2, 3), "float32"))
        z = R.add(y, y)
        return z
'''
        cases.append(valid(name, text, [ok([tensor(x23)], [tensor(x23 + x23)])],
                           covers + ["SYN-relax-5"],
                           desc + " The body casts x to (2, 3) float32 and returns x + x."))

    tensor_case("ann_tensor_static_shape", 'R.Tensor((2, 3), dtype="float32")',
                'R.Tensor((2, 3), dtype="float32")', ["SYN-sinfo-1", "SYN-sinfo-2"],
                "R.Tensor with a static shape and dtype= keyword.")
    tensor_case("ann_tensor_positional_dtype", 'R.Tensor((2, 3), "float32")',
                'R.Tensor((2, 3), "float32")', ["SYN-sinfo-1"],
                "R.Tensor with the dtype given positionally.")
    tensor_case("ann_tensor_list_shape", 'R.Tensor([2, 3], "float32")',
                'R.Tensor([2, 3], "float32")', ["SYN-sinfo-2"],
                "A tensor shape written as a list (SYN-sinfo-2).")
    tensor_case("ann_tensor_ndim_only", 'R.Tensor(ndim=2, dtype="float32")',
                'R.Tensor(ndim=2, dtype="float32")', ["SYN-sinfo-1"],
                "R.Tensor(ndim=2, dtype=...) with no shape.")
    tensor_case("ann_tensor_shape_and_ndim", 'R.Tensor((2, 3), "float32", ndim=2)',
                'R.Tensor(ndim=2)', ["SYN-sinfo-1", "SYN-sinfo-2"],
                "A shape with a matching ndim= (SYN-sinfo-2: a given ndim must match the "
                "shape's length; TVM 0.27 rejects giving both); return R.Tensor(ndim=2) with "
                "the dtype unknown.")
    tensor_case("ann_tensor_unknown", "R.Tensor", "R.Tensor",
                ["SYN-sinfo-1"], "A bare R.Tensor: nothing known (SYN-sinfo-1).")
    tensor_case("ann_tensor_dtype_unknown", "R.Tensor((2, 3))", "R.Tensor((2, 3))",
                ["SYN-sinfo-1"], "R.Tensor((2, 3)) with the dtype unknown.")
    tensor_case("ann_tensor_dtype_only", 'R.Tensor(dtype="float32")',
                'R.Tensor(dtype="float32")', ["SYN-sinfo-1"],
                "R.Tensor(dtype=...) with rank unknown.")
    tensor_case("ann_tensor_symbolic_string_dims", 'R.Tensor(("n", "m"), "float32")',
                'R.Tensor(("n", "m"), "float32")', ["SYN-sinfo-2"],
                "String dimensions in a parameter and the return annotation.")

    scalar = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), "float32")) -> R.Tensor((), "float32"):
        y = R.multiply(x, x)
        return y
'''
    cases.append(valid("ann_tensor_scalar", scalar,
                       [ok([tensor(np.float32(1.5))], [tensor(np.float32(2.25))])],
                       ["SYN-sinfo-2"], "A 0-d tensor, R.Tensor((), ...); output x * x."))

    shape_param = '''
@I.ir_module
class Module:
    @R.function
    def main(s: {ann}) -> {ann}:
        return s
'''
    for name, ann, desc in (
            ("ann_shape_values", "R.Shape([2, 3])", "R.Shape with static values"),
            ("ann_shape_ndim", "R.Shape(ndim=2)", "R.Shape(ndim=2)"),
            ("ann_shape_unknown", "R.Shape", "a bare R.Shape"),
            ("ann_shape_symbolic", 'R.Shape(["n", "m"])', "R.Shape with string dimensions")):
        runs = [ok([shape([2, 3])], [shape([2, 3])])]
        if name == "ann_shape_symbolic":
            runs.append(ok([shape([7, 0])], [shape([7, 0])]))
        cases.append(valid(name, shape_param.format(ann=ann), runs, ["SYN-sinfo-1"],
                           f"A parameter and return annotated {desc}; the shape flows through."))

    prim_forms = [
        ("ann_prim_int64", 'R.Prim("int64")', prim(42), "R.Prim(\"int64\")"),
        ("ann_prim_float32", 'R.Prim("float32")', prim(0.5, "float32"), "R.Prim(\"float32\")"),
        ("ann_prim_bool", 'R.Prim("bool")', prim(True, "bool"), "R.Prim(\"bool\")"),
        ("ann_prim_t_float64", "T.float64", prim(-1.25, "float64"),
         "T.float64 as a parameter annotation (SYN-sinfo-4)"),
    ]
    for name, ann, value, desc in prim_forms:
        text = f'''
@I.ir_module
class Module:
    @R.function
    def main(k: {ann}) -> {ann}:
        return k
'''
        cases.append(valid(name, text, [ok([value], [value])], ["SYN-sinfo-1", "SYN-sinfo-4"],
                           f"A parameter annotated {desc} returned unchanged."))

    prim_value_ann = '''
@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim(value="n")) -> R.Prim(value="n * 3"):
        n = T.int64()
        return R.prim_value(n * 3)
'''
    cases.append(valid("ann_prim_value_keyword", prim_value_ann,
                       [ok([prim(v)], [prim(v * 3)]) for v in (4, 0)],
                       ["SYN-sinfo-1", "SYN-sinfo-4", "SYN-sinfo-2"],
                       "R.Prim(value=\"n\") defines n from the argument (SYN-sinfo-1: "
                       "R.Prim(dtype | value=)); the result is R.prim_value(n * 3)."))

    tuple_nested = '''
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tuple(R.Tensor((), "int32"), R.Shape([3])))) -> R.Tuple(R.Tuple(R.Shape([3]), R.Tensor((), "int32")), R.Tensor((2,), "float32")):
        inner = t[1]
        a = inner[1]
        b = inner[0]
        c = t[0]
        return ((a, b), c)
'''
    v = _f32(_rng(21), 2)
    cases.append(valid("ann_tuple_nested", tuple_nested,
                       [ok([tuple_(tensor(v), tuple_(tensor(np.int32(-4)), shape([3])))],
                           [shape([3]), tensor(np.int32(-4)), tensor(v)])],
                       ["SYN-sinfo-1", "SYN-expr-3"],
                       "Nested R.Tuple annotations on a parameter and the return; t[i] "
                       "indexing (SYN-expr-3); outputs flattened depth-first."))

    tuple_bare = '''
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple, x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
'''
    cases.append(valid("ann_tuple_bare_is_empty", tuple_bare,
                       [ok([tuple_(), tensor(v)], [tensor(v)])],
                       ["SYN-sinfo-1"],
                       "A bare R.Tuple annotation is R.Tuple() with no fields, as in TVM 0.27 "
                       "(which prints it as R.Tuple and rejects a non-empty tuple argument); "
                       "an empty tuple is accepted."))

    python_tuple = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> (R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        y = R.negative(x)
        return (x, y)
'''
    cases.append(valid("ann_python_tuple_return", python_tuple,
                       [ok([tensor(v)], [tensor(v), tensor(-v)])], ["SYN-sinfo-1"],
                       "A Python tuple of annotations is an R.Tuple (SYN-sinfo-1)."))

    callable_case = '''
@I.ir_module
class Module:
    @R.function
    def double(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.add(a, a)
        return b

    @R.function
    def apply(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = f(x)
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.apply(cls.double, x)
        return y
'''
    x4 = _f32(_rng(22), 4)
    cases.append(valid("ann_callable_parameter", callable_case,
                       [ok([tensor(x4)], [tensor(x4 + x4)])], ["SYN-sinfo-1"],
                       "R.Callable((params,), ret) annotates a parameter; main passes a "
                       "module function as a value. Output 2x."))

    callable_purity = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def neg(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            b = R.negative(a)
            return b
        g: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32"), True) = neg
        y = g(x)
        return y
'''
    cases.append(valid("ann_callable_with_purity", callable_purity,
                       [ok([tensor(x4)], [tensor(-x4)])], ["SYN-sinfo-1", "SYN-relax-7"],
                       "R.Callable with an explicit purity flag annotating a local function "
                       "binding; output -x."))

    obj = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Object, w: R.Any) -> R.Object:
        y = R.match_cast(x, R.Tensor((2,), "float32"))
        z = R.add(y, y)
        o: R.Object = z
        return o
'''
    cases.append(valid("ann_object_and_any", obj,
                       [ok([tensor(v), shape([5])], [tensor(v + v)])], ["SYN-sinfo-1",
                                                                        "SYN-relax-5"],
                       "R.Object and R.Any parameters; R.match_cast recovers a tensor; a "
                       "binding annotated R.Object. Output x + x."))
    return cases


# ==============================================================================================
# Leaf values: R.const, R.prim_value, R.str, R.dtype, R.shape
# ==============================================================================================

def leaf_cases() -> list[Case]:
    cases = []
    rng = _rng(30)

    def const_case(name, const_text, x_dtype, x_shape, expected_fn, covers, desc):
        text = f'''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({x_shape!r}, "{x_dtype}")):
        c = {const_text}
        y = R.add(x, c)
        return y
'''
        if x_dtype.startswith("float"):
            x = rng.uniform(-4, 4, size=x_shape).astype(x_dtype)
        else:
            x = rng.integers(-20, 20, size=x_shape).astype(x_dtype)
        cases.append(valid(name, text, [ok([tensor(x)], [tensor(expected_fn(x))])],
                           covers, desc))

    const_case("const_scalar_float32", 'R.const(1.5, "float32")', "float32", (3,),
               lambda x: x + np.float32(1.5), ["SYN-const-1", "SYN-relax-9"],
               "R.const(1.5, \"float32\") added to x.")
    const_case("const_scalar_int32", 'R.const(-7, "int32")', "int32", (2, 2),
               lambda x: x + np.int32(-7), ["SYN-const-1"], "R.const(-7, \"int32\") added to x.")
    const_case("const_default_float_is_float32", "R.const(0.25)", "float32", (4,),
               lambda x: x + np.float32(0.25), ["SYN-const-1"],
               "R.const(0.25) without a dtype is float32 (SYN-const-1).")
    const_case("const_default_int_is_int32", "R.const(3)", "int32", (4,),
               lambda x: x + np.int32(3), ["SYN-const-1"],
               "R.const(3) without a dtype is int32 (SYN-const-1).")
    const_case("const_list_2d", 'R.const([[1.0, 2.0, 3.0], [-4.0, 0.5, 6.0]], "float32")',
               "float32", (2, 3),
               lambda x: x + np.array([[1, 2, 3], [-4, 0.5, 6]], "float32"), ["SYN-const-1"],
               "A 2x3 R.const from a nested list.")
    const_case("const_list_int64", 'R.const([1, -2, 3], "int64")', "int64", (3,),
               lambda x: x + np.array([1, -2, 3], "int64"), ["SYN-const-1"],
               "An int64 R.const from a list.")
    const_case("const_hex_and_exponent", 'R.const([0x10, 1e2, -2.5e-1], "float64")',
               "float64", (3,), lambda x: x + np.array([16.0, 100.0, -0.25]),
               ["SYN-lex-1", "SYN-const-1"],
               "Hex and exponent literals (SYN-lex-1) in a float64 R.const.")
    const_case("const_int8_bounds", 'R.const([127, -128], "int8")', "int8", (2,),
               lambda x: (x.astype("int64") + np.array([127, -128])).astype("int8"),
               ["SYN-const-1"], "int8 constants at both ends of the range; the add wraps.")
    const_case("const_float16", 'R.const([0.5, -1.0, 2.0], "float16")', "float16", (3,),
               lambda x: x + np.array([0.5, -1.0, 2.0], "float16"), ["SYN-const-1"],
               "A float16 R.const.")

    bool_const = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "bool")) -> R.Tensor((3,), "bool"):
        c = R.const([True, False, True], "bool")
        y = R.logical_and(x, c)
        return y
'''
    xb = np.array([True, True, False])
    cases.append(valid("const_bool_list", bool_const,
                       [ok([tensor(xb)], [tensor(xb & np.array([True, False, True]))])],
                       ["SYN-const-1"], "A bool R.const combined with logical_and."))

    nan_const = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        c = R.const([float("nan"), float("inf")], "float32")
        y = R.add(x, c)
        return y
'''
    x2 = np.array([1.0, -3.0], "float32")
    cases.append(valid("const_nan_inf", nan_const,
                       [ok([tensor(x2)], [tensor(x2 + np.array([np.nan, np.inf], "float32"))])],
                       ["SYN-const-1"], "float(\"nan\") and float(\"inf\") in an R.const."))

    prim_value = '''
@I.ir_module
class Module:
    @R.function
    def main() -> R.Tuple(R.Prim("int64"), R.Prim("float32"), R.Prim("bool")):
        a = R.prim_value(7)
        b = R.prim_value(T.float32(0.5))
        c = R.prim_value(T.bool(True))
        return (a, b, c)
'''
    cases.append(valid("prim_value_leaves", prim_value,
                       [ok([], [prim(7), prim(0.5, "float32"), prim(True, "bool")])],
                       ["SYN-relax-9"],
                       "R.prim_value of an int (int64), T.float32 and T.bool (SYN-relax-9)."))

    str_dtype = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        s = R.str("tab\\there \\"quoted\\" \\u00e9")
        d = R.dtype("float32")
        t = (x, s, d)
        y = t[0]
        return y
'''
    cases.append(valid("str_and_dtype_leaves", str_dtype,
                       [ok([tensor(x2)], [tensor(x2)])], ["SYN-relax-9", "SYN-lex-1"],
                       "R.str with escapes and R.dtype leaves bound and put in a tuple "
                       "(SYN-relax-9); output the tuple's first field."))

    string_forms = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), 'float32')) -> R.Tensor((2,), """float32"""):
        a = R.str('single')
        b = R.str(r"raw\\n")
        c = R.str(u"unicode")
        y = R.astype(x, dtype='float32')
        return y
'''
    cases.append(valid("string_literal_quotes_and_prefixes", string_forms,
                       [ok([tensor(x2)], [tensor(x2)])], ["SYN-lex-1"],
                       "Single, double and triple quotes, r and u prefixes (SYN-lex-1)."))

    shape_static = '''
@I.ir_module
class Module:
    @R.function
    def main() -> R.Shape([2, 3]):
        s = R.shape([2, 3])
        return s
'''
    cases.append(valid("shape_expr_static", shape_static, [ok([], [shape([2, 3])])],
                       ["SYN-relax-9"], "R.shape([2, 3]) returned."))
    return cases


# ==============================================================================================
# Functions, decorators, attributes, control flow
# ==============================================================================================

def function_cases() -> list[Case]:
    cases = []
    rng = _rng(40)
    x4 = _f32(rng, 4)

    func_attr = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 16}, "my.list": [1, 2], "my.flag": True, "my.name": "abc"})
        y = R.multiply(x, x)
        return y
'''
    cases.append(valid("relax_func_attr", func_attr, [ok([tensor(x4)], [tensor(x4 * x4)])],
                       ["SYN-relax-8", "SYN-attr-1"],
                       "R.func_attr with a nested dict, a list, a bool and a string "
                       "(SYN-relax-8, SYN-attr-1); output x * x."))

    tir_attr = '''
@I.ir_module
class Module:
    @T.prim_func
    def neg(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"tir.noalias": True, "op_pattern": 0, "global_symbol": "neg"})
        for i in range(4):
            B[i] = T.float32(0) - A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.neg, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
'''
    cases.append(valid("tir_func_attr", tir_attr, [ok([tensor(x4)], [tensor(-x4)])],
                       ["SYN-tir-4", "SYN-func-1", "SYN-tir-10"],
                       "T.func_attr at the top of a PrimFunc with tir.noalias, op_pattern and "
                       "global_symbol; @T.prim_func without parentheses; a range loop "
                       "without blocks."))

    match_buffer = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def transpose(a: T.handle, b: T.handle):
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vj, vi]

    @R.function
    def main(x: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        m = T.int64()
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((n, m), "float32"))
        return y
'''
    runs = []
    for mm, nn in ((2, 3), (1, 5)):
        x = _f32(rng, mm, nn)
        runs.append(ok([tensor(x)], [tensor(x.T.copy())]))
    cases.append(valid("tir_match_buffer", match_buffer, runs,
                       ["SYN-tir-2", "SYN-tir-8", "SYN-tir-5", "SYN-tir-9"],
                       "T.handle parameters matched by T.match_buffer with symbolic shapes; "
                       "T.reads/T.writes; output x.T."))

    decorators = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function(private=True)
    def helper(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.subtract(a, R.const(1.0, "float32"))
        return b

    @R.function(pure=True, private=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        z = R.call_tir(cls.copy, (y,), out_ty=R.Tensor((4,), "float32"))
        return z
'''
    cases.append(valid("decorator_options", decorators, [ok([tensor(x4)], [tensor(x4 - 1)])],
                       ["SYN-func-1"],
                       "@R.function(private=True), @R.function(pure=True, private=False), "
                       "@T.prim_func(private=True, s_tir=True) (SYN-func-1); output x - 1."))

    impure = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] * T.float32(2)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.double(x, out)
        return out
'''
    cases.append(valid("expression_statement_impure_call", impure,
                       [ok([tensor(x4)], [tensor(x4 * 2)])],
                       ["SYN-relax-4", "SYN-func-1"],
                       "A bare call statement cls.double(x, out) in a pure=False function binds "
                       "its value to _ (SYN-relax-4); the destination-passing call fills out = "
                       "2x."))

    if_else = '''
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        if c:
            t = R.add(x, x)
            y = R.multiply(t, x)
        else:
            y = R.negative(x)
        return y
'''
    runs = [ok([tensor(np.bool_(True)), tensor(x4)], [tensor((x4 + x4) * x4)]),
            ok([tensor(np.bool_(False)), tensor(x4)], [tensor(-x4)])]
    cases.append(valid("if_else_tensor_condition", if_else, runs, ["SYN-relax-6"],
                       "if/else on a 0-d bool tensor, each branch ending with y = ...; "
                       "both branches run."))

    nested_if = '''
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((), "bool"), b: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if a:
            if b:
                y1 = R.add(x, x)
            else:
                y1 = R.subtract(x, x)
            y = y1
        else:
            y = R.negative(x)
        return y
'''
    runs = []
    for a in (True, False):
        for b in (True, False):
            want = (x4 + x4 if b else x4 - x4) if a else -x4
            runs.append(ok([tensor(np.bool_(a)), tensor(np.bool_(b)), tensor(x4)], [tensor(want)]))
    cases.append(valid("if_else_nested", nested_if, runs, ["SYN-relax-6"],
                       "An if nested in a branch; all four paths run."))

    prim_if = '''
@I.ir_module
class Loop:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: R.Prim("int64")) -> R.Tensor((3,), "float32"):
        cls = Loop
        if k <= 0:
            r = x
        else:
            y = R.multiply(x, R.const(2.0, "float32"))
            r = cls.main(y, R.prim_value(k - 1))
        return r
'''
    x3 = np.array([1.0, -0.5, 3.0], "float32")
    cases.append(valid("if_on_prim_comparison_recursion", prim_if,
                       [ok([tensor(x3), prim(k)], [tensor(x3 * np.float32(2 ** k))])
                        for k in (0, 1, 4)],
                       ["SYN-sinfo-4", "SYN-relax-6", "SYN-module-3"],
                       "k: R.Prim(\"int64\") defines k (SYN-sinfo-4), so if k <= 0 and "
                       "R.prim_value(k - 1) are scalar expressions; main calls itself. "
                       "Output x * 2**k."))

    nested_fn = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def scale(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            @R.function
            def inner(b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                c = R.multiply(b, w)
                return c
            d = inner(a)
            e = R.add(d, x)
            return e
        y = scale(x)
        z = scale(y)
        return z
'''
    w4 = _f32(rng, 4)
    y = x4 * w4 + x4
    cases.append(valid("nested_local_functions", nested_fn,
                       [ok([tensor(x4), tensor(w4)], [tensor(y * w4 + x4)])],
                       ["SYN-relax-7"],
                       "Two levels of nested @R.function capturing outer parameters "
                       "(SYN-relax-7); output scale(scale(x)) with scale(a) = a*w + x."))

    docstrings = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

# a comment between the imports and the module


@I.ir_module
class Module:
    """The class docstring."""

    # a comment in the class body
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        """A PrimFunc docstring."""
        # with T.sblock("root"):
        for i in T.serial(4):  # trailing comment
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                # a comment inside a block
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module  # the module alias
        # R.add(x, x) in a comment is not code
        y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), "float32"))
        return y  # the result
'''
    cases.append(valid("docstrings_and_comments", docstrings, [ok([tensor(x4)], [tensor(x4 + 1)])],
                       ["SYN-lex-1", "SYN-module-1", "SYN-module-2"],
                       "Class and PrimFunc docstrings and comments everywhere, including "
                       "commented-out code (SYN-lex-1); output x + 1."))
    module_doc = '''"""A module docstring at the top of the file."""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        """A Relax function docstring
        over two lines."""
        y = R.add(x, x)
        return y
'''
    cases.append(valid("docstrings_module_and_relax_function", module_doc,
                       [ok([tensor(x4)], [tensor(x4 + x4)])], ["SYN-module-1", "SYN-lex-1"],
                       "A docstring at the top of the file (SYN-module-1: docstrings may appear "
                       "at top level) and a two-line docstring in a Relax function."))

    any_order = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.second(x)
        return y

    @R.function
    def second(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        b = cls.third(a)
        c = R.add(b, a)
        return c

    @R.function
    def third(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.multiply(a, a)
        return b
'''
    cases.append(valid("functions_in_any_order", any_order,
                       [ok([tensor(x4)], [tensor(x4 * x4 + x4)])], ["SYN-module-3"],
                       "main calls functions defined after it (SYN-module-3); output x*x + x."))

    module_attrs = '''
@I.ir_module
class Module:
    I.module_attrs({"my_attr": 1, "other": "text"})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y
'''
    cases.append(valid("module_attrs", module_attrs, [ok([tensor(x4)], [tensor(x4 + x4)])],
                       ["SYN-module-2"], "I.module_attrs in the class body (SYN-module-2)."))

    bare = '''
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.add(x, x)
    return y
'''
    cases.append(valid("bare_function_without_module", bare,
                       [ok([tensor(x4)], [tensor(x4 + x4)])], ["SYN-module-1"],
                       "A file holding only a decorated function forms a module named Module "
                       "(SYN-module-1)."))

    sugar = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        a = x + y
        b = a * x
        c = b - y
        d = -c
        e = d / y
        return e
'''
    x23 = _f32(rng, 2, 3)
    y23 = rng.uniform(0.5, 2.0, size=(2, 3)).astype("float32")
    cases.append(valid("tensor_operators", sugar,
                       [ok([tensor(x23), tensor(y23)],
                           [tensor(-(((x23 + y23) * x23) - y23) / y23)])],
                       ["SYN-grammar-1"],
                       "+, *, -, unary - and / on Relax tensors call add, multiply, subtract, "
                       "negative and divide."))

    tuples = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "int32")) -> R.Tuple(R.Tensor((3,), "int32"), R.Tuple(R.Tensor((2,), "float32"), R.Shape([2]))):
        t = (x, (y, R.shape([2])))
        u = t[1]
        v = u[0]
        w = (v, (t[0], u[1]))
        return w
'''
    yi = np.array([1, 2, 3], "int32")
    x2 = x4[:2].copy()
    cases.append(valid("tuple_construct_and_index", tuples,
                       [ok([tensor(x2), tensor(yi)], [tensor(yi), tensor(x2), shape([2])])],
                       ["SYN-expr-3", "SYN-grammar-1"],
                       "Nested tuple literals and t[i] on a tuple (SYN-expr-3), also nested "
                       "inside a tuple literal."))

    kwargs = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tuple(R.Tensor((2, 1), "float32"), R.Tensor((2, 1), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")):
        a = R.sum(x, axis=[1], keepdims=True)
        b = R.sum(x, [1], True)
        c = R.nn.softmax(x, axis=-1)
        d = R.nn.softmax(x, -1)
        return (a, b, c, d)
'''
    s = x23.sum(axis=1, keepdims=True)
    e = np.exp(x23 - x23.max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    cases.append(valid("call_keyword_and_positional_attrs", kwargs,
                       [ok([tensor(x23)], [tensor(s), tensor(s), tensor(sm), tensor(sm)])],
                       ["SYN-call-1..3", "SYN-attr-1", "SI-call-1"],
                       "The same op attributes given by keyword and by position bind alike "
                       "(SYN-call-1..3, SI-call-1): sum(axis=[1], keepdims=True), softmax(-1)."))

    multi_out = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def split2(A: T.Buffer((4,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
        for i in T.serial(2):
            with T.sblock("BC"):
                vi = T.axis.spatial(2, i)
                B[vi] = A[vi]
                C[vi] = A[vi + 2] * T.float32(10)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.split2, (x,), out_ty=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
            a = t[0]
            b = t[1]
            R.output(a, b)
        return (a, b)
'''
    cases.append(valid("call_tir_two_outputs", multi_out,
                       [ok([tensor(x4)], [tensor(x4[:2]), tensor(x4[2:] * 10)])],
                       ["SYN-relax-11", "SYN-relax-3"],
                       "out_ty=[...] with two outputs gives a tuple; R.output names two "
                       "variables (SYN-relax-3)."))

    tir_scalar = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fill(k: T.int64, B: T.Buffer((3,), "int64")):
        for i in T.serial(3):
            with T.sblock("B"):
                vi = T.axis.spatial(3, i)
                B[vi] = k * T.int64(10) + T.Cast("int64", vi)

    @R.function
    def main(k: T.int64) -> R.Tensor((3,), "int64"):
        cls = Module
        y = R.call_tir(cls.fill, (R.prim_value(k),), out_ty=R.Tensor((3,), "int64"))
        return y
'''
    cases.append(valid("tir_scalar_parameter", tir_scalar,
                       [ok([prim(k)], [tensor(np.arange(3, dtype="int64") + 10 * k)])
                        for k in (0, 7)],
                       ["SYN-tir-2", "SYN-sinfo-4"],
                       "A PrimFunc scalar parameter k: T.int64 fed by R.prim_value(k); output "
                       "10k + i."))

    tir_stmts = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def stmts(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
        for i in T.parallel(2):
            for j in T.vectorized(2):
                B[i * 2 + j] = A[i * 2 + j] + 1
        for i in T.unroll(2):
            t: T.int32 = A[i + 4] * 3
            B[i + 4] = t
        for i in range(6, 8):
            if A[i] > 0:
                B[i] = A[i]
            elif A[i] == 0:
                B[i] = 100
            else:
                B[i] = 0 - A[i]

    @R.function
    def main(x: R.Tensor((8,), "int32")) -> R.Tensor((8,), "int32"):
        cls = Module
        y = R.call_tir(cls.stmts, (x,), out_ty=R.Tensor((8,), "int32"))
        return y
'''
    xi = np.array([1, -2, 3, 4, 5, -6, 0, -9], "int32")
    want = np.concatenate([xi[:4] + 1, xi[4:6] * 3,
                           np.where(xi[6:] > 0, xi[6:], np.where(xi[6:] == 0, 100, -xi[6:]))])
    cases.append(valid("tir_loop_kinds_and_statements", tir_stmts,
                       [ok([tensor(xi)], [tensor(want.astype("int32"))])],
                       ["SYN-tir-3", "SYN-tir-10"],
                       "T.parallel, T.vectorized, T.unroll and range(start, stop) loops, a "
                       "typed let t: T.int32 = ..., if/elif/else in TIR (SYN-tir-3, SYN-tir-10)."))

    reduce_block = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def row_sum(A: T.Buffer((T.int64(3), T.int64(4)), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i, k in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("sum"):
                vi = T.axis.spatial(T.int64(3), i)
                vk = T.axis.reduce(T.int64(4), k)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @R.function
    def main(x: R.Tensor((3, 4), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.row_sum, (x,), out_ty=R.Tensor((3,), "float32"))
        return y
'''
    x34 = _f32(rng, 3, 4)
    cases.append(valid("tir_reduction_block_init", reduce_block,
                       [ok([tensor(x34)], [tensor(x34.sum(axis=1))])],
                       ["SYN-tir-11", "SYN-tir-12", "SYN-tir-13"],
                       "A reduction block with T.axis.spatial / T.axis.reduce and T.init(); "
                       "reads/writes inferred (SYN-tir-13). Output row sums."))

    tir_ret = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def affine(k: T.int32) -> T.int32:
        return k * 2 + 1

    @R.function(pure=False)
    def main(k: R.Prim("int32")) -> R.Prim("int32"):
        cls = Module
        r = cls.affine(k)
        return r
'''
    cases.append(valid("tir_return_annotation", tir_ret,
                       [ok([prim(v, "int32")], [prim(2 * v + 1, "int32")]) for v in (20, -3)],
                       ["SYN-tir-1", "SYN-tir-3"],
                       "A PrimFunc with -> T.int32 and return (T.ret), called directly from a "
                       "pure=False Relax function; output 2k + 1."))

    match_cast = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        m = T.int64()
        n = T.int64()
        y: R.Tensor((m, n), "float32") = R.match_cast(x, R.Tensor((m, n), "float32"))
        z = R.match_cast(y, R.Tensor(ndim=2, dtype="float32"))
        w = R.add(y, y)
        return (w, z)
'''
    cases.append(valid("match_cast_annotated_and_plain", match_cast,
                       [ok([tensor(x23)], [tensor(x23 + x23), tensor(x23)])],
                       ["SYN-relax-5", "SYN-sym-1"],
                       "R.match_cast with and without a binding annotation; the cast defines "
                       "m and n (SYN-relax-5)."))

    dataflow_two = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        b = R.multiply(a, x)
        with R.dataflow():
            c = R.subtract(b, a)
            d = R.negative(c)
            R.output(d)
        return d
'''
    cases.append(valid("two_dataflow_blocks", dataflow_two,
                       [ok([tensor(x4)], [tensor(-((x4 + x4) * x4 - (x4 + x4)))])],
                       ["SYN-relax-2", "SYN-relax-3"],
                       "Two dataflow blocks with an ordinary binding between them; outputs "
                       "escape each block (SYN-relax-3)."))
    return cases


# ==============================================================================================
# Lexical matters: tabs, CRLF, continuation lines, Unicode
# ==============================================================================================

def lexical_cases() -> list[Case]:
    cases = []
    x = _f32(_rng(50), 3)
    base = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, x)
        z = R.multiply(y, x)
        return z
'''
    want = [ok([tensor(x)], [tensor((x + x) * x)])]
    tabs = base.replace("        ", "\t\t").replace("    ", "\t")
    cases.append(valid("tab_indentation", tabs, want, ["SYN-indent-1"],
                       "The module indented with tabs only (SYN-indent-1)."))
    cases.append(valid("crlf_line_endings", base.replace("\n", "\r\n"), want,
                       ["SYN-lex-1", "SYN-indent-1"], "CRLF line endings throughout."))
    continuation = '''@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor(
            (3,),
            "float32",
        ),
    ) -> R.Tensor((3,), "float32"):
        y = R.add(x,
                  x)
        z = \\
            R.multiply(y, x)
        return z
'''
    cases.append(valid("continuation_lines", continuation, want, ["SYN-grammar-1", "SYN-indent-1"],
                       "Bracketed multi-line parameter lists with trailing commas and a "
                       "backslash continuation (SYN-grammar-1)."))
    unicode = '''# Ünïcödé comment: ∑ λ → 日本語
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        s = R.str("héllo wörld ✓")  # ✓ in a comment too
        y = R.add(x, x)
        z = R.multiply(y, x)
        return z
'''
    cases.append(valid("unicode_in_comments_and_strings", unicode, want, ["SYN-lex-1"],
                       "UTF-8 text in comments and a string literal (SYN-lex-1)."))
    mixed_indent = '''@I.ir_module
class Module:
  @R.function
  def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
     y = R.add(x, x)
     z = R.multiply(y, x)
     return z
'''
    cases.append(valid("odd_indent_widths", mixed_indent, want, ["SYN-indent-1"],
                       "Two- and three-space indentation levels are fine as long as they "
                       "are consistent (SYN-indent-1)."))
    return cases


# ==============================================================================================
# Metadata section
# ==============================================================================================

def _metadata_statement(json_text: str) -> str:
    from relax_ref.parser.metadata import escape_python_string

    return 'metadata = tvm.ir.load_json("""' + escape_python_string(json_text) + '""")\n'


def _metadata_json(arrays: list[np.ndarray], key: str = "relax.expr.Constant") -> str:
    from relax_ref.ir.relax import Constant
    from relax_ref.parser.metadata import encode_metadata

    return encode_metadata([Constant(np.asarray(a)) for a in arrays], key)


def _ndarray_record(arr: np.ndarray, code: int, bits: int, *, magic: int = 0xDD5E40F096B4A13F,
                    size_delta: int = 0, extra: bytes = b"") -> str:
    """A SYN-meta-8 record written by hand (no relax_ref code), base64."""
    arr = np.ascontiguousarray(arr)
    data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    header = struct.pack("<QQiiiBBH", magic, 0, 1, 0, arr.ndim, code, bits, 1)
    body = struct.pack(f"<{arr.ndim}q", *arr.shape) + struct.pack("<q", len(data) + size_delta)
    return base64.b64encode(header + body + data + extra).decode("ascii")


META_BODY = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.add(x, metadata["{key}"][{index}])
        return gv
'''


def metadata_cases() -> list[Case]:
    cases = []
    rng = _rng(60)
    c0 = np.array([[0.5, 1.0], [-2.0, 3.25]], "float32")
    x = _f32(rng, 2, 2)

    two = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), i: R.Tensor((3,), dtype="int32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((3,), dtype="int32")):
        a: R.Tensor((2, 2), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        b: R.Tensor((3,), dtype="int32") = R.multiply(i, metadata["relax.expr.Constant"][1])
        return (a, b)
'''
    c1 = np.array([3, -1, 7], "int32")
    iv = np.array([2, 5, -4], "int32")
    text = _metadata_statement(_metadata_json([c0, c1])) + two
    cases.append(valid("metadata_two_constants", text,
                       [ok([tensor(x), tensor(iv)], [tensor(x + c0), tensor(iv * c1)])],
                       ["SYN-meta-1", "SYN-meta-2", "SYN-meta-3", "SYN-meta-4", "SYN-meta-5",
                        "SYN-meta-6", "SYN-meta-7", "SYN-meta-8", "SYN-meta-9", "SYN-meta-11"],
                       "A metadata section in TVM 0.17's layout with a float32 2x2 and an int32 "
                       "(3,) constant, referenced as metadata[\"relax.expr.Constant\"][i]."))

    scalars = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((3,), dtype="bool"), k: R.Tensor((), dtype="int64")) -> R.Tuple(R.Tensor((3,), dtype="bool"), R.Tensor((), dtype="int64"), R.Tensor((2,), dtype="float64")):
        a = R.logical_or(b, metadata["relax.expr.Constant"][0])
        c = R.subtract(k, metadata["relax.expr.Constant"][1])
        d = R.multiply(metadata["relax.expr.Constant"][2], R.const(2.0, "float64"))
        return (a, c, d)
'''
    cb = np.array([True, False, False])
    ck = np.array(-7, "int64")
    cd = np.array([1.5, -0.25], "float64")
    bv = np.array([False, False, True])
    text = _metadata_statement(_metadata_json([cb, ck, cd])) + scalars
    cases.append(valid("metadata_bool_scalar_float64", text,
                       [ok([tensor(bv), tensor(np.int64(5))],
                           [tensor(bv | cb), tensor(np.int64(5) - ck), tensor(cd * 2)])],
                       ["SYN-meta-6", "SYN-meta-8", "SYN-meta-9"],
                       "Metadata constants of bool (written as TVM 0.17 did), a 0-d int64 and "
                       "float64 (SYN-meta-9)."))

    text = _metadata_statement(_metadata_json([c0], key="ir.GenericConst")) + \
        META_BODY.format(key="ir.GenericConst", index=0)
    cases.append(valid("metadata_generic_const_key", text,
                       [ok([tensor(x)], [tensor(x + c0)])], ["SYN-meta-1", "SYN-meta-11"],
                       "The metadata key ir.GenericConst (TVM 0.27's name): any key of the root "
                       "map is accepted (SYN-meta-1)."))

    plain_string = 'metadata = tvm.ir.load_json("' + \
        _metadata_json([c0]).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + \
        '")\n' + META_BODY.format(key="relax.expr.Constant", index=0)
    cases.append(valid("metadata_ordinary_string_literal", plain_string,
                       [ok([tensor(x)], [tensor(x + c0)])], ["SYN-meta-1", "SYN-meta-2"],
                       "The metadata JSON in an ordinary \"...\" literal with \\n escapes "
                       "(SYN-meta-1, SYN-meta-2)."))

    # -- malformed metadata ------------------------------------------------------------------
    body0 = META_BODY.format(key="relax.expr.Constant", index=0)
    good_json = _metadata_json([c0])

    cases.append(malformed("metadata_reference_without_statement", body0 +
                           "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n",
                           ["SYN-meta-11", "SYN-name-1"],
                           "Text printed with show_meta=False: a metadata reference but no "
                           "metadata statement (SYN-meta-11)."))
    cases.append(malformed("metadata_index_out_of_range",
                           _metadata_statement(good_json) +
                           META_BODY.format(key="relax.expr.Constant", index=1),
                           ["SYN-meta-11"], "metadata[k][1] where the array holds one constant."))
    cases.append(malformed("metadata_unknown_key",
                           _metadata_statement(good_json) +
                           META_BODY.format(key="relax.Constant", index=0),
                           ["SYN-meta-11"], "metadata[k][0] with k not a key of the root map."))
    cases.append(malformed("metadata_bad_json",
                           'metadata = tvm.ir.load_json("""{\\"root\\": 1, \\"nodes\\": [""")\n'
                           + body0, ["SYN-meta-3"], "The metadata string is not JSON."))
    cases.append(malformed("metadata_statement_twice",
                           _metadata_statement(good_json) + _metadata_statement(good_json) + body0,
                           ["SYN-meta-1"], "Two metadata statements (at most one is allowed)."))

    graph = json.loads(good_json)
    graph["b64ndarrays"][0] = _ndarray_record(c0, 2, 32, magic=0x1234)
    cases.append(malformed("metadata_bad_magic",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-8"], "An NDArray record whose magic is not "
                           "0xDD5E40F096B4A13F (SYN-meta-8)."))
    graph = json.loads(good_json)
    graph["b64ndarrays"][0] = _ndarray_record(c0, 2, 32, size_delta=4)
    cases.append(malformed("metadata_size_field_disagrees",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-8"], "A record whose byte-size field disagrees with its "
                           "shape and dtype (SYN-meta-8)."))
    graph = json.loads(good_json)
    graph["b64ndarrays"][0] = _ndarray_record(c0, 2, 32, extra=b"\x00\x00")
    cases.append(malformed("metadata_trailing_bytes",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-8"], "A record with bytes after its data (SYN-meta-8)."))
    graph = json.loads(good_json)
    graph["b64ndarrays"][0] = _ndarray_record(np.zeros((2, 2), "float64"), 5, 64)
    cases.append(malformed("metadata_complex_dtype_code",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-9"], "A record with DLPack code 5 (complex), which is not "
                           "read (SYN-meta-9)."))
    graph = json.loads(good_json)
    graph["b64ndarrays"][0] = "not base64!!"
    cases.append(malformed("metadata_bad_base64",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-8"], "A b64ndarrays entry that is not base64."))
    graph = json.loads(good_json)
    for node in graph["nodes"]:
        if node.get("type_key") == "relax.TensorStructInfo":
            node["attrs"]["dtype"] = "int32"
    cases.append(malformed("metadata_struct_info_disagrees_with_data",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-7"], "The constant's struct info says int32 but the "
                           "record holds float32 (SYN-meta-7)."))
    graph = json.loads(good_json)
    for node in graph["nodes"]:
        if node.get("type_key") == "relax.expr.Constant":
            node["type_key"] = "tir.StringImm"
    cases.append(malformed("metadata_entry_not_a_constant",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-5"], "An array element of a type other than "
                           "relax.expr.Constant (SYN-meta-5)."))
    graph = json.loads(good_json)
    graph["nodes"][2]["data"] = [999]
    cases.append(malformed("metadata_reference_out_of_range",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-4"], "A node reference beyond the node list (SYN-meta-4)."))
    graph = json.loads(good_json)
    rec = (struct.pack("<QQiiiBBH", 0xDD5E40F096B4A13F, 0, 1, 0, 33, 2, 32, 1)
           + struct.pack("<33q", *([1] * 33)) + struct.pack("<q", 4) + struct.pack("<f", 1.0))
    graph["b64ndarrays"][0] = base64.b64encode(rec).decode("ascii")
    cases.append(malformed("metadata_ndim_over_limit",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-10"], "A record of ndim 33 (at most 32, SYN-meta-10)."))
    graph = json.loads(good_json)
    rec = (struct.pack("<QQiiiBBH", 0xDD5E40F096B4A13F, 0, 1, 0, 2, 2, 32, 1)
           + struct.pack("<2q", 2**20, 2**12) + struct.pack("<q", 2**34))
    graph["b64ndarrays"][0] = base64.b64encode(rec).decode("ascii")
    cases.append(malformed("metadata_element_count_over_limit",
                           _metadata_statement(json.dumps(graph, indent=2)) + body0,
                           ["SYN-meta-10"], "A record claiming 2**32 elements (at most 2**31), "
                           "with no data: the limit is checked before any data is read."))
    cases.append(malformed("metadata_bad_escape",
                           'metadata = tvm.ir.load_json("""{\\x4}""")\n' + body0,
                           ["SYN-meta-2", "SYN-lex-1"],
                           "A \\x escape with too few hex digits (SYN-meta-2)."))
    return cases


# ==============================================================================================
# Malformed texts
# ==============================================================================================

GOOD = '''n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
            z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)
            R.output(z)
        return z
'''


def _r(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def good_template_case() -> Case:
    rng = _rng(70)
    runs = []
    for k in (2, 3):
        x = _f32(rng, k, 4)
        runs.append(ok([tensor(x)], [tensor((x + 1) + x)]))
    return valid("malformed_template_is_valid", GOOD, runs,
                 ["SYN-module-1", "SYN-relax-3", "SYN-relax-11"],
                 "The valid module every malformed_* case of this area breaks in one place.")


# (name, text, covers, description)
MALFORMED = [
    # SYN-lex-1
    ("binary_garbage", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00", ["SYN-lex-1"],
     "Binary bytes (an ELF header with NUL bytes)."),
    ("nul_byte_in_text", GOOD[:200] + "\x00" + GOOD[200:], ["SYN-lex-1"],
     "A NUL byte inside otherwise valid text."),
    ("unknown_character", _r("R.add(y, x)", "R.add(y, x) \u2603"), ["SYN-lex-1"],
     "A character that starts no token (a snowman after an expression)."),
    ("dollar_character", _r("R.add(y, x)", "R.add(y, $x)"), ["SYN-lex-1"],
     "A '$' in an expression."),
    ("unterminated_string", _r("R.add(y, x)", 'R.add(y, "x)'), ["SYN-lex-1"],
     "A string literal that never closes on its line."),
    ("unterminated_triple_quote", GOOD + '\n"""never closed\n', ["SYN-lex-1"],
     "A triple-quoted string that never closes."),
    # SYN-grammar-1
    ("empty_file", "", ["SYN-module-1"], "An empty file holds no module."),
    ("only_comment", "# nothing here\n", ["SYN-module-1"], "A file with only a comment."),
    ("truncated_half", GOOD[: len(GOOD) // 2], ["SYN-grammar-1"], "The text cut in half."),
    ("truncated_after_colon", GOOD[: GOOD.index("class Module:") + len("class Module:")],
     ["SYN-grammar-1"], "The text cut right after the class header."),
    ("truncated_in_string", GOOD[: GOOD.index('"float32"') + 4], ["SYN-grammar-1", "SYN-lex-1"],
     "The text cut inside a string literal."),
    ("unbalanced_paren", _r("R.add(y, x)", "R.add(y, x"), ["SYN-grammar-1"],
     "A call with no closing parenthesis."),
    ("extra_paren", _r("R.add(y, x)", "R.add(y, x))"), ["SYN-grammar-1"],
     "An extra closing parenthesis."),
    ("unbalanced_bracket", _r('T.axis.remap("SS", [i, j])', 'T.axis.remap("SS", [i, j)'),
     ["SYN-grammar-1"], "A list closed by a parenthesis."),
    ("unbalanced_brace",
     _r("        cls = Module\n", '        R.func_attr({"a": 1)\n        cls = Module\n'),
     ["SYN-grammar-1"], "A dict closed by a parenthesis."),
    ("lambda_expression", _r("R.add(y, x)", "lambda: y"), ["SYN-grammar-1"],
     "lambda is not part of the grammar."),
    ("import_statement", "import os\n" + GOOD, ["SYN-import-1"],
     "An import of a module other than TVM's and the test modules'."),
    ("distributed_mesh", _r("class Module:\n", 'class Module:\n    I.module_global_infos({"mesh": '
                            '[R.device_mesh((2,), I.Range(0, 2))]})\n'), ["SYN-dist-1"],
     "Distributed Relax (a device mesh), which relax_ref does not model."),
    ("star_args", _r("R.add(y, x)", "R.add(*y)"), ["SYN-call-1"],
     "*args of a tensor: only a tuple known while reading is spread."),
    ("list_comprehension", _r("(x,), out_ty", "[v for v in (x,)], out_ty"), ["SYN-grammar-1"],
     "A list comprehension."),
    # SYN-indent-1
    ("bad_dedent", _r("        cls = Module", "      cls = Module"), ["SYN-indent-1"],
     "A line indented to a level that matches no enclosing block."),
    ("unexpected_indent", _r("            R.output(z)", "                R.output(z)"),
     ["SYN-indent-1"], "A line indented deeper than its block."),
    ("tab_space_mix", _r("        return z", "\t  return z"), ["SYN-indent-1"],
     "A tab then two spaces: column 10, which matches no level."),
    # SYN-limit-1
    ("huge_integer_literal", _r("R.add(y, x)", "R.prim_value(" + "9" * 5000 + ")"),
     ["SYN-limit-1", "SYN-lex-1"], "An integer literal beyond Python's digit limit."),
    ("huge_power_in_shape", _r("z: R.Tensor((n, 4)", "z: R.Tensor((n, 2 ** 99999)"),
     ["SYN-limit-1"], "A constant-folded power beyond the exponent limit."),
    ("deep_nesting_unclosed", _r("R.add(y, x)", "(" * 3000 + "y"), ["SYN-limit-1",
                                                                   "SYN-grammar-1"],
     "3000 unclosed parentheses."),
    # SYN-module-*
    ("top_level_statement", "x = 1\n" + GOOD, ["SYN-module-1"],
     "An ordinary assignment at top level."),
    ("two_modules", GOOD + "\n@I.ir_module\nclass Other:\n    pass\n", ["SYN-module-1"],
     "A second @I.ir_module class."),
    ("class_without_decorator", GOOD.replace("@I.ir_module\n", ""), ["SYN-module-1"],
     "The module class without @I.ir_module."),
    ("class_body_statement", _r("    @R.function\n", "    k = 3\n    @R.function\n"),
     ["SYN-module-2"], "An assignment in the class body."),
    ("duplicate_function", GOOD + "\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n"
     "        return x\n", ["SYN-module-3"], "Two functions named main."),
    ("typevar_name_mismatch", _r('n = TypeVar("n")', 'n = TypeVar("m")'), ["SYN-typevar-1"],
     "n = TypeVar(\"m\"): the declared name differs from the assigned one."),
    # SYN-func-*
    ("unknown_decorator", _r("@R.function", "@R.fn"), ["SYN-func-1"],
     "@R.fn is not a decorator."),
    ("unknown_module_decorator", _r("@I.ir_module", "@I.module"), ["SYN-func-1",
                                                                  "SYN-module-1"],
     "@I.module is not @I.ir_module."),
    ("function_without_decorator", _r("    @R.function\n", ""), ["SYN-func-1", "SYN-module-2"],
     "A def in the module with no decorator."),
    ("relax_option_unknown", _r("@R.function\n", "@R.function(fast=True)\n"), ["SYN-func-1"],
     "@R.function(fast=True): an unknown option."),
    ("prim_func_option_unknown", _r("private=True, s_tir=True", "private=True, speed=1"),
     ["SYN-func-1"], "@T.prim_func(speed=1): an unknown option."),
    ("duplicate_parameter", _r('def main(x: R.Tensor((n, 4), dtype="float32"))',
                               'def main(x: R.Tensor((n, 4), dtype="float32"), '
                               'x: R.Tensor((n, 4), dtype="float32"))'), ["SYN-func-2"],
     "Two parameters named x."),
    ("parameter_without_annotation", _r('def main(x: R.Tensor((n, 4), dtype="float32"))',
                                        "def main(x)"), ["SYN-func-2", "SI-ann-3"],
     "A Relax parameter without an annotation (SYN-func-2)."),
    # SYN-name-*
    ("unknown_variable", _r("R.add(y, x)", "R.add(y, w)"), ["SYN-name-1"],
     "An undefined variable w."),
    ("unknown_symbolic_variable", _r("z: R.Tensor((n, 4)", "z: R.Tensor((k, 4)"),
     ["SYN-name-1"], "An undeclared name k as a dimension."),
    ("unknown_namespace", _r("R.add(y, x)", "Q.add(y, x)"), ["SYN-name-1"],
     "An unknown namespace Q."),
    ("unknown_module_function", _r("cls.add_one, (x,)", "cls.add_two, (x,)"), ["SYN-name-2"],
     "cls.add_two where the module has no such function (SYN-name-2)."),
    # SYN-relax-*
    ("missing_return", _r("        return z\n", ""), ["SYN-relax-1"],
     "A Relax body without return."),
    ("statement_after_return", _r("        return z\n", "        return z\n        q = z\n"),
     ["SYN-relax-1"], "A binding after return."),
    ("return_in_dataflow", _r("            R.output(z)", "            return z"),
     ["SYN-relax-1", "SYN-relax-3"], "return inside a dataflow block."),
    ("nested_dataflow", _r("            y = R.call_tir",
                           "            with R.dataflow():\n                R.output()\n"
                           "            y = R.call_tir"), ["SYN-relax-2"],
     "A dataflow block inside a dataflow block."),
    ("with_other_than_dataflow", _r("with R.dataflow():", "with R.something():"),
     ["SYN-relax-2"], "with R.something(): in a Relax function."),
    ("output_outside_dataflow", _r("        return z", "        R.output(z)\n        return z"),
     ["SYN-relax-3"], "R.output outside a dataflow block."),
    ("output_of_unbound_variable", _r("R.output(z)", "R.output(q)"), ["SYN-relax-3"],
     "R.output naming a variable the block does not bind."),
    ("tuple_assignment", _r('z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)',
                            "z, w = R.add(y, x)"), ["SYN-relax-4"],
     "z, w = ...: only one name may be bound."),
    ("annotation_without_value", _r('z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)',
                                    'z: R.Tensor((n, 4), dtype="float32")'), ["SYN-relax-4"],
     "An annotated name with no value."),
    ("match_cast_missing_target", _r('z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)',
                                     "z = R.match_cast(y)"), ["SYN-relax-5"],
     "R.match_cast with one argument."),
    ("if_without_else", _r("        return z", "        if x:\n            q = x\n        return z"),
     ["SYN-relax-6"], "A Relax if without else."),
    ("if_branches_bind_different_names",
     _r("        return z", "        if x:\n            q = x\n        else:\n            r = x\n"
                            "        return z"), ["SYN-relax-6"],
     "The branches end by assigning different names."),
    ("elif_in_relax",
     _r("        return z", "        if x:\n            q = x\n        elif x:\n            q = x\n"
                            "        else:\n            q = x\n        return z"),
     ["SYN-relax-6"], "elif in a Relax function."),
    ("return_in_branch",
     _r("        return z", "        if x:\n            return x\n        else:\n"
                            "            q = x\n        return z"), ["SYN-relax-6"],
     "return inside an if branch."),
    ("match_cast_as_operand", _r("R.add(y, x)", 'R.add(R.match_cast(y, R.Tensor((n, 4), "float32")), x)'),
     ["SYN-relax-10"], "R.match_cast used as an operand, not a binding."),
    ("call_tir_without_output", _r(', out_ty=R.Tensor((n, 4), dtype="float32"))', ")"),
     ["SYN-relax-11"], "R.call_tir without out_ty / out_sinfo."),
    # SYN-call / SYN-expr
    ("keyword_twice", _r("R.add(y, x)", "R.nn.softmax(y, axis=1, axis=2)"),
     ["SYN-call-1..3", "SYN-call-1"],
     "The same keyword argument twice."),
    ("positional_after_keyword", _r("R.add(y, x)", "R.nn.softmax(axis=1, y)"),
     ["SYN-call-1..3", "SYN-call-1"], "A positional argument after a keyword argument."),
    ("chained_comparison", _r("R.add(y, x)", "R.prim_value(1 < n < 3)"), ["SYN-expr-2"],
     "A chained comparison 1 < n < 3."),
    ("conditional_expression", _r("R.add(y, x)", "y if x else y"), ["SYN-expr-2"],
     "a if c else b."),
    # SYN-sinfo-*
    ("annotation_not_struct_info", _r('z: R.Tensor((n, 4), dtype="float32")', "z: 3"),
     ["SYN-sinfo-1"], "An integer as an annotation."),
    ("tensor_unknown_option", _r('z: R.Tensor((n, 4), dtype="float32")',
                                 'z: R.Tensor((n, 4), dtpe="float32")'), ["SYN-sinfo-1"],
     "R.Tensor(..., dtpe=...): an unknown option."),
    ("tensor_ndim_mismatch", _r('z: R.Tensor((n, 4), dtype="float32")',
                                'z: R.Tensor((n, 4), dtype="float32", ndim=3)'),
     ["SYN-sinfo-2"], "A shape of two dimensions with ndim=3."),
    ("tensor_shape_not_a_tuple", _r('z: R.Tensor((n, 4), dtype="float32")',
                                    'z: R.Tensor(5, dtype="float32")'), ["SYN-sinfo-2"],
     "R.Tensor(5): the shape is not a tuple or list."),
    ("bad_string_dimension", _r("z: R.Tensor((n, 4)", 'z: R.Tensor(("n +", 4)'),
     ["SYN-sinfo-2", "SYN-dim-1"], "A string dimension that is not an expression."),
    ("division_by_zero_in_shape", _r("z: R.Tensor((n, 4)", "z: R.Tensor((n, 4 // 0)"),
     ["SYN-sinfo-2", "SYN-limit-1", "SYN-prim-1"], "A dimension 4 // 0 (constant folding never divides by zero)."),
    ("symbolic_variable_declared_twice",
     _r("        cls = Module\n", "        k = T.int64()\n        k = T.int64()\n        cls = Module\n"),
     ["SYN-sym-1"], "k = T.int64() twice in one function."),
    # SYN-dtype-1 / SYN-const-1
    ("bad_dtype_relax", _r('R.Tensor((n, 4), dtype="float32")) ->',
                           'R.Tensor((n, 4), dtype="float33")) ->'), ["SYN-dtype-1"],
     "The dtype float33."),
    ("bad_dtype_tir", _r('T.Buffer((n, T.int64(4)), "float32"), B',
                         'T.Buffer((n, T.int64(4)), "flaot32"), B'), ["SYN-dtype-1"],
     "The dtype flaot32 in a T.Buffer."),
    ("bad_dtype_const", _r("R.add(y, x)", 'R.add(y, R.const(1, "int7"))'), ["SYN-dtype-1"],
     "R.const with dtype int7."),
    ("const_out_of_range", _r("R.add(y, x)", 'R.add(y, R.const(300, "int8"))'),
     ["SYN-const-1"], "R.const(300, \"int8\"): the value does not fit the dtype."),
    ("const_ragged_list", _r("R.add(y, x)", 'R.add(y, R.const([[1.0, 2.0], [3.0]], "float32"))'),
     ["SYN-const-1"], "R.const of a ragged nested list."),
    # SYN-tir-*
    ("tir_grid_arity", _r("T.grid(n, T.int64(4))", "T.grid(n)"), ["SYN-tir-10"],
     "T.grid with fewer extents than loop variables."),
    ("tir_unknown_loop_kind", _r("T.grid(n, T.int64(4))", "T.spiral(n, T.int64(4))"),
     ["SYN-tir-10"], "T.spiral is not a loop kind."),
    ("tir_remap_arity", _r('T.axis.remap("SS", [i, j])', 'T.axis.remap("S", [i, j])'),
     ["SYN-tir-12"], "T.axis.remap with fewer kinds than variables."),
    ("tir_remap_unknown_kind", _r('T.axis.remap("SS", [i, j])', 'T.axis.remap("SX", [i, j])'),
     ["SYN-tir-12"], "T.axis.remap kind X."),
    ("tir_store_rank", _r("B[vi, vj] = A[vi, vj]", "B[vi] = A[vi, vj]"), ["SYN-tir-9"],
     "A store with one index into a 2-d buffer."),
    ("tir_load_rank", _r("B[vi, vj] = A[vi, vj]", "B[vi, vj] = A[vi]"), ["SYN-tir-9"],
     "A load with one index from a 2-d buffer."),
    ("tir_slice_in_store", _r("B[vi, vj] = A[vi, vj]", "B[vi, 0:4] = A[vi, vj]"),
     ["SYN-tir-9"], "A slice in a buffer store (slices only denote regions)."),
    ("tir_unknown_function", _r("A[vi, vj] + T.float32(1.0)", "T.frobnicate(A[vi, vj])"),
     ["SYN-tir-3", "SYN-prim-1"], "T.frobnicate is not a TIR function."),
    ("tir_with_other", _r('with T.sblock("add"):', "with T.nothing():"), ["SYN-tir-11"],
     "with T.nothing(): in a PrimFunc."),
    ("tir_init_outside_block", _r('with T.sblock("add"):', "with T.init():"), ["SYN-tir-11"],
     "T.init() outside a block."),
    ("tir_float_for_int_constant", _r("T.float32(1.0)", "T.int32(1.5)"), ["SYN-prim-1"],
     "T.int32(1.5)."),
    ("tir_param_not_buffer", _r('A: T.Buffer((n, T.int64(4)), "float32")', "A: R.Tensor((n, 4))"),
     ["SYN-tir-2", "SYN-call-3"], "A PrimFunc parameter annotated with R.Tensor."),
    ("tir_tuple_assignment", _r('vi, vj = T.axis.remap("SS", [i, j])', "vi, vj = i, j"),
     ["SYN-tir-6"], "A tuple assignment in TIR that is not T.axis.remap."),
    # SYN-expr-1, SYN-sinfo-3/5/6
    ("attribute_of_a_value", _r("R.add(y, x)", "x.data"), ["SYN-expr-1"],
     "An attribute of a Relax variable, which has none in TVMScript."),
    ("shape_ndim_below_minus_one",
     _r('def main(x: R.Tensor((n, 4), dtype="float32"))',
        'def main(x: R.Tensor((n, 4), dtype="float32"), s: R.Shape(ndim=-2))'),
     ["SYN-sinfo-3"], "R.Shape(ndim=-2): ndim is -1 (unknown) or more."),
    ("tuple_annotation_keyword",
     _r('z: R.Tensor((n, 4), dtype="float32") = R.add(y, x)',
        'z: R.Tuple(R.Tensor((n, 4), dtype="float32"), k=1) = R.add(y, x)'),
     ["SYN-sinfo-5"], "R.Tuple takes struct info arguments, no keywords."),
    ("callable_purity_not_bool",
     _r('def main(x: R.Tensor((n, 4), dtype="float32"))',
        'def main(x: R.Tensor((n, 4), dtype="float32"), f: R.Callable((R.Tensor,), R.Tensor, "no"))'),
     ["SYN-sinfo-6"], "The purity of R.Callable is True or False, not a string."),
]


def malformed_cases() -> list[Case]:
    return [malformed(f"malformed_{name}", text, covers, desc)
            for name, text, covers, desc in MALFORMED]


def front_door_cases() -> list[Case]:
    """What files pasted from TVM look like (issue 17): import lines, the module decorator's
    spellings, declarations of symbolic variables, meta values, a variable's struct info,
    a spread tuple, global infos and index maps; each is GOOD rewritten, and runs as
    GOOD does."""
    def runs(seed: int) -> list:
        rng = _rng(seed)
        out = []
        for k in (2, 3):
            x = _f32(rng, k, 4)
            out.append(ok([tensor(x)], [tensor((x + 1) + x)]))
        return out

    header = ("import tvm\nimport numpy as np\nfrom tvm.script import ir as I, relax as rx, "
              "tirx as T\n")
    imported = header + GOOD.replace("R.", "rx.") + '\nif __name__ == "__main__":\n    tvm.testing.main()\n'
    decorated = "from tvm.script import ir_module\n" + GOOD.replace(
        "@I.ir_module", "@ir_module(check_well_formed=True, s_tir=True)")
    declared = _r("        cls = Module\n", '        k, m = T.int64(), TypeVar("m")\n        cls = Module\n')
    meta = _r("        cls = Module\n", "        one = I.meta_var(R.const(1, \"float32\"))\n"
                                          "        cls = Module\n").replace(
        "R.add(y, x)", "R.add(R.subtract(R.add(y, x), one), one)")
    struct_info = _r('out_ty=R.Tensor((n, 4), dtype="float32")', "out_ty=x.ty")
    spread = _r("R.add(y, x)", "R.add(*(y, x))")
    infos = _r("class Module:\n", 'class Module:\n    I.module_global_infos({"vdevice": '
                                   '[I.vdevice("llvm", 0, "global")]})\n')
    index_map = _r('                vi, vj = T.axis.remap("SS", [i, j])\n',
                   '                vi, vj = T.axis.remap("SS", [i, j])\n'
                   '                T.sblock_attr({"layout": T.index_map(lambda a, b: (b, a))})\n')
    return [
        valid("front_door_imports", imported, runs(71), ["SYN-import-1", "SYN-module-1"],
              "TVM's import lines (an alias rx for R, numpy accepted and unread) and the "
              "main guard of a test file around GOOD."),
        valid("front_door_ir_module_spellings", decorated, runs(72), ["SYN-module-4"],
              "@ir_module after `from tvm.script import ir_module`, with TVM's options."),
        valid("front_door_tuple_declarations", declared, runs(73), ["SYN-sym-2"],
              "k, m = T.int64(), TypeVar(\"m\") in a body declares two symbolic variables."),
        valid("front_door_meta_var", meta, runs(74), ["SYN-sym-3"],
              "one = I.meta_var(R.const(1)) names a constant; z = (y + x - 1) + 1."),
        valid("front_door_struct_info_attribute", struct_info, runs(75), ["SYN-expr-4"],
              "out_ty=x.ty takes x's annotation (x.struct_info in earlier releases)."),
        valid("front_door_spread_tuple", spread, runs(76), ["SYN-call-1"],
              "R.add(*(y, x)) spreads a tuple known while reading, as Python would."),
        valid("front_door_vdevice_global_info", infos, runs(77), ["SYN-vdevice-1"],
              "A virtual device in the module's global infos."),
        valid("front_door_index_map_annotation", index_map, runs(78), ["SYN-index-map-1"],
              "A T.index_map lambda kept in a block annotation."),
    ]


def local_scalar_case() -> Case:
    text = '''@I.ir_module
class Module:
    @T.prim_func(private=True)
    def running_sum(A: T.Buffer((4,), "float32"), B: T.Buffer((1,), "float32")):
        acc: T.float32 = T.float32(0)
        for k in range(4):
            acc += A[k]
        B[0] = acc

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.running_sum, (x,), out_ty=R.Tensor((1,), dtype="float32"))
        return y
'''
    x = np.array([0.5, 1.25, -2.0, 4.0], dtype="float32")
    return valid("tir_mutable_local_scalar", text, [ok([tensor(x)], [tensor([x.sum()])])],
                 ["SYN-tir-16"], "acc: T.float32 = 0 then acc += A[k]: a mutable local "
                 "scalar (TVM 0.27), B = sum(A).")


def cases() -> list[Case]:
    return (dialect_cases() + symbolic_cases() + annotation_cases() + leaf_cases()
            + function_cases() + lexical_cases() + metadata_cases()
            + [good_template_case()] + front_door_cases() + [local_scalar_case()]
            + malformed_cases())
