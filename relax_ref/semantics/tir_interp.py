"""TIR execution: the definitional interpreter of PrimFuncs (spec/tir_semantics.md).

``run_prim_func(func, args)`` runs a ``tir.PrimFunc`` on NumPy arrays in destination-passing
style: stores mutate the argument arrays in place.

Two paths share one expression evaluator (``tir_exprs.Evaluator``), which computes on NumPy
scalars and on NumPy arrays alike, so both paths have the same expression semantics:

* the **scalar path** follows the rules literally, one statement and one loop iteration
  at a time (EXEC-tir-for-1, EXEC-tir-block-1 .. 5, ...);
* the **vectorized path** (EXEC-tir-vec-1 .. 6) runs a perfect loop nest around one store,
  or around one block whose body is one store, as array operations over the whole
  iteration space, when the shape of the nest guarantees the same final memory as the
  scalar path. Whenever a runtime condition fails or anything goes wrong while it
  computes (an index out of bounds, a division by zero, a binding outside its domain),
  it has either changed nothing or only written what the scalar path rewrites
  identically, and the statement is run again on the scalar path, which raises the
  error at the exact iteration. The tests check that both paths agree bit for bit;
* in the default mode ``"auto"``, float sums of products of loads run as contractions
  (EXEC-tir-vec-7, BLAS), which reassociate the sum: equal to the scalar path within
  float rounding, not bit for bit (``mode="ordered"`` keeps the order).

Memory that nobody wrote holds *poison* (DESIGN.md decision 6, EXEC-tir-poison-1): the
memory model's ``memory.poison_array``, used for every fresh buffer.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.dtype import DataType, DTypeError
from relax_ref.ir.numpy_dtype import dtype_of_numpy
from relax_ref.ir.uses import stored_storage, tir_nodes
from relax_ref.errors import RelaxError, ResourceError, assert_check_kind
from relax_ref.numerics import wrap_int
from relax_ref.semantics.memory import poison_array
from relax_ref.values import PrimScalar
from relax_ref.semantics.tir_exprs import (
    _NodeCache, _Return, _checked_indices, _error, _ill_typed, _intrinsic_name, _np, _text,
    _unsupported,
)
from relax_ref.semantics.tir_vector import VectorPath
from relax_ref.semantics.tir_vector_nests import vectorizable
from relax_ref.solver.evaluate import (
    DivisionByZero, EvaluationError, UnboundVariable, dtype_range, evaluate_int,
)

__all__ = [
    "run_prim_func",
    "MAX_STEPS", "VECTOR_STEP_ITERATIONS", "CONTRACTION_STEP_ITERATIONS", "MAX_BUFFER_ELEMENTS", "VECTOR_CHUNK_ELEMENTS", "FOLD_BLOCK_ELEMENTS",
    "AUTO_MIN_ITERATIONS", "MODES",
]

# ---------------------------------------------------------------------------------------
# Configuration (module level, read at each call; EXEC-tir-limit-1, EXEC-tir-limit-2)
# ---------------------------------------------------------------------------------------

#: The step budget of one ``run_prim_func`` call (EXEC-tir-limit-1): on the scalar path
#: each statement execution counts one step (a loop iteration's body is one); a nest the
#: vectorized path runs counts its scalar steps divided by VECTOR_STEP_ITERATIONS (or
#: CONTRACTION_STEP_ITERATIONS for a BLAS contraction), rounded up. A count, not a clock:
#: the same program gets the same verdict on any machine. About 4 s of the scalar path on
#: a loaded 2-core VM (250,000 steps/s), so that ``while True:`` stops in seconds;
#: ``max_steps=`` (the CLI's ``--max-steps``) overrides it per call.
MAX_STEPS = 1_000_000
#: Scalar steps the vectorized path does in about the time of one scalar step (measured
#: on elementwise and reduction nests: over 10^8 iterations/s against 2.5 * 10^5
#: steps/s), so a budget is about as many seconds on either path.
VECTOR_STEP_ITERATIONS = 1024
#: The same for a float sum of products run as a BLAS contraction (EXEC-tir-vec-7).
CONTRACTION_STEP_ITERATIONS = 65536
#: Most elements one buffer the function allocates may have (block ``alloc_buffers``,
#: ``T.allocate``, ``T.decl_buffer``).
MAX_BUFFER_ELEMENTS = 2**31
#: Most elements of one array the vectorized path computes at a time (one chunk,
#: EXEC-tir-vec-5).
VECTOR_CHUNK_ELEMENTS = 2**22
#: The reduction path evaluates the update of as many consecutive fold iterations at once
#: as make about this many elements (at least one iteration; a block that stays in cache
#: while the fold runs over it), within VECTOR_CHUNK_ELEMENTS (EXEC-tir-vec-4, -5).
FOLD_BLOCK_ELEMENTS = 2**18
#: In ``mode="auto"`` a nest with fewer iterations runs on the scalar path (the arrays
#: would not pay for themselves); ``mode="vectorized"`` vectorizes every nest it can.
AUTO_MIN_ITERATIONS = 16

#: ``"scalar"``: the definitional path only. ``"vectorized"``: vectorize every nest that
#: can be, bit-identical to the scalar path. ``"ordered"``: like ``"auto"`` but
#: bit-identical (no contraction). ``"auto"``: vectorize nests of at least
#: AUTO_MIN_ITERATIONS iterations, and run float sums of products as contractions
#: (EXEC-tir-vec-7: reassociated, equal to the scalar path within float rounding).
MODES = ("auto", "scalar", "vectorized", "ordered")


# ---------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------

def run_prim_func(func: tir.PrimFunc, args: list, *, mode: str = "auto",
                  max_steps: int | None = None, stats: dict | None = None) -> object:
    """Run ``func`` on ``args`` (EXEC-tir-bind-1 .. 3, then the body).

    ``args`` holds, per parameter in order, a NumPy array for a buffer parameter (the
    buffer views the whole array and stores write into it) or a Python int/float/bool,
    a NumPy scalar or an object with ``.value`` (PrimScalar) for a scalar parameter.
    ``mode`` is one of MODES: ``"scalar"`` (the definitional path only),
    ``"vectorized"`` (vectorize every nest that can be), ``"ordered"`` (vectorize nests of
    at least AUTO_MIN_ITERATIONS iterations) or ``"auto"`` (as ``"ordered"``, with float
    sums of products run as contractions, EXEC-tir-vec-7). Every mode but ``"auto"`` is
    bit-identical to the scalar path. Returns the value of ``T.ret`` as a PrimScalar, or
    None. ``stats``, when a dict, receives counts of vectorized nests and fallbacks.

    Raises RuntimeCheckError (``check`` says which rule failed) or ResourceError."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    machine = _Machine(mode, MAX_STEPS if max_steps is None else int(max_steps))
    result = None
    try:
        with np.errstate(all="ignore"):
            machine.bind_arguments(func, list(args))
            machine.exec(func.body)
    except _Return as ret:
        result = ret.value
    finally:
        if stats is not None:
            stats.update(machine.stats)
            stats["steps"] = machine.steps
    machine.check_read_only(func)
    if result is None:
        return None
    return PrimScalar(result.item(), dtype_of_numpy(result.dtype))


# ---------------------------------------------------------------------------------------
# The machine: bindings, statements, memory
# ---------------------------------------------------------------------------------------

class _Machine(VectorPath):
    """The state of one run: variable values, buffer arrays, steps taken."""

    def __init__(self, mode: str, max_steps: int):
        self.mode = mode
        self.max_steps = max_steps
        self.steps = 0
        self.env: dict[P.Var, Any] = {}
        self.buffers: dict[tir.Buffer, np.ndarray] = {}
        self.storage: dict[P.Var, np.ndarray] = {}
        self.no_vector = 1 if mode == "scalar" else 0
        self.failures: dict[int, int] = {}  # id(_Nest) -> runtime failures in this run
        self.stats = {"vectorized": 0, "fallback": 0, "contracted": 0, "strided": 0}
        # EXEC-tir-bind-4: the storage the function may store into (found when a
        # read-only argument comes), and (param, buffer, array, writable copy) per such
        # argument.
        self.stored: set | None = None
        self.read_only: list[tuple] = []
        self.reassociate = mode == "auto"  # EXEC-tir-vec-7
        # The module's limits, read at each run (EXEC-tir-vec-5)
        self.chunk_elements = VECTOR_CHUNK_ELEMENTS
        self.vector_step_iterations = VECTOR_STEP_ITERATIONS
        self.nest_cost = 0  # the scalar steps of the nest the vectorized path runs
        self.contraction_step_iterations = CONTRACTION_STEP_ITERATIONS
        self.fold_block_elements = FOLD_BLOCK_ELEMENTS
        self.auto_min_iterations = AUTO_MIN_ITERATIONS
        # The vectorized path's grid (EXEC-tir-vec-3, -4): each loop (and block iter)
        # variable of the nest that is an axis of the grid maps to (position, first value,
        # length, the array bound to it); None outside a vectorized nest.
        self.axes: dict[P.Var, tuple] | None = None
        self.grid_ndim = 0
        self.lengths: list[int] = []  # the grid's length at each position

    # -- EXEC-tir-bind-1 .. 3: arguments ----------------------------------------------------
    def bind_arguments(self, func: tir.PrimFunc, args: list) -> None:
        name = _func_name(func)
        if len(args) != len(func.params):
            raise _error(f"{name} takes {len(func.params)} arguments, found {len(args)}",
                         func, "signature", "EXEC-tir-bind-1")
        buffer_of = dict(func.buffer_map)
        sym: dict[P.Var, int] = {}
        bound: list[tuple[tir.Buffer, np.ndarray]] = []

        def bind_first(var: P.Var, value: int, what: str, node) -> None:
            if var not in sym:
                sym[var] = value
            elif sym[var] != value:
                raise _error(f"{what}: expected {var.name} = {sym[var]} (bound earlier), "
                             f"found {value}", node, "shape_mismatch", "EXEC-tir-bind-1")

        # Pass 1: scalar parameters, and each bare variable dimension at its first
        # occurrence (parameters in order, dimensions in order).
        for param, arg in zip(func.params, args):
            buf = buffer_of.get(param)
            if buf is not None:
                arr = self._buffer_argument(param, buf, arg, name)
                if not arr.flags.writeable:
                    arr = self._read_only_argument(func, param, buf, arr)
                bound.append((buf, arr))
                for d, dim in enumerate(buf.shape):
                    if isinstance(dim, P.Var) and dim not in sym:
                        sym[dim] = int(arr.shape[d])
                for d, stride in enumerate(buf.strides):
                    if isinstance(stride, P.Var) and stride not in sym:
                        sym[stride] = _element_stride(arr, d, buf, param)
                if isinstance(buf.elem_offset, P.Var) and buf.elem_offset not in sym:
                    sym[buf.elem_offset] = 0
            elif param.dtype.is_handle:
                if not isinstance(arg, np.ndarray):
                    raise _error(f"{name}: parameter {param.name} is a handle and takes an "
                                 f"array, found {type(arg).__name__}", param, "signature",
                                 "EXEC-tir-bind-1")
                if not arg.flags.writeable:
                    arg = self._read_only_argument(func, param, param, arg)
                if arg.flags.c_contiguous:
                    self.storage[param] = arg.reshape(-1)
            else:
                value = _scalar_argument(param, arg, name)
                bind_first(param, int(value) if not param.dtype.is_float else value,
                           f"{name}: parameter {param.name}", param)
                self.env[param] = value

        # Pass 2: every dimension, stride and offset expression against the array.
        for buf, arr in bound:
            for d, dim in enumerate(buf.shape):
                expected = _evaluate_dim(dim, sym, buf, name)
                if expected != arr.shape[d]:
                    raise _error(f"{name}: buffer {buf.name} dimension {d}: expected "
                                 f"{_show(dim, expected)}, found {arr.shape[d]} (array "
                                 f"shape {tuple(arr.shape)}, buffer shape "
                                 f"{_show_shape(buf.shape)})", buf, "shape_mismatch",
                                 "EXEC-tir-bind-1")
            for d, stride in enumerate(buf.strides):
                expected = _evaluate_dim(stride, sym, buf, name)
                if arr.shape[d] > 1 and expected != _element_stride(arr, d, buf, buf):
                    raise _error(f"{name}: buffer {buf.name} stride {d}: expected "
                                 f"{_show(stride, expected)} elements, found "
                                 f"{_element_stride(arr, d, buf, buf)}", buf,
                                 "shape_mismatch", "EXEC-tir-bind-3")
            if buf.elem_offset is not None and \
                    _evaluate_dim(buf.elem_offset, sym, buf, name) != 0:
                raise _unsupported(f"buffer {buf.name} with a nonzero elem_offset as a "
                                   f"parameter", buf)
            if buf.axis_separators:
                raise _unsupported(f"buffer {buf.name} with axis_separators", buf)
            self.buffers[buf] = arr
            if buf.data is not None and arr.flags.c_contiguous:
                self.storage[buf.data] = arr.reshape(-1)
        for param, buf in func.buffer_map:
            if buf in self.buffers and self.buffers[buf].flags.c_contiguous:
                self.storage.setdefault(param, self.buffers[buf].reshape(-1))
        for var, value in sym.items():
            if var.dtype.is_float:
                continue
            if var.dtype.is_integer:
                lo, hi = dtype_range(var.dtype)
                if not lo <= value <= hi:
                    raise _error(f"{name}: {var.name} = {value} does not fit {var.dtype}",
                                 var, "shape_mismatch", "EXEC-tir-bind-1")
            self.env[var] = _np(var.dtype).type(value)

    def _read_only_argument(self, func, param, buf, arr) -> np.ndarray:
        """EXEC-tir-bind-4: a read-only array (a module constant, or a caller's
        read-only array) that the function may store into runs as a writable copy;
        ``check_read_only`` then fails the call if the copy changed. ``buf`` is the
        parameter's buffer, or the parameter itself for a bare handle."""
        if self.stored is None:
            self.stored = stored_storage(func)
        key = buf if isinstance(buf, P.Var) or buf.data is None else buf.data
        if key not in self.stored:
            return arr
        copy = np.array(arr, copy=True)
        self.read_only.append((param, buf, arr, copy))
        return copy

    def check_read_only(self, func: tir.PrimFunc) -> None:
        for param, buf, original, copy in self.read_only:
            if copy.tobytes() != original.tobytes():
                what = f"buffer {buf.name}" if isinstance(buf, tir.Buffer) else "its data"
                raise _error(f"{_func_name(func)}: stores into {what}, but the "
                             f"argument of parameter {param.name} is read-only (a call_tir "
                             f"input, a module constant or a read-only array)", param, "read_only",
                             "EXEC-tir-bind-4")

    def _buffer_argument(self, param, buf, arg, name) -> np.ndarray:
        if not isinstance(arg, np.ndarray):
            raise _error(f"{name}: parameter {param.name} is buffer {buf.name} and takes an "
                         f"array, found {type(arg).__name__}", param, "signature",
                         "EXEC-tir-bind-1")
        try:
            found = str(dtype_of_numpy(arg.dtype))
        except DTypeError:
            found = str(arg.dtype)
        if found != str(buf.dtype):
            raise _error(f"{name}: buffer {buf.name}: expected dtype {buf.dtype}, found "
                         f"{found}", param, "dtype_mismatch", "EXEC-tir-bind-1")
        if arg.ndim != len(buf.shape):
            raise _error(f"{name}: buffer {buf.name}: expected {len(buf.shape)} dimensions, "
                         f"found {arg.ndim} (array shape {tuple(arg.shape)})", param,
                         "shape_mismatch", "EXEC-tir-bind-1")
        return arg

    # -- statements -----------------------------------------------------------------------
    def exec(self, s: tir.Stmt) -> None:
        """Execute one statement: one step (EXEC-tir-limit-1), then its rule."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise ResourceError(f"the TIR program ran more than {self.max_steps} steps "
                                f"(statements and loop iterations)", getattr(s, "span", None),
                                rule="EXEC-tir-limit-1")
        rule = _EXEC.get(type(s))
        if rule is None:
            raise _unsupported(f"statement {type(s).__name__}", s)
        try:
            rule(self, s)
        except RelaxError as err:
            if err.span is None:
                err.span = getattr(s, "span", None)
            raise

    def _exec_seq(self, s: tir.SeqStmt) -> None:
        """EXEC-tir-seq-1."""
        for x in s.seq:
            self.exec(x)

    def _exec_evaluate(self, s: tir.Evaluate) -> None:
        """EXEC-tir-eval-1: evaluate for effect (``T.ret`` leaves the function)."""
        self.eval(s.value)

    def _exec_store(self, s: tir.BufferStore) -> None:
        """EXEC-tir-store-1."""
        arr = self.array_of(s.buffer, s)
        value = self.eval(s.value)
        if value.dtype != arr.dtype:
            raise _ill_typed(f"store of a {value.dtype} value into buffer {s.buffer.name} of "
                             f"{s.buffer.dtype}", s)
        idx = self.indices(s.buffer, arr, s.indices, s, "store")
        arr[idx] = value

    def _exec_if(self, s: tir.IfThenElse) -> None:
        """EXEC-tir-if-1."""
        if self._condition(s.condition):
            self.exec(s.then_case)
        elif s.else_case is not None:
            self.exec(s.else_case)

    def _exec_let(self, s: tir.LetStmt) -> None:
        """EXEC-tir-let-1."""
        value = self.eval(s.value)
        if value.dtype != _np(s.var.dtype):
            raise _ill_typed(f"let {s.var.name}: {s.var.dtype} bound to a {value.dtype}", s)
        self.env[s.var] = value
        self.exec(s.body)
        del self.env[s.var]

    def _exec_assert(self, s: tir.AssertStmt) -> None:
        """EXEC-tir-assert-1; a message ``"<kind>: ..."`` naming an op check's kind
        traps as that kind (EXEC-tir-assert-2: LegalizeOps' guards, TE-leg-7)."""
        if not self._condition(s.condition):
            message = s.message or "assertion failed"
            raise _error(message, s, *assert_check_kind(message))
        if s.body is not None:
            self.exec(s.body)

    def _exec_while(self, s: tir.While) -> None:
        """EXEC-tir-while-1: the step limit bounds a loop that never ends."""
        while self._condition(s.condition):
            self.exec(s.body)

    def _exec_for(self, s: tir.For) -> None:
        """EXEC-tir-for-1 (scalar) or EXEC-tir-vec-1 (the whole nest at once)."""
        lo, extent = self.to_int(s.min, s), self.to_int(s.extent, s)
        if self.no_vector == 0:
            outcome = self.try_vectorize(s)
            if outcome == "done":
                return
            if outcome == "failed":
                self.no_vector += 1
                try:
                    self._check_loop_steps(extent, s.body, s)
                    self._loop(s, lo, extent)
                finally:
                    self.no_vector -= 1
                return
        self._check_loop_steps(extent, s.body, s)
        self._loop(s, lo, extent)

    def _check_loop_steps(self, count: int, body: tir.Stmt, node) -> None:
        """EXEC-tir-limit-1: a loop of ``count`` iterations whose body takes at least
        ``least_steps(body)`` steps each time would pass the limit: it fails before its
        first iteration, in every mode. Not when the body may leave the function
        (``T.ret``), which could end the run within the limit. Where inner loops may
        run vectorized (at a fraction of their scalar steps), each counts as its own
        statement's step only."""
        if count <= 0:
            return
        least = least_steps(body) if self.no_vector else least_steps_shallow(body)
        if least is None or self.steps + count * least <= self.max_steps:
            return
        raise ResourceError(f"the TIR program would run more than {self.max_steps} steps "
                            f"(statements and loop iterations): at least "
                            f"{self.steps + count * least} steps, as this loop of {count} "
                            f"iterations starts after {self.steps} steps and takes at least "
                            f"{count * least}; it stops before its first iteration",
                            getattr(node, "span", None), rule="EXEC-tir-limit-1")

    def _loop(self, s: tir.For, lo: int, extent: int) -> None:
        """EXEC-tir-for-1: min and extent are evaluated once (``lo``, ``extent``); the
        body runs for min, min+1, ..., min+extent-1 in order, whatever the loop's kind
        (parallel, vectorized, unroll and thread_binding are scheduling hints of the same
        meaning)."""
        var = s.loop_var
        make = _np(var.dtype).type
        env = self.env
        for i in range(lo, lo + extent):
            env[var] = make(i)
            self.exec(s.body)
        env.pop(var, None)

    def _exec_attr(self, s: tir.AttrStmt) -> None:
        """EXEC-tir-attr-1: ``thread_extent`` / ``virtual_thread`` over a variable run the
        body once per thread, in order; other attributes are hints."""
        node = s.node
        var = node.var if isinstance(node, tir.IterVar) else node
        if _is_thread_loop(s):
            make = _np(var.dtype).type
            count = self.to_int(s.value, s)
            self._check_loop_steps(count, s.body, s)
            for i in range(count):
                self.env[var] = make(i)
                self.exec(s.body)
            self.env.pop(var, None)
            return
        self.exec(s.body)

    def _exec_allocate(self, s: tir.Allocate) -> None:
        """EXEC-tir-alloc-1: fresh flat memory filled with poison, of as many elements as
        the extents' product (each extent checked, EXEC-tir-limit-2)."""
        extents = tuple(self.to_int(e, s) for e in s.extents)
        self._check_extents(extents, s.buffer_var.name, s)
        self.storage[s.buffer_var] = self._fresh((math.prod(extents),), s.dtype,
                                                 s.buffer_var.name, s)
        self.exec(s.body)
        del self.storage[s.buffer_var]
        for buf in [b for b in self.buffers if b.data is s.buffer_var]:
            del self.buffers[buf]

    def _exec_decl_buffer(self, s: tir.DeclBuffer) -> None:
        """EXEC-tir-alloc-1: a view of existing storage, or fresh poisoned memory."""
        buf = s.buffer
        if buf.data is not None and buf.data in self.storage:
            self.buffers[buf] = self._view_of_storage(buf, s)
            self.exec(s.body)
            del self.buffers[buf]
            return
        shape = tuple(self.to_int(d, s) for d in buf.shape)
        _require_compact(buf, shape, self, s)
        arr = self._fresh(shape, buf.dtype, buf.name, s)
        self.buffers[buf] = arr
        if buf.data is not None:
            self.storage[buf.data] = arr.reshape(-1)
        self.exec(s.body)
        del self.buffers[buf]
        if buf.data is not None:
            del self.storage[buf.data]

    def _exec_realize(self, s: tir.SBlockRealize) -> None:
        """EXEC-tir-block-1 .. 5: one block instance."""
        block = s.block
        # EXEC-tir-block-2: the predicate (over the enclosing loops) guards the instance.
        if not self._condition(s.predicate):
            return
        env = self.env
        values = [self.eval(v) for v in s.iter_values]
        at_min = True
        # EXEC-tir-block-1: each iter var is bound to its value, which lies in its domain.
        for iv, value in zip(block.iter_vars, values):
            lo, extent = self.to_int(iv.dom.min, s), self.to_int(iv.dom.extent, s)
            v = int(value)
            if not lo <= v < lo + extent:
                raise _error(f"block {block.name!r}: {iv.var.name} = {v} is outside its domain "
                             f"[{lo}, {lo + extent})", s, "block_binding", "EXEC-tir-block-1")
            if iv.kind == "R" and v != lo:
                at_min = False
        for iv, value in zip(block.iter_vars, values):
            env[iv.var] = value
        # EXEC-tir-block-4: buffers the block allocates are fresh and poisoned.
        for buf in block.alloc_buffers:
            shape = tuple(self.to_int(d, buf) for d in buf.shape)
            _require_compact(buf, shape, self, s)
            arr = self.buffers[buf] = self._fresh(shape, buf.dtype, buf.name, buf)
            if buf.data is not None:  # its handle, read as A.data (SYN-tir-data-1)
                self.storage[buf.data] = arr.reshape(-1)
        # EXEC-tir-block-5: match_buffers view regions of other buffers.
        matched_vars: list[P.Var] = []
        for mb in block.match_buffers:
            matched_vars += self._match_buffer(mb, block)
        # EXEC-tir-block-3: init runs when every reduction iter var is at its minimum.
        if block.init is not None and at_min:
            self.exec(block.init)
        self.exec(block.body)
        for iv in block.iter_vars:
            env.pop(iv.var, None)
        for var in matched_vars:
            env.pop(var, None)
        for buf in block.alloc_buffers:
            self.buffers.pop(buf, None)
            if buf.data is not None:
                self.storage.pop(buf.data, None)
        for mb in block.match_buffers:
            self.buffers.pop(mb.buffer, None)

    def _match_buffer(self, mb: tir.MatchBufferRegion, block: tir.SBlock) -> list[P.Var]:
        src = mb.source
        base = self.array_of(src.buffer, mb)
        slices = []
        for d, (r, n) in enumerate(zip(src.region, base.shape)):
            lo, extent = self.to_int(r.min, mb), self.to_int(r.extent, mb)
            if lo < 0 or extent < 0 or lo + extent > n:
                raise _error(f"block {block.name!r}: match_buffer region [{lo}, {lo + extent}) "
                             f"of dimension {d} is outside buffer {src.buffer.name} of shape "
                             f"{tuple(base.shape)}", mb, "index_out_of_bounds",
                             "EXEC-tir-block-5")
            slices.append(slice(lo, lo + extent))
        view = base[tuple(slices)]
        buf = mb.buffer
        drop = view.ndim - len(buf.shape)
        if drop < 0 or any(view.shape[d] != 1 for d in range(drop)):
            raise _error(f"block {block.name!r}: buffer {buf.name} of {len(buf.shape)} "
                         f"dimensions cannot match region of shape {tuple(view.shape)}", mb,
                         "shape_mismatch", "EXEC-tir-block-5")
        view = view[(0,) * drop]
        new_vars: list[P.Var] = []

        def match(expr: P.PrimExpr, actual: int, what: str) -> None:
            if isinstance(expr, P.Var) and expr not in self.env:
                self.env[expr] = _np(expr.dtype).type(actual)
                new_vars.append(expr)
                return
            expected = self.to_int(expr, mb)
            if expected != actual:
                raise _error(f"block {block.name!r}: match_buffer {buf.name} {what}: expected "
                             f"{expected}, found {actual}", mb, "shape_mismatch",
                             "EXEC-tir-block-5")

        for d, dim in enumerate(buf.shape):
            match(dim, view.shape[d], f"dimension {d}")
        for d, stride in enumerate(buf.strides):
            match(stride, view.strides[d] // view.itemsize, f"stride {d}")
        if buf.elem_offset is not None:
            offset = (view.__array_interface__["data"][0]
                      - base.__array_interface__["data"][0]) // view.itemsize
            match(buf.elem_offset, offset, "elem_offset")
        if buf.dtype != src.buffer.dtype:
            raise _error(f"match_buffer {buf.name} of {buf.dtype} over a {src.buffer.dtype} "
                         f"buffer", mb, "dtype_mismatch", "EXEC-tir-block-5")
        self.buffers[buf] = view
        return new_vars

    # -- memory -----------------------------------------------------------------------------
    def _fresh(self, shape: tuple, dtype: DataType, name: str, node) -> np.ndarray:
        """EXEC-tir-limit-2, EXEC-tir-poison-1: every allocation (block ``alloc_buffers``,
        ``T.allocate``, ``T.decl_buffer``) comes here."""
        self._check_extents(shape, name, node)
        return poison_array(shape, dtype)

    def _check_extents(self, shape: tuple, name: str, node) -> None:
        """EXEC-tir-alloc-1: no extent is negative; EXEC-tir-limit-2: at most
        MAX_BUFFER_ELEMENTS elements, checked before any memory is taken."""
        if any(d < 0 for d in shape):
            raise _error(f"buffer {name} allocated with a negative extent {shape}", node,
                         "shape_mismatch", "EXEC-tir-alloc-1")
        n = math.prod(shape)
        if n > MAX_BUFFER_ELEMENTS:
            raise ResourceError(f"buffer {name} of shape {shape} has {n} elements, more than "
                                f"the limit of {MAX_BUFFER_ELEMENTS}", getattr(node, "span", None),
                                rule="EXEC-tir-limit-2")

    def _view_of_storage(self, buf: tir.Buffer, node) -> np.ndarray:
        flat = self.storage[buf.data]
        shape = tuple(self.to_int(d, node) for d in buf.shape)
        _require_compact(buf, shape, self, node)
        offset = 0 if buf.elem_offset is None else self.to_int(buf.elem_offset, node)
        to = _np(buf.dtype)
        if flat.dtype != to:
            if flat.dtype.itemsize != to.itemsize:
                raise _unsupported(f"buffer {buf.name} of {buf.dtype} over storage of "
                                   f"{flat.dtype}", node)
            flat = flat.view(to)
        n = math.prod(shape)
        if offset < 0 or offset + n > flat.size:
            raise _error(f"buffer {buf.name} of shape {shape} at offset {offset} overruns its "
                         f"storage of {flat.size} elements", node, "index_out_of_bounds",
                         "EXEC-tir-alloc-1")
        return flat[offset:offset + n].reshape(shape)

    def array_of(self, buf: tir.Buffer, node) -> np.ndarray:
        arr = self.buffers.get(buf)
        if arr is None:
            if buf.data is not None and buf.data in self.storage:
                arr = self.buffers[buf] = self._view_of_storage(buf, node)
            else:
                raise _error(f"buffer {buf.name} is not defined here", node,
                             "undefined_buffer", "EXEC-tir-load-1")
        return arr

    def indices(self, buf: tir.Buffer, arr: np.ndarray, exprs, node, access: str) -> tuple:
        """EXEC-tir-load-1 / EXEC-tir-store-1: the index tuple, each index in
        [0, extent) of its dimension."""
        if len(exprs) != arr.ndim:
            raise _ill_typed(f"buffer {buf.name} of {arr.ndim} dimensions indexed with "
                             f"{len(exprs)} indices", node)
        idx = [self.eval(i) for i in exprs]
        return _checked_indices(buf, arr.shape, idx, node, access)


def _is_thread_loop(s: tir.AttrStmt) -> bool:
    """``thread_extent`` / ``virtual_thread`` over a variable: a loop (EXEC-tir-attr-1)."""
    node = s.node
    var = node.var if isinstance(node, tir.IterVar) else node
    return s.attr_key in ("thread_extent", "virtual_thread") and isinstance(var, P.Var)


def _least_steps(s: tir.Stmt, deep: bool = True) -> int | None:
    """EXEC-tir-limit-1: a lower bound of the steps one execution of ``s`` takes when it
    runs to its end (an error ends the run anyway), from its text alone; None when it may
    leave the function early (``T.ret``). Loops count with a constant extent only (when
    not ``deep``, a nest the vectorized path may run counts its own step only: its
    share of the budget may be a fraction of its scalar steps);
    ``if`` its cheaper arm; a block, a ``while`` or anything else one step."""
    if _may_return(s):
        return None
    return _bound(s, deep)


def _bound(s: tir.Stmt, deep: bool) -> int:
    if isinstance(s, tir.For):
        ext = s.extent
        if (deep or not vectorizable(s)) and isinstance(ext, P.IntImm) and ext.dtype.is_integer:
            return 1 + max(0, int(_constant_int(ext))) * _bound(s.body, deep)
        return 1
    if isinstance(s, tir.SeqStmt):
        return 1 + sum(_bound(x, deep) for x in s.seq)
    if isinstance(s, tir.IfThenElse):
        return 1 + min(_bound(s.then_case, deep),
                       0 if s.else_case is None else _bound(s.else_case, deep))
    if isinstance(s, (tir.LetStmt, tir.Allocate, tir.DeclBuffer)):
        return 1 + _bound(s.body, deep)
    if isinstance(s, tir.AssertStmt):
        return 1 + (0 if s.body is None else _bound(s.body, deep))
    if isinstance(s, tir.AttrStmt):
        if not _is_thread_loop(s):
            return 1 + _bound(s.body, deep)
        if isinstance(s.value, P.IntImm) and s.value.dtype.is_integer:
            return 1 + max(0, int(_constant_int(s.value))) * _bound(s.body, deep)
        return 1
    return 1


def _constant_int(e: P.IntImm) -> int:
    """An integer constant's value wrapped into its type, as the machine reads it."""
    return wrap_int(int(e.value), e.dtype)


def _may_return(node) -> bool:
    """Whether ``T.ret`` occurs anywhere in a statement or expression."""
    return any(isinstance(n, P.Call) and isinstance(n.op, str)
               and _intrinsic_name(n.op) == "ret" for n in tir_nodes(node))


least_steps = _NodeCache(_least_steps)
least_steps_shallow = _NodeCache(lambda s: _least_steps(s, deep=False))


def _func_name(func: tir.PrimFunc) -> str:
    return "prim_func" if func.span is None else f"prim_func at {func.span}"


def _scalar_argument(param: P.Var, arg, name: str):
    """EXEC-tir-bind-2: a scalar argument of the parameter's kind, in its type's range."""
    value = arg
    if not isinstance(value, (np.ndarray, np.generic, bool, int, float)) and \
            hasattr(value, "value"):
        value = value.value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        value = value.item()
    dt = param.dtype
    kind_ok = (isinstance(value, (bool, int)) if (dt.is_bool or dt.is_integer)
               else isinstance(value, (int, float)) and not isinstance(value, bool))
    if not kind_ok or not (dt.is_bool or dt.is_integer or dt.is_float):
        raise _error(f"{name}: parameter {param.name}: expected a {dt} scalar, found "
                     f"{type(arg).__name__} {arg!r}", param, "dtype_mismatch", "EXEC-tir-bind-2")
    if dt.is_float:
        return np.array(float(value)).astype(_np(dt))[()]
    lo, hi = dtype_range(dt)
    if not lo <= int(value) <= hi:
        raise _error(f"{name}: parameter {param.name}: {value} does not fit {dt}", param,
                     "dtype_mismatch", "EXEC-tir-bind-2")
    return np.bool_(value) if dt.is_bool else _np(dt).type(int(value))


def _evaluate_dim(e: P.PrimExpr, sym: dict, buf: tir.Buffer, name: str) -> int:
    try:
        return int(evaluate_int(e, sym))
    except UnboundVariable as err:
        raise _error(f"{name}: buffer {buf.name}: the shape uses {err}, which no parameter "
                     f"defines", buf, "unbound_variable", "EXEC-tir-bind-1") from None
    except DivisionByZero:
        raise _error(f"{name}: buffer {buf.name}: division by zero in its shape", buf,
                     "division_by_zero", "EXEC-tir-bind-1") from None
    except EvaluationError as err:
        raise _unsupported(f"buffer shape expression ({err})", buf) from None


def _element_stride(arr: np.ndarray, d: int, buf: tir.Buffer, node) -> int:
    stride, rem = divmod(arr.strides[d], arr.itemsize)
    if rem:
        raise _unsupported(f"array with a stride of {arr.strides[d]} bytes for buffer "
                           f"{buf.name}", node)
    return stride


def _show(e: P.PrimExpr, value: int) -> str:
    if isinstance(e, P.IntImm):
        return str(value)
    return f"{value} ({_text(e)})"


def _show_shape(shape) -> str:
    return "(" + ", ".join(_text(d) for d in shape) + ")"


def _require_compact(buf: tir.Buffer, shape: tuple, m: _Machine, node) -> None:
    """Buffers the program allocates are compact (row-major, offset 0); other layouts
    are not supported there."""
    if buf.strides:
        compact = [math.prod(shape[d + 1:]) for d in range(len(shape))]
        if [m.to_int(s, node) for s in buf.strides] != compact:
            raise _unsupported(f"allocated buffer {buf.name} with non-compact strides", node)
    if buf.axis_separators:
        raise _unsupported(f"buffer {buf.name} with axis_separators", node)


_EXEC: dict[type, Callable] = {
    tir.SeqStmt: _Machine._exec_seq,
    tir.Evaluate: _Machine._exec_evaluate,
    tir.BufferStore: _Machine._exec_store,
    tir.IfThenElse: _Machine._exec_if,
    tir.LetStmt: _Machine._exec_let,
    tir.AssertStmt: _Machine._exec_assert,
    tir.While: _Machine._exec_while,
    tir.For: _Machine._exec_for,
    tir.AttrStmt: _Machine._exec_attr,
    tir.Allocate: _Machine._exec_allocate,
    tir.DeclBuffer: _Machine._exec_decl_buffer,
    tir.SBlockRealize: _Machine._exec_realize,
}

