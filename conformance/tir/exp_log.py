# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.exp(A[i])
            C[i] = T.log(A[i])

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=[R.Tensor((8,), "float32"), R.Tensor((8,), "float32")])
        return y
