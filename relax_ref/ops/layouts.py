"""Layout strings of the convolutions and pools (spec/ops/nn.md SI-nn-layout-1, -2; pools
take only splits of N or C, ``pool.split_pool_layout``): the canonical
letters (``NCHW``, ``OIHW``) in any order, each optionally split once into an outer axis
(the upper-case letter) and an inner axis of a constant factor (``4c``), as TVM's
``NCHW4c`` and ``OIHW4o``. A tensor in such a layout converts to the canonical layout
and back: the canonical extent of a split letter is ``outer * factor``, with the inner
index the fastest (TVM's bijective layout).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Layout:
    text: str
    canonical: str
    # per axis of a tensor in this layout: (canonical letter, None) for a whole or outer
    # axis, (canonical letter, factor) for an inner axis
    axes: tuple[tuple[str, int | None], ...]

    @staticmethod
    def parse(text: str, canonical: str) -> "Layout | None":
        """The layout, or None when ``text`` is not the canonical letters in some order,
        each at most once split by a positive factor."""
        axes: list[tuple[str, int | None]] = []
        digits = ""
        for ch in text:
            if ch.isdigit():
                digits += ch
            elif ch.isupper() and not digits:
                axes.append((ch, None))
            elif ch.islower() and digits and int(digits) > 0:
                axes.append((ch.upper(), int(digits)))
                digits = ""
            else:
                return None
        whole = [c for c, f in axes if f is None]
        inner = [c for c, f in axes if f is not None]
        if digits or sorted(whole) != sorted(canonical) or len(set(inner)) != len(inner) \
                or not set(inner) <= set(canonical):
            return None
        return Layout(text, canonical, tuple(axes))

    @property
    def ndim(self) -> int:
        return len(self.axes)

    @property
    def is_split(self) -> bool:
        return any(f is not None for _, f in self.axes)

    def position(self, letter: str, inner: bool = False) -> int | None:
        """The axis holding ``letter`` (its outer or whole axis, or its inner one)."""
        for i, (c, f) in enumerate(self.axes):
            if c == letter and (f is not None) == inner:
                return i
        return None

    def factor(self, letter: str) -> int | None:
        return next((f for c, f in self.axes if c == letter and f is not None), None)

    # -- run time -----------------------------------------------------------------------------
    def to_canonical(self, x: np.ndarray) -> np.ndarray:
        """``x`` (in this layout; the inner axes of the factors' extents) in the canonical
        layout."""
        order, shape = [], []
        for c in self.canonical:
            outer, inner = self.position(c), self.position(c, inner=True)
            order += [outer] if inner is None else [outer, inner]
            shape.append(x.shape[outer] * (1 if inner is None else x.shape[inner]))
        return np.transpose(x, order).reshape(shape)

    def from_canonical(self, x: np.ndarray) -> np.ndarray:
        """``x`` (canonical; each split extent a multiple of its factor) in this layout."""
        split_shape, names = [], []
        for c, n in zip(self.canonical, x.shape):
            f = self.factor(c)
            if f is None:
                split_shape.append(n)
                names.append((c, False))
            else:
                split_shape += [n // f, f]
                names += [(c, False), (c, True)]
        y = x.reshape(split_shape)
        return np.transpose(y, [names.index((c, f is not None)) for c, f in self.axes])
