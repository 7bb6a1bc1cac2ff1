"""Attribute values beyond literals: virtual devices (SYN-vdevice-1), index maps
(SYN-index-map-1), and buffers in TIR annotations (PRINT-attr-2). Each reads into the
IR and prints back to text that reads to the same IR."""
from __future__ import annotations

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir.attr_values import IndexMap, VDevice
from relax_ref.ir.dtype import INT32, INT64
from relax_ref.ir.equal import assert_structural_equal, structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module


def round_trip(text: str):
    mod = parse(text)
    assert_structural_equal(parse(print_module(mod)), mod)
    return mod


VDEVICES = '''
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [
        I.vdevice({"kind": "opencl", "keys": ["gpu"]}, 0, "global.texture"),
        I.vdevice("llvm"),
    ]})

    @R.function
    def main(x: R.Tensor((4,), "float32", vdevice="llvm:0")) -> R.Tensor((4,), "float32"):
        return x
'''


def test_vdevices_in_global_infos():
    mod = round_trip(VDEVICES)
    gpu, cpu = mod.global_infos.get("vdevice")
    assert gpu.memory_scope == "global.texture" and gpu.target.get("kind") == "opencl"
    assert cpu == VDevice("llvm", 0, "global")
    assert mod.functions["main"].params[0].struct_info.vdevice == "llvm:0"


def test_vdevice_with_an_unknown_option_is_an_error():
    with pytest.raises(ParseError, match="no option 'scope'") as err:
        parse(VDEVICES.replace('I.vdevice("llvm")', 'I.vdevice("llvm", scope="x")'))
    assert err.value.rule == "SYN-vdevice-1"


LAYOUT = '''
@R.function
def main(x: R.Tensor((16,), "float32")):
    y = R.layout_transform(x, index_map={index_map}, pad_value=None)
    return y
'''


def index_map_of(text: str) -> IndexMap:
    mod = round_trip(LAYOUT.format(index_map=text))
    return mod.functions["main"].body.blocks[0].bindings[0].value.attrs.get("index_map")


def test_an_index_map_lambda_reads_into_an_index_map():
    m = index_map_of("lambda i: (i // 4, i % 4)")
    assert [p.name for p in m.params] == ["i"] and m.params[0].dtype == INT64
    assert len(m.results) == 2


def test_t_index_map_gives_the_index_dtype():
    m = index_map_of('T.index_map(lambda i: (i // 4, i % 4), index_dtype="int32")')
    assert m.params[0].dtype == INT32 and m.results[0].dtype == INT32


def test_index_maps_compare_by_structure():
    a = parse(LAYOUT.format(index_map="lambda i: (i // 4, i % 4)"))
    renamed = parse(LAYOUT.format(index_map="lambda k: (k // 4, k % 4)"))
    other = parse(LAYOUT.format(index_map="lambda i: (i % 4, i // 4)"))
    assert structural_equal(a, renamed)
    assert not structural_equal(a, other)


def test_an_index_map_of_something_else_is_an_error():
    with pytest.raises(ParseError, match="index expressions") as err:
        parse(LAYOUT.format(index_map='lambda i: ("a",)'))
    assert err.value.rule == "SYN-index-map-1"


ANNOTATED = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi])
            T.writes(B[vi])
            T.sblock_attr({annotations})
            B[vi] = A[vi]
'''


@pytest.mark.parametrize("annotations", [
    '{"bufs": [A, B]}',
    '{"region": A[0:2], "nested": {"k": [A]}}',
    '{"dtype": T.float32, "n": T.int32(3), "iter": vi, "f": 1.5}',
])
def test_every_annotation_value_the_parser_reads_prints_back(annotations):
    round_trip(ANNOTATED.format(annotations=annotations))


def test_a_namespace_is_not_an_annotation_value():
    with pytest.raises(ParseError, match="T.grid is not a value") as err:
        parse(ANNOTATED.format(annotations='{"k": [T.grid]}'))
    assert err.value.rule == "SYN-attr-1"
