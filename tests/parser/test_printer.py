"""The TVMScript printer (relax_ref/parser/printer.py, spec/syntax.md "Printing").

Hand-built IR prints as the expected text; the text reads back (our parser) to the same
structure; every sample survives parse -> print -> parse unchanged and printing is a
fixpoint; TVM-printed samples print back character for character (apart from the
listed deviations); and TVM 0.27 reads what we print to the module it reads from the
sample (tests marked ``tvm``).
"""
from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, FLOAT32, INT32, INT64, parse_dtype
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import (PrintError, print_expr, print_function, print_module,
                                      print_prim_expr, print_struct_info)
from tests.conftest import sample_files

F16 = parse_dtype("float16")
I8 = parse_dtype("int8")


# --------------------------------------------------------------------------------------
# helpers


def tensor(*shape, dtype: str = "float32") -> si.TensorStructInfo:
    return si.TensorStructInfo(tuple(P.as_prim(d) for d in shape), parse_dtype(dtype))


def call(op: str, *args, attrs=None, sinfo_args=()) -> rx.Call:
    return rx.Call(rx.Op(op), tuple(args), rx.Attrs.of(attrs), tuple(sinfo_args))


def function(params, bindings, result, ret=None, **kw) -> rx.Function:
    blocks = (rx.BindingBlock(tuple(bindings)),) if bindings else ()
    return rx.Function(tuple(params), rx.SeqExpr(blocks, result), ret, **kw)


def module(**functions) -> rx.IRModule:
    return rx.IRModule(dict(functions))


def body_lines(text: str) -> list[str]:
    """The lines of a printed module after ``class Module:``, dedented one level."""
    lines = text.split("\n")
    start = lines.index("class Module:") + 1
    return [line[4:] for line in lines[start:]]


def assert_round_trip(mod: rx.IRModule) -> str:
    """print -> parse gives back ``mod``, and printing is a fixpoint."""
    text = print_module(mod)
    again = parse(text, "<printed>")
    assert_structural_equal(mod, again)
    assert print_module(again) == text
    return text


# --------------------------------------------------------------------------------------
# PrimExprs: precedence, literals, TIR and Relax spellings

a, b, c, d = (P.Var(n) for n in "abcd")
i, j = P.Var("i", INT32), P.Var("j", INT32)
p, q, r = (P.Var(n, BOOL) for n in "pqr")
x32 = P.Var("x", FLOAT32)


@pytest.mark.parametrize("expr, text", [
    (P.Mul(P.Add(a, b, INT64), c, INT64), "(a + b) * c"),
    (P.Add(a, P.Mul(b, c, INT64), INT64), "a + b * c"),
    (P.Sub(a, P.Sub(b, c, INT64), INT64), "a - (b - c)"),
    (P.Sub(P.Sub(a, b, INT64), c, INT64), "a - b - c"),
    (P.Add(a, P.Add(b, c, INT64), INT64), "a + (b + c)"),
    (P.FloorDiv(a, P.Mul(b, c, INT64), INT64), "a // (b * c)"),
    (P.FloorDiv(P.Mul(a, b, INT64), c, INT64), "a * b // c"),
    (P.FloorMod(P.Add(a, P.IntImm(1), INT64), P.FloorDiv(b, P.IntImm(2), INT64), INT64),
     "(a + 1) % (b // 2)"),
    (P.Mul(a, P.IntImm(-4), INT64), "a * -4"),
    (P.Mul(P.IntImm(-4), a, INT64), "-4 * a"),
    (P.Sub(a, P.IntImm(-4), INT64), "a - -4"),
    (P.Sub(P.IntImm(0), a, INT64), "0 - a"),
    (P.Mul(P.IntImm(2), P.IntImm(3), INT64), "T.int64(2) * 3"),      # 2 * 3 would fold
    (P.Add(a, P.IntImm(1, INT32), INT64), "a + T.int32(1)"),
    (P.EQ(P.LT(a, b, BOOL), P.GT(c, d, BOOL), BOOL), "(a < b) == (c > d)"),
    (P.LT(P.Add(a, P.IntImm(1, INT64), INT64), b, BOOL), "a + 1 < b"),
    (P.Or(P.And(p, q, BOOL), r, BOOL), "p and q or r"),
    (P.And(p, P.Or(q, r, BOOL), BOOL), "p and (q or r)"),
    (P.Not(P.And(p, q, BOOL)), "not (p and q)"),
    (P.And(P.Not(p), q, BOOL), "not p and q"),
    (P.Not(P.LT(a, b, BOOL)), "not a < b"),
    (P.Div(a, b, INT64), "T.Div(a, b)"),
    (P.Mod(a, b, INT64), "T.truncmod(a, b)"),
    (P.Min(a, P.Max(b, c, INT64), INT64), "T.min(a, T.max(b, c))"),
    (P.Select(p, a, b, INT64), "T.Select(p, a, b)"),
    (P.Cast(FLOAT32, P.Add(a, P.IntImm(1, INT64), INT64)), 'T.Cast("float32", a + 1)'),
    (P.Div(x32, P.FloatImm(2.0, FLOAT32), FLOAT32), "x / T.float32(2.0)"),
    (P.IntImm(1, BOOL), "True"),
    (P.FloatImm(-0.5, FLOAT32), "T.float32(-0.5)"),
])
def test_prim_expr_relax_style(expr, text):
    assert print_prim_expr(expr) == text


m = P.Var("m")


@pytest.mark.parametrize("expr, text", [
    (P.Sub(m, P.IntImm(1), INT64), "m - T.int64(1)"),
    (P.Add(i, P.IntImm(1, INT32), INT32), "i + 1"),
    (P.Mul(P.IntImm(2, INT32), P.IntImm(3, INT32), INT32), "T.int32(2) * 3"),
    (P.IntImm(1, BOOL), "T.bool(True)"),
    (P.IntImm(3, I8), "T.int8(3)"),
    (P.FloatImm(0.1, FLOAT32), "T.float32(0.10000000000000001)"),
    (P.FloatImm(3.0, FLOAT32), "T.float32(3.0)"),
    (P.FloatImm(1e-8, FLOAT32), "T.float32(1e-08)"),
    (P.FloatImm(1e20, FLOAT32), "T.float32(100000000000000000000.0)"),
    (P.FloatImm(float(np.finfo(np.float32).min), FLOAT32),
     "T.float32(-340282346638528859811704183484516925440.0)"),
    (P.FloatImm(-0.0, FLOAT32), "T.float32(-0.0)"),
    (P.FloatImm(math.nan, FLOAT32), 'T.float32("nan")'),
    (P.FloatImm(-math.inf, F16), 'T.float16("-inf")'),
    (P.Call("tir.exp", (x32,), FLOAT32), "T.exp(x)"),
    (P.Call("tir.call_extern", (P.StringImm("foo"), i), INT32), 'T.call_extern("int32", "foo", i)'),
    (P.Call("tir.reinterpret", (x32,), INT32), 'T.reinterpret(x, dtype="int32")'),
    (P.Call("tir.isnan", (x32,), BOOL), "T.isnan(x)"),
    (P.Ramp(i, P.IntImm(1, INT32), 4, INT32.with_lanes(4)), "T.Ramp(i, 1, 4)"),
])
def test_prim_expr_tir_style(expr, text):
    assert print_prim_expr(expr, tir_style=True) == text


def test_float_literals_are_exact():
    """Every printed float reads back to the same double."""
    rng = np.random.default_rng(0)
    values = list(rng.standard_normal(50) * 10.0 ** rng.integers(-30, 30, 50)) + \
        [5e-324, 1.7976931348623157e308, 0.1, 1 / 3]
    for v in values:
        text = print_prim_expr(P.FloatImm(float(v), parse_dtype("float64")))
        inner = re.fullmatch(r"T\.float64\((.*)\)", text).group(1)
        assert float(inner) == float(v), text


def test_buffer_load_and_zero_dim():
    A = tir.Buffer("A", (P.IntImm(4, INT32), P.IntImm(4, INT32)))
    Z = tir.Buffer("Z", ())
    load = tir.BufferLoad(A, (i, P.Add(j, P.IntImm(1, INT32), INT32)), FLOAT32)
    assert print_prim_expr(load, tir_style=True) == "A[i, j + 1]"
    assert print_prim_expr(tir.BufferLoad(Z, (), FLOAT32), tir_style=True) == "Z[()]"


# --------------------------------------------------------------------------------------
# strings, struct info, leaf expressions


def test_string_escaping():
    s = rx.StringImm('say "hi"\\ \n\tend\x01é')
    assert print_expr(s) == 'R.str("say \\"hi\\"\\\\ \\n\\tend\\x01é")'


def test_string_escaping_round_trips_through_the_parser():
    text = 'q"\\\n\r\t\x00\x7f\u2028😀'
    x = rx.Var("x", tensor(2))
    y = rx.Var("y", si.ObjectStructInfo())
    f = function([x], [rx.VarBinding(y, rx.StringImm(text))], x, tensor(2))
    mod = module(main=f)
    printed = assert_round_trip(mod)
    assert parse(printed)["main"].body.blocks[0].bindings[0].value.value == text


n = P.Var("n")


@pytest.mark.parametrize("sinfo, text", [
    (si.ObjectStructInfo(), "R.Any"),
    (si.PrimStructInfo(INT64), 'R.Prim("int64")'),
    (si.PrimStructInfo(INT64, P.Mul(n, P.IntImm(2, INT64), INT64)), "R.Prim(value=n * 2)"),
    (si.PrimStructInfo(INT32, n), 'R.Prim("int32", value=n)'),
    (si.ShapeStructInfo((n, P.IntImm(3))), "R.Shape([n, 3])"),
    (si.ShapeStructInfo(ndim=2), "R.Shape(ndim=2)"),
    (si.ShapeStructInfo(), "R.Shape(ndim=-1)"),
    (si.ShapeStructInfo(()), "R.Shape([])"),
    (tensor(n, 4), 'R.Tensor((n, 4), dtype="float32")'),
    (tensor(n), 'R.Tensor((n,), dtype="float32")'),
    (si.TensorStructInfo((), BOOL), 'R.Tensor((), dtype="bool")'),
    (si.TensorStructInfo(dtype=FLOAT32, ndim=2), 'R.Tensor(dtype="float32", ndim=2)'),
    (si.TensorStructInfo(dtype=FLOAT32), 'R.Tensor(dtype="float32")'),
    (si.TensorStructInfo((P.IntImm(4),)), "R.Tensor((4,))"),
    (si.TensorStructInfo(ndim=3), "R.Tensor(ndim=3)"),
    (si.TensorStructInfo(), "R.Tensor"),
    (si.TensorStructInfo((P.IntImm(2),), FLOAT32, vdevice="llvm:0"),
     'R.Tensor((2,), dtype="float32", vdevice="llvm:0")'),
    (si.TupleStructInfo((tensor(2), si.PrimStructInfo(INT64))),
     'R.Tuple(R.Tensor((2,), dtype="float32"), R.Prim("int64"))'),
    (si.TupleStructInfo(()), "R.Tuple"),
    (si.FuncStructInfo((tensor(3),), tensor(3), False),
     'R.Callable((R.Tensor((3,), dtype="float32"),), R.Tensor((3,), dtype="float32"), False)'),
    (si.FuncStructInfo((), si.ObjectStructInfo(), True), "R.Callable((), R.Any, True)"),
    # an opaque callable is impure unless it says so, as in TVM (SI-extern-1)
    (si.FuncStructInfo(None, si.ObjectStructInfo(), False), "R.Callable"),
    (si.FuncStructInfo(None, si.ObjectStructInfo(), True), "R.Callable(purity=True)"),
    (si.FuncStructInfo(None, tensor(3), False),
     'R.Callable(ret=R.Tensor((3,), dtype="float32"))'),
])
def test_struct_info(sinfo, text):
    assert print_struct_info(sinfo) == text


@pytest.mark.parametrize("value, dtype, text", [
    (2.0, "float32", 'R.const(2.0, "float32")'),
    (0.1, "float32", 'R.const(0.10000000149011612, "float32")'),
    (0.1, "float16", 'R.const(0.0999755859375, "float16")'),
    (2.0, "bfloat16", 'R.const(2.0, "bfloat16")'),
    (True, "bool", 'R.const(True, "bool")'),
    (-3, "int8", 'R.const(-3, "int8")'),
    (math.nan, "float32", 'R.const(float("nan"), "float32")'),
    ([[1.5, -math.inf], [0.0, 2.0]], "float32",
     'R.const([[1.5, -float("inf")], [0.0, 2.0]], "float32")'),
    ([[1, 2, 3]], "int32", 'R.const([[1, 2, 3]], "int32")'),
    ([], "float32", 'R.const([], "float32")'),
])
def test_constants(value, dtype, text):
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    assert print_expr(rx.Constant(np.array(value, dtype=np_dtype))) == text


def test_constant_whose_shape_a_nested_list_cannot_carry():
    with pytest.raises(PrintError, match="nested list"):
        print_expr(rx.Constant(np.zeros((0, 3), np.float32)))


def test_leaf_expressions():
    x, t = rx.Var("x", tensor(2)), rx.Var("t")
    assert print_expr(rx.PrimValue(P.IntImm(3))) == "3"
    assert print_expr(rx.PrimValue(P.IntImm(1, BOOL))) == "True"
    assert print_expr(rx.PrimValue(P.IntImm(7, INT32))) == "T.int32(7)"
    assert print_expr(rx.PrimValue(P.Sub(n, P.IntImm(1, INT64), INT64))) == "n - 1"
    assert print_expr(rx.PrimValue(n)) == "R.prim_value(n)"
    assert print_expr(rx.ShapeExpr((n, P.IntImm(32)))) == "R.shape([n, 32])"
    assert print_expr(rx.ShapeExpr(())) == "R.shape([])"
    assert print_expr(rx.DataTypeImm(F16)) == 'R.dtype("float16")'
    assert print_expr(rx.Tuple((x, t))) == "(x, t)"
    assert print_expr(rx.Tuple((x,))) == "(x,)"
    assert print_expr(rx.Tuple(())) == "R.tuple()"  # PRINT-tuple-1
    assert print_expr(rx.TupleGetItem(rx.TupleGetItem(t, 1), 0)) == "t[1][0]"
    assert print_expr(rx.ExternFunc("foo")) == 'R.ExternFunc("foo")'
    assert print_expr(rx.GlobalVar("f")) == "cls.f"


# --------------------------------------------------------------------------------------
# calls and attributes


def test_op_call_attributes():
    x = rx.Var("x", tensor(2, 3))
    attrs = {"axis": -1, "keepdims": False, "out_dtype": None, "eps": 1e-5, "name": 'a"b',
             "dtype": F16, "axes": (0, 1), "one": (2,), "nested": rx.Attrs.of({"k": 1}),
             "dim": P.IntImm(4), "fill": P.FloatImm(0.5, FLOAT32), "fmt": rx.StringImm("{}"),
             "sinfo": tensor(2), "nan": math.nan}
    text = print_expr(call("relax.nn.softmax", x, attrs=attrs))
    assert text == ('R.nn.softmax(x, axis=-1, keepdims=False, out_dtype=None, '
                    'eps=1.0000000000000001e-05, name="a\\"b", dtype="float16", axes=[0, 1], '
                    'one=[2], nested={"k": 1}, dim=T.int64(4), fill=T.float32(0.5), '
                    'fmt=R.str("{}"), sinfo=R.Tensor((2,), dtype="float32"), '
                    'nan=float("nan"))')


def test_dps_calls():
    x, b = rx.Var("x", tensor(n, 8)), rx.Var("b", tensor(8))
    f = rx.GlobalVar("bias_add")
    one = call("relax.call_tir", f, rx.Tuple((x, b)), sinfo_args=[tensor(n, 8)])
    assert print_expr(one) == \
        'R.call_tir(cls.bias_add, (x, b), out_ty=R.Tensor((n, 8), dtype="float32"))'
    single = call("relax.call_tir", f, rx.Tuple((x,)), rx.ShapeExpr((n,)),
                  sinfo_args=[tensor(n, 8), tensor(8)])
    assert print_expr(single) == (
        'R.call_tir(cls.bias_add, (x,), out_ty=[R.Tensor((n, 8), dtype="float32"), '
        'R.Tensor((8,), dtype="float32")], tir_vars=R.shape([n]))')
    inplace = call("relax.call_tir_inplace", f, rx.Tuple((x,)), attrs={"inplace_indices": (0,)},
                   sinfo_args=[tensor(n, 8)])
    assert print_expr(inplace) == ('R.call_tir_inplace(cls.bias_add, (x,), '
                                   'out_ty=R.Tensor((n, 8), dtype="float32"), inplace_indices=[0])')
    dps = call("relax.call_dps_packed", rx.ExternFunc("ext"), rx.Tuple((x,)),
               sinfo_args=[tensor(n, 8)])
    assert print_expr(dps) == \
        'R.call_dps_packed("ext", (x,), out_ty=R.Tensor((n, 8), dtype="float32"))'


def test_packed_calls_use_ty_args():
    x = rx.Var("x", tensor(3))
    packed = rx.Call(rx.ExternFunc("my_func"), (x, rx.PrimValue(P.IntImm(3))),
                     sinfo_args=(tensor(3),))
    assert print_expr(packed) == \
        'R.call_packed("my_func", x, 3, ty_args=(R.Tensor((3,), dtype="float32"),))'
    pure = call("relax.call_pure_packed", rx.ExternFunc("pf"), x,
                sinfo_args=[tensor(3), si.ObjectStructInfo()])
    assert print_expr(pure) == \
        'R.call_pure_packed("pf", x, ty_args=(R.Tensor((3,), dtype="float32"), R.Any))'


def test_alloc_tensor_omits_derivable_struct_info():
    b_ = P.Var("b")
    args = (rx.ShapeExpr((b_, P.IntImm(32))), rx.DataTypeImm(FLOAT32), rx.PrimValue(P.IntImm(0)),
            rx.StringImm("global"))
    derivable = call("relax.builtin.alloc_tensor", *args, sinfo_args=[tensor(b_, 32)])
    assert print_expr(derivable) == \
        'R.builtin.alloc_tensor(R.shape([b, 32]), R.dtype("float32"), 0, R.str("global"))'
    other = call("relax.builtin.alloc_tensor", *args, sinfo_args=[tensor(b_, 32, dtype="float16")])
    assert print_expr(other).endswith(', ty_args=(R.Tensor((b, 32), dtype="float16"),))')


def test_calls_of_functions_and_closures():
    x, f = rx.Var("x", tensor(3)), rx.Var("f")
    assert print_expr(rx.Call(rx.GlobalVar("double"), (x,))) == "cls.double(x)"
    assert print_expr(rx.Call(f, (x, x))) == "f(x, x)"


# --------------------------------------------------------------------------------------
# Hand-built modules: each prints as expected, reads back to itself (our parser) and is
# read by TVM 0.27 (test_tvm_reads_hand_built_module).

HAND_BUILT: dict = {}


def hand_built(factory):
    HAND_BUILT[factory.__name__] = factory
    return factory


@hand_built
def layout_module() -> rx.IRModule:
    four_n = P.Mul(n, P.IntImm(4), INT64)
    x = rx.Var("x", tensor(n, 4))
    lv = rx.DataflowVar("lv", tensor(four_n))
    gv = rx.Var("gv", tensor(four_n))
    block = rx.DataflowBlock((
        rx.VarBinding(lv, call("relax.reshape", x, rx.ShapeExpr((four_n,)))),
        rx.VarBinding(gv, call("relax.exp", lv)),
    ))
    return module(main=rx.Function((x,), rx.SeqExpr((block,), gv), tensor(four_n)))


def test_relax_function_layout():
    """Annotations on every binding, dataflow outputs, TypeVars, and the return
    annotation's compound dimension quoted as TVM quotes it."""
    assert print_module(layout_module()) == """\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((n * 4,), dtype="float32") = R.reshape(x, R.shape([n * 4]))
            gv: R.Tensor((n * 4,), dtype="float32") = R.exp(lv)
            R.output(gv)
        return gv"""


@hand_built
def prologue_module() -> rx.IRModule:
    x = rx.Var("x", tensor(n))
    k = P.Var("k")
    v = rx.Var("v", tensor(k))
    under = rx.Var("_")
    y = rx.Var("y", tensor(k))
    printed = call("relax.print", rx.StringImm("{}"), v)
    main = function([x], [
        rx.MatchCast(v, x, tensor(k)),
        rx.VarBinding(under, printed),
        rx.VarBinding(rx.Var("_", tensor(k)), rx.Call(rx.GlobalVar("g"), (v,))),
        rx.VarBinding(y, rx.Call(rx.GlobalVar("g"), (v,))),
    ], y, si.TensorStructInfo(dtype=FLOAT32, ndim=1), is_pure=False,
        attrs=rx.Attrs.of({"num_input": 1}))
    g_x = rx.Var("x", si.TensorStructInfo(dtype=FLOAT32, ndim=1))
    g = function([g_x], [], g_x, si.TensorStructInfo(dtype=FLOAT32, ndim=1), is_private=True)
    return module(g=g, main=main)


def test_prologue_order_and_expression_statements():
    """R.func_attr, then T.int64() for variables first defined in the body, then
    cls = Module; a binding of a void value to an unused `_` prints as the value alone,
    of any other value as an annotated binding (as TVM prints them)."""
    lines = body_lines(print_module(prologue_module()))
    assert lines[0] == "@R.function(private=True)"
    assert lines[4:] == [
        "@R.function(pure=False)",
        'def main(x: R.Tensor((n,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):',
        '    R.func_attr({"num_input": 1})',
        "    k = T.int64()",
        "    cls = Module",
        '    v: R.Tensor((k,), dtype="float32") = R.match_cast(x, R.Tensor((k,), dtype="float32"))',
        '    R.print(v, format=R.str("{}"))',
        '    _: R.Tensor((k,), dtype="float32") = cls.g(v)',
        '    y: R.Tensor((k,), dtype="float32") = cls.g(v)',
        "    return y",
    ]


@hand_built
def used_underscore_module() -> rx.IRModule:
    x = rx.Var("x", tensor(2))
    under = rx.Var("_", tensor(2))
    f = function([x], [rx.VarBinding(under, call("relax.exp", x))], under, tensor(2))
    return module(main=f)


def test_used_underscore_variable_keeps_its_binding():
    lines = body_lines(print_module(used_underscore_module()))
    assert '    _: R.Tensor((2,), dtype="float32") = R.exp(x)' in lines


@hand_built
def clashing_names_module() -> rx.IRModule:
    x = rx.Var("x", tensor(n))
    x2 = rx.Var("x", tensor(n))
    n_var = rx.Var("n", tensor(n))
    return module(main=function([x], [rx.VarBinding(x2, call("relax.exp", x)),
                                      rx.VarBinding(n_var, call("relax.add", x2, x))],
                                n_var, tensor(n)))


def test_clashing_names_are_renamed():
    """Distinct variables sharing a name print apart; a Relax variable named like a
    symbolic variable yields to it (the parameters come first)."""
    assert body_lines(print_module(clashing_names_module()))[2:5] == [
        '    x_1: R.Tensor((n,), dtype="float32") = R.exp(x)',
        '    n_1: R.Tensor((n,), dtype="float32") = R.add(x_1, x)',
        "    return n_1",
    ]


@hand_built
def prim_param_module() -> rx.IRModule:
    k = P.Var("k")
    kp = rx.Var("k", si.PrimStructInfo(INT64, k))
    x = rx.Var("x", tensor(3))
    y = rx.Var("y", tensor(3))
    k_minus_1 = rx.PrimValue(P.Sub(k, P.IntImm(1), INT64))
    return module(main=function([x, kp], [rx.VarBinding(y, rx.Call(rx.GlobalVar("main"),
                                                                   (x, k_minus_1)))],
                                y, tensor(3)))


def test_prim_parameter_binds_its_symbolic_variable():
    """`k: T.int64` is a parameter whose value is the symbolic variable k."""
    text = print_module(prim_param_module())
    assert 'def main(x: R.Tensor((3,), dtype="float32"), k: T.int64) -> ' \
           'R.Tensor((3,), dtype="float32"):' in text
    assert "cls.main(x, k - 1)" in text
    assert "TypeVar" not in text


@hand_built
def if_module() -> rx.IRModule:
    c = rx.Var("c", si.TensorStructInfo((), BOOL))
    x = rx.Var("x", tensor(n))
    y_then = rx.Var("y_then", tensor(n))
    y = rx.Var("y", tensor(n))
    then = rx.SeqExpr((rx.BindingBlock((rx.VarBinding(y_then, call("relax.exp", x)),)),), y_then)
    orelse = rx.SeqExpr((), x)
    return module(main=function([c, x], [rx.VarBinding(y, rx.If(c, then, orelse))], y, tensor(n)))


def test_if_binding():
    assert body_lines(print_module(if_module()))[2:8] == [
        "    if c:",
        '        y_then: R.Tensor((n,), dtype="float32") = R.exp(x)',
        '        y: R.Tensor((n,), dtype="float32") = y_then',
        "    else:",
        '        y: R.Tensor((n,), dtype="float32") = x',
        "    return y",
    ]


def test_if_prints_only_as_a_binding():
    c, x = rx.Var("c", si.TensorStructInfo((), BOOL)), rx.Var("x", tensor(2))
    f = rx.Function((c, x), rx.SeqExpr((), rx.If(c, rx.SeqExpr((), x), rx.SeqExpr((), x))))
    with pytest.raises(PrintError, match="binding"):
        print_module(module(main=f))


@hand_built
def nested_function_module() -> rx.IRModule:
    x = rx.Var("x", tensor(3))
    t_param = rx.Var("t", tensor(3))
    s = rx.Var("s", tensor(3))
    inner = function([t_param], [rx.VarBinding(s, call("relax.add", t_param, x))], s, tensor(3))
    inner_var = rx.Var("inner")
    u = rx.Var("u", tensor(3))
    tup = rx.Var("tup", si.TupleStructInfo((tensor(3), tensor(3))))
    first = rx.Var("first", tensor(3))
    f = function([x], [rx.VarBinding(inner_var, inner),
                       rx.VarBinding(u, rx.Call(inner_var, (x,))),
                       rx.VarBinding(tup, rx.Tuple((u, x))),
                       rx.VarBinding(first, rx.TupleGetItem(tup, 0))],
                 rx.Tuple((first, u)), si.TupleStructInfo((tensor(3), tensor(3))))
    return module(main=f)


def test_nested_function_and_tuples():
    assert body_lines(print_module(nested_function_module()))[2:11] == [
        "    @R.function",
        '    def inner(t: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):',
        '        s: R.Tensor((3,), dtype="float32") = R.add(t, x)',
        "        return s",
        "",
        '    u: R.Tensor((3,), dtype="float32") = inner(x)',
        '    tup: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = u, x',
        '    first: R.Tensor((3,), dtype="float32") = tup[0]',
        "    return (first, u)",
    ]


@hand_built
def leaves_and_calls_module() -> rx.IRModule:
    """Constants, strings, shapes, prim values and packed calls as binding values."""
    x = rx.Var("x", tensor(2, 2))
    bindings, names = [], iter(range(100))

    def bind(value, sinfo):
        bindings.append(rx.VarBinding(rx.Var(f"v{next(names)}", sinfo), value))

    bind(rx.Constant(np.array([[1.5, -2.0], [0.1, 3.0]], np.float32)), tensor(2, 2))
    bind(rx.Constant(np.array(True)), si.TensorStructInfo((), BOOL))
    bind(rx.Constant(np.array([1, -2, 3], np.int8)), tensor(3, dtype="int8"))
    bind(rx.StringImm('say "hi"\n'), si.ObjectStructInfo())
    bind(rx.DataTypeImm(F16), si.ObjectStructInfo())
    bind(rx.ShapeExpr((P.IntImm(2), P.IntImm(2))), si.ShapeStructInfo((P.IntImm(2), P.IntImm(2))))
    bind(rx.PrimValue(P.IntImm(7, INT32)), si.PrimStructInfo(INT32))
    bind(rx.Call(rx.ExternFunc("ext"), (x, rx.PrimValue(P.IntImm(3))), sinfo_args=(tensor(2, 2),)),
         tensor(2, 2))
    bind(call("relax.call_pure_packed", rx.ExternFunc("pure"), x, sinfo_args=[tensor(2, 2)]),
         tensor(2, 2))
    bind(call("relax.sum", x, attrs={"axis": (0,), "keepdims": False}), tensor(2))
    bind(call("relax.astype", x, attrs={"dtype": "float16"}), tensor(2, 2, dtype="float16"))
    return module(main=function([x], bindings, x, tensor(2, 2), is_pure=False))


def test_leaves_and_calls_as_bindings():
    lines = [line.strip() for line in body_lines(print_module(leaves_and_calls_module()))]
    assert lines[2:13] == [
        'v0: R.Tensor((2, 2), dtype="float32") = R.const([[1.5, -2.0], '
        '[0.10000000149011612, 3.0]], "float32")',
        'v1: R.Tensor((), dtype="bool") = R.const(True, "bool")',
        'v2: R.Tensor((3,), dtype="int8") = R.const([1, -2, 3], "int8")',
        'v3: R.Any = R.str("say \\"hi\\"\\n")',
        'v4: R.Any = R.dtype("float16")',
        "v5: R.Shape([2, 2]) = R.shape([2, 2])",
        'v6: R.Prim("int32") = T.int32(7)',
        'v7: R.Tensor((2, 2), dtype="float32") = R.call_packed("ext", x, 3, '
        'ty_args=(R.Tensor((2, 2), dtype="float32"),))',
        'v8: R.Tensor((2, 2), dtype="float32") = R.call_pure_packed("pure", x, '
        'ty_args=(R.Tensor((2, 2), dtype="float32"),))',
        'v9: R.Tensor((2,), dtype="float32") = R.sum(x, axis=[0], keepdims=False)',
        'v10: R.Tensor((2, 2), dtype="float16") = R.astype(x, dtype="float16")',
    ]


@hand_built
def string_escapes_module() -> rx.IRModule:
    x = rx.Var("x", tensor(2))
    y = rx.Var("y", si.ObjectStructInfo())
    value = rx.StringImm('q"\\\n\r\t\x00\x7f\u2028😀')
    return module(main=function([x], [rx.VarBinding(y, value)], x, tensor(2)))


def test_string_escapes_read_back():
    text = print_module(string_escapes_module())
    value = parse(text)["main"].body.blocks[0].bindings[0].value.value
    assert value == 'q"\\\n\r\t\x00\x7f\u2028😀'


def test_module_header_without_tir_or_typevars():
    x = rx.Var("x", tensor(2))
    text = print_module(module(main=function([x], [], x, tensor(2))))
    assert text.split("\n")[:5] == ["# from tvm.script import ir as I",
                                    "# from tvm.script import relax as R", "",
                                    "@I.ir_module", "class Module:"]


def test_names_that_are_not_identifiers():
    x = rx.Var("x.1", tensor(2))
    y = rx.Var("lambda", tensor(2))
    r = rx.Var("R", tensor(2))
    f = function([x], [rx.VarBinding(y, call("relax.exp", x)),
                       rx.VarBinding(r, call("relax.exp", y))], r, tensor(2))
    text = print_module(module(main=f))
    assert "def main(x_1: R.Tensor" in text
    assert "lambda_: R.Tensor" in text and "R_1: R.Tensor" in text


def test_empty_module():
    assert print_module(rx.IRModule({})).endswith("class Module:\n    pass")


def test_print_function_alone():
    x = rx.Var("x", tensor(2))
    assert print_function(function([x], [], x, tensor(2)), "f") == (
        '@R.function\ndef f(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):\n'
        "    return x")


def test_printing_is_deterministic():
    for factory in HAND_BUILT.values():
        assert print_module(factory()) == print_module(factory())


# --------------------------------------------------------------------------------------
# TIR

HANDLE = parse_dtype("handle")


@hand_built
def bias_add_module() -> rx.IRModule:
    """call_tir_bias_add.py's prim_func, built by hand."""
    nv = P.Var("n")
    eight, one = P.IntImm(8), P.IntImm(1)
    A, B, C = tir.Buffer("A", (nv, eight)), tir.Buffer("b", (eight,)), tir.Buffer("C", (nv, eight))
    pa, pb, pc = (P.Var(name, HANDLE) for name in ("A", "b", "C"))
    iv, jv, vi, vj = (P.Var(name) for name in ("i", "j", "vi", "vj"))
    store = tir.BufferStore(C, P.Add(tir.BufferLoad(A, (vi, vj), FLOAT32),
                                     tir.BufferLoad(B, (vj,), FLOAT32), FLOAT32), (vi, vj))
    block = tir.SBlock("c", (tir.IterVar(vi, tir.Range(P.IntImm(0), nv), "S"),
                             tir.IterVar(vj, tir.Range(P.IntImm(0), eight), "S")),
                       (tir.BufferRegion(A, (tir.Range(vi, one), tir.Range(vj, one))),
                        tir.BufferRegion(B, (tir.Range(vj, one),))),
                       (tir.BufferRegion(C, (tir.Range(vi, one), tir.Range(vj, one))),), store)
    realize = tir.SBlockRealize((iv, jv), P.IntImm(1, BOOL), block)
    loops = tir.For(iv, P.IntImm(0), nv, "serial",
                    tir.For(jv, P.IntImm(0), eight, "serial", realize))
    root = tir.SBlockRealize((), P.IntImm(1, BOOL), tir.SBlock("root", (), (), (), loops))
    return module(bias_add=tir.PrimFunc((pa, pb, pc), ((pa, A), (pb, B), (pc, C)), root,
                                        is_private=True, s_tir=True))


def test_prim_func_as_tvm_prints_it():
    assert print_module(bias_add_module()) == """\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def bias_add(A: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((T.int64(8),), "float32"), C: T.Buffer((n, T.int64(8)), "float32")):
        # with T.sblock("root"):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], b[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + b[vj]"""


A16 = tir.Buffer("A", (P.IntImm(16, INT32), P.IntImm(16, INT32)))
ZERO32, ONE32 = P.IntImm(0, INT32), P.IntImm(1, INT32)
NOP = tir.Evaluate(ZERO32)


def _loop(var, extent, body, kind="serial", lo=None, thread=None, annotations=None):
    lo = lo if lo is not None else P.IntImm(0, var.dtype)
    return tir.For(var, lo, P.as_prim(extent, var.dtype), kind, body, thread,
                   rx.Attrs.of(annotations))


def _store(*idx, value=0.0):
    return tir.BufferStore(A16, P.FloatImm(value, FLOAT32), tuple(idx))


def _i32(*names):
    return [P.Var(name, INT32) for name in names]


@hand_built
def tir_statements_module() -> rx.IRModule:
    """Loops of every kind, a block with every part, and the other statements."""
    pa, nv = P.Var("A", HANDLE), P.Var("n", INT32)
    i, j, k, t, x = _i32("i", "j", "k", "t", "x")
    bi, bj, vi, vj = _i32("i", "j", "vi", "vj")
    local = tir.Buffer("L", (P.IntImm(4, INT32),), I8, scope="local")
    sub = tir.Buffer("S", (P.IntImm(16, INT32),))
    row = tir.BufferRegion(A16, (tir.Range(vi, ONE32), tir.Range(ZERO32, P.IntImm(16, INT32))))
    block = tir.SBlock(
        "b", (tir.IterVar(vi, tir.Range(P.IntImm(2, INT32), P.IntImm(14, INT32)), "S"),
              tir.IterVar(vj, tir.Range(ZERO32, P.IntImm(16, INT32)), "R")),
        (row,), (tir.BufferRegion(A16, (tir.Range(vi, ONE32), tir.Range(vj, ONE32))),),
        tir.BufferStore(sub, P.FloatImm(1.0, FLOAT32), (ZERO32,)),
        init=tir.BufferStore(A16, P.FloatImm(0.0, FLOAT32), (vi, vj)),
        alloc_buffers=(local,), match_buffers=(tir.MatchBufferRegion(sub, row),),
        annotations=rx.Attrs.of({"axis": 1}))
    realize = tir.SBlockRealize((bi, bj), P.LT(bi, P.IntImm(8, INT32), BOOL), block)
    body = tir.SeqStmt((
        _loop(i, 16, _loop(j, 16, _loop(k, 4, _store(i, j)))),
        _loop(t, 32, _store(t, t, value=1.0), kind="thread_binding", thread="threadIdx.x"),
        _loop(bi, 16, _loop(bj, 16, realize)),
        _loop(x, 8, NOP, kind="parallel", lo=P.IntImm(2, INT32)),
        _loop(P.Var("j", INT32), 4, NOP, kind="vectorized"),
        _loop(P.Var("k", INT32), 4, NOP, annotations={"pragma_unroll_explicit": 1}),
        tir.IfThenElse(P.GT(nv, ZERO32, BOOL), _store(nv, nv),
                       tir.IfThenElse(P.LT(nv, P.IntImm(-1, INT32), BOOL),
                                      _store(nv, nv, value=1.0))),
        tir.While(P.LT(nv, P.IntImm(10, INT32), BOOL),
                  tir.Evaluate(P.Call("tir.exp", (P.FloatImm(1.0, FLOAT32),), FLOAT32))),
        tir.AssertStmt(P.GT(nv, ZERO32, BOOL), 'bad "n"'),
        tir.Evaluate(nv),
        tir.LetStmt(P.Var("x", INT32), P.Add(nv, ONE32, INT32), NOP),
    ))
    root = tir.SBlockRealize((), P.IntImm(1, BOOL), tir.SBlock("root", (), (), (), body))
    return module(f=tir.PrimFunc((pa, nv), ((pa, A16),), root,
                                 attrs=rx.Attrs.of({"tirx.noalias": True}),
                                 is_private=True, s_tir=True))


def test_tir_statements():
    assert body_lines(print_module(tir_statements_module())) == [
        "@T.prim_func(private=True, s_tir=True)",
        'def f(A: T.Buffer((16, 16), "float32"), n: T.int32):',
        '    T.func_attr({"tirx.noalias": True})',
        '    # with T.sblock("root"):',
        "    for i, j, k in T.grid(16, 16, 4):",
        "        A[i, j] = T.float32(0.0)",
        '    for t in T.thread_binding(32, thread="threadIdx.x"):',
        "        A[t, t] = T.float32(1.0)",
        "    for i, j in T.grid(16, 16):",
        '        with T.sblock("b"):',
        "            vi = T.axis.spatial((2, 16), i)",
        "            vj = T.axis.reduce(16, j)",
        "            T.where(i < 8)",
        "            T.reads(A[vi, 0:16])",
        "            T.writes(A[vi, vj])",
        '            T.sblock_attr({"axis": 1})',
        '            L = T.sblock_alloc_buffer((4,), "int8", scope="local")',
        "            S = T.match_buffer(A[vi, 0:16], (16,))",
        "            with T.init():",
        "                A[vi, vj] = T.float32(0.0)",
        "            S[0] = T.float32(1.0)",
        "    for x in T.parallel(2, 10):",
        "        T.evaluate(0)",
        "    for j in T.vectorized(4):",
        "        T.evaluate(0)",
        '    for k in T.serial(4, annotations={"pragma_unroll_explicit": 1}):',
        "        T.evaluate(0)",
        "    if n > 0:",
        "        A[n, n] = T.float32(0.0)",
        "    else:",
        "        if n < -1:",
        "            A[n, n] = T.float32(1.0)",
        "    while n < 10:",
        "        T.exp(T.float32(1.0))",
        '    assert n > 0, "bad \\"n\\""',
        "    T.evaluate(n)",
        "    x: T.let[T.int32] = n + 1",
        "    T.evaluate(0)",
    ]


def _tir_lines(stmt, params=(), buffer_map=()) -> list[str]:
    text = print_function(tir.PrimFunc(tuple(params), tuple(buffer_map), stmt), "f")
    return [line[4:] for line in text.split("\n")[2:]]


def test_single_serial_loops_print_as_range():
    """TVM writes a lone serial loop as ``range(n)`` / ``range(lo, hi)``."""
    i, j = _i32("i", "j")
    stmt = _loop(i, 16, _loop(j, 2, _store(i, j), lo=ONE32))
    assert _tir_lines(stmt) == ["for i in range(16):", "    for j in range(1, 3):",
                                "        A[i, j] = T.float32(0.0)"]


def test_single_serial_loops_read_back():
    i, j = _i32("i", "j")
    pa = P.Var("A", HANDLE)
    stmt = _loop(i, 16, _loop(j, 2, _store(i, j), lo=ONE32))
    assert_round_trip(module(f=tir.PrimFunc((pa,), ((pa, A16),), stmt)))


def test_grid_stops_at_a_dependent_extent():
    i, j = _i32("i", "j")
    stmt = _loop(i, 16, _loop(j, P.Add(i, ONE32, INT32), _store(i, j)))
    assert _tir_lines(stmt)[:2] == ["for i in range(16):", "    for j in range(i + 1):"]


def test_block_iter_vars_remap_runs():
    """Runs of two or more remappable iter vars use T.axis.remap, as TVM does."""
    i, j, k, vi, vj, vk = _i32("i", "j", "k", "vi", "vj", "vk")

    def dom(extent):
        return tir.Range(ZERO32, P.IntImm(extent, INT32))

    block = tir.SBlock("b", (tir.IterVar(vj, dom(16), "S"), tir.IterVar(vi, dom(16), "R"),
                             tir.IterVar(vk, dom(8), "R")), (), (), NOP)
    realize = tir.SBlockRealize((j, i, k), P.IntImm(1, BOOL), block)
    stmt = _loop(i, 16, _loop(j, 16, _loop(k, 4, realize)))
    assert _tir_lines(stmt)[1:6] == [
        '    with T.sblock("b"):',
        '        vj, vi = T.axis.remap("SR", [j, i])',
        "        vk = T.axis.reduce(8, k)",
        "        T.reads()",
        "        T.writes()",
    ]


def test_region_with_symbolic_bounds():
    i, vi = _i32("i", "vi")
    write = tir.BufferRegion(A16, (tir.Range(vi, ONE32),
                                   tir.Range(P.Add(vi, ONE32, INT32), P.IntImm(2, INT32))))
    block = tir.SBlock("b", (tir.IterVar(vi, tir.Range(ZERO32, P.IntImm(16, INT32)), "S"),),
                       (), (write,), NOP)
    stmt = _loop(i, 16, tir.SBlockRealize((i,), P.IntImm(1, BOOL), block))
    assert _tir_lines(stmt)[4] == "        T.writes(A[vi, vi + 1:vi + 1 + 2])"


def test_sibling_scopes_reuse_names_as_tvm_does():
    i1, i2 = _i32("i", "i")
    stmt = tir.SeqStmt((_loop(i1, 4, _store(i1, i1)), _loop(i2, 4, _store(i2, i2))))
    assert _tir_lines(stmt) == ["for i in range(4):", "    A[i, i] = T.float32(0.0)",
                                "for i in range(4):", "    A[i, i] = T.float32(0.0)"]


def test_buffer_parameter_options_and_forward_references():
    """Options other than the defaults are spelled out; a dimension naming a parameter
    that comes later, or a compound dimension, is quoted as TVM quotes it."""
    nv = P.Var("n")
    handle = P.Var("B", HANDLE)
    buf = tir.Buffer("B", (nv, P.Mul(nv, P.IntImm(2), INT64)), F16,
                     strides=(P.IntImm(2), P.IntImm(1)), elem_offset=P.IntImm(1), scope="shared")
    f = tir.PrimFunc((handle, nv), ((handle, buf),), NOP)
    assert print_function(f, "f").split("\n")[1] == (
        'def f(B: T.Buffer(("n", "n * T.int64(2)"), "float16", strides=(T.int64(2), T.int64(1)), '
        'elem_offset=T.int64(1), scope="shared"), n: T.int64):')


def test_free_variable_of_a_prim_func_is_declared():
    nv = P.Var("n", INT32)
    lines = _tir_lines(tir.Evaluate(P.Add(nv, ONE32, INT32)))
    assert lines == ["n = T.int32()", "T.evaluate(n + 1)"]


# --------------------------------------------------------------------------------------
# round trips of the hand-built modules


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_hand_built_module_round_trip(name):
    assert_round_trip(HAND_BUILT[name]())


# --------------------------------------------------------------------------------------
# the samples

SAMPLES = {p.name: p for p in sample_files()}
TVM_PRINTED = sorted(name for name in SAMPLES if not name.endswith(".src.py"))

# Where the parser does not yet give back the same structure (reported to the lead):
# it must derive R.builtin.alloc_tensor's struct info when ty_args is left out (the
# printer omits it, since TVM 0.27 cannot read it there), and it orders buffer_map by
# T.match_buffer call rather than by parameter.
ROUND_TRIP_GAPS: dict[str, str] = {}


def _sample_params(names, gaps=None):
    out = []
    for name in names:
        marks = []
        if gaps and name in gaps:
            marks.append(pytest.mark.xfail(reason=gaps[name], strict=False))
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _sample_params(sorted(SAMPLES), ROUND_TRIP_GAPS))
def test_sample_round_trip(name):
    mod = parse(SAMPLES[name].read_text(), name)
    again = parse(print_module(mod), f"{name} (printed)")
    assert_structural_equal(mod, again)


@pytest.mark.parametrize("name", _sample_params(sorted(SAMPLES)))
def test_sample_printing_is_a_fixpoint(name):
    once = print_module(parse(SAMPLES[name].read_text(), name))
    assert print_module(parse(once)) == once


def _expected_reprint(name: str, text: str) -> str:
    """The sample text with our documented deviations from TVM's printing applied."""
    if name in ("mlp.call_tir_rewrite.py", "mlp.planned.py"):
        # ty_args of R.builtin.alloc_tensor is left out (it follows from the arguments).
        text = re.sub(r', ty_args=\(R\.Tensor\(\([^)]*\), dtype="float32"\),\)\)', ")", text)
    if name == "tuples_shapes.py":
        # R.Prim("int64") instead of T.int64 inside R.Tuple; then T is no longer used.
        text = text.replace("R.Shape(ndim=2), T.int64)", 'R.Shape(ndim=2), R.Prim("int64"))')
        tir_header = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n"
        text = text.replace(tir_header, "")
    if name == "mlp.fused.classic.py":
        # The earlier dialect prints in the 0.27 dialect: exactly mlp.fused.py.
        text = SAMPLES["mlp.fused.py"].read_text()
    return text


@pytest.mark.parametrize("name", _sample_params(TVM_PRINTED))
def test_tvm_printed_sample_prints_back_identically(name):
    text = SAMPLES[name].read_text()
    assert print_module(parse(text, name)) == _expected_reprint(name, text).rstrip("\n")


# --------------------------------------------------------------------------------------
# TVM 0.27 reads what we print


def _tvm():
    """TVM and its FFI package (TVM 0.27 has no tvm.ir.structural_equal; the FFI's is
    the same function), or a skip when TVM is not installed."""
    try:
        import tvm
        import tvm_ffi
    except Exception as err:  # pragma: no cover - depends on the environment
        pytest.skip(f"apache-tvm is not importable: {err}")
    return tvm, tvm_ffi


def _tvm_parse(tvm, text: str):
    return tvm.script.from_source(text)


# Samples TVM 0.27 cannot read -> a sample it reads that holds the same module (None:
# there is none; then TVM's own printing of what it read is compared with the sample).
TVM_REFERENCE = {"tuples_shapes.py": "tuples_shapes.src.py",
                 "mlp.fused.classic.py": "mlp.fused.py",
                 "mlp.call_tir_rewrite.py": None, "mlp.planned.py": None}


@pytest.mark.tvm
@pytest.mark.parametrize("name", _sample_params(sorted(SAMPLES)))
def test_tvm_reads_our_printing_of_each_sample(name):
    tvm, tvm_ffi = _tvm()
    ours = _tvm_parse(tvm, print_module(parse(SAMPLES[name].read_text(), name)))
    reference_name = TVM_REFERENCE.get(name, name)
    if reference_name is None:
        expected = _expected_reprint(name, SAMPLES[name].read_text())
        assert ours.script().strip() == expected.strip()
        return
    reference = _tvm_parse(tvm, SAMPLES[reference_name].read_text())
    assert tvm_ffi.structural_equal(ours, reference, map_free_vars=True)


@pytest.mark.tvm
@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_tvm_reads_hand_built_module(name):
    """TVM 0.27 reads our text of every hand-built module. (Only reads: TVM's printer
    crashes on some of what it reads, e.g. show_meta with inline constants.)"""
    tvm, _ = _tvm()
    mod = tvm.script.from_source(print_module(HAND_BUILT[name]()), check_well_formed=False)
    assert len(mod.functions) == len(HAND_BUILT[name]().functions)


# --------------------------------------------------------------------------------------
# property: any symbolic expression prints to text that reads back to the same tree

_SYMS = (P.Var("a"), P.Var("b"), P.Var("c"))
_INT_OPS = (P.Add, P.Sub, P.Mul, P.FloorDiv, P.FloorMod, P.Div, P.Mod, P.Min, P.Max)
_CMP_OPS = (P.EQ, P.NE, P.LT, P.LE, P.GT, P.GE)


_LEAVES = st.one_of(st.sampled_from(_SYMS), st.integers(-20, 20).map(lambda v: P.IntImm(v, INT64)))
_INTS = st.deferred(lambda: st.one_of(
    _LEAVES,
    st.builds(lambda op, x, y: op(x, y, INT64), st.sampled_from(_INT_OPS), _INTS, _INTS),
    st.builds(lambda cond, x, y: P.Select(cond, x, y, INT64), _BOOLS, _INTS, _INTS)))
_BOOLS = st.deferred(lambda: st.one_of(
    st.booleans().map(lambda v: P.IntImm(int(v), BOOL)),
    st.builds(lambda op, x, y: op(x, y, BOOL), st.sampled_from(_CMP_OPS), _INTS, _INTS),
    st.builds(lambda op, x, y: op(x, y, BOOL), st.sampled_from((P.And, P.Or)), _BOOLS, _BOOLS),
    _BOOLS.map(P.Not)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_INTS)
def test_symbolic_expressions_read_back(expr):
    """Parentheses, literal spellings and operator choice give back the very tree."""
    shape = rx.Var("s", si.ShapeStructInfo(_SYMS))
    out = rx.Var("t", si.ShapeStructInfo((expr,)))
    f = function([shape], [rx.VarBinding(out, rx.ShapeExpr((expr,)))], out)
    assert_round_trip(module(main=f))


def _finite_arrays(dtype: str):
    width = np.dtype(dtype).itemsize * 8
    floats = st.floats(width=width, allow_nan=False, allow_infinity=False)
    return st.lists(floats, min_size=1, max_size=6).map(lambda v: np.array(v, dtype=dtype))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["float64", "float32", "float16"]).flatmap(_finite_arrays))
def test_float_constants_read_back_exactly(data):
    dtype = str(data.dtype)
    x = rx.Var("x", tensor(len(data), dtype=dtype))
    c = rx.Var("c", tensor(len(data), dtype=dtype))
    f = function([x], [rx.VarBinding(c, rx.Constant(data))], c, tensor(len(data), dtype=dtype))
    assert_round_trip(module(main=f))


def test_a_body_declared_name_is_not_also_a_module_type_var():
    """PRINT-sym-1: main declares ``m`` in its body (a match_cast defines it); the
    PrimFunc's own ``m`` prints as a TypeVar of another name, so the text reads back."""
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        m = T.int64()
        v = R.match_cast(x, R.Tensor((m,), "int32"))
        w = R.call_tir(Module.add, (v, v), out_ty=R.Tensor((m,), "int32"))
        return w

    @T.prim_func(private=True)
    def add(a: T.handle, b: T.handle, c: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m,), "int32")
        B = T.match_buffer(b, (m,), "int32")
        C = T.match_buffer(c, (m,), "int32")
        for i in range(m):
            C[i] = A[i] + B[i]
'''
    mod = parse(text)
    printed = print_module(mod)
    assert 'm_1 = TypeVar("m_1")' in printed and "m = T.int64()" in printed, printed
    assert_structural_equal(parse(printed), mod)
