"""Passes: functions IRModule -> IRModule with TVM's names and a contract
(DESIGN.md section 5, spec/passes.md).

    @register_pass("DeadCodeElimination", exact=True)
    def dead_code_elimination(mod: IRModule) -> IRModule: ...

A pass never mutates its input (the IR is immutable). Its metadata says which IR form it
needs (``requires``), which it produces (``produces``), and whether it preserves results
exactly or only within float tolerance (``exact``). ``relax_ref/verify.py`` checks every
claim by running the interpreter on both modules.

The forms a pass may name live here too (``FORMS``, PASS-pipe-1), each with the check
that finds where a module lacks it, so a pass's contract is checkable without the
pipeline or the harness.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Mapping

from relax_ref.ir import relax as rx
from relax_ref.ir.relax import IRModule

from .rewrite import Rewriter


def _same(values: list) -> list:
    return values


@dataclass(frozen=True)
class Adapter:
    """How one public function relates across a pass that changes its signature
    (PASS-adapt-1; ``relax_ref.verify.check_pass``): random inputs are drawn from the
    signature of the ``draw_from`` side ("before" or "after"); ``to_before`` and
    ``to_after`` map them to each side's argument list; ``select`` picks, from the
    original's flattened outputs, those the rewritten function returns, which is named
    ``after_name`` (default: the same name)."""

    draw_from: str = "before"
    to_before: Callable[[list], list] = _same
    to_after: Callable[[list], list] = _same
    select: Callable[[list], list] = _same
    after_name: str | None = None


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[IRModule], IRModule]
    exact: bool = True
    requires: tuple[str, ...] = ()
    produces: tuple[str, ...] = ()
    doc: str = ""
    options: dict = field(default_factory=dict)
    # PASS-verify-4: the pass may remove unused pure computations that would have
    # trapped (a trap of pure code is not an effect the program relies on).
    may_remove_traps: bool = False
    # PASS-adapt-1: ``adapters(mod)`` gives, per public function whose signature the pass
    # changes in ``mod``, its Adapter.
    adapters: Callable[[IRModule], Mapping[str, Adapter]] | None = None
    # PASS-fuzz-2: for a pass registered with TVM's empty default (the identity), a random
    # instance for ``mod`` (``instantiate(mod, rng)``; None when nothing can be bound), so
    # that fuzzing exercises what the pass does.
    instantiate: Callable[[IRModule, object], "Pass | None"] | None = None
    # PASS-fuzz-3: for a pass that works on lowered modules (call_tir of PrimFuncs), what
    # makes a random program its input (e.g. LegalizeOps), so that fuzzing exercises it.
    fuzz_inputs: Callable[[IRModule], IRModule] | None = None

    def __call__(self, mod: IRModule) -> IRModule:
        with cycle_collection_paused():
            return self.run(mod)


@contextmanager
def cycle_collection_paused():
    """Python's automatic cycle collection off while a pass (or a pipeline) runs, as it
    was before afterwards. The IR is immutable and acyclic and the passes make no
    reference cycles of note (recursive walks are methods or module functions, not
    closures that refer to themselves), so reference counting frees what a pass drops;
    a collection in the middle of a pass would only scan every long-lived object (the
    module, the caches, whatever else the process holds) for cycles that are not there,
    which cost a third of the default pipeline's time. A cycle a pass does make is
    freed by the first collection after it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# -- forms ------------------------------------------------------------------------------------


def _find(mod: rx.IRModule, what: Callable[[object, bool], str | None]) -> str | None:
    """The first place (as text) where ``what(node, nested)`` objects, over every Relax
    function's blocks and expressions; ``nested`` says the node is inside a local
    function."""
    found: list[str] = []
    for name, f in mod.functions.items():
        if isinstance(f, rx.Function) and not found:
            _FormWalk(name, what, found).function(f)
    return found[0] if found else None


class _FormWalk(Rewriter):
    """``_find``'s walk; the first objection goes to ``found``."""

    def __init__(self, name: str, what: Callable[[object, bool], str | None],
                 found: list[str]):
        super().__init__()
        self.name, self.what, self.found, self.depth = name, what, found, 0

    def note(self, node) -> None:
        if not self.found:
            why = self.what(node, self.depth > 0)
            if why:
                self.found.append(f"{self.name}: {why}")

    def block(self, block):
        self.note(block)
        return super().block(block)

    def expr(self, e):
        self.note(e)
        if isinstance(e, rx.Function):
            self.depth += 1
            try:
                return super().expr(e)
            finally:
                self.depth -= 1
        return super().expr(e)


def _no_dataflow_blocks(mod: rx.IRModule) -> str | None:
    return _find(mod, lambda n, _: "a dataflow block"
                 if isinstance(n, rx.DataflowBlock) else None)


def _no_local_functions(mod: rx.IRModule) -> str | None:
    return _find(mod, lambda n, _: f"the local function at {n.span}"
                 if isinstance(n, rx.Function) else None)


#: PASS-pipe-1: form name -> check (None when ``mod`` has the form, else where it does not).
FORMS: dict[str, Callable[[rx.IRModule], str | None]] = {
    "no dataflow blocks": _no_dataflow_blocks,
    "no local functions": _no_local_functions,
}


def missing_form(form: str, mod: rx.IRModule) -> str | None:
    """None when ``mod`` has ``form``, else where it does not."""
    check = FORMS.get(form)
    if check is None:
        raise KeyError(f"unknown IR form {form!r} (forms: {', '.join(sorted(FORMS))})")
    return check(mod)


# -- the registry -----------------------------------------------------------------------------

_PASSES: dict[str, Pass] = {}


def register_pass(name: str, *, exact: bool = True, requires: tuple[str, ...] = (),
                  produces: tuple[str, ...] = (), may_remove_traps: bool = False,
                  instantiate: Callable | None = None, fuzz_inputs: Callable | None = None):
    """Decorator registering ``fn`` as the pass ``name`` (TVM's name)."""
    def wrap(fn: Callable[[IRModule], IRModule]) -> Pass:
        if name in _PASSES:
            raise ValueError(f"pass {name} registered twice")
        p = Pass(name, fn, exact, tuple(requires), tuple(produces), (fn.__doc__ or "").strip(),
                 may_remove_traps=may_remove_traps, instantiate=instantiate,
                 fuzz_inputs=fuzz_inputs)
        _PASSES[name] = p
        return p
    return wrap


def get_pass(name: str) -> Pass:
    _load()
    if name not in _PASSES:
        raise KeyError(f"no pass named {name!r} (passes: {', '.join(sorted(_PASSES))})")
    return _PASSES[name]


def all_passes() -> dict[str, Pass]:
    _load()
    return dict(_PASSES)


_LOADED = False


def _load() -> None:
    """Import every pass module once so their passes register themselves."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    import pkgutil

    import relax_ref.passes as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name not in ("registry", "rewrite", "pipeline"):
            importlib.import_module(f"relax_ref.passes.{info.name}")
