"""`relax-ref ops` (spec/api.md CLI-ops-1): the catalog of TVM 0.27's ops, and no
registered op losing one of its facts (deduction, semantics, legalization where TVM
legalizes, a conformance case, a spec page).

The exception lists below are the known gaps, each with its reason. When a gap closes,
remove its entry (the stale-entry tests say which).
"""
from __future__ import annotations

import json

import pytest

from relax_ref.cli import main
from relax_ref.ops.op_table import OpRow, op_rows
from relax_ref.ops.registry import all_ops
from relax_ref.ops.tvm_catalog import TVM_OPS, tvm_legalizes, tvm_lowering

# Ops TVM 0.27 legalizes that we register but do not lower, and why.
NOT_LEGALIZED: dict[str, str] = {
    "relax.nn.attention_var_len": "TVM 0.27's legalization raises 'not supported'; the "
                                  "sequence starts are checked at run time "
                                  "(EXEC-nn-attention_var_len-1), which no PrimFunc does",
}

# Registered ops without a conformance case, and why.
NO_CASE = {
    "relax.call_inplace_packed": "an in-place packed call; no case calls one yet",
    "relax.call_tir_with_grad": "call_tir with gradient attributes; no case calls one yet",
    "relax.null_value": "the VM's null object; no case makes one yet",
}


# Registered ops with neither NumPy semantics nor an interpreter rule, and why.
NO_SEMANTICS: dict[str, str] = {}


@pytest.fixture(scope="module")
def rows() -> dict[str, OpRow]:
    from relax_ref.semantics.interpreter import evaluated_ops

    return {r.name: r for r in op_rows(evaluated_ops())}


def test_the_catalog_records_tvm_0_27():
    assert len(TVM_OPS) == 226  # the non-distributed relax.* ops
    assert not any(n.startswith("relax.dist.") for n in TVM_OPS)
    assert sum(v == "legalize" for v in TVM_OPS.values()) == 186
    assert tvm_legalizes("relax.nn.conv2d") and tvm_lowering("relax.add") == "legalize"
    assert tvm_lowering("relax.sort") == "dispatch"  # DispatchSortScan, before LegalizeOps
    assert tvm_lowering("relax.unique") == "packed"
    assert tvm_lowering("relax.call_tir") == ""
    assert tvm_lowering("relax.log1p") is None  # ours alone


def test_every_registered_op_has_deduction_semantics_and_spec(rows):
    for name in all_ops():
        row = rows[name]
        assert row.deduction, f"{name} has no struct-info deduction"
        assert row.semantics or name in NO_SEMANTICS, f"{name} has no semantics"
        assert row.spec, f"no spec/ops page names {name}"


def test_every_op_tvm_legalizes_is_legalized_here(rows):
    missing = {n for n, r in rows.items()
               if r.registered and r.tvm_lowering == "legalize" and not r.legalization}
    assert missing <= set(NOT_LEGALIZED), f"not legalized: {sorted(missing - set(NOT_LEGALIZED))}"


def test_every_registered_op_has_a_conformance_case(rows):
    missing = {n for n, r in rows.items() if r.registered and r.cases == 0}
    assert missing <= set(NO_CASE), f"no conformance case: {sorted(missing - set(NO_CASE))}"


@pytest.mark.parametrize("table,fact", [(NOT_LEGALIZED, "legalization"), (NO_CASE, "cases"),
                                        (NO_SEMANTICS, "semantics")])
def test_no_stale_exceptions(rows, table, fact):
    stale = sorted(n for n in table if n in rows and fact not in rows[n].missing())
    assert not stale, f"these now have {fact}: remove them from the exception list: {stale}"


def test_a_missing_fact_is_reported():
    bare = OpRow("relax.x", True, False, "", False, "legalize", 0, "")
    assert bare.missing() == ["deduction", "semantics", "legalization", "cases", "spec"]
    assert OpRow("relax.y", False, False, "", False, "legalize", None, None).missing() == \
        ["registered"]


def test_cli_json_lists_every_op(capsys):
    assert main(["ops", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in data]
    assert names == sorted(set(TVM_OPS) | set(all_ops()))
    add = next(r for r in data if r["name"] == "relax.add")
    assert add["registered"] and add["legalization"] and add["tvm_lowering"] == "legalize"
    assert add["cases"] > 0 and add["spec"] == "spec/ops/elementwise.md" and add["missing"] == []


def test_cli_missing_shows_only_rows_lacking_something(capsys):
    assert main(["ops", "--missing", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data and all(r["missing"] for r in data)
    assert "relax.add" not in {r["name"] for r in data}
    # an op not registered lacks only that (every other fact needs the registration)
    assert all(r["missing"] == ["registered"] for r in data if not r["registered"])


def test_cli_table_ends_with_totals(capsys):
    assert main(["ops"]) == 0
    out = capsys.readouterr().out
    assert "relax.nn.conv2d" in out
    lines = out.strip().splitlines()
    assert lines[-3].startswith("TVM 0.27 ops: 226 (186 legalized by TVM)")
    assert lines[-1].startswith("rows lacking something: ")
