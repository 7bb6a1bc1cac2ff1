"""The definitional interpreter of Relax (spec/semantics.md).

It evaluates a normalized module binding by binding, following the spec's rules in
order, and checks everything the language says is checked: arguments and results
against function signatures, ``match_cast``, the struct info deduced for every binding,
``call_tir`` arguments against the PrimFunc's buffers, memory bounds, and resource
limits. Fresh outputs and storage are poisoned so that a program that reads memory it
never wrote shows wrong values instead of lucky right ones.

    result = run(mod, "main", [x, w], )        # values: numpy arrays, ShapeValue, ...
"""
from __future__ import annotations

import contextlib
import math
import string
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import relax as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.call_kinds import CALL_KINDS, call_kind
from relax_ref.ir.dtype import BOOL
from relax_ref.ir.numpy_dtype import dtype_of_numpy, numpy_dtype
from relax_ref.numerics import wrap_int
from relax_ref.ops.common import OpRuntimeError
from relax_ref.ops.registry import lookup
from relax_ref.solver.evaluate import EvaluationError, evaluate_int

from . import memory
from relax_ref.errors import RelaxError, ResourceError, RuntimeCheckError
from .liveness import release_plan
from .packed import VMContext, lookup_packed, register_packed
from . import vm_builtins  # noqa: F401  (registers the vm.builtin.* of the lowering passes)
from relax_ref.values import (
    Closure, DTypeValue, PackedFunc, PrimScalar, ShapeValue, StringValue, describe_value,
)


@dataclass
class Limits:
    """Resource limits (EXEC-limit-*): exceeding one raises ResourceError."""

    max_tensor_bytes: int = memory.DEFAULT_MAX_BYTES
    max_call_depth: int = 200
    # tir_interp.MODES: "auto" (default; float sums of products as BLAS contractions,
    # EXEC-tir-vec-7), "ordered" (bit-identical to "scalar"), "vectorized", "scalar".
    tir_mode: str = "auto"
    # The step budget of one PrimFunc call (EXEC-tir-limit-1); None: tir_interp.MAX_STEPS.
    max_tir_steps: int | None = None


@dataclass
class Frame:
    """The variables of one function activation: Relax values by variable identity,
    and symbolic variables' integer values."""

    values: dict[int, Any] = field(default_factory=dict)
    syms: dict[P.Var, int] = field(default_factory=dict)
    parent: "Frame | None" = None

    def lookup(self, var: rx.Var):
        frame: Frame | None = self
        while frame is not None:
            if id(var) in frame.values:
                return frame.values[id(var)]
            frame = frame.parent
        raise KeyError(var.name_hint)

    def sym_env(self) -> dict[P.Var, int]:
        if self.parent is None:
            return self.syms
        env = dict(self.parent.sym_env())
        env.update(self.syms)
        return env


_ABSENT = object()

TraceHook = Callable[[rx.Binding, Any], None]


class Interpreter:
    def __init__(self, mod: rx.IRModule, *, limits: Limits | None = None,
                 trace: TraceHook | None = None, normalized: bool = False):
        self.limits = limits or Limits()
        if not normalized:
            from .normalize import normalize

            with self._deep_python():
                mod = normalize(mod)
        self.mod = mod
        self.trace = trace
        self.depth = 0
        self.vm_state: dict = {}  # what builtins keep between calls (VMContext.state)

    # -- entry ---------------------------------------------------------------------------------
    def run(self, entry: str, args: list) -> Any:
        func = self.mod.functions.get(entry)
        if func is None:
            raise RuntimeCheckError(f"the module has no function {entry!r} (functions: "
                                    f"{', '.join(self.mod.functions)})", None, check="entry",
                                    rule="EXEC-call-1")
        with self._deep_python(func.span):
            if isinstance(func, tir.PrimFunc):
                return self.call_prim_func(func, list(args), None)
            return self.call_function(func, list(args), None, name=entry)

    @contextlib.contextmanager
    def _deep_python(self, span=None):
        """Each Relax call takes a few Python frames, and long expressions nest deeply
        in normalization: make room for the configured call depth (EXEC-limit-2 is then
        reached before Python's own limit), and turn any RecursionError left into the
        same ResourceError."""
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, 40 * self.limits.max_call_depth + 2000))
        try:
            yield
        except RecursionError:
            self.depth = 0
            raise ResourceError("the program nests too deeply for the interpreter (deep "
                                "recursion or a very long expression)", span,
                                rule="EXEC-limit-2") from None
        finally:
            sys.setrecursionlimit(previous)

    # -- functions (EXEC-call-*) -------------------------------------------------------------------
    def call_function(self, func: rx.Function, args: list, span, *, name: str = "function",
                      closure_env: Frame | None = None) -> Any:
        if len(args) != len(func.params):
            raise RuntimeCheckError(f"{name} takes {len(func.params)} arguments, got {len(args)}",
                                    span or func.span, check="signature", rule="EXEC-call-2")
        self.depth += 1
        if self.depth > self.limits.max_call_depth:
            self.depth = 0
            raise ResourceError(f"call depth exceeds {self.limits.max_call_depth} "
                                f"(unbounded recursion?)", span, rule="EXEC-limit-2")
        try:
            frame = Frame(parent=closure_env)
            sinfos = [p.struct_info for p in func.params]
            # A mismatch is located at the parameter (the function when it has no span).
            bind_and_check(args, sinfos, frame, check="signature", rule="EXEC-call-3",
                           span=span, what=lambda i: f"argument {func.params[i].name_hint!r} "
                                                     f"of {name}",
                           spans=[p.span or func.span or span for p in func.params])
            for p, a in zip(func.params, args):
                frame.values[id(p)] = a
            result = self.seq(func.body, frame, release_plan(func))
            ret = func.ret_struct_info or (func.struct_info.ret if isinstance(
                func.struct_info, si.FuncStructInfo) else None)
            if ret is not None:
                check_value(result, ret, frame.sym_env(), check="return", rule="EXEC-call-4",
                            span=func.body.body.span or span, what=f"the result of {name}")
            return result
        finally:
            self.depth -= 1

    def seq(self, seq: rx.SeqExpr, frame: Frame, release: dict | None = None) -> Any:
        """The bindings in order, then the body. ``release`` (liveness.release_plan)
        names the values to drop after each binding, those nothing later reads."""
        values = frame.values
        for block in seq.blocks:
            for b in block.bindings:
                self.binding(b, frame)
                if release is not None:
                    for key in release.get(id(b), ()):
                        del values[key]
        return self.expr(seq.body, frame)

    def binding(self, b: rx.Binding, frame: Frame) -> None:
        e = b.value
        # Calls, the usual binding, skip the general dispatch of ``expr``. An error
        # without a location of its own gets the binding's (EXEC-error-1).
        try:
            value = self.call(e, frame) if type(e) is rx.Call else self.expr(e, frame)
        except RelaxError as err:
            if err.span is None:
                err.span = b.span
            raise
        if isinstance(b, rx.MatchCast):
            # EXEC-match-cast-1: bind the new symbolic variables, check the rest.
            bind_and_check([value], [b.struct_info], frame, check="match_cast",
                           rule="EXEC-match-cast-1", span=b.span,
                           what=lambda i: f"R.match_cast to {b.var.name_hint!r}")
        else:
            sinfo = b.var.struct_info
            if sinfo is not None and type(e) is not rx.Function:
                # EXEC-bind-1: the value has the struct info deduction promised.
                check_value(value, sinfo, frame.sym_env(), check="struct_info",
                            rule="EXEC-bind-1", span=b.span,
                            what=lambda: f"the value bound to {b.var.name_hint!r}")
        frame.values[id(b.var)] = value
        if self.trace is not None:
            self.trace(b, value)

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, e: rx.Expr, frame: Frame) -> Any:
        if isinstance(e, rx.Var):
            try:
                return frame.lookup(e)
            except KeyError:
                raise RuntimeCheckError(f"variable {e.name_hint!r} has no value", e.span,
                                        check="unbound", rule="EXEC-var-1") from None
        if isinstance(e, rx.Call):  # the most frequent after variables
            return self.call(e, frame)
        if isinstance(e, rx.Constant):
            return e.data
        if isinstance(e, rx.PrimValue):
            return eval_prim_value(e.value, frame.sym_env(), e.span)
        if isinstance(e, rx.ShapeExpr):
            return ShapeValue(tuple(eval_dim(d, frame.sym_env(), e.span) for d in e.values))
        if isinstance(e, rx.StringImm):
            return StringValue(e.value)
        if isinstance(e, rx.DataTypeImm):
            return DTypeValue(e.value)
        if isinstance(e, rx.Tuple):
            return tuple(self.expr(f, frame) for f in e.fields)
        if isinstance(e, rx.TupleGetItem):
            t = self.expr(e.tuple_value, frame)
            if not isinstance(t, tuple) or not 0 <= e.index < len(t):
                raise RuntimeCheckError(f"cannot take field {e.index} of {describe_value(t)}",
                                        e.span, check="struct_info", rule="EXEC-tuple-1")
            return t[e.index]
        if isinstance(e, rx.GlobalVar):
            func = self.mod.functions.get(e.name_hint)
            if func is None:
                raise RuntimeCheckError(f"no function {e.name_hint!r}", e.span, check="unbound",
                                        rule="EXEC-var-1")
            return Closure(func, None, e.name_hint)
        if isinstance(e, rx.ExternFunc):
            entry = lookup_packed(e.global_symbol)
            if entry is None:
                raise RuntimeCheckError(f"no packed function named {e.global_symbol!r} is "
                                        f"registered", e.span, check="unbound",
                                        rule="EXEC-packed-1")
            return PackedFunc(e.global_symbol, entry)
        if isinstance(e, rx.Function):
            return Closure(e, frame, "<local function>")
        if isinstance(e, rx.If):
            return self.if_expr(e, frame)
        if isinstance(e, rx.SeqExpr):
            return self.seq(e, frame)
        raise RuntimeCheckError(f"cannot evaluate {type(e).__name__}", getattr(e, "span", None),
                                check="unsupported", rule="EXEC-expr-1")

    def if_expr(self, e: rx.If, frame: Frame) -> Any:
        """EXEC-if-1: the condition is a bool R.Prim or a tensor of one element (0-d, or
        every dimension 1)."""
        cond = self.expr(e.cond, frame)
        if isinstance(cond, np.ndarray) and cond.size == 1:
            taken = bool(cond.reshape(()))
        elif isinstance(cond, PrimScalar) and cond.dtype == BOOL:
            taken = bool(cond.value)
        else:
            raise RuntimeCheckError(f"the condition of an if must be a bool scalar or a "
                                    f"tensor of one element, found {describe_value(cond)}",
                                    e.span, check="struct_info", rule="EXEC-if-1")
        return self.seq(e.true_branch if taken else e.false_branch, frame)

    # -- calls ------------------------------------------------------------------------------------------
    def call(self, e: rx.Call, frame: Frame) -> Any:
        op = e.op
        if isinstance(op, rx.Op):
            handler = _STRUCTURAL.get(op.name)
            if handler is not None:
                return handler(self, e, frame)
            opdef = lookup(op.name)
            if opdef is None or opdef.compute is None:
                raise RuntimeCheckError(f"{op.name.replace('relax.', 'R.')} has no semantics "
                                        f"in relax_ref yet", e.span, check="unsupported",
                                        rule="EXEC-op-1")
            args = self.operands(e.args, frame)
            if type(e.struct_info) is si.TensorStructInfo:  # EXEC-limit-1, before it runs
                nbytes = _planned_nbytes(e.struct_info, frame)
                if nbytes is not None and nbytes > self.limits.max_tensor_bytes:
                    raise self._result_too_large(e.struct_info, nbytes, e.span,
                                                 opdef.short_name)
            try:
                result = opdef.compute(e.attrs, *args)
            except OpRuntimeError as err:
                raise RuntimeCheckError(f"{opdef.short_name}: {err.message}", e.span,
                                        check=err.check, rule=err.rule) from None
            except memory.MemoryCheckError as err:
                raise _memory_error(err, e.span) from None
            except MemoryError:
                raise ResourceError(f"{opdef.short_name}: the result does not fit in memory",
                                    e.span, rule="EXEC-limit-1") from None
            except (TypeError, ValueError, OverflowError) as err:
                raise _numpy_failure(opdef.short_name, err, args, e.span) from None
            # NumPy reduces 0-d results to scalars; a Relax tensor stays a tensor.
            if isinstance(result, np.generic):
                return np.asarray(result)
            if type(result) is np.ndarray and result.nbytes > self.limits.max_tensor_bytes:
                raise ResourceError(f"{opdef.short_name}: the result {describe_value(result)} "
                                    f"needs {result.nbytes} bytes, more than the limit of "
                                    f"{self.limits.max_tensor_bytes}", e.span,
                                    rule="EXEC-limit-1")
            return result
        args = self.operands(e.args, frame)
        if isinstance(op, rx.GlobalVar):
            func = self.mod.functions.get(op.name_hint)
            if isinstance(func, tir.PrimFunc):
                return self.call_prim_func(func, args, e.span, name=op.name_hint)
            return self.call_function(func, args, e.span, name=op.name_hint)
        callee = self.expr(op, frame)
        return self.apply(callee, args, e, frame)

    def operands(self, exprs, frame: Frame) -> list:
        """The values of a call's arguments (a variable of this frame, the usual case,
        without the general ``expr`` dispatch)."""
        # Keyed by id: a non-variable operand is a live object too, so its id is no
        # variable's key and it falls through to ``expr``.
        get = frame.values.get
        return [v if (v := get(id(a), _ABSENT)) is not _ABSENT else self.expr(a, frame)
                for a in exprs]

    def apply(self, callee, args: list, e: rx.Call, frame: Frame) -> Any:
        if isinstance(callee, Closure):
            if callee.captured:  # EXEC-closure-2: R.make_closure's values come last
                args = [*args, *callee.captured]
            if isinstance(callee.func, tir.PrimFunc):
                return self.call_prim_func(callee.func, args, e.span, name=callee.name)
            return self.call_function(callee.func, args, e.span, name=callee.name,
                                      closure_env=callee.env)
        if isinstance(callee, PackedFunc):
            result = self.call_packed(callee, args, e.span)
            if e.sinfo_args:
                want = e.sinfo_args[0] if len(e.sinfo_args) == 1 else \
                    si.TupleStructInfo(tuple(e.sinfo_args))
                check_value(result, want, frame.sym_env(), check="struct_info",
                            rule="EXEC-packed-2", span=e.span,
                            what=f"the result of {callee.name}")
            return result
        raise RuntimeCheckError(f"{describe_value(callee)} is not a function", e.span,
                                check="struct_info", rule="EXEC-call-1")

    def call_packed(self, callee: PackedFunc, args: list, span) -> Any:
        try:
            result = callee.impl.func(*args)
        except RelaxError as err:
            if err.span is None:
                err.span = span  # located at the call (EXEC-error-1)
            raise
        except Exception as err:  # noqa: BLE001 - a user function's failure is reported
            raise RuntimeCheckError(f"packed function {callee.name!r} failed: "
                                    f"{type(err).__name__}: {err}", span, check="packed",
                                    rule="EXEC-packed-3") from None
        return () if result is None else result

    def call_prim_func(self, func: tir.PrimFunc, args: list, span, name: str = "prim_func"):
        """EXEC-tir-call-1: run a PrimFunc on its arguments (outputs are written in
        place); its buffers' shapes and dtypes are checked by the TIR interpreter."""
        from .tir_interp import run_prim_func

        scalars = [a.value if isinstance(a, PrimScalar) else a for a in args]
        try:
            result = run_prim_func(func, scalars, mode=self.limits.tir_mode,
                                   max_steps=self.limits.max_tir_steps)
        except RelaxError as err:
            if err.span is None:
                err.span = span
            raise
        return () if result is None else result

    def _result_too_large(self, sinfo: si.TensorStructInfo, nbytes: int, span,
                          what: str) -> ResourceError:
        """EXEC-limit-1 before an op runs: its result, whose struct info gives its shape
        (under the current symbolic values) and dtype, would not fit the limit. Results
        of unknown size are checked once computed."""
        from relax_ref.semantics.normalize import print_sinfo

        return ResourceError(f"{what}: the result, {print_sinfo(sinfo)}, would need {nbytes} "
                             f"bytes, more than the limit of {self.limits.max_tensor_bytes}",
                             span, rule="EXEC-limit-1")

    def alloc_output(self, sinfo: si.StructInfo, frame: Frame, span) -> np.ndarray:
        """A fresh, poisoned tensor for a DPS output (EXEC-dps-1)."""
        if not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None \
                or sinfo.dtype.is_void:
            raise RuntimeCheckError("a call_tir output needs a known shape and dtype", span,
                                    check="struct_info", rule="EXEC-dps-1")
        env = frame.sym_env()
        shape = tuple(eval_dim(d, env, span) for d in sinfo.shape)
        try:
            memory.check_size(shape, sinfo.dtype, self.limits.max_tensor_bytes)
        except memory.MemoryCheckError as err:
            raise _memory_error(err, span) from None
        return memory.poison_array(shape, sinfo.dtype)


# -- structural ops (spec/semantics.md "Structural calls") --------------------------------------

def _dps_outputs(interp: Interpreter, e: rx.Call, frame: Frame) -> list[np.ndarray]:
    return [interp.alloc_output(s, frame, e.span) for s in e.sinfo_args]


def _eval_call_tir(interp: Interpreter, e: rx.Call, frame: Frame):
    """EXEC-dps-1..4: allocate poisoned outputs from out_ty under the current symbolic
    values, call the PrimFunc with inputs, outputs and tir_vars, return the outputs."""
    callee = e.args[0]
    inputs = list(interp.expr(e.args[1], frame))
    tir_vars = []
    if len(e.args) > 2:
        shape = interp.expr(e.args[2], frame)
        tir_vars = list(shape.dims)
    kind = call_kind(e.op.name)
    if kind.inplace:
        indices = e.attrs.get("inplace_indices")
        indices = list(indices) if isinstance(indices, (tuple, list)) else [indices]
        # The in-place inputs are handed to the kernel, and so is any input that is
        # the same memory (the tensor passed twice): the others are read-only.
        written = [inputs[i] for i in indices if i is not None and 0 <= i < len(inputs)]
        inputs = [a if any(a is w or (type(a) is np.ndarray and type(w) is np.ndarray and
                               np.may_share_memory(a, w)) for w in written)
                  else _read_only(a) for a in inputs]
        outputs = []
        for k, idx in enumerate(indices):
            sinfo = e.sinfo_args[k]
            if idx is not None and idx >= 0:
                arr = inputs[idx]
                if not isinstance(arr, np.ndarray):
                    raise RuntimeCheckError(
                        f"in-place output {k} reuses argument {idx}, which is "
                        f"{describe_value(arr)}, not a tensor", e.span,
                        check="shape_mismatch", rule="EXEC-dps-3")
                if not arr.flags.writeable:
                    arr = np.array(arr, copy=True)
                    inputs[idx] = arr
                check_value(arr, sinfo, frame.sym_env(), check="shape_mismatch",
                            rule="EXEC-dps-3", span=e.span, what=f"in-place output {k}")
                outputs.append(arr)
            else:
                outputs.append(interp.alloc_output(sinfo, frame, e.span))
        extra = [o for k, o in enumerate(outputs) if not (indices[k] is not None and indices[k] >= 0)]
        args = inputs + extra + tir_vars
    else:
        outputs = _dps_outputs(interp, e, frame)
        if kind.tir_callee:  # not call_dps_packed: a packed function may write its inputs
            inputs = [_read_only(a) for a in inputs]
        args = inputs + outputs + tir_vars
    if isinstance(callee, rx.GlobalVar):
        func = interp.mod.functions.get(callee.name_hint)
        if not isinstance(func, tir.PrimFunc):
            raise RuntimeCheckError(f"call_tir calls {callee.name_hint!r}, which is not a "
                                    f"prim_func", e.span, check="struct_info", rule="EXEC-dps-2")
        interp.call_prim_func(func, args, e.span, name=callee.name_hint)
    else:
        packed = interp.expr(callee, frame)
        if not isinstance(packed, PackedFunc):
            raise RuntimeCheckError("call_dps_packed calls a packed function", e.span,
                                    check="struct_info", rule="EXEC-dps-2")
        interp.call_packed(packed, args, e.span)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _read_only(value):
    """EXEC-dps-4: a call_tir input as the PrimFunc sees it, a read-only view of the
    caller's tensor (Relax values are immutable); the TIR interpreter then traps a store
    into it (EXEC-tir-bind-4) and the caller's value never changes."""
    if type(value) is np.ndarray and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def _eval_call_pure_packed(interp: Interpreter, e: rx.Call, frame: Frame):
    callee = interp.expr(e.args[0], frame)
    args = [interp.expr(a, frame) for a in e.args[1:]]
    return interp.apply(callee, args, rx.Call(e.args[0], e.args[1:], e.attrs, e.sinfo_args,
                                              span=e.span), frame)


def _eval_call_builtin_with_ctx(interp: Interpreter, e: rx.Call, frame: Frame):
    """EXEC-vm-7: ``R.call_builtin_with_ctx(f, (args...))`` calls the packed function
    ``f`` on ``args`` (TVM's VM passes its context first; relax_ref's builtins need none)."""
    callee = interp.expr(e.args[0], frame)
    args = list(interp.expr(e.args[1], frame) if len(e.args) > 1 else ())
    if isinstance(callee, PackedFunc) and callee.impl.ctx:  # e.g. the CUDA Graph builtins
        args.insert(0, VMContext(lambda f, a: interp.apply(f, list(a), e, frame),
                                 interp.vm_state))
    return interp.apply(callee, args, rx.Call(e.args[0], (), e.attrs, e.sinfo_args,
                                              span=e.span), frame)


def _eval_print(interp: Interpreter, e: rx.Call, frame: Frame):
    # SYN-relax-12: the format is the first operand.
    return _print(_format_operand(e), [interp.expr(a, frame) for a in e.args[1:]])


def _print(fmt: str, values: list) -> tuple:
    shown = [_show(v) for v in values]
    text = _fill_format(fmt, shown) if fmt else None
    if text is None:
        text = " ".join([fmt] + shown if fmt else shown)
    print(text, file=sys.stdout)
    return ()


# R.print and R.assert_op as the runtime functions TVM's LegalizeOps calls
# (``R.call_packed("relax.run.print", format, values...)``): the same behaviour.
@register_packed("relax.run.print")
def _run_print(fmt, *values):
    return _print(str(fmt.value if isinstance(fmt, StringValue) else fmt), list(values))


@register_packed("relax.run.assert_op")
def _run_assert(cond, fmt, *values):
    fmt = str(fmt.value if isinstance(fmt, StringValue) else fmt)
    flat = [x for v in values for x in (v if isinstance(v, tuple) else (v,))]
    return _assert(cond, fmt, flat, None)


def _fill_format(fmt: str, shown: list[str]) -> str | None:
    """``fmt`` with its ``{}`` / ``{0}`` fields (and plain format specs) replaced by the
    shown values; None when it has other fields. Attribute and index lookups
    (``{0.x}``, ``{0[1]}``) and nested fields are refused: the format comes from the
    program text, which must not reach into Python objects."""
    try:
        for _, field_name, spec, _ in string.Formatter().parse(fmt):
            if field_name is None:
                continue
            if (field_name and not field_name.isdigit()) or (spec and "{" in spec):
                return None
        return fmt.format(*shown)
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def _eval_assert(interp: Interpreter, e: rx.Call, frame: Frame):
    cond = interp.expr(e.args[0], frame)
    if not _assert_holds(cond, e.span):
        fmt = _format_operand(e) or "Assertion failed"
        rest = []
        for a in e.args[2:]:
            v = interp.expr(a, frame)
            rest.extend(v if isinstance(v, tuple) else [v])  # the format args are a tuple
        return _assert(cond, fmt, rest, e.span)
    return ()


def _assert(cond, fmt: str, values: list, span) -> tuple:
    """EXEC-assert-1: a false condition fails the check ``assert`` with the message."""
    if not _assert_holds(cond, span):
        message = _fill_format(str(fmt or "Assertion failed"),
                               [_show(v) for v in values]) or str(fmt)
        raise RuntimeCheckError(message, span, check="assert", rule="EXEC-assert-1")
    return ()


def _assert_holds(cond, span) -> bool:
    if isinstance(cond, PrimScalar) and cond.dtype == BOOL:
        ok = bool(cond.value)
    elif isinstance(cond, np.ndarray) and cond.ndim == 0 and cond.dtype == np.bool_:
        ok = bool(cond)
    else:
        raise RuntimeCheckError(f"the condition of R.assert_op must be a bool scalar, found "
                                f"{describe_value(cond)}", span, check="struct_info",
                                rule="EXEC-assert-1")
    return ok


def _format_operand(e: rx.Call) -> str:
    """The format string operand of R.print or R.assert_op (its call kind says where)."""
    k = call_kind(e.op.name).format_position
    fmt = e.args[k] if len(e.args) > k else None
    if not isinstance(fmt, rx.StringImm):
        raise RuntimeCheckError(f"{e.op.name}: operand {k} must be the format string",
                                e.span, check="invalid_value", rule="SYN-relax-12")
    return fmt.value


def _int_of(v) -> int:
    if isinstance(v, PrimScalar):
        return int(v.value)
    if isinstance(v, (int, np.integer)):
        return int(v)
    raise TypeError(describe_value(v))


def _eval_alloc_storage(interp: Interpreter, e: rx.Call, frame: Frame):
    """EXEC-mem-storage-1: R.memory.alloc_storage(R.shape([k]), ...) holds k bytes (its
    dtype is a hint, which TVM's lowering replaces by uint8); R.vm.alloc_storage(
    R.shape([k]), device, dtype) holds k elements of its dtype, as TVM's VM allocator
    sizes them."""
    size = interp.expr(e.args[0], frame)
    count = math.prod(size.dims)
    try:
        if e.op.name == "relax.vm.alloc_storage" and len(e.args) > 2:
            dtype = interp.expr(e.args[2], frame).dtype
            if not dtype.is_void:
                count *= memory.itemsize(dtype)
        return memory.alloc_storage(count, "global", interp.limits.max_tensor_bytes)
    except memory.MemoryCheckError as err:
        raise _memory_error(err, e.span) from None


def _eval_alloc_tensor(interp: Interpreter, e: rx.Call, frame: Frame):
    storage = interp.expr(e.args[0], frame)
    offset = _int_of(interp.expr(e.args[1], frame))
    shape = interp.expr(e.args[2], frame)
    dtype = interp.expr(e.args[3], frame).dtype
    if not isinstance(storage, memory.Storage):
        raise RuntimeCheckError(f"alloc_tensor needs a storage, found {describe_value(storage)}",
                                e.span, check="struct_info", rule="EXEC-mem-view-1")
    try:
        return memory.view_tensor(storage, offset, tuple(shape.dims), dtype,
                                  interp.limits.max_tensor_bytes)
    except memory.MemoryCheckError as err:
        raise _memory_error(err, e.span) from None


def _eval_builtin_alloc_tensor(interp: Interpreter, e: rx.Call, frame: Frame):
    shape = interp.expr(e.args[0], frame)
    dtype = interp.expr(e.args[1], frame).dtype
    try:
        memory.check_size(tuple(shape.dims), dtype, interp.limits.max_tensor_bytes)
    except memory.MemoryCheckError as err:
        raise _memory_error(err, e.span) from None
    return memory.poison_array(tuple(shape.dims), dtype)


def _eval_kill(interp: Interpreter, e: rx.Call, frame: Frame):
    target = interp.expr(e.args[0], frame)
    if isinstance(target, memory.Storage):
        memory.kill_storage(target)
    elif isinstance(target, np.ndarray):
        memory.kill_tensor(target)
    return ()


def _eval_null(interp: Interpreter, e: rx.Call, frame: Frame):
    return ()


def _eval_invoke_closure(interp: Interpreter, e: rx.Call, frame: Frame):
    """EXEC-closure-2: call the closure on the tuple's values (then its captured ones);
    the result is checked against ty_args, as a packed call's (ops/closures.py)."""
    callee = interp.expr(e.args[0], frame)
    args = interp.expr(e.args[1], frame)
    result = interp.apply(callee, list(args), e, frame)
    if e.sinfo_args:
        want = e.sinfo_args[0] if len(e.sinfo_args) == 1 else \
            si.TupleStructInfo(tuple(e.sinfo_args))
        check_value(result, want, frame.sym_env(), check="struct_info",
                    rule="EXEC-closure-2", span=e.span, what="the result of the closure")
    return result


def _eval_call_tir_dyn(interp: Interpreter, e: rx.Call, frame: Frame):
    """EXEC-dyn-1: run the PrimFunc on the tuple's tensors (written in place) and then
    the values of its last field, a shape; the value is the empty tuple."""
    callee = interp.expr(e.args[0], frame)
    args = interp.expr(e.args[1], frame)
    if not (isinstance(callee, Closure) and isinstance(callee.func, tir.PrimFunc)) or \
            not args or not isinstance(args[-1], ShapeValue):
        raise RuntimeCheckError("R.vm.call_tir_dyn needs a PrimFunc and a tuple ending in a "
                                "shape", e.span, check="struct_info", rule="EXEC-dyn-1")
    interp.call_prim_func(callee.func, [*args[:-1], *args[-1].dims], e.span,
                          name=callee.name)
    return ()


_STRUCTURAL: dict[str, Callable] = {
    "relax.vm.call_tir_dyn": _eval_call_tir_dyn,
    # every destination-passing and every packed call kind (ir/call_kinds.py)
    **{name: _eval_call_tir for name, kind in CALL_KINDS.items() if kind.dps},
    **{name: _eval_call_pure_packed for name, kind in CALL_KINDS.items() if kind.packed},
    "relax.print": _eval_print,
    "relax.assert_op": _eval_assert,
    "relax.memory.alloc_storage": _eval_alloc_storage,
    "relax.vm.alloc_storage": _eval_alloc_storage,
    "relax.memory.alloc_tensor": _eval_alloc_tensor,
    "relax.vm.alloc_tensor": _eval_alloc_tensor,
    "relax.builtin.alloc_tensor": _eval_builtin_alloc_tensor,
    "relax.memory.kill_storage": _eval_kill,
    "relax.memory.kill_tensor": _eval_kill,
    "relax.vm.kill_object": _eval_kill,
    "relax.null_value": _eval_null,
    "relax.invoke_closure": _eval_invoke_closure,
    "relax.invoke_pure_closure": _eval_invoke_closure,
    "relax.call_builtin_with_ctx": _eval_call_builtin_with_ctx,
}


def evaluated_ops() -> frozenset[str]:
    """The ops the interpreter evaluates itself rather than through their NumPy
    semantics (call_tir and the other call kinds, allocations, ...)."""
    return frozenset(_STRUCTURAL)


# NumPy's words for an array it cannot make: a size rather than a program error.
_NUMPY_SIZE_ERRORS = ("array is too big", "Maximum allowed dimension", "Maximum allowed size")


def _numpy_failure(name: str, err: Exception, args: list, span) -> RelaxError:
    """An op's NumPy computation failed with a Python error (a dtype without NumPy
    loops, an absurd size): reported as the op's failure on these operands."""
    text = str(err)
    if any(words in text for words in _NUMPY_SIZE_ERRORS):
        return ResourceError(f"{name}: the result is too large for any array ({text})", span,
                             rule="EXEC-limit-1")
    operands = ", ".join(describe_value(a) for a in args)
    return RuntimeCheckError(f"{name} cannot be computed on {operands}: {text}", span,
                             check="unsupported", rule="EXEC-op-1")


def _memory_error(err: memory.MemoryCheckError, span) -> RelaxError:
    if err.check == "resource":
        return ResourceError(err.message, span, rule=err.rule)
    return RuntimeCheckError(err.message, span, check=err.check, rule=err.rule)


def _show(v) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=20)
    if isinstance(v, PrimScalar):
        return repr(v.value)
    if isinstance(v, StringValue):
        return v.value
    return describe_value(v)


# -- symbolic values (EXEC-sym-*) ------------------------------------------------------------------

def eval_dim(e: P.PrimExpr, env: dict, span) -> int:
    """The value of a shape dimension: a non-negative integer (EXEC-sym-1)."""
    try:
        value = int(evaluate_int(e, env))
    except EvaluationError as err:
        raise RuntimeCheckError(f"cannot evaluate the dimension {_pe(e)}: {err}", span,
                                check="symbolic", rule="EXEC-sym-1") from None
    if value < 0:
        raise RuntimeCheckError(f"the dimension {_pe(e)} evaluates to {value}, which is negative",
                                span, check="shape_mismatch", rule="EXEC-sym-1")
    if value > memory.INT64_MAX:
        raise RuntimeCheckError(f"the dimension {_pe(e)} evaluates to {value}, beyond the "
                                f"int64 range of shapes", span, check="shape_mismatch",
                                rule="EXEC-sym-1")
    return value


def eval_prim_value(e: P.PrimExpr, env: dict, span) -> PrimScalar:
    """The value of an R.Prim expression in its dtype (EXEC-sym-2)."""
    dtype = e.dtype
    if isinstance(e, P.FloatImm):
        return PrimScalar(float(numpy_dtype(dtype).type(e.value)), dtype)
    try:
        value = evaluate_int(e, env)
    except EvaluationError as err:
        raise RuntimeCheckError(f"cannot evaluate {_pe(e)}: {err}", span, check="symbolic",
                                rule="EXEC-sym-2") from None
    if dtype.is_bool:
        return PrimScalar(bool(value), dtype)
    if dtype.is_integer:
        return PrimScalar(wrap_int(int(value), dtype), dtype)
    return PrimScalar(value, dtype)


def _pe(e: P.PrimExpr) -> str:
    try:
        from relax_ref.ir.text import print_prim_expr

        return print_prim_expr(e)
    except Exception:  # noqa: BLE001 - a description must never fail
        return type(e).__name__


# -- values against struct info (EXEC-sinfo-*) ---------------------------------------------------

def bind_and_check(values: list, sinfos: list, frame: Frame, *, check: str, rule: str, span,
                   what: Callable[[int], str], spans: list | None = None) -> None:
    """Bind every symbolic variable at its first defining position -- a bare variable
    as a dimension or as an R.Prim value, scanning the struct infos in order -- then
    check every value against its struct info under those bindings (EXEC-sinfo-1).
    ``what(i)`` names value i in an error message, ``spans[i]`` (else ``span``) locates
    it."""
    env = frame.sym_env()
    for value, sinfo in zip(values, sinfos):
        _bind_bare(value, sinfo, env, frame)
    for i, (value, sinfo) in enumerate(zip(values, sinfos)):
        check_value(value, sinfo, env, check=check, rule=rule,
                    span=span if spans is None else spans[i], what=lambda i=i: what(i))


def _bind_bare(value, sinfo, env: dict, frame: Frame) -> None:
    if isinstance(sinfo, si.TensorStructInfo) and sinfo.shape is not None \
            and isinstance(value, np.ndarray) and value.ndim == len(sinfo.shape):
        for d, n in zip(sinfo.shape, value.shape):
            if isinstance(d, P.Var) and d not in env:
                env[d] = int(n)
                frame.syms[d] = int(n)
    elif isinstance(sinfo, si.ShapeStructInfo) and sinfo.values is not None \
            and isinstance(value, ShapeValue) and len(value) == len(sinfo.values):
        for d, n in zip(sinfo.values, value.dims):
            if isinstance(d, P.Var) and d not in env:
                env[d] = int(n)
                frame.syms[d] = int(n)
    elif isinstance(sinfo, si.PrimStructInfo) and isinstance(sinfo.value, P.Var) \
            and isinstance(value, PrimScalar) and sinfo.value not in env:
        env[sinfo.value] = value.value
        frame.syms[sinfo.value] = value.value
    elif isinstance(sinfo, si.TupleStructInfo) and isinstance(value, tuple) \
            and len(value) == len(sinfo.fields):
        for v, s in zip(value, sinfo.fields):
            _bind_bare(v, s, env, frame)


def check_value(value, sinfo: si.StructInfo, env: dict, *, check: str, rule: str, span,
                what: str | Callable[[], str]) -> None:
    """Does ``value`` satisfy ``sinfo`` under the symbolic values ``env``? A
    RuntimeCheckError of kind ``check`` naming what was expected and what was found
    when not (EXEC-sinfo-2). ``what`` names the value; a callable is asked only for
    the message (checks run per binding, wording is needed only on failure)."""
    if _tensor_conforms(value, sinfo, env) if type(sinfo) is si.TensorStructInfo \
            else _conforms(value, sinfo, env):
        return
    problem = _mismatch(value, sinfo, env)
    if problem is not None:
        from relax_ref.semantics.normalize import print_sinfo

        if callable(what):
            what = what()
        raise RuntimeCheckError(f"{what}: expected {print_sinfo(sinfo)}, found "
                                f"{describe_value(value)} ({problem})", span, check=check,
                                rule=rule)


# A tensor's check, planned once per struct info: the NumPy dtype it needs (None: any),
# per dimension an int, a Var or an expression, whether every dimension is an int (the
# shape is then compared as one tuple), and then its size in bytes (None otherwise). By
# id, with the struct info kept (which keeps the id from being reused).
_TENSOR_PLANS: dict[int, tuple] = {}


def _tensor_plan(sinfo: si.TensorStructInfo) -> tuple:
    entry = _TENSOR_PLANS.get(id(sinfo))
    if entry is None or entry[0] is not sinfo:  # (its callers repeat this lookup in place)
        if len(_TENSOR_PLANS) >= 100_000:
            _TENSOR_PLANS.clear()
        try:
            want = None if sinfo.dtype.is_void else numpy_dtype(sinfo.dtype)
        except Exception:  # noqa: BLE001 - the full check reports it
            want = False
        dims = None if sinfo.shape is None else tuple(
            d.value if type(d) is P.IntImm and d.dtype.is_int else d for d in sinfo.shape)
        static = dims is not None and all(type(d) is int for d in dims)
        nbytes = math.prod(dims) * want.itemsize if static and want else None
        entry = _TENSOR_PLANS[id(sinfo)] = (sinfo, want, dims, static, nbytes)
    return entry


def _planned_nbytes(sinfo: si.TensorStructInfo, frame: Frame) -> int | None:
    """The bytes of a tensor of struct info ``sinfo`` under the frame's symbolic
    values; None when the shape or dtype is unknown or a dimension cannot be
    evaluated."""
    entry = _TENSOR_PLANS.get(id(sinfo))
    if entry is None or entry[0] is not sinfo:
        entry = _tensor_plan(sinfo)
    _, want, dims, static, nbytes = entry
    if static or not want or dims is None:
        return nbytes
    env = frame.syms if frame.parent is None else frame.sym_env()
    count = want.itemsize
    for d in dims:
        if type(d) is int:
            count *= d
        else:
            n = env.get(d) if type(d) is P.Var else None
            if n is None:
                try:
                    n = evaluate_int(d, env)
                except EvaluationError:
                    return None
            count *= n
    return count


def _conforms(value, sinfo: si.StructInfo, env: dict) -> bool:
    """True when ``value`` satisfies ``sinfo`` for certain, decided quickly for tensors
    and tuples of them; False sends the value to ``_mismatch``, which decides."""
    kind = type(sinfo)
    if kind is si.TensorStructInfo:
        return _tensor_conforms(value, sinfo, env)
    if kind is si.TupleStructInfo:
        return type(value) is tuple and len(value) == len(sinfo.fields) and all(
            _conforms(v, s, env) for v, s in zip(value, sinfo.fields))
    return False


def _tensor_conforms(value, sinfo: si.TensorStructInfo, env: dict) -> bool:
    """True when ``value`` satisfies the tensor struct info ``sinfo`` for certain: the
    cases ``_mismatch`` finds no problem with, decided with fewer steps; False sends
    the value to ``_mismatch``, which decides (and says why)."""
    if type(value) is not np.ndarray:
        return False
    entry = _TENSOR_PLANS.get(id(sinfo))
    if entry is None or entry[0] is not sinfo:
        entry = _tensor_plan(sinfo)
    _, want, dims, static, _ = entry
    dtype = value.dtype
    if want is False or (want is not None and dtype is not want and dtype != want):
        return False
    if static:
        return value.shape == dims
    if dims is None:
        return sinfo.ndim < 0 or value.ndim == sinfo.ndim
    if value.ndim != len(dims):
        return False
    for n, d in zip(value.shape, dims):
        if type(d) is int:
            if n != d:
                return False
        elif type(d) is P.Var:
            if env.get(d) != n:
                return False
        else:
            try:
                if evaluate_int(d, env) != n:
                    return False
            except EvaluationError:
                return False
    return True


def _mismatch(value, sinfo: si.StructInfo, env: dict) -> str | None:
    if isinstance(sinfo, si.ObjectStructInfo):
        return None
    if isinstance(sinfo, si.TensorStructInfo):
        if not isinstance(value, np.ndarray):
            return "not a tensor"
        if not sinfo.dtype.is_void:
            try:
                got = dtype_of_numpy(value.dtype)
            except Exception:  # noqa: BLE001
                return f"unsupported dtype {value.dtype}"
            if got != sinfo.dtype:
                return f"dtype {got} is not {sinfo.dtype}"
        if sinfo.ndim >= 0 and value.ndim != sinfo.ndim:
            return f"{value.ndim} dimensions, not {sinfo.ndim}"
        if sinfo.shape is not None:
            return _dims_mismatch(value.shape, sinfo.shape, env)
        return None
    if isinstance(sinfo, si.ShapeStructInfo):
        if not isinstance(value, ShapeValue):
            return "not a shape"
        if any(d < 0 for d in value.dims):
            return "a shape's dimensions are never negative"
        if sinfo.ndim >= 0 and len(value) != sinfo.ndim:
            return f"{len(value)} dimensions, not {sinfo.ndim}"
        if sinfo.values is not None:
            return _dims_mismatch(value.dims, sinfo.values, env)
        return None
    if isinstance(sinfo, si.PrimStructInfo):
        if not isinstance(value, PrimScalar):
            return "not a scalar"
        if value.dtype != sinfo.dtype:
            return f"dtype {value.dtype} is not {sinfo.dtype}"
        if sinfo.value is not None:
            try:
                want = evaluate_int(sinfo.value, env)
            except EvaluationError:
                return None  # floats and unknowns are not checked symbolically
            if sinfo.dtype.is_integer:
                want = wrap_int(int(want), sinfo.dtype)  # as EXEC-sym-2 computes values
            if want != value.value:
                return f"value {value.value} is not {_pe(sinfo.value)} = {want}"
        return None
    if isinstance(sinfo, si.TupleStructInfo):
        if not isinstance(value, tuple):
            return "not a tuple"
        if len(value) != len(sinfo.fields):
            return f"{len(value)} fields, not {len(sinfo.fields)}"
        for i, (v, s) in enumerate(zip(value, sinfo.fields)):
            inner = _mismatch(v, s, env)
            if inner is not None:
                return f"field {i}: {inner}"
        return None
    if isinstance(sinfo, si.FuncStructInfo):
        if not isinstance(value, (Closure, PackedFunc)):
            return "not a function"
        return None
    return f"unknown struct info {type(sinfo).__name__}"


def _dims_mismatch(actual, expected, env: dict) -> str | None:
    for i, (n, d) in enumerate(zip(actual, expected)):
        try:
            want = evaluate_int(d, env)
        except EvaluationError:
            return f"dimension {i} ({_pe(d)}) cannot be evaluated"
        if int(n) != want:
            if isinstance(d, P.IntImm):
                return f"dimension {i} is {int(n)}, expected {want}"
            return f"dimension {i} is {int(n)}, expected {_pe(d)} = {want}"
    return None


# -- convenience ---------------------------------------------------------------------------------------

def run(mod: rx.IRModule, entry: str = "main", args: list | None = None, **kwargs) -> Any:
    """Normalize ``mod`` and run ``entry`` on ``args``."""
    return Interpreter(mod, **kwargs).run(entry, list(args or []))


def flatten_values(value) -> list:
    """Tuples flattened depth-first (the samples' out_0, out_1, ... convention)."""
    if isinstance(value, tuple):
        out = []
        for v in value:
            out.extend(flatten_values(v))
        return out
    return [value]
