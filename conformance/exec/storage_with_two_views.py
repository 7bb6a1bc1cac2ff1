# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
        a = R.memory.alloc_tensor(storage, 0, R.shape([4]), R.dtype("float32"), 0)
        cls.add_one(x, a)
        b = R.memory.alloc_tensor(storage, 16, R.shape([4]), R.dtype("float32"), 0)
        cls.add_one(a, b)
        return (a, b)

    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
        for i in range(4):
            B[i] = A[i] + T.float32(1)
