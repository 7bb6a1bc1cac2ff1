"""relax_ref: a reference implementation of the Relax IR.

The public API (DESIGN.md section 8, spec/api.md), named as TVM users expect::

    mod = relax_ref.from_source(text)          # TVMScript -> IRModule (never evaluated)
    mod = relax_ref.check(mod)                 # normalized, or CheckError with every problem
    out = relax_ref.run(mod, x, y)             # NumPy values in, NumPy values out
    mod = relax_ref.transform.DeadCodeElimination()(mod)
    relax_ref.verify.check_pass(relax_ref.transform.FoldConstant(), mod)

Everything else in the package is internal and may move. This file is the top of the
dependency order, so it imports the layers below it only where a function needs them,
and ``import relax_ref.errors`` stays cheap.
"""
from __future__ import annotations

from typing import Any

from relax_ref.errors import (
    CheckError, ParseError, RelaxError, ResourceError, RuntimeCheckError, StructInfoError,
    WellFormedError,
)
from relax_ref.ir import relax as _rx
from relax_ref.ir.relax import IRModule

__all__ = [
    "from_source", "parse", "check", "run", "Interpreter", "IRModule", "transform", "verify",
    "RelaxError", "ParseError", "WellFormedError", "StructInfoError", "RuntimeCheckError",
    "ResourceError", "CheckError", "__version__",
]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("relax-ref")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


__version__ = _version()


def _print_script(mod: IRModule) -> str:
    from relax_ref.parser.printer import print_module

    return print_module(mod)


_rx.set_script_printer(_print_script)


def from_source(text: str, source_name: str = "<string>") -> IRModule:
    """Parse TVMScript ``text`` (either dialect) into an IRModule; spans name
    ``source_name``. ParseError, located, for malformed text."""
    from relax_ref.parser.builder import parse as _parse

    if not isinstance(text, str):
        raise TypeError(f"from_source takes the text of a module (str), not "
                        f"{type(text).__name__}")
    return _parse(text, source_name)


parse = from_source


def check(mod: IRModule) -> IRModule:
    """The module normalized (every binding annotated with its deduced struct info), or
    CheckError whose ``errors`` lists every located problem (well-formedness and
    struct info; spec/well_formed.md)."""
    from relax_ref.semantics.normalize import normalize
    from relax_ref.semantics.well_formed import check_well_formed

    errors = check_well_formed(_module(mod, "check"))
    if errors:
        raise CheckError(errors)
    return normalize(mod)


class Interpreter:
    """Runs the functions of one module, normalized once, for repeated calls.

    ``tir_mode``: how PrimFuncs run ("auto", "ordered", "vectorized", "scalar";
    spec/tir_semantics.md); ``max_steps``: the TIR step budget of one PrimFunc call;
    ``limits``: a ``relax_ref.semantics.interpreter.Limits`` for everything else (tensor
    size, call depth). ``run(*args, entry=None)`` (or calling the object) takes NumPy
    arrays, Python numbers and tuples, and returns NumPy values (API-args-1)."""

    def __init__(self, mod: IRModule, *, tir_mode: str | None = None,
                 max_steps: int | None = None, limits: Any = None, trace: Any = None):
        from relax_ref.semantics import interpreter as _interp

        limits = _limits(limits or _interp.Limits(), tir_mode, max_steps)
        self._interp = _interp.Interpreter(_module(mod, "Interpreter"), limits=limits,
                                           trace=trace)

    @property
    def module(self) -> IRModule:
        """The normalized module the interpreter runs."""
        return self._interp.mod

    @property
    def limits(self):
        return self._interp.limits

    def run(self, *args, entry: str | None = None):
        """Run ``entry`` (default: ``main``, else the only Relax function; API-entry-1)."""
        from relax_ref.semantics.inputs import (
            InputError, entry_function, value_from_python, value_to_python,
        )

        try:
            name = entry_function(self._interp.mod, entry)
        except InputError as err:
            raise RuntimeCheckError(str(err), check="entry", rule="API-entry-1") from None
        params = self._interp.mod.functions[name].params
        values = list(args)
        if len(values) == len(params):  # else the call's own check reports the count
            try:
                values = [value_from_python(v, p.struct_info, f"argument {p.name_hint!r}")
                          for v, p in zip(values, params)]
            except InputError as err:
                raise RuntimeCheckError(str(err), check="signature",
                                        rule="API-args-1") from None
        return value_to_python(self._interp.run(name, values))

    __call__ = run


def run(mod: IRModule, *args, entry: str | None = None, tir_mode: str | None = None,
        max_steps: int | None = None):
    """Run one function of ``mod`` once (see Interpreter)."""
    return Interpreter(mod, tir_mode=tir_mode, max_steps=max_steps).run(*args, entry=entry)


def _module(mod, who: str) -> IRModule:
    if not isinstance(mod, IRModule):
        raise TypeError(f"{who} takes an IRModule (from relax_ref.from_source), not "
                        f"{type(mod).__name__}")
    return mod


def _limits(limits, tir_mode: str | None, max_steps: int | None):
    import dataclasses

    from relax_ref.semantics.tir_interp import MODES

    changes = {}
    if tir_mode is not None:
        if tir_mode not in MODES:
            raise ValueError(f"tir_mode must be one of {', '.join(MODES)}, not {tir_mode!r}")
        changes["tir_mode"] = tir_mode
    if max_steps is not None:
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps takes a positive integer, not {max_steps!r}")
        changes["max_tir_steps"] = max_steps
    return dataclasses.replace(limits, **changes) if changes else limits


def __getattr__(name: str):
    # relax_ref.transform and relax_ref.verify load the passes on first use.
    if name == "transform":
        import relax_ref.transform as module
        return module
    if name == "verify":
        import relax_ref.verify as module
        return module
    raise AttributeError(f"module 'relax_ref' has no attribute {name!r}")
