"""RemoveUnusedOutputs (TVM's name): private functions returning tuples return only the
fields some caller uses (spec/passes.md, PASS-unused-outputs-*).

Contract:
- PASS-unused-outputs-1: a private Relax function whose result is a tuple is rewritten
  only when every reference to it in the module is a direct call. The variable bound to
  each call, and every variable bound to it by a plain ``z = y``, form the call's
  result; a field is used when some ``y[i]`` reads it. Any other use of the result
  (returned, passed on, put in a tuple, match_cast...) uses every field.
- PASS-unused-outputs-2: an unused field whose return annotation is checked at run time
  (not provably satisfied by the body) counts as used: removing it would remove a trap.
- PASS-unused-outputs-3: the function returns the tuple of its used fields, in order;
  when exactly one field is used it returns that field itself (not a 1-tuple); when none
  is, the empty tuple. Its return annotation, if written, is cut the same way.
- PASS-unused-outputs-4: at every call, ``y[i]`` becomes ``y[j]`` (j the new position of
  field i), or ``y`` itself when one field is left; the result variables' struct info is
  deduced again. TVM rebuilds the old tuple with NaN placeholders and relies on
  CanonicalizeBindings and DeadCodeElimination; the computations of removed fields stay
  in the callee here too (DeadCodeElimination removes them).
- PASS-unused-outputs-5: results of public functions are preserved exactly.
"""
from __future__ import annotations

from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import Check, base_check
from relax_ref.solver.analyzer import Analyzer

from .references import global_uses
from .registry import register_pass
from .rewrite import Rewriter, finish


def _result_tuple(func: rx.Function) -> si.TupleStructInfo | None:
    ret = func.struct_info.ret if isinstance(func.struct_info, si.FuncStructInfo) else None
    return ret if isinstance(ret, si.TupleStructInfo) else None


class _Usage(Rewriter):
    """PASS-unused-outputs-1: which fields of each candidate's result are read."""

    def __init__(self, masks: dict[str, list[bool]]):
        super().__init__()
        self.masks = masks
        self.owner: dict[int, str] = {}  # id of a result variable -> the callee

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        v = b.value
        if isinstance(b, rx.VarBinding):
            if isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar) \
                    and v.op.name_hint in self.masks:
                self.owner[id(b.var)] = v.op.name_hint
            elif isinstance(v, rx.Var) and id(v) in self.owner:
                self.owner[id(b.var)] = self.owner[id(v)]
                return [b]
        return super().binding(b)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.TupleGetItem) and id(e.tuple_value) in self.owner:
            mask = self.masks[self.owner[id(e.tuple_value)]]
            if 0 <= e.index < len(mask):
                mask[e.index] = True
            return e
        return super().expr(e)

    def use(self, v: rx.Var) -> rx.Expr:
        if id(v) in self.owner:
            mask = self.masks[self.owner[id(v)]]
            mask[:] = [True] * len(mask)
        return v


def _cut_callee(func: rx.Function, mask: list[bool]) -> rx.Function:
    """PASS-unused-outputs-3."""
    result = func.body.body
    keep = [i for i, used in enumerate(mask) if used]
    if isinstance(result, rx.Tuple) and len(result.fields) == len(mask):
        fields = [result.fields[i] for i in keep]
    else:
        fields = [rx.TupleGetItem(result, i) for i in keep]
    new_result = fields[0] if len(fields) == 1 else rx.Tuple(tuple(fields))
    ret = func.ret_struct_info
    if isinstance(ret, si.TupleStructInfo):
        kept = [ret.fields[i] for i in keep]
        ret = kept[0] if len(kept) == 1 else si.TupleStructInfo(tuple(kept))
    body = rx.SeqExpr(func.body.blocks, new_result, span=func.body.span)
    return rx.Function(func.params, body, ret, func.is_pure, func.attrs, func.is_private,
                       span=func.span)


class _Remap(Rewriter):
    """PASS-unused-outputs-4 in one function."""

    def __init__(self, masks: dict[str, list[bool]]):
        super().__init__()
        self.masks = masks
        self.owner: dict[int, str] = {}

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        v = b.value
        if isinstance(b, rx.VarBinding):
            callee = None
            if isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar) \
                    and v.op.name_hint in self.masks:
                callee = v.op.name_hint
            elif isinstance(v, rx.Var) and id(v) in self.owner:
                callee = self.owner[id(v)]
            if callee is not None:
                self.owner[id(b.var)] = callee
                # Its struct info is the callee's new result: deduce it again.
                self.var_map[id(b.var)] = type(b.var)(b.var.name_hint, None, span=b.var.span)
        return super().binding(b)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.TupleGetItem) and id(e.tuple_value) in self.owner:
            mask = self.masks[self.owner[id(e.tuple_value)]]
            tup = self.use(e.tuple_value)
            if sum(mask) == 1:
                return tup
            return rx.TupleGetItem(tup, sum(mask[:e.index]), span=e.span)
        return super().expr(e)


@register_pass("RemoveUnusedOutputs", exact=True)
def remove_unused_outputs(mod: rx.IRModule) -> rx.IRModule:
    """Cut the unused fields of tuples returned by private functions."""
    mod = normalize(mod)
    uses = global_uses(mod)
    analyzer = Analyzer()
    masks: dict[str, list[bool]] = {}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function) and func.is_private and uses[name].only_called:
            tup = _result_tuple(func)
            if tup is not None:
                mask = [False] * len(tup.fields)
                ret, body = func.ret_struct_info, func.body.struct_info
                if ret is not None:
                    # PASS-unused-outputs-2: fields checked at run time stay.
                    if not isinstance(ret, si.TupleStructInfo) or \
                            not isinstance(body, si.TupleStructInfo):
                        continue
                    for i, (want, got) in enumerate(zip(ret.fields, body.fields)):
                        if base_check(want, got, analyzer) is not Check.PASS:
                            mask[i] = True
                masks[name] = mask
    if not masks:
        return finish(mod)
    usage = _Usage(masks)
    for func in mod.functions.values():
        if isinstance(func, rx.Function):
            usage.function(func)
    masks = {k: m for k, m in masks.items() if not all(m)}
    if not masks:
        return finish(mod)
    functions = {}
    for name, func in mod.functions.items():
        if isinstance(func, rx.Function):
            if name in masks:
                func = _cut_callee(func, masks[name])
            func = _Remap(masks).function(func)
        functions[name] = func
    return finish(mod.with_functions(functions))
