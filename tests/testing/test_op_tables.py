"""The generator's elementwise op tables come from the op registry (op_tables.py)."""
from __future__ import annotations

import numpy as np

from relax_ref.ops.registry import lookup
from relax_ref.testing import strategies
from relax_ref.testing.op_tables import elementwise_ops
from relax_ref.testing.strategies import random_module


def test_the_tables_follow_the_registry_facts():
    assert elementwise_ops(1, "float32")[0] == "negative"
    assert elementwise_ops(2, "int32")[0] == "add"
    assert "exp" in elementwise_ops(1, "float32") and "exp" not in elementwise_ops(1, "int32")
    # a zero divisor fails a check on integers (int_total): floats only
    assert "divide" in elementwise_ops(2, "float32") and "divide" not in elementwise_ops(2, "int32")
    assert "bitwise_and" in elementwise_ops(2, "int32")
    assert "bitwise_and" not in elementwise_ops(2, "float32")
    assert set(elementwise_ops(2, "float32", "bool")) >= {"less", "equal", "not_equal"}
    # softmax keeps its operand's type but has no axis on a 0-d tensor: not elementwise
    assert "nn.softmax" not in elementwise_ops(1, "float32")


def test_every_op_in_the_tables_is_registered_with_its_types():
    tables = {"float": strategies.UNARY_FLOAT + strategies.BINARY_FLOAT,
              "int": strategies.UNARY_INT + strategies.BINARY_INT}
    for kind, names in tables.items():
        for name in names:
            op = lookup("relax." + name)
            assert op is not None and op.dtypes in ("numeric", kind), name


def test_generated_modules_call_ops_the_hand_written_lists_lacked():
    texts = [random_module(np.random.default_rng([0, i]))[0] for i in range(200)]
    seen = {op for op in ("R.power(", "R.floor_mod(", "R.sign(", "R.bitwise_xor(", "R.erf(",
                          "R.nn.softplus(") if any(op in t for t in texts)}
    assert len(seen) >= 4, seen
