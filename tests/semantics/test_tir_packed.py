"""Packed calls in TIR (spec/tir_semantics.md EXEC-tir-packed-*; spec/syntax.md
SYN-tir-data-1, SYN-tir-packed-1): buffer handles, stack descriptors and TVM's sorts, in
the forms TVM's lowered sort-based kernels print."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.conformance import tvm_reads_text
from relax_ref.errors import RuntimeCheckError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.uses import stored_storage, tir_nodes
from relax_ref.parser.builder import parse
from relax_ref.semantics.tir_exprs import prim_func_is_pure
from relax_ref.semantics.well_formed import check_well_formed
from relax_ref.semantics.tir_interp import run_prim_func
from relax_ref.semantics.tir_packed import stable_order


def arr(x, shape, dtype="float32", offset=0, ndim=None, hint=None):
    """A ``T.tvm_stack_make_array`` of buffer ``x``'s handle."""
    dims = ", ".join(f"T.int64({d})" for d in shape)
    hint = hint or ("T.float32(0.0)" if dtype == "float32" else f"T.{dtype}(0)")
    return (f"T.tvm_stack_make_array({x}.data, T.tvm_stack_make_shape({dims}), 0, "
            f"{len(shape) if ndim is None else ndim}, {hint}, T.int64({offset}))")


def module(params: str, call: str, allocs: str = "", after: str = "") -> str:
    return f'''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def kernel({params}):
        {allocs}
        with T.sblock("sort"):
            T.reads()
            T.writes()
            {call}
        {after}
'''


def one(text: str) -> tir.PrimFunc:
    (func,) = [f for _, f in parse(text).items() if isinstance(f, tir.PrimFunc)]
    return func


def argsort_module(shape=(2, 4), axis=1, ascend=True, out="int64", name="argsort", **kw):
    params = (f'A: T.Buffer({tuple(shape)!r}, "float32"), '
              f'I: T.Buffer({tuple(shape)!r}, "{out}")')
    call = (f'T.call_packed("tvm.contrib.sort.{name}", {arr("A", shape)}, '
            f'{arr("I", kw.pop("out_shape", shape), out)}, {axis}, T.bool({ascend}))')
    return module(params, call)


def run(text: str, *arrays):
    run_prim_func(one(text), list(arrays), mode="scalar")
    return arrays


# ---------------------------------------------------------------------------------------
# argsort and sort
# ---------------------------------------------------------------------------------------

def test_argsort_rows_ascending_ties_in_original_order():
    a = np.array([[3, 1, 2, 1], [0, -0.0, -1, 5]], np.float32)
    _, idx = run(argsort_module(), a, np.zeros((2, 4), np.int64))
    assert idx.tolist() == [[1, 3, 2, 0], [2, 0, 1, 3]]   # -0.0 and 0 tie: 0 first


def test_argsort_descending_keeps_ties_in_original_order_too():
    a = np.array([[3, 1, 3, 1], [2, 2, 2, 2]], np.float32)
    _, idx = run(argsort_module(ascend=False), a, np.zeros((2, 4), np.int64))
    assert idx.tolist() == [[0, 2, 1, 3], [0, 1, 2, 3]]


def test_argsort_along_the_first_axis_into_int32_and_float_outputs():
    a = np.array([[5, 0], [4, 9], [6, 1]], np.float32)
    for out, np_out in (("int32", np.int32), ("float32", np.float32)):
        _, idx = run(argsort_module((3, 2), axis=0, out=out), a, np.zeros((3, 2), np_out))
        assert idx.tolist() == [[1, 0], [0, 2], [2, 1]]


def test_argsort_negative_axis_counts_from_the_end():
    a = np.array([[2, 0, 1]], np.float32)
    _, idx = run(argsort_module((1, 3), axis=-1), a, np.zeros((1, 3), np.int64))
    assert idx.tolist() == [[1, 2, 0]]


def test_sort_gives_the_values():
    text = argsort_module((1, 4), name="sort", out="float32")
    _, out = run(text, np.array([[2, -1, 7, 0]], np.float32), np.zeros((1, 4), np.float32))
    assert out.tolist() == [[-1, 0, 2, 7]]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=9), st.booleans())
def test_stable_order_is_a_stable_sort(values, ascend):
    keys = np.array(values, np.int64)
    order = sorted(range(len(values)), key=lambda i: (values[i] if ascend else -values[i], i))
    assert stable_order(keys, 0, ascend).tolist() == order


# ---------------------------------------------------------------------------------------
# The forms TVM prints: an allocated buffer's handle, then reads of that buffer
# ---------------------------------------------------------------------------------------

MEDIAN_LIKE = module(
    'A: T.Buffer((T.int64(2), T.int64(3)), "float32"), M: T.Buffer((T.int64(2),), "float32")',
    f'T.call_packed("tvm.contrib.sort.argsort", {arr("A", (2, 3))}, '
    f'{arr("order", (2, 3), "int64")}, 1, T.bool(True))',
    allocs='order = T.sblock_alloc_buffer((T.int64(2), T.int64(3)), "int64")',
    after='''for i in range(T.int64(2)):
            with T.sblock("pick"):
                vi = T.axis.spatial(T.int64(2), i)
                M[vi] = A[vi, order[vi, T.int64(1)]]''')


def test_an_allocated_buffer_passed_to_a_packed_call_then_read():
    a = np.array([[9, 1, 5], [0, 4, -2]], np.float32)
    _, m = run(MEDIAN_LIKE, a, np.zeros(2, np.float32))
    assert m.tolist() == [5, 0]


def test_a_packed_call_counts_as_a_store_into_its_arrays():
    func = one(MEDIAN_LIKE)
    (order,) = func.body.block.alloc_buffers
    a_buf = func.buffer_of(func.params[0])
    assert order.data in stored_storage(func) and a_buf.data in stored_storage(func)
    assert not prim_func_is_pure(func)


def test_buffer_data_is_one_variable_and_round_trips():
    text = module('A: T.Buffer((T.int64(3),), "float32"), S: T.Buffer((T.int64(3),), "float32")',
                  f'T.call_packed("tvm.contrib.sort.sort", {arr("A", (3,))}, {arr("S", (3,))}, '
                  f'0, T.bool(True))\n            T.call_packed("tvm.contrib.sort.sort", '
                  f'{arr("A", (3,))}, {arr("S", (3,))}, 0, T.bool(False))')
    func = one(text)
    handles = [n.args[0] for n in tir_nodes(func.body)
               if isinstance(n, P.Call) and n.op == "tir.tvm_stack_make_array"]
    a_data = func.buffer_of(func.params[0]).data
    assert len(handles) == 4 and handles[0] is handles[2] is a_data
    assert not check_well_formed(parse(text))  # each buffer defines its own handle
    printed = parse(text).script()
    assert printed.count("A.data") == 2 and "data=" not in printed
    assert parse(printed).script() == printed
    if importlib.util.find_spec("tvm") is not None:  # TVM reads it as its own form
        ok, why = tvm_reads_text(printed)
        assert ok, why


def test_a_decl_buffer_owns_the_handle_read_from_it():
    text = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), I: T.Buffer((4,), "int32")):
    tmp = T.decl_buffer((4,), "int32")
    T.evaluate(T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(4), 0, 1, T.float32(0.0), 0), T.tvm_stack_make_array(tmp.data, T.tvm_stack_make_shape(4), 0, 1, 0, 0), 0, T.bool(False)))
    for i in range(4):
        I[i] = tmp[i]
'''
    mod = parse(text)
    printed = mod.script()
    assert "tmp.data" in printed and "data=" not in printed
    assert parse(printed).script() == printed
    i = np.zeros(4, np.int32)
    run_prim_func(one(text), [np.array([1, 4, 4, 0], np.float32), i])
    assert i.tolist() == [1, 2, 0, 3]


# ---------------------------------------------------------------------------------------
# argsort_nms
# ---------------------------------------------------------------------------------------

def nms_module(count_shape=(2,)):
    params = ('S: T.Buffer((T.int64(2), T.int64(4)), "float32"), '
              f'C: T.Buffer({tuple(count_shape)!r}, "int32"), '
              'O: T.Buffer((T.int64(2), T.int64(4)), "int32")')
    call = (f'T.call_packed("tvm.contrib.sort.argsort_nms", {arr("S", (2, 4))}, '
            f'{arr("C", count_shape, "int32", hint="0")}, {arr("O", (2, 4), "int32", hint="0")}, '
            f'1, T.bool(False))')
    return module(params, call)


def test_argsort_nms_sorts_the_valid_prefix_and_leaves_the_rest_in_place():
    s = np.array([[0.1, 0.9, 0.5, 0.99], [0.3, 0.3, 0.8, 0.0]], np.float32)
    _, _, out = run(nms_module(), s, np.array([3, 0], np.int32), np.zeros((2, 4), np.int32))
    assert out.tolist() == [[1, 2, 0, 3], [0, 1, 2, 3]]


def test_argsort_nms_valid_count_past_the_row_traps():
    s = np.zeros((2, 4), np.float32)
    with pytest.raises(RuntimeCheckError) as err:
        run(nms_module(), s, np.array([4, 5], np.int32), np.zeros((2, 4), np.int32))
    assert err.value.rule == "EXEC-tir-packed-5" and err.value.check == "index_out_of_bounds"
    assert "valid count 5 of row 1" in str(err.value)


# ---------------------------------------------------------------------------------------
# Errors: located, naming the rule
# ---------------------------------------------------------------------------------------

def fails(text: str, *arrays) -> RuntimeCheckError:
    with pytest.raises(RuntimeCheckError) as err:
        run(text, *arrays)
    assert err.value.span is not None
    return err.value


def test_a_nan_to_sort_is_an_error_not_an_unspecified_order():
    a = np.array([[1, np.nan, 0, 2], [0, 0, 0, 0]], np.float32)
    err = fails(argsort_module(), a, np.zeros((2, 4), np.int64))
    assert (err.rule, err.check) == ("EXEC-tir-packed-4", "invalid_value")


def test_a_descriptor_past_the_buffer_end_is_out_of_bounds():
    params = 'A: T.Buffer((T.int64(4),), "float32"), I: T.Buffer((T.int64(4),), "int64")'
    call = (f'T.call_packed("tvm.contrib.sort.argsort", {arr("A", (4,), offset=1)}, '
            f'{arr("I", (4,), "int64")}, 0, T.bool(True))')
    err = fails(module(params, call), np.zeros(4, np.float32), np.zeros(4, np.int64))
    assert (err.rule, err.check) == ("EXEC-tir-packed-2", "index_out_of_bounds")
    assert "[1, 5) of handle A, which has 4" in str(err)


def test_ndim_must_match_the_shape():
    params = 'A: T.Buffer((T.int64(4),), "float32"), I: T.Buffer((T.int64(4),), "int64")'
    call = (f'T.call_packed("tvm.contrib.sort.argsort", {arr("A", (4,), ndim=2)}, '
            f'{arr("I", (4,), "int64")}, 0, T.bool(True))')
    err = fails(module(params, call), np.zeros(4, np.float32), np.zeros(4, np.int64))
    assert (err.rule, err.check) == ("EXEC-tir-packed-2", "shape_mismatch")


def test_output_of_another_shape_or_an_unsupported_dtype():
    err = fails(argsort_module((2, 2), out_shape=(4, 1)), np.zeros((2, 2), np.float32),
                np.zeros((2, 2), np.int64))
    assert err.check == "shape_mismatch"
    err = fails(argsort_module((2, 2), out="int8"), np.zeros((2, 2), np.float32),
                np.zeros((2, 2), np.int8))
    assert (err.rule, err.check) == ("EXEC-tir-packed-3", "dtype_mismatch")


def test_an_axis_outside_the_input():
    err = fails(argsort_module((2, 2), axis=2), np.zeros((2, 2), np.float32),
                np.zeros((2, 2), np.int64))
    assert (err.rule, err.check) == ("EXEC-tir-packed-3", "invalid_value")


def test_an_unknown_packed_function_is_named():
    text = argsort_module().replace("tvm.contrib.sort.argsort", "tvm.contrib.sort.shuffle")
    err = fails(text, np.zeros((2, 4), np.float32), np.zeros((2, 4), np.int64))
    assert (err.rule, err.check) == ("EXEC-tir-packed-1", "unsupported")
    assert "'tvm.contrib.sort.shuffle'" in str(err)


ROWS_BY_OFFSET = '''
@T.prim_func
def f(A: T.Buffer((2, 3), "float32"), I: T.Buffer((2, 3), "int32")):
    for r in range(2):
        T.evaluate(T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(3), 0, 1, T.float32(0.0), r * 3), T.tvm_stack_make_array(I.data, T.tvm_stack_make_shape(3), 0, 1, 0, r * 3), 0, T.bool(False)))
'''


@pytest.mark.parametrize("mode", ["scalar", "vectorized", "auto"])
def test_a_sort_given_an_element_offset_is_refused(mode):
    """TVM's sorts ignore a descriptor's offset (they would sort row 0 twice): refused in
    every mode, the loop around the call running on the scalar path (EXEC-tir-packed-3)."""
    idx = np.zeros((2, 3), np.int32)
    with pytest.raises(RuntimeCheckError) as err:
        run_prim_func(one(ROWS_BY_OFFSET), [np.ones((2, 3), np.float32), idx], mode=mode)
    assert (err.value.rule, err.value.check) == ("EXEC-tir-packed-3", "invalid_value")
    assert "element offset 3 of handle A" in str(err.value)


def test_a_packed_call_writing_a_read_only_argument_traps():
    """EXEC-tir-bind-4 through a packed call: the sort's output is the function's own
    (read-only) input, which the caller's array must survive."""
    text = module('A: T.Buffer((T.int64(3),), "float32")',
                  f'T.call_packed("tvm.contrib.sort.sort", {arr("A", (3,))}, {arr("A", (3,))}, '
                  f'0, T.bool(True))')
    a = np.array([3, 1, 2], np.float32)
    a.setflags(write=False)
    with pytest.raises(RuntimeCheckError) as err:
        run_prim_func(one(text), [a])
    assert (err.value.check, err.value.rule) == ("read_only", "EXEC-tir-bind-4")
    assert a.tolist() == [3, 1, 2]


# ---------------------------------------------------------------------------------------
# topk (TVM's DispatchSortScan lowers relax.topk on CPU to it)
# ---------------------------------------------------------------------------------------

def topk_module(ret_type: str, k: int, ascend: bool, out_k: int | None = None):
    out_k = k if out_k is None else out_k
    outs = {"both": [("V", "float32"), ("I", "int32")], "values": [("V", "float32")],
            "indices": [("I", "int32")]}[ret_type]
    params = ", ".join(['A: T.Buffer((T.int64(2), T.int64(4)), "float32")'] +
                       [f'{b}: T.Buffer((T.int64(2), T.int64({out_k})), "{dt}")'
                        for b, dt in outs])
    arrays = ", ".join(arr(b, (2, out_k), dt, hint="0" if dt == "int32" else None)
                       for b, dt in outs)
    call = (f'T.call_packed("tvm.contrib.sort.topk", {arr("A", (2, 4))}, {arrays}, {k}, 1, '
            f'"{ret_type}", T.bool({ascend}))')
    return module(params, call)


A_TOPK = np.array([[1, 3, 3, 0], [2, 2, 5, 2]], np.float32)


def test_topk_both_largest_ties_by_position():
    _, v, i = run(topk_module("both", 3, False), A_TOPK, np.zeros((2, 3), np.float32),
                  np.zeros((2, 3), np.int32))
    assert v.tolist() == [[3, 3, 1], [5, 2, 2]] and i.tolist() == [[1, 2, 0], [2, 0, 1]]


def test_topk_values_smallest_and_indices_of_the_whole_row_for_k_0():
    _, v = run(topk_module("values", 2, True), A_TOPK, np.zeros((2, 2), np.float32))
    assert v.tolist() == [[0, 1], [2, 2]]
    _, i = run(topk_module("indices", 0, True, out_k=4), A_TOPK, np.zeros((2, 4), np.int32))
    assert i.tolist() == [[3, 0, 1, 2], [0, 1, 3, 2]]


def test_topk_outputs_must_fit_k_and_ret_type():
    err = fails(topk_module("values", 2, True, out_k=3), A_TOPK, np.zeros((2, 3), np.float32))
    assert (err.rule, err.check) == ("EXEC-tir-packed-3", "shape_mismatch")
    text = topk_module("both", 2, True).replace('"both"', '"values"')
    err = fails(text, A_TOPK, np.zeros((2, 2), np.float32), np.zeros((2, 2), np.int32))
    assert (err.rule, err.check) == ("EXEC-tir-packed-3", "signature")


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None, reason="needs Apache TVM 0.27")
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32", "int64"])
def test_tvm_runtime_sorts_agree(dtype):
    """TVM's own packed functions, called directly, on rows full of ties (and -0.0)."""
    import tvm

    rng = np.random.default_rng(7)
    x = rng.integers(-2, 3, (3, 6)).astype(dtype)
    if x.dtype.kind == "f":
        x[0, ::2] = -0.0
    for axis, ascend in ((1, True), (1, False), (0, False)):
        out = tvm.runtime.empty(x.shape, "int64")
        tvm.get_global_func("tvm.contrib.sort.argsort")(tvm.runtime.tensor(x), out, axis,
                                                         ascend)
        assert out.numpy().tolist() == stable_order(x, axis, ascend).tolist()
