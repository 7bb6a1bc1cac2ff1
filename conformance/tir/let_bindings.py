# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "int32"), n: T.int32, B: T.Buffer((4,), "int32")):
        m: T.int32 = n * 3
        for i in range(4):
            t = A[i] + m
            B[i] = t * t

    @R.function
    def main(x: R.Tensor((4,), "int32"), k: T.int32):
        cls = Module
        y = R.call_tir(cls.f, (x, R.prim_value(k)), out_ty=R.Tensor((4,), "int32"))
        return y
