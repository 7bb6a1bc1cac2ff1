"""The ``vm.builtin.*`` packed functions that TVM's lowering passes call, with the checks
TVM's VM makes (spec/semantics.md, "VM builtins", EXEC-vm-*).

LowerRuntimeBuiltin calls ``vm.builtin.tensor_to_shape`` (and packed.py's
``vm.builtin.reshape`` and ``vm.builtin.shape_of``); VMShapeLower keeps every symbolic value of a function in
a *shape heap* (a 1-d int64 array) and calls the shape builtins to fill it from arguments
(``match_shape``, ``match_prim_value``), to check arguments (``check_tensor_info``,
``check_shape_info``, ``check_prim_value_info``, ``check_tuple_info``,
``check_func_info``), and to build values from it (``make_shape``, ``make_prim_value``).

A failing check is a RuntimeCheckError naming what was expected and what was found. Its
kind is the one the interpreter gives the same failure before lowering: the error
context VMShapeLower passes says where the check comes from (``loc=param[i]``: the
signature; ``loc=return``: the result; ``match_cast``), so a lowered function traps
exactly where its input trapped.
"""
from __future__ import annotations

import numpy as np

from relax_ref.errors import RuntimeCheckError
from relax_ref.ir.numpy_dtype import dtype_of_numpy
from relax_ref.values import (
    Closure, DTypeValue, PackedFunc, PrimScalar, ShapeValue, StringValue, describe_value,
)

from .packed import _op_semantics, register_packed

# -- what LowerRuntimeBuiltin calls ----------------------------------------------------------
# (vm.builtin.reshape and vm.builtin.shape_of are packed.py's.)


@register_packed("vm.builtin.tensor_to_shape")
def _tensor_to_shape(x):
    """EXEC-vm-1: ``R.tensor_to_shape``'s own semantics."""
    return _op_semantics("relax.tensor_to_shape", x)


# -- the shape heap (VMShapeLower) ----------------------------------------------------------

#: How ``match_shape`` and ``match_prim_value`` treat one value (TVM's MatchShapeCode).
ASSERT_EQUAL_TO_IMM, STORE_TO_HEAP, NO_OP, ASSERT_EQUAL_TO_LOAD = 0, 1, 2, 3
#: How ``make_shape`` and ``make_prim_value`` read one value (TVM's MakeShapeCode).
USE_IMM, LOAD_SHAPE = 0, 1


def _int(v) -> int:
    if isinstance(v, PrimScalar):
        return int(v.value)
    return int(v)


def _text(v) -> str:
    return v.value if isinstance(v, StringValue) else str(v)


def check_kind(err_ctx) -> tuple[str, str]:
    """EXEC-vm-2: (check kind, rule) of a failure under the error context ``err_ctx``:
    the kind the interpreter gives the same failure before lowering."""
    text = _text(err_ctx)
    if "loc=return" in text:
        return "return", "EXEC-call-4"
    if "loc=param[" in text:
        return "signature", "EXEC-call-3"
    if "match_cast" in text:
        return "match_cast", "EXEC-match-cast-1"
    return "struct_info", "EXEC-bind-1"


def _fail(err_ctx, message: str) -> RuntimeCheckError:
    check, rule = check_kind(err_ctx)
    where = _text(err_ctx).strip()
    return RuntimeCheckError(f"{message}" + (f" ({where})" if where else ""), None,
                             check=check, rule=rule)


@register_packed("vm.builtin.alloc_shape_heap")
def _alloc_shape_heap(size):
    """EXEC-vm-3: the shape heap, ``size`` int64 slots (uninitialised in TVM; here 0)."""
    return np.zeros(_int(size), dtype=np.int64)


def _heap(heap) -> np.ndarray | None:
    """The heap; None for the null value a function without symbolic values passes (its
    codes then use immediates only, and a slot code fails on it)."""
    if isinstance(heap, tuple) and not heap:
        return None
    if not isinstance(heap, np.ndarray) or heap.dtype != np.int64 or heap.ndim != 1:
        raise RuntimeCheckError(f"a shape heap (1-d int64) expected, found "
                                f"{describe_value(heap)}", None, check="struct_info",
                                rule="EXEC-vm-3")
    return heap


def _match_values(values: list[int], heap: np.ndarray, codes: list, err_ctx, what: str):
    """EXEC-vm-4: each value against its (code, operand) pair: compare with an
    immediate, store into a slot, ignore, or compare with a slot."""
    for k, value in enumerate(values):
        code, operand = _int(codes[2 * k]), _int(codes[2 * k + 1])
        if code == ASSERT_EQUAL_TO_IMM and value != operand:
            raise _fail(err_ctx, f"{what} {k} is {value}, expected {operand}")
        if code in (STORE_TO_HEAP, ASSERT_EQUAL_TO_LOAD):
            _check_slot(heap, operand)
        if code == STORE_TO_HEAP:
            heap[operand] = value
        elif code == ASSERT_EQUAL_TO_LOAD and value != int(heap[operand]):
            raise _fail(err_ctx, f"{what} {k} is {value}, expected {int(heap[operand])} "
                                 f"(the value already bound to its symbolic variable)")


@register_packed("vm.builtin.match_shape")
def _match_shape(value, heap, ndim, *rest):
    """EXEC-vm-4: ``match_shape(tensor or shape, heap, ndim, (code, operand)*ndim,
    err_ctx)``."""
    heap = _heap(heap)
    *codes, err_ctx = rest
    n = _int(ndim)
    dims = _dims_of(value, err_ctx)
    if len(dims) != n:
        raise _fail(err_ctx, f"expected {n} dimensions, found {len(dims)}")
    _match_values(list(dims), heap, codes, err_ctx, "dimension")
    return ()


def _dims_of(value, err_ctx) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        return tuple(int(d) for d in value.shape)
    if isinstance(value, ShapeValue):
        return tuple(value.dims)
    raise _fail(err_ctx, f"expected a tensor or a shape, found {describe_value(value)}")


@register_packed("vm.builtin.match_prim_value")
def _match_prim_value(value, heap, code, operand, err_ctx):
    """EXEC-vm-4: one integer scalar against one (code, operand) pair."""
    heap = _heap(heap)
    if not isinstance(value, PrimScalar):
        raise _fail(err_ctx, f"expected an R.Prim value, found {describe_value(value)}")
    _match_values([int(value.value)], heap, [code, operand], err_ctx, "the value")
    return ()


def _check_slot(heap, index: int) -> None:
    if heap is None or not 0 <= index < heap.shape[0]:
        size = 0 if heap is None else heap.shape[0]
        raise RuntimeCheckError(f"shape heap slot {index} does not exist (the heap has "
                                f"{size})", None, check="out_of_bounds", rule="EXEC-vm-3")


def _build(heap, codes: list) -> list[int]:
    out = []
    for k in range(0, len(codes), 2):
        code, operand = _int(codes[k]), _int(codes[k + 1])
        if code == LOAD_SHAPE:
            _check_slot(heap, operand)
            out.append(int(heap[operand]))
        else:
            out.append(operand)
    return out


@register_packed("vm.builtin.make_shape")
def _make_shape(heap, ndim, *codes):
    """EXEC-vm-5: ``make_shape(heap, ndim, (code, operand)*ndim)``: a shape whose
    dimensions are immediates or slots of the heap."""
    heap = _heap(heap)
    dims = _build(heap, list(codes))
    if len(dims) != _int(ndim) or any(d < 0 for d in dims):
        raise RuntimeCheckError(f"make_shape: {dims} is not a shape of {_int(ndim)} "
                                f"non-negative dimensions", None, check="shape_mismatch",
                                rule="EXEC-vm-5")
    return ShapeValue(tuple(dims))


@register_packed("vm.builtin.make_prim_value")
def _make_prim_value(heap, code, operand):
    """EXEC-vm-5: an int64 R.Prim value, an immediate or a slot of the heap."""
    from relax_ref.ir.dtype import INT64

    value = _build(_heap(heap), [code, operand])[0]
    return PrimScalar(value, INT64)


@register_packed("vm.builtin.check_tensor_info")
def _check_tensor_info(value, ndim, dtype, err_ctx):
    """EXEC-vm-6: a tensor of ``ndim`` dimensions (-1: any) and ``dtype`` (void: any)."""
    if not isinstance(value, np.ndarray):
        raise _fail(err_ctx, f"expected a tensor, found {describe_value(value)}")
    n = _int(ndim)
    if n != -1 and value.ndim != n:
        raise _fail(err_ctx, f"expected a tensor of {n} dimensions, found {value.ndim}")
    want = dtype.dtype if isinstance(dtype, DTypeValue) else None
    if want is not None and not want.is_void and dtype_of_numpy(value.dtype) != want:
        raise _fail(err_ctx, f"expected dtype {want}, found {dtype_of_numpy(value.dtype)}")
    return ()


@register_packed("vm.builtin.check_shape_info")
def _check_shape_info(value, ndim, err_ctx):
    """EXEC-vm-6: a shape of ``ndim`` dimensions (-1: any)."""
    if not isinstance(value, ShapeValue):
        raise _fail(err_ctx, f"expected a shape, found {describe_value(value)}")
    n = _int(ndim)
    if n != -1 and len(value.dims) != n:
        raise _fail(err_ctx, f"expected a shape of {n} dimensions, found {len(value.dims)}")
    return ()


@register_packed("vm.builtin.check_prim_value_info")
def _check_prim_value_info(value, dtype, err_ctx):
    """EXEC-vm-6: an R.Prim value of ``dtype`` (void: any)."""
    if not isinstance(value, PrimScalar):
        raise _fail(err_ctx, f"expected an R.Prim value, found {describe_value(value)}")
    want = dtype.dtype if isinstance(dtype, DTypeValue) else None
    if want is not None and not want.is_void and value.dtype != want:
        raise _fail(err_ctx, f"expected an R.Prim of {want}, found {value.dtype}")
    return ()


@register_packed("vm.builtin.check_tuple_info")
def _check_tuple_info(value, size, err_ctx):
    """EXEC-vm-6: a tuple of ``size`` fields."""
    if not isinstance(value, tuple):
        raise _fail(err_ctx, f"expected a tuple, found {describe_value(value)}")
    if len(value) != _int(size):
        raise _fail(err_ctx, f"expected a tuple of {_int(size)} fields, found {len(value)}")
    return ()


@register_packed("vm.builtin.check_func_info")
def _check_func_info(value, err_ctx):
    """EXEC-vm-6: a function (a closure or a packed function)."""
    if not isinstance(value, (Closure, PackedFunc)):
        raise _fail(err_ctx, f"expected a function, found {describe_value(value)}")
    return ()


# -- CUDA Graph capture and replay (RewriteCUDAGraph) ------------------------------------------
# The VM's state is the interpreter's (VMContext.state): one cache per running program, as
# one TVM VM holds one. On a GPU, a replayed graph launches its kernels on the addresses
# captured the first time; here the capture function runs again on the values it got then.


def _same_memory(a, b) -> bool:
    """Whether a replay of a graph captured on ``a`` would act on ``b``: the same storage,
    or a tensor at the same address with the same shape, dtype and strides."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
                and a.shape == b.shape and a.dtype == b.dtype and a.strides == b.strides)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_memory(x, y) for x, y in zip(a, b))
    if isinstance(a, PrimScalar) and isinstance(b, PrimScalar):
        return a.value == b.value and a.dtype == b.dtype
    return a is b


def _cuda_graph_state(ctx) -> dict:
    return ctx.state.setdefault("cuda_graph", {"allocs": {}, "graphs": {}, "captured": 0,
                                               "replayed": 0})


def _closure_func(f):
    return f.func if isinstance(f, Closure) else f


@register_packed("vm.builtin.cuda_graph.get_cached_alloc", ctx=True)
def _get_cached_alloc(ctx, alloc_func, index):
    """EXEC-vm-cudagraph-1: the storages ``alloc_func()`` returns, allocated on the
    first call with this index and the same ones on every later call."""
    state = _cuda_graph_state(ctx)
    key = _int(index)
    if key not in state["allocs"]:
        state["allocs"][key] = (_closure_func(alloc_func), ctx.call(alloc_func, ()))
    func, storages = state["allocs"][key]
    if func is not _closure_func(alloc_func):
        raise RuntimeCheckError(f"cuda_graph.get_cached_alloc: entry {key} was allocated by "
                                f"another function", None, check="cuda_graph",
                                rule="EXEC-vm-cudagraph-1")
    return storages


@register_packed("vm.builtin.cuda_graph.run_or_capture", ctx=True)
def _run_or_capture(ctx, capture_func, args, index, *shape):
    """EXEC-vm-cudagraph-2: the first call with this index (and shape, and argument
    shapes) runs ``capture_func(*args)`` and records it; a later call replays the
    record: the capture function runs again on the recorded arguments, which must be
    the very memory it is given now, and the recorded results are returned."""
    state = _cuda_graph_state(ctx)
    args = tuple(args)
    shapes = tuple(a.shape if isinstance(a, np.ndarray) else None for a in args)
    key = (_int(index), tuple(shape[0].dims) if shape else None, shapes)
    record = state["graphs"].get(key)
    if record is None:
        result = ctx.call(capture_func, args)
        state["graphs"][key] = (_closure_func(capture_func), args, result)
        state["captured"] += 1
        return result
    func, saved, result = record
    if func is not _closure_func(capture_func):
        raise RuntimeCheckError(f"cuda_graph.run_or_capture: graph {key[0]} was captured "
                                f"from another function", None, check="cuda_graph",
                                rule="EXEC-vm-cudagraph-2")
    for k, (old, new) in enumerate(zip(saved, args)):
        if not _same_memory(old, new):
            raise RuntimeCheckError(
                f"cuda_graph.run_or_capture: argument {k} of graph {key[0]} is "
                f"{describe_value(new)} in other memory than the graph was captured on (a "
                f"replay would act on the captured memory)", None, check="cuda_graph",
                rule="EXEC-vm-cudagraph-2")
    ctx.call(capture_func, saved)
    state["replayed"] += 1
    return result
