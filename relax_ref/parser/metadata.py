"""The metadata section of TVMScript text: large constants as a JSON node graph.

TVM (up to 0.17 or so) prints a module whose constants are too large to inline as

    metadata = tvm.ir.load_json(\"\"\"{ ...node graph... }\"\"\")

above the module, and refers to them in the body as ``metadata["relax.expr.Constant"][0]``.
This module reads and writes the string in that statement; the grammar and the builder
find the statement and resolve the references. Rules are in spec/metadata.md
(``SYN-meta-*``, ``PRINT-meta-*``); every error names one.

Nothing here evaluates its input: the string literal is unescaped by hand, the JSON is
read by ``json.loads``, and each node is read only if it is reachable from the root and
is of a kind listed in the spec. Malformed input of any kind raises MetadataError.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import unicodedata
from typing import Iterable

import numpy as np

from relax_ref.ir.dtype import DataType, DTypeError, parse_dtype
from relax_ref.ir.numpy_dtype import dtype_of_numpy, numpy_dtype
from relax_ref.ir.prim_expr import IntImm
from relax_ref.ir.relax import Constant
from relax_ref.ir.struct_info import UNKNOWN_NDIM, TensorStructInfo

DEFAULT_KEY = "relax.expr.Constant"
# The version that wrote the node-graph layout produced by encode_metadata (SYN-meta-3).
FORMAT_TVM_VERSION = "0.17.dev0"
NDARRAY_MAGIC = 0xDD5E40F096B4A13F          # kTVMNDArrayMagic (SYN-meta-8)
MAX_ELEMENTS = 2**31                         # SYN-meta-10
MAX_NDIM = 32                                # SYN-meta-10
_DEVICE_CPU = 1                              # kDLCPU


class MetadataError(ValueError):
    """A metadata section that cannot be read (or a constant that cannot be written).

    ``rule`` is the spec rule broken, ``what`` the part of the input, ``expected`` and
    ``found`` what the rule asks for and what the input has."""

    def __init__(self, rule: str, what: str, expected: str, found: str) -> None:
        self.rule, self.what, self.expected, self.found = rule, what, expected, found
        super().__init__(f"{rule}: {what}: expected {expected}, found {found}")


def _show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------
# SYN-meta-2: the body of the triple-quoted (non-raw) string literal.

_SIMPLE_ESCAPES = {
    "\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_HEX_ESCAPE_LENGTH = {"x": 2, "u": 4, "U": 8}
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")


def unescape_python_string(body: str) -> str:
    """The value of a Python string literal (not raw, not bytes) whose text between the
    quotes is ``body``, computed the way CPython's tokenizer does: line ends normalised
    to ``\\n``, then the escapes ``\\<newline> \\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v
    \\ooo \\xhh \\uhhhh \\Uhhhhhhhh \\N{name}``; any other backslash stays as written."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        j = body.find("\\", i)
        if j < 0:
            out.append(body[i:])
            break
        out.append(body[i:j])
        if j + 1 == n:
            raise MetadataError("SYN-meta-2", "string literal", "a character after '\\'",
                                "the end of the string")
        c = body[j + 1]
        if c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
            i = j + 2
        elif c in _OCTAL:
            k = j + 1
            while k < n and k < j + 4 and body[k] in _OCTAL:
                k += 1
            out.append(chr(int(body[j + 1:k], 8)))
            i = k
        elif c in _HEX_ESCAPE_LENGTH:
            width = _HEX_ESCAPE_LENGTH[c]
            digits = body[j + 2:j + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX:
                raise MetadataError("SYN-meta-2", f"'\\{c}' escape",
                                    f"{width} hexadecimal digits", _show(digits))
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise MetadataError("SYN-meta-2", f"'\\{c}' escape",
                                    "a code point at most 0x10FFFF", f"0x{code:X}")
            out.append(chr(code))
            i = j + 2 + width
        elif c == "N":
            end = body.find("}", j + 2)
            name = body[j + 3:end] if body.startswith("{", j + 2) and end > 0 else None
            try:
                if not name:
                    raise KeyError(name)
                out.append(unicodedata.lookup(name))
            except KeyError:
                raise MetadataError("SYN-meta-2", "'\\N' escape", "'{' a Unicode name '}'",
                                    _show(body[j:j + 40])) from None
            i = end + 1
        else:
            out.append("\\" + c)
            i = j + 2
    return "".join(out)


def escape_python_string(text: str) -> str:
    """The inverse of unescape_python_string for text meant to sit between triple double
    quotes: backslashes and double quotes are escaped (as TVM printed its metadata)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


# --------------------------------------------------------------------------------------
# SYN-meta-8, SYN-meta-9: TVM's NDArray binary format.

_HEADER = struct.Struct("<QQiiiBBH")  # magic, reserved, device type/id, ndim, dtype
_INT64 = struct.Struct("<q")

# DLPack type codes with a fixed meaning (DLPack >= 1.0); the width is in ``bits``.
_DLPACK_PLAIN = {0: "int", 1: "uint", 2: "float", 4: "bfloat"}
_DLPACK_NAMED = {
    7: "float8_e3m4", 8: "float8_e4m3", 9: "float8_e4m3b11fnuz", 10: "float8_e4m3fn",
    11: "float8_e4m3fnuz", 12: "float8_e5m2", 13: "float8_e5m2fnuz", 14: "float8_e8m0fnu",
    15: "float6_e2m3fn", 16: "float6_e3m2fn", 17: "float4_e2m1fn",
}
_DLPACK_BOOL = 6
# Before DLPack had kDLBool and float8 codes, TVM used 6 and 7 for its own float8 kinds
# (DataType::kE4M3Float / kE5M2Float) and wrote bool as (kDLUInt, 1 bit).
_LEGACY_TVM_CODES = {6: "float8_e4m3fn", 7: "float8_e5m2"}
_CODE_OF_NAMED = {name: code for code, name in _DLPACK_NAMED.items()}
_CODE_OF_PLAIN = {name: code for code, name in _DLPACK_PLAIN.items()}


def _candidate_dtypes(code: int, bits: int) -> list[str]:
    """The TVM names a (code, bits) pair may stand for, the modern reading first."""
    if code == 1 and bits == 1:
        return ["bool"]
    if code in _DLPACK_PLAIN:
        return [f"{_DLPACK_PLAIN[code]}{bits}"]
    names = []
    if code == _DLPACK_BOOL and bits == 8:
        names.append("bool")
    if code in _DLPACK_NAMED:
        names.append(_DLPACK_NAMED[code])
    if code in _LEGACY_TVM_CODES and bits == 8:
        names.append(_LEGACY_TVM_CODES[code])
    return names


def _dtype_of_code(code: int, bits: int, lanes: int, hint: DataType | None) -> DataType:
    if lanes != 1:
        raise MetadataError("SYN-meta-9", "NDArray dtype lanes", "1", str(lanes))
    names = _candidate_dtypes(code, bits)
    chosen = next((name for name in names if hint is not None and str(hint) == name),
                  names[0] if names else None)
    try:
        dt = parse_dtype(chosen) if chosen is not None else None
    except DTypeError:
        dt = None
    if dt is None:
        raise MetadataError("SYN-meta-9", "NDArray dtype", "a known DLPack (code, bits)",
                            f"code {code}, bits {bits}")
    if dt.bits != bits and not (dt.is_bool and bits in (1, 8)):
        raise MetadataError("SYN-meta-9", f"NDArray dtype {dt}", f"{dt.bits} bits",
                            f"{bits} bits")
    if bits < 8 and not dt.is_bool:
        # TVM's writer disagrees with itself on packed sub-byte data; we read none of it.
        raise MetadataError("SYN-meta-9", "NDArray dtype",
                            "at least 8 bits per element (or bool)", str(dt))
    return dt


def _element_count(shape: Iterable[int], rule: str) -> int:
    count = 1
    for dim in shape:
        if dim < 0:
            raise MetadataError(rule, "tensor dimension", "a non-negative integer", str(dim))
        count *= dim
    if count > MAX_ELEMENTS:
        raise MetadataError("SYN-meta-10", "tensor size",
                            f"at most {MAX_ELEMENTS} elements", f"{count} elements")
    return count


def decode_ndarray_bytes(raw: bytes, dtype_hint: DataType | None = None) -> np.ndarray:
    """The array held by one NDArray record (SYN-meta-8). ``dtype_hint`` (the dtype the
    surrounding struct info declares) only settles type codes that two TVM generations
    read differently (6 and 7, SYN-meta-9); it never overrides the record."""
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise MetadataError("SYN-meta-8", "NDArray record", "bytes", type(raw).__name__)
    raw = bytes(raw)
    if len(raw) < _HEADER.size:
        raise MetadataError("SYN-meta-8", "NDArray header", f"{_HEADER.size} bytes",
                            f"{len(raw)} bytes")
    magic, _reserved, device_type, _device_id, ndim, code, bits, lanes = \
        _HEADER.unpack_from(raw, 0)
    if magic != NDARRAY_MAGIC:
        raise MetadataError("SYN-meta-8", "NDArray magic", f"0x{NDARRAY_MAGIC:016X}",
                            f"0x{magic:016X}")
    if device_type != _DEVICE_CPU:
        raise MetadataError("SYN-meta-8", "NDArray device type", "1 (CPU)", str(device_type))
    if not 0 <= ndim <= MAX_NDIM:
        raise MetadataError("SYN-meta-10", "NDArray ndim", f"0 to {MAX_NDIM}", str(ndim))
    dt = _dtype_of_code(code, bits, lanes, dtype_hint)
    offset = _HEADER.size
    if len(raw) < offset + 8 * ndim + 8:
        raise MetadataError("SYN-meta-8", "NDArray shape and size",
                            f"{8 * ndim + 8} bytes", f"{len(raw) - offset} bytes")
    shape = struct.unpack_from(f"<{ndim}q", raw, offset)
    offset += 8 * ndim
    count = _element_count(shape, "SYN-meta-8")
    item = (bits + 7) // 8
    (data_size,) = _INT64.unpack_from(raw, offset)
    offset += 8
    if data_size != count * item:
        raise MetadataError("SYN-meta-8", "NDArray data byte size",
                            f"{count} elements x {item} bytes = {count * item}",
                            str(data_size))
    if len(raw) - offset != data_size:
        raise MetadataError("SYN-meta-8", "NDArray data", f"{data_size} bytes",
                            f"{len(raw) - offset} bytes")
    data = raw[offset:]
    if dt.is_bool:
        arr = np.frombuffer(data, dtype=np.uint8) != 0
    elif item == 1:
        arr = np.frombuffer(data, dtype=numpy_dtype(dt)).copy()
    else:
        arr = np.frombuffer(data, dtype=f"<u{item}").astype(f"=u{item}").view(numpy_dtype(dt))
    return arr.reshape(shape)


def decode_ndarray_b64(text: str, dtype_hint: DataType | None = None) -> np.ndarray:
    """decode_ndarray_bytes of a base64 string (standard alphabet, padded)."""
    if not isinstance(text, str):
        raise MetadataError("SYN-meta-8", "NDArray record", "a base64 string",
                            type(text).__name__)
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as err:
        raise MetadataError("SYN-meta-8", "NDArray record", "valid base64",
                            f"{_show(text, 40)} ({err})") from None
    return decode_ndarray_bytes(raw, dtype_hint)


def _dlpack_code(dt: DataType) -> tuple[int, int]:
    """(code, bits) written for ``dt`` (PRINT-meta-2)."""
    if dt.is_bool:
        return 1, 1                       # as TVM <= 0.17 wrote it
    if dt.code in _CODE_OF_PLAIN and dt.bits >= 8:
        return _CODE_OF_PLAIN[dt.code], dt.bits
    if dt.code in _CODE_OF_NAMED and dt.bits >= 8:
        return _CODE_OF_NAMED[dt.code], dt.bits
    raise MetadataError("PRINT-meta-2", "constant dtype",
                        "bool or a type of at least 8 bits", str(dt))


def encode_ndarray_bytes(arr: np.ndarray) -> bytes:
    """One NDArray record holding ``arr`` (SYN-meta-8), data little-endian."""
    arr = np.asarray(arr)
    try:
        dt = dtype_of_numpy(arr.dtype)
    except DTypeError as err:
        raise MetadataError("PRINT-meta-2", "constant dtype", "a TVM data type",
                            str(err)) from None
    code, bits = _dlpack_code(dt)
    if arr.ndim > MAX_NDIM:
        raise MetadataError("SYN-meta-10", "constant ndim", f"at most {MAX_NDIM}",
                            str(arr.ndim))
    count = _element_count(arr.shape, "SYN-meta-8")
    arr = np.asarray(arr, order="C")   # (ascontiguousarray would make a scalar 1-d)
    if dt.is_bool:
        data = arr.astype(np.uint8).tobytes()
    elif arr.dtype.itemsize == 1:
        data = arr.tobytes()
    else:
        item = arr.dtype.itemsize
        if not arr.dtype.isnative:
            arr = arr.astype(arr.dtype.newbyteorder("="))
        data = arr.view(f"=u{item}").astype(f"<u{item}").tobytes()
    item = (bits + 7) // 8
    assert len(data) == count * item
    header = _HEADER.pack(NDARRAY_MAGIC, 0, _DEVICE_CPU, 0, arr.ndim, code, bits, 1)
    return (header + struct.pack(f"<{arr.ndim}q", *arr.shape)
            + _INT64.pack(len(data)) + data)


def encode_ndarray_b64(arr: np.ndarray) -> str:
    """encode_ndarray_bytes, in base64 (standard alphabet, padded, one line)."""
    return base64.b64encode(encode_ndarray_bytes(arr)).decode("ascii")


# --------------------------------------------------------------------------------------
# SYN-meta-3 .. SYN-meta-7: the node graph.

_DECIMAL = re.compile(r"-?[0-9]{1,19}")
_MAP_TYPES = ("Map", "StrMap")
_CONSTANT_TYPES = ("relax.expr.Constant",)
# dtype names of TVM before the float8 kinds took their ml_dtypes names.
_LEGACY_DTYPE_NAMES = {"e4m3_float8": "float8_e4m3fn", "e5m2_float8": "float8_e5m2"}


def _integer(value: object, what: str) -> int:
    """An integer written as a JSON number or, as attributes are, a decimal string."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)
    raise MetadataError("SYN-meta-4", what, "an integer", _show(value))


def _parse_dtype_name(name: object, what: str) -> DataType:
    if not isinstance(name, str):
        raise MetadataError("SYN-meta-7", what, "a dtype string", _show(name))
    try:
        return parse_dtype(_LEGACY_DTYPE_NAMES.get(name, name))
    except DTypeError:
        raise MetadataError("SYN-meta-7", what, "a TVM dtype name", _show(name)) from None


class _Graph:
    """The checked top level of a node graph, with readers for the nodes we know."""

    def __init__(self, graph: object) -> None:
        if not isinstance(graph, dict):
            raise MetadataError("SYN-meta-3", "metadata JSON", "an object",
                                type(graph).__name__)
        for field in ("root", "nodes"):
            if field not in graph:
                raise MetadataError("SYN-meta-3", "metadata JSON", f"a {field!r} field",
                                    f"fields {sorted(graph)}")
        self.nodes = graph["nodes"]
        if not isinstance(self.nodes, list):
            raise MetadataError("SYN-meta-3", "'nodes'", "a list",
                                type(self.nodes).__name__)
        self.arrays = graph.get("b64ndarrays", [])
        if not isinstance(self.arrays, list):
            raise MetadataError("SYN-meta-3", "'b64ndarrays'", "a list",
                                type(self.arrays).__name__)
        self.root = graph["root"]

    def node(self, ref: object, kinds: tuple[str, ...], what: str,
             nullable: bool = False) -> dict | None:
        """The node ``ref`` points at, which must be one of ``kinds`` (or null)."""
        index = _integer(ref, f"reference to {what}")
        if not 0 <= index < len(self.nodes):
            raise MetadataError("SYN-meta-4", f"reference to {what}",
                                f"a node index below {len(self.nodes)}", str(index))
        node = self.nodes[index]
        if not isinstance(node, dict) or not isinstance(node.get("type_key"), str):
            raise MetadataError("SYN-meta-4", f"node {index}",
                                "an object with a string 'type_key'", _show(node))
        kind = node["type_key"]
        if kind == "" and nullable:
            return None
        if kind not in kinds:
            raise MetadataError("SYN-meta-5" if what == "metadata entry" else "SYN-meta-4",
                                f"{what} (node {index})", " or ".join(kinds) or "null",
                                _show(kind))
        return node

    @staticmethod
    def attr(node: dict, name: str, what: str) -> object:
        attrs = node.get("attrs")
        if not isinstance(attrs, dict) or name not in attrs:
            raise MetadataError("SYN-meta-4", what, f"an attribute {name!r}",
                                f"attrs {_show(attrs)}")
        return attrs[name]

    @staticmethod
    def field_list(node: dict, name: str, what: str) -> list:
        value = node.get(name, [])
        if not isinstance(value, list):
            raise MetadataError("SYN-meta-4", f"{what} {name!r}", "a list",
                                type(value).__name__)
        return value

    def entries(self) -> list[tuple[str, object]]:
        """(key, reference to an Array) for each entry of the root Map (SYN-meta-5)."""
        root = self.node(self.root, _MAP_TYPES, "root")
        data = self.field_list(root, "data", "root Map")
        if "keys" in root:
            keys = self.field_list(root, "keys", "root Map")
            if len(keys) != len(data):
                raise MetadataError("SYN-meta-5", "root Map", "one key per value",
                                    f"{len(keys)} keys for {len(data)} values")
            for k in keys:
                if not isinstance(k, str):
                    raise MetadataError("SYN-meta-5", "root Map key", "a string", _show(k))
            pairs = list(zip(keys, data))
        else:
            if len(data) % 2:
                raise MetadataError("SYN-meta-5", "root Map 'data'",
                                    "key/value pairs", f"{len(data)} items")
            pairs = []
            for key_ref, value_ref in zip(data[::2], data[1::2]):
                key = self.node(key_ref, ("runtime.String",), "root Map key")
                if not isinstance(key.get("repr_str"), str):
                    raise MetadataError("SYN-meta-5", "root Map key", "a 'repr_str' string",
                                        _show(key.get("repr_str")))
                pairs.append((key["repr_str"], value_ref))
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise MetadataError("SYN-meta-5", "root Map", "distinct keys",
                                    f"{key!r} twice")
            seen.add(key)
        return pairs

    def array_items(self, ref: object, key: str) -> list:
        array = self.node(ref, ("Array",), f"metadata[{key!r}]")
        return self.field_list(array, "data", f"metadata[{key!r}]")

    def constant(self, ref: object) -> Constant:
        """A ``relax.expr.Constant`` node (SYN-meta-6)."""
        node = self.node(ref, _CONSTANT_TYPES, "metadata entry")
        sinfo = self.tensor_struct_info(self.attr(node, "struct_info_", "Constant"))
        index = _integer(self.attr(node, "data", "Constant"), "Constant 'data'")
        if not 0 <= index < len(self.arrays):
            raise MetadataError("SYN-meta-6", "Constant 'data'",
                                f"an index below {len(self.arrays)} into 'b64ndarrays'",
                                str(index))
        hint = sinfo.dtype if sinfo is not None and not sinfo.dtype.is_void else None
        data = decode_ndarray_b64(self.arrays[index], hint)
        found = _tensor_struct_info(data)
        if sinfo is not None:
            _check_agrees(sinfo, found)
            found = TensorStructInfo(shape=sinfo.shape if sinfo.shape is not None
                                     else found.shape, dtype=found.dtype)
        return Constant(data, found)

    def tensor_struct_info(self, ref: object) -> TensorStructInfo | None:
        """A ``relax.TensorStructInfo`` node, or None for null (SYN-meta-7)."""
        node = self.node(ref, ("relax.TensorStructInfo",), "Constant struct info",
                         nullable=True)
        if node is None:
            return None
        dtype = _parse_dtype_name(self.attr(node, "dtype", "TensorStructInfo"),
                                  "TensorStructInfo 'dtype'")
        ndim = _integer(self.attr(node, "ndim", "TensorStructInfo"),
                        "TensorStructInfo 'ndim'")
        shape_node = self.node(self.attr(node, "shape", "TensorStructInfo"),
                               ("relax.expr.ShapeExpr",), "TensorStructInfo shape",
                               nullable=True)
        shape = None
        if shape_node is not None:
            values = self.node(self.attr(shape_node, "values", "ShapeExpr"), ("Array",),
                               "ShapeExpr values")
            shape = tuple(self.int_imm(ref) for ref in
                          self.field_list(values, "data", "ShapeExpr values"))
            if ndim != len(shape):
                raise MetadataError("SYN-meta-7", "TensorStructInfo 'ndim'",
                                    f"{len(shape)} (the length of its shape)", str(ndim))
        elif ndim < UNKNOWN_NDIM:
            raise MetadataError("SYN-meta-7", "TensorStructInfo 'ndim'", "-1 or more",
                                str(ndim))
        return TensorStructInfo(shape=shape, dtype=dtype, ndim=ndim)

    def int_imm(self, ref: object) -> IntImm:
        node = self.node(ref, ("IntImm",), "shape dimension")
        dtype = _parse_dtype_name(self.attr(node, "dtype", "IntImm"), "IntImm 'dtype'")
        if not dtype.is_integer or dtype.lanes != 1:
            raise MetadataError("SYN-meta-7", "IntImm 'dtype'", "a scalar integer type",
                                str(dtype))
        return IntImm(_integer(self.attr(node, "value", "IntImm"), "IntImm 'value'"), dtype)


def _tensor_struct_info(data: np.ndarray) -> TensorStructInfo:
    return TensorStructInfo(shape=tuple(IntImm(int(d)) for d in data.shape),
                            dtype=dtype_of_numpy(data.dtype))


def _check_agrees(declared: TensorStructInfo, found: TensorStructInfo) -> None:
    """SYN-meta-7: the struct info of a Constant node describes its NDArray."""
    if not declared.dtype.is_void and declared.dtype != found.dtype:
        raise MetadataError("SYN-meta-7", "Constant dtype",
                            f"{declared.dtype} (its struct info)", f"{found.dtype} (its data)")
    if declared.ndim != UNKNOWN_NDIM and declared.ndim != found.ndim:
        raise MetadataError("SYN-meta-7", "Constant ndim",
                            f"{declared.ndim} (its struct info)", f"{found.ndim} (its data)")
    if declared.shape is not None:
        want = tuple(d.value for d in declared.shape)
        have = tuple(d.value for d in found.shape)
        if want != have:
            raise MetadataError("SYN-meta-7", "Constant shape",
                                f"{want} (its struct info)", f"{have} (its data)")


def decode_metadata(json_text: str) -> dict[str, list[object]]:
    """Each key of the root Map of a metadata node graph, with its decoded objects.

    ``json_text`` is the JSON itself (already unescaped, see unescape_python_string).
    Every object reached from the root must be a Relax constant (SYN-meta-5); nodes not
    reached are not read."""
    if not isinstance(json_text, str):
        raise MetadataError("SYN-meta-3", "metadata", "a string", type(json_text).__name__)
    try:
        parsed = json.loads(json_text)
    except (ValueError, RecursionError) as err:
        raise MetadataError("SYN-meta-3", "metadata", "valid JSON",
                            _show(str(err), 120)) from None
    graph = _Graph(parsed)
    return {key: [graph.constant(ref) for ref in graph.array_items(array_ref, key)]
            for key, array_ref in graph.entries()}


def decode_metadata_literal(body: str) -> dict[str, list[object]]:
    """decode_metadata of the text between the triple quotes of the statement."""
    return decode_metadata(unescape_python_string(body))


# --------------------------------------------------------------------------------------
# PRINT-meta-1: writing the node graph.

def encode_metadata(constants: list[Constant], key: str = DEFAULT_KEY) -> str:
    """The JSON node graph that holds ``constants`` under ``key``, in the layout TVM 0.17
    wrote (so that decode_metadata and that TVM read it back): index 0 is null, 1 the
    root Map, 2 the Array, then for each constant its Constant, TensorStructInfo,
    ShapeExpr, Array of IntImm, ShapeStructInfo, ShapeType and DynTensorType nodes."""
    if not isinstance(key, str):
        raise MetadataError("PRINT-meta-1", "metadata key", "a string", _show(key))
    nodes: list[dict] = [{"type_key": ""}, {"type_key": "Map", "keys": [key], "data": [2]},
                         {"type_key": "Array", "data": []}]
    arrays: list[str] = []
    for constant in constants:
        if not isinstance(constant, Constant):
            raise MetadataError("PRINT-meta-1", "metadata entry", "a relax Constant",
                                type(constant).__name__)
        data = constant.data
        if isinstance(constant.struct_info, TensorStructInfo):
            declared = constant.struct_info
            if declared.shape is not None and not all(isinstance(d, IntImm)
                                                      for d in declared.shape):
                raise MetadataError("PRINT-meta-1", "constant struct info",
                                    "a shape of integers", _show(declared.shape))
            _check_agrees(declared, _tensor_struct_info(data))
        dtype = str(dtype_of_numpy(data.dtype))
        ndim, base = data.ndim, len(nodes)
        nodes[2]["data"].append(base)
        shape_sinfo, shape_type, tensor_type = (base + 4 + ndim, base + 5 + ndim,
                                                base + 6 + ndim)
        nodes.append({"type_key": "relax.expr.Constant", "attrs": {
            "_checked_type_": str(tensor_type), "data": str(len(arrays)), "span": "0",
            "struct_info_": str(base + 1)}})
        nodes.append({"type_key": "relax.TensorStructInfo", "attrs": {
            "dtype": dtype, "ndim": str(ndim), "shape": str(base + 2), "span": "0",
            "vdevice": "0"}})
        nodes.append({"type_key": "relax.expr.ShapeExpr", "attrs": {
            "_checked_type_": str(shape_type), "span": "0", "struct_info_": str(shape_sinfo),
            "values": str(base + 3)}})
        nodes.append({"type_key": "Array", "data": list(range(base + 4, base + 4 + ndim))})
        for dim in data.shape:
            nodes.append({"type_key": "IntImm", "attrs": {
                "dtype": "int64", "span": "0", "value": str(int(dim))}})
        nodes.append({"type_key": "relax.ShapeStructInfo", "attrs": {
            "ndim": str(ndim), "span": "0", "values": str(base + 3)}})
        nodes.append({"type_key": "relax.ShapeType", "attrs": {
            "ndim": str(ndim), "span": "0"}})
        nodes.append({"type_key": "relax.DynTensorType", "attrs": {
            "dtype": dtype, "ndim": str(ndim), "span": "0"}})
        arrays.append(encode_ndarray_b64(data))
    graph = {"root": 1, "nodes": nodes, "b64ndarrays": arrays,
             "attrs": {"tvm_version": FORMAT_TVM_VERSION}}
    return json.dumps(graph, indent=2)
