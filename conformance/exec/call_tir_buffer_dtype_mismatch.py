# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,))):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
        return y

    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)
