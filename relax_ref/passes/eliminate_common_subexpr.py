"""EliminateCommonSubexpr (TVM's name): compute a pure value once (spec/passes.md,
PASS-cse-*).

Bindings are visited in program order. A binding whose value -- after the earlier
replacements -- is structurally equal to the value of an earlier binding in scope
(same op or callee, same operands by identity, same attributes and ``sinfo_args``; for a
``match_cast``, the same target struct info too) becomes ``var = earlier_var``, and the
uses of ``var`` that the replacement can reach become uses of ``earlier_var``
(PASS-cse-1). As in TVM the copy stays (CanonicalizeBindings removes it).

What is never merged (PASS-cse-2):
- a value containing a call with an effect (``dead_code_elimination.has_effect``:
  impure ops such as allocation or printing, packed calls, direct PrimFunc calls, calls
  of impure functions), nor a function literal whose body contains one;
- a value containing an allocation (``OpDef.allocator``, SI-struct-alloc-2): allocations
  are pure, but two equal calls give two distinct tensors, and merging them would make
  the writes into one visible through the other;
- a binding whose variable's struct info differs from the earlier variable's (one of
  them annotated coarser than deduced): a copy with a finer annotation than its value
  would be ill-formed, and TVM, whose annotated values carry the annotation, does not
  merge these either;
- with ``call_only``, anything but a call.

Scopes (PASS-cse-3): the earlier binding must be in scope and remain in scope. An ``if``
branch sees the enclosing bindings but its own are forgotten when it ends; a nested
function starts afresh (TVM's clean scope); at the end of a dataflow block its
DataflowVars are forgotten, and the replacements made inside the block end with it, so
no DataflowVar escapes. ``match_cast`` bindings are never removed: a duplicate cast
becomes a copy of the first, which defines the same symbolic variables.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir.equal import structural_equal, structural_hash
from relax_ref.ops.registry import lookup
from relax_ref.semantics.normalize import normalize

from .rewrite import has_effect
from .registry import Pass, register_pass
from .rewrite import Rewriter, finish


@register_pass("EliminateCommonSubexpr", exact=True)
def eliminate_common_subexpr(mod: rx.IRModule) -> rx.IRModule:
    """PASS-cse-1..3 with ``call_only=False``: every pure value is a candidate."""
    return _run(mod, call_only=False)


def eliminate_common_subexpr_with(call_only: bool = False) -> Pass:
    """The pass with TVM's option: ``call_only=True`` merges only call values."""
    if not call_only:
        return eliminate_common_subexpr
    return Pass("EliminateCommonSubexpr", lambda m: _run(m, call_only=True), exact=True,
                doc=eliminate_common_subexpr.doc, options={"call_only": True})


def _run(mod: rx.IRModule, *, call_only: bool) -> rx.IRModule:
    mod = normalize(mod)
    return finish(_Eliminator(mod, call_only).module(mod))


class _Key:
    """A binding's value (struct info stripped) and, for a match_cast, its target:
    hashed and compared structurally, with free variables compared by identity."""

    __slots__ = ("value", "cast", "_hash")

    def __init__(self, value: rx.Expr, cast) -> None:
        self.value = _strip(value)
        self.cast = cast
        self._hash = hash((structural_hash(self.value),
                           None if cast is None else structural_hash(cast)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self._hash == other._hash and \
            structural_equal(self.value, other.value) and \
            (self.cast is other.cast or (self.cast is not None and other.cast is not None
                                         and structural_equal(self.cast, other.cast)))


def _strip(e: rx.Expr) -> rx.Expr:
    """``e`` without the struct info normalization put on it, so that a value rebuilt by
    the rewrite compares equal to its normalized twin (variables keep their own)."""
    if isinstance(e, rx.Call):
        op = _strip(e.op) if isinstance(e.op, rx.Expr) else e.op
        return rx.Call(op, tuple(_strip(a) for a in e.args), e.attrs, e.sinfo_args)
    if isinstance(e, rx.Tuple):
        return rx.Tuple(tuple(_strip(f) for f in e.fields))
    if isinstance(e, rx.TupleGetItem):
        return rx.TupleGetItem(_strip(e.tuple_value), e.index)
    if isinstance(e, rx.Constant):
        return rx.Constant(e.data)
    if isinstance(e, rx.ShapeExpr):
        return rx.ShapeExpr(e.values)
    if isinstance(e, rx.PrimValue):
        return rx.PrimValue(e.value)
    if isinstance(e, rx.StringImm):
        return rx.StringImm(e.value)
    if isinstance(e, rx.DataTypeImm):
        return rx.DataTypeImm(e.value)
    if isinstance(e, rx.ExternFunc):
        return rx.ExternFunc(e.global_symbol)
    if isinstance(e, rx.If):
        return rx.If(_strip(e.cond), _strip(e.true_branch), _strip(e.false_branch))
    if isinstance(e, rx.SeqExpr):
        blocks = tuple(type(b)(tuple(_strip_binding(x) for x in b.bindings)) for b in e.blocks)
        return rx.SeqExpr(blocks, _strip(e.body))
    if isinstance(e, rx.Function):
        return rx.Function(e.params, _strip(e.body), e.ret_struct_info, e.is_pure, e.attrs,
                           e.is_private)
    return e  # variables, global variables, ops


def _strip_binding(b: rx.Binding) -> rx.Binding:
    if isinstance(b, rx.MatchCast):
        return rx.MatchCast(b.var, _strip(b.value), b.struct_info)
    return rx.VarBinding(b.var, _strip(b.value))


def contains_effect(value: rx.Expr, mod: rx.IRModule) -> bool:
    """Whether evaluating ``value`` may have an effect or allocate: such a call anywhere
    in it, nested functions aside (creating a closure runs nothing); for a function
    literal, its body (TVM's ContainsImpureCall, plus allocations)."""
    found = False

    class _Find(Rewriter):
        def function(self, func):  # noqa: ARG002 - inner functions are not run here
            return func

        def call(self, e):
            nonlocal found
            found = found or has_effect(e, mod) or _allocates(e)
            return super().call(e)

    finder = _Find()
    if isinstance(value, rx.Function):
        finder.seq(value.body)
    else:
        finder.expr(value)
    return found


def _allocates(call: rx.Call) -> bool:
    """Whether ``call`` allocates: a value with identity, never shared (PASS-cse-2)."""
    if not isinstance(call.op, rx.Op):
        return False
    opdef = lookup(call.op.name)
    return opdef is not None and opdef.allocator


class _Eliminator(Rewriter):
    def __init__(self, mod: rx.IRModule, call_only: bool):
        super().__init__()
        self.mod = mod
        self.call_only = call_only
        # Key -> the variables bound to that value so far, first one first.
        self.seen: dict[_Key, list[rx.Var]] = {}

    # -- scopes (PASS-cse-3) -------------------------------------------------------------------
    def function(self, func: rx.Function) -> rx.Function:
        saved = (self.seen, self.var_map)
        self.seen, self.var_map = {}, {}
        out = super().function(func)
        self.seen, self.var_map = saved
        return out

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.If):
            cond = self.expr(e.cond)
            then_b = self._inner(e.true_branch)
            else_b = self._inner(e.false_branch)
            if cond is e.cond and then_b is e.true_branch and else_b is e.false_branch:
                return e
            return rx.If(cond, then_b, else_b, span=e.span)
        return super().expr(e)

    def _inner(self, s: rx.SeqExpr) -> rx.SeqExpr:
        saved = ({k: list(v) for k, v in self.seen.items()}, dict(self.var_map))
        out = self.seq(s)
        self.seen, self.var_map = saved
        return out

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        if not isinstance(block, rx.DataflowBlock):
            return super().block(block)
        saved_map = dict(self.var_map)
        out = super().block(block)
        for key in list(self.seen):
            self.seen[key] = [v for v in self.seen[key] if not isinstance(v, rx.DataflowVar)]
        self.var_map = saved_map
        return out

    # -- bindings (PASS-cse-1, PASS-cse-2) --------------------------------------------------------
    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        value = self.expr(b.value)
        rebuilt = b if value is b.value else (
            rx.MatchCast(b.var, value, b.struct_info, span=b.span) if isinstance(b, rx.MatchCast)
            else rx.VarBinding(b.var, value, span=b.span))
        if self.call_only and not isinstance(value, rx.Call):
            return [rebuilt]
        if contains_effect(value, self.mod):
            return [rebuilt]
        key = _Key(value, b.struct_info if isinstance(b, rx.MatchCast) else None)
        earlier = self.seen.get(key)
        if earlier and self._can_stand_for(earlier[0], b.var):
            first = earlier[0]
            earlier.append(b.var)
            self.var_map[id(b.var)] = first
            return [rx.VarBinding(b.var, first, span=b.span)]
        self.seen.setdefault(key, []).append(b.var)
        return [rebuilt]

    @staticmethod
    def _can_stand_for(first: rx.Var, var: rx.Var) -> bool:
        """``first`` replaces ``var`` only when both promise the same struct info."""
        return structural_equal(first.struct_info, var.struct_info)
