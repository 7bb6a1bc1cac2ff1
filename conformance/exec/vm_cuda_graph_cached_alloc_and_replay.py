# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

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
