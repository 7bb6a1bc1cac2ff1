"""What the generator builds a module from: tensor and tuple types over ``dims``,
values in scope, bindings, blocks, the if/else, and the generator's options.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .dims import dim_symbols, dim_text


FLOATS = ("float32", "float16")
NUMERIC = ("float32", "float16", "int32")


@dataclass(frozen=True)
class TensorType:
    shape: tuple
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def symbols(self) -> set[str]:
        return set().union(*(dim_symbols(d) for d in self.shape)) if self.shape else set()

    def text(self) -> str:
        dims = ", ".join(dim_text(d) for d in self.shape)
        if len(self.shape) == 1:
            dims += ","
        return f'R.Tensor(({dims}), dtype="{self.dtype}")'


@dataclass(frozen=True)
class TupleType:
    fields: tuple

    def symbols(self) -> set[str]:
        return set().union(*(f.symbols() for f in self.fields)) if self.fields else set()

    def text(self) -> str:
        return "R.Tuple(" + ", ".join(f.text() for f in self.fields) + ")"


@dataclass(frozen=True)
class OpaqueType:
    """A value the generator does not track (a shape, a scalar, a tensor of unknown
    shape): its struct info's text, over no symbols but those of main's parameters."""

    annotation: str

    def symbols(self) -> set[str]:
        return set()

    def text(self) -> str:
        return self.annotation


@dataclass
class Value:
    name: str
    type: object  # TensorType | TupleType

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.type, TensorType)


@dataclass
class Binding:
    var: str
    type: object
    rhs: str
    uses: tuple[str, ...]


@dataclass
class Block:
    dataflow: bool
    bindings: list[Binding] = field(default_factory=list)


@dataclass
class IfStmt:
    cond: str
    result: str
    branches: tuple[list[Binding], list[Binding]]
    type: object


@dataclass(frozen=True)
class GenOptions:
    """Size limits of generated modules."""

    max_bindings: int = 12      # in the first block of main
    max_branch_bindings: int = 3
    max_second_block: int = 4
    max_params: int = 3
    max_helpers: int = 2
    max_prim_funcs: int = 3
