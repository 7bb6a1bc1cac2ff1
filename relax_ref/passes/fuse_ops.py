"""FuseOps (TVM's name): the bindings of each dataflow block that ``fusion_groups`` puts
together become one call of a private ``Primitive`` function holding them (spec/passes.md,
PASS-fuse-*; paper Algorithm 2 and Fig. 8).

- PASS-fuse-4: a group of two or more bindings is lifted into ``fused_<PrimFunc names>``:
  its parameters are the values it reads from outside (variables, and constants as TVM
  lifts them), each with the struct info of the value passed; its results are the group's
  variables read after it (one value, or a tuple taken apart at the call site). A
  structurally equal function already added is reused.
- PASS-fuse-5: a symbolic variable the lifted function uses but its parameters' shapes do
  not define (a parameter of shape ``2*n``; a ``tir_vars`` value) is passed in one extra
  ``R.Shape`` parameter, ``tir_vars``, as TVM does; every symbolic variable of the lifted
  function is its own (renamed fresh).
- PASS-fuse-6: the block is reordered only as dependencies require, each group at the
  place of its first member with what it needs pulled before it (TVM's order). A binding
  depends on the bindings whose variables it reads and on the match_cast that defines a
  symbolic variable it mentions; the latter is what TVM misses, so it can move a call
  above that match_cast. A group whose lifting would need an outside binding both before
  and after it (a cycle through such a dependency) is not lifted.
- PASS-fuse-7: functions marked ``Primitive`` or ``Codegen`` are left alone; with
  ``fuse_opt_level=0`` nothing fuses. Nothing is computed differently, so the pass is exact.
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols

from .added_functions import AddedFunctions, finish_with_lifted
from .fusion_groups import MAX_FUSE_DEPTH, block_graph, call_tir_parts, partition
from .references import arg_sinfo, strongly_connected_components
from .registry import Pass, register_pass
from .rewrite import Rewriter, used_var_list
from .symbols import fresh_symbols, sinfo_symbols, substitute_symbols, symbols_of


def fuse_ops(fuse_opt_level: int = -1, max_fuse_depth: int = MAX_FUSE_DEPTH) -> Pass:
    """FuseOps with TVM's option (``-1``: the pass context's level, 2 by default) and its
    ``relax.FuseOps.max_depth`` setting."""
    level = 2 if fuse_opt_level == -1 else fuse_opt_level

    def run(mod: rx.IRModule) -> rx.IRModule:
        return _fuse(mod, level, max_fuse_depth)

    return Pass("FuseOps", run, exact=True,
                doc=f"FuseOps(fuse_opt_level={fuse_opt_level})",
                options={"fuse_opt_level": fuse_opt_level}, fuzz_inputs=_lowered)


def _lowered(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pass groups what LegalizeOps and AnnotateTIROpPattern make."""
    from .annotate_tir_op_pattern import annotate_tir_op_pattern
    from .legalize_ops import legalize_ops

    return annotate_tir_op_pattern(legalize_ops(mod))


@register_pass("FuseOps", exact=True, fuzz_inputs=_lowered)
def _fuse_ops_default(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuse-1..7: group call_tir bindings by their op_pattern and lift each group into
    a private Primitive function."""
    return _fuse(mod, 2, MAX_FUSE_DEPTH)


def _fuse(mod: rx.IRModule, level: int, max_fuse_depth: int) -> rx.IRModule:
    mod = normalize(mod)
    if level == 0:  # PASS-fuse-7
        return mod
    fusor = _Fusor(mod, max_fuse_depth)
    out = fusor.module(mod)
    if not fusor.added:
        return out
    return finish_with_lifted(out, fusor.added)


def _skipped(func: rx.Function) -> bool:
    return bool(func.attrs.get("Primitive")) or func.attrs.get("Codegen") is not None


class _Fusor(Rewriter):
    def __init__(self, mod: rx.IRModule, max_fuse_depth: int):
        super().__init__()
        self.mod = mod
        self.max_fuse_depth = max_fuse_depth
        self.added = AddedFunctions(mod)
        self.weight_params: set[int] = set()
        # ids of the symbolic variables defined where the current block starts
        self.known_symbols: set[int] = set()
        self.values: dict[int, rx.Expr] = {}  # variable id -> its bound value

    def function(self, func: rx.Function) -> rx.Function:
        if _skipped(func):  # PASS-fuse-7
            return func
        num_input = func.attrs.get("num_input")
        if num_input is not None:
            self.weight_params |= {id(p) for p in func.params[int(num_input):]}
        self.values.update(_bound_values(func))
        saved = set(self.known_symbols)
        self.known_symbols |= {id(v) for v in defined_symbols(
            p.struct_info for p in func.params if p.struct_info is not None)}
        try:
            return super().function(func)
        finally:
            self.known_symbols = saved

    def seq(self, s: rx.SeqExpr) -> rx.SeqExpr:
        saved = set(self.known_symbols)  # what a branch defines stays in it
        try:
            return super().seq(s)
        finally:
            self.known_symbols = saved

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        if any(_holds_bindings(b.value) for b in block.bindings):
            block = super().block(block)  # local functions and branches inside first
        known = set(self.known_symbols)
        self.known_symbols |= {id(v) for b in block.bindings if isinstance(b, rx.MatchCast)
                               for v in defined_symbols([b.struct_info])}
        if not isinstance(block, rx.DataflowBlock) or len(block.bindings) < 2:
            return block
        bindings = list(block.bindings)
        nodes = block_graph(bindings, self.mod, self.weight_params)
        roots = partition(nodes, self.max_fuse_depth)
        new = _Block(self, bindings, roots, known).rewrite()
        return block if new is None else rx.DataflowBlock(tuple(new), span=block.span)

    # -- lifted functions ------------------------------------------------------------------
    def add_function(self, name_hint: str, func, prepare=None) -> rx.GlobalVar:
        """PASS-fuse-4: a structurally equal function already added is reused. The name
        hint lists the PrimFuncs the function calls, in order, so only functions of the
        same hint can be equal: it is the key of the equality tests."""
        return self.added.add(name_hint, func, prepare, bucket=name_hint)


class _Block:
    """One dataflow block: its groups, their order, and the rewritten bindings."""

    def __init__(self, fusor: _Fusor, bindings: list[rx.Binding], roots: list[int],
                 known_symbols: set[int]):
        self.fusor = fusor
        self.bindings = bindings
        self.index = {id(b.var): i for i, b in enumerate(bindings)}
        members: dict[int, list[int]] = {}
        for i, r in enumerate(roots):
            members.setdefault(r, []).append(i)
        self.unit = list(range(len(bindings)))  # binding index -> its group's first member
        self.groups: dict[int, list[int]] = {}
        for ms in members.values():
            if len(ms) > 1:
                self.set_group(ms)
        # symbolic variable id -> the match_cast of this block that defines it (one that
        # mentions a variable defined before the block only checks it)
        self.definers: dict[int, int] = {}
        for j, b in enumerate(bindings):
            if isinstance(b, rx.MatchCast):
                for v in defined_symbols([b.struct_info]):
                    if id(v) not in known_symbols:
                        self.definers.setdefault(id(v), j)
        self.uses: list[list[rx.Var]] = []  # per binding: the variables it reads
        self.deps: list[list[int]] = []  # per binding: the bindings it needs

    def set_group(self, ms: list[int]) -> None:
        self.groups[ms[0]] = ms
        for m in ms:
            self.unit[m] = ms[0]

    def dissolve(self, first: int) -> None:
        for m in self.groups.pop(first):
            self.unit[m] = m

    # -- dependencies (PASS-fuse-6) --------------------------------------------------------------
    def dependencies(self, i: int) -> list[int]:
        """The earlier bindings of this block that binding ``i`` needs, in order of use:
        those whose variables it reads, and the match_casts that define the symbolic
        variables it mentions."""
        b = self.bindings[i]
        found: dict[int, None] = {}
        for v in self.uses[i]:
            j = self.index.get(id(v))
            if j is not None and j < i:
                found[j] = None
        if not self.definers:  # no match_cast here defines a symbol: nothing to add
            return list(found)
        mentioned = symbols_of(b.value).used
        if b.var.struct_info is not None:
            mentioned.update((id(v), v) for v in _symbols_in_sinfo(b.var.struct_info))
        if isinstance(b, rx.MatchCast):
            mentioned.update((id(v), v) for v in _symbols_in_sinfo(b.struct_info))
        for k in mentioned:
            j = self.definers.get(k)
            if j is not None and j < i:
                found[j] = None
        return list(found)

    def unit_deps(self, u: int) -> list[int]:
        out: dict[int, None] = {}
        for m in self.groups.get(u, [u]):
            for d in self.deps[m]:
                if self.unit[d] != u:
                    out[self.unit[d]] = None
        return list(out)

    def break_cycles(self) -> None:
        """PASS-fuse-6: a group on a cycle of the block's dependencies between groups is
        not lifted (bindings alone have none: each reads only earlier ones)."""
        while True:
            units = sorted(set(self.unit))
            edges = {u: self.unit_deps(u) for u in units}
            cyclic = [c for c in strongly_connected_components(edges) if len(c) > 1]
            if not cyclic:
                return
            for c in cyclic:
                for u in c:
                    if u in self.groups:
                        self.dissolve(u)

    def order(self) -> list[int]:
        """PASS-fuse-6: units in TVM's order: each at its first binding, what it needs
        first."""
        seen: set[int] = set()
        out: list[int] = []
        for i in range(len(self.bindings)):
            root = self.unit[i]
            if root in seen:
                continue
            seen.add(root)
            # depth first, iteratively (a long chain of bindings is no deep recursion)
            stack = [(root, iter(self.unit_deps(root)))]
            while stack:
                u, deps = stack[-1]
                for d in deps:
                    if d not in seen:
                        seen.add(d)
                        stack.append((d, iter(self.unit_deps(d))))
                        break
                else:
                    stack.pop()
                    out.append(u)
        return out

    # -- the rewritten block ---------------------------------------------------------------------
    def rewrite(self) -> list[rx.Binding] | None:
        if not self.groups:
            return None
        self.uses = [used_var_list(b.value) for b in self.bindings]
        self.deps = [self.dependencies(i) for i in range(len(self.bindings))]
        self.break_cycles()
        if not self.groups:
            return None
        uses_after = self.outside_uses()
        lifted = {}
        for first, ms in list(self.groups.items()):
            outputs = [m for m in ms if not isinstance(self.bindings[m].var, rx.DataflowVar)]
            outputs += [m for m in uses_after.get(first, []) if m not in outputs]
            if not outputs:  # dead code: left as it is (TVM drops it)
                self.dissolve(first)
                continue
            lifted[first] = outputs
        if not self.groups:
            return None
        out: list[rx.Binding] = []
        for u in self.order():
            if u not in self.groups:
                out.append(self.bindings[u])
                continue
            out.extend(self.lift(self.groups[u], lifted[u]))
        return out

    def bound_constant(self, v: rx.Var) -> rx.Expr | None:
        """The value ``v`` is bound to, through other variables, where it is a shape or
        prim value without symbolic variables (TVM inlines those); else None."""
        seen: set[int] = set()
        value: rx.Expr = v
        while isinstance(value, rx.Var) and id(value) in self.fusor.values \
                and id(value) not in seen:
            seen.add(id(value))
            value = self.fusor.values[id(value)]
        return value if value is not v and _inlinable(value) else None

    def split_tuple_params(self, ms: list[int], arguments: list, params: list,
                           renames: dict) -> set[int]:
        """PASS-fuse-4: a tuple the group reads only through ``t[i]`` bindings is passed as
        its items (``t_i``, in order of first use; the call site passes ``t[i]``), as TVM
        does; those bindings leave the body. The members dropped."""
        dropped: set[int] = set()
        for k in range(len(arguments) - 1, -1, -1):
            t = arguments[k]
            if not (isinstance(t, rx.Var) and isinstance(t.struct_info, si.TupleStructInfo)):
                continue
            items: dict[int, list[int]] = {}
            for m in ms:
                value = self.bindings[m].value
                i = _item_of(value, t)
                if i is not None:
                    items.setdefault(i, []).append(m)
                elif any(v is t for v in self.uses[m]):
                    break
            else:
                if not items:
                    continue
                item_params = []
                for i, members in items.items():
                    p = rx.Var(f"{t.name_hint}_{i}", t.struct_info.fields[i])
                    item_params.append((rx.TupleGetItem(t, i), p))
                    for m in members:
                        renames[id(self.bindings[m].var)] = p
                        dropped.add(m)
                arguments[k:k + 1] = [a for a, _ in item_params]
                params[k:k + 1] = [p for _, p in item_params]
                renames.pop(id(t), None)
        return dropped

    def outside_uses(self) -> dict[int, list[int]]:
        """For each group, its members read by bindings outside it, in order of first use."""
        found: dict[int, dict[int, None]] = {}
        for i in range(len(self.bindings)):
            for v in self.uses[i]:
                j = self.index.get(id(v))
                if j is None or j >= i or self.unit[j] == self.unit[i] \
                        or self.unit[j] not in self.groups:
                    continue
                found.setdefault(self.unit[j], {})[j] = None
        return {u: list(ms) for u, ms in found.items()}

    def lift(self, ms: list[int], outputs: list[int]) -> list[rx.Binding]:
        """PASS-fuse-4, -5: the group's function and the bindings that call it."""
        member_ids = {id(self.bindings[m].var) for m in ms}
        arguments: list[rx.Expr] = []
        params: list[rx.Var] = []
        renames: dict[int, rx.Expr] = {}
        names = ["fused"]

        n_lifted = [0]  # TVM's count of the non-variable arguments met

        def param_for(e: rx.Expr) -> None:
            if isinstance(e, rx.Var):
                if id(e) in member_ids or id(e) in renames:
                    return  # a member, or met already (each argument is renamed)
                value = self.bound_constant(e)
                if value is not None:  # TVM inlines a variable bound to a constant shape
                    renames[id(e)] = value
                    return
                p = rx.Var(e.name_hint, e.struct_info, span=e.span)
                renames[id(e)] = p
            else:
                if any(a is e for a in arguments):
                    return
                name = f"param_{n_lifted[0]}"
                n_lifted[0] += 1
                if not isinstance(e, rx.Constant):
                    return  # a literal prim value or shape stays (TVM 0.27 keeps them)
                p = rx.Var(name, arg_sinfo(e, self.fusor.mod))
            arguments.append(e)
            params.append(p)

        for m in ms:
            value = self.bindings[m].value
            parts = call_tir_parts(value, self.fusor.mod)
            if parts is not None:
                names.append(parts[0])
                for a in parts[1].fields:
                    param_for(a)
            for v in self.uses[m]:
                if id(v) not in renames:
                    param_for(v)
        dropped = self.split_tuple_params(ms, arguments, params, renames)
        out_ids = {id(self.bindings[m].var) for m in outputs}
        for m in ms:
            var = self.bindings[m].var
            if m in dropped:
                continue
            fresh = rx.Var(var.name_hint, span=var.span) if id(var) in out_ids \
                else rx.DataflowVar(var.name_hint, span=var.span)
            renames[id(var)] = fresh
        constants: dict[int, rx.Var] = {}  # id of a constant argument -> its parameter
        for a, p in zip(arguments, params):
            if isinstance(a, rx.Constant):
                constants.setdefault(id(a), p)
        lift = _Lift(constants)
        lift.var_map.update(renames)
        body_bindings = []
        for m in ms:
            if m not in dropped:
                body_bindings.extend(lift.binding(self.bindings[m]))
        results = [renames[id(self.bindings[m].var)] for m in outputs]
        result = results[0] if len(results) == 1 else rx.Tuple(tuple(results))
        attrs = rx.Attrs.of({"Primitive": True})

        def build(ps):
            body = rx.SeqExpr((rx.DataflowBlock(tuple(body_bindings)),), result)
            return rx.Function(tuple(ps), body, None, True, attrs, True)
        func = build(params)
        # PASS-fuse-5: symbolic variables the parameters do not define come in tir_vars.
        defined = {id(v) for v in defined_symbols(p.struct_info for p in params
                                                  if p.struct_info is not None)}
        used = symbols_of(func).used
        free = [v for k, v in used.items() if k not in defined]
        call_args = list(arguments)
        if free:
            shape_param = rx.Var("tir_vars", si.ShapeStructInfo(tuple(free), len(free)))
            func = build(params + [shape_param])  # mentions no symbol ``func`` did not
            call_args.append(rx.ShapeExpr(tuple(free)))
        def own_symbols(func: rx.Function) -> rx.Function:
            """The function's own symbolic variables (each function has its own)."""
            if not used:
                return func
            return substitute_symbols(func, fresh_symbols(used.values()), fresh=False)
        gv = self.fusor.add_function("_".join(names), func, own_symbols)
        call = rx.Call(gv, tuple(call_args))
        if len(outputs) == 1:
            return [rx.VarBinding(self.bindings[outputs[0]].var, call)]
        tuple_var = rx.DataflowVar("lv")
        out = [rx.VarBinding(tuple_var, call)]
        for m in sorted(outputs):
            out.append(rx.VarBinding(self.bindings[m].var,
                                     rx.TupleGetItem(tuple_var, outputs.index(m))))
        return out


class _Lift(Rewriter):
    """A group's bindings as the lifted function's: variables renamed (``var_map``),
    constant arguments replaced by their parameters."""

    def __init__(self, constants: dict[int, rx.Var]) -> None:
        super().__init__()
        self.constants = constants

    def expr(self, e):
        if isinstance(e, rx.Constant):
            p = self.constants.get(id(e))
            if p is not None:
                return p
        return super().expr(e)


def _inlinable(e: rx.Expr) -> bool:
    """PASS-fuse-4: a prim value, a shape, or a tuple of them, without symbolic variables."""
    if isinstance(e, rx.Tuple):
        return all(_inlinable(f) for f in e.fields)
    if isinstance(e, rx.PrimValue):
        return not P.free_vars(e.value)
    if isinstance(e, rx.ShapeExpr):
        return not any(P.free_vars(d) for d in e.values)
    return False


def _bound_values(func: rx.Function) -> dict[int, rx.Expr]:
    """Variable id -> bound value, for every VarBinding in ``func`` (nested ones too), in
    the order a Rewriter meets them; only what can hold bindings is looked into."""
    found: dict[int, rx.Expr] = {}
    _collect_bound(func, found)
    return found


def _collect_bound(e: rx.Expr, found: dict[int, rx.Expr]) -> None:
    if isinstance(e, _NO_BINDINGS):
        return
    if isinstance(e, rx.SeqExpr):
        for block in e.blocks:
            for b in block.bindings:
                if isinstance(b, rx.VarBinding):
                    found[id(b.var)] = b.value
                _collect_bound(b.value, found)
        _collect_bound(e.body, found)
    elif isinstance(e, rx.Function):
        _collect_bound(e.body, found)
    elif isinstance(e, rx.If):
        _collect_bound(e.cond, found)
        _collect_bound(e.true_branch, found)
        _collect_bound(e.false_branch, found)
    elif isinstance(e, rx.Call):
        for a in e.args:  # a callee variable is a leaf
            _collect_bound(a, found)
    elif isinstance(e, rx.Tuple):
        for f in e.fields:
            _collect_bound(f, found)
    elif isinstance(e, rx.TupleGetItem):
        _collect_bound(e.tuple_value, found)


def _holds_bindings(e: rx.Expr) -> bool:
    """Whether ``e`` holds a function, a branch or a sequence: what the Rewriter must
    visit (nothing else here changes, as the fusor maps no variable)."""
    if isinstance(e, _NO_BINDINGS):
        return False
    if isinstance(e, rx.Call):
        return any(_holds_bindings(a) for a in e.args)
    if isinstance(e, rx.Tuple):
        return any(_holds_bindings(f) for f in e.fields)
    if isinstance(e, rx.TupleGetItem):
        return _holds_bindings(e.tuple_value)
    return True


# expressions with no binding inside
_NO_BINDINGS = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
                rx.GlobalVar, rx.ExternFunc, rx.Op)


def _item_of(value: rx.Expr, t: rx.Var) -> int | None:
    if isinstance(value, rx.TupleGetItem) and value.tuple_value is t:
        return value.index
    return None


def _symbols_in_sinfo(s: si.StructInfo) -> list[P.Var]:
    return list(sinfo_symbols(s).values())
