"""VMShapeLower (TVM's name; paper section 4.7): every symbolic value of a function lives
in a *shape heap*, an int64 array with one slot per symbolic expression, that VM builtins
fill from the arguments and read to build shapes (spec/passes.md, PASS-vm-shape-*).

    shape_heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (K,), ...)
    R.call_packed("vm.builtin.check_tensor_info", x, 2, R.dtype("float32"), "<context>")
    R.call_packed("vm.builtin.match_shape", x, shape_heap, 2, 1, 0, 0, 16, "<context>")
    cls.shape_func(shape_heap)          # slots of composite expressions (128 * b)
    gv = R.call_packed("vm.builtin.make_shape", shape_heap, 1, 1, 1, ...)

The match codes: 0 compare with an immediate, 1 store into a slot, 2 not yet (a
composite expression, computed once its variables are), 3 compare with a slot; the make
codes: 0 an immediate, 1 a slot (EXEC-vm-4..5). Checks are placed where TVM places them:
the parameters first, each ``match_cast`` before its binding, the result last.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import HANDLE, INT64
from relax_ref.semantics.normalize import normalize, print_sinfo
from relax_ref.semantics.sinfo_relations import Check, base_check
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.expr_utils import structural_key, substitute

from .added_functions import AddedFunctions
from .compute_prim_value import HOST_FUNC
from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import Rewriter, finish, may_have_effects
from .tir_merge import free_vars

VOID = si.TupleStructInfo(())
HEAP_SINFO = si.TensorStructInfo(None, INT64, 1)
ASSERT_IMM, STORE, NO_OP, ASSERT_LOAD = 0, 1, 2, 3
USE_IMM, LOAD = 0, 1


class _Decline(Exception):
    """The function cannot be lowered (PASS-vm-shape-6); it is kept as it is."""


def _int(v: int) -> rx.PrimValue:
    return rx.PrimValue(P.IntImm(v, INT64))


def _builtin(name: str, args, sinfo: si.StructInfo = VOID) -> rx.Call:
    return rx.Call(rx.ExternFunc(name), tuple(args), sinfo_args=(sinfo,))


def _vars_of(e: P.PrimExpr) -> list[P.Var]:
    return free_vars(tir.Evaluate(e), [])


@dataclass
class _Slot:
    expr: P.PrimExpr
    index: int
    users: list["_Slot"] = field(default_factory=list)
    outstanding: int = 0
    computed: bool = False


@dataclass
class _Todo:
    value: rx.Expr
    pattern: tuple[P.PrimExpr, ...]
    err_ctx: str
    prim: bool = False


class _SlotCollector(Rewriter):
    """PASS-vm-shape-1: the symbolic expressions of a function, in TVM's order: the
    parameters' struct info, then the body's shapes, values and match_cast targets, then
    the result's struct info; each expression before the variables it uses."""

    def __init__(self) -> None:
        super().__init__()
        self.slots: list[_Slot] = []
        self.by_key: dict = {}

    def add(self, e: P.PrimExpr) -> None:
        if isinstance(e, P.IntImm):
            return
        if e.dtype != INT64:
            raise _Decline(f"{e} is not an int64 symbolic value")
        key = structural_key(e)
        if key not in self.by_key:
            slot = _Slot(e, len(self.slots))
            self.by_key[key] = slot
            self.slots.append(slot)
        for v in _vars_of(e):
            if v is not e:
                self.add(v)

    def sinfo(self, s: si.StructInfo | None) -> None:
        if isinstance(s, si.TensorStructInfo) and s.shape is not None:
            for d in s.shape:
                self.add(d)
        elif isinstance(s, si.ShapeStructInfo) and s.values is not None:
            for d in s.values:
                self.add(d)
        elif isinstance(s, si.PrimStructInfo) and s.value is not None and \
                s.value.dtype == INT64:
            self.add(s.value)  # only int64 values live in the heap (a bool flag does not)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                self.sinfo(f)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        self.expr(b.value)
        if isinstance(b, rx.MatchCast):
            self.sinfo(b.struct_info)
        return [b]

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.ShapeExpr):
            for d in e.values:
                self.add(d)
        elif isinstance(e, rx.PrimValue):
            self.add(e.value)
        elif isinstance(e, rx.Function):
            raise _Decline("a local function (run LambdaLift first)")
        return super().expr(e)

    def call(self, e: rx.Call) -> rx.Expr:
        for a in e.args:
            self.expr(a)
        return e


class _FunctionLowering(Rewriter):
    """The rewrite of one function (PASS-vm-shape-2..5)."""

    def __init__(self, name: str, func: rx.Function, added: AddedFunctions) -> None:
        super().__init__()
        self.name, self.func, self.added = name, func, added
        collector = _SlotCollector()
        for p in func.params:
            collector.sinfo(p.struct_info)
        collector.seq(func.body)
        collector.sinfo(func.ret_struct_info)
        self.slots, self.by_key = collector.slots, collector.by_key
        for slot in self.slots:
            if not isinstance(slot.expr, P.Var):
                deps = _vars_of(slot.expr)
                for v in deps:
                    self.by_key[structural_key(v)].users.append(slot)
                slot.outstanding = len(deps)
        self.ready: list[_Slot] = []
        self.heap = rx.Var("shape_heap", None)
        self.out: list[rx.Binding] = []
        self.analyzer = Analyzer()

    # -- emitting -------------------------------------------------------------------------
    def emit(self, value: rx.Expr, name: str = "_") -> None:
        self.out.append(rx.VarBinding(rx.Var(name, None), value))

    def slot(self, e: P.PrimExpr) -> _Slot:
        return self.by_key[structural_key(e)]

    def match_args(self, e: P.PrimExpr, require: bool) -> tuple[int, int]:
        """TVM's MakeMatchArgs: how one pattern value is matched now."""
        if isinstance(e, P.IntImm):
            return ASSERT_IMM, e.value
        slot = self.slot(e)
        if slot.computed:
            return ASSERT_LOAD, slot.index
        if require:
            raise _Decline(f"{e} is used before its variables are defined")
        if isinstance(e, P.Var):
            slot.computed = True
            self.ready.append(slot)
            return STORE, slot.index
        return NO_OP, 0

    def run_match(self, todos: list[_Todo], require: bool) -> list[_Todo]:
        """PASS-vm-shape-3: one match call per pattern; patterns with composite
        expressions not computed yet come back, to be matched again once they are."""
        outstanding = []
        for item in todos:
            codes = [self.match_args(e, require) for e in item.pattern]
            nops = [c == NO_OP for c, _ in codes]
            if any(nops):
                outstanding.append(item)
            if all(nops):
                continue
            flat = [_int(x) for pair in codes for x in pair]
            if item.prim:
                self.emit(_builtin("vm.builtin.match_prim_value",
                                   [item.value, self.heap, *flat, rx.StringImm(item.err_ctx)]))
            else:
                self.emit(_builtin("vm.builtin.match_shape",
                                   [item.value, self.heap, _int(len(item.pattern)), *flat,
                                    rx.StringImm(item.err_ctx)]))
        return outstanding

    def compute_outstanding(self) -> None:
        """PASS-vm-shape-4: the composite expressions whose variables are all in the
        heap now are computed into it by a host PrimFunc ``shape_func(H)``."""
        todo = []
        for ready in self.ready:
            for user in ready.users:
                user.outstanding -= 1
                if user.outstanding == 0:
                    todo.append(user)
        self.ready = []
        if not todo:
            return
        handle = P.Var("H", HANDLE)
        buf = tir.Buffer("H", (P.IntImm(len(self.slots), INT64),), INT64)
        load = {s.expr: tir.BufferLoad(buf, (P.IntImm(s.index, INT64),), INT64)
                for s in self.slots if isinstance(s.expr, P.Var)}
        stores = []
        for slot in todo:
            slot.computed = True
            stores.append(tir.BufferStore(buf, substitute(slot.expr, load),
                                          (P.IntImm(slot.index, INT64),)))
        body = stores[0] if len(stores) == 1 else tir.SeqStmt(tuple(stores))
        func = tir.PrimFunc((handle,), ((handle, buf),), body,
                            attrs=rx.Attrs.of({HOST_FUNC: True}), is_private=True, s_tir=True)
        gv = self.added.add("shape_func", func)
        self.emit(rx.Call(gv, (self.heap,)))

    def match_and_compute(self, todos: list[_Todo]) -> None:
        todos = self.run_match(todos, False)
        self.compute_outstanding()
        self.run_match(todos, True)

    # -- checks of one value against its struct info (TVM's CheckMatchCast) -------------------
    def check(self, s: si.StructInfo | None, value: rx.Expr, always: bool, err: str,
              todos: list[_Todo], dynamic_only: bool = False,
              known: si.StructInfo | None = None) -> None:
        """Checks and match todos of ``value`` against ``s``; ``known`` is what is known
        of the value statically (default: its struct info)."""
        if s is None:
            return
        if dynamic_only and isinstance(s, si.TensorStructInfo) and s.shape is not None and \
                all(isinstance(d, P.IntImm) for d in s.shape):
            return  # PASS-vm-shape-2: a static weight after num_input is trusted
        known = known if known is not None else value.struct_info
        if not always and known is not None and \
                base_check(s, known, self.analyzer) == Check.PASS:
            return
        err_arg = rx.StringImm(err)

        def needed(coarse: si.StructInfo) -> bool:
            # TVM checks a value's kind, rank and dtype only where its static struct info
            # does not already prove them; the shape is matched in any case
            return always or known is None or \
                base_check(coarse, known, self.analyzer) != Check.PASS

        if isinstance(s, si.TensorStructInfo):
            dtype = rx.Call(rx.Op("relax.null_value"), ()) if s.dtype.is_void \
                else rx.DataTypeImm(s.dtype)
            if needed(si.TensorStructInfo(None, s.dtype, s.ndim)):
                self.emit(_builtin("vm.builtin.check_tensor_info",
                                   [value, _int(s.ndim), dtype, err_arg]))
            if s.shape is not None:
                todos.append(_Todo(value, tuple(s.shape), err))
        elif isinstance(s, si.ShapeStructInfo):
            if needed(si.ShapeStructInfo(None, s.ndim)):
                self.emit(_builtin("vm.builtin.check_shape_info",
                                   [value, _int(s.ndim), err_arg]))
            if s.values is not None:
                todos.append(_Todo(value, tuple(s.values), err))
        elif isinstance(s, si.PrimStructInfo):
            if needed(si.PrimStructInfo(s.dtype)):
                self.emit(_builtin("vm.builtin.check_prim_value_info",
                                   [value, rx.DataTypeImm(s.dtype), err_arg]))
            if s.value is not None and s.value.dtype == INT64:
                todos.append(_Todo(value, (s.value,), err, prim=True))
        elif isinstance(s, si.TupleStructInfo):
            if always or not isinstance(known, si.TupleStructInfo):
                self.emit(_builtin("vm.builtin.check_tuple_info",
                                   [value, _int(len(s.fields)), err_arg]))
            for k, f in enumerate(s.fields):
                item = value.fields[k] if isinstance(value, rx.Tuple) else \
                    rx.TupleGetItem(value, k)
                field_known = known.fields[k] if isinstance(known, si.TupleStructInfo) \
                    and k < len(known.fields) else None
                self.check(f, item, always, err, todos, dynamic_only, field_known)
        elif isinstance(s, si.FuncStructInfo) and (always or
                                                  not isinstance(known, si.FuncStructInfo)):
            self.emit(_builtin("vm.builtin.check_func_info", [value, err_arg]))

    # -- the function ------------------------------------------------------------------------
    def lower(self) -> rx.Function:
        func, k = self.func, len(self.slots)
        heap_call = rx.Call(rx.Op("relax.call_builtin_with_ctx"),
                            (rx.ExternFunc("vm.builtin.alloc_shape_heap"), rx.Tuple((_int(k),))),
                            sinfo_args=(HEAP_SINFO,)) if k else \
            rx.Call(rx.Op("relax.null_value"), ())
        self.out.append(rx.VarBinding(self.heap, heap_call))
        todos: list[_Todo] = []
        num_input = func.attrs.get("num_input")
        if not isinstance(num_input, int) or isinstance(num_input, bool):
            num_input = len(func.params)
        for i, p in enumerate(func.params):
            err = (f"ErrorContext(fn={self.name}, loc=param[{i}], param={p.name_hint}, "
                   f"annotation={print_sinfo(p.struct_info)}) ")
            self.check(p.struct_info, p, True, err, todos, dynamic_only=i >= num_input)
        self.match_and_compute(todos)
        prologue, self.out = self.out, []
        body = self.seq(func.body)
        result = body.body
        if result is not func.body.body and not isinstance(result, rx.Var):
            # a rewritten result (a shape built from the heap) is computed once, bound
            ret = rx.Var("gv", None)
            self.out.append(rx.VarBinding(ret, result))
            result = ret
        err = f"ErrorContext(fn={self.name}, loc=return, annotation=" \
              f"{print_sinfo(func.ret_struct_info) if func.ret_struct_info else 'R.Any'}) "
        todos = []
        self.check(func.ret_struct_info, result, False, err, todos,
                   known=func.body.body.struct_info)
        self.run_match(todos, True)
        epilogue = self.out
        blocks = (rx.BindingBlock(tuple(prologue)),) + body.blocks + \
            ((rx.BindingBlock(tuple(epilogue)),) if epilogue else ())
        return rx.Function(func.params, rx.SeqExpr(blocks, result, span=body.span),
                           func.ret_struct_info, func.is_pure, func.attrs, func.is_private,
                           span=func.span)

    # -- the body: shapes and values from the heap, match_cast checks ---------------------------
    def block(self, block: rx.BindingBlock):
        if isinstance(block, rx.DataflowBlock):
            raise _Decline("a dataflow block (run ToNonDataflow first)")
        saved, self.out = self.out, []
        for b in block.bindings:
            if isinstance(b, rx.MatchCast):
                value = self.expr(b.value)
                todos: list[_Todo] = []
                self.check(b.struct_info, value, False,
                           f"ErrorContext(match_cast, ty={print_sinfo(b.struct_info)}) ", todos)
                self.match_and_compute(todos)
                self.out.append(rx.MatchCast(self.bind_var(b.var), value, b.struct_info,
                                             span=b.span))
            else:
                self.out.extend(super().binding(b))
        new, self.out = self.out, saved
        return rx.BindingBlock(tuple(new), span=block.span)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.ShapeExpr) and not all(isinstance(d, P.IntImm) for d in e.values):
            codes = [x for d in e.values for x in self.make_args(d)]
            return _builtin("vm.builtin.make_shape",
                            [self.heap, _int(len(e.values)), *map(_int, codes)],
                            si.ShapeStructInfo(tuple(e.values), len(e.values)))
        if isinstance(e, rx.PrimValue) and not isinstance(e.value, (P.IntImm, P.FloatImm)):
            code, operand = self.make_args(e.value)
            return _builtin("vm.builtin.make_prim_value", [self.heap, _int(code), _int(operand)],
                            si.PrimStructInfo(e.value.dtype, e.value))
        if isinstance(e, rx.If):
            return self.if_expr(e)
        return super().expr(e)

    def if_expr(self, e: rx.If) -> rx.Expr:
        """Each branch starts from what is computed before the ``if``; after it, only
        what both computed counts (a slot filled in one branch is not in the other)."""
        cond = self.expr(e.cond)
        before = [s.computed for s in self.slots]
        then_b = self.seq(e.true_branch)
        after_then = [s.computed for s in self.slots]
        for s, c in zip(self.slots, before):
            s.computed = c
        else_b = self.seq(e.false_branch)
        for s, c in zip(self.slots, after_then):
            s.computed = s.computed and c
        return rx.If(cond, then_b, else_b, span=e.span)

    def make_args(self, e: P.PrimExpr) -> tuple[int, int]:
        if isinstance(e, P.IntImm):
            return USE_IMM, e.value
        slot = self.by_key.get(structural_key(e))
        if slot is None or not slot.computed:
            raise _Decline(f"{e} is not computed where it is used")
        return LOAD, slot.index



@register_pass("VMShapeLower", exact=True, fuzz_inputs=fuzz_inputs_for("VMShapeLower"))
def vm_shape_lower(mod: rx.IRModule) -> rx.IRModule:
    """PASS-vm-shape-1..7: symbolic values through the shape heap and VM builtins."""
    mod = normalize(mod)
    added = AddedFunctions(mod)
    funcs = dict(mod.functions)
    for name, f in mod.functions.items():
        if not isinstance(f, rx.Function) or not may_have_effects(f):
            continue  # PASS-vm-shape-6: the builtins are effects
        try:
            funcs[name] = _FunctionLowering(name, f, added).lower()
        except _Decline:
            funcs[name] = f
    return finish(mod.with_functions({**funcs, **added}))
