# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
        for i in range(6):
            x = T.float32()
            B[i] = T.Let(x * x - x, where={x: A[i] + T.float32(1)})

    @R.function
    def main(x: R.Tensor((6,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((6,), "float32"))
        return y
