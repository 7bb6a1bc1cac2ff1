# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "int64"), B: T.Buffer((5,), "int32"), C: T.Buffer((5,), "int8")):
        for i in T.serial(5):
            B[i] = T.Cast("int32", A[i])
            C[i] = T.Cast("int8", A[i])

    @R.function
    def main(x: R.Tensor((5,), "int64")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=[R.Tensor((5,), "int32"), R.Tensor((5,), "int8")])
        return y
