"""The packed-function registry: what ``ExternFunc`` names, ``R.call_packed``,
``R.call_pure_packed`` and ``R.call_dps_packed`` call (spec/semantics.md, "Packed calls").

Users add their own with the decorator::

    @register_packed("my.scale")
    def scale(x, factor):
        return x * factor.value

A packed function receives runtime values (see ``values.py``). One registered with
``dps=True`` receives its output tensors after its inputs and fills them in place.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from relax_ref.values import PrimScalar, ShapeValue, StringValue, describe_value


@dataclass(frozen=True)
class PackedEntry:
    name: str
    func: Callable
    dps: bool = False
    ctx: bool = False  # EXEC-vm-7: receives a VMContext first under call_builtin_with_ctx


@dataclass(frozen=True)
class VMContext:
    """What a builtin registered with ``ctx=True`` receives first from
    ``R.call_builtin_with_ctx`` (TVM's VM context): ``call(f, args)`` applies a function
    value in the running interpreter, ``state`` lives as long as the interpreter."""

    call: Callable
    state: dict


_PACKED: dict[str, PackedEntry] = {}


def register_packed(name: str, *, dps: bool = False, override: bool = False,
                    ctx: bool = False):
    """Decorator: make ``func`` callable from Relax as the external function ``name``."""
    def wrap(func: Callable) -> Callable:
        if name in _PACKED and not override:
            raise ValueError(f"packed function {name!r} is already registered")
        _PACKED[name] = PackedEntry(name, func, dps, ctx)
        return func
    return wrap


def lookup_packed(name: str) -> PackedEntry | None:
    return _PACKED.get(name)


def packed_names() -> list[str]:
    return sorted(_PACKED)


# -- what lowered TVM modules call ----------------------------------------------------------

@register_packed("vm.builtin.shape_of")
def _shape_of(x: np.ndarray) -> ShapeValue:
    return ShapeValue(tuple(int(d) for d in x.shape))


@register_packed("vm.builtin.copy")
def _copy(x):
    return np.array(x, copy=True) if isinstance(x, np.ndarray) else x


@register_packed("vm.builtin.reshape")
def _reshape(x: np.ndarray, shape: ShapeValue) -> np.ndarray:
    return x.reshape(tuple(shape.dims))


@register_packed("vm.builtin.null_value")
def _null():
    return ()


@register_packed("vm.builtin.tuple_getitem")
def _tuple_getitem(t: tuple, i: PrimScalar):
    index = i.value if isinstance(i, PrimScalar) else i
    if not isinstance(t, tuple) or isinstance(index, bool) \
            or not isinstance(index, (int, np.integer)) \
            or not 0 <= index < len(t):
        raise ValueError(f"needs a tuple and an integer index within it, found "
                         f"{describe_value(t)} and {describe_value(i)}")
    return t[index]


@register_packed("vm.builtin.make_tuple")
def _make_tuple(*values):
    return tuple(values)



# -- what DispatchSortScan calls (spec/passes.md, PASS-dispatch-2) -------------------------------
# Destination-passing: the data, TVM's scalar arguments (``is_ascend`` as TVM's kernels take
# it, the opposite of the ops' ``descending``), then the output tensors, filled in place.
# Each runs its op's own NumPy semantics (the OpDef's ``compute``: ops/search.py,
# EXEC-search-sort-1 and EXEC-search-topk-1, where stability, ties, NaN placement and
# k > n are defined), so the lowered call computes exactly what the op computes.

def _scalar(v):
    return v.value if isinstance(v, (PrimScalar, StringValue)) else v


def _op_compute(op: str, data: np.ndarray, **attrs):
    from relax_ref.ir.relax import Attrs
    from relax_ref.ops.registry import lookup

    return lookup(op).compute(Attrs.of(attrs), data)


def _fill(out, value: np.ndarray, what: str) -> None:
    if not isinstance(out, np.ndarray) or out.shape != value.shape \
            or out.dtype != value.dtype:
        raise ValueError(f"{what}: the output is {describe_value(out)}, expected "
                         f"{value.dtype} of shape {value.shape}")
    out[...] = value


def _dtype_of(out) -> object:
    from relax_ref.ir.numpy_dtype import dtype_of_numpy

    if not isinstance(out, np.ndarray):
        raise ValueError(f"an output tensor expected, found {describe_value(out)}")
    return dtype_of_numpy(out.dtype)


@register_packed("relax_ref.sort.sort", dps=True)
def _packed_sort(data, axis, is_ascend, out) -> None:
    """``relax.sort`` of ``data`` along ``axis`` into ``out``."""
    value = _op_compute("relax.sort", data, axis=int(_scalar(axis)),
                        descending=not _scalar(is_ascend))
    _fill(out, value, "sort")


@register_packed("relax_ref.sort.argsort", dps=True)
def _packed_argsort(data, axis, is_ascend, out) -> None:
    """``relax.argsort`` of ``data`` along ``axis`` into ``out`` (of the indices' dtype)."""
    value = _op_compute("relax.argsort", data, axis=int(_scalar(axis)),
                        descending=not _scalar(is_ascend), dtype=_dtype_of(out))
    _fill(out, value, "argsort")


@register_packed("relax_ref.sort.topk", dps=True)
def _packed_topk(data, k, axis, ret_type, is_ascend, *outs) -> None:
    """``relax.topk``: ``outs`` are the values and/or indices, as ``ret_type`` says."""
    ret = _scalar(ret_type)
    if ret not in ("both", "values", "indices") or len(outs) != (2 if ret == "both" else 1):
        raise ValueError(f"topk with ret_type {ret!r} and {len(outs)} outputs")
    index_dtype = _dtype_of(outs[-1]) if ret != "values" else None
    value = _op_compute("relax.topk", data, k=int(_scalar(k)), axis=int(_scalar(axis)),
                        ret_type=ret, largest=not _scalar(is_ascend),
                        dtype=index_dtype if index_dtype is not None else _dtype_of(outs[0]))
    values = value if isinstance(value, tuple) else (value,)
    for out, v in zip(outs, values):
        _fill(out, v, "topk")


# -- the runtime functions TVM's LegalizeOps lowers some ops to (FCallPacked) ----------------
# Each runs the op's own semantics, so a lowered call computes what the op computes.

def _op_semantics(op_name: str, *args):
    from relax_ref.errors import RuntimeCheckError
    from relax_ref.ir.relax import EMPTY_ATTRS
    from relax_ref.ops.common import OpRuntimeError
    from relax_ref.ops.registry import lookup

    opdef = lookup(op_name)
    try:
        return opdef.compute(EMPTY_ATTRS, *args)
    except OpRuntimeError as err:
        raise RuntimeCheckError(f"{opdef.short_name}: {err.message}", None, check=err.check,
                                rule=err.rule) from None


@register_packed("relax.run.unique")
def _run_unique(x, *flags):
    """``R.unique``'s operands after the data: sorted, return_index, return_inverse,
    return_counts[, axis] (EXEC-search-unique-1)."""
    return _op_semantics("relax.unique", x, *flags)


@register_packed("relax.run.nonzero")
def _run_nonzero(x):
    return _op_semantics("relax.nonzero", x)


@register_packed("relax.run.shape_to_tensor")
def _run_shape_to_tensor(shape):
    return _op_semantics("relax.shape_to_tensor", shape)


# -- the library functions (relax_ref/passes/library.py, PASS-library-3) -----------------------
# Destination-passing: the output tensor comes after the inputs and is filled in place. Each
# computes with the ops' own semantics, so a library call and the ops it replaces agree
# exactly.

def _matmul_semantics(x, w):
    from relax_ref.ir.dtype import VOID
    from relax_ref.ir.relax import Attrs
    from relax_ref.ops.registry import lookup

    return lookup("relax.matmul").compute(Attrs.of({"out_dtype": VOID}), x, w)


def write_result(out: np.ndarray, result: np.ndarray, name: str) -> None:
    """PASS-library-3: a library function's result into its output tensor, which must
    have the result's shape and dtype."""
    if not isinstance(out, np.ndarray) or out.shape != result.shape \
            or out.dtype != result.dtype:
        raise ValueError(f"{name}: the output tensor must be {result.dtype} of shape "
                         f"{list(result.shape)}, found {describe_value(out)} "
                         f"(PASS-library-3)")
    out[...] = result


@register_packed("blas.matmul", dps=True)
def _blas_matmul(x, w, out):
    write_result(out, _matmul_semantics(x, w), "blas.matmul")


@register_packed("blas.matmul_bias_relu", dps=True)
def _blas_matmul_bias_relu(x, w, b, out):
    y = _op_semantics("relax.add", _matmul_semantics(x, w), b)
    write_result(out, _op_semantics("relax.nn.relu", y), "blas.matmul_bias_relu")
