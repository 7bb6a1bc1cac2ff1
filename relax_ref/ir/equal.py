"""Structural equality and hashing of IR, modulo consistent renaming of binders.

Two pieces of IR are structurally equal when they have the same node types and leaf
values everywhere, spans and local names aside, and their variables correspond one to
one (alpha-equivalence):

* A Relax ``Var``/``DataflowVar`` is paired with its counterpart where it is defined (a
  function parameter, a ``VarBinding`` or ``MatchCast`` var); every later occurrence must
  meet the same counterpart, in both directions (a bijection).
* A symbolic variable (``prim_expr.Var``) is paired at its first occurrence in a
  *definition position*: the struct info of Relax function parameters, the struct info of
  a ``match_cast``, the parameters of a ``R.Callable`` annotation, PrimFunc parameters and
  buffer fields, loop vars, block iter vars, Let/LetStmt vars, Allocate buffer vars,
  AttrStmt nodes (``T.launch_thread``).
* A ``tir.Buffer`` is paired where it is defined (PrimFunc ``buffer_map``, block
  ``alloc_buffers`` and ``match_buffers``, ``DeclBuffer``); its shape, dtype, strides,
  offset and scope are compared there (as definition positions), later uses by pairing.
* A variable or buffer met outside a definition position before any definition is
  *free*: with ``map_free_vars=False`` it must be the very same object on both sides;
  with ``map_free_vars=True`` it is paired on first use, like a definition.

Names of local things (Relax vars, symbolic vars, buffers, block names) and spans never
matter; ``GlobalVar``s compare by name. The functions of an ``IRModule`` are paired by
name and compared independently (each with fresh variable pairings); the module's own
class name does not matter. Node types must match exactly (a ``DataflowVar`` never
equals a ``Var``); floats compare by value with NaN equal to NaN; numpy constants compare
by dtype, shape and bytes; ``Attrs`` and dicts compare as mappings (order of keys
aside).

Both walks are iterative (an explicit stack), so neither the length of a binding list
nor the depth of statement nesting can exhaust Python's recursion limit.

``structural_hash`` walks the same way and numbers variables in the order they are first
met, so structurally equal IR hashes equal. It uses Python's ``hash`` of strings, so a
hash is stable within one process only.
"""
from __future__ import annotations

import dataclasses
import operator
from typing import Any, Callable

import numpy as np

from . import prim_expr as pe
from . import relax as rx
from . import struct_info as si
from . import tir
from .attr_values import IndexMap
from .dtype import DataType

__all__ = ["structural_equal", "structural_hash", "assert_structural_equal"]

# Position modes: how a variable met at a position is treated.
USE = 0       # a use: must already correspond to its counterpart (or be free)
DEF = 1       # a definition position: a symbolic var or buffer met for the first time binds
BIND_USE = 2  # a Relax var defined here; its annotation only uses symbolic vars
BIND_DEF = 3  # a Relax var defined here whose annotation defines symbolic vars (params)
# The mode inherited by the fields of a node: BIND_* applies to the var itself only.
_COLLAPSE = (USE, DEF, USE, DEF)

# Binders: the node types paired by identity rather than compared by content alone.
_BINDERS = (rx.Var, pe.Var, tir.Buffer)

# Fields that never take part: spans, and the names of local things.
_IGNORED_FIELDS = {
    rx.Var: ("name_hint",),
    pe.Var: ("name",),
    tir.Buffer: ("name",),
    tir.SBlock: ("name",),  # as in TVM: a block's name is a hint, not structure
    rx.IRModule: ("name",),
}

# Fields walked first, in this order, with the mode they impose (None: inherited);
# the remaining fields follow in declaration order. Definitions come before their uses.
_FIELD_RULES: dict[type, tuple[tuple[str, int | None], ...]] = {
    rx.Function: (("params", BIND_DEF),),
    rx.VarBinding: (("var", BIND_USE), ("value", None)),  # var first: local recursion
    rx.MatchCast: (("value", None), ("struct_info", DEF), ("var", BIND_USE)),
    si.FuncStructInfo: (("params", DEF),),
    pe.Let: (("value", None), ("var", DEF)),
    tir.BufferLoad: (("buffer", USE),),
    tir.BufferStore: (("buffer", USE),),
    tir.BufferRegion: (("buffer", USE),),
    tir.MatchBufferRegion: (("source", USE), ("buffer", DEF)),
    tir.LetStmt: (("value", None), ("var", DEF)),
    tir.For: (("min", None), ("extent", None), ("loop_var", DEF)),
    tir.Allocate: (("extents", None), ("condition", None), ("buffer_var", DEF)),
    tir.DeclBuffer: (("buffer", DEF),),
    tir.AttrStmt: (("node", DEF),),
    tir.IterVar: (("dom", USE), ("var", DEF)),
    tir.SBlock: (("iter_vars", None), ("alloc_buffers", DEF), ("match_buffers", None),
                 ("reads", USE), ("writes", USE)),
    tir.PrimFunc: (("params", DEF), ("buffer_map", DEF)),
    IndexMap: (("params", DEF),),
}


# --------------------------------------------------------------------------------------
# Leaves and their normal forms
# --------------------------------------------------------------------------------------

_RAW, _NORM, _SUB = range(3)  # a leaf compared as is / normalised first / a sub-node

_SUB_MARK = object()  # stands in an atom list for a field walked as a child
_NAN = ("nan",)       # every NaN float normalises to this


class _Scope:
    """Marks the start of a module function: variable pairings start afresh."""


_SCOPE = _Scope()


class _Unhashable:
    """An unhashable leaf of unknown type: compared by ``==``, hashed by its type."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unhashable) and bool(self.value == other.value)

    def __hash__(self) -> int:
        return hash(type(self.value))


_KINDS: dict[type, int] = {type(None): _RAW, int: _RAW, str: _RAW, DataType: _RAW}


def _kind(t: type) -> int:
    k = _KINDS.get(t)
    if k is None:
        is_node = dataclasses.is_dataclass(t) or issubclass(t, (tuple, list, dict))
        k = _KINDS[t] = _SUB if is_node else _NORM
    return k


def _normalize(v: Any) -> Any:
    """A value that is ``==`` (and hashes equal) exactly when the leaves are equal:
    tagged by type so that ``True``, ``1`` and ``1.0`` differ, NaN equal to NaN, and
    arrays by dtype, shape and bytes."""
    t = type(v)
    if t is float:
        return _NAN if v != v else (float, v)
    if t is np.ndarray:
        return (np.ndarray, v.dtype.name, v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, np.generic):
        return (t, v.tobytes())
    try:
        hash(v)
    except TypeError:
        return (t, _Unhashable(v))
    return (t, v)


# --------------------------------------------------------------------------------------
# How each node type is walked: a dispatch table built on first use of a type
# --------------------------------------------------------------------------------------

# A child of a node: (path segment, value, mode). A segment is a field name, an index,
# or a (field or None, key) pair for mapping entries.
Child = tuple[Any, Any, int]
Expand = Callable[[Any, int], tuple[list, list[Child]]]


@dataclasses.dataclass(frozen=True, slots=True)
class _Walk:
    """How to walk one node type: ``expand(x, mode)`` gives its atoms (leaf values, in
    normal form, compared with ``==``) and its children; ``fields`` names the atoms of a
    dataclass node; ``binder`` marks Vars and Buffers."""

    expand: Expand
    binder: bool = False
    fields: tuple[str, ...] = ()
    # ``compare(a, b, mode, path, stack)``: whether two nodes of the type have equal
    # leaves, their children pushed on ``stack`` when they have (nothing pushed
    # otherwise). The equality's fast path: both sides in one loop, no lists of leaves.
    compare: Callable[..., bool] | None = None


def _split(pairs, mode: int, atoms: list) -> list[Child]:
    """Append the leaves of ``pairs`` (segment, value) to ``atoms``; return children."""
    children = []
    for seg, v in pairs:
        k = _KINDS.get(type(v))
        if k is None:
            k = _kind(type(v))
        if k == _RAW:
            atoms.append(v)
        elif k == _SUB:
            atoms.append(_SUB_MARK)
            children.append((seg, v, mode))
        else:
            atoms.append(_normalize(v))
    return children


def _node_walk(cls: type) -> _Walk:
    ignored = {"span"}
    for base in cls.__mro__:
        ignored.update(_IGNORED_FIELDS.get(base, ()))
    declared = [f.name for f in dataclasses.fields(cls) if f.name not in ignored]
    rules: dict[str, int | None] = {}
    for base in reversed(cls.__mro__):
        rules.update(dict(_FIELD_RULES.get(base, ())))
    ordered = [n for n in rules if n in declared] + [n for n in declared if n not in rules]
    names = tuple(ordered)
    overrides = tuple(rules.get(n) for n in ordered)
    if len(names) == 1:
        only = names[0]
        values_of = lambda x: (getattr(x, only),)  # noqa: E731
    else:
        values_of = operator.attrgetter(*names) if names else (lambda x: ())

    def expand(x: Any, mode: int) -> tuple[list, list[Child]]:
        inherited = _COLLAPSE[mode]
        atoms: list = []
        children: list[Child] = []
        for name, override, v in zip(names, overrides, values_of(x)):
            k = _KINDS.get(type(v))
            if k is None:
                k = _kind(type(v))
            if k == _RAW:
                atoms.append(v)
            elif k == _SUB:
                atoms.append(_SUB_MARK)
                children.append((name, v, inherited if override is None else override))
            else:
                atoms.append(_normalize(v))
        return atoms, children

    def compare(a: Any, b: Any, mode: int, path: Path, stack: list) -> bool:
        inherited = _COLLAPSE[mode]
        children = []
        for name, override, va, vb in zip(names, overrides, values_of(a), values_of(b)):
            closed = _CLOSED.get(type(va))
            if closed is not None and type(vb) is type(va):
                if closed(va, vb):
                    continue  # equal, and nothing inside to pair: not walked
                return False
            if not _same_leaf(va, vb):
                return False
            if _KINDS[type(va)] == _SUB:
                children.append((va, vb, inherited if override is None else override,
                                 (path, name)))
        stack.extend(reversed(children))
        return True

    return _Walk(expand, binder=issubclass(cls, _BINDERS), fields=tuple(ordered),
                 compare=compare)


# Node types with no binder inside, and a test that two of them are equal (False may also
# mean "not decided here": the general walk then decides).
_CLOSED: dict[type, Callable[[Any, Any], bool]] = {
    pe.IntImm: lambda a, b: (type(a.value) is int and type(b.value) is int
                             and a.value == b.value and type(a.dtype) is DataType
                             and type(b.dtype) is DataType and a.dtype == b.dtype),
    rx.GlobalVar: lambda a, b: type(a.name_hint) is str and a.name_hint == b.name_hint,
    rx.Op: lambda a, b: type(a.name) is str and a.name == b.name,
}


def _same_leaf(va: Any, vb: Any) -> bool:
    """Whether two field values give the same leaf (both children count as the same: a
    mark; they are compared when walked)."""
    t = type(va)
    k = _KINDS.get(t)
    if k is None:
        k = _kind(t)
    if t is not type(vb):
        kb = _KINDS.get(type(vb))
        if kb is None:
            kb = _kind(type(vb))
        atom_a = va if k == _RAW else _SUB_MARK if k == _SUB else _normalize(va)
        atom_b = vb if kb == _RAW else _SUB_MARK if kb == _SUB else _normalize(vb)
        return atom_a is atom_b or atom_a == atom_b
    if k == _RAW:
        return va is vb or va == vb
    if k == _SUB:
        return True
    return _normalize(va) == _normalize(vb)


def _expand_seq(x: Any, mode: int) -> tuple[list, list[Child]]:
    # Elements keep the mode (BIND_* included): ``params`` tuples define each element.
    atoms: list = [len(x)]
    return atoms, _split(enumerate(x), mode, atoms)


def _compare_seq(a: Any, b: Any, mode: int, path: Path, stack: list) -> bool:
    if len(a) != len(b):
        return False
    children = []
    for i, (va, vb) in enumerate(zip(a, b)):
        closed = _CLOSED.get(type(va))
        if closed is not None and type(vb) is type(va):
            if closed(va, vb):
                continue
            return False
        if not _same_leaf(va, vb):
            return False
        if _KINDS[type(va)] == _SUB:
            children.append((va, vb, mode, (path, i)))
    stack.extend(reversed(children))
    return True


def _sorted_pairs(pairs) -> list[tuple[Any, Any]]:
    try:
        return sorted(pairs, key=lambda kv: kv[0])
    except TypeError:  # keys of mixed types: any fixed order will do
        return sorted(pairs, key=lambda kv: (type(kv[0]).__name__, repr(kv[0])))


def _expand_mapping(pairs, field: str | None, mode: int) -> tuple[list, list[Child]]:
    items = _sorted_pairs(pairs)
    atoms: list = [tuple(k for k, _ in items)]
    return atoms, _split((((field, k), v) for k, v in items), _COLLAPSE[mode], atoms)


def _expand_attrs(x: rx.Attrs, mode: int) -> tuple[list, list[Child]]:
    return _expand_mapping(x.items, None, mode)


def _compare_attrs(a: rx.Attrs, b: rx.Attrs, mode: int, path: Path, stack: list) -> bool:
    return not a.items and not b.items  # the common case; others take the general walk


def _expand_dict(x: dict, mode: int) -> tuple[list, list[Child]]:
    return _expand_mapping(x.items(), None, mode)


def _expand_module(x: rx.IRModule, mode: int) -> tuple[list, list[Child]]:
    names = sorted(x.functions)
    children: list[Child] = [("attrs", x.attrs, USE), ("global_infos", x.global_infos, USE)]
    for name in names:
        children.append((("functions", name), _SCOPE, USE))
        children.append((("functions", name), x.functions[name], USE))
    return [tuple(names)], children


_WALKS: dict[type, _Walk] = {
    rx.Attrs: _Walk(_expand_attrs, compare=_compare_attrs),
    rx.IRModule: _Walk(_expand_module),
}


def _walk_of(t: type) -> _Walk:
    w = _WALKS.get(t)
    if w is None:
        if issubclass(t, (tuple, list)):
            w = _Walk(_expand_seq, compare=_compare_seq)
        elif issubclass(t, dict):
            w = _Walk(_expand_dict)
        elif dataclasses.is_dataclass(t):
            w = _node_walk(t)
        else:  # a leaf at the root of a comparison
            w = _Walk(lambda x, mode: ([_normalize(x)], []))
        _WALKS[t] = w
    return w


# --------------------------------------------------------------------------------------
# Equality
# --------------------------------------------------------------------------------------

# A path is a linked list (parent, segment), rendered only when a difference is found.
Path = tuple[Any, Any] | None


class _Mismatch(Exception):
    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        where = _render_path(self.path)
        return f"{where}: {self.message}" if where else self.message


class _StructuralEqual:
    """Walks two IR trees in lockstep, pairing binders as it meets them."""

    def __init__(self, map_free_vars: bool) -> None:
        self.map_free_vars = map_free_vars
        self.fwd: dict[int, Any] = {}  # id(lhs binder) -> rhs binder
        self.bwd: dict[int, Any] = {}  # id(rhs binder) -> lhs binder

    def run(self, lhs: Any, rhs: Any) -> None:
        """Return quietly when equal; raise _Mismatch at the first difference."""
        fwd, bwd = self.fwd, self.bwd
        stack: list[tuple[Any, Any, int, Path]] = [(lhs, rhs, USE, None)]
        while stack:
            a, b, mode, path = stack.pop()
            if a is _SCOPE:
                fwd.clear()
                bwd.clear()
                continue
            t = type(a)
            if t is not type(b):
                raise _Mismatch(path, f"{_describe(a)} vs {_describe(b)}")
            walk = _WALKS.get(t) or _walk_of(t)
            if walk.binder:
                known = fwd.get(id(a))
                if known is not None or id(b) in bwd:
                    if known is b:
                        continue
                    raise _Mismatch(path, self._pairing_message(a, b))
                if mode == USE and not self.map_free_vars and a is not b:
                    raise _Mismatch(path, f"{_describe(a)} vs {_describe(b)} "
                                          "(free variables, not the same object)")
                fwd[id(a)] = b
                bwd[id(b)] = a
            if walk.compare is not None and walk.compare(a, b, mode, path, stack):
                continue
            atoms_a, children_a = walk.expand(a, mode)
            atoms_b, children_b = walk.expand(b, mode)
            if atoms_a != atoms_b:
                seg, message = _atoms_difference(a, b, walk, atoms_a, atoms_b)
                raise _Mismatch(path if seg is None else (path, seg), message)
            for (seg, ca, m), (_, cb, _) in zip(reversed(children_a), reversed(children_b)):
                stack.append((ca, cb, m, (path, seg)))

    def _pairing_message(self, a: Any, b: Any) -> str:
        known_a, known_b = self.fwd.get(id(a)), self.bwd.get(id(b))
        why = (f"the left {_describe(a)} is already paired with the right "
               f"{_describe(known_a)}" if known_a is not None else
               f"the right {_describe(b)} is already paired with the left "
               f"{_describe(known_b)}")
        return f"{_describe(a)} vs {_describe(b)} ({why})"


def structural_equal(lhs: Any, rhs: Any, *, map_free_vars: bool = False) -> bool:
    """Whether ``lhs`` and ``rhs`` are equal modulo consistent renaming of binders (see
    the module docstring). Accepts any IR: PrimExprs, StructInfo, Relax expressions,
    bindings, blocks and functions, TIR statements, Buffers, PrimFuncs, IRModules, Attrs
    and attribute values."""
    try:
        _StructuralEqual(map_free_vars).run(lhs, rhs)
    except _Mismatch:
        return False
    return True


def assert_structural_equal(lhs: Any, rhs: Any, *, map_free_vars: bool = False) -> None:
    """Raise AssertionError naming the path to the first difference, e.g.
    ``functions['main'].body.blocks[0].bindings[2].value.args[1]: Var 'x' vs Var 'y'``."""
    try:
        _StructuralEqual(map_free_vars).run(lhs, rhs)
    except _Mismatch as m:
        raise AssertionError(f"not structurally equal: {m}") from None


# --------------------------------------------------------------------------------------
# Hashing
# --------------------------------------------------------------------------------------

def structural_hash(x: Any, max_nodes: int | None = None) -> int:
    """A hash consistent with ``structural_equal`` (equal IR, equal hash): binders are
    numbered in the order they are first met, so local names play no part. With
    ``max_nodes``, only the first nodes of the walk count: still consistent, cheaper,
    and a fine bucket key where an equality test follows anyway."""
    seen: dict[int, int] = {}
    tokens: list = []
    stack: list[tuple[Any, int]] = [(x, USE)]
    budget = -1 if max_nodes is None else max_nodes
    while stack and budget != 0:
        budget -= 1
        x, mode = stack.pop()
        if x is _SCOPE:
            seen.clear()
            continue
        t = type(x)
        walk = _WALKS.get(t) or _walk_of(t)
        if walk.binder:
            index = seen.get(id(x))
            if index is not None:
                tokens.append(index)
                continue
            seen[id(x)] = len(seen)
        atoms, children = walk.expand(x, mode)
        tokens.append((t, tuple(atoms)))
        for _, c, m in reversed(children):
            stack.append((c, m))
    return hash(tuple(tokens))


# --------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------

def _render_path(path: Path) -> str:
    segs = []
    while path is not None:
        path, seg = path
        segs.append(seg)
    out = []
    for seg in reversed(segs):
        if isinstance(seg, int):
            out.append(f"[{seg}]")
        elif isinstance(seg, tuple):
            field, key = seg
            out.append(f".{field}[{key!r}]" if field else f"[{key!r}]")
        else:
            out.append(f".{seg}")
    return "".join(out).lstrip(".")


def _describe(x: Any) -> str:
    if isinstance(x, rx.Var):
        return f"{type(x).__name__} {x.name_hint!r}"
    if isinstance(x, pe.Var):
        return f"tir.Var {x.name!r}"
    if isinstance(x, tir.Buffer):
        return f"Buffer {x.name!r}"
    if isinstance(x, rx.GlobalVar):
        return f"GlobalVar {x.name_hint!r}"
    if isinstance(x, rx.Op):
        return f"Op {x.name!r}"
    if isinstance(x, np.ndarray):
        return f"array({x.dtype}, shape={x.shape})"
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of length {len(x)}"
    if isinstance(x, DataType):
        return str(x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return repr(x)
    return type(x).__name__


def _atoms_difference(a: Any, b: Any, walk: _Walk, atoms_a: list,
                      atoms_b: list) -> tuple[Any, str]:
    """The path segment and description of the first differing leaf of two nodes of one
    type (segment None: the difference is in the node itself)."""
    if isinstance(a, rx.IRModule):
        return None, f"functions {list(atoms_a[0])} vs {list(atoms_b[0])}"
    if isinstance(a, (rx.Attrs, dict)):
        if atoms_a[0] != atoms_b[0]:
            return None, f"keys {list(atoms_a[0])} vs {list(atoms_b[0])}"
        keys = atoms_a[0]
        map_a = dict(a.items if isinstance(a, rx.Attrs) else a)
        map_b = dict(b.items if isinstance(b, rx.Attrs) else b)
        for key, xa, xb in zip(keys, atoms_a[1:], atoms_b[1:]):
            if xa != xb:
                return (None, key), f"{_describe(map_a[key])} vs {_describe(map_b[key])}"
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return None, f"length {len(a)} vs {len(b)}"
        for i, (xa, xb) in enumerate(zip(atoms_a[1:], atoms_b[1:])):
            if xa != xb:
                return i, f"{_describe(a[i])} vs {_describe(b[i])}"
    for name, xa, xb in zip(walk.fields, atoms_a, atoms_b):
        if xa != xb:
            return name, f"{_describe(getattr(a, name))} vs {_describe(getattr(b, name))}"
    return None, f"{_describe(a)} vs {_describe(b)}"
