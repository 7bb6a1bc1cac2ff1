"""R.const values (SYN-const-1): special floats spelled as strings, as TVM reads them,
and values beyond the type's range as located errors (not infinities with a NumPy
warning, not wrapped integers)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from relax_ref.errors import ParseError
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module


def constant(text: str) -> np.ndarray:
    mod = parse(f"@R.function\ndef f():\n    a = R.const({text})\n    return a\n")
    return mod.functions["f"].body.blocks[0].bindings[0].value.data


@pytest.mark.parametrize("text, expected", [
    ('"-inf", "float32"', -np.inf),
    ('"inf", "float32"', np.inf),
    ('float("inf")', np.inf),
    ('-float("inf"), "float32"', -np.inf),
])
def test_special_float_spellings(text, expected):
    data = constant(text)
    assert data.dtype == np.float32 and data[()] == expected


def test_nan_strings_and_lists_of_them():
    assert np.isnan(constant('"nan", "float32"'))
    data = constant('["inf", 1.0, "nan"], "float16"')
    assert data.dtype == np.float16 and data[0] == np.inf and np.isnan(data[2])


def test_special_floats_print_back():
    mod = parse('@R.function\ndef f():\n    a = R.const(["-inf", "nan"], "float32")\n'
                '    return a\n')
    again = parse(print_module(mod))
    data = again.functions["f"].body.blocks[0].bindings[0].value.data
    assert data[0] == -np.inf and np.isnan(data[1])


@pytest.mark.parametrize("text, message", [
    ('1e40, "float32"', "beyond the range of float32"),
    ("1e40", "beyond the range of float32"),
    ('[1.0, 70000.0], "float16"', "70000.0 is beyond the range of float16"),
    ("3000000000", "does not fit in int32"),
    ("99999999999999999999999999999", "beyond every integer dtype"),
    ("[1, -99999999999999999999999999999]", "beyond every integer dtype"),
    ('"infinity", "float32"', "not a number"),
])
def test_values_beyond_the_type_are_located_errors_without_warnings(text, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParseError, match=message) as err:
            constant(text)
    assert (err.value.span.line, err.value.span.column) == (3, 17)


@pytest.mark.parametrize("annotation, column", [
    ('R.Tensor((99999999999999999999,), "float32")', 20),
    ('R.Tensor(("99999999999999999999",), "float32")', 20),
    ("R.Shape([4, -99999999999999999999])", 22),
])
def test_a_static_dimension_beyond_int64_is_a_located_error(annotation, column):
    text = f"@R.function\ndef f(x: {annotation}):\n    return x\n"
    with pytest.raises(ParseError, match="does not fit int64") as err:
        parse(text)
    assert err.value.rule == "SYN-prim-1"
    assert (err.value.span.line, err.value.span.column) == (2, column)
