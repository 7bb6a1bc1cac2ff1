# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage = R.memory.alloc_storage(R.shape([32]), 0, R.str("global"), R.dtype("uint8"))
        a = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("float32"), 0)
        cls.fill(x, a)
        b = R.memory.alloc_tensor(storage, 16, R.shape([4]), R.dtype("float32"), 0)
        c = R.memory.alloc_tensor(storage, 8, R.shape([2, 2]), R.dtype("float32"), 0)
        d = R.memory.alloc_tensor(storage, 0, R.shape([8]), R.dtype("int32"), 0)
        return (b, c, d)

    @T.prim_func(private=True, s_tir=True)
    def fill(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i]
