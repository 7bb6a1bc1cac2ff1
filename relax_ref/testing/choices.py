"""Sources of the generator's choices (``strategies.py``): small bounded integers, the
least value always the simplest. ``RandomChoices`` draws from a NumPy Generator and
records; ``ReplayChoices`` replays an (edited) record, which any integer stream is;
Hypothesis strategies draw through ``DrawChoices``, so shrinking the draws shrinks the
module.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np


class Choices:
    """A source of small integer choices; the least value of a range is the simplest."""

    def integer(self, lo: int, hi: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def boolean(self, percent_true: int = 50) -> bool:
        """True with about ``percent_true``% probability; shrinks to False."""
        return self.integer(0, 99) >= 100 - percent_true

    def index(self, n: int) -> int:
        return self.integer(0, n - 1)

    def pick(self, items: Sequence):
        return items[self.integer(0, len(items) - 1)]

    def group(self, fn: Callable[[], object]):
        """``fn()``, its choices marked as one group (one binding, one parameter, the
        if/else): shrinkers try deleting whole groups first."""
        self.begin()
        try:
            return fn()
        finally:
            self.end()

    def begin(self) -> None:
        pass

    def end(self) -> None:
        pass


class _Recording(Choices):
    """Keeps the spans ``(start, stop)`` of the groups in the record."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []
        self._open: list[int] = []

    def _position(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def begin(self) -> None:
        self._open.append(self._position())

    def end(self) -> None:
        start = self._open.pop()
        if self._position() > start:
            self.spans.append((start, self._position()))


class RandomChoices(_Recording):
    """Uniform choices from a NumPy Generator; ``record`` holds each choice minus its
    lower bound, for ``ReplayChoices``."""

    def __init__(self, rng: np.random.Generator):
        super().__init__()
        self.rng = rng
        self.record: list[int] = []

    def _position(self) -> int:
        return len(self.record)

    def integer(self, lo: int, hi: int) -> int:
        value = int(self.rng.integers(lo, hi + 1)) if hi > lo else lo
        self.record.append(value - lo)
        return value


class ReplayChoices(_Recording):
    """Replays a record of offsets (clamped to each range; 0 once it runs out).
    ``used`` is the record as actually consumed, for the shrinker."""

    def __init__(self, record: Sequence[int]):
        super().__init__()
        self.record = list(record)
        self.pos = 0
        self.used: list[int] = []

    def _position(self) -> int:
        return len(self.used)

    def integer(self, lo: int, hi: int) -> int:
        raw = self.record[self.pos] if self.pos < len(self.record) else 0
        self.pos += 1
        offset = min(max(int(raw), 0), hi - lo)
        self.used.append(offset)
        return lo + offset


class DrawChoices(Choices):
    """Choices as Hypothesis draws (inside ``st.composite``)."""

    def __init__(self, draw):
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st
        self.cache: dict[tuple[int, int], object] = {}

    def integer(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        strat = self.cache.get((lo, hi))
        if strat is None:
            strat = self.cache[(lo, hi)] = self.st.integers(lo, hi)
        return self.draw(strat)

    def group(self, fn: Callable[[], object]):
        # A nested draw: Hypothesis sees the group as one span and deletes it whole.
        @self.st.composite
        def _group(draw):
            outer, self.draw = self.draw, draw
            try:
                return fn()
            finally:
                self.draw = outer

        return self.draw(_group())
