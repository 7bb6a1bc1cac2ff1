"""SYN-prim-2 / PRINT-tir-2: ``T.Let`` expressions read, run, print and read back, as
TVM 0.27 prints them."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import prim_expr as P
from relax_ref.ir.equal import structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.errors import ParseError
from relax_ref.semantics.tir_interp import MODES, run_prim_func

TEXT = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        for i in range(32):
            x = T.float32()
            B[i] = T.Let(x * x + T.Let(y + x, where={y: T.float32(1)}), where={x: A[i]})
'''


def _with_y(text: str) -> str:
    return text.replace("            x = T.float32()\n",
                        "            x = T.float32()\n            y = T.float32()\n")


def test_let_reads_and_runs_in_every_mode():
    f = parse(_with_y(TEXT)).functions["f"]
    store = f.body.body
    assert isinstance(store.value, P.Let) and store.value.var.name == "x"
    a = np.linspace(-2, 2, 32, dtype=np.float32)
    for mode in MODES:
        b = np.zeros(32, np.float32)
        run_prim_func(f, [a, b], mode=mode)
        np.testing.assert_array_equal(b, a * a + (np.float32(1) + a))


def test_let_prints_and_reads_back():
    mod = parse(_with_y(TEXT))
    text = print_module(mod)
    assert "x = T.float32()" in text and "where={x: A[i]}" in text
    assert structural_equal(parse(text), mod)


def test_tvm_reads_our_printing_alike():
    tvm = pytest.importorskip("tvm")
    from tvm.script import from_source

    ours = print_module(parse(_with_y(TEXT)))
    tvm.ir.assert_structural_equal(from_source(ours), from_source(_with_y(TEXT)))


@pytest.mark.parametrize("let, message", [
    ("T.Let(x * x)", "where="),
    ("T.Let(x * x, where={x: A[i], y: A[i]})", "exactly one"),
    ("T.Let(x * x, where={x: i})", "binds x: float32 to a int32"),
    ("T.Let(x * x, where={A: A[i]})", "declared variable"),
])
def test_malformed_let(let, message):
    text = _with_y(TEXT).replace(
        "T.Let(x * x + T.Let(y + x, where={y: T.float32(1)}), where={x: A[i]})", let)
    with pytest.raises(ParseError, match=message) as err:
        parse(text)
    assert "SYN-prim-2" in str(err.value)


LET_STMT = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        x: {ann} = A[i]
        B[i] = x
'''


@pytest.mark.parametrize("ann", ["T.let[T.float32]", "T.let[T.float32()]", "T.let"])
def test_t_let_annotations_are_let_statements(ann):
    """SYN-tir-6: TVM's explicit ``x: T.let[T.float32] = v`` is the LetStmt that
    ``x: T.float32 = v`` writes."""
    plain = parse(LET_STMT.format(ann="T.float32"))
    assert structural_equal(parse(LET_STMT.format(ann=ann)), plain)


def test_t_let_of_something_else_is_an_error():
    with pytest.raises(ParseError, match="T.let") as err:
        parse(LET_STMT.format(ann="T.let[4]"))
    assert err.value.rule == "SYN-tir-6"


ACCUMULATE = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((1,), "float32")):
    acc: T.float32 = T.float32(0)
    for k in range(4):
        {update}
    B[0] = acc
'''


@pytest.mark.parametrize("update", ["acc = acc + A[k]", "acc += A[k]"])
def test_a_reassigned_typed_scalar_is_mutable_as_in_tvm_0_27(update):
    """SYN-tir-16: TVM 0.27 reads ``acc: T.float32 = 0`` followed by ``acc = ...`` as a
    mutable local scalar; reading it as a let gave B = 0 (a silent wrong result)."""
    f = parse(ACCUMULATE.format(update=update)).functions["f"]
    a, b = np.arange(1, 5, dtype=np.float32), np.zeros(1, np.float32)
    run_prim_func(f, [a, b])
    assert b[0] == 10.0


def test_a_let_annotation_stays_immutable_and_prints_as_tvm_0_27_writes_it():
    text = LET_STMT.format(ann="T.float32")
    printed = print_module(parse(text))
    assert "x: T.let[T.float32] = A[i]" in printed
    assert structural_equal(parse(printed), parse(text))
