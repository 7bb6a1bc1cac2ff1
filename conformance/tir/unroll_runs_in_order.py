# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "int32"), B: T.Buffer((1,), "int32")):
        B[0] = 0
        for i in T.unroll(5):
            B[0] = B[0] * 10 + A[i]

    @R.function
    def main(x: R.Tensor((5,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((1,), "int32"))
        return y
