"""Shape constraints, BladeDISC style (SYM-shape-*)."""
from __future__ import annotations

from relax_ref.ir.dtype import BOOL
from relax_ref.ir.prim_expr import IntImm, LE, Var
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.constraints import ShapeConstraints
from relax_ref.solver.simplify import expr_text

n, m, b, s, k, h = (Var(name) for name in ("n", "m", "b", "s", "k", "h"))


def test_dimension_equality_classes():
    sc = ShapeConstraints()
    assert not sc.same_shape([n, 4], [m, 4])
    sc.add_equal_dims(n, m)
    assert sc.same_shape([n, 4], [m, 4])
    assert sc.same_shape([n * 4], [4 * m])          # canonical keys, then the analyzer
    assert not sc.same_shape([n], [k])
    assert not sc.same_shape([n, 4], [n])           # rank differs
    assert sorted(expr_text(e) for e in sc.dim_class(m)) == ["m", "n"]


def test_equality_is_transitive():
    sc = ShapeConstraints()
    sc.add_equal_dims(n, m)
    sc.add_equal_dims(m, k)
    assert sc.equal_dims(n, k)
    assert sc.answered_by_classes >= 1


def test_collapse_equality_after_reshape():
    # reshape [b, s, 4096] -> [k, 4096] records b*s*4096 == k*4096.
    sc = ShapeConstraints()
    sc.add_same_num_elements([b, s, 4096], [k, 4096])
    assert sc.same_num_elements([b, s, 32, 128], [k, 4096])
    assert sc.same_num_elements([s, b], [k])
    assert sc.analyzer.prove_equal(k, b * s)
    assert not sc.same_num_elements([b, s], [k, 2])


def test_number_of_elements_ignores_dimension_order():
    sc = ShapeConstraints()
    assert sc.same_num_elements([n, m, 2], [2, m, n])
    assert sc.same_num_elements([n, 4, m], [m * 2, n * 2])
    assert not sc.same_num_elements([n, m], [n, n])


def test_collapse_classes_use_dimension_classes():
    sc = ShapeConstraints()
    sc.add_equal_dims(n, m)
    sc.add_same_num_elements([n, h], [k, 2])
    assert sc.same_num_elements([m, h], [2, k])


def test_divisibility_and_ranges():
    sc = ShapeConstraints()
    sc.add_divisible(s, 8)
    assert sc.is_divisible(s, 4)
    assert sc.is_divisible(s * b, 8)
    assert not sc.is_divisible(s + 4, 8)
    assert not sc.is_divisible(b, 2)
    sc.add_range(b, 1, 8)
    sc.add_range(s, hi=2048)
    assert sc.analyzer.upper_bound(b * s * 4096 * 2) == 8 * 2048 * 4096 * 2
    assert sc.analyzer.can_prove(LE(IntImm(1), b, BOOL))


def test_facts_become_analyzer_assumptions():
    an = Analyzer()
    sc = ShapeConstraints(an)
    sc.add_equal_dims(n, 16)
    assert an.prove_equal(n * 2, 32)
    assert sc.same_shape([n, n], [16, IntImm(16)])
