"""Conformance cases (area ``exec``) for the VM builtins the lowering passes call
(spec/semantics.md "VM builtins", EXEC-vm-*): the shape heap of VMShapeLower, its match,
make and check builtins, ``R.call_builtin_with_ctx`` and ``vm.builtin.tensor_to_shape``.

The first module is TVM 0.27's own VMShapeLower output (ToNonDataflow,
RemovePurityChecking, CallTIRRewrite, VMShapeLower on a two-line ``main``), as TVM prints
it; the others are written in the same form. Expected values are the shapes written out.
"""
from __future__ import annotations

import numpy as np

from generate import Case, ok, prim, shape, tensor, trap

AREA = "exec"

_HEADER = """\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

"""

# TVM 0.27's VMShapeLower of:
#   def main(x: R.Tensor(("n", 2), "float32"), s: R.Shape(["m"])) -> R.Shape(["n", "m"]):
#       y = R.match_cast(x, R.Tensor((n, 2), "float32")); return R.shape([n, m])
_LOWERED_MAIN = _HEADER + '''\
m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32"), s: R.Shape([m])) -> R.Shape([n, m]):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (2,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.check_tensor_info", x, 2, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 2), dtype=\\"float32\\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_shape_info", s, 1, R.str("ErrorContext(fn=main, loc=param[1], param=s, annotation=R.Shape([m])) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", x, shape_heap, 2, 1, 0, 0, 2, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 2), dtype=\\"float32\\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", s, shape_heap, 1, 1, 1, R.str("ErrorContext(fn=main, loc=param[1], param=s, annotation=R.Shape([m])) "), ty_args=(R.Tuple,))
        y: R.Tensor((n, 2), dtype="float32") = R.match_cast(x, R.Tensor((n, 2), dtype="float32"))
        gv: R.Shape(ndim=2) = R.call_packed("vm.builtin.make_shape", shape_heap, 2, 1, 0, 1, 1, ty_args=(R.Shape(ndim=2),))
        R.call_packed("vm.builtin.match_shape", gv, shape_heap, 2, 3, 0, 3, 1, R.str("ErrorContext(fn=main, loc=return, annotation=R.Shape([n, m])) "), ty_args=(R.Tuple,))
        return gv
'''

# The return check against an immediate (code 0): the returned shape must be (7, m).
_RETURN_CHECK = _HEADER + '''\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Shape(ndim=1):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.match_shape", x, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor(dtype=\\"float32\\", ndim=1)) "), ty_args=(R.Tuple,))
        gv: R.Shape(ndim=1) = R.call_packed("vm.builtin.make_shape", shape_heap, 1, 1, 0, ty_args=(R.Shape(ndim=1),))
        R.call_packed("vm.builtin.match_shape", gv, shape_heap, 1, 0, 7, R.str("ErrorContext(fn=main, loc=return, annotation=R.Shape([7])) "), ty_args=(R.Tuple,))
        return gv
'''

# An integer R.Prim parameter matched into the heap and made again.
_PRIM_VALUE = _HEADER + '''\
@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim("int64")) -> R.Prim("int64"):
        R.func_attr({"relax.force_pure": True})
        shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.check_prim_value_info", k, R.dtype("int64"), R.str("ErrorContext(fn=main, loc=param[0], param=k, annotation=R.Prim(\\"int64\\")) "), ty_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_prim_value", k, shape_heap, 1, 0, R.str("ErrorContext(fn=main, loc=param[0], param=k, annotation=R.Prim(\\"int64\\")) "), ty_args=(R.Tuple,))
        gv: R.Prim("int64") = R.call_packed("vm.builtin.make_prim_value", shape_heap, 1, 0, ty_args=(R.Prim("int64"),))
        return gv
'''

_TENSOR_TO_SHAPE = _HEADER + '''\
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(t: R.Tensor((2,), dtype="int64")) -> R.Shape(ndim=2):
        gv: R.Shape(ndim=2) = R.call_packed("vm.builtin.tensor_to_shape", t, ty_args=(R.Shape(ndim=2),))
        return gv
'''


# EXEC-vm-cudagraph-*: one storage cached by get_cached_alloc (asked twice: the same
# memory), a capture function run by run_or_capture (captured on the first call, replayed
# on the second, both in one run of main). ``wrong`` replays index 0 on other memory.
_CUDA_GRAPH = _HEADER + '''\
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("y"):
                vi = T.axis.spatial(T.int64(4), i)
                y[vi] = x[vi] + T.float32(1)

    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Object):
        R.func_attr({"relax.force_pure": True})
        storage: R.Object = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        gv: R.Tuple(R.Object) = (storage,)
        return gv

    @R.function(private=True)
    def capture(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple:
        R.func_attr({"relax.force_pure": True})
        cls = Module
        _: R.Tuple = cls.add_one(x, y)
        gv: R.Tuple = R.tuple()
        return gv

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        cached: R.Tuple(R.Object) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, R.prim_value(0)), ty_args=(R.Tuple(R.Object),))
        again: R.Tuple(R.Object) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, R.prim_value(0)), ty_args=(R.Tuple(R.Object),))
        s1: R.Object = cached[0]
        s2: R.Object = again[0]
        y: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(s1, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        z: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(s2, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (x, y), R.prim_value(0)), ty_args=(R.Tuple,))
        _1: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (x, y), R.prim_value(0)), ty_args=(R.Tuple,))
        gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (y, z)
        return gv

    @R.function
    def wrong(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        y: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        w: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (x, y), R.prim_value(1)), ty_args=(R.Tuple,))
        _1: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.capture, (x, w), R.prim_value(1)), ty_args=(R.Tuple,))
        return w
'''


def cases() -> list[Case]:
    x32 = lambda *dims: tensor(np.full(dims, 0.25), "float32")  # noqa: E731
    return [
        Case(AREA, "vm_shape_lowered_main", _LOWERED_MAIN, [
            ok([x32(3, 2), shape([5])], [shape([3, 5])]),
            ok([x32(0, 2), shape([0])], [shape([0, 0])]),
            # the parameter checks keep their kinds after lowering (EXEC-vm-2)
            trap([x32(3, 3), shape([5])], kind="signature"),
            trap([tensor([[1, 2]], "int32"), shape([5])], kind="signature"),
        ], description="TVM 0.27's VMShapeLower output: the heap, parameter checks, "
                       "match_shape storing n and m, make_shape of the result and its "
                       "return check; a wrong extent or dtype traps as the unlowered "
                       "signature check does.",
            covers=["EXEC-vm-2", "EXEC-vm-3", "EXEC-vm-4", "EXEC-vm-5", "EXEC-vm-6",
                    "EXEC-vm-7"]),
        Case(AREA, "vm_shape_return_check", _RETURN_CHECK, [
            ok([tensor([1.0] * 7, "float32")], [shape([7])]),
            trap([tensor([1.0] * 6, "float32")], kind="return"),
        ], description="match_shape against an immediate with the error context of a "
                       "return annotation: the check traps with the kind `return`.",
            covers=["EXEC-vm-2", "EXEC-vm-4", "EXEC-vm-5"]),
        Case(AREA, "vm_prim_value_heap", _PRIM_VALUE, [
            ok([prim(5)], [prim(5)]),
            ok([prim(-3)], [prim(-3)]),
            trap([prim(1, "int32")], kind="signature"),
        ], description="An integer R.Prim stored into the heap by match_prim_value and "
                       "made again by make_prim_value; an int32 value fails "
                       "check_prim_value_info with the signature kind.",
            covers=["EXEC-vm-4", "EXEC-vm-5", "EXEC-vm-6"]),
        Case(AREA, "vm_tensor_to_shape", _TENSOR_TO_SHAPE, [
            ok([tensor([2, 3], "int64")], [shape([2, 3])]),
            ok([tensor([0, 4], "int64")], [shape([0, 4])]),
        ], description="vm.builtin.tensor_to_shape: the shape of the tensor's values, as "
                       "R.tensor_to_shape computes it.",
            covers=["EXEC-vm-1"]),
        Case(AREA, "vm_cuda_graph_cached_alloc_and_replay", _CUDA_GRAPH, [
            ok([tensor([1.0, 2.0, -3.0, 0.5], "float32")],
               [tensor([2.0, 3.0, -2.0, 1.5], "float32"),
                tensor([2.0, 3.0, -2.0, 1.5], "float32")]),
            trap([tensor([1.0, 2.0, 3.0, 4.0], "float32")], kind="cuda_graph", entry="wrong"),
        ], description="get_cached_alloc asked twice for index 0 gives the same storage "
                       "(the tensor in the second holds what was written through the "
                       "first); run_or_capture captures, then replays on the recorded "
                       "memory; a replay given other memory traps (cuda_graph).",
            covers=["EXEC-vm-cudagraph-1", "EXEC-vm-cudagraph-2", "EXEC-vm-7"]),
    ]
