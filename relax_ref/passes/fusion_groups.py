"""Which bindings of a dataflow block FuseOps puts together (spec/passes.md, PASS-fuse-1..4;
paper Algorithm 2, the post-dominator grouping Relay introduced).

The block becomes a graph: one node per binding, in program order (which is a topological
order), an edge from a binding to each binding that reads its variable as an argument
(PASS-fuse-1). Each node's immediate post-dominator, the nearest node that every path from
it to the block's results passes through, is the least common ancestor of its consumers
in the post-dominator tree; a node whose variable leaves the block has none. A node then
joins its post-dominator's group when every node on the paths between them has a kind the
rules allow (PASS-fuse-2, -3), in three phases as TVM runs them. Groups are a union-find
over node indices.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.call_kinds import call_kind

from .op_pattern import OpPattern
from .rewrite import Rewriter

ELEM_WISE, BROADCAST, INJECTIVE = OpPattern.ELEM_WISE, OpPattern.BROADCAST, OpPattern.INJECTIVE
COMM_REDUCE, OUT_EWISE_FUSABLE = OpPattern.COMM_REDUCE, OpPattern.OUT_EWISE_FUSABLE
TUPLE, OPAQUE = OpPattern.TUPLE, OpPattern.OPAQUE

#: TVM's default for ``relax.FuseOps.max_depth``: the most bindings in one group.
MAX_FUSE_DEPTH = 256



@dataclass
class Node:
    pattern: OpPattern
    extern_ref: bool  # its variable is visible after the block (PASS-fuse-1)
    outputs: list[tuple[int, OpPattern]] = field(default_factory=list)


def call_tir_parts(value: rx.Expr, mod: rx.IRModule):
    """(PrimFunc name, argument tuple) of a ``call_tir`` of a PrimFunc of ``mod`` with a
    literal argument tuple; None otherwise."""
    if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
            and call_kind(value.op.name).tir_callee and len(value.args) >= 2):
        return None
    callee, args = value.args[0], value.args[1]
    if not (isinstance(callee, rx.GlobalVar) and isinstance(args, rx.Tuple)
            and isinstance(mod.functions.get(callee.name_hint), tir.PrimFunc)):
        return None
    return callee.name_hint, args


def prim_func_pattern(func: tir.PrimFunc) -> OpPattern:
    """PASS-fuse-1: the ``op_pattern`` attribute; Opaque where it is absent or unknown."""
    value = func.attrs.get("op_pattern")
    try:
        return OpPattern(int(value)) if value is not None else OPAQUE
    except (TypeError, ValueError):
        return OPAQUE


def block_graph(bindings, mod: rx.IRModule, weight_params: set[int]) -> list[Node]:
    """PASS-fuse-1: the graph of a dataflow block, one node per binding.
    ``weight_params``: ids of the function's parameters past its ``num_input``."""
    index = {id(b.var): i for i, b in enumerate(bindings)}
    nodes: list[Node] = []
    patterns: dict[str, OpPattern] = {}  # PrimFunc name -> its kind, read once

    def edge(e: rx.Expr, to: int, pattern: OpPattern) -> None:
        _edge(nodes, index, e, to, pattern)

    for i, b in enumerate(bindings):
        if isinstance(b, rx.MatchCast):  # Opaque, and TVM draws no edge into it
            nodes.append(Node(OPAQUE, False))
            continue
        node = Node(OPAQUE, not isinstance(b.var, rx.DataflowVar))
        nodes.append(node)
        value = b.value
        parts = call_tir_parts(value, mod)
        if parts is not None:
            pattern = patterns.get(parts[0])
            if pattern is None:
                pattern = patterns[parts[0]] = prim_func_pattern(mod.functions[parts[0]])
            node.pattern = pattern
            for arg in parts[1].fields:
                edge(arg, i, node.pattern)
        elif isinstance(value, rx.Call):  # its arguments only (not a callee variable)
            for arg in value.args:
                edge(arg, i, OPAQUE)
        elif isinstance(value, rx.TupleGetItem):
            t = value.tuple_value
            node.pattern = OPAQUE if isinstance(t, rx.Var) and id(t) in weight_params \
                else INJECTIVE
            edge(t, i, node.pattern)
        else:
            for v in _vars_in(value):
                edge(v, i, OPAQUE)
    return nodes


def _edge(nodes: list[Node], index: dict[int, int], e: rx.Expr, to: int,
          pattern: OpPattern) -> None:
    """An edge into node ``to`` from each binding of the block ``e`` reads (through
    tuples)."""
    if isinstance(e, rx.Tuple):
        for f in e.fields:
            _edge(nodes, index, f, to, pattern)
    elif isinstance(e, rx.Var) and id(e) in index:
        nodes[index[id(e)]].outputs.append((to, pattern))


def _vars_in(e: rx.Expr) -> list[rx.Var]:
    walk = _VarUses()
    walk.expr(e)
    return walk.found


class _VarUses(Rewriter):
    """Every use of a variable, in the order the traversal meets them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[rx.Var] = []

    def use(self, v):
        self.found.append(v)
        return v


# -- the post-dominator tree ---------------------------------------------------------------------

@dataclass
class _TreeNode:
    parent: int | None
    depth: int
    pattern: OpPattern  # the loosest edge kind on the way to the parent


def post_dominators(nodes: list[Node]) -> list[_TreeNode]:
    """PASS-fuse-2: each node's immediate post-dominator, as a tree built from the last node
    back (each node's consumers come after it)."""
    tree: list[_TreeNode | None] = [None] * len(nodes)

    def lca(a: int | None, b: int | None, worst: list) -> int | None:
        while a != b:
            if a is None or b is None:
                return None
            ta, tb = tree[a], tree[b]
            if ta.depth < tb.depth:
                worst[0] = max(worst[0], tb.pattern)
                b = tb.parent
            elif tb.depth < ta.depth:
                worst[0] = max(worst[0], ta.pattern)
                a = ta.parent
            else:
                worst[0] = max(worst[0], ta.pattern, tb.pattern)
                a, b = ta.parent, tb.parent
        return a

    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        if node.extern_ref or not node.outputs:
            # A node seen after the block, or one nobody reads, has no post-dominator here.
            tree[i] = _TreeNode(None, 1, OPAQUE if node.extern_ref else ELEM_WISE)
            continue
        worst = [ELEM_WISE]
        parent, pattern = node.outputs[0]
        worst[0] = max(worst[0], pattern)
        for out, pattern in node.outputs[1:]:
            parent = lca(parent, out, worst)
            worst[0] = max(worst[0], pattern)
        depth = tree[parent].depth + 1 if parent is not None else 1
        tree[i] = _TreeNode(parent, depth, worst[0])  # a kind: max of kinds
    return tree


# -- grouping ------------------------------------------------------------------------------------

class _Groups:
    """Union-find over node indices; each index keeps its own record, as TVM's groups do
    (a record's kind changes only when a group with a matmul-like anchor joins it)."""

    def __init__(self, nodes: list[Node]):
        self.parent: list[int | None] = [None] * len(nodes)
        self.pattern = [n.pattern for n in nodes]
        self.size = [1] * len(nodes)
        self.anchor = [n.pattern == OUT_EWISE_FUSABLE for n in nodes]

    def root(self, i: int) -> int:
        r = i
        while self.parent[r] is not None:
            r = self.parent[r]
        while self.parent[i] is not None and self.parent[i] != r:
            self.parent[i], i = r, self.parent[i]
        return r

    def merge(self, child: int, parent: int) -> None:
        child, parent = self.root(child), self.root(parent)
        if child == parent:
            return
        self.size[parent] += self.size[child]
        self.parent[child] = parent
        if self.anchor[child]:
            self.anchor[parent] = True
            self.pattern[parent] = max(self.pattern[child], self.pattern[parent])


# The recursive walks of ``partition`` (module functions, so that no closure refers to
# itself: passes run with cycle collection paused, PASS-pipe-2).

def _path_ok(nodes: list[Node], groups: _Groups, i: int, sink: int, ok,
             seen: set[int]) -> bool:
    """Every node from ``i`` to ``sink`` (both included) has a kind ``ok`` allows."""
    if i in seen:
        return True
    seen.add(i)
    if not ok(groups.pattern[groups.root(i)], i == sink):
        return False
    if i == sink:
        return True
    return all(_path_ok(nodes, groups, o, sink, ok, seen) for o, _ in nodes[i].outputs)


def _count_upto_sink(nodes: list[Node], groups: _Groups, i: int, sink: int,
                     seen: set[int]) -> int:
    """The sizes of the nodes from ``i`` up to ``sink`` (excluded), as TVM counts them."""
    if i == sink or i in seen:
        return 0
    seen.add(i)
    return groups.size[i] + sum(_count_upto_sink(nodes, groups, o, sink, seen)
                                for o, _ in nodes[i].outputs)


def partition(nodes: list[Node], max_fuse_depth: int = MAX_FUSE_DEPTH) -> list[int]:
    """PASS-fuse-2, -3: the group (a root node index) of each node."""
    groups = _Groups(nodes)
    tree = post_dominators(nodes)

    def check_path(src: int, sink: int, ok) -> bool:
        seen: set[int] = set()
        return all(_path_ok(nodes, groups, o, sink, ok, seen) for o, _ in nodes[src].outputs)

    def commit(src: int, sink: int) -> None:
        target = sink
        seen: set[int] = set()
        pending = [src]
        while pending:
            i = pending.pop()
            if i == sink or i in seen:
                continue
            seen.add(i)
            groups.merge(i, target)
            pending.extend(o for o, _ in nodes[i].outputs)

    def count_upto_sink(src: int, sink: int) -> int:
        return _count_upto_sink(nodes, groups, src, sink, set())

    def fits(i: int, parent: int) -> bool:
        """PASS-fuse-3: TVM's max fuse depth. Asked only of a fusion about to be made:
        it changes nothing, so asking it last decides the same."""
        return groups.size[groups.root(parent)] + count_upto_sink(i, parent) <= max_fuse_depth

    for phase in range(3):
        for i, node in enumerate(nodes):
            kind = groups.pattern[i]
            if kind == OPAQUE:
                continue
            parent = tree[i].parent
            if parent is None:
                continue
            if phase == 2:
                if kind > INJECTIVE:
                    continue
                root = groups.root(parent)
                if groups.pattern[root] == TUPLE:
                    continue
                if groups.pattern[parent] == TUPLE and groups.pattern[root] <= INJECTIVE \
                        and check_path(i, parent, lambda k, sink: k <= INJECTIVE) \
                        and fits(i, parent):
                    commit(i, parent)
                continue
            if groups.root(i) == groups.root(parent):
                continue
            if groups.pattern[parent] == TUPLE:
                continue
            if kind == OUT_EWISE_FUSABLE:
                # PASS-fuse-2 (b): a matmul-like op takes an elementwise epilogue
                if phase == 0 and tree[i].pattern == ELEM_WISE \
                        and check_path(i, parent, lambda k, sink: k <= BROADCAST) \
                        and fits(i, parent):
                    commit(i, parent)
            elif kind <= BROADCAST:
                # PASS-fuse-2 (a): into an injective or reduction consumer
                if tree[i].pattern <= INJECTIVE or tree[i].pattern == COMM_REDUCE:
                    def ok(k, sink):
                        if not sink:
                            return k <= INJECTIVE
                        return k <= INJECTIVE or k in (COMM_REDUCE, OUT_EWISE_FUSABLE)
                    if check_path(i, parent, ok) and fits(i, parent):
                        commit(i, parent)
            elif kind in (INJECTIVE, TUPLE):
                # PASS-fuse-2 (c): injective chains, in the second phase
                if phase == 1 and check_path(i, parent, lambda k, sink: k <= INJECTIVE) \
                        and fits(i, parent):
                    commit(i, parent)
    return [groups.root(i) for i in range(len(nodes))]
