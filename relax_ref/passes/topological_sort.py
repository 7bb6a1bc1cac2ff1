"""TopologicalSort (TVM's name): reorder the bindings of each dataflow block by
dependency (spec/passes.md, PASS-topo-*).

The order is TVM's (PASS-topo-1). One dependency graph is built per function: a node
per variable, plus an *input* node before the parameters and the bindings that use no
variable, and an *output* node after the function's result and the unused bindings;
an edge from each variable to each binding (or result) that uses it. Each dataflow
block is then emitted by a search over that graph -- ``order`` "depth-first" (a stack)
or "breadth-first" (a queue), ``direction`` "from-inputs" (start at the input node,
follow uses; a binding is ready once everything it uses is) or "from-outputs" (start
at the output node, follow requirements backwards, then reverse) -- emitting each
binding of the block when the search reaches it.

TVM's graph has only the edges of Relax variable uses. Ours has two more kinds
(PASS-topo-2), so that a block never uses a symbolic variable before the
``match_cast`` that defines it (DESIGN.md section 7: TVM moves ``R.shape([m])`` above
the cast defining ``m``) and ordered bindings keep their order:

- from the ``match_cast`` defining a symbolic variable to every binding that mentions
  it (in its value, its annotation or its cast target);
- between consecutive *ordered* bindings of a block: ``match_cast`` (a check that may
  fail) and values with an effect (``dead_code_elimination.has_effect``).

When TVM's order already satisfies these, ours is TVM's exactly: the extra edges are
added only to a block whose TVM order breaks one (PASS-topo-3). Other blocks, and the
order of blocks, are unchanged; so are the bindings' values.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols, free_symbols

from .rewrite import has_effect
from .registry import Pass, register_pass
from .rewrite import Rewriter, finish

ORDERS = ("depth-first", "breadth-first")
DIRECTIONS = ("from-inputs", "from-outputs")


@register_pass("TopologicalSort", exact=True)
def topological_sort(mod: rx.IRModule) -> rx.IRModule:
    """PASS-topo-1..3 with TVM's defaults: depth-first, from the inputs."""
    return _run(mod, "depth-first", "from-inputs")


def topological_sort_with(order: str = "depth-first", direction: str = "from-inputs") -> Pass:
    """The pass with TVM's options (``order``, ``direction``)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    return Pass("TopologicalSort", lambda m: _run(m, order, direction), exact=True,
                doc=topological_sort.doc, options={"order": order, "direction": direction})


def _run(mod: rx.IRModule, order: str, direction: str) -> rx.IRModule:
    mod = normalize(mod)
    return finish(_Sorter(mod, order == "depth-first", direction == "from-inputs").module(mod))


class _Node:
    """The graph's input and output nodes."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


INPUT, OUTPUT = _Node("input"), _Node("output")


@dataclass
class _Graph:
    """Edges in both directions, each list in the order the uses were met (duplicates
    kept, as in TVM, since they decide the search order)."""

    down: dict = field(default_factory=dict)   # node -> the nodes that use it
    up: dict = field(default_factory=dict)     # node -> the nodes it uses

    def add(self, used, user, *, front: bool = False) -> None:
        if front:
            self.down.setdefault(used, []).insert(0, user)
            self.up.setdefault(user, []).insert(0, used)
        else:
            self.down.setdefault(used, []).append(user)
            self.up.setdefault(user, []).append(used)

    def copy(self) -> "_Graph":
        return _Graph({k: list(v) for k, v in self.down.items()},
                      {k: list(v) for k, v in self.up.items()})


class _Collector(Rewriter):
    """TVM's BindingOrderCollector: the use graph of one function, nested functions
    included (their parameters hang off the input node). A use of a variable the walk
    has not met (one a nested function captures from outside the function being
    sorted) makes no edge: it is available before the function runs."""

    def __init__(self) -> None:
        super().__init__()
        self.graph = _Graph()
        self.defined: list[rx.Var] = []   # binding variables, in the order met
        self.known: set[rx.Var] = set()
        self.current = OUTPUT

    def function(self, func: rx.Function) -> rx.Function:
        for p in func.params:
            self.known.add(p)
            self.graph.add(INPUT, p)
        self.seq(func.body)
        return func

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        saved, self.current = self.current, b.var
        self.known.add(b.var)
        self.defined.append(b.var)
        self.expr(b.value)
        self.current = saved
        return [b]

    def use(self, v: rx.Var) -> rx.Expr:
        if v in self.known:
            self.graph.add(v, self.current)
        return v

    def finish_graph(self) -> _Graph:
        g = self.graph
        zero_input = [v for v in self.defined if v not in g.up]
        unused = [v for v in self.defined if v not in g.down]
        for v in zero_input:
            g.add(INPUT, v)
        for v in reversed(unused):
            g.add(v, OUTPUT, front=True)
        return g


def _symbol_edges(func: rx.Function, g: _Graph) -> None:
    """PASS-topo-2, first kind: definer of a symbolic variable -> its users."""
    definer: dict[int, rx.Var] = {}

    class _Walk(Rewriter):
        def binding(self, b: rx.Binding) -> list[rx.Binding]:
            self.expr(b.value)
            mentioned = _symbols_of_binding(b)
            if isinstance(b, rx.MatchCast):
                for s in defined_symbols([b.struct_info]):
                    definer.setdefault(id(s), b.var)
            for s in mentioned:
                d = definer.get(id(s))
                if d is not None and d is not b.var:
                    g.add(d, b.var)
            return [b]

    _Walk().function(func)


def _symbols_of_binding(b: rx.Binding) -> list[P.Var]:
    out: list[P.Var] = []
    if b.var.struct_info is not None:
        out.extend(free_symbols(b.var.struct_info))
    if isinstance(b, rx.MatchCast):
        out.extend(free_symbols(b.struct_info))
    out.extend(_symbols_in_value(b.value))
    return out


def _symbols_in_value(e: rx.Expr) -> list[P.Var]:
    """Symbolic variables a value mentions: shape and prim values, call struct info
    arguments, nested functions' annotations (variables of PrimFuncs are their own)."""
    out: list[P.Var] = []

    class _Walk(Rewriter):
        def expr(self, x):
            if isinstance(x, rx.ShapeExpr):
                for d in x.values:
                    out.extend(P.free_vars(d))
            elif isinstance(x, rx.PrimValue):
                out.extend(P.free_vars(x.value))
            return super().expr(x)

        def call(self, x):
            for s in x.sinfo_args:
                out.extend(free_symbols(s))
            return super().call(x)

        def binding(self, b):
            out.extend(_symbols_of_binding(b))
            return [b]

        def function(self, func):
            for p in func.params:
                if p.struct_info is not None:
                    out.extend(free_symbols(p.struct_info))
            if func.ret_struct_info is not None:
                out.extend(free_symbols(func.ret_struct_info))
            return super().function(func)

    _Walk().expr(e)
    return out


class _Sorter(Rewriter):
    def __init__(self, mod: rx.IRModule, depth_first: bool, from_inputs: bool):
        super().__init__()
        self.mod = mod
        self.depth_first = depth_first
        self.from_inputs = from_inputs
        self.graph: _Graph | None = None
        self.checked: _Graph | None = None   # with the PASS-topo-2 edges

    def function(self, func: rx.Function) -> rx.Function:
        saved = (self.graph, self.checked)
        collector = _Collector()
        collector.function(func)
        self.graph = collector.finish_graph()
        if self.depth_first:
            for users in self.graph.down.values():
                users.reverse()
        self.checked = self.graph.copy()
        _symbol_edges(func, self.checked)
        out = super().function(func)
        self.graph, self.checked = saved
        return out

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        if isinstance(block, rx.DataflowBlock) and len(block.bindings) > 1:
            bindings = self._order(block.bindings, self.graph)
            if not self._respects_constraints(bindings, block.bindings):
                graph = self.checked.copy()
                ordered = [b.var for b in block.bindings if _is_ordered(b, self.mod)]
                for a, b in zip(ordered, ordered[1:]):
                    graph.add(a, b)
                bindings = self._order(block.bindings, graph)
            if any(a is not b for a, b in zip(bindings, block.bindings)):
                block = rx.DataflowBlock(tuple(bindings), span=block.span)
        return super().block(block)

    def _order(self, bindings, graph: _Graph) -> list[rx.Binding]:
        """TVM's search over ``graph``, emitting the bindings of one block."""
        to_emit = {b.var: b for b in bindings}
        forward = graph.down if self.from_inputs else graph.up
        backward = graph.up if self.from_inputs else graph.down
        todo = deque([INPUT if self.from_inputs else OUTPUT])
        visited: set = set()
        out: list[rx.Binding] = []
        while todo:
            node = todo.pop() if self.depth_first else todo.popleft()
            b = to_emit.pop(node, None)
            if b is not None:
                out.append(b)
            visited.add(node)
            for nxt in forward.get(node, ()):
                if nxt in visited:
                    continue
                if all(p in visited for p in backward.get(nxt, ())):
                    todo.append(nxt)
        if to_emit:
            # A cycle or an unreachable binding: cannot happen in well-formed IR, whose
            # uses all follow definitions; keep the block as it was.
            return list(bindings)
        if not self.from_inputs:
            out.reverse()
        return out

    def _respects_constraints(self, bindings: list[rx.Binding], original) -> bool:
        """Whether TVM's order keeps every symbolic definition before its uses and
        the ordered bindings in their original order (PASS-topo-2)."""
        position = {b.var: i for i, b in enumerate(bindings)}
        for b in bindings:
            for used in self.checked.up.get(b.var, ()):
                if used in position and position[used] > position[b.var]:
                    return False
        now = [b for b in bindings if _is_ordered(b, self.mod)]
        before = [b for b in original if _is_ordered(b, self.mod)]
        return all(a is b for a, b in zip(now, before))


def _is_ordered(b: rx.Binding, mod: rx.IRModule) -> bool:
    return isinstance(b, rx.MatchCast) or has_effect(b.value, mod)
