"""Round trips found by sweeping TVM's Relax test modules: each text reads, prints and
reads back to the same structure (spec/syntax.md, "Printing"), both as written and
after ``check``."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import FLOAT32, INT32, INT64
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.metadata import encode_metadata, escape_python_string

HEADER = "import tvm\nfrom tvm.script import ir as I, relax as R, tirx as T\n\n"


def round_trip(body: str) -> str:
    """Parse ``body`` (a module under HEADER), print it, and check that the print reads
    back to the same module, before and after ``check``; the first print."""
    mod = relax_ref.from_source(HEADER + body)
    printed = mod.script()
    assert_structural_equal(mod, relax_ref.from_source(printed))
    checked = relax_ref.check(mod)
    again = relax_ref.check(relax_ref.from_source(checked.script()))
    assert_structural_equal(checked, again)
    return printed


def test_void_binding_to_underscore_keeps_its_written_annotation():
    printed = round_trip('''
@I.ir_module
class Module:
    @T.prim_func
    def fill(a: T.Buffer((2,), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        cls = Module
        _: R.Tuple() = cls.fill(x)
        return x
''')
    assert "_: R.Tuple = cls.fill(x)" in printed
    # Once checked, the value is known void and the binding prints bare, as TVM prints it.
    text = relax_ref.check(relax_ref.from_source(printed)).script()
    assert "        cls.fill(x)\n" in text


def test_int32_symbol_of_a_prim_func_signature_keeps_its_dtype():
    printed = round_trip('''
@I.ir_module
class Module:
    @T.prim_func
    def copy(x: T.handle, y: T.handle):
        m = T.int32()
        A = T.match_buffer(x, (m, m * 2), "float32")
        B = T.match_buffer(y, (m, m * 2), "float32")
        for i in range(m):
            B[i, 0] = A[i, 0]
''')
    assert ('def copy(A: T.Buffer(("m", "m * 2"), "float32"), '
            'B: T.Buffer((m, "m * 2"), "float32")):') in printed
    assert "        m = T.int32()\n" in printed


def test_metadata_constant_reads_as_the_r_const_it_prints_as():
    table = encode_metadata([rx.Constant(np.array([1.5, -2.0], "float32"))])
    printed = round_trip(f'''metadata = tvm.ir.load_json("""{escape_python_string(table)}""")

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.add(x, metadata["relax.expr.Constant"][0])
        return y
''')
    assert 'y = R.add(x, R.const([1.5, -2.0], "float32"))' in printed


def test_prim_value_of_a_constant_in_an_attribute_reads_as_the_bare_literal():
    printed = round_trip('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32")):
        y = R.strided_slice(x, axes=[0], begin=[R.prim_value(1)], end=[R.prim_value(7)])
        return y
''')
    assert "begin=[1], end=[7]" in printed


def test_expression_statement_in_a_dataflow_block_binds_a_dataflow_var():
    mod = relax_ref.from_source(HEADER + '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        with R.dataflow():
            R.print(x, format="{}")
            y = R.add(x, x)
            R.output(y)
        return y
''')
    (block,) = mod.functions["main"].body.blocks
    assert type(block.bindings[0].var) is rx.DataflowVar
    printed = mod.script()
    assert "            R.print(x, format=R.str(\"{}\"))\n" in printed
    assert_structural_equal(mod, relax_ref.from_source(printed))


def test_inferred_reads_of_a_match_buffer_name_the_region_it_views():
    printed = round_trip('''
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("row"):
                vi = T.axis.spatial(4, i)
                V = T.match_buffer(A[vi, 2:8], (6,))
                B[vi] = V[0] + V[5]
''')
    assert "T.reads(A[vi, 2:8])" in printed


def test_bare_r_callable_annotation_reads_as_an_opaque_callable():
    printed = round_trip('''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        f: R.Callable = R.ExternFunc("my.callback")
        y: R.Any = f(x)
        return y
''')
    assert 'f: R.Callable = R.ExternFunc("my.callback")' in printed


def test_alloc_tensor_with_a_keyword_dtype_derives_its_struct_info_as_printed():
    mod = relax_ref.from_source(HEADER + '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main():
        a = R.builtin.alloc_tensor(R.shape([2, 3]), dtype="float32", runtime_device_index=0)
        b = R.builtin.alloc_tensor(R.shape([4]), "int32", 0)
        return (a, b)
''')
    a, b = (bd.value for bd in mod.functions["main"].body.blocks[0].bindings)
    assert_structural_equal(a.sinfo_args, (si.TensorStructInfo(
        (P.IntImm(2, INT64), P.IntImm(3, INT64)), FLOAT32),))
    assert_structural_equal(b.sinfo_args, (si.TensorStructInfo((P.IntImm(4, INT64),), INT32),))
    round_trip(mod.script().split("\n\n", 1)[1])


def test_a_long_written_chain_prints_without_exhausting_recursion():
    chain = "x" + " + 1" * 3000
    mod = relax_ref.from_source(HEADER + f'''
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "int32"), x: T.int32):
        A[0] = ({chain}) * 2
''')
    printed = mod.script()
    assert printed.count(" + 1") == 3000
    assert_structural_equal(mod, relax_ref.from_source(printed))


def test_a_chain_that_nests_as_calls_is_limited_so_that_it_reads_back():
    def relax_chain(n: int) -> str:
        return HEADER + f'''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = {" + ".join(["x"] * (n + 1))}
        return y
'''
    mod = relax_ref.from_source(relax_chain(64))
    assert_structural_equal(mod, relax_ref.from_source(mod.script()))
    with pytest.raises(relax_ref.ParseError, match="chain of more than 64 '\\+'") as err:
        relax_ref.from_source(relax_chain(65))
    assert err.value.rule == "SYN-limit-1" and err.value.span.line == 9


def test_a_dtype_string_operand_of_a_call_kept_as_written_prints_as_a_literal():
    # TVM refuses R.str("int32") where its op takes a dtype; the literal reads in both.
    printed = round_trip(
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function(pure=False)\n"
        "    def main() -> R.Tensor((16,), \"float32\"):\n"
        "        a = R.zeros(R.shape([2]), \"int32\")\n"
        "        b = R.builtin.alloc_tensor(R.shape([16]), \"float32\", 0, \"global\")\n"
        "        return b\n")
    assert 'R.zeros(R.shape([2]), "int32")' in printed
    assert 'R.builtin.alloc_tensor(R.shape([16]), "float32", 0, R.str("global"))' in printed


def test_names_rebound_many_times_pick_the_same_fresh_names():
    # The printer once scanned suffixes from _1 for every rebinding (quadratic: a 10k-line
    # module took 32 s to print); the names it picks must stay the smallest free ones.
    from relax_ref.ir.text import Names

    names = Names()
    objs = [object() for _ in range(5)]
    assert [names.define(o, "x") for o in objs[:3]] == ["x", "x_1", "x_2"]
    names.push()
    assert names.define(objs[3], "x") == "x_3"
    names.pop()                      # x_3 is free again
    assert names.define(objs[4], "x") == "x_3"
