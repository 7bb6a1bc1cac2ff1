# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "int32"), B: T.Buffer((5,), "int32"), S: T.Buffer((5,), "int32"), P: T.Buffer((5,), "int32"), D: T.Buffer((5,), "int32")):
        for i in T.serial(5):
            S[i] = A[i] + B[i]
            P[i] = A[i] * B[i]
            D[i] = A[i] - B[i]

    @R.function
    def main(x: R.Tensor((5,), "int32"), y: R.Tensor((5,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((5,), "int32"), R.Tensor((5,), "int32"), R.Tensor((5,), "int32")])
        return y
