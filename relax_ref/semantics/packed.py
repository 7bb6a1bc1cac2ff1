"""The packed-function registry: what ``ExternFunc`` names, ``R.call_packed``,
``R.call_pure_packed`` and ``R.call_dps_packed`` call (spec/semantics.md, "Packed calls").

Users add their own with the decorator::

    @register_packed("my.scale")
    def scale(x, factor):
        return x * factor.value

A packed function receives runtime values (see ``values.py``). One registered with
``dps=True`` receives its output tensors after its inputs and fills them in place.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from relax_ref.values import PrimScalar, ShapeValue, describe_value


@dataclass(frozen=True)
class PackedEntry:
    name: str
    func: Callable
    dps: bool = False


_PACKED: dict[str, PackedEntry] = {}


def register_packed(name: str, *, dps: bool = False, override: bool = False):
    """Decorator: make ``func`` callable from Relax as the external function ``name``."""
    def wrap(func: Callable) -> Callable:
        if name in _PACKED and not override:
            raise ValueError(f"packed function {name!r} is already registered")
        _PACKED[name] = PackedEntry(name, func, dps)
        return func
    return wrap


def lookup_packed(name: str) -> PackedEntry | None:
    return _PACKED.get(name)


def packed_names() -> list[str]:
    return sorted(_PACKED)


# -- what lowered TVM modules call ----------------------------------------------------------

@register_packed("vm.builtin.shape_of")
def _shape_of(x: np.ndarray) -> ShapeValue:
    return ShapeValue(tuple(int(d) for d in x.shape))


@register_packed("vm.builtin.copy")
def _copy(x):
    return np.array(x, copy=True) if isinstance(x, np.ndarray) else x


@register_packed("vm.builtin.reshape")
def _reshape(x: np.ndarray, shape: ShapeValue) -> np.ndarray:
    return x.reshape(tuple(shape.dims))


@register_packed("vm.builtin.null_value")
def _null():
    return ()


@register_packed("vm.builtin.tuple_getitem")
def _tuple_getitem(t: tuple, i: PrimScalar):
    index = i.value if isinstance(i, PrimScalar) else i
    if not isinstance(t, tuple) or isinstance(index, bool) \
            or not isinstance(index, (int, np.integer)) \
            or not 0 <= index < len(t):
        raise ValueError(f"needs a tuple and an integer index within it, found "
                         f"{describe_value(t)} and {describe_value(i)}")
    return t[index]


@register_packed("vm.builtin.make_tuple")
def _make_tuple(*values):
    return tuple(values)
