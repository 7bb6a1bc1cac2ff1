"""What an op's legalization sees and how it emits tensor programs (spec/te.md, TE-leg-*).

``OpDef.legalize(ctx) -> rx.Expr | None`` is called by ``LegalizeOps`` for each call of
the op whose operands and result have known shapes. It builds te tensors from the
operands (``ctx.tensor(i)``), computes, and returns ``ctx.call_te(out, "name")``: a
``call_tir`` of the PrimFunc ``create_prim_func`` writes, which the pass adds to the
module (once per distinct PrimFunc). A legalization may instead return another Relax
expression (a call of other ops, which the pass legalizes in turn), or None to leave
the call as it is (``ctx.decline``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from relax_ref.errors import GUARD_KINDS
from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.dtype import BOOL, INT64, DataType

from .prim_func import create_prim_func
from .tensor import Placeholder, Tensor, placeholder


class Decline(Exception):
    """The legalization cannot lower this call (an unknown shape or value); the call
    stays as it is (TE-leg-2)."""


@dataclass
class LegalizeContext:
    """One call being legalized. ``arg_sinfo`` is the struct info of each operand;
    ``add_prim_func(name_hint, func) -> GlobalVar`` puts a PrimFunc into the module."""

    call: rx.Call
    arg_sinfo: list[si.StructInfo]
    add_prim_func: Callable[[str, Any], rx.GlobalVar]
    # Symbolic variables known to be sizes (never negative): the enclosing function binds
    # them as tensor or shape dimensions (TE-leg-4, ``is_size``).
    sizes: frozenset[P.Var] = frozenset()
    # Makes the variable of an emitted binding (a DataflowVar inside a dataflow block).
    new_var: Callable[[str], rx.Var] = lambda name: rx.Var(name)  # noqa: E731
    # Bindings a legalization emits before the call's own (TE-leg-6).
    emitted: list[rx.Binding] = field(default_factory=list)
    _inputs: list[tuple[Tensor, rx.Expr]] = field(default_factory=list)
    # Scalar parameters fed by R.Prim operands of unknown value (``prim``), by id.
    _scalars: dict[int, rx.Expr] = field(default_factory=dict)
    # Run-time checks the next PrimFunc asserts before computing (``require``).
    _guards: list[tuple[P.PrimExpr, str]] = field(default_factory=list)

    # -- the call --------------------------------------------------------------------------
    @property
    def op_name(self) -> str:
        return self.call.op.name

    @property
    def args(self) -> tuple[rx.Expr, ...]:
        return self.call.args

    def attr(self, name: str, default: Any = None) -> Any:
        return self.call.attrs.get(name, default)

    @property
    def result_sinfo(self) -> si.StructInfo:
        return self.call.struct_info

    def decline(self, why: str) -> "Decline":
        return Decline(why)

    # -- operands as te values -----------------------------------------------------------
    def tensor(self, i: int, name: str | None = None) -> Tensor:
        """Operand ``i`` (a tensor of known shape) as a placeholder named after it."""
        s = self.arg_sinfo[i]
        if not isinstance(s, si.TensorStructInfo) or s.shape is None or s.dtype.is_void:
            raise Decline(f"operand {i} has no known shape and dtype")
        return self.placeholder(self.call.args[i], s.shape, s.dtype, name)

    def placeholder(self, source: rx.Expr, shape: Sequence[P.PrimExpr], dtype: DataType,
                    name: str | None = None) -> Tensor:
        """A placeholder fed by the Relax expression ``source`` (for operands inside
        tuples, e.g. the tensors of ``R.concat``)."""
        if name is None:
            name = getattr(source, "name_hint", None) or "ABCDEFGH"[len(self._inputs) % 8]
        t = placeholder(shape, dtype, name)
        self._inputs.append((t, source))
        return t

    def tuple_tensors(self, i: int) -> list[Tensor]:
        """Operand ``i`` (a tuple of tensors of known shapes) as placeholders."""
        s = self.arg_sinfo[i]
        if not isinstance(s, si.TupleStructInfo):
            raise Decline(f"operand {i} is not a tuple of known fields")
        arg = self.call.args[i]
        out = []
        for k, f in enumerate(s.fields):
            if not isinstance(f, si.TensorStructInfo) or f.shape is None or f.dtype.is_void:
                raise Decline(f"field {k} of operand {i} has no known shape")
            src = arg.fields[k] if isinstance(arg, rx.Tuple) else rx.TupleGetItem(arg, k)
            out.append(self.placeholder(src, f.shape, f.dtype))
        return out

    def prim(self, i: int) -> P.PrimExpr:
        """Operand ``i`` (an ``R.Prim``) as a PrimExpr: its value when known in int64
        symbolic variables (which reach the PrimFunc as TE-func-2 scalars), else a scalar
        parameter of the PrimFunc that the operand itself feeds (TE-func-4)."""
        s = self.arg_sinfo[i]
        if not isinstance(s, si.PrimStructInfo) or s.dtype.is_void:
            raise Decline(f"operand {i} is not a prim value of known type")
        if s.value is not None and all(v.dtype == INT64 for v in P.free_vars(s.value)):
            return s.value
        source = self.call.args[i]
        var = P.Var(getattr(source, "name_hint", None) or f"p{i}", s.dtype)
        self._scalars[id(var)] = source
        return var

    def is_size(self, v: P.Var) -> bool:
        """Whether ``v`` is known never to be negative: a dimension of a tensor operand of
        this call, or a dimension the enclosing function binds (TE-leg-4), for
        legalizations whose result would differ for a negative value."""
        if v in self.sizes:
            return True
        for s in self.arg_sinfo:
            if isinstance(s, si.TensorStructInfo) and s.shape is not None:
                if any(d is v for d in s.shape):
                    return True
        return False

    def require_sizes(self, exprs: Sequence[P.PrimExpr], what: str = "a value") -> None:
        """Decline unless every variable of ``exprs`` is a size (``is_size``, TE-leg-4):
        for lowerings written for values that are never negative."""
        for e in exprs:
            for v in P.free_vars(e):
                if not self.is_size(v):
                    raise Decline(f"{what} uses {v.name}, which may be negative at run time")

    def shape(self, i: int) -> tuple[P.PrimExpr, ...]:
        """Operand ``i`` (a shape of known dimensions) as PrimExprs."""
        s = self.arg_sinfo[i]
        if isinstance(s, si.ShapeStructInfo) and s.values is not None:
            return tuple(s.values)
        raise Decline(f"operand {i} is not a shape of known dimensions")

    def result_shape(self, k: int | None = None) -> tuple[P.PrimExpr, ...]:
        """The deduced shape of the result (field ``k`` of a tuple result)."""
        s = self.result_sinfo
        if k is not None:
            s = s.fields[k] if isinstance(s, si.TupleStructInfo) else None
        if not isinstance(s, si.TensorStructInfo) or s.shape is None:
            raise Decline("the result has no known shape")
        return tuple(s.shape)

    def broadcast(self, t: Tensor, out_shape: Sequence[P.PrimExpr],
                  idx: Sequence[P.PrimExpr], kind: str = "shape_mismatch") -> P.PrimExpr:
        """``t`` read at ``idx`` of a result of ``out_shape`` it broadcasts to (aligned
        at the right). A dimension provably 1 is read at 0, one provably the result's at
        the result's index; any other is decided at run time: the PrimFunc requires it to
        be 1 or the result's (a trap of ``kind``, the op's own check) and reads at
        ``T.Select(d == 1, 0, i)`` (TE-leg-3)."""
        from relax_ref.ir.equal import structural_equal

        lead = len(out_shape) - t.ndim
        if lead < 0:
            raise Decline(f"{t.name} has more dimensions than the result")
        index = []
        for d, dim in enumerate(t.shape):
            out_dim, i = out_shape[lead + d], idx[lead + d]
            if isinstance(dim, P.IntImm) and dim.value == 1:
                index.append(0)
                continue
            if structural_equal(dim, out_dim, map_free_vars=False):
                index.append(i)
                continue
            one = P.IntImm(1, dim.dtype)
            if provable(P.EQ(dim, one, BOOL)):
                index.append(0)
            elif provable(P.EQ(dim, out_dim, BOOL)):
                index.append(i)
            else:
                is_one = P.EQ(dim, one, BOOL)
                self.require(P.Or(is_one, P.EQ(dim, out_dim, BOOL), BOOL), kind,
                             f"dimension {d} of {t.name} ({self.show(dim)}) must be 1 or "
                             f"the result's {self.show(out_dim)}")
                index.append(P.Select(is_one, P.IntImm(0, i.dtype), i, i.dtype))
        return t[tuple(index)]

    def require(self, condition: P.PrimExpr, kind: str, message: str) -> None:
        """Check ``condition`` at run time where compile time cannot prove it: the
        PrimFunc ``call_te`` writes next asserts it first, and a false one traps as the
        op's own check of kind ``kind`` would (TE-leg-7, EXEC-tir-assert-2). A condition
        that is literally true adds nothing."""
        if isinstance(condition, P.IntImm) and condition.value:
            return
        self._guards.append((condition, guard_message(kind, self.op_name, message)))

    def require_equal(self, a, b, what: str, kind: str = "shape_mismatch") -> None:
        """The op's check ``a == b`` (``what`` names the two): nothing where the
        analyzer proves it, else a guard (``require``)."""
        cond = P.EQ(_i64(a), _i64(b), BOOL)
        if not provable(cond):
            self.require(cond, kind, f"{what}: {self.show(a)} must equal {self.show(b)}")

    def require_divides(self, total, part: int, what: str,
                        kind: str = "shape_mismatch") -> None:
        """The op's check ``total % part == 0`` (``part`` a positive constant)."""
        cond = P.EQ(P.FloorMod(_i64(total), _i64(part), INT64), _i64(0), BOOL)
        if not provable(cond):
            self.require(cond, kind, f"{what}: {self.show(total)} must be a multiple of "
                                     f"{part}")

    @staticmethod
    def show(e: P.PrimExpr) -> str:
        """``e`` as TVMScript writes it, for a guard's message."""
        from relax_ref.ir.text import print_prim_expr

        return print_prim_expr(e) if isinstance(e, P.PrimExpr) else str(e)

    # -- emitting -------------------------------------------------------------------------
    def call_te(self, outputs: Tensor | Sequence[Tensor], name: str) -> rx.Call:
        """``R.call_tir`` of the PrimFunc computing ``outputs`` from the placeholders they
        depend on (TE-leg-1). A list of outputs gives a tuple result."""
        outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
        needed = _placeholders_of(outs)
        inputs = [(t, src) for t, src in self._inputs if id(t) in needed]
        passthrough = [t for t in outs if isinstance(t.op, Placeholder)]
        if passthrough:
            raise ValueError(f"{name}: an output must be computed, not a placeholder")
        created = create_prim_func([t for t, _ in inputs] + outs, scalars_at=len(inputs),
                                   guards=tuple(self._guards))
        self._guards.clear()
        gv = self.add_prim_func(name, created.func)
        # Symbolic variables no buffer binds travel as prim values after the tensors, to
        # the PrimFunc's scalar parameters (TE-func-2; TVM 0.27's call_tir form); a
        # scalar standing for an R.Prim operand is that operand (TE-func-4).
        args = rx.Tuple(tuple(src for _, src in inputs)
                        + tuple(self._scalars[id(v)] if id(v) in self._scalars
                                else rx.PrimValue(v) for v in created.tir_vars))
        # Several outputs are several sinfo_args (``out_ty=[...]``, SI-struct-dps-2).
        ty = tuple(si.TensorStructInfo(t.shape, t.dtype, len(t.shape)) for t in outs)
        return rx.Call(rx.Op("relax.call_tir"), (gv, args), sinfo_args=ty,
                       span=self.call.span)

    def call_packed(self, func: str, *args: rx.Expr, pure: bool = True) -> rx.Call:
        """The call as a call of the runtime function ``func`` with ``args`` and the
        call's own struct info as the result (TE-leg-5): ``R.call_pure_packed`` for a
        pure op, ``R.call_packed`` otherwise, as TVM lowers its FCallPacked ops."""
        ret = self.call.struct_info
        if pure:
            return rx.Call(rx.Op("relax.call_pure_packed"), (rx.ExternFunc(func),) + args,
                           sinfo_args=(ret,), span=self.call.span)
        callee = rx.ExternFunc(func, si.FuncStructInfo(None, si.ObjectStructInfo(), False))
        return rx.Call(callee, args, sinfo_args=(ret,), span=self.call.span)

    def emit(self, value: rx.Expr, name: str = "lv") -> rx.Var:
        """Bind ``value`` before the call being lowered (TE-leg-6); its variable."""
        var = self.new_var(name)
        self.emitted.append(rx.VarBinding(var, value, span=self.call.span))
        return var

    def emit_match_cast(self, value: rx.Expr, sinfo: si.StructInfo, name: str = "lv") -> rx.Var:
        """``R.match_cast(value, sinfo)`` before the call: it defines the symbolic
        variables of ``sinfo`` that nothing defined before (TE-leg-6)."""
        var = self.new_var(name)
        self.emitted.append(rx.MatchCast(var, value, sinfo, span=self.call.span))
        return var

    def call_op(self, name: str, *args: rx.Expr, **attrs: Any) -> rx.Call:
        """A call of another op (legalized in turn by the pass)."""
        return rx.Call(rx.Op(name), tuple(args), rx.Attrs.of(attrs), span=self.call.span)


def guard_message(kind: str, op: str, message: str) -> str:
    """A guard's message, ``"kind: op: message"``: a failed TIR assert with it traps as
    the op's check of that kind (TE-leg-7, EXEC-tir-assert-2)."""
    if kind not in GUARD_KINDS:
        raise ValueError(f"{kind!r} is not a check kind a guard may raise")
    return f"{kind}: {op}: {message}"


def guard_stmt(facts: Sequence[P.PrimExpr], kind: str, op: str, message: str):
    """The assert of a serial PrimFunc (one a lowering writes without ``call_te``) for
    the op's check that all ``facts`` hold, on the function's own variables, leaving out
    each fact the analyzer proves; None when it proves them all (TE-leg-7)."""
    from relax_ref.ir import tir

    from .tensor import all_of

    left = [f for f in facts if not provable(f)]
    return tir.AssertStmt(all_of(*left), guard_message(kind, op, message)) if left else None


def provable(cond: P.PrimExpr, *, nonneg: Sequence[P.PrimExpr] | None = None) -> bool:
    """Whether ``cond`` holds for every value of its variables: all of them non-negative
    (SYM-assume-1), or, given ``nonneg``, only the bare variables among those. The
    compile-time question a lowering asks before it leaves out an op's check."""
    from relax_ref.solver.analyzer import Analyzer

    if nonneg is None:
        return Analyzer().can_prove(cond)
    analyzer = Analyzer(shape_vars_nonneg=False)
    for d in nonneg:
        if isinstance(d, P.Var):
            analyzer.add_lower_bound(d, 0)
    return analyzer.can_prove(cond)


def _i64(v) -> P.PrimExpr:
    return v if isinstance(v, P.PrimExpr) else P.IntImm(int(v), INT64)


def _placeholders_of(outs: list[Tensor]) -> set[int]:
    seen: set[int] = set()
    found: set[int] = set()
    stack = [t for t in outs]
    while stack:
        t = stack.pop()
        if isinstance(t.op, Placeholder):
            found.add(id(t))
            continue
        if id(t.op) in seen:
            continue
        seen.add(id(t.op))
        stack.extend(t.op.inputs)
    return found
