"""FoldConstant (TVM's name): evaluate at compile time what only depends on constants
(spec/passes.md, PASS-fold-*).

- PASS-fold-1. Uses of a variable bound to a ``Constant`` become the constant; operands
  of op calls that are variables bound to an ``R.shape([...])`` become that shape
  expression (TVM does both, in every block).
- PASS-fold-2. Inside a dataflow block, a call of a pure op with NumPy semantics whose
  operands are all constants (``Constant``, ``R.shape`` of integers, ``R.prim_value`` of a
  literal, strings, dtypes, tuples of these) is evaluated by the interpreter -- the
  same ``OpDef.compute`` that runs it at run time, so the folded value is bit-identical
  -- and replaced by a ``Constant`` (tensor result), an ``R.shape`` (shape result) or an
  ``R.prim_value`` (scalar result). Tuple results are not folded.
- PASS-fold-3. In any block, ``R.call_tir`` of a PrimFunc of the module on constant
  tensors, with one tensor output of static shape and constant (or no) ``tir_vars``, is
  run by the TIR interpreter and replaced by a ``Constant``.
- PASS-fold-4. Nothing that depends on a run-time value is folded: a reshape whose
  target is a run-time shape (``R.tensor_to_shape(...)``, a Shape parameter, a shape
  with symbolic dimensions) stays a call (DESIGN.md section 7). Neither is a call whose
  evaluation traps (the trap stays at run time), whose value would contradict its struct
  info, or whose tensor result is larger than ``FOLD_MAX_BYTES``.
- PASS-fold-5. Bindings left unused whose value is a constant leaf are removed; nothing
  else is (TVM removes every unused pure binding, also ones that would trap).
- PASS-fold-6. A variable binding whose value changed gets the struct info of its new
  value (``rewrite.RetypingRewriter``, TVM's ReEmitBinding).
"""
from __future__ import annotations

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.numpy_dtype import numpy_dtype
from relax_ref.ops.registry import deduce_call_sinfo, lookup
from relax_ref.errors import RelaxError
from relax_ref.semantics.interpreter import Frame, Interpreter, check_value
from relax_ref.semantics.normalize import constant_sinfo, normalize
from relax_ref.values import PrimScalar, ShapeValue

from .registry import register_pass
from .rewrite import RetypingRewriter, Rewriter, finish, used_vars

# The largest tensor folding may create (TVM has no limit; a reference must not exhaust
# memory on ``R.zeros((100000, 100000))``).
FOLD_MAX_BYTES = 1 << 24


@register_pass("FoldConstant", exact=True)
def fold_constant(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fold-1..6: replace calls whose operands are all constants by their value,
    computed with the op's own NumPy semantics (or the TIR interpreter for call_tir),
    and inline the constants. Results are unchanged bit for bit."""
    mod = normalize(mod)
    folded = finish(_Folder(mod).module(mod))
    return finish(_DropDeadConstants().module(folded))


def is_constant_operand(e: rx.Expr) -> bool:
    """An operand whose value is known at compile time (PASS-fold-2)."""
    if isinstance(e, (rx.Constant, rx.StringImm, rx.DataTypeImm)):
        return True
    if isinstance(e, rx.ShapeExpr):
        return all(isinstance(d, P.IntImm) for d in e.values)
    if isinstance(e, rx.PrimValue):
        return isinstance(e.value, (P.IntImm, P.FloatImm))
    if isinstance(e, rx.Tuple):
        return all(is_constant_operand(f) for f in e.fields)
    return False


def _is_constant_leaf(e: rx.Expr) -> bool:
    """A value whose evaluation cannot fail or have an effect (PASS-fold-5)."""
    if isinstance(e, rx.ShapeExpr):
        return all(isinstance(d, P.IntImm) and d.value >= 0 for d in e.values)
    return isinstance(e, (rx.Constant, rx.PrimValue)) and is_constant_operand(e)


class _Folder(RetypingRewriter):
    def __init__(self, mod: rx.IRModule):
        super().__init__()
        self.mod = mod
        self.interp = Interpreter(mod, normalized=True)
        # What each variable is bound to, when that is a Constant or a ShapeExpr: over
        # the whole function, nested functions included (TVM's LookupBinding).
        self.bound: dict[int, rx.Expr] = {}
        self.in_dataflow = False

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        saved, self.in_dataflow = self.in_dataflow, isinstance(block, rx.DataflowBlock)
        out = super().block(block)
        self.in_dataflow = saved
        return out

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        out = super().binding(b)
        if isinstance(b, rx.VarBinding):
            value = out[0].value
            if isinstance(value, (rx.Constant, rx.ShapeExpr)):
                self.bound[id(b.var)] = value
                self.bound[id(out[0].var)] = value
        return out

    def use(self, v: rx.Var) -> rx.Expr:
        value = self.bound.get(id(v))
        return value if isinstance(value, rx.Constant) else self.var_map.get(id(v), v)

    def call(self, e: rx.Call) -> rx.Expr:
        new = super().call(e)
        if not isinstance(new.op, rx.Op):
            return new
        if new.op.name == "relax.call_tir":
            return self._fold_call_tir(new) or new
        args = tuple(self._shape_of(a) for a in new.args)
        if any(a is not b for a, b in zip(args, new.args)):
            new = rx.Call(new.op, args, new.attrs, new.sinfo_args, span=new.span)
        if not self.in_dataflow:
            return new
        opdef = lookup(new.op.name)
        if opdef is None or not opdef.pure or opdef.compute is None:
            return new
        if not all(is_constant_operand(a) for a in new.args):
            return new
        try:
            sinfo = deduce_call_sinfo(new, [_operand_sinfo(a) for a in new.args])
        except RelaxError:
            return new
        return self._evaluate(new, sinfo) or new

    def _shape_of(self, a: rx.Expr) -> rx.Expr:
        if isinstance(a, rx.Var) and isinstance(self.bound.get(id(a)), rx.ShapeExpr):
            return self.bound[id(a)]
        return a

    def _fold_call_tir(self, call: rx.Call) -> rx.Expr | None:
        callee = call.args[0]
        if not (isinstance(callee, rx.GlobalVar)
                and isinstance(self.mod.functions.get(callee.name_hint), tir.PrimFunc)):
            return None
        if len(call.args) < 2 or not isinstance(call.args[1], rx.Tuple) or \
                not all(isinstance(f, rx.Constant) for f in call.args[1].fields):
            return None
        if len(call.args) > 2 and not is_constant_operand(call.args[2]):
            return None
        if len(call.sinfo_args) != 1 or not isinstance(call.sinfo_args[0], si.TensorStructInfo):
            return None
        return self._evaluate(call, call.sinfo_args[0])

    def _evaluate(self, call: rx.Call, sinfo: si.StructInfo | None) -> rx.Expr | None:
        """The value of ``call`` as a leaf, or None when it must stay a call."""
        if not _small_enough(sinfo):
            return None
        try:
            value = self.interp.call(call, Frame())
        except RelaxError:
            return None  # PASS-fold-4: the trap stays where it happens
        if sinfo is not None:
            try:
                check_value(value, sinfo, {}, check="struct_info", rule="EXEC-bind-1",
                            span=call.span, what="a folded value")
            except RelaxError:
                return None
        return _as_leaf(value, call.span)


def _operand_sinfo(a: rx.Expr) -> si.StructInfo:
    """The struct info of a constant operand (as normalization deduces it)."""
    if isinstance(a, rx.Constant):
        return constant_sinfo(a)
    if isinstance(a, rx.ShapeExpr):
        return si.ShapeStructInfo(a.values)
    if isinstance(a, rx.PrimValue):
        return si.PrimStructInfo(a.value.dtype, a.value)
    if isinstance(a, rx.Tuple):
        return si.TupleStructInfo(tuple(_operand_sinfo(f) for f in a.fields))
    return si.ObjectStructInfo()


def _small_enough(sinfo: si.StructInfo | None) -> bool:
    """Tensor results need a static shape within FOLD_MAX_BYTES (TVM folds only
    static shapes); shape and scalar results are small."""
    if isinstance(sinfo, (si.ShapeStructInfo, si.PrimStructInfo)):
        return True
    if not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None or sinfo.dtype.is_void:
        return False
    if not all(isinstance(d, P.IntImm) for d in sinfo.shape):
        return False
    count = 1
    for d in sinfo.shape:
        count *= d.value
    return count * numpy_dtype(sinfo.dtype).itemsize <= FOLD_MAX_BYTES


def _as_leaf(value, span) -> rx.Expr | None:
    if isinstance(value, np.ndarray):
        return rx.Constant(np.array(value, copy=True), span=span)
    if isinstance(value, ShapeValue):
        return rx.ShapeExpr(tuple(P.IntImm(int(d)) for d in value.dims), span=span)
    if isinstance(value, PrimScalar):
        dtype = value.dtype
        if dtype.is_float:
            return rx.PrimValue(P.FloatImm(float(value.value), dtype), span=span)
        return rx.PrimValue(P.IntImm(int(value.value), dtype), span=span)
    return None  # tuples and other values are not folded


class _DropDeadConstants(Rewriter):
    """PASS-fold-5: unused variable bindings of constant leaves (what folding and
    inlining leave behind) are removed; nothing else is."""

    def __init__(self) -> None:
        super().__init__()
        self.used: set[int] = set()

    def global_function(self, name: str, func: rx.Function) -> rx.Function | None:
        self.used = used_vars(func)
        return self.function(func)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        if isinstance(b, rx.VarBinding) and id(b.var) not in self.used \
                and _is_constant_leaf(b.value):
            return []
        return super().binding(b)
