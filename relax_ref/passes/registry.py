"""Passes: functions IRModule -> IRModule with TVM's names and a contract
(DESIGN.md section 5, spec/passes.md).

    @register_pass("DeadCodeElimination", exact=True)
    def dead_code_elimination(mod: IRModule) -> IRModule: ...

A pass never mutates its input (the IR is immutable). Its metadata says which IR form it
needs (``requires``), which it produces (``produces``), and whether it preserves results
exactly or only within float tolerance (``exact``). ``passes/verify.py`` checks every
claim by running the interpreter on both modules.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from relax_ref.ir.relax import IRModule


def _same(values: list) -> list:
    return values


@dataclass(frozen=True)
class Adapter:
    """How one public function relates across a pass that changes its signature
    (PASS-adapt-1; ``passes/verify.check_pass``): random inputs are drawn from the
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

    def __call__(self, mod: IRModule) -> IRModule:
        return self.run(mod)


_PASSES: dict[str, Pass] = {}


def register_pass(name: str, *, exact: bool = True, requires: tuple[str, ...] = (),
                  produces: tuple[str, ...] = (), may_remove_traps: bool = False,
                  instantiate: Callable | None = None):
    """Decorator registering ``fn`` as the pass ``name`` (TVM's name)."""
    def wrap(fn: Callable[[IRModule], IRModule]) -> Pass:
        if name in _PASSES:
            raise ValueError(f"pass {name} registered twice")
        p = Pass(name, fn, exact, tuple(requires), tuple(produces), (fn.__doc__ or "").strip(),
                 may_remove_traps=may_remove_traps, instantiate=instantiate)
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
        if info.name not in ("registry", "verify", "rewrite", "pipeline"):
            importlib.import_module(f"relax_ref.passes.{info.name}")
