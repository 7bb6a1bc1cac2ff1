"""Shared by the tests of the lowering passes (CallTIRRewrite ... AttachGlobalSymbol):
a module brought to a pass's stage of the default pipeline, and TVM 0.27's pass on the
same text for the cross-checks."""
from __future__ import annotations

import importlib.util

import pytest

from relax_ref.ir.equal import assert_structural_equal
from relax_ref.parser.builder import parse
from relax_ref.parser.printer import print_module
from relax_ref.passes.lowering_stages import stage_before
from relax_ref.passes.registry import get_pass
from relax_ref.semantics.normalize import normalize

needs_tvm = pytest.mark.skipif(importlib.util.find_spec("tvm") is None,
                               reason="the cross-check needs Apache TVM 0.27")


def at_stage(name: str, text: str):
    """The module of ``text`` after the default pipeline's passes before ``name``."""
    return stage_before(name, parse(text))


def tvm_pass(name: str, mod):
    """TVM 0.27's pass ``name`` on our printed ``mod``, read back by our parser."""
    import tvm

    theirs = getattr(tvm.relax.transform, name)()(tvm.script.from_source(print_module(mod)))
    return normalize(parse(theirs.script()))


def assert_same_as_tvm(name: str, mod, functions=("main",)) -> None:
    """Our pass ``name`` and TVM's make structurally equal bodies of ``functions`` from
    ``mod`` (TVM's printer adds deduced return annotations, so bodies are compared)."""
    ours = get_pass(name)(mod)
    theirs = tvm_pass(name, mod)
    for f in functions:
        assert_structural_equal(ours.functions[f].body, theirs.functions[f].body,
                                map_free_vars=True)
