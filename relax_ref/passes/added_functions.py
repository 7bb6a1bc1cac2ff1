"""The functions a pass adds to a module (PASS-legalize-3, PASS-fuse-4): structurally
equal ones are added once, and each is named after its hint with the smallest numeric
suffix that names nothing else in the module (``matmul``, ``matmul1``), as TVM names them.

``AddedFunctions`` is the mapping name -> function of what was added, to merge into the
pass's result (``mod.with_functions({**out.functions, **added})``).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal, structural_hash
from relax_ref.semantics.normalize import Normalizer

from .rewrite import finish


_HASHED_NODES = 64


class AddedFunctions(dict):
    def __init__(self, mod: rx.IRModule) -> None:
        super().__init__()
        self.mod = mod
        self._by_hash: dict[int, list[tuple[object, rx.GlobalVar]]] = {}

    def add(self, name_hint: str, func, prepare=None, bucket=None) -> rx.GlobalVar:
        """The GlobalVar of ``func``: one added earlier if structurally equal, else a
        new one under a fresh name. ``prepare(func)``, when given, makes the function
        that is added; it must keep it structurally equal (a renaming of its own
        variables), and is skipped when an equal one exists. ``bucket``, when given, is
        a value that structurally equal functions always share (FuseOps: the name hint,
        made of the PrimFuncs called in order); it replaces the hash as the key of the
        functions an equality test compares."""
        # a hash of the first nodes only: an equality test settles each bucket anyway
        key = ("bucket", bucket) if bucket is not None else \
            structural_hash(func, max_nodes=_HASHED_NODES)
        for other, gv in self._by_hash.get(key, ()):
            if structural_equal(func, other):
                return gv
        if prepare is not None:
            func = prepare(func)
        name, k = name_hint, 0
        while name in self.mod.functions or name in self:
            k += 1
            name = f"{name_hint}{k}"
        gv = rx.GlobalVar(name)
        self[name] = func
        self._by_hash.setdefault(key, []).append((func, gv))
        return gv


def finish_with_lifted(out: rx.IRModule, added: AddedFunctions, adjust_body=None
                       ) -> rx.IRModule:
    """``out`` with the ``added`` functions (ones a pass lifted out of its callers), in
    normal form, each added function's return annotated with its deduced value, as TVM
    prints lifted functions (PASS-fuse-4, PASS-pattern-match-1). The added functions
    are deduced first, alone (each reads only its parameters and the module's
    signatures), so the module, with its large callers, is normalized once.
    ``adjust_body(body)`` may rewrite each deduced body before that."""
    draft = Normalizer(out.with_functions({**out.functions, **added}))
    functions = dict(out.functions)
    for name in added:
        f = draft.global_function(name)
        body = f.body if adjust_body is None else adjust_body(f.body)
        functions[name] = rx.Function(f.params, body, f.body.struct_info, f.is_pure,
                                      f.attrs, f.is_private, span=f.span)
    return finish(out.with_functions(functions))
