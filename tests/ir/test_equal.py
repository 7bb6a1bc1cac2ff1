"""Structural equality modulo renaming (ir/equal.py), on IR built by hand.

Each test builds two pieces of IR with a small factory taking the names (or the shape)
to vary, then states whether they are equal, and that equal IR hashes equal."""
from __future__ import annotations

import math

import numpy as np
import pytest

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as R
from relax_ref.ir import struct_info as S
from relax_ref.ir import tir as T
from relax_ref.ir.dtype import FLOAT32, INT32, INT64, parse_dtype
from relax_ref.ir.equal import assert_structural_equal, structural_equal, structural_hash
from relax_ref.ir.span import Span

ADD = R.Op("relax.add")


def tensor(*dims, dtype=FLOAT32) -> S.TensorStructInfo:
    return S.TensorStructInfo(tuple(P.as_prim(d) for d in dims), dtype)


def equal_and_same_hash(a, b, **kw) -> bool:
    eq = structural_equal(a, b, **kw)
    if eq:
        assert structural_hash(a) == structural_hash(b)
    return eq


def add_function(x_name="x", y_name="y", n_name="n", *, swap=False, y_dim=None,
                 var_type=R.Var, block_type=R.BindingBlock) -> R.Function:
    """def f(x: R.Tensor((n, 4)), y: R.Tensor((n | y_dim, 4))):
           lv = R.add(x, y)   (or R.add(y, x) when swap)
           return lv"""
    n = P.Var(n_name)
    x = R.Var(x_name, tensor(n, 4))
    y = R.Var(y_name, tensor(y_dim if y_dim is not None else n, 4))
    lv = var_type("lv", tensor(n, 4))
    call = R.Call(ADD, (y, x) if swap else (x, y))
    body = R.SeqExpr((block_type((R.VarBinding(lv, call),)),), lv)
    return R.Function((x, y), body, tensor(n, 4))


# ------------------------------------------------------------------------------ Relax

def test_renaming_params_and_shape_vars_is_equal():
    a, b = add_function("x", "y", "n"), add_function("a", "b", "m")
    assert equal_and_same_hash(a, b)
    assert_structural_equal(a, b)


def test_swapped_use_of_params_is_unequal():
    a, b = add_function(), add_function(swap=True)
    assert not structural_equal(a, b)
    with pytest.raises(AssertionError, match=r"body\.blocks\[0\]\.bindings\[0\]\.value"
                                             r"\.args\[0\]: Var 'x' vs Var 'y'"):
        assert_structural_equal(a, b)


def test_shape_var_used_consistently_vs_inconsistently():
    # f(x: (n, 4), y: (n, 4)) vs f(x: (n, 4), y: (m, 4)): n then m cannot both map to n.
    consistent = add_function()
    inconsistent = add_function(y_dim=P.Var("m"))
    assert not structural_equal(consistent, inconsistent)
    assert not structural_equal(inconsistent, consistent)
    assert equal_and_same_hash(inconsistent, add_function(y_dim=P.Var("k")))


def test_shape_var_dtype_matters():
    def f(dtype):
        n = P.Var("n", dtype)
        x = R.Var("x", S.TensorStructInfo((n,), FLOAT32))
        return R.Function((x,), R.SeqExpr((), x))

    assert not structural_equal(f(INT64), f(INT32))


def test_dataflow_var_never_equals_var():
    assert not structural_equal(add_function(var_type=R.DataflowVar), add_function())
    assert not structural_equal(R.DataflowVar("x"), R.Var("x"), map_free_vars=True)


def test_dataflow_block_never_equals_binding_block():
    assert not structural_equal(add_function(block_type=R.DataflowBlock), add_function())


def test_free_vars_must_be_identical_unless_mapped():
    x, y = R.Var("x", tensor(4)), R.Var("y", tensor(4))
    assert structural_equal(R.Call(ADD, (x, x)), R.Call(ADD, (x, x)))
    assert not structural_equal(R.Call(ADD, (x, x)), R.Call(ADD, (y, y)))
    assert structural_equal(R.Call(ADD, (x, x)), R.Call(ADD, (y, y)), map_free_vars=True)
    # Mapping free vars is still a bijection.
    assert not structural_equal(R.Call(ADD, (x, y)), R.Call(ADD, (x, x)), map_free_vars=True)
    assert not structural_equal(R.Call(ADD, (x, x)), R.Call(ADD, (x, y)), map_free_vars=True)


def test_free_shape_vars_in_struct_info():
    n, m = P.Var("n"), P.Var("m")
    assert structural_equal(tensor(n, 4), tensor(n, 4))
    assert not structural_equal(tensor(n, 4), tensor(m, 4))
    assert structural_equal(tensor(n, 4), tensor(m, 4), map_free_vars=True)
    assert structural_hash(tensor(n, 4)) == structural_hash(tensor(m, 4))


def test_match_cast_defines_shape_vars():
    def f(k_name):
        x = R.Var("x", S.TensorStructInfo(None, FLOAT32, ndim=1))
        k = P.Var(k_name)
        y = R.Var("y", tensor(k))
        z = R.Var("z", tensor(k))
        blocks = (R.BindingBlock((R.MatchCast(y, x, tensor(k)),
                                  R.VarBinding(z, R.Call(ADD, (y, y))))),)
        return R.Function((x,), R.SeqExpr(blocks, z))

    assert equal_and_same_hash(f("k"), f("j"))


def test_match_cast_struct_info_inconsistent_with_earlier_definition():
    def f(redefine: bool):
        n = P.Var("n")
        x = R.Var("x", tensor(n))
        k = P.Var("k") if redefine else n
        y = R.Var("y", tensor(k))
        blocks = (R.BindingBlock((R.MatchCast(y, x, tensor(k)),)),)
        return R.Function((x,), R.SeqExpr(blocks, y))

    assert not structural_equal(f(False), f(True))
    assert equal_and_same_hash(f(True), f(True))


def test_struct_info_of_expressions_and_annotations_count():
    n = P.Var("n")
    assert not structural_equal(tensor(n, 4), tensor(n, 5))
    assert not structural_equal(tensor(n, 4), tensor(n, 4, dtype=parse_dtype("float16")))
    assert not structural_equal(S.TensorStructInfo(None, FLOAT32, ndim=2),
                                S.TensorStructInfo(None, FLOAT32, ndim=3))
    x = R.Var("x")
    assert not structural_equal(R.Tuple((x,)), R.Tuple((x,), struct_info=S.TupleStructInfo(
        (S.ObjectStructInfo(),))))


def test_callable_params_define_their_shape_vars():
    def callable_sinfo(name):
        n = P.Var(name)
        return S.FuncStructInfo((tensor(n),), tensor(n))

    assert equal_and_same_hash(callable_sinfo("n"), callable_sinfo("m"))


def test_global_vars_compare_by_name():
    assert structural_equal(R.GlobalVar("f"), R.GlobalVar("f"))
    assert not structural_equal(R.GlobalVar("f"), R.GlobalVar("g"), map_free_vars=True)


def test_spans_are_ignored():
    a = R.StringImm("s", span=Span("a.py", 1, 1, 1, 5))
    b = R.StringImm("s", span=Span("b.py", 7, 3, 7, 9))
    assert equal_and_same_hash(a, b)
    assert not structural_equal(a, R.StringImm("t"))


def test_local_recursive_function():
    def f(name):
        fv = R.Var(name)
        p = R.Var("p", tensor(4))
        inner = R.Function((p,), R.SeqExpr((), R.Call(fv, (p,))))
        return R.SeqExpr((R.BindingBlock((R.VarBinding(fv, inner),)),), fv)

    assert equal_and_same_hash(f("g"), f("h"))


# -------------------------------------------------------------------------- Constants

def test_constants_with_nan_equal_themselves():
    data = np.array([1.0, math.nan, -0.5], dtype="float32")
    a = R.Constant(data)
    b = R.Constant(data.copy())
    assert equal_and_same_hash(a, b)
    assert structural_equal(P.FloatImm(math.nan, FLOAT32), P.FloatImm(float("nan"), FLOAT32))


def test_constants_differ_by_dtype_shape_or_bytes():
    base = np.arange(6, dtype="float32")
    a = R.Constant(base.reshape(2, 3))
    assert not structural_equal(a, R.Constant(base.reshape(3, 2)))
    assert not structural_equal(a, R.Constant(base.astype("int32").reshape(2, 3)))
    assert not structural_equal(a, R.Constant((base + 1).reshape(2, 3)))


def test_prim_value_types_must_match():
    assert not structural_equal(P.IntImm(1, INT64), P.IntImm(1, INT32))
    assert not structural_equal(P.IntImm(1, INT64), P.FloatImm(1.0, FLOAT32))
    with pytest.raises(AssertionError, match=r"^not structurally equal: a\.value: 1 vs 2$"):
        assert_structural_equal(P.Add(P.IntImm(1), P.IntImm(3), INT64),
                                P.Add(P.IntImm(2), P.IntImm(3), INT64))


# ------------------------------------------------------------------------------ Attrs

def test_attrs_are_mappings_of_exactly_typed_values():
    a = R.Attrs.of({"axis": 1, "keepdims": True, "dtype": FLOAT32})
    b = R.Attrs.of({"dtype": FLOAT32, "keepdims": True, "axis": 1})
    assert equal_and_same_hash(a, b)
    assert not structural_equal(R.Attrs.of({"x": True}), R.Attrs.of({"x": 1}))
    assert not structural_equal(R.Attrs.of({"x": 1}), R.Attrs.of({"x": 1.0}))
    assert not structural_equal(R.Attrs.of({"x": (1, 2)}), R.Attrs.of({"x": (1, 2, 3)}))
    assert not structural_equal(R.Attrs.of({"x": 1}), R.Attrs.of({"y": 1}))
    assert structural_equal(R.Attrs.of({"x": math.nan}), R.Attrs.of({"x": math.nan}))
    nested = lambda v: R.Attrs.of({"inner": R.Attrs.of({"v": v}), "s": tensor(4)})  # noqa
    assert equal_and_same_hash(nested("a"), nested("a"))
    with pytest.raises(AssertionError, match=r"\['inner'\]\['v'\]: 'a' vs 'b'"):
        assert_structural_equal(nested("a"), nested("b"))


def test_function_attrs_count():
    f = add_function()
    g = add_function()
    g = R.Function(g.params, g.body, g.ret_struct_info,
                   attrs=R.Attrs.of({"global_symbol": "main"}))
    assert not structural_equal(f, g)


# --------------------------------------------------------------------------------- TIR

def copy_prim_func(names=("A", "B", "i", "n"), *, b_shape=None, swap_loops=False,
                   block_name="copy") -> T.PrimFunc:
    """def f(a: T.handle, b: T.handle, n: T.int64):
           A = T.match_buffer(a, (n, 8)); B = T.match_buffer(b, (n, 8))
           for i, j in T.grid(n, 8):
               with T.sblock(block_name):
                   vi, vj = T.axis.remap("SS", [i, j]); B[vi, vj] = A[vi, vj]"""
    a_name, b_name, i_name, n_name = names
    n = P.Var(n_name)
    a, b = P.Var("a", parse_dtype("handle")), P.Var("b", parse_dtype("handle"))
    A = T.Buffer(a_name, (n, P.IntImm(8)), FLOAT32, data=P.Var(a_name + "_data"))
    B = T.Buffer(b_name, b_shape or (n, P.IntImm(8)), FLOAT32, data=P.Var(b_name + "_data"))
    i, j = P.Var(i_name), P.Var("j")
    vi, vj = P.Var("v" + i_name), P.Var("vj")
    iters = (T.IterVar(vi, T.Range(P.IntImm(0), n), "S"),
             T.IterVar(vj, T.Range(P.IntImm(0), P.IntImm(8)), "S"))
    region = lambda buf: T.BufferRegion(buf, (T.Range(vi, P.IntImm(1)),  # noqa: E731
                                              T.Range(vj, P.IntImm(1))))
    store = T.BufferStore(B, T.BufferLoad(A, (vi, vj), FLOAT32), (vi, vj))
    block = T.SBlock(block_name, iters, (region(A),), (region(B),), store)
    true = P.IntImm(1, parse_dtype("bool"))
    realize = T.SBlockRealize((j, i) if swap_loops else (i, j), true, block)
    loops = T.For(i, P.IntImm(0), n, "serial", T.For(j, P.IntImm(0), P.IntImm(8), "serial",
                                                      realize))
    return T.PrimFunc((a, b, n), ((a, A), (b, B)), loops)


def test_tir_renamed_loop_vars_and_buffers_are_equal():
    a = copy_prim_func(("A", "B", "i", "n"))
    b = copy_prim_func(("X", "Y", "k", "m"), block_name="renamed")
    assert equal_and_same_hash(a, b)


def test_tir_loop_vars_used_inconsistently():
    assert not structural_equal(copy_prim_func(), copy_prim_func(swap_loops=True))


def test_tir_buffers_with_different_shapes_are_unequal():
    a = copy_prim_func()
    b = copy_prim_func(b_shape=(P.IntImm(4), P.IntImm(8)))
    assert not structural_equal(a, b)
    with pytest.raises(AssertionError, match=r"buffer_map\[1\]\[1\]\.shape\[0\]"):
        assert_structural_equal(a, b)


def test_tir_let_and_allocate_bind_their_vars():
    def f(name):
        x = P.Var(name, INT32)
        buf = P.Var(name + "_buf", parse_dtype("handle"))
        body = T.Evaluate(P.Add(x, P.IntImm(1, INT32), INT32))
        alloc = T.Allocate(buf, FLOAT32, (P.IntImm(16),), P.IntImm(1, parse_dtype("bool")),
                           T.Evaluate(P.Call("tir.address_of", (buf,), INT64)))
        return T.SeqStmt((T.LetStmt(x, P.IntImm(3, INT32), body), alloc))

    assert equal_and_same_hash(f("x"), f("y"))
    x = P.Var("x")
    let = lambda v, body: P.Let(v, P.IntImm(1), body, INT64)  # noqa: E731
    y = P.Var("y")
    assert equal_and_same_hash(let(x, x + 1), let(y, y + 1))
    assert not structural_equal(let(x, x + 1), let(y, x + 1))


def test_deeply_nested_statements_do_not_recurse():
    def nest(depth):
        stmt: T.Stmt = T.Evaluate(P.IntImm(0))
        for _ in range(depth):
            v = P.Var("v")
            stmt = T.LetStmt(v, P.IntImm(1), T.SeqStmt((T.Evaluate(v), stmt)))
        return stmt

    assert equal_and_same_hash(nest(5000), nest(5000))


# ---------------------------------------------------------------------------- Modules

def module(n_name="n", relax_name="main", tir_var="n") -> R.IRModule:
    return R.IRModule({relax_name: add_function(n_name=n_name),
                       "copy": copy_prim_func(("A", "B", "i", tir_var))})


def test_equal_modules_hash_equal():
    a, b = module("n"), module("m", tir_var="k")
    assert equal_and_same_hash(a, b)


def test_module_functions_are_paired_by_name():
    assert not structural_equal(module(), module(relax_name="other"))
    with pytest.raises(AssertionError, match=r"functions \['copy', 'main'\] vs"):
        assert_structural_equal(module(), module(relax_name="other"))


def test_module_functions_are_compared_independently():
    # The same symbolic var object in two functions of one module, vs distinct ones.
    n = P.Var("n")

    def fn(var):
        x = R.Var("x", tensor(var))
        return R.Function((x,), R.SeqExpr((), x))

    shared = R.IRModule({"f": fn(n), "g": fn(n)})
    distinct = R.IRModule({"f": fn(P.Var("n")), "g": fn(P.Var("m"))})
    assert equal_and_same_hash(shared, distinct)


def test_module_error_path():
    a = R.IRModule({"main": add_function()})
    b = R.IRModule({"main": add_function(swap=True)})
    with pytest.raises(AssertionError) as info:
        assert_structural_equal(a, b)
    assert "functions['main'].body.blocks[0].bindings[0].value.args[0]: Var 'x' vs Var 'y'" \
        in str(info.value)


# ------------------------------------------------------------------------------- Scale

def chain_function(length: int) -> R.Function:
    n = P.Var("n")
    x = R.Var("x", tensor(n, 4))
    bindings, current = [], x
    for i in range(length):
        v = R.DataflowVar(f"v{i}", tensor(n, 4))
        bindings.append(R.VarBinding(v, R.Call(ADD, (current, x))))
        current = v
    return R.Function((x,), R.SeqExpr((R.DataflowBlock(tuple(bindings)),), current))


def test_twenty_thousand_bindings_compare_without_recursion():
    a, b = chain_function(20_000), chain_function(20_000)
    assert equal_and_same_hash(a, b)
