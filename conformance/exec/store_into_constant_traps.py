# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        c = R.const([1, 2, 3, 4], "float32")
        cls.increment(c)
        y = R.add(x, c)
        return y

    @T.prim_func(private=True, s_tir=True)
    def increment(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + T.float32(1)
