"""LowerToLibrary: relax_ref's own pass, not TVM's (spec/passes.md, PASS-library-2). Each
call of a ``Composite`` function (FuseOpsByPattern's output), or of the ``Codegen``
function wrapping one, whose pattern name has an entry in the library table
(``library.py``) becomes ``R.call_dps_packed`` of the entry's packed function. TVM instead hands Composite functions to an external codegen
(``annotate_codegen=True``, ``RunCodegen``).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.packed import lookup_packed

from .fuse_ops_by_pattern import fuse_ops_by_pattern
from .library import library_entry, library_patterns
from .references import global_uses
from .registry import register_pass
from .rewrite import Rewriter, finish


def _fused_by_library(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pass lowers what FuseOpsByPattern makes with the table's patterns."""
    return fuse_ops_by_pattern(library_patterns())(mod)


@register_pass("LowerToLibrary", exact=True, fuzz_inputs=_fused_by_library)
def lower_to_library(mod: rx.IRModule) -> rx.IRModule:
    """PASS-library-2: calls of Composite functions with a library entry become
    ``R.call_dps_packed`` of the entry's packed function; Composite functions no longer
    called are removed."""
    mod = normalize(mod)
    lowering = _Lower(mod)
    out = lowering.module(mod)
    if not lowering.lowered:
        return out
    uses = global_uses(out)
    # a public (Codegen) function stays: it is an entry point of the module
    kept = {name: f for name, f in out.functions.items()
            if name not in lowering.lowered or uses[name].calls or uses[name].values
            or not f.is_private}
    return finish(out.with_functions(kept))


class _Lower(Rewriter):
    def __init__(self, mod: rx.IRModule):
        super().__init__()
        self.mod = mod
        self.lowered: set[str] = set()

    def call(self, e: rx.Call) -> rx.Expr:
        e2 = super().call(e)
        if not (isinstance(e, rx.Call) and isinstance(e.op, rx.GlobalVar)):
            return e2
        func = self.mod.functions.get(e.op.name_hint)
        composite = _composite_name(func)
        entry = library_entry(composite) if composite is not None else None
        out = e.struct_info
        # PASS-library-2: the result's shape and dtype are known, the inputs are the
        # entry's, and the packed function exists; otherwise the call stays.
        if entry is None or not isinstance(out, si.TensorStructInfo) or out.shape is None \
                or out.dtype.is_void or len(e2.args) != entry.arity \
                or len(func.params) != entry.arity or lookup_packed(entry.packed) is None:
            return e2
        self.lowered.add(e.op.name_hint)
        return rx.Call(rx.Op("relax.call_dps_packed"),
                       (rx.ExternFunc(entry.packed), rx.Tuple(tuple(e2.args))),
                       sinfo_args=(out,), span=e.span)


def _composite_name(func) -> str | None:
    """The pattern name of a Composite function, or of the Composite function a Codegen
    function (``annotate_codegen=True``, PASS-pattern-match-8) binds and calls."""
    if not isinstance(func, rx.Function):
        return None
    if func.attrs.get("Composite"):
        return func.attrs.get("Composite")
    if func.attrs.get("Codegen") is None or not func.body.blocks:
        return None
    first = func.body.blocks[0].bindings
    if len(first) == 2 and isinstance(first[0].value, rx.Function) \
            and first[0].value.attrs.get("Composite") \
            and isinstance(first[1].value, rx.Call) and first[1].value.op is first[0].var:
        return first[0].value.attrs.get("Composite")
    return None
