"""Allocations (SI-struct-alloc-1..2): bound as TVM's Python functions bind them, pure
as TVM's FPurity says, and allocators: each call is a fresh value."""
from __future__ import annotations

import pytest

from relax_ref import check, from_source
from relax_ref.ops.registry import all_ops

WRITTEN = '''
@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((2, 4), "float32"):
        s = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")
        with R.dataflow():
            a = {call}
            R.output(a)
        return a
'''


@pytest.mark.parametrize("call, printed", [
    ('R.builtin.alloc_tensor(R.shape([2, 4]), dtype="float32", runtime_device_index=0)',
     'R.builtin.alloc_tensor(R.shape([2, 4]), R.dtype("float32"), 0, R.str("global"))'),
    ('R.builtin.alloc_tensor(R.shape([2, 4]), "float32", 0)',
     'R.builtin.alloc_tensor(R.shape([2, 4]), R.dtype("float32"), 0, R.str("global"))'),
    ('R.memory.alloc_tensor(s, 0, R.shape([2, 4]), "float32")',
     'R.memory.alloc_tensor(s, 0, R.shape([2, 4]), R.dtype("float32"), 0)'),
    ('R.vm.alloc_tensor(s, offset=0, shape=R.shape([2, 4]), dtype="float32")',
     'R.vm.alloc_tensor(s, 0, R.shape([2, 4]), R.dtype("float32"), 0)'),
])
def test_written_as_tvm_reads_it_and_printed_as_tvm_prints_it(call, printed):
    mod = check(from_source(WRITTEN.format(call=call)))
    assert printed in mod.script()


def test_allocations_are_pure_allocators_and_kills_are_not():
    ops = all_ops()
    allocators = {n for n, op in ops.items() if op.allocator}
    assert allocators == {"relax.builtin.alloc_tensor", "relax.memory.alloc_storage",
                          "relax.memory.alloc_tensor", "relax.vm.alloc_storage",
                          "relax.vm.alloc_tensor"}
    assert all(ops[n].pure and ops[n].compute is None for n in allocators)
    assert not any(ops[n].pure for n in ("relax.memory.kill_storage",
                                         "relax.memory.kill_tensor", "relax.vm.kill_object"))
