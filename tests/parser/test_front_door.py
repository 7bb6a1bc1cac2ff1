"""The forms of TVMScript that files pasted from TVM begin with: import lines
(SYN-import-1), the spellings of the module decorator (SYN-module-4), the rest of a test
file around the module (SYN-module-1), and DPS calls with positional parameters
(SYN-relax-11). Each reads to the same module as the plain form."""
from __future__ import annotations

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse

BODY = '''
class Module:
    @T.prim_func(private=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
'''
PLAIN = "@I.ir_module" + BODY


def same_as_plain(text: str) -> None:
    assert_structural_equal(parse(text), parse(PLAIN))


@pytest.mark.parametrize("imports", [
    "import tvm\nfrom tvm.script import ir as I, relax as R, tir as T\n",
    "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"
    "from tvm.script import tirx as T\n",
    "from tvm.script.parser import ir as I, relax as R, tirx as T\n",
    "import tvm\nimport tvm.testing\nfrom tvm import relax, tir\nimport numpy as np\n"
    "import pytest\nfrom __future__ import annotations\n",
])
def test_import_lines_bind_the_usual_names(imports):
    same_as_plain(imports + PLAIN)


def test_an_alias_given_with_as_is_the_namespace():
    text = ("from tvm.script import ir as ir_, relax as rx, tir as tx\n"
            + PLAIN.replace("@I.", "@ir_.").replace("R.", "rx.").replace("T.", "tx."))
    same_as_plain(text)


@pytest.mark.parametrize("decorator", [
    "import tvm\n@tvm.script.ir_module",
    "import tvm\n@tvm.script.ir.ir_module",
    "from tvm.script import ir_module\n@ir_module",
    "@I.ir_module(check_well_formed=False)",
    "@I.ir_module(s_tir=True)",
])
def test_module_decorator_spellings(decorator):
    same_as_plain(decorator + BODY)


def test_module_decorator_with_an_unknown_option_is_an_error():
    with pytest.raises(ParseError, match="SYN-module-4|check_well_formed") as err:
        parse("@I.ir_module(strict=True)" + BODY)
    assert err.value.rule == "SYN-module-4"


@pytest.mark.parametrize("line, what", [
    ("import os", "imports os"),
    ("from numpy import *", "import \\*"),
    ("from collections import OrderedDict", "imports collections"),
])
def test_other_imports_are_located_errors(line, what):
    with pytest.raises(ParseError, match=what) as err:
        parse(line + "\n" + PLAIN)
    assert err.value.rule == "SYN-import-1"
    assert (err.value.span.line, err.value.span.column) == (1, 1)


def test_a_name_of_an_ignored_import_is_an_error_that_names_the_import():
    text = PLAIN.replace('-> R.Tensor((4,), "float32"):', '-> R.Tensor((4,), np.float32):')
    with pytest.raises(ParseError, match="import numpy as np") as err:
        parse("import numpy as np\n" + text)
    assert err.value.rule == "SYN-import-1"


def test_the_main_guard_of_a_pasted_test_file_is_skipped():
    same_as_plain("import tvm.testing\n" + PLAIN
                  + '\n\nif __name__ == "__main__":\n    tvm.testing.main()\n')


@pytest.mark.parametrize("extra, form", [
    ("def test_copy():\n    pass\n", "`def test_copy`"),
    ("class TestCopy:\n    pass\n", "`class TestCopy`"),
    ("x = 1\n", "declarations"),
    ("for i in range(3):\n    pass\n", "`for` loop"),
])
def test_other_top_level_python_is_a_located_error_naming_the_form(extra, form):
    with pytest.raises(ParseError, match=form) as err:
        parse(PLAIN + "\n\n" + extra)
    assert err.value.rule == "SYN-module-1"


def dps_call(call: str):
    text = PLAIN.replace('R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), "float32"))', call)
    return parse(text)


@pytest.mark.parametrize("call", [
    'R.call_tir(cls.copy, (x,), R.Tensor((4,), "float32"))',
    'R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((4,), "float32"))',
    'R.call_tir(cls.copy, [x], [R.Tensor((4,), "float32")])',
])
def test_call_tir_output_positional_or_by_keyword(call):
    assert_structural_equal(dps_call(call), parse(PLAIN))


def test_the_other_dps_calls_take_their_parameters_by_position():
    inplace = dps_call('R.call_tir_inplace(cls.copy, (x,), 0, R.Tensor((4,), "float32"))')
    keyword = dps_call('R.call_tir_inplace(cls.copy, (x,), inplace_indices=0, '
                       'out_ty=R.Tensor((4,), "float32"))')
    assert_structural_equal(inplace, keyword)
    packed = dps_call('R.call_dps_packed("f", (x,), R.Tensor((4,), "float32"))')
    packed_kw = dps_call('R.call_dps_packed("f", (x,), out_ty=R.Tensor((4,), "float32"))')
    assert_structural_equal(packed, packed_kw)
    grad = dps_call('R.call_tir_with_grad(cls.copy, (x,), R.Tensor((4,), "float32"), "g")')
    grad_kw = dps_call('R.call_tir_with_grad(cls.copy, (x,), out_ty=R.Tensor((4,), '
                       '"float32"), te_grad_name="g")')
    assert_structural_equal(grad, grad_kw)


def test_a_dps_parameter_given_twice_is_an_error():
    with pytest.raises(ParseError, match="given twice") as err:
        dps_call('R.call_tir(cls.copy, (x,), R.Tensor((4,), "float32"), '
                 'out_ty=R.Tensor((4,), "float32"))')
    assert err.value.rule == "SYN-relax-11"


DECLARED = '''
@I.ir_module
class Module:
    @T.prim_func
    def fill(a: T.handle):
        {tir_decl}
        A = T.match_buffer(a, (n, m), "float32")
        for i, j in T.grid(n, m):
            A[i, j] = T.float32(0)

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        {relax_decl}
        y: R.Tensor((n, m), "float32") = x
        return y
'''


@pytest.mark.parametrize("decl", [
    "n, m = T.int64(), T.int64()",
    "n = T.int64(is_size_var=True); m = T.int64()",
    'n = TypeVar("n"); m = TypeVar("m")',
])
def test_declarations_of_symbolic_variables(decl):
    plain = DECLARED.format(tir_decl="n = T.int64(); m = T.int64()",
                            relax_decl="n = T.int64(); m = T.int64()")
    text = DECLARED.format(tir_decl=decl, relax_decl=decl)
    assert_structural_equal(parse(text), parse(plain))


def test_a_declaration_with_another_keyword_is_an_error():
    text = DECLARED.format(tir_decl="n = T.int64(); m = T.int64()",
                           relax_decl="n, m = T.int64(), T.int64(bound=4)")
    with pytest.raises(ParseError, match="is_size_var") as err:
        parse(text)
    assert err.value.rule == "SYN-sym-2"


def test_typevar_in_a_body_names_its_variable():
    text = DECLARED.format(tir_decl="n = T.int64(); m = T.int64()",
                           relax_decl='n = TypeVar("k"); m = T.int64()')
    with pytest.raises(ParseError, match="differs") as err:
        parse(text)
    assert err.value.rule == "SYN-typevar-1"


def test_r_tuple_of_one_list_spreads_it():
    base = '''
@R.function
def f(x: R.Tensor((2,), "float32")) -> {ret}:
    return (x, x)
'''
    assert_structural_equal(
        parse(base.format(ret='R.Tuple([R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])')),
        parse(base.format(ret='R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))')))


def test_a_body_declaration_gives_the_dtype_of_quoted_signature_dimensions():
    text = '''
@T.prim_func
def add_one(A: T.Buffer(("n", "m"), "float32"), B: T.Buffer((n, m), "float32")):
    n, m = T.int32(), T.int32()
    for i, j in T.grid(n, m):
        B[i, j] = A[i, j] + T.float32(1)
'''
    f = parse(text).functions["add_one"]
    a, b = (f.buffer_of(p) for p in f.params)
    assert [d.dtype.bits for d in a.shape] == [32, 32]
    assert a.shape[0] is b.shape[0]


@pytest.mark.parametrize("text", [
    '@I.ir_module\nclass M:\n    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})\n'
    '    @R.function\n    def f(x: R.Tensor((2,), "float32")):\n        return x\n',
    '@R.function\ndef f(x: R.DTensor((2,), "float32", "mesh[0]", "R")):\n    return x\n',
])
def test_distributed_relax_is_a_located_error_naming_the_dialect(text):
    with pytest.raises(ParseError, match="distributed Relax") as err:
        parse(text)
    assert err.value.rule == "SYN-dist-1"
