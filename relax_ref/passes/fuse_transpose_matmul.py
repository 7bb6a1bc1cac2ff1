"""FuseTransposeMatmul (TVM's name): ``R.matmul(x, R.permute_dims(w))``, the transpose
swapping the last two axes, becomes one ``call_tir`` of a PrimFunc ``NT_matmul`` that
reads ``w`` transposed in place (spec/passes.md, PASS-tmatmul-*).

- PASS-tmatmul-1: the pattern: inside a dataflow block, a matmul whose second operand
  is a variable bound earlier in the same block to ``permute_dims`` exchanging the last
  two axes of a tensor of at least 2 dimensions (``axes=None`` only for 2 dimensions).
- PASS-tmatmul-2: the PrimFunc computes ``out[b..., i, j] = sum_k x[b..., i, k] *
  w[b..., j, k]`` with our matmul's rules (TE-leg-linalg-1, EXEC-linalg-matmul-3): each
  element converted to the result dtype, summed in ``accumulation_dtype``, batch
  dimensions broadcast as the matmul lowering does. Where that lowering would decline
  (unknown shapes or dtypes, bool, 0-d, an undecided broadcast), the call stays.
- PASS-tmatmul-3: the transpose's binding is dropped when the fused matmuls were its
  only uses; otherwise it stays for its other uses (TVM's pass fails there).
"""
from __future__ import annotations

from relax_ref import te
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.prim_expr import IntImm
from relax_ref.ops.linalg import broadcast_index, rounded_sum, widened
from relax_ref.semantics.normalize import normalize
from relax_ref.te.legalize import Decline, LegalizeContext

from .added_functions import AddedFunctions
from .registry import register_pass
from .rewrite import Rewriter, finish

_NAME = "NT_matmul"


# Not exact: the interpreter's matmul (NumPy) and the PrimFunc's loop may sum in
# different orders (as LegalizeOps' matmul).
@register_pass("FuseTransposeMatmul", exact=False)
def fuse_transpose_matmul(mod: rx.IRModule) -> rx.IRModule:
    """PASS-tmatmul-1..3: matmul(x, permute_dims(w)) -> call_tir of NT_matmul."""
    mod = normalize(mod)
    fuser = _Fuser(mod)
    out = fuser.module(mod)
    return finish(out.with_functions({**out.functions, **fuser.added}))


def swaps_last_two(call: rx.Expr) -> bool:
    """PASS-tmatmul-1: ``call`` is ``permute_dims`` of a tensor of known ndim >= 2 that
    exchanges its last two axes and keeps the others."""
    if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op)
            and call.op.name == "relax.permute_dims" and len(call.args) == 1):
        return False
    s = call.args[0].struct_info
    if not isinstance(s, si.TensorStructInfo) or s.ndim < 2:
        return False
    axes = call.attrs.get("axes")
    if axes is None:
        return s.ndim == 2
    if len(axes) != s.ndim:
        return False
    want = list(range(s.ndim - 2)) + [s.ndim - 1, s.ndim - 2]
    return [int(a) % s.ndim for a in axes] == want


class _Fuser(Rewriter):
    def __init__(self, mod: rx.IRModule):
        super().__init__()
        self.mod = mod
        self.added = AddedFunctions(mod)
        self.function_body: rx.Expr | None = None

    def global_function(self, name: str, func: rx.Function) -> rx.Function:
        self.function_body = func
        return self.function(func)

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        if not isinstance(block, rx.DataflowBlock):
            return super().block(block)
        transposes = {}   # id(var) -> the permute_dims call bound to it, in this block
        fused: dict[int, int] = {}  # id(transpose var) -> matmuls rewritten to read it
        out: list[rx.Binding] = []
        for b in block.bindings:
            new = None
            if isinstance(b, rx.VarBinding) and swaps_last_two(b.value):
                transposes[id(b.var)] = b.value
            elif isinstance(b, rx.VarBinding) and _is_matmul(b.value) \
                    and isinstance(b.value.args[1], rx.Var) \
                    and id(b.value.args[1]) in transposes:
                t = b.value.args[1]
                new = self._fused(b.value, transposes[id(t)].args[0])
                if new is not None:
                    fused[id(t)] = fused.get(id(t), 0) + 1
            out.extend([rx.VarBinding(b.var, new, span=b.span)] if new is not None
                       else super().binding(b))
        if not fused:
            return block if all(a is b for a, b in zip(out, block.bindings)) \
                else type(block)(tuple(out), span=block.span)
        # PASS-tmatmul-3: a transpose that only the fused matmuls read is dropped.
        uses = _use_counts(self.function_body)
        out = [b for b in out
               if not (id(b.var) in fused and uses.get(id(b.var), 0) == fused[id(b.var)])]
        return type(block)(tuple(out), span=block.span)

    def _fused(self, matmul: rx.Call, w: rx.Expr) -> rx.Call | None:
        ctx = LegalizeContext(matmul, [a.struct_info for a in (matmul.args[0], w)],
                              self.add_prim_func)
        try:
            return _nt_matmul(ctx, w)
        except Decline:
            return None

    def add_prim_func(self, name_hint: str, func) -> rx.GlobalVar:
        return self.added.add(name_hint, func)


def _is_matmul(e: rx.Expr) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.matmul" \
        and len(e.args) == 2


def _use_counts(func: rx.Expr) -> dict[int, int]:
    """How many times each variable is used in ``func`` (R.output's listing aside)."""
    counts: dict[int, int] = {}

    class _Count(Rewriter):
        def use(self, v: rx.Var) -> rx.Expr:
            counts[id(v)] = counts.get(id(v), 0) + 1
            return v
    _Count().expr(func)
    return counts


def _nt_matmul(ctx: LegalizeContext, w: rx.Expr) -> rx.Call:
    """PASS-tmatmul-2: the matmul lowering (TE-leg-linalg-1) with the second operand read
    as ``w[b..., j, k]``; ``w``'s reduction dimension is written as ``x``'s, so lengths
    that differ at run time fail the argument binding (``shape_mismatch``, as the
    matmul's own check EXEC-linalg-matmul-2)."""
    out_shape = ctx.result_shape()
    dtype = ctx.result_sinfo.dtype
    if dtype.is_bool:
        raise ctx.decline("a bool matmul is a logical or of ands, not a sum")
    x = ctx.tensor(0)
    sw = ctx.arg_sinfo[1]
    if not isinstance(sw, si.TensorStructInfo) or sw.shape is None or sw.dtype.is_void:
        raise ctx.decline("the transposed operand has no known shape and dtype")
    if x.ndim == 0:
        raise ctx.decline("a 0-d operand (the op traps)")
    k_len = x.shape[-1]
    if _is_const(sw.shape[-1]) and not _is_const(k_len):
        k_len = sw.shape[-1]  # a constant extent where there is one
        x = ctx.placeholder(ctx.args[0], x.shape[:-1] + (k_len,), x.dtype)
    wt = ctx.placeholder(w, tuple(sw.shape[:-1]) + (k_len,), sw.dtype)
    rows = x.ndim >= 2
    nbatch = len(out_shape) - rows - 1
    batch_shape = out_shape[:nbatch]
    k = te.reduce_axis(k_len, "k")
    x_batch = x.shape[:-2] if rows else ()
    w_batch = wt.shape[:-2]
    wx, ww = widened(x, dtype), widened(wt, dtype)

    def formula(idx):
        bi = idx[:nbatch]
        xi = broadcast_index(x_batch, batch_shape, bi, x.name, ctx) + \
            ([idx[nbatch]] if rows else []) + [k]
        wi = broadcast_index(w_batch, batch_shape, bi, wt.name, ctx) + [idx[-1], k]
        return wx(tuple(xi)) * ww(tuple(wi))

    return ctx.call_te(rounded_sum(_NAME, out_shape, dtype, formula, [k]), _NAME)


def _is_const(e) -> bool:
    return isinstance(e, IntImm)
