"""The dataflow graph of a Relax function as Graphviz DOT text (``relax-ref graph``,
spec/api.md CLI-graph-1).

One node per parameter and per binding (its variable, what it computes and its shape);
an edge from each value a binding reads. A binding that calls a fused function (a
private function with the ``Primitive`` attribute, as FuseOps makes) is drawn as a box
named after the kernel, holding the fused function's own bindings, with the edges going
to the bindings that read each argument. A ``call_tir`` names its PrimFunc (after
FuseTIR, a fused kernel). The text needs nothing to be written; rendering it (SVG) needs
Graphviz's ``dot``.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir.call_kinds import call_kind
from relax_ref.ir import struct_info as si
from relax_ref.ir.text import print_prim_expr, print_struct_info


def _quote(text: str) -> str:
    """A DOT string; a line break is DOT's ``\\n``."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _what(value: rx.Expr) -> str:
    """A short name of what a binding computes."""
    if isinstance(value, rx.Call):
        op = value.op
        if isinstance(op, rx.Op):
            name = op.name.replace("relax.", "R.")
            callee = value.args[0] if value.args else None
            kind = call_kind(op.name)
            if kind.tir_callee and isinstance(callee, rx.GlobalVar):
                return f"{name} {callee.name_hint}"
            if (kind.packed or kind.dps) and isinstance(callee, rx.ExternFunc):
                return f"{name} {callee.global_symbol}"
            return name
        if isinstance(op, rx.GlobalVar):
            return op.name_hint
        if isinstance(op, rx.ExternFunc):
            return op.global_symbol
        return "call"
    if isinstance(value, rx.TupleGetItem):
        return f"[{value.index}]"
    return type(value).__name__


def _shape(var: rx.Var) -> str:
    """``(b, 16) float32`` for a tensor; the struct info's text otherwise."""
    s = var.struct_info
    if isinstance(s, si.TensorStructInfo) and s.shape is not None:
        dims = ", ".join(print_prim_expr(d) for d in s.shape)
        return f"({dims}{',' if len(s.shape) == 1 else ''}) {s.dtype}"
    return "" if s is None else print_struct_info(s)


class _Dot:
    def __init__(self, mod: rx.IRModule) -> None:
        self.mod = mod
        self.lines: list[str] = []
        self.ids: dict[int, str] = {}  # Relax variable -> node id
        self.count = 0
        self.kernels = 0

    def node(self, label: str, shape: str = "box", indent: str = "  ") -> str:
        self.count += 1
        nid = f"n{self.count}"
        self.lines.append(f"{indent}{nid} [label={_quote(label)}, shape={shape}];")
        return nid

    def edges_from(self, value: rx.Expr, to: str, indent: str = "  ",
                   alias: dict[int, str] | None = None) -> None:
        seen: set[str] = set()

        def walk(e) -> None:
            if isinstance(e, rx.Var):
                src = (alias or {}).get(id(e)) or self.ids.get(id(e))
                if src is not None and src not in seen:
                    seen.add(src)
                    self.lines.append(f"{indent}{src} -> {to};")
            elif isinstance(e, rx.Call):
                for a in e.args:
                    walk(a)
            elif isinstance(e, rx.Tuple):
                for f in e.fields:
                    walk(f)
            elif isinstance(e, rx.TupleGetItem):
                walk(e.tuple_value)

        walk(value)

    def function(self, func: rx.Function) -> None:
        for p in func.params:
            self.ids[id(p)] = self.node(f"{p.name_hint}\n{_shape(p)}", "ellipse")
        self.seq(func.body)
        ret = func.body.body
        out = self.node("return", "doublecircle")
        self.edges_from(ret, out)

    def seq(self, body: rx.SeqExpr) -> None:
        for block in body.blocks:
            for b in block.bindings:
                self.binding(b)

    def binding(self, b: rx.Binding) -> None:
        value = b.value
        fused = self.fused(value)
        if fused is not None:
            self.ids[id(b.var)] = self.cluster(b, value, fused)
            return
        label = f"{b.var.name_hint} = {_what(value)}"
        if isinstance(b, rx.MatchCast):
            label = f"{b.var.name_hint} = match_cast"
        shape = _shape(b.var)
        nid = self.node(f"{label}\n{shape}" if shape else label)
        self.edges_from(value, nid)
        self.ids[id(b.var)] = nid

    def fused(self, value: rx.Expr) -> rx.Function | None:
        if isinstance(value, rx.Call) and isinstance(value.op, rx.GlobalVar):
            f = self.mod.functions.get(value.op.name_hint)
            if isinstance(f, rx.Function) and f.attrs.get("Primitive"):
                return f
        return None

    def cluster(self, b: rx.Binding, call: rx.Call, func: rx.Function) -> str:
        """The fused function's bindings in a box named after the kernel; the id of the
        node that produces its result."""
        self.kernels += 1
        name = call.op.name_hint
        self.lines.append(f"  subgraph cluster_{self.kernels} {{")
        self.lines.append(f"    label={_quote(name)}; style=rounded; color=blue;")
        alias: dict[int, str] = {}
        for param, arg in zip(func.params, call.args):
            srcs = self._sources(arg)
            if len(srcs) == 1:
                alias[id(param)] = srcs[0]
        inner: dict[int, str] = {}
        for block in func.body.blocks:
            for ib in block.bindings:
                nid = self.node(f"{ib.var.name_hint} = {_what(ib.value)}\n{_shape(ib.var)}",
                                indent="    ")
                self.edges_from(ib.value, nid, indent="    ", alias={**alias, **inner})
                inner[id(ib.var)] = nid
        self.lines.append("  }")
        ret = func.body.body
        if isinstance(ret, rx.Var) and id(ret) in inner:
            return inner[id(ret)]
        out = self.node(f"{b.var.name_hint}\n{_shape(b.var)}", "point")
        self.edges_from(ret, out, alias={**alias, **inner})
        return out

    def _sources(self, e: rx.Expr) -> list[str]:
        if isinstance(e, rx.Var) and id(e) in self.ids:
            return [self.ids[id(e)]]
        return []


def dataflow_dot(mod: rx.IRModule, entry: str = "main") -> str:
    """The DOT text of ``entry``'s dataflow graph (CLI-graph-1)."""
    func = mod.functions.get(entry)
    if not isinstance(func, rx.Function):
        raise KeyError(f"no Relax function named {entry!r}")
    dot = _Dot(mod)
    dot.function(func)
    head = [f"digraph {_quote(entry)} {{", "  rankdir=TB;",
            '  node [fontname="Helvetica", fontsize=10];']
    return "\n".join(head + dot.lines + ["}"]) + "\n"
