"""Memory rules of spec/semantics.md: storage sizes are bytes (EXEC-mem-storage-1) and
call_tir inputs are read-only (EXEC-dps-4)."""
from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import RuntimeCheckError
from relax_ref.parser.builder import parse
from relax_ref.semantics.interpreter import Limits, run

F32 = np.float32


def _main(body: str, params: str = 'x: R.Tensor(("n",), "float32")', extra: str = "") -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return f'''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main({params}):
        n = T.int64()
{lines}
{extra}'''


# -- EXEC-mem-storage-1: R.memory.alloc_storage(R.shape([k]), ...) holds k bytes ---------

@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_memory_storage_size_is_bytes_whatever_its_dtype(dtype):
    """As TVM lowers it (the dtype is a hint): 16 bytes hold four float32, not five."""
    text = _main(f'''
s = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("{dtype}"))
a = R.memory.alloc_tensor(s, 0, R.shape([n]), R.dtype("float32"), 0)
return R.shape_of(a)''')
    assert run(parse(text), "main", [np.zeros(4, F32)]).dims == (4,)
    with pytest.raises(RuntimeCheckError) as info:
        run(parse(text), "main", [np.zeros(5, F32)])
    assert info.value.check == "out_of_bounds" and "16 bytes" in info.value.message


def test_vm_storage_size_is_elements_of_its_dtype():
    """R.vm.alloc_storage sizes by its dtype, as TVM's VM allocator does: 4 float32
    elements are 16 bytes (TVM's lowering always passes uint8)."""
    text = _main('''
s = R.vm.alloc_storage(R.shape([4]), R.prim_value(0), R.dtype("float32"))
a = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
return R.shape_of(a)''')
    assert run(parse(text), "main", [np.zeros(4, F32)]).dims == (4,)
    with pytest.raises(RuntimeCheckError) as info:
        run(parse(text), "main", [np.zeros(5, F32)])
    assert info.value.check == "out_of_bounds"


def test_tensor_offset_is_bytes():
    text = _main('''
s = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
a = R.memory.alloc_tensor(s, 8, R.shape([n]), R.dtype("float32"), 0)
return R.shape_of(a)''')
    assert run(parse(text), "main", [np.zeros(2, F32)]).dims == (2,)
    with pytest.raises(RuntimeCheckError) as info:
        run(parse(text), "main", [np.zeros(3, F32)])
    assert info.value.check == "out_of_bounds"


# -- EXEC-dps-4: call_tir inputs are read-only ----------------------------------------------

STORES_INTO_ITS_INPUT = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double_in_place(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32")):
        for i in range(T.int64(64)):
            with T.sblock("b"):
                vi = T.axis.spatial(T.int64(64), i)
                A[vi] = A[vi] * T.float32(2)
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((64,), "float32")):
        cls = Module
        y = R.call_tir(cls.double_in_place, (x,), out_ty=R.Tensor((64,), "float32"))
        z = R.add(x, y)
        return z
'''


@pytest.mark.parametrize("mode", ["scalar", "vectorized", "ordered", "auto"])
@pytest.mark.parametrize("call", ["call_tir", "call_tir_with_grad"])
def test_call_tir_storing_into_an_input_traps(mode, call):
    text = STORES_INTO_ITS_INPUT
    if call == "call_tir_with_grad":
        text = text.replace('out_ty=R.Tensor((64,), "float32"))',
                            'out_ty=R.Tensor((64,), "float32"), te_grad_name="double_grad")')
        text = text.replace("R.call_tir(", "R.call_tir_with_grad(")
    x = np.ones(64, F32)
    with pytest.raises(RuntimeCheckError) as info:
        run(parse(text), "main", [x], limits=Limits(tir_mode=mode))
    assert info.value.check == "read_only" and info.value.rule == "EXEC-tir-bind-4"
    assert info.value.span is not None and "call_tir input" in info.value.message
    assert (x == 1).all()  # the caller's value is intact


def test_call_tir_inplace_writes_only_its_in_place_arguments():
    """w (input 1) is written in place; x (input 0) is read-only all the same."""
    text = STORES_INTO_ITS_INPUT.replace(
        "R.call_tir(cls.double_in_place, (x,),", "R.call_tir_inplace(cls.double_in_place, "
        "(x, w), inplace_indices=1,").replace("def main(x: R.Tensor((64,), \"float32\")):",
                              "def main(x: R.Tensor((64,), \"float32\"), "
                              "w: R.Tensor((64,), \"float32\")):")
    assert "call_tir_inplace" in text and "w: R.Tensor" in text
    with pytest.raises(RuntimeCheckError) as info:
        run(parse(text), "main", [np.ones(64, F32), np.zeros(64, F32)])
    assert info.value.check == "read_only"


# -- EXEC-tir-limit-1 through the interpreter's limits -----------------------------------------

def test_the_tir_step_budget_is_a_limit_of_the_interpreter():
    text = '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def spin(A: T.Buffer((T.int64(1),), "int32"), B: T.Buffer((T.int64(1),), "int32")):
        B[0] = A[0]
        while True:
            B[0] = B[0] + 1

    @R.function
    def main(x: R.Tensor((1,), "int32")):
        cls = Module
        y = R.call_tir(cls.spin, (x,), out_ty=R.Tensor((1,), "int32"))
        return y
'''
    from relax_ref.errors import ResourceError

    with pytest.raises(ResourceError) as info:
        run(parse(text), "main", [np.zeros(1, np.int32)], limits=Limits(max_tir_steps=100))
    assert "more than 100 steps" in info.value.message and info.value.span is not None
