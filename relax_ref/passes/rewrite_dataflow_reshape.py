"""RewriteDataflowReshape (TVM's name): a ``call_tir`` of a PrimFunc that only moves
elements in row-major order becomes ``R.reshape`` (spec/passes.md, PASS-reshape-*).

After LegalizeOps, reshape, flatten, squeeze and expand_dims are tensor programs; a
reshape as an op lets later passes (and the VM) treat it as a view. Whether a PrimFunc
is such a copy is decided from its loop nest and buffer indices, never from its name:

- PASS-reshape-2: the shape of the PrimFunc (one spatial block under a perfect loop nest,
  storing a load of one input into the output);
- PASS-reshape-3: the proof, by the analyzer, that output element ``i`` (row-major) is
  input element ``i`` for every ``i``, and every output element is written;
- PASS-reshape-4: the proof that the call binds the PrimFunc's buffers without a
  shape mismatch (so the rewrite removes no trap) and that the element counts agree.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL
from relax_ref.ir.equal import structural_equal
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.expr_utils import substitute

from .registry import register_pass
from .rewrite import Rewriter, finish

_CALL_TIR = "relax.call_tir"
_TRIVIAL_FOR_KINDS = ("serial", "parallel", "vectorized", "unroll")


def _lowered(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pass rewrites what LegalizeOps makes."""
    from .legalize_ops import legalize_ops

    return legalize_ops(mod)


@register_pass("RewriteDataflowReshape", fuzz_inputs=_lowered)
def rewrite_dataflow_reshape(mod: rx.IRModule) -> rx.IRModule:
    """PASS-reshape-1..4: call_tir of a row-major copy PrimFunc -> R.reshape, in dataflow
    blocks."""
    return finish(_Rewrite(mod).module(mod))


# -- the PrimFunc side ----------------------------------------------------------------------

@dataclass(frozen=True)
class ReshapeCopy:
    """A PrimFunc proved to copy input buffer ``source`` (parameter position ``source_index``)
    into its last buffer parameter in row-major order (PASS-reshape-3)."""

    source_index: int


def reshape_copy(func: tir.PrimFunc) -> ReshapeCopy | None:
    """PASS-reshape-2/3: the proof that ``func`` is a row-major copy, or None."""
    buffers = [(i, b) for i, p in enumerate(func.params)
               if (b := func.buffer_of(p)) is not None]
    if len(buffers) < 2:
        return None
    dst = buffers[-1][1]
    nest = _loop_nest(func.body)
    if nest is None:
        return None
    loops, realize = nest
    block = realize.block
    store = block.body
    if not (isinstance(store, tir.BufferStore) and store.buffer is dst
            and isinstance(store.value, tir.BufferLoad)):
        return None
    load = store.value
    src_index = next((i for i, b in buffers[:-1] if b is load.buffer), None)
    if src_index is None or load.buffer.dtype != dst.dtype or load.dtype != dst.dtype \
            or dst.dtype.lanes != 1:
        return None
    if not _plain_buffer(load.buffer) or not _plain_buffer(dst):
        return None
    # A bare buffer dimension is a size; a scalar parameter may be negative.
    analyzer = Analyzer(shape_vars_nonneg=False)
    for _, b in buffers:
        for dim in b.shape:
            if isinstance(dim, P.Var):
                analyzer.add_lower_bound(dim, 0)
    if not _loops_bind_block(loops, realize, analyzer):
        return None
    # Index expressions may name the loop variables instead of the block's: they are equal.
    rename = {l.loop_var: iv.var for l, iv in zip(loops, block.iter_vars)}
    load_idx = tuple(substitute(e, rename) for e in load.indices)
    store_idx = tuple(substitute(e, rename) for e in store.indices)
    iters = block.iter_vars
    if _covers(dst, store_idx, iters, analyzer):
        trivial, other, other_idx = dst, load.buffer, load_idx
    elif _covers(load.buffer, load_idx, iters, analyzer):
        trivial, other, other_idx = load.buffer, dst, store_idx
    else:
        return None
    if not analyzer.prove_equal(_product(trivial.shape), _product(other.shape)):
        return None
    box = [fact for iv in iters for fact in (P.LE(P.const(0, iv.var.dtype), iv.var, BOOL),
                                            P.LT(iv.var, iv.dom.extent, BOOL))]
    with analyzer.assuming(*box):
        if not (_digits_of_position(other, other_idx, iters, analyzer)
                or _same_position(other, other_idx, iters, analyzer)):
            return None
    return ReshapeCopy(src_index)


def _loop_nest(body: tir.Stmt) -> tuple[list[tir.For], tir.SBlockRealize] | None:
    """The perfect loop nest under an empty root block, ending in one block realize."""
    if isinstance(body, tir.SBlockRealize) and not body.block.iter_vars \
            and not body.iter_values and _is_true(body.predicate) \
            and _bare(body.block):
        body = body.block.body
    loops: list[tir.For] = []
    while isinstance(body, tir.For):
        if body.kind not in _TRIVIAL_FOR_KINDS:
            return None
        loops.append(body)
        body = body.body
    if not isinstance(body, tir.SBlockRealize):
        return None
    return loops, body


def _bare(block: tir.SBlock) -> bool:
    return block.init is None and not block.alloc_buffers and not block.match_buffers


def _is_true(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 1


def _plain_buffer(b: tir.Buffer) -> bool:
    """Compact row-major, so that a flat index is the element's position."""
    return not b.strides and not b.axis_separators and (
        b.elem_offset is None or (isinstance(b.elem_offset, P.IntImm)
                                  and b.elem_offset.value == 0))


def _loops_bind_block(loops: list[tir.For], realize: tir.SBlockRealize,
                      analyzer: Analyzer) -> bool:
    """The block runs once per point of its domain [0, extent) per axis: each iter var
    is spatial and bound to its own loop, which starts at 0 and has the same extent."""
    block = realize.block
    if not (_is_true(realize.predicate) and _bare(block)
            and len(block.iter_vars) == len(loops) == len(realize.iter_values)):
        return False
    for loop, iv, value in zip(loops, block.iter_vars, realize.iter_values):
        if iv.kind != "S" or value is not loop.loop_var:
            return False
        if not (analyzer.prove_equal(loop.min, 0) and analyzer.prove_equal(iv.dom.min, 0)
                and analyzer.prove_equal(loop.extent, iv.dom.extent)):
            return False
    return True


def _covers(buf: tir.Buffer, indices, iters, analyzer: Analyzer) -> bool:
    """``buf[v0, v1, ...]`` with the block's iter vars in order, over the whole buffer:
    the access visits every element once, in row-major order."""
    return len(indices) == len(iters) == len(buf.shape) and all(
        idx is iv.var and analyzer.prove_equal(dim, iv.dom.extent)
        for idx, iv, dim in zip(indices, iters, buf.shape))


def _digits_of_position(buf: tir.Buffer, indices, iters, analyzer: Analyzer) -> bool:
    """Under the block's domain: the indices are the row-major digits of the iteration's
    own position F (``F // s0``, then ``F // s_j % d_j`` with ``s_j`` the product of the
    dimensions after j), the form the reshape lowering writes. F is in [0, N) (N the
    element count, equal on both sides), so digits are in bounds and sit at F. In a
    non-empty domain N > 0, so every dimension is at least 1 (a fact the canonical forms
    need; no Z3 question is asked here)."""
    dims = [_as(d, P.INT64) for d in buf.shape]
    if len(indices) != len(dims):
        return False
    own = _row_major([_as(iv.var, P.INT64) for iv in iters], [iv.dom.extent for iv in iters])
    saved, analyzer.use_z3 = analyzer.use_z3, False
    try:
        with analyzer.assuming(*(P.LE(P.const(1), d, BOOL) for d in dims)):
            for j, idx in enumerate(indices):
                stride = _product(dims[j + 1:])
                digit = own // stride if j == 0 else (own // stride) % dims[j]
                if not (all(_nonzero(d, analyzer) for d in _divisors(idx))
                        and _same_canonical_form(_as(idx, P.INT64), digit, analyzer)):
                    return False
    finally:
        analyzer.use_z3 = saved
    return True


def _same_canonical_form(a: P.PrimExpr, b: P.PrimExpr, analyzer: Analyzer) -> bool:
    """``a == b`` by the analyzer's cheap layers, or by equal canonical forms under its
    assumptions (each form equals its expression wherever the assumptions hold)."""
    return analyzer.prove_equal(a, b) or structural_equal(analyzer.simplify(a),
                                                          analyzer.simplify(b))


def _same_position(buf: tir.Buffer, indices, iters, analyzer: Analyzer) -> bool:
    """Under the block's domain: every index is in bounds (no division by zero on the
    way), and the row-major position of ``buf[indices]`` is the iteration's own."""
    if len(indices) != len(buf.shape):
        return False
    for idx, dim in zip(indices, buf.shape):
        if not all(_nonzero(d, analyzer) for d in _divisors(idx)):
            return False
        if not (analyzer.can_prove(P.LE(P.const(0, idx.dtype), idx, BOOL))
                and analyzer.can_prove(P.LT(idx, _as(dim, idx.dtype), BOOL))):
            return False
    position = _row_major([_as(i, P.INT64) for i in indices], buf.shape)
    own = _row_major([_as(iv.var, P.INT64) for iv in iters], [iv.dom.extent for iv in iters])
    return analyzer.prove_equal(position, own)


def _nonzero(e: P.PrimExpr, analyzer: Analyzer) -> bool:
    if isinstance(e, P.Mul):  # a product is nonzero where each factor is
        return _nonzero(e.a, analyzer) and _nonzero(e.b, analyzer)
    zero = P.const(0, e.dtype)
    return analyzer.can_prove(P.LT(zero, e, BOOL)) or analyzer.can_prove(P.LT(e, zero, BOOL)) \
        or analyzer.prove_not_equal(e, zero)


def _divisors(e: P.PrimExpr) -> list[P.PrimExpr]:
    out: list[P.PrimExpr] = []
    _divisors_into(e, out)
    return out


def _divisors_into(x: P.PrimExpr, out: list[P.PrimExpr]) -> None:
    if isinstance(x, (P.FloorDiv, P.FloorMod, P.Div, P.Mod)):
        out.append(x.b)
    for c in P.children(x):
        _divisors_into(c, out)


def _row_major(indices, shape) -> P.PrimExpr:
    flat: P.PrimExpr = P.const(0)
    for idx, dim in zip(indices, shape):
        flat = flat * _as(dim, P.INT64) + idx
    return flat


def _as(e: P.PrimExpr, dtype) -> P.PrimExpr:
    return e if e.dtype == dtype else P.Cast(dtype, e)


def _product(shape) -> P.PrimExpr:
    return reduce(lambda a, b: a * b, [_as(d, P.INT64) for d in shape], P.const(1))


# -- the Relax side ---------------------------------------------------------------------------

class _Rewrite(Rewriter):
    def __init__(self, mod: rx.IRModule):
        super().__init__()
        self.mod = mod
        self.copies: dict[str, ReshapeCopy | None] = {}
        self.analyzer = Analyzer()

    def global_function(self, name: str, func: rx.Function) -> rx.Function:
        self.analyzer = _function_analyzer(func)
        return self.function(func)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        # PASS-reshape-1: only dataflow blocks (ordinary blocks keep their calls).
        if not isinstance(block, rx.DataflowBlock):
            return block
        return super().block(block)

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        # PASS-reshape-1: a dataflow output (not a DataflowVar) keeps its call, as TVM.
        if isinstance(b, rx.VarBinding) and isinstance(b.var, rx.DataflowVar):
            new = self._as_reshape(b.value)
            if new is not None:
                return [rx.VarBinding(b.var, new, span=b.span)]
        return super().binding(b)

    def _as_reshape(self, call: rx.Expr) -> rx.Call | None:
        if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op)
                and call.op.name == _CALL_TIR and len(call.args) == 2
                and isinstance(call.args[0], rx.GlobalVar)
                and isinstance(call.args[1], rx.Tuple) and len(call.sinfo_args) == 1):
            return None
        name = call.args[0].name_hint
        func = self.mod.functions.get(name)
        if not isinstance(func, tir.PrimFunc):
            return None
        if name not in self.copies:
            self.copies[name] = reshape_copy(func)
        copy = self.copies[name]
        if copy is None:
            return None
        args = call.args[1].fields
        out = call.sinfo_args[0]
        if len(args) + 1 > len(func.params) or copy.source_index >= len(args):
            return None
        source = args[copy.source_index]
        src_s, out_s = source.struct_info, out
        if not (isinstance(src_s, si.TensorStructInfo) and isinstance(out_s, si.TensorStructInfo)
                and src_s.shape is not None and out_s.shape is not None
                and not src_s.dtype.is_void and src_s.dtype == out_s.dtype):
            return None
        if not _binds_without_mismatch(func, [a.struct_info for a in args] + [out_s],
                                       [a for a in args], self.analyzer):
            return None
        # PASS-reshape-4 (TVM's condition): the element counts are provably equal.
        if not self.analyzer.prove_equal(_product(src_s.shape), _product(out_s.shape)):
            return None
        return rx.Call(rx.Op("relax.reshape"), (source, rx.ShapeExpr(tuple(out_s.shape))),
                       span=call.span)


def _function_analyzer(func: rx.Function) -> Analyzer:
    """An analyzer with the function's ``tir_var_upper_bound`` facts."""
    analyzer = Analyzer()
    bounds = func.attrs.get("tir_var_upper_bound")
    if isinstance(bounds, rx.Attrs):
        syms = {v.name: v for v in defined_symbols(p.struct_info for p in func.params
                                                   if p.struct_info is not None)}
        for key, value in bounds.items:
            if key in syms and isinstance(value, int):
                analyzer.add_upper_bound(syms[key], value)
    return analyzer


def _binds_without_mismatch(func: tir.PrimFunc, sinfos: list, args: list,
                            analyzer: Analyzer) -> bool:
    """PASS-reshape-4: the call's operands and output bind ``func``'s parameters as
    EXEC-tir-bind-1 does (a bare variable dimension or a scalar parameter takes the first
    value met) and every dimension then provably agrees, so the call cannot trap on a
    shape mismatch."""
    if len(sinfos) != len(func.params):
        return False
    env: dict[P.Var, P.PrimExpr] = {}
    pending: list[tuple[P.PrimExpr, P.PrimExpr]] = []
    values = args + [None]
    for param, s, arg in zip(func.params, sinfos, values):
        buf = func.buffer_of(param)
        if buf is not None:
            if not (isinstance(s, si.TensorStructInfo) and s.shape is not None
                    and len(s.shape) == len(buf.shape) and s.dtype == buf.dtype
                    and _plain_buffer(buf)):
                return False
            for dim, actual in zip(buf.shape, s.shape):
                if isinstance(dim, P.Var) and dim not in env:
                    env[dim] = _as(actual, dim.dtype)
                else:
                    pending.append((dim, actual))
        elif isinstance(arg, rx.PrimValue) and not param.dtype.is_handle \
                and param.dtype == arg.value.dtype:
            if param in env:
                pending.append((param, arg.value))
            else:
                env[param] = arg.value
        else:
            return False
    unbound = _own_vars(func) - set(env)
    for expected, actual in pending:
        bound = substitute(expected, env)
        if any(v in unbound for v in P.free_vars(bound)):
            return False
        if not analyzer.prove_equal(_as(bound, P.INT64), _as(actual, P.INT64)):
            return False
    return True


def _own_vars(func: tir.PrimFunc) -> set[P.Var]:
    """``func``'s symbolic variables: those of its buffer shapes, and scalar parameters."""
    out = {v for _, b in func.buffer_map for e in b.shape for v in P.free_vars(e)}
    return out | {p for p in func.params if func.buffer_of(p) is None}
