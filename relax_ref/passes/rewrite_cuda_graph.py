"""RewriteCUDAGraph (TVM's name; paper section 4.5): after memory planning, the storages
of static size become allocations cached across calls, and runs of kernel launches that
touch only tensors in them become capture functions the VM records once as a CUDA Graph
and replays afterwards (spec/passes.md, PASS-cudagraph-*).

    storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("float32"))
    a = R.memory.alloc_tensor(storage, 0, R.shape([2, 4]), R.dtype("float32"))
    cls.exp(x, a)
    cls.exp(a, b)                                   # b in another cached storage
    cls.exp(b, c)
becomes
    gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc",
                                 (cls.cuda_graph_alloc, R.prim_value(0)), ...)
    storage = gv[0]
    a = R.memory.alloc_tensor(storage, 0, R.shape([2, 4]), R.dtype("float32"))
    cls.exp(x, a)
    gv1 = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture",
                                  (cls.main_cuda_graph_capture, (a, b, ...), R.prim_value(0)), ...)

TVM runs it only for CUDA targets (``relax.backend.use_cuda_graph``); relax_ref runs it
when asked, and the interpreter implements the two builtins (semantics/vm_builtins.py,
EXEC-vm-cudagraph-*), so the rewrite is checked by execution.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import INT64
from relax_ref.ir.uses import walk_bindings
from relax_ref.semantics.normalize import normalize

from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import Rewriter, finish, used_var_list

ALLOC_STORAGE, ALLOC_TENSOR = "relax.memory.alloc_storage", "relax.memory.alloc_tensor"
KILL_STORAGE, KILL_TENSOR = "relax.memory.kill_storage", "relax.memory.kill_tensor"
BUILTIN_WITH_CTX = rx.Op("relax.call_builtin_with_ctx")
GET_CACHED_ALLOC = "vm.builtin.cuda_graph.get_cached_alloc"
RUN_OR_CAPTURE = "vm.builtin.cuda_graph.run_or_capture"
FORCE_PURE = rx.Attrs.of({"relax.force_pure": True})


def _op(value, *names: str) -> bool:
    return isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and value.op.name in names


def _const(e) -> bool:
    if isinstance(e, rx.ShapeExpr):
        return all(isinstance(d, P.IntImm) for d in e.values)
    if isinstance(e, rx.PrimValue):
        return isinstance(e.value, (P.IntImm, P.FloatImm))
    return isinstance(e, (rx.StringImm, rx.DataTypeImm))


def _top_bindings(func: rx.Function):
    for block in func.body.blocks:
        yield from block.bindings


@dataclass
class _Uses:
    """Where each variable is read: (op name or 'kernel', argument position), or
    'other' for any other read (a tuple, a return, a Relax call...)."""

    reads: dict[int, list[tuple[str, int]]] = field(default_factory=dict)

    def add(self, var: rx.Var, how: tuple[str, int]) -> None:
        self.reads.setdefault(id(var), []).append(how)


def _uses(func: rx.Function, prims: set[str]) -> _Uses:
    uses = _Uses()

    def value(v: rx.Expr) -> None:
        if isinstance(v, rx.Call) and (isinstance(v.op, rx.Op) or (
                isinstance(v.op, rx.GlobalVar) and v.op.name_hint in prims)):
            kind = v.op.name if isinstance(v.op, rx.Op) else "kernel"
            for k, a in enumerate(v.args):
                if isinstance(a, rx.Var):
                    uses.add(a, (kind, k))
                else:
                    for u in used_var_list(a):
                        uses.add(u, ("other", k))
            return
        if isinstance(v, rx.Var):
            uses.add(v, ("alias", 0))
            return
        if isinstance(v, rx.If):
            for u in used_var_list(v.cond):
                uses.add(u, ("other", 0))
            seq(v.true_branch)
            seq(v.false_branch)
            return
        for u in used_var_list(v):
            uses.add(u, ("other", 0))

    def seq(s: rx.SeqExpr) -> None:
        for block in s.blocks:
            for b in block.bindings:
                value(b.value)
        for u in used_var_list(s.body):  # a result: the memory escapes
            uses.add(u, ("other", 0))

    seq(func.body)
    return uses


def _static_storages(func: rx.Function, uses: _Uses) -> list[rx.VarBinding]:
    """PASS-cudagraph-2: the storages of constant size whose memory never escapes: the
    storage is read only by alloc_tensor and kill_storage, and each tensor viewed in it
    only by kernel launches and kill_tensor."""
    views: dict[int, list[rx.Var]] = {}
    storage_of: dict[int, int] = {}
    for b in walk_bindings(func.body):
        if _op(b.value, ALLOC_TENSOR) and isinstance(b.value.args[0], rx.Var):
            storage_of[id(b.var)] = id(b.value.args[0])
        elif isinstance(b.value, rx.Var) and id(b.value) in storage_of:
            storage_of[id(b.var)] = storage_of[id(b.value)]  # an alias of a view
        else:
            continue
        views.setdefault(storage_of[id(b.var)], []).append(b.var)
    nested_kills = {id(b.value.args[0]) for blk in func.body.blocks for t in blk.bindings
                    if isinstance(t.value, rx.If)
                    for br in (t.value.true_branch, t.value.false_branch)
                    for b in walk_bindings(br) if _op(b.value, KILL_STORAGE)}
    out = []
    for b in _top_bindings(func):
        if id(b.var) in nested_kills:
            continue  # a kill this pass could not remove would free the cached storage
        if not (isinstance(b, rx.VarBinding) and _op(b.value, ALLOC_STORAGE)
                and all(_const(a) for a in b.value.args)):
            continue
        if any(how not in ((ALLOC_TENSOR, 0), (KILL_STORAGE, 0))
               for how in uses.reads.get(id(b.var), ())):
            continue
        if all(how[0] == "kernel" or how in ((KILL_TENSOR, 0), ("alias", 0))
               for t in views.get(id(b.var), ()) for how in uses.reads.get(id(t), ())):
            out.append(b)
    return out


def _recursive(mod: rx.IRModule) -> set[str]:
    """The Relax functions that may call themselves (directly or through others)."""
    calls = {n: {g.name_hint for g in _global_refs(f)} for n, f in mod.functions.items()
             if isinstance(f, rx.Function)}
    out = set()
    for start in calls:
        seen, todo = set(), list(calls[start])
        while todo:
            n = todo.pop()
            if n == start:
                out.add(start)
                break
            if n in calls and n not in seen:
                seen.add(n)
                todo.extend(calls[n])
    return out


def _global_refs(func: rx.Function) -> list[rx.GlobalVar]:
    found: list[rx.GlobalVar] = []

    class _Walk(Rewriter):
        def call(self, e: rx.Call) -> rx.Expr:
            if isinstance(e.op, rx.GlobalVar):
                found.append(e.op)
            return super().call(e)

        def expr(self, e: rx.Expr) -> rx.Expr:
            if isinstance(e, rx.GlobalVar):
                found.append(e)
            return super().expr(e)

    _Walk().function(func)
    return found


def _has_local_function(func: rx.Function) -> bool:
    return any(isinstance(b.value, rx.Function) for b in walk_bindings(func.body))


class _Copy(Rewriter):
    """The bindings of a region, for a function of their own: every variable fresh."""

    def bind_var(self, var: rx.Var) -> rx.Var:
        fresh = rx.Var(var.name_hint, None, span=var.span)
        self.var_map[id(var)] = fresh
        return fresh


class _FunctionRewrite:
    """PASS-cudagraph-1..6 on one function."""

    def __init__(self, mod: rx.IRModule, name: str, func: rx.Function, added: dict,
                 counters: dict):
        self.mod, self.name, self.func = mod, name, func
        self.added, self.counters = added, counters
        self.prims = {n for n, f in mod.functions.items() if isinstance(f, tir.PrimFunc)}

    def _fresh(self, hint: str) -> str:
        name, k = hint, 0
        while name in self.mod.functions or name in self.added:
            k += 1
            name = f"{hint}{k}"
        return name

    def run(self) -> rx.Function:
        uses = _uses(self.func, self.prims)
        storages = _static_storages(self.func, uses)
        if not storages:
            return self.func
        self.lifted = {id(b.var) for b in storages}
        self.static: set[int] = set(self.lifted)
        for b in _top_bindings(self.func):
            if _op(b.value, ALLOC_TENSOR) and isinstance(b.value.args[0], rx.Var) \
                    and id(b.value.args[0]) in self.lifted \
                    and all(_const(a) for a in b.value.args[1:]):
                self.static.add(id(b.var))  # PASS-cudagraph-3: the same memory every call
            elif isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Var) \
                    and id(b.value) in self.static:
                self.static.add(id(b.var))  # not a match_cast: it may bind symbols
        alloc_var = self._alloc_function(storages)
        index = {id(b.var): k for k, b in enumerate(storages)}
        blocks, first = [], True
        for block in self.func.body.blocks:
            out: list[rx.Binding] = []
            for b in block.bindings:
                if id(b.var) in index:
                    if first:  # every storage where the first was: no region is cut
                        out.append(alloc_var[0])
                        out.extend(rx.VarBinding(s.var, rx.TupleGetItem(alloc_var[0].var, k))
                                   for k, s in enumerate(storages))
                        first = False
                elif _op(b.value, KILL_STORAGE) and isinstance(b.value.args[0], rx.Var) \
                        and id(b.value.args[0]) in self.lifted:
                    continue  # PASS-cudagraph-2: the cache owns the storage
                else:
                    out.append(b)
            blocks.append(type(block)(tuple(out), span=block.span))
        blocks = self._capture_regions(blocks)
        body = rx.SeqExpr(tuple(blocks), self.func.body.body, span=self.func.body.span)
        return rx.Function(self.func.params, body, self.func.ret_struct_info,
                           self.func.is_pure, self.func.attrs, self.func.is_private,
                           span=self.func.span)

    def _alloc_function(self, storages: list[rx.VarBinding]):
        """PASS-cudagraph-2: a private function allocating the storages, called through
        get_cached_alloc."""
        copy = _Copy()
        bindings = [copy.binding(b)[0] for b in storages]
        result = rx.Var("gv", None)
        tup = rx.Tuple(tuple(b.var for b in bindings))
        bindings.append(rx.VarBinding(result, tup))
        func = rx.Function((), rx.SeqExpr((rx.BindingBlock(tuple(bindings)),), result),
                           None, True, FORCE_PURE, True)
        name = self._fresh("cuda_graph_alloc")
        self.added[name] = func
        k = self.counters["alloc"]
        self.counters["alloc"] += 1
        sinfo = si.TupleStructInfo(tuple(si.ObjectStructInfo() for _ in storages))
        call = rx.Call(BUILTIN_WITH_CTX, (rx.ExternFunc(GET_CACHED_ALLOC), rx.Tuple(
            (rx.GlobalVar(name), rx.PrimValue(P.IntImm(k, INT64))))), sinfo_args=(sinfo,))
        return (rx.VarBinding(rx.Var("gv", None), call),)

    # -- capture regions -----------------------------------------------------------------
    def _capturable(self, b: rx.Binding) -> str | None:
        """PASS-cudagraph-4: 'launch', 'alloc', 'alias' or 'kill' for a binding a graph
        may hold."""
        v = b.value
        if not isinstance(b, rx.VarBinding):
            return None
        if isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar) and v.op.name_hint in self.prims:
            ok = all(id(a) in self.static if isinstance(a, rx.Var) else _const(a)
                     for a in v.args)
            return "launch" if ok else None
        if _op(v, ALLOC_TENSOR) and id(b.var) in self.static:
            return "alloc"
        if isinstance(v, rx.Var) and id(b.var) in self.static:
            return "alias"
        if _op(v, KILL_TENSOR) and isinstance(v.args[0], rx.Var) and id(v.args[0]) in self.static:
            return "kill"
        return None

    def _capture_regions(self, blocks: list[rx.BindingBlock]) -> list[rx.BindingBlock]:
        out = []
        for i, block in enumerate(blocks):
            later = [b for blk in blocks[i + 1:] for b in blk.bindings]
            bindings, k = list(block.bindings), 0
            new: list[rx.Binding] = []
            while k < len(bindings):
                end = k
                while end < len(bindings) and self._capturable(bindings[end]):
                    end += 1
                region = bindings[k:end]
                # PASS-cudagraph-4: from the first launch, trailing allocs left out
                lead = 0
                while lead < len(region) and self._capturable(region[lead]) != "launch":
                    lead += 1
                tail = len(region)
                while tail > lead and self._capturable(region[tail - 1]) == "alloc":
                    tail -= 1
                new.extend(region[:lead])
                if tail > lead:
                    rest = bindings[k + tail:] + later
                    new.extend(self._capture(region[lead:tail], rest))
                new.extend(region[tail:])
                if end < len(bindings):
                    new.append(bindings[end])
                k = end + 1
            out.append(type(block)(tuple(new), span=block.span))
        return out

    def _capture(self, region: list[rx.Binding], rest: list[rx.Binding]) -> list[rx.Binding]:
        """PASS-cudagraph-5: the region as a capture function and its run_or_capture."""
        defined = {id(b.var) for b in region}
        inputs: dict[int, rx.Var] = {}
        for b in region:
            for u in used_var_list(b.value):
                if id(u) not in defined:
                    inputs.setdefault(id(u), u)
        read_later = {id(u) for b in rest for u in used_var_list(b.value)}
        read_later |= {id(u) for u in used_var_list(self.func.body.body)}
        outputs = [b.var for b in region if id(b.var) in read_later]
        copy = _Copy()
        params = []
        for v in inputs.values():
            p = rx.Var(v.name_hint, v.struct_info)
            copy.var_map[id(v)] = p
            params.append(p)
        bindings = [nb for b in region for nb in copy.binding(b)]
        result = rx.Var("gv", None)
        bindings.append(rx.VarBinding(result, rx.Tuple(tuple(copy.use(v) for v in outputs))))
        func = rx.Function(tuple(params), rx.SeqExpr((rx.BindingBlock(tuple(bindings)),),
                                                     result), None, True, FORCE_PURE, True)
        name = self._fresh(f"{self.name}_cuda_graph_capture")
        self.added[name] = func
        k = self.counters["capture"]
        self.counters["capture"] += 1
        sinfo = si.TupleStructInfo(tuple(v.struct_info for v in outputs))
        call = rx.Call(BUILTIN_WITH_CTX, (rx.ExternFunc(RUN_OR_CAPTURE), rx.Tuple((
            rx.GlobalVar(name), rx.Tuple(tuple(inputs.values())),
            rx.PrimValue(P.IntImm(k, INT64))))), sinfo_args=(sinfo,))
        gv = rx.Var("gv", None)
        return [rx.VarBinding(gv, call)] + [
            rx.VarBinding(v, rx.TupleGetItem(gv, i)) for i, v in enumerate(outputs)]


@register_pass("RewriteCUDAGraph", exact=True, requires=("no dataflow blocks",),
               fuzz_inputs=fuzz_inputs_for("RewriteCUDAGraph"))
def rewrite_cuda_graph(mod: rx.IRModule) -> rx.IRModule:
    """PASS-cudagraph-1..7: static storages cached across calls (get_cached_alloc), runs
    of kernel launches on tensors in them captured and replayed (run_or_capture)."""
    mod = normalize(mod)
    recursive = _recursive(mod)
    added: dict = {}
    counters = {"alloc": 0, "capture": 0}
    funcs = dict(mod.functions)
    for name, f in mod.functions.items():
        # PASS-cudagraph-1: a function that may run twice at once would share its cache
        if isinstance(f, rx.Function) and name not in recursive \
                and not _has_local_function(f):
            funcs[name] = _FunctionRewrite(mod, name, f, added, counters).run()
    if not added:
        return mod
    funcs.update(added)
    return finish(mod.with_functions(funcs))
