"""Call kinds: the facts about an op's calling form that the parser, the printer, the
well-formedness check, the interpreter and the passes all read (spec/ops/structural.md,
SI-struct-kind-1).

The op registry (``ops/registry.py``) is above ``ir`` and the parser may not import it,
so the table lives here, once; ``OpDef.call_kind`` reads it, and a test checks that every
op named here is registered. An op absent from the table has the plain kind: its
operands are its arguments, in order.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CallKind:
    """How a call of one op is formed and what its operands mean.

    - ``dps``: destination-passing. The operands are ``(callee, args tuple[, tir_vars])``
      and the outputs, allocated by the caller from the call's struct info, are passed
      after the inputs (``R.call_tir(f, (x,), out_ty=...)``).
    - ``tir_callee``: the callee must be a PrimFunc of the module (the call_tir family;
      ``call_dps_packed`` calls a packed function instead).
    - ``inplace``: outputs may be inputs, named by the ``inplace_indices`` attribute.
    - ``packed``: the first operand is a packed function (a name or an expression), the
      rest its arguments (``R.call_pure_packed("f", x, sinfo_args=...)``).
    - ``named_callee``: the first operand may be written as the callee's name, a string
      that reads as the ExternFunc of that name and prints back as the string (the
      packed calls, and ``R.call_builtin_with_ctx("vm.builtin.f", (args...))``).
    - ``format_position``: the operand that is a format string (R.print: 0, R.assert_op:
      1), written ``format=`` in the text.
    - ``dps_params``: the parameters of a DPS call after ``(func, args)``, in the order of
      TVM's Python signature (``relax/op/base.py``; ``tir_vars`` last, from the earlier
      dialect), each written by position or by keyword (SYN-relax-11).
    """

    dps: bool = False
    tir_callee: bool = False
    inplace: bool = False
    packed: bool = False
    named_callee: bool = False
    format_position: int | None = None
    dps_params: tuple[str, ...] = ()


PLAIN = CallKind()

CALL_KINDS: dict[str, CallKind] = {
    "relax.call_tir": CallKind(dps=True, tir_callee=True, dps_params=("out_ty", "tir_vars")),
    "relax.call_tir_inplace": CallKind(
        dps=True, tir_callee=True, inplace=True,
        dps_params=("inplace_indices", "out_ty", "tir_vars")),
    "relax.call_tir_with_grad": CallKind(
        dps=True, tir_callee=True,
        dps_params=("out_ty", "te_grad_name", "te_grad_kwargs", "tir_vars")),
    "relax.call_dps_packed": CallKind(dps=True, dps_params=("out_ty",)),
    "relax.call_pure_packed": CallKind(packed=True, named_callee=True),
    "relax.call_inplace_packed": CallKind(packed=True, inplace=True, named_callee=True),
    "relax.call_builtin_with_ctx": CallKind(named_callee=True),
    "relax.print": CallKind(format_position=0),
    "relax.assert_op": CallKind(format_position=1),
}


def call_kind(op_name: str) -> CallKind:
    """The kind of ``op_name``, given as registered (``relax.call_tir``) or as written
    after ``R.`` (``call_tir``)."""
    if not op_name.startswith("relax."):
        op_name = "relax." + op_name
    return CALL_KINDS.get(op_name, PLAIN)


__all__ = ["CALL_KINDS", "CallKind", "PLAIN", "call_kind"]
