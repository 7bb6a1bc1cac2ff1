"""FuseTIR (TVM's name): each private ``Primitive`` function that FuseOps made becomes one
PrimFunc holding the bodies of the PrimFuncs it calls, and its calls become one call_tir
(spec/passes.md, PASS-fusetir-*; paper section 4.2).

- PASS-fusetir-1: the fused PrimFunc's parameters are the Primitive function's tensor
  parameters (buffers of their shapes), then int64 scalars for its symbolic variables that
  no parameter buffer has as a whole dimension (the caller passes ``R.prim_value``s, as
  LegalizeOps' PrimFuncs take them, TE-func-2), then one buffer per result. It is named
  like the Primitive function, which is removed once nothing refers to it.
- PASS-fusetir-2: the inner calls' buffers are unified with the values flowing between
  them: a parameter's buffer, a result's buffer, or, for a value only passed between
  calls, a ``T.sblock_alloc_buffer`` of the root block. Each inner PrimFunc's symbolic
  variables are mapped to expressions over the fused function's from the values passed
  (``n`` of a buffer ``(n, m, n*m)`` passed a ``(16, 16, 256)`` tensor is 16); every
  buffer dimension must then be *proved* equal to the value's (by the analyzer, so
  ``n*m`` against 256 fuses), and a variable left unbound, a dtype, rank or dimension not
  proved equal declines the fusion.
- PASS-fusetir-3: the merged body is the inner bodies in binding order under one root
  block; variables and buffers each body defines are fresh, block and buffer names made
  unique. A fused PrimFunc with a free variable that is not one of its parameters'
  is never produced (the fusion is declined instead).
- PASS-fusetir-4: declined (the Primitive function and its call stay): a body with other
  bindings than call_tir of PrimFuncs and tuple items of their results, call_tir_inplace,
  tuple parameters, a result that is a parameter or appears twice, an inner PrimFunc not
  in create_prim_func's form (one root block, plain buffers) or storing into an input, and
  a call site whose symbolic values or result shapes are not known. PrimFuncs only the
  fused functions called are removed. Nothing is computed differently: the pass is exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, HANDLE, INT64
from relax_ref.semantics.normalize import normalize
from relax_ref.semantics.sinfo_relations import defined_symbols
from relax_ref.solver.analyzer import Analyzer
from relax_ref.solver.expr_utils import substitute

from .references import global_uses
from .registry import register_pass
from .rewrite import Rewriter, finish
from .tir_merge import Names, TirCopier, free_vars

_TRUE = P.IntImm(1, BOOL)


class Declined(Exception):
    """Why a Primitive function is not fused (PASS-fusetir-4)."""


def _fused_ops(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fuzz-3: the pass merges what LegalizeOps, AnnotateTIROpPattern and FuseOps
    make."""
    from .annotate_tir_op_pattern import annotate_tir_op_pattern
    from .fuse_ops import _fuse_ops_default
    from .legalize_ops import legalize_ops

    return _fuse_ops_default(annotate_tir_op_pattern(legalize_ops(mod)))


@register_pass("FuseTIR", exact=True, fuzz_inputs=_fused_ops)
def fuse_tir(mod: rx.IRModule) -> rx.IRModule:
    """PASS-fusetir-1..4: merge each Primitive function's PrimFuncs into one PrimFunc."""
    return _fuse(normalize(mod))[0]


def declined(mod: rx.IRModule) -> dict[str, str]:
    """The Primitive functions of ``mod`` that FuseTIR leaves, and why."""
    return _fuse(normalize(mod))[1]


@dataclass
class _Merged:
    func: tir.PrimFunc
    scalars: list[P.Var]  # the Primitive function's symbolic variables passed as scalars
    n_outputs: int
    name: str = ""


def _fuse(mod: rx.IRModule) -> tuple[rx.IRModule, dict[str, str]]:
    reasons: dict[str, str] = {}
    merged: dict[str, _Merged] = {}
    for name, f in mod.functions.items():
        if isinstance(f, rx.Function) and f.attrs.get("Primitive") \
                and f.attrs.get("Codegen") is None:
            try:
                merged[name] = _merge(f, mod)
            except Declined as e:
                reasons[name] = str(e)
    if not merged:
        return mod, reasons
    # A fused PrimFunc takes the Primitive function's name where every use is a call that
    # can be rewritten (the function then goes); otherwise a name of its own. Names are
    # chosen as if every call site can be rewritten, which is the common case; where one
    # cannot, the call sites are found first and the rewrite runs again.
    uses = global_uses(mod)
    out, failed = _rewrite_call_sites(mod, merged, uses, {}, reasons)
    if failed:
        out, _ = _rewrite_call_sites(mod, merged, uses, failed, reasons)
    functions = dict(out.functions)
    # A Primitive function whose every use was rewritten is replaced by its PrimFunc.
    removed = {name for name, m in merged.items() if m.name == name}
    # PrimFuncs that only the removed functions called go too (TVM's output).
    called_before = {n for n, u in uses.items()
                     if isinstance(mod.functions[n], tir.PrimFunc)
                     and any(c in removed for c in u.calls + u.values)}
    for m in merged.values():
        functions[m.name] = m.func
    out = out.with_functions(functions)
    final = global_uses(out)
    unused = [n for n in called_before if out.functions[n].is_private]
    unused += [m.name for name, m in merged.items() if m.name != name]  # none rewritten
    for n in unused:
        if not (final[n].calls or final[n].values):
            del functions[n]
    return finish(out.with_functions(functions)), reasons


def _rewrite_call_sites(mod: rx.IRModule, merged: dict[str, _Merged], uses,
                        failed: dict[str, str], reasons: dict[str, str]):
    """The module with the calls of the merged functions rewritten (each merged function
    named as PASS-fusetir-1 says, given the functions whose call sites ``failed``), and
    the call sites that failed."""
    taken = set(mod.functions)
    for name, m in merged.items():
        if name in failed or uses[name].values or not mod.functions[name].is_private:
            reasons[name] = failed.get(name, "it is public or used as a value")
            m.name = _unique(name, taken)
        else:
            m.name = name
    sites = _CallSites(mod, merged, dict(failed))
    out = sites.module(mod)
    return out, sites.failed


def _unique(name: str, taken: set[str]) -> str:
    out, k = name, 0
    while out in taken:
        k += 1
        out = f"{name}{k}"
    taken.add(out)
    return out


# -- call sites (PASS-fusetir-1) ----------------------------------------------------------------


class _CallSites(Rewriter):
    """Rewrites each call of a merged function into a call_tir of its PrimFunc, except
    for the functions in ``failed`` (those with a call site that cannot be rewritten,
    which this traversal adds to)."""

    def __init__(self, mod: rx.IRModule, merged: dict[str, _Merged], failed: dict[str, str]):
        super().__init__()
        self.mod, self.merged, self.failed = mod, merged, failed

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        if not self._reaches_call(b.value):
            return [b]  # nothing to rewrite in it (the traversal maps no variable)
        return super().binding(b)

    def _reaches_call(self, e: rx.Expr) -> bool:
        """Whether ``e`` may hold a call of a merged function: one at its top, in its
        operands, or anything with bindings inside."""
        if isinstance(e, _LEAVES):
            return False
        if isinstance(e, rx.Call):
            if isinstance(e.op, rx.GlobalVar) and e.op.name_hint in self.merged:
                return True
            return any(self._reaches_call(a) for a in e.args)
        if isinstance(e, rx.Tuple):
            return any(self._reaches_call(f) for f in e.fields)
        if isinstance(e, rx.TupleGetItem):
            return self._reaches_call(e.tuple_value)
        return True

    def call(self, e: rx.Call) -> rx.Expr:
        e2 = super().call(e)
        if not (isinstance(e.op, rx.GlobalVar) and e.op.name_hint in self.merged):
            return e2
        name = e.op.name_hint
        try:
            new = _call_tir(e, self.mod.functions[name], self.merged[name])
        except Declined as why:
            self.failed.setdefault(name, f"a call site: {why}")
            return e2
        return new if name not in self.failed else e2


# expressions that hold no call
_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
           rx.GlobalVar, rx.ExternFunc, rx.Op)


def _call_tir(call: rx.Call, func: rx.Function, m: _Merged) -> rx.Call:
    if len(call.args) != len(func.params):
        raise Declined("the call's arguments do not match the parameters")
    values: dict[int, P.PrimExpr] = {}
    tensors = []
    for p, a in zip(func.params, call.args):
        _bind(p.struct_info, _sinfo_of(a), values)
        if isinstance(p.struct_info, si.TensorStructInfo):
            tensors.append(a)
    scalars = []
    for v in m.scalars:
        if id(v) not in values:
            raise Declined(f"the value of {v.name} at the call is not known")
        scalars.append(rx.PrimValue(values[id(v)]))
    out = _tensor_fields(call.struct_info)
    if out is None or len(out) != m.n_outputs:
        raise Declined("the call's result shapes are not known")
    return rx.Call(rx.Op("relax.call_tir"),
                   (rx.GlobalVar(m.name), rx.Tuple(tuple(tensors + scalars))),
                   sinfo_args=tuple(out), span=call.span)


def _sinfo_of(e: rx.Expr) -> si.StructInfo | None:
    if isinstance(e, rx.ShapeExpr):
        return si.ShapeStructInfo(tuple(e.values), len(e.values))
    if isinstance(e, rx.PrimValue):
        return si.PrimStructInfo(e.value.dtype, e.value)
    return getattr(e, "struct_info", None)


def _bind(param: si.StructInfo | None, arg: si.StructInfo | None,
          values: dict[int, P.PrimExpr]) -> None:
    """Symbolic variables of ``param`` standing alone, bound to what ``arg`` has there."""
    if param is None or arg is None:
        return
    dims = other = None
    if isinstance(param, si.TensorStructInfo) and isinstance(arg, si.TensorStructInfo):
        dims, other = param.shape, arg.shape
    elif isinstance(param, si.ShapeStructInfo) and isinstance(arg, si.ShapeStructInfo):
        dims, other = param.values, arg.values
    elif isinstance(param, si.PrimStructInfo) and isinstance(arg, si.PrimStructInfo):
        dims = (param.value,) if param.value is not None else None
        other = (arg.value,) if arg.value is not None else None
    if dims is None or other is None or len(dims) != len(other):
        return
    for d, a in zip(dims, other):
        if type(d) is P.Var:
            values.setdefault(id(d), a)


def _tensor_fields(s: si.StructInfo | None) -> list[si.TensorStructInfo] | None:
    fields = s.fields if isinstance(s, si.TupleStructInfo) else (s,)
    out = []
    for f in fields:
        if not (isinstance(f, si.TensorStructInfo) and f.shape is not None
                and not f.dtype.is_void):
            return None
        out.append(f)
    return out


# -- merging the PrimFuncs (PASS-fusetir-1..3) ---------------------------------------------------


def _merge(func: rx.Function, mod: rx.IRModule) -> _Merged:
    return _Merger(func, mod).run()


class _Merger:
    def __init__(self, func: rx.Function, mod: rx.IRModule):
        self.func, self.mod = func, mod
        self.symbols: dict[int, P.Var] = {}  # Primitive's symbolic variable -> the fused one
        self.buffers: dict[int, list[tir.Buffer]] = {}  # Relax variable -> its buffers
        self.buffer_names = Names()
        self.block_names = Names(sep="")
        self.analyzer = Analyzer()

    # -- shapes ------------------------------------------------------------------------------
    def fused(self, e: P.PrimExpr) -> P.PrimExpr:
        for v in P.free_vars(e):
            if id(v) not in self.symbols:
                raise Declined(f"the symbolic variable {v.name} is not defined by the "
                               f"parameters")
        return substitute(e, {v: self.symbols[id(v)] for v in P.free_vars(e)})

    def buffer_for(self, name: str, s: si.StructInfo | None) -> tir.Buffer:
        if not (isinstance(s, si.TensorStructInfo) and s.shape is not None
                and not s.dtype.is_void):
            raise Declined(f"{name} has no known shape and dtype")
        return tir.Buffer(self.buffer_names.unique(name),
                          tuple(self.fused(d) for d in s.shape), s.dtype)

    # -- the function --------------------------------------------------------------------------
    def run(self) -> _Merged:
        func = self.func
        params = list(func.params)
        if any(p.struct_info is None for p in params):
            raise Declined("a parameter without struct info")
        relax_symbols = defined_symbols(p.struct_info for p in params)
        for v in relax_symbols:
            self.symbols.setdefault(id(v), P.Var(v.name, INT64))
        handles, buffer_map = [], []
        for p in params:
            s = p.struct_info
            if isinstance(s, si.TensorStructInfo):
                b = self.buffer_for(p.name_hint, s)
                self.buffers[id(p)] = [b]
                h = P.Var(b.name, HANDLE)
                handles.append(h)
                buffer_map.append((h, b))
            elif not isinstance(s, (si.ShapeStructInfo, si.PrimStructInfo)):
                raise Declined(f"the parameter {p.name_hint} is not a tensor, shape or "
                               f"scalar (PASS-fusetir-4)")
        param_buffers = {id(b) for _, b in buffer_map}
        bound = {id(d) for _, b in buffer_map for d in b.shape if type(d) is P.Var}
        scalars = [v for v in relax_symbols if id(self.symbols[id(v)]) not in bound]

        stmts: list[tir.Stmt] = []
        made: list[tir.Buffer] = []  # the calls' results, in binding order
        inner_allocs: list[tir.Buffer] = []
        for block in func.body.blocks:
            for b in block.bindings:
                self.binding(b, stmts, made, inner_allocs)
        outputs: list[tir.Buffer] = []
        for v in self.results():
            for buf in self.buffers.get(id(v), [None]):
                if buf is None or id(buf) in param_buffers:
                    raise Declined(f"the result {v.name_hint} is not computed by a call "
                                   f"in the function (PASS-fusetir-4)")
                if any(buf is o for o in outputs):
                    raise Declined("a result appears twice (PASS-fusetir-4)")
                outputs.append(buf)
        out_handles = [P.Var(b.name, HANDLE) for b in outputs]
        all_params = handles + [self.symbols[id(v)] for v in scalars] + out_handles
        buffer_map += list(zip(out_handles, outputs))
        allocs = [b for b in made if not any(b is o for o in outputs)] + inner_allocs
        body = stmts[0] if len(stmts) == 1 else tir.SeqStmt(tuple(stmts))
        root = tir.SBlockRealize((), _TRUE, tir.SBlock("root", (), (), (), body,
                                                       alloc_buffers=tuple(allocs)))
        # PASS-fusetir-3: nothing free but the parameters' variables.
        known = {id(p) for p in all_params}
        known |= {id(d) for _, b in buffer_map for d in b.shape if type(d) is P.Var}
        loose = [v for v in free_vars(root, [b for _, b in buffer_map]) if id(v) not in known]
        if loose:
            raise Declined(f"the merged body would use {loose[0].name}, which no parameter "
                           f"defines (PASS-fusetir-3)")
        pf = tir.PrimFunc(tuple(all_params), tuple(buffer_map), root,
                          attrs=rx.Attrs.of({"tirx.noalias": True}), is_private=True,
                          s_tir=True)
        return _Merged(pf, scalars, len(outputs))

    def results(self) -> list[rx.Var]:
        body = self.func.body.body
        items = body.fields if isinstance(body, rx.Tuple) else (body,)
        if not all(isinstance(e, rx.Var) for e in items):
            raise Declined("a result that is not a variable (PASS-fusetir-4)")
        return list(items)

    # -- one binding ----------------------------------------------------------------------------
    def binding(self, b: rx.Binding, stmts: list, made: list, inner_allocs: list) -> None:
        value = b.value
        if not isinstance(b, rx.VarBinding):
            raise Declined("a match_cast in the function (PASS-fusetir-4)")
        if isinstance(value, rx.TupleGetItem) and isinstance(value.tuple_value, rx.Var) \
                and len(self.buffers.get(id(value.tuple_value), ())) > 1:
            parts = self.buffers[id(value.tuple_value)]
            if not 0 <= value.index < len(parts):
                raise Declined("a tuple item out of range")
            self.buffers[id(b.var)] = [parts[value.index]]
            return
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name == "relax.call_tir" and len(value.args) in (2, 3)
                and isinstance(value.args[0], rx.GlobalVar)
                and isinstance(value.args[1], rx.Tuple)):
            what = value.op.name if isinstance(value, rx.Call) and isinstance(value.op, rx.Op) \
                else type(value).__name__
            raise Declined(f"the binding of {b.var.name_hint} is {what}, not a call_tir "
                           f"(PASS-fusetir-4)")
        callee = self.mod.functions.get(value.args[0].name_hint)
        if not isinstance(callee, tir.PrimFunc):
            raise Declined(f"{value.args[0].name_hint} is not a PrimFunc")
        outs = _tensor_fields(value.sinfo_args[0] if len(value.sinfo_args) == 1
                              else si.TupleStructInfo(tuple(value.sinfo_args)))
        if not outs:
            raise Declined("a call_tir result without a known shape")
        out_params = callee.params[len(value.args[1].fields):][:len(outs)]
        names = [callee.buffer_of(p).name if callee.buffer_of(p) is not None else "out"
                 for p in out_params]
        names += ["out"] * (len(outs) - len(names))
        new = [self.buffer_for(f"{nm}_intermediate", s) for s, nm in zip(outs, names)]
        self.buffers[id(b.var)] = new
        made.extend(new)
        stmt, allocs = self.inline(callee, value, new)
        stmts.append(stmt)
        inner_allocs.extend(allocs)

    # -- one inner PrimFunc ---------------------------------------------------------------------
    def inline(self, callee: tir.PrimFunc, call: rx.Call, outs: list[tir.Buffer]):
        args = list(call.args[1].fields)
        if len(call.args) == 3:
            if not isinstance(call.args[2], rx.ShapeExpr):
                raise Declined("tir_vars that are not a literal shape")
            args += [rx.PrimValue(v) for v in call.args[2].values]
            params = list(callee.params[:len(call.args[1].fields)]) + \
                list(callee.params[len(call.args[1].fields) + len(outs):])
            out_params = callee.params[len(call.args[1].fields):
                                       len(call.args[1].fields) + len(outs)]
        else:
            params = list(callee.params[:len(args)])
            out_params = callee.params[len(args):]
        if len(params) != len(args) or len(out_params) != len(outs):
            raise Declined("a call_tir whose arguments do not match its PrimFunc")
        # (parameter buffer, the value's buffer) and (scalar parameter, its value)
        pairs: list[tuple[tir.Buffer, tir.Buffer]] = []
        scalars: dict[int, P.PrimExpr] = {}
        inputs = []
        for p, a in zip(params, args):
            pb = callee.buffer_of(p)
            if pb is not None:
                if not (isinstance(a, rx.Var) and len(self.buffers.get(id(a), ())) == 1):
                    raise Declined("a call_tir argument that is not a tensor of the function")
                pairs.append((pb, self.buffers[id(a)][0]))
                inputs.append(pb)
            elif isinstance(a, rx.PrimValue) and p.dtype == a.value.dtype:
                scalars[id(p)] = self.fused(a.value)
            elif isinstance(a, rx.Var) and isinstance(a.struct_info, si.PrimStructInfo) \
                    and a.struct_info.value is not None and p.dtype == a.struct_info.dtype:
                scalars[id(p)] = self.fused(a.struct_info.value)  # R.Prim(value=...)
            else:
                raise Declined("a scalar argument that is neither an R.prim_value nor a "
                               "variable of known value, of its dtype")
        for p, o in zip(out_params, outs):
            pb = callee.buffer_of(p)
            if pb is None:
                raise Declined("an output parameter without a buffer")
            pairs.append((pb, o))
        self.check_form(callee, inputs)
        variables = self.unify(pairs, scalars)
        root = callee.body.block
        copier = TirCopier(variables, {id(pb): vb for pb, vb in pairs},
                           self.block_names, self.buffer_names)
        inner_allocs = [copier.fresh_buffer(x) for x in root.alloc_buffers]
        return copier.stmt(root.body), inner_allocs

    def check_form(self, callee: tir.PrimFunc, inputs: list[tir.Buffer]) -> None:
        body = callee.body
        if not (isinstance(body, tir.SBlockRealize) and not body.iter_values
                and not body.block.iter_vars and body.block.init is None
                and not body.block.match_buffers and not body.block.reads
                and not body.block.writes and not body.block.annotations.items):
            raise Declined("an inner PrimFunc not in create_prim_func's form (one root "
                           "block)")
        for _, b in callee.buffer_map:
            if b.strides or (b.elem_offset is not None and not _is_zero(b.elem_offset)) \
                    or b.scope != "global" or b.axis_separators:
                raise Declined(f"the buffer {b.name} is not a plain compact buffer")
        from relax_ref.ir.uses import stored_storage

        stored = stored_storage(callee)
        for b in inputs:
            if (b.data if b.data is not None else b) in stored:
                raise Declined(f"an inner PrimFunc stores into its input {b.name}")

    def unify(self, pairs, scalars: dict[int, P.PrimExpr]) -> dict[int, P.PrimExpr]:
        """PASS-fusetir-2: the inner function's symbolic variables as expressions over the
        fused function's, each of its buffer dimensions proved equal to the value's."""
        mapping: dict[int, P.PrimExpr] = dict(scalars)
        for pb, vb in pairs:
            if pb.dtype != vb.dtype or len(pb.shape) != len(vb.shape):
                raise Declined(f"the buffer {pb.name} ({pb.dtype}, rank {len(pb.shape)}) "
                               f"is passed {vb.name} ({vb.dtype}, rank {len(vb.shape)})")
            for d, v in zip(pb.shape, vb.shape):
                if type(d) is P.Var:
                    mapping.setdefault(id(d), v)
        for pb, vb in pairs:
            for d, v in zip(pb.shape, vb.shape):
                free = P.free_vars(d)
                missing = [x for x in free if id(x) not in mapping]
                if missing:
                    raise Declined(f"the symbolic variable {missing[0].name} of {pb.name} "
                                   f"is not bound by the values passed")
                got = substitute(d, {x: mapping[id(x)] for x in free})
                if not self.analyzer.prove_equal(got, v):
                    raise Declined(f"cannot prove the dimension {got} of {pb.name} equal "
                                   f"to {v} (PASS-fusetir-2)")
        return mapping


def _is_zero(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 0
