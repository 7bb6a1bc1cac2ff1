"""The library table for partial library lowering (spec/passes.md, PASS-library-1, -3): a
table from pattern names to packed functions. LowerToLibrary (``lower_to_library.py``)
turns each call of a ``Composite`` function whose name is in the table into
``R.call_dps_packed`` of that packed function.

LowerToLibrary is relax_ref's own pass, not TVM's: TVM hands Composite functions to a
codegen (``annotate_codegen=True``, ``RunCodegen``); here the "library" is a set of NumPy
packed functions (``semantics/packed.py``) computing with the ops' own semantics.

Shipped entries: ``blas.matmul`` (``R.matmul`` of float32 2-d operands) and
``blas.matmul_bias_relu`` (``relu(add(matmul(x, w), b))``, same operands). Users add more::

    @library("my.scaled_exp", is_op("relax.multiply")(is_op("relax.exp")(wildcard()),
                                                       wildcard()))
    def scaled_exp(x, s):
        return np.exp(x) * s

The function receives the matched function's inputs, in the order the matched bindings
first read them (program order), and returns the result; it is registered as a
destination-passing packed function of the same name (PASS-library-3).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.packed import register_packed, write_result

from .patterns import MatchState, Pattern, is_op, wildcard


@dataclass(frozen=True)
class LibraryEntry:
    """PASS-library-1: pattern ``name`` lowers to the packed function ``packed``, which
    takes ``arity`` inputs then the output."""

    name: str
    pattern: Pattern
    packed: str
    arity: int
    check: Callable[[MatchState], bool] | None = None


_LIBRARY: dict[str, LibraryEntry] = {}


def register_library(entry: LibraryEntry, *, override: bool = False) -> None:
    if entry.name in _LIBRARY and not override:
        raise ValueError(f"library entry {entry.name!r} is already registered")
    _LIBRARY[entry.name] = entry


def library(name: str, pattern: Pattern, *, check: Callable[[MatchState], bool] | None = None,
            override: bool = False):
    """Decorator: ``func(*inputs) -> ndarray`` becomes the packed function ``name`` (in
    destination-passing form) and the library entry for pattern ``name``."""
    def wrap(func: Callable) -> Callable:
        arity = len(inspect.signature(func).parameters)

        def dps(*args):
            *inputs, out = args
            write_result(out, np.asarray(func(*inputs)), name)

        register_packed(name, dps=True, override=override)(dps)
        register_library(LibraryEntry(name, pattern, name, arity, check), override=override)
        return func
    return wrap


def library_entry(name: str) -> LibraryEntry | None:
    return _LIBRARY.get(name)


def library_patterns() -> list[tuple[str, Pattern, Callable | None]]:
    """The table as FuseOpsByPattern patterns, in registration order (larger first)."""
    return [(e.name, e.pattern, e.check) for e in _LIBRARY.values()]


# -- shipped entries ----------------------------------------------------------------------------

def _float32_2d_operands(state: MatchState) -> bool:
    """Both matmul operands are variables holding float32 2-d tensors."""
    for key in ("x", "w"):
        e = state.named.get(key)
        s = e.struct_info if isinstance(e, rx.Var) else None
        if not (isinstance(s, si.TensorStructInfo) and s.ndim == 2
                and str(s.dtype) == "float32"):
            return False
    return True


def _bias_relu_operands(state: MatchState) -> bool:
    b = state.named.get("b")
    return _float32_2d_operands(state) and isinstance(b, rx.Var)


def _matmul() -> Pattern:
    return is_op("relax.matmul")(wildcard().named("x"), wildcard().named("w")) \
        .has_attr({"out_dtype": "void"})


register_library(LibraryEntry(
    "blas.matmul_bias_relu",
    is_op("relax.nn.relu")(is_op("relax.add")(_matmul(), wildcard().named("b"))),
    "blas.matmul_bias_relu", 3, _bias_relu_operands))
register_library(LibraryEntry("blas.matmul", _matmul(), "blas.matmul", 2,
                              _float32_2d_operands))
