"""StaticPlanBlockMemory (TVM's name; paper section 4.3, Algorithm 3): the tensors
CallTIRRewrite allocates (``R.builtin.alloc_tensor``) that live only between PrimFunc
calls of one block share storages, allocated with ``R.memory.alloc_storage`` and viewed
with ``R.memory.alloc_tensor`` (spec/passes.md, PASS-plan-*).

Every plan is proved safe before it is kept: verify_memory.py checks it with the solver
and a tensor whose placement cannot be proved falls back to its own allocation
(PASS-plan-7). The invariant: a storage never holds two tensors that may be live at once.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, DataType
from relax_ref.ir.uses import walk_bindings
from relax_ref.semantics import memory
from relax_ref.solver.analyzer import Analyzer

from .registry import register_pass
from .rewrite import Rewriter, finish, used_vars
from .verify_memory import (PlanProblem, check_function_plan, function_analyzer, leaves,
                            prim_func_names)

# Calls whose result is a view of their first operand (TVM's in-place memory ops).
_VIEW_OPS = frozenset({"relax.reshape", "relax.memory.view", "relax.memory.ensure_zero_offset"})
_VIEW_EXTERNS = frozenset({"vm.builtin.reshape"})
_MATCH_RANGE = 16  # TVM's search range for static sizes: within 16x either way (PASS-plan-4)


@dataclass(eq=False)
class _Token:
    """One ``R.builtin.alloc_tensor`` that may be planned (PASS-plan-1)."""

    binding: rx.VarBinding
    block: int              # id of the block holding the allocation
    dtype: DataType
    scope: str
    nbytes: int | P.PrimExpr  # bytes at the upper bounds: an int when static (PASS-plan-3)
    last_use: int = -1      # position of the last PrimFunc call that reads or writes it
    discarded: bool = False


@dataclass(eq=False)
class _Storage:
    first: rx.VarBinding    # the allocation before which alloc_storage is emitted
    dtype: DataType
    scope: str
    device: rx.Expr
    nbytes: int | P.PrimExpr
    var: rx.Var | None = None
    released_order: int = 0


_EMPTY: frozenset = frozenset()


class _Collect:
    """Phase 1: which allocations may be planned, and where each is last used
    (PASS-plan-1). Tokens flow through aliases: variables, tuples, tuple items,
    match_cast and view ops."""

    def __init__(self, func: rx.Function, prim_funcs: frozenset[str], analyzer: Analyzer,
                 excluded: set[int]):
        self.prim_funcs = prim_funcs
        self.analyzer = analyzer
        self.excluded = excluded  # ids of allocation variables not to plan (fallback)
        self.trees: dict[int, object] = {}
        self.tokens: list[_Token] = []
        self.token_of: dict[int, _Token] = {}  # binding id -> token
        self.pos_of: dict[int, int] = {}
        self.pos = 0
        self.seq(func.body)

    def tree(self, e: rx.Expr):
        if isinstance(e, rx.Var):
            return self.trees.get(id(e), _EMPTY)
        if isinstance(e, rx.Tuple):
            return tuple(self.tree(f) for f in e.fields)
        if isinstance(e, rx.TupleGetItem):
            t = self.tree(e.tuple_value)
            if isinstance(t, tuple):
                return t[e.index] if 0 <= e.index < len(t) else _EMPTY
            return t
        self.discard_vars(e)
        return _EMPTY

    def discard(self, tree) -> None:
        for tok in leaves(tree):
            tok.discarded = True

    def discard_vars(self, e) -> None:
        for vid in used_vars(e):
            self.discard(self.trees.get(vid, _EMPTY))

    def seq(self, seq: rx.SeqExpr) -> None:
        for block in seq.blocks:
            for b in block.bindings:
                self.binding(b, block)
        self.discard(self.tree(seq.body))  # results and returns are never planned

    def binding(self, b: rx.Binding, block: rx.BindingBlock) -> None:
        self.pos += 1
        self.pos_of[id(b)] = pos = self.pos
        v = b.value
        tree = _EMPTY
        op = v.op if isinstance(v, rx.Call) else None
        if isinstance(op, rx.Op) and op.name == "relax.builtin.alloc_tensor":
            tok = self.token(b, block)
            tree = frozenset({tok}) if tok is not None else _EMPTY
        elif (isinstance(op, rx.Op) and op.name in _VIEW_OPS) or (
                isinstance(op, rx.ExternFunc) and op.global_symbol in _VIEW_EXTERNS):
            tree = self.tree(v.args[0])
            for a in v.args[1:]:
                self.discard_vars(a)
        elif (isinstance(op, rx.GlobalVar) and op.name_hint in self.prim_funcs) or \
                isinstance(op, rx.ExternFunc):
            for a in v.args:  # PASS-plan-1: a use by a kernel, in the allocation's block
                for tok in leaves(self.tree(a)):
                    if tok.block == id(block):
                        tok.last_use = pos
                    else:
                        tok.discarded = True
            if isinstance(op, rx.ExternFunc) and not _void(v):
                tree = frozenset().union(*(leaves(self.tree(a)) for a in v.args))
        elif isinstance(v, rx.If):  # PASS-plan-5: nothing flows into or out of an if
            self.discard(self.tree(v.cond))
            self.seq(v.true_branch)
            self.seq(v.false_branch)
        elif isinstance(v, (rx.Var, rx.Tuple, rx.TupleGetItem)):
            tree = self.tree(v)  # an alias (a match_cast too: stricter than TVM, PASS-plan-1)
        else:
            self.discard_vars(v)
        self.trees[id(b.var)] = tree

    def token(self, b: rx.Binding, block: rx.BindingBlock) -> _Token | None:
        call = b.value
        if not isinstance(b, rx.VarBinding) or id(b.var) in self.excluded or len(call.args) < 4:
            return None
        shape, dtype, _device, scope = call.args[:4]
        if not (isinstance(shape, rx.ShapeExpr) and isinstance(dtype, rx.DataTypeImm)
                and isinstance(scope, rx.StringImm)):
            return None
        try:
            item = memory.itemsize(dtype.value)
        except memory.MemoryCheckError:
            return None
        tok = _Token(b, id(block), dtype.value, scope.value,
                     upper_bound_bytes(shape.values, item, self.analyzer))
        self.tokens.append(tok)
        self.token_of[id(b)] = tok
        return tok


def _void(call: rx.Call) -> bool:
    s = call.struct_info
    return isinstance(s, si.TupleStructInfo) and not s.fields


def upper_bound_bytes(shape, itemsize: int, analyzer: Analyzer) -> int | P.PrimExpr:
    """PASS-plan-3: the bytes of a tensor of ``shape`` at its dimensions' upper bounds:
    an int when every dimension has a proved constant upper bound, else the constant
    part times the dimensions without one (which stay symbolic: a dimension with only a
    lower bound is never planned as static)."""
    const, rest = itemsize, []
    for d in shape:
        if isinstance(d, P.IntImm):
            const *= max(d.value, 0)
            continue
        ub = analyzer.upper_bound(d)
        if ub is None:
            rest.append(d)
        else:
            const *= max(ub, 0)
    if not rest:
        return const
    total: P.PrimExpr = P.IntImm(const, INT64)
    for d in rest:
        total = P.Mul(total, d, INT64)
    return total


class _Pool:
    """Phase 2's free storages of one SeqExpr (PASS-plan-4, PASS-plan-5)."""

    def __init__(self, analyzer: Analyzer):
        self.analyzer = analyzer
        self.free: list[_Storage] = []
        self.order = 0

    def release(self, st: _Storage) -> None:
        self.order += 1
        st.released_order = self.order
        self.free.append(st)

    def request(self, tok: _Token) -> _Storage | None:
        same = [s for s in self.free if s.scope == tok.scope and s.dtype == tok.dtype]
        if isinstance(tok.nbytes, int):
            pick = self._static(tok.nbytes, [s for s in same if isinstance(s.nbytes, int)])
        else:
            pick = self._symbolic(tok.nbytes, [s for s in same if not isinstance(s.nbytes, int)])
        if pick is not None:
            self.free.remove(pick)
        return pick

    @staticmethod
    def _static(size: int, cands: list[_Storage]) -> _Storage | None:
        """TVM's choice: the smallest free storage at least as large, within 16x; else
        the largest smaller one (down to 1/16), grown to the size."""
        cands = sorted(cands, key=lambda s: (s.nbytes, s.released_order))
        larger = [s for s in cands if s.nbytes >= size]
        if larger and larger[0].nbytes <= size * _MATCH_RANGE:
            return larger[0]
        smaller = [s for s in cands if size // _MATCH_RANGE <= s.nbytes < size]
        if smaller:
            smaller[-1].nbytes = size
            return smaller[-1]
        return None

    def _symbolic(self, size: P.PrimExpr, cands: list[_Storage]) -> _Storage | None:
        """A storage proved equal in size (TVM), else one proved at least as large for
        every value within the bounds (ours)."""
        cands = sorted(cands, key=lambda s: s.released_order)
        for s in cands:
            if self.analyzer.prove_equal(size, s.nbytes):
                return s
        for s in cands:
            if self.analyzer.can_prove(P.LE(size, s.nbytes, BOOL)):
                return s
        return None


@dataclass
class FunctionPlan:
    """What planning decided for one function (for ``relax-ref memplan``)."""

    storages: list[_Storage] = field(default_factory=list)
    placed: dict[int, _Storage] = field(default_factory=dict)  # alloc var id -> storage
    tokens: list[_Token] = field(default_factory=list)


def _plan(func: rx.Function, prim_funcs: frozenset[str], analyzer: Analyzer,
          excluded: set[int]) -> FunctionPlan:
    """Phases 1 and 2 (Algorithm 3): tokens, then storages by a walk in binding order
    that releases a storage after its tensor's last use."""
    col = _Collect(func, prim_funcs, analyzer, excluded)
    plan = FunctionPlan(tokens=col.tokens)
    released: dict[int, list[_Token]] = {}
    for tok in col.tokens:
        if not tok.discarded and tok.last_use >= 0:
            released.setdefault(tok.last_use, []).append(tok)

    def plan_seq(seq: rx.SeqExpr) -> None:
        pool = _Pool(analyzer)  # PASS-plan-5: one pool per SeqExpr, never across an if
        static: list[_Token] = []
        for block in seq.blocks:
            for b in block.bindings:
                tok = col.token_of.get(id(b))
                if tok is not None and not tok.discarded:
                    st = pool.request(tok) if tok.last_use >= 0 else None
                    if st is None:
                        st = _Storage(b, tok.dtype, tok.scope, b.value.args[2], tok.nbytes)
                        plan.storages.append(st)
                    plan.placed[id(b.var)] = st
                    if isinstance(tok.nbytes, int):
                        static.append(tok)
                if isinstance(b.value, rx.If):
                    plan_seq(b.value.true_branch)
                    plan_seq(b.value.false_branch)
                for tok in released.get(col.pos_of[id(b)], ()):
                    pool.release(plan.placed[id(tok.binding.var)])
        _prefer_greedy_by_size(plan, static, col.pos_of)

    plan_seq(func.body)
    plan.storages.sort(key=lambda st: col.pos_of[id(st.first)])  # names in program order
    return plan


def _prefer_greedy_by_size(plan: FunctionPlan, tokens: list[_Token],
                           pos_of: dict[int, int]) -> None:
    """PASS-plan-4 (ours): the static tokens of one SeqExpr placed again, largest first,
    each in the first storage of its scope and dtype holding no tensor whose lifetime
    meets its own, else in a new storage of its size; kept only when its storages total
    fewer bytes than TVM's sequential choice, so the plan is never larger than TVM's."""
    if len(tokens) < 2:
        return
    def life(tok: _Token) -> tuple[int, int]:
        start = pos_of[id(tok.binding)]
        return start, tok.last_use if tok.last_use >= 0 else 1 << 60  # unused: never freed
    sequential = {id(plan.placed[id(t.binding.var)]): plan.placed[id(t.binding.var)]
                  for t in tokens}
    groups: list[tuple[_Token, list[_Token]]] = []  # (largest, members)
    for tok in sorted(tokens, key=lambda t: (-t.nbytes, life(t)[0])):
        start, end = life(tok)
        for head, members in groups:
            if head.scope == tok.scope and head.dtype == tok.dtype and all(
                    life(m)[1] < start or end < life(m)[0] for m in members):
                members.append(tok)
                break
        else:
            groups.append((tok, [tok]))
    if sum(head.nbytes for head, _ in groups) >= sum(s.nbytes for s in sequential.values()):
        return
    gone = set(sequential)
    plan.storages[:] = [s for s in plan.storages if id(s) not in gone]
    for head, members in groups:
        first = min(members, key=lambda t: life(t)[0]).binding
        st = _Storage(first, head.dtype, head.scope, first.value.args[2], head.nbytes)
        plan.storages.append(st)
        for m in members:
            plan.placed[id(m.binding.var)] = st


class _Rewrite(Rewriter):
    """Phase 3: alloc_storage before a storage's first tensor; each planned allocation
    becomes a view at offset 0 (PASS-plan-6)."""

    def __init__(self, plan: FunctionPlan, taken: set[str]):
        super().__init__()
        self.plan = plan
        names = 0
        for st in plan.storages:
            while True:
                name = "storage" if names == 0 else f"storage{names}"
                names += 1
                if name not in taken:
                    break
            st.var = rx.Var(name)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        st = self.plan.placed.get(id(b.var))
        if st is None:
            return super().binding(b)
        out: list[rx.Binding] = []
        if st.first is b:
            size = P.IntImm(st.nbytes, INT64) if isinstance(st.nbytes, int) else st.nbytes
            out.append(rx.VarBinding(st.var, rx.Call(
                rx.Op("relax.memory.alloc_storage"),
                (rx.ShapeExpr((size,)), st.device, rx.StringImm(st.scope),
                 rx.DataTypeImm(st.dtype))), span=b.span))
        shape, dtype, device = b.value.args[:3]
        out.append(rx.VarBinding(b.var, rx.Call(
            rx.Op("relax.memory.alloc_tensor"),
            (st.var, rx.PrimValue(P.IntImm(0, INT64)), shape, dtype, device)), span=b.span))
        return out


def _var_names(func: rx.Function) -> set[str]:
    names = {p.name_hint for p in func.params}
    names.update(b.var.name_hint for b in walk_bindings(func.body))
    return names


def plan_function(name: str, func: rx.Function, mod: rx.IRModule
                  ) -> tuple[rx.Function, FunctionPlan, list[PlanProblem]]:
    """``func`` planned and proved (PASS-plan-7): a plan the checker rejects is redone
    without reuse for every tensor a problem names, until the checker proves it. The
    problems of the rejected attempts are returned (empty when the first plan held)."""
    prim_funcs = prim_func_names(mod)
    analyzer = function_analyzer(func)
    excluded: set[int] = set()
    reported: list[PlanProblem] = []
    taken = _var_names(func)
    while True:
        plan = _plan(func, prim_funcs, analyzer, excluded)
        if not plan.storages:
            return func, plan, reported
        planned = _Rewrite(plan, taken).function(func)
        problems = check_function_plan(name, planned, mod, analyzer)
        if not problems:
            return planned, plan, reported
        reported.extend(problems)
        named = {t for p in problems for t in p.tensors}
        newly = {id(tok.binding.var) for tok in plan.tokens
                 if tok.binding.var.name_hint in named and id(tok.binding.var) not in excluded}
        if not newly:  # the problem is not in a tensor we placed: plan nothing
            newly = {id(tok.binding.var) for tok in plan.tokens}
            if newly <= excluded:
                return func, FunctionPlan(), reported
        excluded |= newly


def plan_memory(mod: rx.IRModule) -> tuple[rx.IRModule, dict[str, FunctionPlan],
                                             list[PlanProblem]]:
    """The planned module, each function's plan and the problems of plans the checker
    rejected (each fixed by its fallback)."""
    funcs, plans, problems = {}, {}, []
    for name, f in mod.functions.items():
        if isinstance(f, rx.Function):
            f, plans[name], found = plan_function(name, f, mod)
            problems.extend(found)
        funcs[name] = f
    return finish(mod.with_functions(funcs)), plans, problems


def _prepared(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pipeline's stages before planning (PASS-plan-8)."""
    from .registry import get_pass

    for name in ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "ToNonDataflow",
                 "RemovePurityChecking", "CallTIRRewrite"):
        mod = get_pass(name)(mod)
    return mod


@register_pass("StaticPlanBlockMemory", exact=True, fuzz_inputs=_prepared)
def static_plan_block_memory(mod: rx.IRModule) -> rx.IRModule:
    """PASS-plan-1..8: share storage between allocations whose lifetimes are disjoint."""
    return plan_memory(mod)[0]
