"""IR values that appear only inside attributes: virtual devices (``I.vdevice``, listed in
a module's global infos), targets (``T.target``, in function attributes) and index maps (``lambda i, j: (i // 4, j)``, the layout
argument of ``R.layout_transform`` and ``T.index_map``). spec/syntax.md, SYN-vdevice-1
and SYN-index-map-1.

Both are immutable; an index map's parameters are variables it defines, so structural
equality pairs them by position (ir/equal.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import prim_expr as P
from .span import Span


@dataclass(frozen=True)
class VDevice:
    """A virtual device: the target (a name such as ``"llvm"`` or the target's attributes
    as an ``Attrs``), the device's index among devices of that target, and the memory
    scope its tensors live in."""

    target: Any
    vdevice_id: int = 0
    memory_scope: str = "global"


@dataclass(frozen=True)
class Target:
    """A compilation target (``T.target("llvm")``, ``T.target({"kind": "cuda", ...})``):
    its name or attributes, and optionally its host target."""

    config: Any
    host: Any = None


@dataclass(frozen=True, eq=False)
class IndexMap:
    """``lambda params: results``: maps an index of ``len(params)`` dimensions to one of
    ``len(results)`` dimensions. The parameters are defined here; the results are
    expressions over them."""

    params: tuple[P.Var, ...]
    results: tuple[P.PrimExpr, ...]
    span: Span | None = field(default=None, compare=False)


__all__ = ["IndexMap", "Target", "VDevice"]
