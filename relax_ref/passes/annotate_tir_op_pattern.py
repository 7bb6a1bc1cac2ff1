"""AnnotateTIROpPattern (TVM's name): write each PrimFunc's operator pattern as its
``op_pattern`` attribute, for FuseOps to read (spec/passes.md, PASS-pattern-*).

- PASS-pattern-1. Every PrimFunc whose ``op_pattern`` is absent or 0 gets the kind
  ``op_pattern.op_pattern`` finds, as an int with TVM's numbers; one with a nonzero
  ``op_pattern`` keeps it (TVM's pass asks for a nonzero attribute, so a 0 written by
  hand is found again). The attributes are kept in key order, as TVM prints them:
  ``T.func_attr({"op_pattern": 0, "tirx.noalias": True})``. Nothing else changes, so the
  pass is exact.
"""
from __future__ import annotations

import dataclasses

from relax_ref.ir import relax as rx
from relax_ref.ir import tir

from .op_pattern import op_pattern
from .registry import register_pass
from .rewrite import finish


def _annotated(func: tir.PrimFunc) -> tir.PrimFunc:
    if func.attrs.get("op_pattern"):
        return func
    attrs = func.attrs.with_item("op_pattern", int(op_pattern(func)))
    return dataclasses.replace(func, attrs=rx.Attrs(tuple(sorted(attrs.items))))


def _lowered(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pass reads the PrimFuncs LegalizeOps makes."""
    from .legalize_ops import legalize_ops

    return legalize_ops(mod)


@register_pass("AnnotateTIROpPattern", exact=True, fuzz_inputs=_lowered)
def annotate_tir_op_pattern(mod: rx.IRModule) -> rx.IRModule:
    """PASS-pattern-1: the ``op_pattern`` of every PrimFunc (TVM's OpPatternKind)."""
    # Only PrimFuncs change: the Relax functions are kept as they are, unwalked.
    return finish(mod.with_functions({
        name: _annotated(f) if isinstance(f, tir.PrimFunc) else f
        for name, f in mod.functions.items()}))
