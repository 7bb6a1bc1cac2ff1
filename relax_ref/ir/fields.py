"""The fields of an IR node class that hold its parts (all but ``span``), listed once per
class: generic walkers visit every node of a program, and ``dataclasses.fields`` rebuilds
its answer on each call."""
from __future__ import annotations

import dataclasses

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s dataclass fields except ``span``, in declaration order."""
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
        _CHILD_FIELDS[cls] = names
    return names
