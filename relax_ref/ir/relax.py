"""The Relax graph-level IR: expressions, bindings, blocks, functions, modules.

Nodes are immutable and compared by identity (``==``); ``ir.equal.structural_equal``
compares modulo variable renaming. ``struct_info`` on an expression is what
normalization deduced (None before that); on a ``Var`` it is the annotation, which may be
None when the text omitted it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Union

import numpy as np

from .dtype import DataType
from .prim_expr import PrimExpr
from .span import Span
from .struct_info import StructInfo

_node = dataclass(frozen=True, slots=True, eq=False)


@_node
class Expr:
    """Base of all Relax expressions."""


@_node
class Var(Expr):
    name_hint: str
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name_hint})"


@_node
class DataflowVar(Var):
    """A variable local to one dataflow block."""


@_node
class GlobalVar(Expr):
    """A reference to a function of the module, by name."""

    name_hint: str
    span: Span | None = field(default=None, kw_only=True)

    def __repr__(self) -> str:
        return f"GlobalVar({self.name_hint})"


@_node
class Op(Expr):
    """A built-in operator, by its registry name (``relax.add``, ``relax.call_tir``)."""

    name: str
    span: Span | None = field(default=None, kw_only=True)


@_node
class ExternFunc(Expr):
    """A function outside the module, found by name in the packed-function registry."""

    global_symbol: str
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class Constant(Expr):
    """A tensor constant (``R.const`` or a metadata entry). ``data`` is read-only."""

    data: np.ndarray
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.data.flags.writeable:
            frozen = np.array(self.data, copy=True)
            frozen.setflags(write=False)
            object.__setattr__(self, "data", frozen)


@_node
class Tuple(Expr):
    fields: tuple[Expr, ...]
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class TupleGetItem(Expr):
    tuple_value: Expr
    index: int
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class ShapeExpr(Expr):
    """``R.shape([n, 4])``: a shape value computed from symbolic expressions."""

    values: tuple[PrimExpr, ...]
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class PrimValue(Expr):
    """A scalar value computed from a PrimExpr (``R.prim_value(n * m)``, a bare ``0``)."""

    value: PrimExpr
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class StringImm(Expr):
    """``R.str("global")``."""

    value: str
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class DataTypeImm(Expr):
    """``R.dtype("float32")``."""

    value: DataType
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


# An attribute value: what may follow ``name=`` in an op call or a func_attr dict.
AttrValue = Union[None, bool, int, float, str, DataType, PrimExpr, StructInfo,
                  tuple, "Attrs"]


@_node
class Attrs:
    """An immutable, ordered mapping from attribute names to AttrValues."""

    items: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.items:
            if k == key:
                return v
        return default

    def __contains__(self, key: str) -> bool:
        return any(k == key for k, _ in self.items)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items)

    def __len__(self) -> int:
        return len(self.items)

    def keys(self) -> list[str]:
        return [k for k, _ in self.items]

    def with_item(self, key: str, value: Any) -> "Attrs":
        rest = tuple((k, v) for k, v in self.items if k != key)
        return Attrs(rest + ((key, value),))

    def without(self, key: str) -> "Attrs":
        return Attrs(tuple((k, v) for k, v in self.items if k != key))

    @staticmethod
    def of(mapping: dict[str, Any] | None = None) -> "Attrs":
        return Attrs(tuple((mapping or {}).items()))


EMPTY_ATTRS = Attrs()


@_node
class Call(Expr):
    """A call of an Op, a GlobalVar, a Var holding a closure, or an ExternFunc.

    ``args`` are Relax expressions; ``attrs`` the op's keyword attributes;
    ``sinfo_args`` the struct info written in the call (``out_ty=`` of call_tir,
    ``sinfo_args=`` of call_packed, ``ty_args=`` of builtin.alloc_tensor)."""

    op: Expr
    args: tuple[Expr, ...]
    attrs: Attrs = EMPTY_ATTRS
    sinfo_args: tuple[StructInfo, ...] = ()
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class If(Expr):
    """``if cond: ... else: ...``; each branch is a SeqExpr whose body is its value."""

    cond: Expr
    true_branch: "SeqExpr"
    false_branch: "SeqExpr"
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Binding:
    """Base of VarBinding and MatchCast. Weakly referenceable: normalization remembers
    which bindings it produced (NORM-incremental-1) without keeping them alive."""


@_node
class VarBinding(Binding):
    var: Var
    value: Expr
    span: Span | None = field(default=None, kw_only=True)


@_node
class MatchCast(Binding):
    """``var = R.match_cast(value, struct_info)``: checks ``value`` against the
    annotation at run time and defines the symbolic variables it introduces."""

    var: Var
    value: Expr
    struct_info: StructInfo
    span: Span | None = field(default=None, kw_only=True)


@_node
class BindingBlock:
    bindings: tuple[Binding, ...]
    span: Span | None = field(default=None, kw_only=True)


@_node
class DataflowBlock(BindingBlock):
    """``with R.dataflow():`` -- pure bindings; only ``R.output`` vars escape."""


@_node
class SeqExpr(Expr):
    blocks: tuple[BindingBlock, ...]
    body: Expr
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Function(Expr):
    """A Relax function. ``ret_struct_info`` is the written return annotation (or None);
    ``attrs`` holds ``R.func_attr`` entries; ``is_pure`` is False for
    ``@R.function(pure=False)``; ``is_private`` for ``private=True``."""

    params: tuple[Var, ...]
    body: SeqExpr
    ret_struct_info: StructInfo | None = None
    is_pure: bool = True
    attrs: Attrs = EMPTY_ATTRS
    is_private: bool = False
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, kw_only=True)


@_node
class IRModule:
    """An ordered set of named functions (Relax ``Function`` or TIR ``PrimFunc``),
    module attributes and global infos. ``functions`` is never mutated."""

    functions: dict[str, Any]
    attrs: Attrs = EMPTY_ATTRS
    global_infos: Attrs = EMPTY_ATTRS
    name: str = "Module"
    span: Span | None = field(default=None, kw_only=True)

    def __getitem__(self, name: str) -> Any:
        return self.functions[name]

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def __iter__(self) -> Iterator[str]:
        return iter(self.functions)

    def items(self):
        return self.functions.items()

    def with_functions(self, functions: dict[str, Any]) -> "IRModule":
        return IRModule(dict(functions), self.attrs, self.global_infos, self.name,
                        span=self.span)

    def script(self) -> str:
        """The module as TVMScript (TVM 0.27 dialect). The printer lives above ``ir``;
        ``relax_ref/__init__.py`` installs it (``set_script_printer``), and that file
        runs before any module of the package can be imported."""
        if _script_printer is None:
            raise RuntimeError("no TVMScript printer is installed")
        return _script_printer(self)


_script_printer = None


def set_script_printer(printer) -> None:
    """Install ``printer(IRModule) -> str`` for ``IRModule.script`` (see there)."""
    global _script_printer
    _script_printer = printer
