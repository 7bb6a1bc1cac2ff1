"""Making and reading arguments (relax_ref/semantics/inputs.py): random tensors within
the size limit and without full-size temporaries, values read from arrays checked
against their parameter, and the stored form of ml_dtypes arrays."""
from __future__ import annotations

import tracemalloc

import ml_dtypes
import numpy as np
import pytest

from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.semantics import inputs
from relax_ref.errors import ResourceError
from relax_ref.semantics.inputs import (
    InputError, from_stored_form, random_tensor, random_value, stored_form, value_from_array,
)
from relax_ref.values import PrimScalar, ShapeValue


def _param_sinfo(annotation: str) -> si.StructInfo:
    """The struct info of a parameter annotated ``annotation``."""
    from relax_ref.parser.builder import parse

    mod = parse(f"""
@I.ir_module
class Module:
    @R.function
    def main(x: {annotation}):
        return x
""", "<test>")
    return mod.functions["main"].params[0].struct_info


def _old_random_tensor(shape, name, rng):
    """What random_tensor drew before it worked in chunks: one draw of the full size."""
    dt, np_dtype = parse_dtype(name), inputs.numpy_dtype(parse_dtype(name))
    if dt.is_bool:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.is_integer:
        lo, hi = (0, 10) if dt.is_uint else (-8, 9)
        return rng.integers(lo, hi, size=shape).astype(np_dtype)
    return rng.standard_normal(size=shape).astype(np.float32).astype(np_dtype)


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16", "float8_e5m2", "int8",
                                  "int64", "uint8", "int4", "bool"])
@pytest.mark.parametrize("shape", [(), (0, 3), (5, 3), (23,)])
def test_chunked_draws_equal_one_draw(monkeypatch, name, shape):
    # A chunk of 7 splits (5, 3) and (23,) unevenly; the values and the generator's state
    # afterwards are those of a single draw, so seeds keep giving the same inputs.
    monkeypatch.setattr(inputs, "_CHUNK", 7)
    rng, old_rng = np.random.default_rng(11), np.random.default_rng(11)
    got = random_tensor(shape, parse_dtype(name), rng)
    want = _old_random_tensor(shape, name, old_rng)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    assert rng.integers(0, 1 << 30) == old_rng.integers(0, 1 << 30)


@pytest.mark.parametrize("name", ["float32", "int8"])
def test_no_full_size_temporary(monkeypatch, name):
    # The full-size draw was float64 or int64: 2 to 8 times the result's bytes on top of it.
    monkeypatch.setattr(inputs, "_CHUNK", 1 << 16)
    tracemalloc.start()
    try:
        out = random_tensor((1 << 22,), parse_dtype(name), np.random.default_rng(0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - out.nbytes < out.nbytes // 2


def test_size_limit_before_allocation():
    # 40 GB would fail (or be killed) in NumPy; the limit is checked first.
    with pytest.raises(ResourceError) as exc:
        random_tensor((100_000, 100_000), parse_dtype("float32"), np.random.default_rng(0),
                      what="x")
    assert exc.value.rule == "EXEC-limit-1"
    assert "x:" in exc.value.message and "40000000000 bytes" in exc.value.message
    with pytest.raises(ResourceError):
        random_tensor((4, 4), parse_dtype("float32"), np.random.default_rng(0), max_bytes=63)
    assert random_tensor((4, 4), parse_dtype("float32"), np.random.default_rng(0),
                         max_bytes=64).shape == (4, 4)


def test_random_value_passes_the_limit_on():
    sinfo = _param_sinfo('R.Tuple(R.Tensor((8,), dtype="float32"))')
    with pytest.raises(ResourceError, match=r"w\[0\]"):
        random_value(sinfo, {}, np.random.default_rng(0), what="w", max_bytes=16)
    assert random_value(sinfo, {}, np.random.default_rng(0), max_bytes=32)[0].shape == (8,)


def test_random_value_of_a_vector_dtype_tensor():
    sinfo = _param_sinfo('R.Tensor((2,), dtype="float32x4")')
    with pytest.raises(InputError, match="x: no NumPy dtype for vector type float32x4"):
        random_value(sinfo, {}, np.random.default_rng(0), what="x")


@pytest.mark.parametrize("shape", [(1 << 64, 16), (0, 1 << 63)])
def test_dimensions_beyond_int64(shape):
    with pytest.raises(InputError, match="int64"):
        random_tensor(shape, parse_dtype("float32"), np.random.default_rng(0))


@pytest.mark.parametrize("name", ["handle", "float32x4", "void"])
def test_dtype_without_a_numpy_type(name):
    with pytest.raises(InputError, match=name if name != "float32x4" else "vector"):
        random_tensor((2,), parse_dtype(name), np.random.default_rng(0))


# -- values read from arrays -----------------------------------------------------------------

INT64 = si.PrimStructInfo(dtype=parse_dtype("int64"))
INT8 = si.PrimStructInfo(dtype=parse_dtype("int8"))
UINT8 = si.PrimStructInfo(dtype=parse_dtype("uint8"))
BOOL = si.PrimStructInfo(dtype=parse_dtype("bool"))
FLOAT = si.PrimStructInfo(dtype=parse_dtype("float32"))
SHAPE = si.ShapeStructInfo(values=None, ndim=-1)


@pytest.mark.parametrize("arr,sinfo,value", [
    (np.array(3), INT64, 3),
    (np.array(3.0), INT64, 3),  # a whole float is the integer it equals
    (np.array(-128, np.int16), INT8, -128),
    (np.array(255), UINT8, 255),
    (np.array(1.0), BOOL, True),
    (np.array(False), BOOL, False),
    (np.array(np.nan), FLOAT, None),  # a float parameter takes NaN as it is
])
def test_prim_values(arr, sinfo, value):
    got = value_from_array(arr, sinfo, "k")
    assert isinstance(got, PrimScalar) and got.dtype == sinfo.dtype
    if value is None:
        assert np.isnan(got.value)
    else:
        assert got.value == value and type(got.value) is type(value)


@pytest.mark.parametrize("arr,sinfo,message", [
    (np.array(np.nan), INT64, "whole number"),
    (np.array(np.inf), INT64, "whole number"),
    (np.array(-np.inf), INT64, "whole number"),
    (np.array(2.5), INT64, "whole number"),
    (np.array(2.0 ** 70), INT64, "in [-9223372036854775808, 9223372036854775807]"),
    (np.array(128), INT8, "in [-128, 127]"),
    (np.array(-1), UINT8, "in [0, 255]"),
    (np.array(2), BOOL, "bool"),
    (np.array(np.nan), BOOL, "whole number"),
    (np.array("3"), INT64, "<U1"),
    (np.array(1 + 2j), FLOAT, "complex128"),
    (np.array([1]), INT64, "0-d"),
], ids=["nan", "inf", "-inf", "fraction", "beyond-int64", "beyond-int8", "negative-uint",
        "bool-2", "bool-nan", "string", "complex", "not-0d"])
def test_bad_prim_values(arr, sinfo, message):
    with pytest.raises(InputError) as exc:
        value_from_array(arr, sinfo, "k")
    assert str(exc.value).startswith("k")
    assert message in str(exc.value)


@pytest.mark.parametrize("arr,dims", [
    (np.array([2, 3]), (2, 3)),
    (np.array([2.0, 3.0]), (2, 3)),
    (np.array(4), (4,)),
    (np.array([], np.int64), ()),
    (np.array([2 ** 63 - 1], np.uint64), (2 ** 63 - 1,)),
])
def test_shape_values(arr, dims):
    got = value_from_array(arr, SHAPE, "s")
    assert isinstance(got, ShapeValue) and got.dims == dims
    assert all(type(d) is int for d in got.dims)


@pytest.mark.parametrize("arr,message", [
    (np.array([2.5, 3.0]), "dimension 0: expected a whole number"),
    (np.array([3.0, np.nan]), "dimension 1: expected a whole number"),
    (np.array([np.inf]), "whole number"),
    (np.array([2, -3]), "dimension 1: expected a shape dimension in [0, "),
    (np.array([2 ** 64 - 1], np.uint64), "18446744073709551615"),
    (np.zeros((1, 2), np.int64), "1-d"),
    (np.array(["2"]), "<U1"),
], ids=["fraction", "nan", "inf", "negative", "beyond-int64", "2-d", "string"])
def test_bad_shape_values(arr, message):
    with pytest.raises(InputError) as exc:
        value_from_array(arr, SHAPE, "s")
    assert message in str(exc.value)


def test_void_array_read_as_the_parameters_ml_dtype():
    # np.save writes a bfloat16 array as raw void ('|V2'); np.load gives the void back.
    want = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    sinfo = _param_sinfo('R.Tensor((2,), dtype="bfloat16")')
    got = value_from_array(want.view(np.dtype("V2")), sinfo, "x")
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    # A void of another width stays as it is (the signature check then names the dtype).
    assert value_from_array(np.zeros(2, "V4"), sinfo, "x").dtype == np.dtype("V4")


# -- the stored form of ml_dtypes arrays -----------------------------------------------------

@pytest.mark.parametrize("name,bits", [("bfloat16", "uint16"), ("float8_e5m2", "uint8"),
                                       ("float8_e4m3fn", "uint8"), ("int4", "uint8")])
def test_stored_form_round_trips_through_np_save(tmp_path, name, bits):
    arr = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32).astype(inputs.numpy_dtype(
        parse_dtype(name)))
    stored, dtype_name = stored_form(arr)
    assert stored.dtype == np.dtype(bits) and dtype_name == name
    np.save(tmp_path / "a.npy", stored)
    back = np.load(tmp_path / "a.npy", allow_pickle=False)  # loads without ml_dtypes' help
    got = from_stored_form(back, dtype_name, "a")
    assert got.dtype == arr.dtype and got.shape == arr.shape
    assert got.tobytes() == arr.tobytes()


@pytest.mark.parametrize("arr", [np.zeros(2, np.float32), np.array(True), np.zeros(3, np.int8),
                                 np.array("hi"), np.zeros(2, np.float16)])
def test_standard_arrays_are_stored_as_they_are(arr):
    stored, dtype_name = stored_form(arr)
    assert stored is arr and dtype_name is None


@pytest.mark.parametrize("arr,name,message", [
    (np.zeros(2, np.uint16), "float8_e5m2", "uint8"),
    (np.zeros(2, np.float32), "bfloat16", "uint16"),
    (np.zeros(2, np.uint16), "bogus", "bogus"),
])
def test_bad_stored_form(arr, name, message):
    with pytest.raises(InputError, match=message):
        from_stored_form(arr, name, "in_0")
