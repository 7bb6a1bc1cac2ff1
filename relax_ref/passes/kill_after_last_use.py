"""KillAfterLastUse (TVM's name): release each allocated tensor and storage right after
its last use (spec/passes.md, PASS-kill-*).

In TVM's VM a kill only drops a register's reference; in relax_ref a kill re-poisons the
bytes (EXEC-mem-kill-1), so a kill is placed where no value that may share the memory is
read again: after the last use of the variable *and of every variable that may alias it*
(a tuple holding it, a call that may return it, a closure capturing it), and never for
memory that reaches the result. Kills are effects: they go only into ordinary blocks of
functions that may have effects; a last use inside a dataflow block is killed right after
that block (TVM puts the kill inside it, which its own well-formedness check rejects).
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import tir
from relax_ref.ir.uses import variable_uses
from relax_ref.semantics.normalize import normalize

from .canonicalize_bindings import canonicalize_bindings
from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import EffectScopeRewriter, finish

TENSOR_ALLOCS = ("relax.builtin.alloc_tensor", "relax.memory.alloc_tensor",
                 "relax.vm.alloc_tensor")
STORAGE_ALLOCS = ("relax.memory.alloc_storage", "relax.vm.alloc_storage")
KILLS = ("relax.memory.kill_tensor", "relax.memory.kill_storage", "relax.vm.kill_object")
KILL_TENSOR = rx.Op("relax.memory.kill_tensor")
KILL_STORAGE = rx.Op("relax.memory.kill_storage")


def _op_name(value: rx.Expr) -> str | None:
    if isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
        return value.op.name
    return None


def _returns_no_alias(value: rx.Expr, mod: rx.IRModule) -> bool:
    """PASS-kill-2: whether the value of ``value`` shares no memory with what it reads:
    an allocation (fresh memory), a kill (the empty tuple), a direct PrimFunc call (a
    kernel returns nothing or a scalar)."""
    name = _op_name(value)
    if name is not None:
        return name in TENSOR_ALLOCS or name in STORAGE_ALLOCS or name in KILLS
    if isinstance(value, rx.Call) and isinstance(value.op, rx.GlobalVar):
        return isinstance(mod.functions.get(value.op.name_hint), tir.PrimFunc)
    return not isinstance(value, (rx.Var, rx.Tuple, rx.TupleGetItem, rx.Call, rx.If,
                                  rx.SeqExpr, rx.Function))


class _Seq:
    """The facts of one SeqExpr's bindings that placing kills needs."""

    def __init__(self, seq: rx.SeqExpr, mod: rx.IRModule) -> None:
        self.bindings = [b for block in seq.blocks for b in block.bindings]
        self.escaping = variable_uses(seq.body)[0]
        self.aliases: dict[int, set[int]] = {}  # var -> vars that may share its memory
        self.killed: set[int] = set()
        self.last_read: dict[int, int] = {}  # var -> the last binding reading it
        self.storage: list[int | None] = []  # per binding: the storage a tensor views
        self.views: dict[int, list[int]] = {}  # storage var -> bindings of its tensors
        for i, b in enumerate(self.bindings):
            uses = variable_uses(b.value)[0]
            for v in uses:
                self.last_read[v] = i
            if _op_name(b.value) in KILLS:
                self.killed |= uses
            if not _returns_no_alias(b.value, mod):
                for v in uses:
                    self.aliases.setdefault(v, set()).add(id(b.var))
            storage = _storage_viewed(b.value)
            self.storage.append(storage)
            if storage is not None:
                self.views.setdefault(storage, []).append(i)

    def closure(self, var: int) -> set[int]:
        seen, todo = {var}, [var]
        while todo:
            for w in self.aliases.get(todo.pop(), ()):
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    def last_use(self, group: set[int]) -> int | None:
        """The index of the last binding reading a variable of ``group``; None when one
        of them reaches the result (or none is read)."""
        if group & self.escaping:
            return None
        last = max((self.last_read.get(v, -1) for v in group), default=-1)
        return None if last < 0 else last

    def tensor_kill(self, i: int) -> int | None:
        """PASS-kill-1: where the tensor bound at ``i`` is killed."""
        var = id(self.bindings[i].var)
        if var in self.killed:
            return None
        at = self.last_use(self.closure(var))
        storage = self.storage[i]
        if at is not None and storage is not None and \
                any(i < j <= at for j in self.views[storage]):
            # PASS-kill-6: a later tensor of the same storage may overlap this one; the
            # plan lets it, as nothing reads this one after that tensor is written, but
            # poisoning this one's bytes then would poison that tensor's.
            return None
        return at

    def storage_kill(self, i: int) -> int | None:
        """PASS-kill-3: where the storage bound at ``i`` is killed: after its last use
        (TVM's place) when every tensor made from it earlier is dead by then, else after
        the last use of the tensors made from it; never when one reaches the result."""
        var = id(self.bindings[i].var)
        if var in self.killed:
            return None
        last = self.last_use(self.closure(var))
        if last is None:
            return None
        ends = {}
        for j in self.views.get(var, ()):
            group = self.closure(id(self.bindings[j].var))
            ends[j] = -1 if not any(v in self.last_read for v in group) and \
                not group & self.escaping else self.last_use(group)
        if all(j >= last or (end is not None and end <= last) for j, end in ends.items()):
            return last
        if any(end is None for end in ends.values()):
            return None
        return max([last, *ends.values()])


def _storage_viewed(value: rx.Expr) -> int | None:
    """The storage variable a tensor allocation views (None for other values)."""
    if _op_name(value) in TENSOR_ALLOCS[1:] and value.args and \
            isinstance(value.args[0], rx.Var):
        return id(value.args[0])
    return None


class _KillAfterLastUse(EffectScopeRewriter):
    def __init__(self, mod: rx.IRModule) -> None:
        super().__init__()
        self.mod = mod

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        s = super().seq(s)
        if not self.effects_allowed:
            return s
        facts = _Seq(s, self.mod)
        after: dict[int, list[tuple[int, int, rx.Var]]] = {}
        for i, b in enumerate(facts.bindings):
            name = _op_name(b.value)
            if name in TENSOR_ALLOCS:
                at, order = facts.tensor_kill(i), 0
            elif name in STORAGE_ALLOCS:
                at, order = facts.storage_kill(i), 1
            else:
                continue
            if at is not None:
                after.setdefault(at, []).append((order, i, b.var))
        if not after:
            return s
        return rx.SeqExpr(_place(s.blocks, after), s.body, span=s.span)


def _kills(found: list[tuple[int, int, rx.Var]]) -> list[rx.Binding]:
    """PASS-kill-4: tensors first, then storages, each in the order of definition."""
    return [rx.VarBinding(rx.Var("_", None), rx.Call(KILL_STORAGE if order else KILL_TENSOR,
                                                      (var,)))
            for order, _, var in sorted(found, key=lambda t: (t[0], t[1]))]


def _place(blocks, after: dict[int, list]) -> tuple[rx.BindingBlock, ...]:
    out: list[rx.BindingBlock] = []
    i = 0
    for block in blocks:
        bindings: list[rx.Binding] = []
        pending: list[rx.Binding] = []
        dataflow = isinstance(block, rx.DataflowBlock)
        for b in block.bindings:
            bindings.append(b)
            found = after.get(i, [])
            if dataflow:  # PASS-kill-5: a DataflowVar cannot be named after its block
                found = [f for f in found if not isinstance(f[2], rx.DataflowVar)]
            kills = _kills(found)
            (pending if dataflow else bindings).extend(kills)
            i += 1
        out.append(type(block)(tuple(bindings), span=block.span))
        if pending:  # PASS-kill-5: after the dataflow block, never inside it
            out.append(rx.BindingBlock(tuple(pending)))
    return tuple(out)


@register_pass("KillAfterLastUse", exact=True, fuzz_inputs=fuzz_inputs_for("KillAfterLastUse"))
def kill_after_last_use(mod: rx.IRModule) -> rx.IRModule:
    """PASS-kill-1..6: after CanonicalizeBindings (as TVM), kill each allocated tensor
    and storage after the last use of everything that may share its memory."""
    mod = normalize(canonicalize_bindings(mod))
    return finish(_KillAfterLastUse(mod).module(mod))
