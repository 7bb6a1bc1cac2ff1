"""Call templates (relax_ref/testing/call_templates.py): every op with a valid conformance
case is called by random programs, through a template whose annotation is its deduction.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from relax_ref.ops.registry import lookup
from relax_ref.parser.builder import parse
from relax_ref.semantics.normalize import normalize
from relax_ref.testing.call_templates import (
    EXCLUDED, NO_TEMPLATE, TEMPLATES, _dim, generator_type, usable,
)
from relax_ref.testing.dims import const, dim_add, dim_mul, sym
from relax_ref.testing.strategies import build_module, random_module
from relax_ref.testing.template_source import _result_type, covered_ops, module_text, type_text

SUITE = Path(__file__).resolve().parents[2] / "conformance"


def test_every_op_with_a_valid_case_has_a_template_or_a_reason():
    # A new op with a valid case fails here until the table is regenerated
    # (python -m relax_ref.testing.call_templates --regenerate).
    missing = sorted(op for op in covered_ops(SUITE)
                     if lookup(op) is not None and op not in TEMPLATES and op not in NO_TEMPLATE)
    assert not missing, missing
    assert not set(TEMPLATES) & set(NO_TEMPLATE)


def test_exclusions_name_ops_with_templates_and_say_why():
    for op, why in EXCLUDED.items():
        assert op in TEMPLATES and len(why) > 20, op
    assert {name for name, _ in usable()} == set(TEMPLATES) - set(EXCLUDED)


def test_each_template_deduces_the_type_it_records():
    for op, templates in TEMPLATES.items():
        assert lookup(op) is not None, op
        for t in templates:
            assert t.call.startswith(lookup(op).short_name + "("), t
            mod = normalize(parse(module_text(t.operands, t.call, None), t.case))
            binding = mod["main"].body.blocks[0].bindings[0]
            assert _result_type(binding.var.struct_info) == t.result, t
            # the generator annotates with exactly this text
            assert generator_type(t.result).text() == type_text(t.result), t


def test_template_dims_read_as_polynomials():
    assert _dim("4") == const(4)
    assert _dim("n * 4 + 2") == dim_add(dim_mul(sym("n"), const(4)), const(2))
    assert _dim("n - 2") == dim_add(sym("n"), const(-2))
    with pytest.raises(ValueError, match="polynomial"):
        _dim("n // 2")


def test_random_programs_call_many_template_ops():
    texts = [random_module(np.random.default_rng([0, i]))[0] for i in range(150)]
    called = {m for t in texts for m in re.findall(r"= (R\.[\w.]+)\(", t)}
    names = {lookup(op).short_name for op in TEMPLATES}
    assert len(called & names) >= 40, sorted(called & names)
    # ops the hand-written actions never call
    assert called & {"R.nn.conv2d", "R.take", "R.stack", "R.nn.layer_norm", "R.image.resize2d",
                     "R.gather_nd", "R.scatter_elements", "R.topk", "R.nn.max_pool2d"}


def test_a_program_with_template_calls_is_well_formed_and_runs():
    from relax_ref.passes.registry import Pass
    from relax_ref.verify import check_pass

    identity = Pass("Identity", lambda m: m)
    names = tuple(f"{lookup(op).short_name}(" for op in TEMPLATES
                  if lookup(op).family not in ("elementwise", "activation"))
    checked = 0
    for i in range(60):
        text, _ = random_module(np.random.default_rng([5, i]))
        if any(n in text for n in names):
            check_pass(identity, build_module(text), trials=1, seed=i)
            checked += 1
    assert checked >= 5
