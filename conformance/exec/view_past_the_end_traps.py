# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        R.func_attr({"relax.force_pure": True})
        storage = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("uint8"))
        a = R.memory.alloc_tensor(storage, 12, R.shape([2]), R.dtype("float32"), 0)
        return a
