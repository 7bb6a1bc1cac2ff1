"""Lowering a scheduled PrimFunc to flat device code (spec/backends.md BE-lower-*).

Each step is a PrimFunc -> PrimFunc function the TIR interpreter runs before and after,
on the same arguments, with the same results (the tests check every step that way):

1. ``lower_blocks`` (BE-lower-1): blocks become plain statements: iter vars bound by
   lets to their values (or replaced by a bare loop variable), the predicate an
   ``if``, ``T.init()`` an ``if`` on the reduction variables being at their minimum,
   allocated buffers ``T.allocate`` + ``T.decl_buffer``;
2. ``flatten_buffers`` (BE-lower-2): every buffer access becomes one index into a 1-d
   buffer over the same data (row-major strides); the parameters keep their shapes;
3. ``lower_intrinsics`` (BE-lower-3): what C has no single operator for, spelled with
   what it has: floor division and modulo of integers as truncating ones (when the
   operands are provably non-negative) or with a sign correction, of floats with
   ``floor``; ``rsqrt`` and ``sigmoid`` as TVM's legalization writes them;
4. ``split_host_device`` (BE-lower-4): each thread-bound nest becomes a kernel (a
   PrimFunc over data handles and the scalar variables it reads) with its launch extents
   as expressions of the function's symbolic variables; the host part allocates the
   intermediate buffers and launches the kernels in order. ``run_device_program`` runs
   that split form in the interpreter.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from relax_ref.errors import RelaxError, RuntimeCheckError, assert_check_kind
from relax_ref.ir import prim_expr as P
from relax_ref.ir.prim_expr import is_one_literal as _is_one, is_true_literal as _is_true
from relax_ref.ir import tir
from relax_ref.ir.dtype import BOOL, INT32, INT64, parse_dtype
from relax_ref.semantics.memory import poison_array
from relax_ref.semantics.tir_interp import run_prim_func
from relax_ref.solver.evaluate import evaluate_int
from relax_ref.solver.simplify import canonical_equal, simplify

__all__ = ["LowerError", "Kernel", "DeviceProgram", "lower_blocks", "flatten_buffers",
           "lower_intrinsics", "split_host_device", "lower_for_device",
           "run_device_program", "check_guards", "raise_device_check", "map_tir"]

HANDLE = parse_dtype("handle")


class LowerError(RelaxError):
    """A construct the device lowering does not handle (it declines, never guesses)."""


# ---------------------------------------------------------------------------------------
# A generic rebuild of TIR: post-order, statements and expressions
# ---------------------------------------------------------------------------------------

_NODES = (P.PrimExpr, tir.Stmt, tir.Range, tir.BufferRegion, tir.IterVar)


def map_tir(x, stmt_fn=None, expr_fn=None):
    """``x`` rebuilt bottom-up: each statement passed through ``stmt_fn`` and each
    expression through ``expr_fn`` after its children (either may return its argument)."""
    if isinstance(x, tuple):
        new = tuple(map_tir(c, stmt_fn, expr_fn) for c in x)
        return x if all(a is b for a, b in zip(new, x)) else new
    if isinstance(x, (P.Var, P.IntImm, P.FloatImm, P.StringImm)):
        return x if expr_fn is None else expr_fn(x)
    if not isinstance(x, _NODES):
        return x
    changes = {}
    for f in dataclasses.fields(x):
        if f.name == "span":
            continue
        old = getattr(x, f.name)
        new = map_tir(old, stmt_fn, expr_fn)
        if new is not old:
            changes[f.name] = new
    out = dataclasses.replace(x, **changes) if changes else x
    if isinstance(out, tir.Stmt) and stmt_fn is not None:
        return stmt_fn(out)
    if isinstance(out, P.PrimExpr) and expr_fn is not None:
        return expr_fn(out)
    return out


def _seq(stmts: list[tir.Stmt]) -> tir.Stmt:
    flat: list[tir.Stmt] = []
    for s in stmts:
        flat.extend(s.seq if isinstance(s, tir.SeqStmt) else (s,))
    return flat[0] if len(flat) == 1 else tir.SeqStmt(tuple(flat))


# ---------------------------------------------------------------------------------------
# 1. Blocks to plain statements (BE-lower-1)
# ---------------------------------------------------------------------------------------

def lower_blocks(func: tir.PrimFunc) -> tir.PrimFunc:
    """BE-lower-1: no SBlock left; the root block's buffers allocated around the body."""
    body = func.body
    allocs: tuple[tir.Buffer, ...] = ()
    if isinstance(body, tir.SBlockRealize) and not body.block.iter_vars:
        if body.block.match_buffers or body.block.init is not None:
            raise LowerError("a root block with match_buffers or init", body.span,
                             rule="BE-lower-1")
        allocs, body = body.block.alloc_buffers, body.block.body
    body = map_tir(body, stmt_fn=_lower_block)
    return dataclasses.replace(func, body=_allocate(allocs, body))


def _allocate(buffers, body: tir.Stmt) -> tir.Stmt:
    """``T.allocate`` + ``T.decl_buffer`` per buffer (fresh memory is poison either way)."""
    for buf in reversed(buffers):
        if buf.strides or buf.elem_offset is not None:
            raise LowerError(f"allocated buffer {buf.name} with strides or an offset",
                             buf.span, rule="BE-lower-1")
        data = buf.data or P.Var(buf.name, HANDLE)
        declared = dataclasses.replace(buf, data=data)
        body = map_tir(body, expr_fn=_rebuffer({id(buf): declared}),
                       stmt_fn=_rebuffer({id(buf): declared}))
        body = tir.Allocate(data, buf.dtype, (_extent(buf.shape),), P.IntImm(1, P.BOOL),
                            tir.DeclBuffer(declared, body), scope=buf.scope)
    return body


def _extent(shape) -> P.PrimExpr:
    out: P.PrimExpr = P.IntImm(1, shape[0].dtype if shape else P.INT64)
    for d in shape:
        out = out * d
    return simplify(out)


def _rebuffer(table: dict[int, tir.Buffer]):
    def fn(node):
        b = getattr(node, "buffer", None)
        if isinstance(b, tir.Buffer) and id(b) in table:
            return dataclasses.replace(node, buffer=table[id(b)])
        return node
    return fn


def _lower_block(s: tir.Stmt) -> tir.Stmt:
    if not isinstance(s, tir.SBlockRealize):
        return s
    block = s.block
    if block.match_buffers:
        raise LowerError(f"block {block.name!r} has match_buffers", s.span, rule="BE-lower-1")
    body = block.body
    if block.init is not None:
        # EXEC-tir-block-3 spelled as a test: every reduction var at its minimum.
        cond: P.PrimExpr | None = None
        for iv in block.iter_vars:
            if iv.kind == "R":
                test = P.EQ(iv.var, iv.dom.min, P.BOOL)
                cond = test if cond is None else P.And(cond, test, P.BOOL)
        init = block.init if cond is None else tir.IfThenElse(cond, block.init)
        body = _seq([init, body])
    # Each iter var bound once by a let (a readable kernel: ``long v_i = ...;``), or
    # replaced by its value where that is a bare variable.
    mapping = {iv.var: v for iv, v in zip(block.iter_vars, s.iter_values)
               if isinstance(v, P.Var)}
    if mapping:
        body = map_tir(body, expr_fn=lambda e: mapping.get(e, e) if isinstance(e, P.Var)
                       else e)
    for iv, v in reversed(list(zip(block.iter_vars, s.iter_values))):
        if not isinstance(v, P.Var):
            value = v if v.dtype == iv.var.dtype else P.Cast(iv.var.dtype, v)
            body = tir.LetStmt(iv.var, value, body)
    body = _allocate(block.alloc_buffers, body)
    # EXEC-tir-block-1: a value outside its iter var's domain traps in the interpreter;
    # the schedule only binds values inside it, which the tests check before lowering.
    if not _is_true(s.predicate):
        body = tir.IfThenElse(s.predicate, body)
    return body


# ---------------------------------------------------------------------------------------
# 2. Flat buffers (BE-lower-2)
# ---------------------------------------------------------------------------------------

def flatten_buffers(func: tir.PrimFunc) -> tir.PrimFunc:
    """BE-lower-2: each load and store through a 1-d buffer over the same data, at the
    row-major offset of its indices."""
    flat: dict[int, tir.Buffer] = {}
    data_of = {id(b): (b.data or p) for p, b in func.buffer_map}

    def flat_of(b: tir.Buffer) -> tir.Buffer:
        hit = flat.get(id(b))
        if hit is None:
            if b.strides or b.elem_offset is not None or b.axis_separators:
                raise LowerError(f"buffer {b.name} with strides, an offset or axis "
                                 f"separators", b.span, rule="BE-lower-2")
            data = data_of.get(id(b), b.data)
            if data is None:
                raise LowerError(f"buffer {b.name} has no data to flatten over", b.span,
                                 rule="BE-lower-2")
            hit = flat[id(b)] = tir.Buffer(b.name, (_extent(b.shape),), b.dtype, data,
                                           scope=b.scope)
        return hit

    def index(b: tir.Buffer, indices) -> tuple[P.PrimExpr]:
        if len(b.shape) == 1 and len(indices) == 1:
            return (indices[0],)
        out: P.PrimExpr | None = None
        stride: P.PrimExpr = P.IntImm(1, P.INT64)
        for d in reversed(range(len(b.shape))):
            i = indices[d]
            i = i if i.dtype == P.INT64 else P.Cast(P.INT64, i)
            term = i if _is_one(stride) else i * stride
            out = term if out is None else term + out
            stride = simplify(stride * b.shape[d])
        return (out if out is not None else P.IntImm(0, P.INT64),)

    def expr(e):
        if isinstance(e, tir.BufferLoad):
            return tir.BufferLoad(flat_of(e.buffer), index(e.buffer, e.indices), e.dtype,
                                  span=e.span)
        return e

    def stmt(s):
        if isinstance(s, tir.BufferStore):
            return tir.BufferStore(flat_of(s.buffer), s.value, index(s.buffer, s.indices),
                                   span=s.span)
        if isinstance(s, tir.DeclBuffer):
            return dataclasses.replace(s, buffer=flat_of(s.buffer))
        return s

    return dataclasses.replace(func, body=map_tir(func.body, stmt, expr))


# ---------------------------------------------------------------------------------------
# 3. Intrinsics (BE-lower-3)
# ---------------------------------------------------------------------------------------

def lower_intrinsics(func: tir.PrimFunc) -> tir.PrimFunc:
    """BE-lower-3: floordiv/floormod, rsqrt and sigmoid in terms C spells directly."""
    nonneg = _NonNegative(func)
    return dataclasses.replace(func, body=map_tir(func.body, expr_fn=nonneg.lower))


class _NonNegative:
    """Which integer expressions are >= 0 from their form alone: constants >= 0, loop
    variables of loops from a non-negative minimum, let variables bound to such, the
    function's shape variables (DESIGN.md decision 5: sizes are non-negative), and
    +, *, /, %, min, max of such."""

    def __init__(self, func: tir.PrimFunc):
        self.vars: set[int] = set()
        for _, b in func.buffer_map:
            for d in b.shape:
                if isinstance(d, P.Var):
                    self.vars.add(id(d))
        for n in _walk_stmts(func.body):  # outer statements first
            if isinstance(n, tir.For) and self.holds(n.min):
                self.vars.add(id(n.loop_var))
            elif isinstance(n, tir.LetStmt) and self.holds(n.value):
                self.vars.add(id(n.var))

    def holds(self, e) -> bool:
        if isinstance(e, P.IntImm):
            return e.value >= 0
        if isinstance(e, P.Var):
            return id(e) in self.vars
        if isinstance(e, (P.Add, P.Mul, P.FloorDiv, P.Div, P.Min, P.Max)):
            return self.holds(e.a) and self.holds(e.b)
        if isinstance(e, (P.FloorMod, P.Mod)):
            return self.holds(e.a) and self.divisor(e.b)
        return False

    def divisor(self, e) -> bool:
        """A divisor >= 0: where it is 0 the operation traps in TIR, so a truncating
        one is equal wherever the original has a value."""
        return self.holds(e)

    def lower(self, e):
        if isinstance(e, (P.FloorDiv, P.FloorMod)):
            if e.dtype.is_float:
                q = P.Call("tir.floor", (P.Div(e.a, e.b, e.dtype),), e.dtype)
                return q if isinstance(e, P.FloorDiv) else P.Sub(e.a, P.Mul(q, e.b, e.dtype),
                                                                 e.dtype)
            if not e.dtype.is_integer:
                raise LowerError(f"floor division of {e.dtype}", e.span, rule="BE-lower-3")
            if self.holds(e.a) and self.divisor(e.b) or e.dtype.is_uint:
                return (P.Div if isinstance(e, P.FloorDiv) else P.Mod)(e.a, e.b, e.dtype)
            return _floor_with_correction(e)
        if isinstance(e, P.Call) and e.op in ("tir.rsqrt", "tirx.rsqrt"):
            one = P.FloatImm(1.0, e.dtype)
            return P.Div(one, P.Call("tir.sqrt", e.args, e.dtype), e.dtype)
        if isinstance(e, P.Call) and e.op in ("tir.sigmoid", "tirx.sigmoid"):
            one = P.FloatImm(1.0, e.dtype)
            x = e.args[0]
            neg = P.Sub(P.FloatImm(0.0, e.dtype), x, e.dtype)
            return P.Div(one, P.Add(one, P.Call("tir.exp", (neg,), e.dtype), e.dtype),
                         e.dtype)
        return e


def _floor_with_correction(e) -> P.PrimExpr:
    """floordiv(a, b) = q - (r != 0 and (r < 0) != (b < 0)); floormod = r + b on that
    same condition, with q, r the truncating quotient and remainder (EXEC-tir-div-1)."""
    dt = e.dtype
    a, b = e.a, e.b
    r = P.Mod(a, b, dt)
    zero = P.IntImm(0, dt)
    if isinstance(b, P.IntImm) and b.value != 0:  # the sign of b is known
        fix = P.LT(r, zero, P.BOOL) if b.value > 0 else P.GT(r, zero, P.BOOL)
    else:
        fix = P.And(P.NE(r, zero, P.BOOL),
                    P.NE(P.LT(r, zero, P.BOOL), P.LT(b, zero, P.BOOL), P.BOOL), P.BOOL)
    if isinstance(e, P.FloorDiv):
        q = P.Div(a, b, dt)
        return P.Select(fix, P.Sub(q, P.IntImm(1, dt), dt), q, dt)
    return P.Select(fix, P.Add(r, b, dt), r, dt)


def _walk_stmts(s):
    yield s
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, tir.Stmt):
            yield from _walk_stmts(v)
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, tir.Stmt):
                    yield from _walk_stmts(x)


# ---------------------------------------------------------------------------------------
# 4. Host and device (BE-lower-4)
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Kernel:
    """One kernel: ``func`` (params: data handles, then scalar variables; body: the
    thread-bound nest over flat buffers) and its launch extents as expressions of the
    host's variables (``grid``: blockIdx.x, ``block``: threadIdx.x)."""

    name: str
    func: tir.PrimFunc
    grid: P.PrimExpr
    block: P.PrimExpr


@dataclass(frozen=True)
class DeviceProgram:
    """A PrimFunc split for a device: ``func`` is the original (its signature, and
    where symbolic variables come from), ``allocations`` the intermediate buffers the
    host allocates (data var, dtype, element count), ``kernels`` launched in order."""

    name: str
    func: tir.PrimFunc
    allocations: tuple[tuple[P.Var, object, P.PrimExpr], ...]
    kernels: tuple[Kernel, ...]
    #: The PrimFunc's guards (TE-leg-7): (condition, message) the host checks, in order,
    #: before it launches anything (BE-lower-4).
    checks: tuple[tuple[P.PrimExpr, str], ...] = ()
    #: BE-lower-5: the one-element int32 flag (zeroed by the host) where a kernel's
    #: failed assert writes its number, and the messages by number minus one.
    error_flag: P.Var | None = None
    device_checks: tuple[str, ...] = ()


def split_host_device(func: tir.PrimFunc, name: str) -> DeviceProgram:
    """BE-lower-4 on a lowered, flattened PrimFunc."""
    allocations = []
    body = func.body
    while isinstance(body, (tir.Allocate, tir.DeclBuffer)):
        if isinstance(body, tir.Allocate):
            if body.scope != "global":
                raise LowerError(f"an allocation in scope {body.scope} outside a kernel",
                                 body.span, rule="BE-lower-4")
            allocations.append((body.buffer_var, body.dtype, body.extents[0]))
        body = body.body
    nests = body.seq if isinstance(body, tir.SeqStmt) else (body,)
    host_vars = {id(p) for p in func.params}
    for _, b in func.buffer_map:
        host_vars |= {id(v) for d in b.shape for v in P.free_vars(d)}
    kernels = []
    checks = []
    flag = _ErrorFlag()
    for k, nest in enumerate(nests):
        if isinstance(nest, tir.AssertStmt) and nest.body is None:
            # Hoisted before every launch: a guard reads only the host's scalars, and a
            # fused PrimFunc may carry one after another stage (FuseTIR keeps order).
            unknown = [v.name for v in P.free_vars(nest.condition) if id(v) not in host_vars]
            if unknown:
                raise LowerError(f"{name}: a guard reads {', '.join(unknown)}, which the "
                                 f"host does not define", nest.span, rule="BE-lower-4")
            checks.append((nest.condition, nest.message))
            continue
        block = _thread_extent(nest) if (isinstance(nest, tir.For)
                                         and nest.thread_tag == "blockIdx.x") else None
        if block is None:
            raise LowerError(f"{name}: statement {k} of the body is not a thread-bound nest "
                             f"(blockIdx.x around threadIdx.x loops of one extent); "
                             f"schedule it first", getattr(nest, "span", None),
                             rule="BE-lower-4")
        nest = flag.rewrite(nest)
        handles, scalars = _kernel_params(nest)
        unknown = [v.name for v in scalars if id(v) not in host_vars]
        if unknown:
            raise LowerError(f"{name}: kernel {k} reads {', '.join(unknown)}, which the "
                             f"host does not define", nest.span, rule="BE-lower-4")
        count = sum(1 for x in nests if not isinstance(x, tir.AssertStmt))
        kname = f"{name}_kernel" if count == 1 else f"{name}_kernel_{len(kernels)}"
        kfunc = tir.PrimFunc(tuple(handles) + tuple(scalars), (), nest,
                             attrs=func.attrs, s_tir=False)
        kernels.append(Kernel(kname, kfunc, nest.extent, block))
    return DeviceProgram(name, func, tuple(allocations), tuple(kernels), tuple(checks),
                         flag.buffer.data if flag.messages else None, tuple(flag.messages))


class _ErrorFlag:
    """BE-lower-5: a kernel's asserts (a scatter's index in range, ...) as stores of
    their number into a flag the host reads: ``assert c; rest`` becomes ``if c: rest
    else: flag[0] = n``, so a thread stops where the interpreter would trap."""

    def __init__(self) -> None:
        data = P.Var("relax_ref_error", HANDLE)
        self.buffer = tir.Buffer("relax_ref_error", (P.IntImm(1, INT64),), INT32, data)
        self.messages: list[str] = []

    def rewrite(self, s: tir.Stmt) -> tir.Stmt:
        s = map_tir(s, stmt_fn=_fold_asserts)
        return map_tir(s, stmt_fn=self._stmt)

    def _raise(self, a: tir.AssertStmt) -> tir.Stmt:
        self.messages.append(a.message or "assertion failed")
        return tir.BufferStore(self.buffer, P.IntImm(len(self.messages), INT32),
                               (P.IntImm(0, INT64),))

    def _stmt(self, s: tir.Stmt) -> tir.Stmt:
        if not isinstance(s, tir.AssertStmt):
            return s
        if s.body is None:
            return tir.IfThenElse(P.Not(s.condition, BOOL), self._raise(s))
        return tir.IfThenElse(s.condition, s.body, self._raise(s))


def _fold_asserts(s: tir.Stmt) -> tir.Stmt:
    """A sequence ``..., assert c, rest...`` as ``..., assert c (rest)``: the statements
    after an assert run only when it holds."""
    if not isinstance(s, tir.SeqStmt) or not any(
            isinstance(x, tir.AssertStmt) and x.body is None for x in s.seq[:-1]):
        return s
    rest: tir.Stmt | None = None
    for x in reversed(s.seq):
        if isinstance(x, tir.AssertStmt) and x.body is None:
            rest = tir.AssertStmt(x.condition, x.message, rest, error_kind=x.error_kind)
        else:
            rest = x if rest is None else _seq([x, rest])
    return rest



def _thread_extent(nest: tir.For) -> P.PrimExpr | None:
    """The one extent of the threadIdx.x loops inside a blockIdx.x loop (a kernel may
    have several, its phases, BE-sched-5), or None."""
    extents = [s.extent for s in _walk_stmts(nest.body)
               if isinstance(s, tir.For) and s.thread_tag == "threadIdx.x"]
    if not extents or any(not canonical_equal(e, extents[0]) for e in extents[1:]):
        return None
    return extents[0]


def _kernel_params(nest: tir.Stmt) -> tuple[list[P.Var], list[P.Var]]:
    """The data handles (in first-use order) and the free scalar variables of a nest."""
    handles: dict[int, P.Var] = {}
    scalars: dict[int, P.Var] = {}
    bound: set[int] = set()

    def expr(e):
        if isinstance(e, tir.BufferLoad):
            handles.setdefault(id(e.buffer.data), e.buffer.data)
        elif isinstance(e, P.Var) and not e.dtype.is_handle:
            scalars.setdefault(id(e), e)
        return e

    def stmt(s):
        if isinstance(s, tir.BufferStore):
            handles.setdefault(id(s.buffer.data), s.buffer.data)
        elif isinstance(s, tir.For):
            bound.add(id(s.loop_var))
        elif isinstance(s, tir.LetStmt):
            bound.add(id(s.var))
        elif isinstance(s, tir.Allocate):
            bound.add(id(s.buffer_var))
        return s

    map_tir(nest, stmt, expr)
    buffers: dict[int, tir.Buffer] = {}
    map_tir(nest, lambda s: _note_buffer(s, buffers), lambda e: _note_buffer(e, buffers))
    for b in buffers.values():  # the interpreter checks accesses against the extents
        for d in b.shape:
            for v in P.free_vars(d):
                scalars.setdefault(id(v), v)
    for s in _walk_stmts(nest):  # loop extents and mins are read too
        if isinstance(s, tir.For):
            for v in P.free_vars(s.min) + P.free_vars(s.extent):
                if not v.dtype.is_handle:
                    scalars.setdefault(id(v), v)
    inner_data = {id(s.buffer_var) for s in _walk_stmts(nest) if isinstance(s, tir.Allocate)}
    return ([v for k, v in handles.items() if k not in inner_data],
            [v for k, v in scalars.items() if k not in bound])


def _note_buffer(node, buffers: dict):
    b = getattr(node, "buffer", None)
    if isinstance(b, tir.Buffer):
        buffers.setdefault(id(b), b)
    return node


def lower_for_device(func: tir.PrimFunc, name: str) -> DeviceProgram:
    """The four steps in order on a scheduled PrimFunc."""
    return split_host_device(lower_intrinsics(flatten_buffers(lower_blocks(func))), name)


def run_device_program(prog: DeviceProgram, args: list) -> None:
    """Run the split form in the interpreter: bind the symbolic variables from the
    arguments, allocate the intermediates (poisoned), run each kernel on flat views."""
    env = host_environment(prog.func, args)
    check_guards(prog, env)
    storage = {}
    for p, arg in zip(prog.func.params, args):
        if isinstance(arg, np.ndarray):
            storage[id(p)] = arg.reshape(-1)
    buffer_data = {id(p): (b.data or p) for p, b in prog.func.buffer_map}
    for p, arg in zip(prog.func.params, args):
        if id(p) in buffer_data:
            storage[id(buffer_data[id(p)])] = arg.reshape(-1)
    for var, dtype, extent in prog.allocations:
        storage[id(var)] = poison_array((int(evaluate_int(extent, env)),), dtype)
    if prog.error_flag is not None:
        storage[id(prog.error_flag)] = np.zeros(1, np.int32)
    for k in prog.kernels:
        kargs = []
        for p in k.func.params:
            kargs.append(storage[id(p)] if p.dtype.is_handle else env[p])
        run_prim_func(k.func, kargs)
        if prog.error_flag is not None:
            raise_device_check(prog, storage[id(prog.error_flag)][0])


def raise_device_check(prog: DeviceProgram, flag: int) -> None:
    """BE-lower-5: a nonzero flag after a launch is that kernel's failed assert, trapping
    as the interpreter does (EXEC-tir-assert-2)."""
    if flag:
        _assert_failed(prog, prog.device_checks[int(flag) - 1])


def check_guards(prog: DeviceProgram, env: dict) -> None:
    """BE-lower-4: the PrimFunc's guards, on the host, before any launch; a false one
    traps as the interpreter's assert does (EXEC-tir-assert-2)."""
    for cond, message in prog.checks:
        if not evaluate_int(cond, env):
            _assert_failed(prog, message)


def _assert_failed(prog: DeviceProgram, message: str) -> None:
    kind, rule = assert_check_kind(message)
    raise RuntimeCheckError(f"{prog.name}: {message}", check=kind, rule=rule)


def host_environment(func: tir.PrimFunc, args: list) -> dict[P.Var, int]:
    """The value of each scalar parameter and each variable dimension of the buffers."""
    env: dict[P.Var, int] = {}
    buffers = dict(func.buffer_map)
    for p, arg in zip(func.params, args):
        b = buffers.get(p)
        if b is None:
            if not p.dtype.is_handle:
                env[p] = arg.value if hasattr(arg, "value") else arg
            continue
        for d, dim in enumerate(b.shape):
            if isinstance(dim, P.Var) and dim not in env:
                env[dim] = int(arg.shape[d])
    return env

