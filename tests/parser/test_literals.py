"""TIR literals as TVM types them (SYN-prim-1): an untyped integer is int32 when the value
fits, else int64, an error beyond int64; typed constants and float literals must fit
their type; the printer reads them back."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import INT32, INT64
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.errors import ParseError
from relax_ref.semantics.tir_interp import run_prim_func

HEAD = '''
@T.prim_func
def f(A: T.Buffer((1,), "int64"), I: T.Buffer((1,), "int32"), O: T.Buffer((1,), "float32")):
'''


def func(body: str) -> tir.PrimFunc:
    (f,) = [f for f in parse(HEAD + "    " + body + "\n").functions.values()
            if isinstance(f, tir.PrimFunc)]
    return f


def run(body: str, i: int = 0):
    a, ii, o = np.zeros(1, np.int64), np.array([i], np.int32), np.zeros(1, np.float32)
    run_prim_func(func(body), [a, ii, o])
    return a[0], ii[0], o[0]


def stored(body: str) -> P.PrimExpr:
    return func(body).body.value


def test_a_literal_beyond_int32_is_int64():
    assert run('O[0] = T.Cast("float32", 3000000000)')[2] == np.float32(3e9)
    value = stored('O[0] = T.Cast("float32", 3000000000)')
    assert value.value.dtype == INT64 and value.value.value == 3000000000
    assert stored('O[0] = T.Cast("float32", 2147483647)').value.dtype == INT32
    assert stored('O[0] = T.Cast("float32", -2147483648)').value.dtype == INT32
    assert stored('O[0] = T.Cast("float32", -2147483649)').value.dtype == INT64


def test_folded_literals_are_typed_by_their_value():
    assert run('A[0] = T.Cast("int64", 100000 * 100000)')[0] == 10**10


def test_a_literal_that_does_not_fit_the_other_side_widens_it():
    # TVM: T.Cast("int64", I) + T.int64(3000000000)
    value = stored('A[0] = T.Cast("int64", I[0] + 3000000000)')
    assert value.dtype == INT64 and isinstance(value.a, P.Cast) and value.b.dtype == INT64
    assert run('A[0] = T.Cast("int64", I[0] + 3000000000)', 5)[0] == 3000000005
    assert run('A[0] = T.Cast("int64", 3000000000 * I[0])', 2)[0] == 6000000000
    # A literal that fits still takes the other side's type.
    assert stored('I[0] = I[0] + 7').b.dtype == INT32
    assert stored('A[0] = A[0] + 7').b.dtype == INT64


@pytest.mark.parametrize("body, words", [
    ('A[0] = T.Cast("int64", 9223372036854775808)', "does not fit int64"),
    ('A[0] = T.Cast("int64", -9223372036854775809)', "does not fit int64"),
    ('A[0] = A[0] + 9223372036854775808', "does not fit int64"),
    ('I[0] = 3000000000', "does not fit int32"),
])
def test_literals_that_fit_no_type_are_errors(body, words):
    with pytest.raises(ParseError) as info:
        func(body)
    assert words in info.value.message and info.value.rule == "SYN-prim-1"


def test_int64_extremes_are_literals():
    assert run('A[0] = T.Cast("int64", 9223372036854775807)')[0] == 2**63 - 1
    assert run('A[0] = T.Cast("int64", -9223372036854775808)')[0] == -2**63


@pytest.mark.parametrize("body", [
    'O[0] = T.Cast("float32", 3000000000)',
    'A[0] = T.Cast("int64", I[0] + 3000000000)',
    'A[0] = T.Cast("int64", -3000000000 * I[0])',
    'I[0] = -2147483648',
    'O[0] = T.Cast("float32", 2147483647 + I[0])',
])
def test_wide_literals_print_and_read_back(body):
    module = parse(HEAD + "    " + body + "\n")
    text = print_module(module)
    again = parse(text)
    assert_structural_equal(again, module)
    assert print_module(again) == text


@pytest.mark.parametrize("const", ["T.int32(3000000000)", "T.uint8(-1)", "T.uint8(256)",
                                   "T.int8(-129)"])
def test_typed_constants_must_fit_their_type(const):
    """SYN-prim-1: TVM refuses them ("Literal value ... exceeds", "cannot make uint from
    negative value"); wrapping them would change the program silently."""
    with pytest.raises(ParseError) as info:
        func(f"O[0] = T.Cast(\"float32\", {const})")
    assert "outside the range" in info.value.message


def test_typed_constants_at_the_ends_of_their_range_are_fine():
    for const in ("T.int8(-128)", "T.uint8(255)", "T.int64(-9223372036854775808)",
                  "T.uint64(18446744073709551615)"):
        func(f"O[0] = T.Cast(\"float32\", {const})")


@pytest.mark.parametrize("const", ["T.float32(3.5e38)", "T.float32(-3.5e38)", "3.5e38",
                                   "T.float16(70000.0)"])
def test_float_literals_beyond_their_type_are_errors(const):
    """SYN-prim-1: TVM refuses them ("exceeds maximum of float32"); they would otherwise
    become infinities silently."""
    with pytest.raises(ParseError) as info:
        func(f"O[0] = T.Cast(\"float32\", {const})")
    assert "beyond the largest" in info.value.message


def test_float_literals_within_range_and_infinities_are_fine():
    for const in ("T.float32(3.4e38)", "T.float32(1e-50)", "T.float16(65504.0)",
                  'T.float32("inf")', 'T.float32("-inf")'):
        func(f"O[0] = T.Cast(\"float32\", {const})")


MIXED_STORES = '''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int64"), C: T.Buffer((4,), "float32")):
    A[0] = B[0]
    C[0] = A[0]
'''


def test_a_store_of_another_type_is_cast_as_tvm_builds_it():
    """SYN-tir-3: TVM's builder wraps the stored value in a Cast to the buffer's type
    (it prints ``A[0] = T.Cast("int32", B[0])``); the printed form reads back the same."""
    mod = parse(MIXED_STORES)
    printed = print_module(mod)
    assert 'A[0] = T.Cast("int32", B[0])' in printed
    assert 'C[0] = T.Cast("float32", A[0])' in printed
    assert print_module(parse(printed)) == printed
    (f,) = mod.functions.values()
    a, b, c = np.zeros(4, np.int32), np.array([2**33 + 5, 0, 0, 0], np.int64), \
        np.zeros(4, np.float32)
    run_prim_func(f, [a, b, c])
    assert a[0] == 5 and c[0] == 5.0  # int64 -> int32 wraps (EXEC-tir-cast-1)


INTRINSICS = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), tensor: T.handle):
    T.assume(A[0] == T.float32(0))
    code: T.uint8 = T.tvm_struct_get(tensor, 0, 5, "uint8")
    T.call_packed("my_kernel", tensor, 4)
    A[1] = T.Cast("float32", T.int64(1) << T.int64(3) + T.int64(1))
'''


def test_intrinsics_with_fixed_or_trailing_result_types():
    """SYN-prim-1: T.assume is bool, T.call_packed int32 with the function's name first
    (no dtype), T.tvm_struct_get takes its dtype last; ``<<`` binds looser than ``+``."""
    f = parse(INTRINSICS).functions["f"]
    assume, let = f.body.seq[0], f.body.seq[1]
    assert assume.value.op == "tir.assume" and assume.value.dtype.is_bool
    assert let.value.op == "tir.tvm_struct_get" and str(let.value.dtype) == "uint8"
    packed = let.body.seq[0].value
    assert packed.op == "tir.call_packed" and packed.dtype == INT32
    assert packed.args[0].value == "my_kernel"
    shifted = let.body.seq[1].value.value  # the store's value is Cast(shift_left(...))
    assert shifted.op == "tir.shift_left" and isinstance(shifted.args[1], P.Add)
    again = parse(print_module(parse(INTRINSICS)))
    assert_structural_equal(again, parse(INTRINSICS))


def test_an_operator_constants_do_not_fold_is_a_located_error():
    # `@` (and any operator without a rule on two integers) was a KeyError from the folder.
    text = ('from tvm.script import ir as I, tir as T\n'
            '@I.ir_module\n'
            'class Module:\n'
            '    @T.prim_func\n'
            '    def f(A: T.Buffer((3 @ 2,), "float32")):\n'
            '        A[0] = T.float32(1)\n')
    with pytest.raises(ParseError) as info:
        parse(text, "m.py")
    assert info.value.rule == "SYN-expr-2"
    assert (info.value.span.line, info.value.span.column) == (5, 24)
