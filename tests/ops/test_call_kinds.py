"""Call kinds (DPS, packed, format operands) are facts kept once, in ir/call_kinds.py,
and read from there by the op registry, the parser, the printer, the well-formedness
check, the interpreter and the passes (SI-struct-kind-1)."""
from __future__ import annotations

import ast
from pathlib import Path

from relax_ref.ir.call_kinds import CALL_KINDS, PLAIN, call_kind
from relax_ref.ops.registry import all_ops, lookup

PACKAGE = Path(__file__).resolve().parents[2] / "relax_ref"


def test_every_op_with_a_call_kind_is_registered_and_its_opdef_reads_the_table():
    for name, kind in CALL_KINDS.items():
        opdef = lookup(name)
        assert opdef is not None, name
        assert opdef.call_kind is kind


def test_every_dps_kind_names_its_parameters_and_no_other_kind_does():
    for name, kind in CALL_KINDS.items():
        assert bool(kind.dps_params) == kind.dps, name
        assert not kind.dps or "out_ty" in kind.dps_params


def test_ops_outside_the_table_are_plain():
    plain = [op for name, op in all_ops().items() if name not in CALL_KINDS]
    assert plain and all(op.call_kind is PLAIN for op in plain)


def test_a_kind_is_found_by_the_name_written_after_R():
    assert call_kind("call_tir") is call_kind("relax.call_tir")
    assert call_kind("call_tir").dps and call_kind("call_tir").tir_callee
    assert call_kind("call_dps_packed").dps and not call_kind("call_dps_packed").tir_callee
    assert call_kind("call_tir_inplace").inplace
    assert call_kind("print").format_position == 0
    assert call_kind("assert_op").format_position == 1
    assert call_kind("add") is PLAIN


def _names_of_kinded_ops(node: ast.AST) -> set[str]:
    """The call-kind op names written as elements of a tuple, list or set literal (a
    dict maps names to handlers: a dispatch table, not a copy of the facts)."""
    short = {name[len("relax."):] for name in CALL_KINDS}
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set()
    return {e.value for e in node.elts if isinstance(e, ast.Constant)
            and (e.value in CALL_KINDS or e.value in short)}


def test_no_module_keeps_its_own_list_of_call_kinds():
    """A tuple, list or set literal naming two or more of these ops is a second copy
    of the table (the parser, printer, well-formedness check and interpreter each had
    one)."""
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "ir" / "call_kinds.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if len(_names_of_kinded_ops(node)) >= 2:
                copies.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not copies
