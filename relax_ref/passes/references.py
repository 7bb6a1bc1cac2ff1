"""Who refers to whom in a module: the callers and value uses of each function, the
functions on a reference cycle, the public functions nothing refers to (whose signature a
pass may change), and the struct info of a call operand. Shared by the passes that
inline, bind or remove parameters and outputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.uses import ExprWalker


# -- who refers to whom --------------------------------------------------------------------

@dataclass
class GlobalUses:
    """How the module's functions refer to one function: the callers of each direct
    call (one entry per call) and the functions that use it as a value."""

    calls: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)

    @property
    def only_called(self) -> bool:
        return not self.values


def unreferenced_public_functions(mod: rx.IRModule) -> list[tuple[str, rx.Function]]:
    """The public Relax functions nothing in ``mod`` calls or uses as a value: those a
    pass may change the signature of without breaking a caller."""
    uses = global_uses(mod)
    return [(name, f) for name, f in mod.functions.items()
            if isinstance(f, rx.Function) and not f.is_private
            and not (uses[name].calls or uses[name].values)]


def global_uses(mod: rx.IRModule) -> dict[str, GlobalUses]:
    """For every function name of ``mod``, who calls it and who uses it as a value
    (call_tir's callee counts as a value use)."""
    out = {name: GlobalUses() for name in mod.functions}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function):
            _References(name, out).function(func)
    return out


class _References(ExprWalker):
    """Records in ``out`` what a function refers to, as a Rewriter meets it: a GlobalVar
    met as an expression is a value use; the callee of a call is a call."""

    def __init__(self, caller: str, out: dict[str, GlobalUses]) -> None:
        self.caller, self.out = caller, out

    def leaf(self, e: rx.Expr) -> None:
        if isinstance(e, rx.GlobalVar) and e.name_hint in self.out:
            self.out[e.name_hint].values.append(self.caller)

    def call(self, e: rx.Call) -> None:
        op = e.op
        if isinstance(op, rx.GlobalVar) and op.name_hint in self.out:
            self.out[op.name_hint].calls.append(self.caller)
        super().call(e)


def recursive_functions(mod: rx.IRModule, uses: dict[str, GlobalUses] | None = None) -> set[str]:
    """The functions on a cycle of the reference graph (self-reference included)."""
    uses = uses if uses is not None else global_uses(mod)
    edges: dict[str, set[str]] = {name: set() for name in mod.functions}
    for callee, u in uses.items():
        for caller in u.calls + u.values:
            edges[caller].add(callee)
    out: set[str] = set()
    for component in strongly_connected_components(edges):
        if len(component) > 1 or component[0] in edges[component[0]]:
            out.update(component)
    return out


def strongly_connected_components(edges: dict) -> list[list]:
    """Tarjan's strongly connected components of a graph given as node -> successors
    (every successor a key), iteratively so deep graphs cannot exhaust the stack; each
    component sorted, in the order Tarjan's algorithm completes them."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    components: list[list] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def arg_sinfo(e: rx.Expr, mod: rx.IRModule) -> si.StructInfo:
    """The struct info of a normalized call operand."""
    if isinstance(e, rx.GlobalVar):
        f = mod.functions.get(e.name_hint)
        return getattr(f, "struct_info", None) or si.ObjectStructInfo()
    return e.struct_info if e.struct_info is not None else si.ObjectStructInfo()
