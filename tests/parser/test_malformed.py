"""Malformed TVMScript is rejected with a ParseError that names the line and column;
no other exception escapes the parser (issue: foundation, "Done when")."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.parser.builder import parse
from relax_ref.errors import ParseError
from tests.conftest import sample_files

GOOD = '''\
n = TypeVar("n")
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


def _replace(old: str, new: str, count: int = 1) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, count)


# (case id, text, line the error must point at or None, words the message must contain)
CASES = [
    ("empty", "", None, "no @I.ir_module"),
    ("only_comment", "# nothing here\n", None, "no @I.ir_module"),
    ("binary_garbage", "\x7fELF\x02\x01\x01\x00\x00\x00", 1, "NUL"),
    ("nul_in_middle", GOOD[:200] + "\x00" + GOOD[200:], None, "NUL"),
    ("truncated_half", GOOD[: len(GOOD) // 2], None, ""),
    ("truncated_in_string", GOOD[: GOOD.index('"float32"') + 4], None, "string"),
    ("truncated_after_colon", GOOD[: GOOD.index("class Module:") + len("class Module:")], None, ""),
    ("unbalanced_paren", _replace("R.add(y, x)", "R.add(y, x"), None, ""),
    ("extra_paren", _replace("R.add(y, x)", "R.add(y, x))"), 16, "unexpected"),
    ("unbalanced_bracket", _replace('T.axis.remap("SS", [i, j])', 'T.axis.remap("SS", [i, j)'), 8, ""),
    ("unbalanced_brace", "@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n        R.func_attr({\"a\": 1)\n        return x\n", 5, ""),
    ("bad_indent_dedent", _replace("        cls = Module", "      cls = Module"), 14, "indent"),
    ("bad_indent_extra", _replace("            R.output(z)", "                R.output(z)"), 17, ""),
    ("tab_mix", _replace("        return z", "\t  return z"), None, "indent"),
    ("unknown_decorator", _replace("@R.function", "@R.fn"), 11, "decorator"),
    ("unknown_module_decorator", _replace("@I.ir_module", "@I.module"), 2, "I.ir_module"),
    ("no_decorator", _replace("    @R.function\n", ""), 11, "decorated"),
    ("two_decorators", _replace("    @R.function\n", "    @R.function\n    @R.function\n"), None, "one decorator"),
    ("bad_dtype_relax", _replace('R.Tensor((n, 4), dtype="float32")) ->', 'R.Tensor((n, 4), dtype="float33")) ->'), 12, "float33"),
    ("bad_dtype_tir", _replace('T.Buffer((n, T.int64(4)), "float32"), B', 'T.Buffer((n, T.int64(4)), "flaot32"), B'), 5, "flaot32"),
    ("bad_dtype_const", _replace("R.add(y, x)", 'R.add(y, R.const(1, "int7"))'), 16, "int7"),
    ("undefined_var", _replace("R.add(y, x)", "R.add(y, w)"), 16, "'w'"),
    ("undefined_sym_in_shape", _replace("z: R.Tensor((n, 4)", "z: R.Tensor((k, 4)"), 16, "'k'"),
    ("undefined_function", _replace("cls.add_one, (x,)", "cls.add_two, (x,)"), 15, "add_two"),
    ("undefined_namespace", _replace("R.add(y, x)", "Q.add(y, x)"), 16, "'Q'"),
    ("missing_return", _replace("        return z\n", ""), None, "return"),
    ("statement_after_return", _replace("        return z\n", "        return z\n        q = z\n"), 19, "after return"),
    ("return_in_dataflow", _replace("            R.output(z)", "            return z"), None, "return"),
    ("output_unbound", _replace("R.output(z)", "R.output(q)"), 17, "'q'"),
    ("output_outside_dataflow", _replace("        return z", "        R.output(z)\n        return z"), 18, "R.output"),
    ("nested_dataflow", _replace("            y = R.call_tir", "            with R.dataflow():\n                R.output()\n            y = R.call_tir"), None, ""),
    ("with_other", _replace("with R.dataflow():", "with R.something():"), 14, "dataflow"),
    ("duplicate_param", _replace("def main(x: R.Tensor((n, 4), dtype=\"float32\"))", "def main(x: R.Tensor((n, 4), dtype=\"float32\"), x: R.Tensor((n, 4), dtype=\"float32\"))"), 12, "twice"),
    ("param_without_annotation", _replace("def main(x: R.Tensor((n, 4), dtype=\"float32\"))", "def main(x)"), 12, "annotation"),
    ("duplicate_function", GOOD + "\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        return x\n", None, "twice"),
    ("tuple_target", _replace("z: R.Tensor((n, 4), dtype=\"float32\") = R.add(y, x)", "z, w = R.add(y, x)"), 16, ""),
    ("annotation_not_sinfo", _replace("z: R.Tensor((n, 4), dtype=\"float32\")", "z: 3"), 16, "annotation"),
    ("tensor_bad_option", _replace("z: R.Tensor((n, 4), dtype=\"float32\")", "z: R.Tensor((n, 4), dtpe=\"float32\")"), 16, "dtpe"),
    ("ndim_mismatch", _replace("z: R.Tensor((n, 4), dtype=\"float32\")", "z: R.Tensor((n, 4), dtype=\"float32\", ndim=3)"), 16, "ndim"),
    ("shape_not_tuple", _replace("z: R.Tensor((n, 4), dtype=\"float32\")", "z: R.Tensor(5, dtype=\"float32\")"), 16, "shape"),
    ("bad_string_dim", _replace("z: R.Tensor((n, 4)", "z: R.Tensor((\"n +\", 4)"), 16, "string"),
    ("call_tir_without_out", _replace(", out_ty=R.Tensor((n, 4), dtype=\"float32\"))", ")"), 15, "out_ty"),
    ("match_cast_arity", _replace("R.add(y, x)", "R.match_cast(y)").replace("z: R.Tensor((n, 4), dtype=\"float32\") = R.match_cast(y)", "z = R.match_cast(y)"), 16, "match_cast"),
    ("keyword_twice", _replace("R.add(y, x)", "R.nn.softmax(y, axis=1, axis=2)"), 16, "twice"),
    ("positional_after_keyword", _replace("R.add(y, x)", "R.nn.softmax(axis=1, y)"), 16, "positional"),
    ("star_args", _replace("R.add(y, x)", "R.add(*y)"), 16, "*args"),
    ("lambda_kw", _replace("R.add(y, x)", "lambda: y"), 16, ""),
    ("chained_compare", _replace("R.add(y, x)", "R.prim_value(1 < n < 3)"), 16, "chained"),
    ("ternary", _replace("R.add(y, x)", "y if x else y"), 16, "conditional"),
    ("if_without_else", _replace("        return z", "        if x:\n            q = x\n        return z"), 18, "else"),
    ("if_branches_disagree", _replace("        return z", "        if x:\n            q = x\n        else:\n            r = x\n        return z"), 18, "same variable"),
    ("elif_in_relax", _replace("        return z", "        if x:\n            q = x\n        elif x:\n            q = x\n        else:\n            q = x\n        return z"), None, "elif"),
    ("grid_arity", _replace("T.grid(n, T.int64(4))", "T.grid(n)"), 6, "T.grid"),
    ("remap_arity", _replace('T.axis.remap("SS", [i, j])', 'T.axis.remap("S", [i, j])'), 8, "agree"),
    ("remap_kind", _replace('T.axis.remap("SS", [i, j])', 'T.axis.remap("SX", [i, j])'), 8, "'X'"),
    ("buffer_rank", _replace("B[vi, vj] = A[vi, vj]", "B[vi] = A[vi, vj]"), 9, "dimensions"),
    ("load_rank", _replace("B[vi, vj] = A[vi, vj]", "B[vi, vj] = A[vi]"), 9, "dimensions"),
    ("store_to_scalar", _replace("B[vi, vj] = A[vi, vj]", "vi[0, 1] = A[vi, vj]"), 9, "buffer"),
    ("unknown_tir_fn", _replace("A[vi, vj] + T.float32(1.0)", "T.frobnicate(A[vi, vj])"), 9, "frobnicate"),
    ("unknown_loop", _replace("T.grid(n, T.int64(4))", "T.spiral(n, T.int64(4))"), 6, "spiral"),
    ("with_in_tir", _replace('with T.sblock("add"):', "with T.nothing():"), 7, "sblock"),
    ("init_outside_block", _replace('with T.sblock("add"):', "with T.init():"), 7, "block"),
    ("float_int_const", _replace("T.float32(1.0)", "T.int32(1.5)"), 9, "integer"),
    ("typevar_mismatch", _replace('n = TypeVar("n")', 'n = TypeVar("m")'), 1, "differs"),
    ("top_level_junk", "x = 1\n" + GOOD, 1, "top level"),
    ("import_statement", "import os\n" + GOOD, 1, ""),
    ("class_without_decorator", GOOD.replace("@I.ir_module\n", ""), None, "decorator"),
    ("two_modules", GOOD + "\n@I.ir_module\nclass Other:\n    pass\n", None, "second"),
    ("huge_int", _replace("R.add(y, x)", "R.prim_value(" + "9" * 5000 + ")"), 16, "too long"),
    ("zero_division", _replace("z: R.Tensor((n, 4)", "z: R.Tensor((n, 4 // 0)"), 16, "division by zero"),
    ("huge_power", _replace("z: R.Tensor((n, 4)", "z: R.Tensor((n, 2 ** 99999)"), 16, "too large"),
    ("unterminated_triple", GOOD + '\n"""never closed\n', None, ""),
    ("bad_escape", _replace('"float32")) ->', '"float\\x3")) ->'), None, ""),
    ("metadata_missing", _replace("R.add(y, x)", 'R.add(y, metadata["relax.expr.Constant"][0])'), 16, "metadata"),
    ("metadata_bad_json", 'metadata = tvm.ir.load_json("""{not json""")\n' + GOOD, 1, "metadata"),
    ("prim_func_param_kind", _replace('A: T.Buffer((n, T.int64(4)), "float32")', "A: R.Tensor((n, 4))"), 5, "T.Buffer"),
    ("func_option_unknown", _replace("@R.function\n", "@R.function(fast=True)\n"), 11, "fast"),
    ("prim_option_unknown", _replace("private=True, s_tir=True", "private=True, speed=1"), 4, "speed"),
    ("deep_nesting_unclosed", _replace("R.add(y, x)", "(" * 3000 + "y"), None, ""),
    ("unicode_garbage", _replace("R.add(y, x)", "R.add(y, x) \u2603"), 16, "character"),
]


@pytest.mark.parametrize("case_id,text,line,words", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_gives_parse_error(case_id, text, line, words):
    with pytest.raises(ParseError) as info:
        parse(text, "case.py")
    err = info.value
    assert err.span is not None and err.span.source == "case.py"
    assert err.span.line >= 1 and err.span.column >= 1
    if line is not None:
        assert err.span.line == line, err.render()
    assert words.lower() in err.message.lower(), err.render()
    rendered = err.render()
    assert rendered.startswith(f"case.py:{err.span.line}:{err.span.column}: error: ")


def test_corpus_is_large_enough():
    assert len(CASES) >= 60


def test_good_template_parses():
    mod = parse(GOOD)
    assert set(mod.functions) == {"add_one", "main"}


def test_error_shows_the_line_with_a_caret():
    text = _replace("R.add(y, x)", "R.add(y, w)")
    with pytest.raises(ParseError) as info:
        parse(text, "m.py")
    lines = info.value.render().splitlines()
    assert lines[0].startswith("m.py:16:")
    assert lines[1].strip() == "z: R.Tensor((n, 4), dtype=\"float32\") = R.add(y, w)"
    assert lines[2].strip() == "^"


_SAMPLES = [p.read_text() for p in sample_files()] or [GOOD]
_TOKENS = ["(", ")", "[", "]", ":", ",", "=", "\n", "    ", '"', "'", "R.", "T.", "#", "@",
           "def ", "return ", "0", "-1", "1.5", "None", "x", "n", "*", "//", "\\", "\t",
           "with ", "for ", "if ", "else:", "T.int64()", "R.Tensor", '"""', "**", "1e999"]


@st.composite
def mutated_text(draw):
    text = draw(st.sampled_from(_SAMPLES))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        op = rng.randrange(6)
        i = rng.randrange(len(text))
        if op == 0:
            text = text[:i] + text[i + rng.randrange(1, 40):]
        elif op == 1:
            text = text[:i] + rng.choice(_TOKENS) + text[i:]
        elif op == 2:
            text = text[:i]
        elif op == 3:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == 4:
            lines = text.split("\n")
            a = rng.randrange(len(lines))
            lines[a] = lines[a].lstrip() if rng.random() < 0.5 else "  " + lines[a]
            text = "\n".join(lines)
        else:
            text = text[:i] + chr(rng.randrange(0, 0x3000)) + text[i + 1:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_text())
def test_mutated_samples_fail_only_with_parse_error(text):
    try:
        parse(text, "mutant.py")
    except ParseError as err:
        assert err.span is not None and err.span.line >= 1 and err.span.column >= 1


def test_a_pasted_test_function_is_named_not_its_python():
    # A whole test file: the module parses, then a test function holds Python the grammar
    # does not read (a comprehension); the error names the function (SYN-module-1).
    text = (
        "from tvm.script import ir as I, relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        "    def main(x: R.Tensor((2,), \"float32\")):\n"
        "        return x\n"
        "\n"
        "@pytest.mark.parametrize(\"n\", [1, 2])\n"
        "def test_names(n):\n"
        "    names = [gv.name_hint for gv in Module.get_global_vars()]\n"
        "    assert names\n"
    )
    with pytest.raises(ParseError) as info:
        parse(text, "pasted.py")
    err = info.value
    assert err.rule == "SYN-module-1"
    assert (err.span.line, err.span.column) == (10, 1)
    assert "`def test_names` has no decorator" in err.message


def test_a_text_over_the_line_limit_is_refused_before_parsing():
    # SYN-limit-1 in the parser itself, so relax_ref.from_source is guarded as the CLI is.
    from relax_ref.parser.syntax import MAX_TEXT_LINES

    with pytest.raises(ParseError) as info:
        parse("# a comment\n" * (MAX_TEXT_LINES + 5), "long.py")
    assert info.value.rule == "SYN-limit-1"
    assert info.value.span.line == MAX_TEXT_LINES + 1
