"""size, wrap_param, stop_lift_params, to_vdevice, call_py_func, memory.view,
memory.ensure_zero_offset (spec/ops/builtins.md): deduction, semantics against NumPy,
errors naming their rule, size's lowering checked by check_pass."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError, StructInfoError
from relax_ref.ir import struct_info as si
from relax_ref.parser.builder import parse
from relax_ref.semantics.interpreter import Interpreter

from .helpers import assert_tensor, compute, deduce, fails, sym, tensor
from .legalize_helpers import check_lowered, module

N = sym("n")


def _run(body: str, params: str, args: list, ret: str = "y"):
    return Interpreter(parse(module(params, body, ret))).run("main", args)


def test_size():
    assert_tensor(deduce("size", [tensor((N, 3))]), (), "int64")
    fails("SI-op-tensor-1", "size", [si.ShapeStructInfo(ndim=1)])
    assert compute("size", np.zeros((2, 0, 3), "float32")) == 0
    assert compute("size", np.zeros((4, 5), "int8")).dtype == np.int64
    check_lowered(module('x: R.Tensor(("n", 3), dtype="float32")', "y = R.size(x)"),
                  "relax.size")


def test_wrap_param_and_identities():
    assert_tensor(deduce("wrap_param", [tensor((N, 2), "float16")], dtype="float32"), (N, 2),
                  "float32")
    w = np.array([1.5, -2.25], np.float16)
    np.testing.assert_array_equal(compute("wrap_param", w, dtype="float32"),
                                  w.astype(np.float32))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    for op in ("builtin.stop_lift_params", "memory.ensure_zero_offset"):
        assert_tensor(deduce(op, [tensor((N, 3))]), (N, 3))
        np.testing.assert_array_equal(compute(op, x), x)
    d = deduce("to_vdevice", [tensor((2, 3))], dst_vdevice="llvm:0:global")
    assert d.vdevice == "llvm:0:global"


def test_view_shares_bytes_and_checks_bounds():
    x = np.arange(6, dtype="float32")
    out = _run('y = R.memory.view(x, R.shape([2, 2]), R.dtype("int32"), 8)',
               'x: R.Tensor((6,), dtype="float32")', [x])
    np.testing.assert_array_equal(out, x[2:6].view(np.int32).reshape(2, 2))
    with pytest.raises(StructInfoError, match="does not fit"):  # SI-builtin-view-2
        _run('y = R.memory.view(x, R.shape([4]), R.dtype("float32"), 12)',
             'x: R.Tensor((6,), dtype="float32")', [x])
    with pytest.raises(RuntimeCheckError) as err:  # the size is known only at run time
        _run('y = R.memory.view(x, R.shape([4]), R.dtype("float32"), 12)',
             'x: R.Tensor(("n",), dtype="float32")', [x])
    assert err.value.check == "index_out_of_bounds"


def test_view_operands_printed_as_the_empty_tuple_are_left_out():
    """SI-builtin-view-1: TVM 0.27 prints a missing optional operand as R.tuple()."""
    x = np.arange(6, dtype="float32")
    out = _run('y = R.memory.view(x, R.tuple(), R.tuple(), R.tuple())',
               'x: R.Tensor((6,), dtype="float32")', [x])
    np.testing.assert_array_equal(out, x)
    out = _run('y = R.memory.view(x, R.shape([2, 2]), R.dtype("int32"), R.tuple())',
               'x: R.Tensor((6,), dtype="float32")', [x])
    np.testing.assert_array_equal(out, x[:4].view(np.int32).reshape(2, 2))
    assert_tensor(deduce("memory.view", [tensor((2, 3))]), (2, 3), "float32")  # all left out


def test_ensure_zero_offset_of_a_view_is_a_copy_of_its_values():
    x = np.arange(6, dtype="int32")
    out = _run('v = R.memory.view(x, R.shape([2]), R.dtype("int32"), 16)\n'
               'y = R.memory.ensure_zero_offset(v)', 'x: R.Tensor((6,), dtype="int32")', [x])
    np.testing.assert_array_equal(out, [4, 5])


def test_call_py_func_is_not_run():
    with pytest.raises(RuntimeCheckError) as err:
        _run('y = R.call_py_func("my_fn", (x,), out_ty=R.Tensor((2,), dtype="float32"))',
             'x: R.Tensor((2,), dtype="float32")', [np.ones(2, "float32")])
    assert err.value.rule == "EXEC-builtin-pyfunc-1" and err.value.check == "unsupported"


def test_hint_on_device_keeps_x_and_prints_as_tvm_reads_it():
    from relax_ref.parser.printer import print_module
    from relax_ref.semantics.normalize import normalize

    text = module('x: R.Tensor((2, 3), dtype="float32")', "y = R.hint_on_device(x, tvm.cpu(0))")
    mod = normalize(parse(text))
    assert 'R.hint_on_device(x, dst_vdevice=R.device(device_type=1, index=0), ' \
           'memory_scope="global")' in print_module(mod)
    x = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(Interpreter(mod).run("main", [x]), x)


DYN = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(x_h: T.handle, y_h: T.handle, n: T.int64):
        X = T.match_buffer(x_h, (n,), "int32")
        Y = T.match_buffer(y_h, (n,), "int32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                Y[vi] = X[vi] * 2

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="int32")) -> R.Tensor(("n",), dtype="int32"):
        n = T.int64()
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([n]), R.dtype("int32"), 0)
        _ = R.vm.call_tir_dyn(cls.double, (x, y, R.shape([EXTENT])))
        return y
'''


def test_vm_call_tir_dyn_passes_the_shape_values_after_the_tensors():
    x = np.arange(5, dtype="int32")
    out = Interpreter(parse(DYN.replace("EXTENT", "n"))).run("main", [x])
    np.testing.assert_array_equal(out, 2 * x)
    with pytest.raises(RuntimeCheckError):  # n + 1 disagrees with the buffers' extent
        Interpreter(parse(DYN.replace("EXTENT", "n + 1"))).run("main", [x])
    with pytest.raises(StructInfoError, match="shape"):  # SI-struct-dyn-1
        from relax_ref.semantics.normalize import normalize
        normalize(parse(DYN.replace(", R.shape([EXTENT])", "")))


def test_ensure_zero_offset_keeps_a_tensor_at_offset_zero():
    x = np.arange(6, dtype="int32")
    assert compute("memory.ensure_zero_offset", x) is x
    view = x[2:]
    out = compute("memory.ensure_zero_offset", view)
    assert out is not view and not np.shares_memory(out, x)
    np.testing.assert_array_equal(out, view)
