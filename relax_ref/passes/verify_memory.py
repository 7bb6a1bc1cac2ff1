"""The memory plan checker: proves a planned function safe for every value of its
symbolic variables within their bounds (spec/passes.md, PASS-plan-check-*; issue 22).

A plan is what StaticPlanBlockMemory writes (``R.memory.alloc_storage`` of ``k`` bytes,
DESIGN decision 10; ``R.memory.alloc_tensor`` views at an offset; kills), or the same
written by hand. The checker never trusts the planner: it recomputes liveness from the
program text, conservatively (a value computed from a tensor may alias it), and asks the
solver for each fact. A fact it cannot prove is a ``PlanProblem``; the planner then falls
back to a plan without reuse for the tensors named (PASS-plan-7).

Liveness is over the function's bindings in text order, ``if`` branches one after the
other (PASS-plan-check-4): every run of the program takes a path whose tensor lifetimes
lie inside these intervals, so disjointness proved here holds on every path.
"""
from __future__ import annotations

from dataclasses import dataclass

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT64
from relax_ref.ir.text import print_prim_expr
from relax_ref.ir.uses import walk_bindings
from relax_ref.semantics import memory
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.analyzer import Analyzer

from .rewrite import used_vars

_END = 1 << 60  # the position of the function's return: after every binding


@dataclass(frozen=True)
class PlanProblem:
    """A fact of a plan the checker could not prove: where, which rule, which tensors
    (their variable names) the fallback must stop planning."""

    function: str
    rule: str
    message: str
    tensors: tuple[str, ...] = ()
    span: object = None

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        return f"{where}{self.function}: {self.message} [{self.rule}]"


class MemoryPlanError(Exception):
    """A plan with problems, for callers who want an exception (``verify_plan``)."""

    def __init__(self, problems: list[PlanProblem]):
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


# -- bounds ----------------------------------------------------------------------------------


def _size_vars(sinfos) -> list[P.Var]:
    """Variables that appear bare as a dimension of a tensor or shape: sizes, >= 0."""
    out: dict[int, P.Var] = {}

    def visit(s) -> None:
        dims = ()
        if isinstance(s, si.TensorStructInfo) and s.shape is not None:
            dims = s.shape
        elif isinstance(s, si.ShapeStructInfo) and s.values is not None:
            dims = s.values
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)
        for d in dims:
            if isinstance(d, P.Var):
                out.setdefault(id(d), d)

    for s in sinfos:
        visit(s)
    return list(out.values())


def _int_map(value) -> dict[str, int]:
    if isinstance(value, rx.Attrs):
        return {k: v for k, v in value.items if isinstance(v, int)}
    return {}


def function_analyzer(func: rx.Function) -> Analyzer:
    """PASS-plan-2: the facts planning and checking may assume. A variable that is a
    dimension of a parameter or of a match_cast is a size (>= 0); a signature variable
    named in ``tir_var_upper_bound`` / ``tir_var_lower_bound`` lies in its bounds (TVM
    reads them for signature variables only); ``tir_non_negative_var`` names are >= 0.
    An ``R.Prim`` variable is otherwise unconstrained: it may be negative."""
    analyzer = Analyzer(shape_vars_nonneg=False)
    params = [p.struct_info for p in func.params if p.struct_info is not None]
    casts = [b.struct_info for b in walk_bindings(func.body) if isinstance(b, rx.MatchCast)]
    for v in _size_vars(params + casts):
        analyzer.add_lower_bound(v, 0)
    signature = {v.name: v for v in defined_symbols(params)}
    upper = _int_map(func.attrs.get("tir_var_upper_bound"))
    lower = _int_map(func.attrs.get("tir_var_lower_bound"))
    nonneg = func.attrs.get("tir_non_negative_var") or ()
    for name, v in signature.items():
        if name in upper:
            analyzer.add_upper_bound(v, upper[name])
        if name in lower:
            analyzer.add_lower_bound(v, lower[name])
        if name in tuple(nonneg):
            analyzer.add_lower_bound(v, 0)
    return analyzer


def tensor_bytes(shape: tuple[P.PrimExpr, ...], itemsize: int) -> P.PrimExpr:
    """The bytes of a dense tensor of ``shape`` (DESIGN decision 10)."""
    total: P.PrimExpr = P.IntImm(itemsize, INT64)
    for d in shape:
        total = P.Mul(total, d, INT64)
    return total


def shape_product(values: tuple[P.PrimExpr, ...]) -> P.PrimExpr:
    total: P.PrimExpr = P.IntImm(1, INT64)
    for d in values:
        total = P.Mul(total, d, INT64)
    return total


def prim_func_names(mod: rx.IRModule | None) -> frozenset[str]:
    if mod is None:
        return frozenset()
    return frozenset(n for n, f in mod.functions.items() if isinstance(f, tir.PrimFunc))


def leaves(tree) -> set:
    """Every element of a tree (a frozenset, or a tuple of trees)."""
    if isinstance(tree, tuple):
        out: set = set()
        for t in tree:
            out |= leaves(t)
        return out
    return set(tree)


# -- the walk --------------------------------------------------------------------------------


@dataclass
class StorageLife:
    name: str
    size: P.PrimExpr | None  # bytes; None: not known (a parameter, a tuple item...)
    defined: int
    killed: int | None = None
    span: object = None


@dataclass
class TensorLife:
    name: str
    storage: int  # the key of its StorageLife (the id of the storage's variable)
    offset: P.PrimExpr
    nbytes: P.PrimExpr
    itemsize: int
    defined: int
    last_use: int
    killed: int | None = None
    last_other_use: int = -1  # the last use that is not its kill
    first_use: int | None = None  # the first use that is not its kill
    span: object = None
    var: object = None  # the variable the view is bound to


_ALLOC_STORAGE = ("relax.memory.alloc_storage",)
_ALLOC_TENSOR = ("relax.memory.alloc_tensor",)


class _PlanWalk:
    """Recomputes storages, tensors, aliases and liveness of one function."""

    def __init__(self, func_name: str, prim_funcs: frozenset[str]) -> None:
        self.func_name = func_name
        self.prim_funcs = prim_funcs
        self.pos = 0
        self.storages: dict[int, StorageLife] = {}
        self.storage_of_var: dict[int, int] = {}   # var id -> storage key
        self.tensors: list[TensorLife] = []
        self.aliases: dict[int, object] = {}  # var id -> tree of indices of tensors
        self.problems: list[PlanProblem] = []

    def problem(self, rule: str, message: str, tensors=(), span=None) -> None:
        self.problems.append(PlanProblem(self.func_name, rule, message, tuple(tensors), span))

    # aliases and uses ------------------------------------------------------------------
    def tree(self, e: rx.Expr):
        """The tensors ``e`` may be (a tuple of trees for a tuple), without using them."""
        if isinstance(e, rx.Var):
            return self.aliases.get(id(e), frozenset())
        if isinstance(e, rx.Tuple):
            return tuple(self.tree(f) for f in e.fields)
        if isinstance(e, rx.TupleGetItem):
            t = self.tree(e.tuple_value)
            if isinstance(t, tuple):
                return t[e.index] if 0 <= e.index < len(t) else frozenset()
            return t
        return frozenset().union(*(leaves(self.aliases.get(v, frozenset()))
                                   for v in used_vars(e)))

    def use_vars(self, ids, pos: int, *, is_kill: bool = False) -> frozenset[int]:
        found: set[int] = set()
        for vid in ids:
            found |= leaves(self.aliases.get(vid, frozenset()))
            key = self.storage_of_var.get(vid)
            if key is not None and not is_kill:
                st = self.storages[key]
                if st.killed is not None and st.killed < pos:
                    self.problem("PASS-plan-check-3", f"storage {st.name} is used after "
                                 f"its kill")
        for t in found:
            tensor = self.tensors[t]
            tensor.last_use = max(tensor.last_use, pos)
            if not is_kill:
                tensor.last_other_use = max(tensor.last_other_use, pos)
                if tensor.first_use is None:
                    tensor.first_use = pos
        return frozenset(found)

    # structure -------------------------------------------------------------------------
    def seq(self, seq: rx.SeqExpr):
        """Walks ``seq``; returns the tree of its result (which is not a use)."""
        scoped = set(self.storage_of_var)
        for block in seq.blocks:
            for b in block.bindings:
                self.binding(b)
        result = self.tree(seq.body)
        # storages defined in this SeqExpr go out of scope with it (PASS-plan-check-4)
        for vid in set(self.storage_of_var) - scoped:
            del self.storage_of_var[vid]
        return result

    def binding(self, b: rx.Binding) -> None:
        self.pos += 1
        pos, value, var = self.pos, b.value, b.var
        if isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
            name = value.op.name
            if name in _ALLOC_STORAGE:
                self.alloc_storage(var, value, pos, b)
                return
            if name in _ALLOC_TENSOR:
                self.alloc_tensor(var, value, pos, b)
                return
            if name == "relax.memory.kill_storage" and isinstance(value.args[0], rx.Var):
                self.kill_storage(value.args[0], pos)
                return
            if name == "relax.memory.kill_tensor":
                for t in self.use_vars(used_vars(value.args[0]), pos, is_kill=True):
                    tensor = self.tensors[t]
                    tensor.killed = pos if tensor.killed is None else min(tensor.killed, pos)
                return
        if isinstance(value, (rx.Var, rx.Tuple, rx.TupleGetItem)):
            # naming, packing or unpacking reads no memory (a match_cast reads only the
            # shape): the variable aliases what the value may be
            if isinstance(value, rx.Var) and id(value) in self.storage_of_var:
                self.storage_of_var[id(var)] = self.storage_of_var[id(value)]
            self.aliases[id(var)] = self.tree(value)
            return
        if isinstance(value, rx.If):
            self.use_vars(used_vars(value.cond), pos)
            then_t = self.seq(value.true_branch)
            else_t = self.seq(value.false_branch)
            self.aliases[id(var)] = frozenset(leaves(then_t) | leaves(else_t))
            return
        # anything else reads its variables here; its result may alias what it read,
        # except a call of a PrimFunc or DPS extern (its result is void)
        read = self.use_vars(used_vars(value), pos)
        leaked = [self.storages[self.storage_of_var[v]].name for v in used_vars(value)
                  if v in self.storage_of_var]
        if leaked:
            self.problem("PASS-plan-check-5", f"storage {leaked[0]} flows into "
                         f"{type(value).__name__.lower()} where tensors of unknown size may "
                         f"be placed in it", span=b.span)
        if not _returns_void(value, self.prim_funcs):
            self.aliases[id(var)] = read

    def alloc_storage(self, var: rx.Var, call: rx.Call, pos: int, b: rx.Binding) -> None:
        size_arg = call.args[0] if call.args else None
        size = shape_product(size_arg.values) if isinstance(size_arg, rx.ShapeExpr) else None
        self.storages[id(var)] = StorageLife(var.name_hint, size, pos, span=b.span)
        self.storage_of_var[id(var)] = id(var)

    def alloc_tensor(self, var: rx.Var, call: rx.Call, pos: int, b: rx.Binding) -> None:
        storage, offset, shape, dtype = call.args[:4]
        key = self.storage_of_var.get(id(storage)) if isinstance(storage, rx.Var) else None
        if key is None:
            self.problem("PASS-plan-check-5", f"tensor {var.name_hint} is placed in a "
                         f"storage this function does not allocate in scope, of unknown size",
                         (var.name_hint,), b.span)
            return
        st = self.storages[key]
        if st.killed is not None and st.killed < pos:
            self.problem("PASS-plan-check-3", f"tensor {var.name_hint} is placed in storage "
                         f"{st.name} after its kill", (var.name_hint,), b.span)
        if not (isinstance(offset, rx.PrimValue) and isinstance(shape, rx.ShapeExpr)
                and isinstance(dtype, rx.DataTypeImm)):
            self.problem("PASS-plan-check-5", f"tensor {var.name_hint}: offset, shape or "
                         f"dtype is not written in the call", (var.name_hint,), b.span)
            return
        try:
            item = memory.itemsize(dtype.value)
        except memory.MemoryCheckError as err:
            self.problem("PASS-plan-check-5", f"tensor {var.name_hint}: {err.message}",
                         (var.name_hint,), b.span)
            return
        index = len(self.tensors)
        self.tensors.append(TensorLife(var.name_hint, key, offset.value,
                                    tensor_bytes(shape.values, item), item, pos, pos,
                                    span=b.span, var=var))
        self.aliases[id(var)] = frozenset({index})

    def kill_storage(self, v: rx.Var, pos: int) -> None:
        key = self.storage_of_var.get(id(v))
        if key is None:
            return
        st = self.storages[key]
        st.killed = pos if st.killed is None else min(st.killed, pos)


def _returns_void(value: rx.Expr, prim_funcs: frozenset[str]) -> bool:
    """A call of a PrimFunc, or any call whose result is the empty tuple, carries no
    memory of its operands."""
    if not isinstance(value, rx.Call):
        return False
    if isinstance(value.op, rx.GlobalVar) and value.op.name_hint in prim_funcs:
        return True
    s = value.struct_info
    return isinstance(s, si.TupleStructInfo) and not s.fields


# -- the proofs ------------------------------------------------------------------------------


def _walk(name: str, func: rx.Function, mod: rx.IRModule | None) -> _PlanWalk:
    walk = _PlanWalk(name, prim_func_names(mod))
    returned = leaves(walk.seq(func.body))
    for t in returned:  # a returned tensor lives on after the function (PASS-plan-check-2)
        walk.tensors[t].last_use = walk.tensors[t].last_other_use = _END
    return walk


def function_lifetimes(name: str, func: rx.Function, mod: rx.IRModule | None = None
                       ) -> tuple[dict[int, StorageLife], list[TensorLife], int]:
    """The storages (by key) and tensors of ``func`` with their lifetimes as the checker
    sees them: binding positions, a returned tensor last used at the end position."""
    walk = _walk(name, func, mod)
    end = walk.pos + 1
    for t in walk.tensors:
        t.last_use = min(t.last_use, end)
    return walk.storages, walk.tensors, end


def check_function_plan(name: str, func: rx.Function, mod: rx.IRModule | None = None,
                        analyzer: Analyzer | None = None) -> list[PlanProblem]:
    """Every fact of ``func``'s plan the solver could not prove (empty: proved safe).
    ``mod`` names the PrimFuncs whose calls return nothing."""
    walk = _walk(name, func, mod)
    if not walk.tensors:
        return walk.problems
    ana = analyzer or function_analyzer(func)
    problems = walk.problems
    zero = P.IntImm(0, INT64)
    for t in walk.tensors:  # PASS-plan-check-1: every tensor fits its storage
        st = walk.storages[t.storage]
        end = P.Add(t.offset, t.nbytes, INT64)
        fits = st.size is not None and ana.can_prove(P.And(
            P.LE(zero, t.offset, BOOL), P.LE(end, st.size, BOOL), BOOL)) and \
            ana.can_prove(P.EQ(P.FloorMod(t.offset, P.IntImm(t.itemsize, INT64), INT64),
                               zero, BOOL))
        if not fits:
            problems.append(PlanProblem(name, "PASS-plan-check-1", f"tensor {t.name} cannot be "
                                        f"proved to fit storage {st.name} (offset "
                                        f"{_text(t.offset)}, {_text(t.nbytes)} bytes, storage "
                                        f"{_text(st.size)} bytes)", (t.name,), t.span))
    for t in walk.tensors:  # PASS-plan-check-3: no kill between a tensor's uses
        st = walk.storages[t.storage]
        if st.killed is not None and t.first_use is not None and \
                t.first_use < st.killed < t.last_other_use:
            problems.append(PlanProblem(name, "PASS-plan-check-3", f"storage {st.name} is "
                                        f"killed between uses of tensor {t.name}",
                                        (t.name,), t.span))
        if t.killed is not None and t.killed <= t.last_other_use:
            problems.append(PlanProblem(name, "PASS-plan-check-3", f"tensor {t.name} is "
                                        f"killed before its last use", (t.name,), t.span))
    by_storage: dict[int, list[TensorLife]] = {}
    for t in walk.tensors:
        by_storage.setdefault(t.storage, []).append(t)
    for group in by_storage.values():  # PASS-plan-check-2: live tensors never overlap
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a.last_use < b.defined or b.last_use < a.defined:
                    continue
                apart = P.Or(P.LE(P.Add(a.offset, a.nbytes, INT64), b.offset, BOOL),
                             P.LE(P.Add(b.offset, b.nbytes, INT64), a.offset, BOOL), BOOL)
                empty = P.Or(P.EQ(a.nbytes, zero, BOOL), P.EQ(b.nbytes, zero, BOOL), BOOL)
                if not ana.can_prove(P.Or(apart, empty, BOOL)):
                    problems.append(PlanProblem(
                        name, "PASS-plan-check-2", f"tensors {a.name} and {b.name} are live "
                        f"together in storage {walk.storages[a.storage].name} and may overlap",
                        (a.name, b.name), b.span))
    return problems


def _text(e) -> str:
    return "unknown" if e is None else print_prim_expr(e)


def check_plan(mod: rx.IRModule) -> list[PlanProblem]:
    """The problems of every Relax function's plan in ``mod`` (PASS-plan-check-*)."""
    problems: list[PlanProblem] = []
    for name, f in mod.functions.items():
        if isinstance(f, rx.Function):
            problems.extend(check_function_plan(name, f, mod))
    return problems


def verify_plan(mod: rx.IRModule) -> None:
    """Raise MemoryPlanError unless every plan in ``mod`` is proved safe."""
    problems = check_plan(mod)
    if problems:
        raise MemoryPlanError(problems)


__all__ = ["PlanProblem", "MemoryPlanError", "check_plan", "check_function_plan",
           "function_lifetimes", "StorageLife", "TensorLife", "leaves",
           "verify_plan", "function_analyzer", "tensor_bytes"]
