"""The metadata section (spec/metadata.md): NDArray records, the node graph, the string
literal around it, and the NumPy dtype mapping they use."""
from __future__ import annotations

import ast
import base64
import copy
import json
import struct
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relax_ref.ir.dtype import DTypeError, parse_dtype
from relax_ref.ir.numpy_dtype import dtype_of_numpy, numpy_dtype
from relax_ref.ir.prim_expr import IntImm, Var
from relax_ref.ir.relax import Constant
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.parser.metadata import (
    MAX_ELEMENTS, NDARRAY_MAGIC, MetadataError, decode_metadata, decode_metadata_literal,
    decode_ndarray_b64, decode_ndarray_bytes, encode_metadata, encode_ndarray_b64,
    encode_ndarray_bytes, escape_python_string, unescape_python_string,
)

HEADER = struct.Struct("<QQiiiBBH")   # written out again here, independently of the code


def record(ndim_shape, code, bits, data: bytes, *, magic=NDARRAY_MAGIC, device=1, lanes=1,
           size=None, ndim=None) -> bytes:
    """An NDArray record assembled field by field (SYN-meta-8)."""
    shape = tuple(ndim_shape)
    return (HEADER.pack(magic, 0, device, 0, len(shape) if ndim is None else ndim,
                        code, bits, lanes)
            + struct.pack(f"<{len(shape)}q", *shape)
            + struct.pack("<q", len(data) if size is None else size) + data)


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def sample(dtype, shape, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return (rng.standard_normal(size=shape) * 100).astype(dtype)


# ---------------------------------------------------------------------------------------
# Round trips (PRINT-meta-1 then SYN-meta-3..9)

DTYPES = [np.float32, np.int32, np.int64, np.bool_, np.float16, ml_dtypes.bfloat16]
SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 4), (1, 2, 3, 4)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_constant_round_trip(dtype, shape):
    arr = sample(dtype, shape)
    text = encode_metadata([Constant(arr)])
    (const,) = decode_metadata(text)["relax.expr.Constant"]
    assert same_bits(const.data, arr)
    sinfo = const.struct_info
    assert isinstance(sinfo, TensorStructInfo)
    assert sinfo.dtype == dtype_of_numpy(np.dtype(dtype))
    assert tuple(d.value for d in sinfo.shape) == shape and sinfo.ndim == len(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ndarray_round_trip(dtype):
    arr = sample(dtype, (3, 4), seed=1)
    assert same_bits(decode_ndarray_b64(encode_ndarray_b64(arr)), arr)


def test_several_constants_keep_their_order_and_any_key():
    arrays = [sample(np.float32, (2, 2)), sample(np.int64, ()), sample(np.bool_, (3,))]
    text = encode_metadata([Constant(a) for a in arrays], key="ir.GenericConst")
    decoded = decode_metadata(text)
    assert list(decoded) == ["ir.GenericConst"]
    assert all(same_bits(c.data, a) for c, a in zip(decoded["ir.GenericConst"], arrays))


def test_empty_list_and_nan_payloads_survive():
    assert decode_metadata(encode_metadata([])) == {"relax.expr.Constant": []}
    weird = np.array([np.nan, -0.0, np.inf], dtype=np.float32)
    weird.view(np.uint32)[0] = 0x7FC00123            # a NaN with a payload
    (const,) = decode_metadata(encode_metadata([Constant(weird)]))["relax.expr.Constant"]
    assert same_bits(const.data, weird)


def test_big_endian_input_is_written_little_endian():
    arr = np.array([1, 2, 256], dtype=">i4")
    raw = encode_ndarray_bytes(arr)
    assert raw[-12:] == struct.pack("<3i", 1, 2, 256)
    assert decode_ndarray_bytes(raw).tolist() == [1, 2, 256]


def test_encoded_layout_matches_tvm_0_17():
    """PRINT-meta-1: the node layout TVM 0.17 printed, index for index."""
    graph = json.loads(encode_metadata([Constant(np.zeros((3, 3), np.float32))]))
    kinds = [node["type_key"] for node in graph["nodes"]]
    assert kinds == ["", "Map", "Array", "relax.expr.Constant", "relax.TensorStructInfo",
                     "relax.expr.ShapeExpr", "Array", "IntImm", "IntImm",
                     "relax.ShapeStructInfo", "relax.ShapeType", "relax.DynTensorType"]
    assert graph["nodes"][3]["attrs"] == {"_checked_type_": "11", "data": "0", "span": "0",
                                          "struct_info_": "4"}
    assert graph["root"] == 1 and graph["attrs"] == {"tvm_version": "0.17.dev0"}


def test_bool_is_written_as_tvm_0_17_did():
    """PRINT-meta-2: (kDLUInt, 1 bit), one byte per element."""
    raw = encode_ndarray_bytes(np.array([True, False, True]))
    assert raw == record((3,), 1, 1, b"\x01\x00\x01")


def test_encode_rejects_what_it_cannot_write():
    with pytest.raises(MetadataError, match="PRINT-meta-2"):
        encode_ndarray_bytes(np.zeros(2, np.complex64))
    with pytest.raises(MetadataError, match="PRINT-meta-2"):
        encode_ndarray_bytes(np.zeros(2, ml_dtypes.int4))
    with pytest.raises(MetadataError, match="PRINT-meta-1"):
        encode_metadata([np.zeros(2)])
    mismatched = Constant(np.zeros((2,), np.float32),
                          TensorStructInfo(shape=(IntImm(3),), dtype=parse_dtype("float32")))
    with pytest.raises(MetadataError, match="SYN-meta-7"):
        encode_metadata([mismatched])
    symbolic = Constant(np.zeros((2,), np.float32),
                        TensorStructInfo(shape=(Var("n"),), dtype=parse_dtype("float32")))
    with pytest.raises(MetadataError, match="PRINT-meta-1"):
        encode_metadata([symbolic])


# ---------------------------------------------------------------------------------------
# Reading text as TVM printed it (SYN-meta-1, SYN-meta-2)

# Written by hand in the form TVM 0.17 printed: escaped quotes inside a triple-quoted
# string, the first constant with every node TVM wrote, the other two with only the nodes
# we read. @A0@ .. @A2@ are replaced by records assembled field by field.
TVM_PRINTED = r'''metadata = tvm.ir.load_json("""{
  \"root\": 1, 
  \"nodes\": [
    {
      \"type_key\": \"\"
    }, 
    {
      \"type_key\": \"Map\", 
      \"keys\": [
        \"relax.expr.Constant\"
      ], 
      \"data\": [2]
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [3, 12, 17]
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"11\", 
        \"data\": \"0\", 
        \"span\": \"0\", 
        \"struct_info_\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"2\", 
        \"shape\": \"5\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"10\", 
        \"span\": \"0\", 
        \"struct_info_\": \"9\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [7, 8]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"2\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"2\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {\"_checked_type_\": \"0\", \"data\": \"1\", \"span\": \"0\", \"struct_info_\": \"13\"}
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {\"dtype\": \"bool\", \"ndim\": \"1\", \"shape\": \"14\", \"span\": \"0\", \"vdevice\": \"0\"}
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {\"_checked_type_\": \"0\", \"span\": \"0\", \"struct_info_\": \"0\", \"values\": \"15\"}
    }, 
    {\"type_key\": \"Array\", \"data\": [16]}, 
    {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"span\": \"0\", \"value\": \"3\"}}, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {\"_checked_type_\": \"0\", \"data\": \"2\", \"span\": \"0\", \"struct_info_\": \"18\"}
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {\"dtype\": \"int64\", \"ndim\": \"0\", \"shape\": \"19\", \"span\": \"0\", \"vdevice\": \"0\"}
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {\"_checked_type_\": \"0\", \"span\": \"0\", \"struct_info_\": \"0\", \"values\": \"20\"}
    }, 
    {\"type_key\": \"Array\", \"data\": []}
  ], 
  \"b64ndarrays\": [
    \"@A0@\", 
    \"@A1@\", 
    \"@A2@\"
  ], 
  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}
}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        return gv
'''

HAND_RECORDS = [
    record((2, 2), 2, 32, struct.pack("<4f", 0.5, 1.0, -2.0, 3.25)),   # float32
    record((3,), 1, 1, b"\x01\x00\x01"),                               # bool, TVM 0.17
    record((), 0, 64, struct.pack("<q", -7)),                          # int64 scalar
]


def printed_body(text: str = TVM_PRINTED) -> str:
    body = text.split('"""')[1]
    for i, raw in enumerate(HAND_RECORDS):
        body = body.replace(f"@A{i}@", b64(raw))
    return body


def test_decode_text_as_tvm_printed_it():
    body = printed_body()
    assert '\\"root\\": 1' in body                     # the escaped form, as printed
    (a, b, c) = decode_metadata_literal(body)["relax.expr.Constant"]
    assert a.data.dtype == np.float32 and a.data.tolist() == [[0.5, 1.0], [-2.0, 3.25]]
    assert b.data.dtype == np.bool_ and b.data.tolist() == [True, False, True]
    assert c.data.dtype == np.int64 and c.data.shape == () and c.data.item() == -7
    assert str(a.struct_info.dtype) == "float32"
    assert [d.value for d in a.struct_info.shape] == [2, 2]
    assert str(b.struct_info.dtype) == "bool" and c.struct_info.ndim == 0
    assert not a.data.flags.writeable                   # Constant data is frozen


def test_unescaped_form_reads_the_same():
    body = printed_body()
    plain = body.replace('\\"', '"')
    left = decode_metadata(plain)["relax.expr.Constant"]
    right = decode_metadata_literal(body)["relax.expr.Constant"]
    assert all(same_bits(x.data, y.data) for x, y in zip(left, right))


# Records TVM 0.17 printed (from public TVMScript files): an int64 [0] and a 4-d bool.
TVM_0_17_INT64 = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAABAAQABAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAA="
TVM_0_17_BOOL = ("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABAAAAAEBAQABAAAAAAAAAAEAAAAAAAAAAgAAAAAAAAAB"
                 "AAAAAAAAAAIAAAAAAAAAAAE=")


def test_records_tvm_wrote():
    assert same_bits(decode_ndarray_b64(TVM_0_17_INT64), np.array([0], np.int64))
    assert encode_ndarray_b64(np.array([0], np.int64)) == TVM_0_17_INT64
    flags = np.array([False, True]).reshape(1, 1, 2, 1)
    assert same_bits(decode_ndarray_b64(TVM_0_17_BOOL), flags)
    assert encode_ndarray_b64(flags) == TVM_0_17_BOOL


def test_codes_of_both_tvm_generations():
    """SYN-meta-9: code 6 is bool for TVM 0.27 and float8_e4m3fn for TVM <= 0.17."""
    modern_bool = record((2,), 6, 8, b"\x00\x01")
    assert decode_ndarray_bytes(modern_bool).tolist() == [False, True]
    e4m3 = decode_ndarray_bytes(modern_bool, parse_dtype("float8_e4m3fn"))
    assert e4m3.dtype == ml_dtypes.float8_e4m3fn
    assert decode_ndarray_bytes(record((1,), 7, 8, b"\x3c"),
                                parse_dtype("float8_e5m2")).dtype == ml_dtypes.float8_e5m2
    assert decode_ndarray_bytes(record((1,), 10, 8, b"\x38")).tolist() == [1.0]
    assert decode_ndarray_bytes(record((1,), 4, 16, b"\x80\x3f")).tolist() == [1.0]


def test_legacy_float8_name_in_struct_info():
    graph = json.loads(encode_metadata([Constant(np.array([1.0], ml_dtypes.float8_e4m3fn))]))
    graph["nodes"][4]["attrs"]["dtype"] = "e4m3_float8"
    graph["b64ndarrays"][0] = b64(record((1,), 6, 8, b"\x38"))     # TVM 0.17's code 6
    (const,) = decode_metadata(json.dumps(graph))["relax.expr.Constant"]
    assert const.data.dtype == ml_dtypes.float8_e4m3fn and const.data.tolist() == [1.0]


def test_unreferenced_unknown_nodes_are_not_read():
    graph = json.loads(encode_metadata([Constant(np.ones(2, np.float32))]))
    graph["nodes"].append({"type_key": "tir.PrimFunc", "attrs": {"body": "999"}})
    assert len(decode_metadata(json.dumps(graph))["relax.expr.Constant"]) == 1


def test_null_struct_info_is_taken_from_the_data():
    graph = json.loads(encode_metadata([Constant(np.ones((2, 1), np.int32))]))
    graph["nodes"][3]["attrs"]["struct_info_"] = "0"
    (const,) = decode_metadata(json.dumps(graph))["relax.expr.Constant"]
    assert str(const.struct_info.dtype) == "int32"
    assert [d.value for d in const.struct_info.shape] == [2, 1]


def test_map_written_as_key_value_pairs():
    graph = json.loads(encode_metadata([Constant(np.ones(2, np.float32))]))
    graph["nodes"][1] = {"type_key": "Map", "data": [len(graph["nodes"]), 2]}
    graph["nodes"].append({"type_key": "runtime.String", "repr_str": "relax.expr.Constant"})
    assert len(decode_metadata(json.dumps(graph))["relax.expr.Constant"]) == 1


# ---------------------------------------------------------------------------------------
# Malformed input: always MetadataError, naming the rule (SYN-meta-3..10)

def graph_of(*arrays) -> dict:
    return json.loads(encode_metadata([Constant(a) for a in arrays]))


def with_record(raw: bytes) -> str:
    graph = graph_of(np.zeros((2, 2), np.float32))
    graph["b64ndarrays"][0] = b64(raw)
    return json.dumps(graph)


def edited(edit) -> str:
    graph = graph_of(np.zeros((2, 2), np.float32))
    edit(graph)
    return json.dumps(graph)


def set_attr(index, name, value):
    return lambda g: g["nodes"][index]["attrs"].__setitem__(name, value)


F32_DATA = bytes(16)
MALFORMED = {
    "not JSON": ("SYN-meta-3", "{\"root\": 1, "),
    "JSON but not an object": ("SYN-meta-3", "[1, 2]"),
    "no nodes": ("SYN-meta-3", '{"root": 1, "b64ndarrays": []}'),
    "nodes not a list": ("SYN-meta-3", '{"root": 1, "nodes": {}}'),
    "deeply nested JSON": ("SYN-meta-3", "[" * 200_000 + "]" * 200_000),
    "overlong integer": ("SYN-meta-3", '{"root": ' + "9" * 5000 + ', "nodes": []}'),
    "root out of range": ("SYN-meta-4", edited(lambda g: g.__setitem__("root", 99))),
    "root is a float": ("SYN-meta-4", edited(lambda g: g.__setitem__("root", 1.0))),
    "root is a bool": ("SYN-meta-4", edited(lambda g: g.__setitem__("root", True))),
    "root not a Map": ("SYN-meta-4", edited(lambda g: g.__setitem__("root", 2))),
    "node not an object": ("SYN-meta-4", edited(lambda g: g["nodes"].__setitem__(2, [3]))),
    "keys and values differ in number": (
        "SYN-meta-5", edited(lambda g: g["nodes"][1]["keys"].append("extra"))),
    "key not a string": ("SYN-meta-5", edited(lambda g: g["nodes"][1].__setitem__("keys", [7]))),
    "duplicate keys": ("SYN-meta-5", edited(lambda g: g["nodes"][1].update(
        keys=["k", "k"], data=[2, 2]))),
    "entry of an unknown kind": ("SYN-meta-5", edited(
        lambda g: g["nodes"][3].__setitem__("type_key", "tir.Var"))),
    "attribute missing": ("SYN-meta-4", edited(
        lambda g: g["nodes"][3]["attrs"].pop("data"))),
    "array index out of range": ("SYN-meta-6", edited(set_attr(3, "data", "5"))),
    "reference not a number": ("SYN-meta-4", edited(set_attr(3, "struct_info_", "four"))),
    "unknown dtype name": ("SYN-meta-7", edited(set_attr(4, "dtype", "float31"))),
    "dtype disagrees with data": ("SYN-meta-7", edited(set_attr(4, "dtype", "int32"))),
    "shape disagrees with data": ("SYN-meta-7", edited(set_attr(7, "value", "3"))),
    "ndim disagrees with shape": ("SYN-meta-7", edited(set_attr(4, "ndim", "3"))),
    "IntImm of a float type": ("SYN-meta-7", edited(set_attr(7, "dtype", "float32"))),
    "bad base64": ("SYN-meta-8", edited(lambda g: g["b64ndarrays"].__setitem__(0, "@@@="))),
    "base64 not a string": ("SYN-meta-8", edited(
        lambda g: g["b64ndarrays"].__setitem__(0, 12))),
    "wrong magic": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA, magic=1))),
    "header truncated": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA)[:20])),
    "shape truncated": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA)[:40])),
    "data truncated": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA)[:-1])),
    "trailing bytes": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA) + b"\0")),
    "size field inconsistent": (
        "SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA, size=12))),
    "negative dimension": ("SYN-meta-8", with_record(record((-2, -2), 2, 32, F32_DATA))),
    "device not CPU": ("SYN-meta-8", with_record(record((2, 2), 2, 32, F32_DATA, device=2))),
    "absurd size": ("SYN-meta-10", with_record(record((2**16, 2**16, 2**16), 2, 32, b""))),
    "negative ndim": ("SYN-meta-10", with_record(record((), 2, 32, b"", ndim=-1))),
    "ndim too large": ("SYN-meta-10", with_record(record((1,) * 40, 2, 32, b"\0" * 4))),
    "unknown type code": ("SYN-meta-9", with_record(record((2, 2), 99, 32, F32_DATA))),
    "handle type code": ("SYN-meta-9", with_record(record((2, 2), 3, 64, bytes(32)))),
    "float of 24 bits": ("SYN-meta-9", with_record(record((2, 2), 2, 24, bytes(12)))),
    "vector lanes": ("SYN-meta-9", with_record(record((2, 2), 2, 32, F32_DATA, lanes=4))),
    "sub-byte int4": ("SYN-meta-9", with_record(record((2, 2), 0, 4, bytes(4)))),
}


@pytest.mark.parametrize("case", list(MALFORMED), ids=str)
def test_malformed_input_raises_metadata_error(case):
    rule, text = MALFORMED[case]
    with pytest.raises(MetadataError) as info:
        decode_metadata(text)
    assert info.value.rule == rule, str(info.value)
    assert str(info.value).startswith(rule + ": ")
    assert "expected" in str(info.value) and "found" in str(info.value)


def test_error_names_the_unknown_type_key():
    with pytest.raises(MetadataError, match="tir.Var"):
        decode_metadata(MALFORMED["entry of an unknown kind"][1])


def test_non_string_input():
    with pytest.raises(MetadataError):
        decode_metadata(b'{"root": 1}')          # type: ignore[arg-type]
    with pytest.raises(MetadataError):
        decode_ndarray_b64(None)                 # type: ignore[arg-type]


def test_absurd_size_is_rejected_before_reading_data():
    raw = record((MAX_ELEMENTS + 1,), 0, 8, b"", size=MAX_ELEMENTS + 1)
    with pytest.raises(MetadataError, match="SYN-meta-10"):
        decode_ndarray_bytes(raw)


# ---------------------------------------------------------------------------------------
# The string literal (SYN-meta-2)

@pytest.mark.parametrize("body, value", [
    (r'{\"a\"}', '{"a"}'),
    (r"\\ \' \" \a \b \f \n \r \t \v", "\\ ' \" \a \b \f \n \r \t \v"),
    (r"\x41\u00e9\U0001F600\101\0\7777", "A\u00e9\U0001F600A\0\u01ff7"),
    (r"\N{LATIN SMALL LETTER E WITH ACUTE}", "\u00e9"),
    (r"\d\q\ ", r"\d\q\ "),                       # unknown escapes stay as written
    ("line\\\ncontinued", "linecontinued"),
    ("crlf\r\nline\rend", "crlf\nline\nend"),
    ("non-ASCII é 漢字 stays", "non-ASCII é 漢字 stays"),
])
def test_unescape_examples(body, value):
    assert unescape_python_string(body) == value


@pytest.mark.parametrize("body", ["trailing\\", r"\x4", r"\x4G", r"\u12", r"\U00110000",
                                  r"\N{NO SUCH CHARACTER NAME}", r"\N{", r"\N{}", r"\Nabc"])
def test_unescape_rejects_bad_escapes(body):
    with pytest.raises(MetadataError, match="SYN-meta-2"):
        unescape_python_string(body)


PIECES = st.sampled_from(["a", "é", "漢", " ", "\n", "\t", '"', "'", "\\", "x", "u", "U",
                          "N", "{", "}", "0", "7", "8", "4", "1", "f", "F", "g", "n", "r",
                          "LATIN SMALL LETTER A", "00e9", "0001F600"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_unescape_agrees_with_python(body):
    """Python's own reading of the literal is the oracle (tests may use it; the code may
    not)."""
    if '"""' in body or body.endswith(('"', "\\")):
        return                                   # would end the literal elsewhere
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = ast.literal_eval('"""' + body + '"""')
        except (SyntaxError, ValueError):
            expected = None
    if expected is None:
        with pytest.raises(MetadataError):
            unescape_python_string(body)
    else:
        assert unescape_python_string(body) == expected


@given(st.text())
def test_escape_then_unescape_is_identity(text):
    assert unescape_python_string(escape_python_string(text.replace("\r", ""))) == \
        text.replace("\r", "")


# ---------------------------------------------------------------------------------------
# Mutations of valid input: MetadataError or success, nothing else (fuzzing SYN-meta-*)

VALID_JSON = encode_metadata([Constant(sample(np.float32, (2, 3))),
                              Constant(sample(np.bool_, ())),
                              Constant(sample(ml_dtypes.bfloat16, (3,)))])
VALID_BODY = escape_python_string(VALID_JSON)
VALID_RECORD = encode_ndarray_bytes(sample(np.int32, (2, 3)))


def mutate(data, edits, alphabet):
    for op, pos, item in edits:
        if not data:
            break
        pos %= len(data)
        if op == 0:
            data = data[:pos] + alphabet(item) + data[pos + 1:]
        elif op == 1:
            data = data[:pos] + alphabet(item) + data[pos:]
        elif op == 2:
            data = data[:pos] + data[pos + 1:]
        else:
            data = data[:pos]
    return data


EDITS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2**20), st.integers(0, 255)),
                 min_size=1, max_size=6)
TEXT_CHARS = '0123456789"\\{}[],: -abcdefxuN\nAZ'


def expect_metadata_error_or_success(call):
    try:
        call()
    except MetadataError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS)
def test_mutated_text_only_raises_metadata_error(edits):
    body = mutate(VALID_BODY, edits, lambda i: TEXT_CHARS[i % len(TEXT_CHARS)])
    expect_metadata_error_or_success(lambda: decode_metadata_literal(body))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS)
def test_mutated_json_only_raises_metadata_error(edits):
    text = mutate(VALID_JSON, edits, lambda i: TEXT_CHARS[i % len(TEXT_CHARS)])
    expect_metadata_error_or_success(lambda: decode_metadata(text))


@settings(max_examples=500, deadline=None)
@given(EDITS)
def test_mutated_record_only_raises_metadata_error(edits):
    raw = mutate(VALID_RECORD, edits, lambda i: bytes([i]))
    try:
        arr = decode_ndarray_bytes(raw)
    except MetadataError:
        return
    assert arr.size * max(arr.dtype.itemsize, 1) <= len(raw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 11), max_size=4), st.data())
def test_mutated_graph_only_raises_metadata_error(path_choices, data):
    """Structural edits: replace a random value somewhere in the graph by another JSON
    value."""
    graph = copy.deepcopy(graph_of(sample(np.float32, (2,)), sample(np.int64, ())))
    replacement = data.draw(st.one_of(
        st.none(), st.booleans(), st.integers(-3, 40), st.floats(allow_nan=False),
        st.text(max_size=5), st.sampled_from(["0", "1", "3", "-1", "Array", "IntImm"]),
        st.lists(st.integers(0, 20), max_size=3), st.dictionaries(st.text(max_size=3),
                                                                  st.integers(0, 9))))
    target = graph
    for choice in path_choices:
        children = list(target.items()) if isinstance(target, dict) else \
            list(enumerate(target)) if isinstance(target, list) else []
        if not children:
            break
        key, child = children[choice % len(children)]
        if isinstance(child, (dict, list)) and choice % 3:
            target = child
            continue
        target[key] = replacement
        break
    expect_metadata_error_or_success(lambda: decode_metadata(json.dumps(graph)))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(DTYPES), st.lists(st.integers(0, 4), max_size=4), st.integers(0, 99))
def test_random_arrays_round_trip(dtype, shape, seed):
    arr = sample(dtype, tuple(shape), seed)
    (const,) = decode_metadata(encode_metadata([Constant(arr)]))["relax.expr.Constant"]
    assert same_bits(const.data, arr)


# ---------------------------------------------------------------------------------------
# relax_ref.ir.numpy_dtype

@pytest.mark.parametrize("name, np_type", [
    ("bool", np.bool_), ("int8", np.int8), ("int16", np.int16), ("int32", np.int32),
    ("int64", np.int64), ("uint8", np.uint8), ("uint16", np.uint16), ("uint32", np.uint32),
    ("uint64", np.uint64), ("float16", np.float16), ("float32", np.float32),
    ("float64", np.float64), ("bfloat16", ml_dtypes.bfloat16),
    ("float8_e4m3fn", ml_dtypes.float8_e4m3fn), ("float8_e5m2", ml_dtypes.float8_e5m2),
    ("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz), ("float4_e2m1fn", ml_dtypes.float4_e2m1fn),
    ("int4", ml_dtypes.int4),
])
def test_numpy_dtype_both_ways(name, np_type):
    dt = parse_dtype(name)
    assert numpy_dtype(dt) == np.dtype(np_type)
    assert dtype_of_numpy(np.dtype(np_type)) == dt


def test_numpy_dtype_has_no_counterpart():
    for name in ("float32x4", "handle", "void"):
        with pytest.raises(DTypeError):
            numpy_dtype(parse_dtype(name))
    for np_type in (np.complex64, np.dtype("U3"), object):
        with pytest.raises(DTypeError):
            dtype_of_numpy(np_type)
    assert str(dtype_of_numpy(np.dtype(">f4"))) == "float32"


# ---------------------------------------------------------------------------------------
# Against Apache TVM's own writer (skipped without TVM)

@pytest.mark.tvm
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int8, np.uint16,
                                   np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn],
                         ids=lambda d: np.dtype(d).name)
def test_records_equal_tvm_save(dtype):
    tvm = pytest.importorskip("tvm")
    arr = sample(dtype, (2, 3), seed=3)
    saved = bytes(tvm.runtime.save_param_dict({"a": tvm.runtime.tensor(arr)}))
    tvm_record = saved[saved.index(struct.pack("<Q", NDARRAY_MAGIC)):]
    assert encode_ndarray_bytes(arr) == tvm_record
    assert same_bits(decode_ndarray_bytes(tvm_record), arr)


@pytest.mark.tvm
def test_tvm_0_27_bool_record():
    tvm = pytest.importorskip("tvm")
    arr = np.array([[True, False], [False, True]])
    saved = bytes(tvm.runtime.save_param_dict({"a": tvm.runtime.tensor(arr)}))
    tvm_record = saved[saved.index(struct.pack("<Q", NDARRAY_MAGIC)):]
    assert tvm_record[28:30] == bytes([6, 8])          # kDLBool, 8 bits
    assert same_bits(decode_ndarray_bytes(tvm_record), arr)
