"""Data types as TVM names them: ``float32``, ``int64``, ``bool``, ``bfloat16``,
``float32x4`` (4 lanes), ``handle``, ``void``, and the float8/float4 families."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Codes whose width is part of the name (``float8_e4m3fn`` is one 8-bit float kind).
_SPECIAL_FLOATS = {
    "float8_e3m4": 8, "float8_e4m3": 8, "float8_e4m3b11fnuz": 8, "float8_e4m3fn": 8,
    "float8_e4m3fnuz": 8, "float8_e5m2": 8, "float8_e5m2fnuz": 8, "float8_e8m0fnu": 8,
    "float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4,
}
_PLAIN = re.compile(r"^(int|uint|float|bfloat)(\d+)(?:x(\d+))?$")
_VALID_BITS = {
    "int": {1, 4, 8, 16, 32, 64},
    "uint": {1, 4, 8, 16, 32, 64},
    "float": {16, 32, 64},
    "bfloat": {16},
}


class DTypeError(ValueError):
    """A string that names no data type."""


@dataclass(frozen=True, slots=True)
class DataType:
    """``code`` is one of int, uint, float, bfloat, bool, handle, void or a special float
    name; ``bits`` the width of one lane; ``lanes`` the vector width (1 for scalars)."""

    code: str
    bits: int
    lanes: int = 1

    def __str__(self) -> str:
        if self.code == "void":
            return "void"
        if self.code in ("bool", "handle") or self.code in _SPECIAL_FLOATS:
            base = self.code
        else:
            base = f"{self.code}{self.bits}"
        return base if self.lanes == 1 else f"{base}x{self.lanes}"

    @property
    def is_int(self) -> bool:
        return self.code == "int"

    @property
    def is_uint(self) -> bool:
        return self.code == "uint"

    @property
    def is_integer(self) -> bool:
        """Signed or unsigned integer (not bool)."""
        return self.code in ("int", "uint")

    @property
    def is_float(self) -> bool:
        return self.code in ("float", "bfloat") or self.code in _SPECIAL_FLOATS

    @property
    def is_bool(self) -> bool:
        return self.code == "bool"

    @property
    def is_void(self) -> bool:
        return self.code == "void"

    @property
    def is_handle(self) -> bool:
        return self.code == "handle"

    def int_range(self) -> tuple[int, int]:
        """The closed range of an integer or bool type's values; ValueError otherwise."""
        if self.is_bool:
            return 0, 1
        if self.is_uint:
            return 0, (1 << self.bits) - 1
        if self.is_int:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        raise ValueError(f"{self} is not an integer type")

    def with_lanes(self, lanes: int) -> "DataType":
        return DataType(self.code, self.bits, lanes)

    @property
    def element_of(self) -> "DataType":
        return DataType(self.code, self.bits, 1)

    @property
    def itemsize(self) -> int:
        """Bytes taken by one element (all lanes), rounded up to whole bytes."""
        return (self.bits * self.lanes + 7) // 8


@lru_cache(maxsize=None)
def parse_dtype(name: str) -> DataType:
    """The DataType a TVM dtype string names; DTypeError when it names none."""
    if name == "bool":
        return DataType("bool", 8)
    if name == "handle":
        return DataType("handle", 64)
    if name in ("void", ""):
        return DataType("void", 0)
    base, lanes = name, 1
    vec = re.match(r"^(.*)x(\d+)$", name)
    if vec and (vec.group(1) in _SPECIAL_FLOATS or vec.group(1) == "bool"):
        base, lanes = vec.group(1), int(vec.group(2))
    if base in _SPECIAL_FLOATS:
        return DataType(base, _SPECIAL_FLOATS[base], lanes)
    if base == "bool":
        return DataType("bool", 8, lanes)
    m = _PLAIN.match(name)
    if m:
        code, bits = m.group(1), int(m.group(2))
        lanes = int(m.group(3)) if m.group(3) else 1
        if bits in _VALID_BITS[code] and lanes >= 1:
            return DataType(code, bits, lanes)
    raise DTypeError(f"unknown data type {name!r}")


def is_dtype_name(name: str) -> bool:
    try:
        parse_dtype(name)
        return True
    except DTypeError:
        return False


INT64 = parse_dtype("int64")
INT32 = parse_dtype("int32")
FLOAT32 = parse_dtype("float32")
FLOAT64 = parse_dtype("float64")
BOOL = parse_dtype("bool")
VOID = parse_dtype("void")
HANDLE = parse_dtype("handle")
