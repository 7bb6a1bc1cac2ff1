"""The element-type facts on OpDefs (``dtypes``, ``int_total``) agree with the ops'
semantics and deduction; the fuzzer draws its elementwise calls from them."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import StructInfoError
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import parse_dtype
from relax_ref.ops.registry import all_ops
from relax_ref.ops.registry import deduce_call_sinfo

SAMPLES = {"int32": np.array([1, 2, 3], np.int32),
           "float32": np.array([0.5, 1.5, 2.0], np.float32),
           "bool": np.array([True, False, True])}
ADMITS = {"numeric": ("int32", "float32"), "float": ("float32",), "int": ("int32",),
          "bool": ("bool",)}
DECLARED = sorted((name, op) for name, op in all_ops().items() if op.dtypes)


def _defaults(op) -> rx.Attrs:
    return rx.Attrs(tuple((a.name, a.default) for a in op.attrs))


def _call(op, dtype: str) -> tuple[rx.Call, list[si.StructInfo]]:
    sinfo = si.TensorStructInfo((), parse_dtype(dtype))
    args = tuple(rx.Var(f"x{i}", sinfo) for i in range(len(op.operands)))
    return rx.Call(rx.Op(op.name), args, _defaults(op), ()), [sinfo] * len(args)


def test_the_elementwise_and_activation_families_declare_their_types():
    names = {name for name, _ in DECLARED}
    assert {"relax.add", "relax.exp", "relax.bitwise_and", "relax.logical_or",
            "relax.nn.relu", "relax.nn.gelu", "relax.less"} <= names


@pytest.mark.parametrize("name, op", DECLARED, ids=[n for n, _ in DECLARED])
def test_each_op_computes_on_each_declared_type(name, op):
    for dtype in ADMITS[op.dtypes]:
        values = [SAMPLES[dtype]] * len(op.operands)
        assert isinstance(op.compute(_defaults(op), *values), np.ndarray)


@pytest.mark.parametrize("name, op", [(n, op) for n, op in DECLARED if op.dtypes == "float"],
                         ids=[n for n, op in DECLARED if op.dtypes == "float"])
def test_float_only_ops_reject_integers_in_deduction(name, op):
    with pytest.raises(StructInfoError):
        deduce_call_sinfo(*_call(op, "int32"))


def test_ops_partial_on_integers_fail_a_check_for_some_integers():
    partial = [op for _, op in DECLARED if not op.int_total]
    assert {op.name for op in partial} >= {"relax.divide", "relax.mod", "relax.power"}
    for op in partial:
        with pytest.raises(Exception):
            op.compute(_defaults(op), np.array([4, 4], np.int32), np.array([0, -1], np.int32))
