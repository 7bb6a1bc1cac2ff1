# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3,), "int32"), n: T.int32, B: T.Buffer((3,), "int32")):
        for i in range(3):
            B[i] = A[i] + n

    @R.function
    def main(x: R.Tensor((3,), "int32"), k: R.Object):
        cls = Module
        y = R.call_tir(cls.f, (x, k), out_ty=R.Tensor((3,), "int32"))
        return y
