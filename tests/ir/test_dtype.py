"""parse_dtype: the data type names TVM uses."""
from __future__ import annotations

import pytest

from relax_ref.ir.dtype import DataType, DTypeError, parse_dtype


@pytest.mark.parametrize("name, code, bits, lanes", [
    ("float32", "float", 32, 1),
    ("int64", "int", 64, 1),
    ("bool", "bool", 8, 1),
    ("bfloat16", "bfloat", 16, 1),
    ("float16", "float", 16, 1),
    ("uint8", "uint", 8, 1),
    ("int1", "int", 1, 1),
    ("float32x4", "float", 32, 4),
    ("float8_e4m3fn", "float8_e4m3fn", 8, 1),
    ("handle", "handle", 64, 1),
    ("void", "void", 0, 1),
])
def test_parse_known_names(name, code, bits, lanes):
    dtype = parse_dtype(name)
    assert dtype == DataType(code, bits, lanes)
    assert str(dtype) == name


@pytest.mark.parametrize("name", ["float33", "int7", "x", "float", "int64x0"])
def test_reject_bad_names(name):
    with pytest.raises(DTypeError):
        parse_dtype(name)


def test_empty_name_is_void():
    # As in TVM, where DataType("") is the void type (the empty string names no data).
    assert parse_dtype("") == parse_dtype("void")
