"""layout_transform (spec/ops/manipulate.md SI-manip-layout-1..2, EXEC-manip-layout-1,
TE-leg-manip-14): extents from the map's bounds, the semantics against a loop written
out, the traps (two elements to one position, padding without pad_value), and the
lowering at n = 1, 0, 2, 3."""
from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import CheckError

from .legalize_helpers import check_lowered, module


def _call(x_ann: str, index_map: str, pad="None") -> str:
    return module(f"x: {x_ann}", f"y = R.layout_transform(x, index_map=T.index_map({index_map}), "
                                 f"pad_value={pad})")


def _result_sinfo(text: str):
    mod = relax_ref.check(relax_ref.from_source(text))
    return mod.functions["main"].body.blocks[0].bindings[0].var.struct_info


def _run(text: str, x: np.ndarray):
    return relax_ref.run(relax_ref.from_source(text), x)


def test_extents_from_the_maps_bounds():
    s = _result_sinfo(_call('R.Tensor((4, 6), "float32")', "lambda i, j: (j // 4, i, j % 4)"))
    assert [d.value for d in s.shape] == [2, 4, 4]
    s = _result_sinfo(_call('R.Tensor(("n", 6), "float32")', "lambda i, j: (j, i)"))
    assert s.shape[0].value == 6 and s.shape[1].name == "n"
    s = _result_sinfo(_call('R.Tensor(dtype="float32", ndim=2)', "lambda i, j: (i, j // 2, 1)"))
    assert s.shape is None and s.ndim == 3


@pytest.mark.parametrize("x_ann,index_map,pad,rule", [
    ('R.Tensor((4, 6), "float32")', "lambda i: (i,)", "None", "SI-manip-layout-1"),
    ('R.Tensor((4,), "float32")', "lambda i: (i,)", "T.float16(0.0)", "SI-manip-layout-1"),
    ('R.Tensor((4,), "float32")', "lambda i: (i - 1,)", "None", "SI-manip-layout-2"),
    ('R.Tensor((4,), "float32")', "lambda i: (i * i,)", "None", "SI-manip-layout-2"),
])
def test_rejected_maps(x_ann, index_map, pad, rule):
    with pytest.raises(CheckError) as e:
        _result_sinfo(_call(x_ann, index_map, pad))
    assert f"[{rule}]" in str(e.value)


def _written_out(x, fn, shape, pad):
    out = np.full(shape, pad, x.dtype)
    for idx in np.ndindex(*x.shape):
        out[fn(*idx)] = x[idx]
    return out


def test_semantics_moves_each_element_and_pads():
    x = np.arange(24, dtype="float32").reshape(4, 6)
    got = _run(_call('R.Tensor((4, 6), "float32")', "lambda i, j: (j // 4, i, j % 4)",
                     "T.float32(-1.0)"), x)
    np.testing.assert_array_equal(got, _written_out(x, lambda i, j: (j // 4, i, j % 4),
                                                    (2, 4, 4), -1.0))


@pytest.mark.parametrize("index_map", ["lambda i: (i // 2,)", "lambda i: (i % 4, 0)"])
def test_traps(index_map):
    with pytest.raises(relax_ref.RelaxError) as e:
        _run(_call('R.Tensor((6,), "int32")', index_map), np.arange(6, dtype="int32"))
    assert "EXEC-manip-layout-1" in str(e.value)


@pytest.mark.parametrize("x_ann,index_map,pad", [
    ('R.Tensor(("n", 3), "float32")', "lambda i, j: (j, i)", "None"),
    ('R.Tensor((2, "n", 3), "int8")', "lambda a, b, c: (c, a, b)", "None"),
    ('R.Tensor((4, "n"), "float32")', "lambda i, j: (j // 2, i, j % 2)", "T.float32(-1.0)"),
    ('R.Tensor((4, "n"), "int32")', "lambda i, j: (j // 2, i, j % 2)", "None"),
    ('R.Tensor(("n",), "float32")', "lambda i: (i * 2,)", "2.5"),
    ('R.Tensor((2, "n", 3), "float32")', "lambda a, b, c: (b, a * 3 + c)", "None"),
    ('R.Tensor((1, 8, "n", 2), "float16")', "lambda n, c, h, w: (n, c // 4, h, w, c % 4)",
     "None"),
    ('R.Tensor(("n", 2), "int32")', "lambda i, j: (i // 3, j, 0, i % 3)", "7"),
])
def test_lowers(x_ann, index_map, pad):
    check_lowered(_call(x_ann, index_map, pad), "relax.layout_transform")


@pytest.mark.parametrize("index_map,inverted", [
    ("lambda i, j: (j // 4, i, j % 4)", True), ("lambda i, j: (i * 6 + j,)", True),
    ("lambda i, j: (j, i, 0)", True), ("lambda i, j: (i * 2, j)", False),
    ("lambda i, j: (i + j, j)", False),
])
def test_split_and_fusion_maps_are_inverted_others_searched(index_map, inverted):
    """TE-leg-manip-14: an invertible map reads x at the inverse; any other searches
    (the layout_count and layout_source stages)."""
    out = check_lowered(_call('R.Tensor((4, 6), "float32")', index_map, "T.float32(0.0)"),
                        "relax.layout_transform")
    assert ("layout_count" in out.script()) != inverted
