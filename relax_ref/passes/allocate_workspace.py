"""AllocateWorkspace (TVM's name; paper section 4.4, Fig. 11): a kernel's own global
scratch buffers become graph-level allocations, so that memory planning can reuse their
storage (spec/passes.md, PASS-workspace-*).

    cls.softmax(x, y)                 # softmax's root block allocates T_softmax_exp
becomes
    T_softmax_exp = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype("float32"), 0, R.str("global"))
    cls.softmax(x, y, T_softmax_exp)
with the buffer the last parameter of ``softmax``. The pass works on CallTIRRewrite's
output (a kernel called directly, every argument one writable tensor), before
StaticPlanBlockMemory.

A workspace is a buffer the root block of a PrimFunc allocates in global scope. TVM
0.27's pass of this name lifts only the ``WorkspaceSize`` that external codegen
functions declare; ours does that as TVM does (``codegen_workspaces``) and then lifts
TIR's own, which is what the paper describes.
"""
from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.dtype import HANDLE, INT64
from relax_ref.semantics.normalize import normalize
from relax_ref.solver.expr_utils import substitute

from .call_tir_rewrite import alloc_tensor_call
from .lowering_stages import fuzz_inputs_for
from .registry import register_pass
from .rewrite import Rewriter, finish



def workspaces(func: tir.PrimFunc) -> tuple[tir.Buffer, ...]:
    """PASS-workspace-1: the buffers the root block of ``func`` allocates in global scope."""
    body = func.body
    if not isinstance(body, tir.SBlockRealize):
        return ()
    return tuple(b for b in body.block.alloc_buffers if b.scope == "global")


def _lifted_prim_func(func: tir.PrimFunc, bufs: tuple[tir.Buffer, ...]) -> tir.PrimFunc:
    """PASS-workspace-2: ``func`` with ``bufs`` as its last parameters, no longer
    allocated by its root block."""
    handles = tuple(P.Var(b.name, HANDLE) for b in bufs)
    root = func.body.block
    keep = tuple(b for b in root.alloc_buffers if not any(b is w for w in bufs))
    block = tir.SBlock(root.name, root.iter_vars, root.reads, root.writes, root.body,
                       root.init, keep, root.match_buffers, root.annotations, span=root.span)
    body = tir.SBlockRealize(func.body.iter_values, func.body.predicate, block,
                             span=func.body.span)
    return tir.PrimFunc(func.params + handles, func.buffer_map + tuple(zip(handles, bufs)),
                        body, func.ret_type, func.attrs, func.is_private, func.s_tir,
                        span=func.span)


def _uses(mod: rx.IRModule) -> tuple[dict[str, list[rx.Call]], set[str]]:
    """The direct calls of each PrimFunc (CallTIRRewrite's form), and the PrimFuncs
    used any other way (call_tir's callee, a value)."""
    prims = {n for n, f in mod.functions.items() if isinstance(f, tir.PrimFunc)}
    calls: dict[str, list[rx.Call]] = {}
    other: set[str] = set()

    class _Walk(Rewriter):
        def call(self, e: rx.Call) -> rx.Expr:
            if isinstance(e.op, rx.GlobalVar) and e.op.name_hint in prims:
                calls.setdefault(e.op.name_hint, []).append(e)
            return super().call(e)

        def expr(self, e: rx.Expr) -> rx.Expr:
            if isinstance(e, rx.GlobalVar):
                other.add(e.name_hint)
            return super().expr(e)

    walk = _Walk()
    for f in mod.functions.values():
        if isinstance(f, rx.Function):
            walk.function(f)
    return calls, other


def _same(a: P.PrimExpr, b: P.PrimExpr) -> bool:
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm):
        return a.value == b.value
    return a is b


def _caller_env(func: tir.PrimFunc, call: rx.Call) -> dict[P.Var, P.PrimExpr] | None:
    """PASS-workspace-3: the caller's value of each PrimFunc variable that is a whole
    dimension of a buffer parameter; None when an argument is not a tensor of known
    shape matching its buffer's rank, or a variable would get two values."""
    if len(call.args) != len(func.params):
        return None
    env: dict[P.Var, P.PrimExpr] = {}
    for p, a in zip(func.params, call.args):
        buf, s = func.buffer_of(p), a.struct_info
        if buf is None or not isinstance(s, si.TensorStructInfo) or s.shape is None \
                or len(s.shape) != len(buf.shape):
            return None
        for dim, caller in zip(buf.shape, s.shape):
            if isinstance(dim, P.Var):
                if dim in env and not _same(env[dim], caller):
                    return None
                env[dim] = caller
    return env


def _shape_at(buf: tir.Buffer, env: dict[P.Var, P.PrimExpr]) -> tuple[P.PrimExpr, ...] | None:
    if any(v not in env for d in buf.shape for v in P.free_vars(d)):
        return None
    return tuple(substitute(d, env) for d in buf.shape)


def _plan(mod: rx.IRModule) -> dict[str, tuple[tir.Buffer, ...]]:
    """PASS-workspace-4: the PrimFuncs to rewrite: each used only by direct calls whose
    argument shapes give every workspace dimension."""
    calls, other = _uses(mod)
    plan = {}
    for name, f in mod.functions.items():
        if not isinstance(f, tir.PrimFunc) or name in other or name not in calls:
            continue
        bufs = workspaces(f)
        if not bufs:
            continue
        envs = [_caller_env(f, c) for c in calls[name]]
        if any(env is None or any(_shape_at(b, env) is None for b in bufs) for env in envs):
            continue  # declines: a call whose shapes do not give the workspace's size
        plan[name] = bufs
    return plan


class _Rewrite(Rewriter):
    """PASS-workspace-5: each call allocates its workspaces just before it."""

    def __init__(self, mod: rx.IRModule, plan: dict[str, tuple[tir.Buffer, ...]]):
        super().__init__()
        self.mod, self.plan = mod, plan

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        v = b.value
        if not (isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar)
                and v.op.name_hint in self.plan):
            return super().binding(b)
        env = _caller_env(self.mod.functions[v.op.name_hint], v)
        allocs, extra = [], []
        for buf in self.plan[v.op.name_hint]:
            var = rx.Var(buf.name, None, span=v.span)
            sinfo = si.TensorStructInfo(_shape_at(buf, env), buf.dtype)
            allocs.append(rx.VarBinding(var, alloc_tensor_call(sinfo), span=v.span))
            extra.append(var)
        call = rx.Call(v.op, tuple(self.expr(a) for a in v.args) + tuple(extra), v.attrs,
                       v.sinfo_args, span=v.span)
        var = self.bind_var(b.var)
        new = rx.MatchCast(var, call, b.struct_info, span=b.span) \
            if isinstance(b, rx.MatchCast) else rx.VarBinding(var, call, span=b.span)
        return [*allocs, new]

    def prim_func(self, name: str, func: tir.PrimFunc) -> tir.PrimFunc:
        return _lifted_prim_func(func, self.plan[name]) if name in self.plan else func


# -- external codegen's WorkspaceSize (TVM 0.27's contract) ---------------------------------

UINT8 = "uint8"


def _is_extern(f: rx.Function) -> bool:
    return f.attrs.get("Codegen") is not None or f.attrs.get("Composite") is not None


def _workspace_sinfo(size: int) -> si.TensorStructInfo:
    from relax_ref.ir.dtype import parse_dtype

    return si.TensorStructInfo((P.IntImm(size, INT64),), parse_dtype(UINT8))


class _CodegenRewrite(Rewriter):
    """PASS-workspace-7: inside a codegen function, each local Composite function with a
    WorkspaceSize takes the workspace last, and each call of one passes it."""

    def __init__(self, workspace: rx.Var, size: int):
        super().__init__()
        self.workspace, self.size = workspace, size
        self.composites: set[int] = set()
        self.ok = True

    def binding(self, b: rx.Binding) -> list[rx.Binding]:
        v = b.value
        if isinstance(v, rx.Function) and v.attrs.get("Composite") is not None:
            if v.attrs.get("WorkspaceSize") is None:
                self.ok = False  # TVM would pass the workspace to a function without it
                return [b]
            param = rx.Var("workspace", _workspace_sinfo(self.size))
            func = rx.Function(v.params + (param,), v.body, v.ret_struct_info, v.is_pure,
                               v.attrs.without("WorkspaceSize"), v.is_private, span=v.span)
            self.composites.add(id(b.var))
            var = rx.Var(b.var.name_hint, None, span=b.var.span)  # its type changed
            self.var_map[id(b.var)] = var
            return [rx.VarBinding(var, func, span=b.span)]
        if isinstance(v, rx.Call) and isinstance(v.op, rx.Var) and id(v.op) in self.composites:
            call = rx.Call(self.use(v.op), tuple(self.expr(a) for a in v.args) + (self.workspace,),
                           v.attrs, v.sinfo_args, span=v.span)
            return [type(b)(b.var, call, b.struct_info, span=b.span)
                    if isinstance(b, rx.MatchCast) else rx.VarBinding(b.var, call, span=b.span)]
        return super().binding(b)


class _CallerRewrite(Rewriter):
    """PASS-workspace-7: a caller allocates the workspace at the start of its first
    dataflow block and passes it to every call of a rewritten codegen function."""

    def __init__(self, renamed: dict[str, str], size: int):
        super().__init__()
        self.renamed, self.size = renamed, size
        self.workspace: rx.Var | None = None
        self.active = False  # inside the dataflow block that allocated the workspace
        self.ok = True

    def function(self, func: rx.Function) -> rx.Function:
        saved = self.workspace, self.active
        self.workspace, self.active = None, False
        try:
            return super().function(func)
        finally:
            self.workspace, self.active = saved

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock | None:
        if not isinstance(block, rx.DataflowBlock) or self.workspace is not None:
            return super().block(block)
        self.workspace = rx.DataflowVar("workspace_main", None)
        alloc = rx.VarBinding(self.workspace, alloc_tensor_call(_workspace_sinfo(self.size)))
        self.active = True
        try:
            new = super().block(block) or block
        finally:
            self.active = False
        return type(block)((alloc,) + new.bindings, span=block.span)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.GlobalVar) and e.name_hint in self.renamed:
            return rx.GlobalVar(self.renamed[e.name_hint], span=e.span)
        return super().expr(e)

    def call(self, e: rx.Call) -> rx.Expr:
        if isinstance(e.op, rx.GlobalVar) and e.op.name_hint in self.renamed:
            if not self.active:
                # outside the first dataflow block, where the workspace is not in
                # scope: TVM's pass fails or makes an ill-formed module; ours declines
                self.ok = False
                return e
            return rx.Call(rx.GlobalVar(self.renamed[e.op.name_hint], span=e.op.span),
                           tuple(self.expr(a) for a in e.args) + (self.workspace,), e.attrs,
                           e.sinfo_args, span=e.span)
        return super().call(e)


def codegen_workspaces(mod: rx.IRModule) -> rx.IRModule:
    """PASS-workspace-7: TVM 0.27's AllocateWorkspace: the largest ``WorkspaceSize`` of
    the module's functions becomes one uint8 tensor each caller allocates and passes to
    each codegen function (renamed, as TVM re-adds it) and on to its composites."""
    sizes = [int(getattr(f.attrs.get("WorkspaceSize"), "value", f.attrs.get("WorkspaceSize")))
             for f in mod.functions.values()
             if isinstance(f, rx.Function) and f.attrs.get("WorkspaceSize") is not None]
    size = max(sizes, default=0)
    if size <= 0:
        return mod
    funcs: dict = {}
    renamed: dict[str, str] = {}
    for name, f in mod.functions.items():
        if not (isinstance(f, rx.Function) and f.attrs.get("WorkspaceSize") is not None
                and _is_extern(f)):
            continue
        param = rx.Var("workspace", _workspace_sinfo(size))
        inner = _CodegenRewrite(param, size)
        body = inner.seq(f.body)
        if not inner.ok:
            return mod
        new_name, k = name, 0
        while new_name in mod.functions or new_name in funcs:
            k += 1
            new_name = f"{name}{k}"
        renamed[name] = new_name
        attrs = f.attrs.without("WorkspaceSize").without("global_symbol")  # public: its name
        funcs[new_name] = rx.Function(f.params + (param,), body, f.ret_struct_info, f.is_pure,
                                      attrs, f.is_private, span=f.span)
    callers = _CallerRewrite(renamed, size)
    out: dict = {}
    for name, f in mod.functions.items():
        if name not in renamed:
            out[name] = callers.function(f) \
                if isinstance(f, rx.Function) and not _is_extern(f) else f
    if not callers.ok:
        return mod
    out.update(funcs)  # last, as TVM adds them
    return mod.with_functions(out)


@register_pass("AllocateWorkspace", exact=True, fuzz_inputs=fuzz_inputs_for("StaticPlanBlockMemory"))
def allocate_workspace(mod: rx.IRModule) -> rx.IRModule:
    """PASS-workspace-1..7: TVM's lifting of codegen functions' WorkspaceSize, then
    ours of TIR workspaces: each global buffer a kernel's root block allocates becomes
    its last parameter, and each call of the kernel allocates it with
    R.builtin.alloc_tensor just before the call, so StaticPlanBlockMemory may place it
    in reused storage. Runs between CallTIRRewrite and StaticPlanBlockMemory."""
    mod = normalize(mod)
    lifted = codegen_workspaces(mod)
    plan = _plan(lifted)
    if plan:
        lifted = _Rewrite(lifted, plan).module(lifted)
    return mod if lifted is mod else finish(lifted)
