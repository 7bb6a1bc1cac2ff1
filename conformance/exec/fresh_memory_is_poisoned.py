# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        R.func_attr({"relax.force_pure": True})
        storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
        f = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
        i = R.memory.alloc_tensor(storage, 0, R.shape([2]), R.dtype("int64"), 0)
        u = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("uint8"), 0)
        g = R.builtin.alloc_tensor(R.shape([2]), R.dtype("int32"), 0)
        return (f, i, u, g)
