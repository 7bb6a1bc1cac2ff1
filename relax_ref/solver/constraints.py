"""Shape constraints in the style of BladeDISC (section 3.1): which dimensions are equal,
which shapes have the same number of elements, which dimensions are divisible by a
constant, and value ranges (spec/struct_info.md, "Symbolic expressions", SYM-shape-*).

The caller states facts as it learns them (a ``match_cast``, a reshape, an attribute such
as ``tir_var_upper_bound``). Each fact is kept twice: in union-find structures that
answer the common questions in constant time, and as an assumption of the Analyzer, which
answers everything else (SYM-shape-1).
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..ir.prim_expr import IntImm, PrimExpr, as_prim
from .analyzer import Analyzer
from .simplify import simplify, structural_key

Dims = Sequence[PrimExpr | int]


class _UnionFind:
    """Union-find over hashable keys, with path halving."""

    def __init__(self) -> None:
        self._parent: dict[object, object] = {}

    def find(self, key: object) -> object:
        parent = self._parent
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def union(self, a: object, b: object) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[ra] = rb

    def members(self, key: object) -> list[object]:
        root = self.find(key)
        return [k for k in list(self._parent) if self.find(k) == root]


class ShapeConstraints:
    """Facts about the dimensions of a function's tensors and questions about them."""

    def __init__(self, analyzer: Analyzer | None = None) -> None:
        self.analyzer = analyzer if analyzer is not None else Analyzer()
        self._dims = _UnionFind()            # dimension equality classes
        self._products = _UnionFind()        # collapse (same number of elements) classes
        self._exprs: dict[tuple, PrimExpr] = {}
        #: How many queries the union-find structures answered without the Analyzer.
        self.answered_by_classes = 0

    # ---- facts ---------------------------------------------------------------

    def add_equal_dims(self, a: PrimExpr | int, b: PrimExpr | int) -> None:
        """SYM-shape-2: the two dimensions are equal."""
        a, b = _dim(a), _dim(b)
        self._dims.union(self._dim_key(a), self._dim_key(b))
        self.analyzer.add_equal(a, b)

    def add_same_shape(self, a_dims: Dims, b_dims: Dims) -> None:
        if len(a_dims) != len(b_dims):
            raise ValueError(f"shapes of rank {len(a_dims)} and {len(b_dims)} cannot be equal")
        for a, b in zip(a_dims, b_dims):
            self.add_equal_dims(a, b)

    def add_same_num_elements(self, a_dims: Dims, b_dims: Dims) -> None:
        """SYM-shape-3 (collapse equality): prod(a_dims) == prod(b_dims), e.g. the input
        and output of a reshape."""
        self._products.union(self._product_key(a_dims), self._product_key(b_dims))
        self.analyzer.add_equal(_product(a_dims), _product(b_dims))

    def add_divisible(self, e: PrimExpr | int, k: int) -> None:
        """SYM-shape-4: ``e`` is a multiple of the constant ``k``."""
        self.analyzer.add_divisible(_dim(e), k)

    def add_range(self, e: PrimExpr | int, lo: int | None = None, hi: int | None = None) -> None:
        """SYM-shape-5: ``lo <= e <= hi`` (either end may be omitted)."""
        self.analyzer.add_bounds(_dim(e), lo, hi)

    # ---- questions ------------------------------------------------------------

    def equal_dims(self, a: PrimExpr | int, b: PrimExpr | int) -> bool:
        """True only if the two dimensions are provably equal."""
        a, b = _dim(a), _dim(b)
        if self._dims.find(self._dim_key(a)) == self._dims.find(self._dim_key(b)):
            self.answered_by_classes += 1
            return True
        return self.analyzer.prove_equal(a, b)

    def same_shape(self, a_dims: Dims, b_dims: Dims) -> bool:
        """True only if the shapes have the same rank and provably equal dimensions."""
        return len(a_dims) == len(b_dims) and all(
            self.equal_dims(a, b) for a, b in zip(a_dims, b_dims))

    def same_num_elements(self, a_dims: Dims, b_dims: Dims) -> bool:
        """True only if the two shapes provably hold the same number of elements."""
        ka, kb = self._product_key(a_dims), self._product_key(b_dims)
        if ka == kb or self._products.find(ka) == self._products.find(kb):
            self.answered_by_classes += 1
            return True
        return self.analyzer.prove_equal(_product(a_dims), _product(b_dims))

    def is_divisible(self, e: PrimExpr | int, k: int) -> bool:
        """True only if ``e`` is provably a multiple of ``k``."""
        return self.analyzer.is_divisible(_dim(e), k)

    def dim_class(self, e: PrimExpr | int) -> list[PrimExpr]:
        """The dimensions stated equal to ``e`` (``e``'s canonical form included)."""
        key = self._dim_key(_dim(e))
        return [self._exprs[k] for k in self._dims.members(key)]

    # ---- keys -------------------------------------------------------------------

    def _dim_key(self, e: PrimExpr) -> tuple:
        """Dimensions are keyed by their canonical form, so ``n*4`` and ``4*n`` meet."""
        canon = simplify(e)
        key = structural_key(canon)
        self._exprs.setdefault(key, canon)
        return key

    def _product_key(self, dims: Dims) -> tuple:
        """A shape's number of elements as (constant factor, multiset of dimension
        classes): equal keys mean equal products, whatever the order of dimensions."""
        factor = 1
        classes: Counter = Counter()
        for d in dims:
            d = simplify(_dim(d))
            if isinstance(d, IntImm):
                factor *= d.value
            else:
                classes[self._dims.find(self._dim_key(d))] += 1
        if factor == 0:
            return (0, frozenset())
        return (factor, frozenset(classes.items()))


def _dim(d: PrimExpr | int) -> PrimExpr:
    return as_prim(d)


def _product(dims: Dims) -> PrimExpr:
    out: PrimExpr = IntImm(1)
    for d in dims:
        out = out * _dim(d)
    return out
