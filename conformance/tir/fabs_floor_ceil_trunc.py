# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32"), C: T.Buffer((7,), "float32"), D: T.Buffer((7,), "float32"), E: T.Buffer((7,), "float32")):
        for i in range(7):
            B[i] = T.fabs(A[i])
            C[i] = T.floor(A[i])
            D[i] = T.ceil(A[i])
            E[i] = T.trunc(A[i])

    @R.function
    def main(x: R.Tensor((7,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=[R.Tensor((7,), "float32"), R.Tensor((7,), "float32"), R.Tensor((7,), "float32"), R.Tensor((7,), "float32")])
        return y
