# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), Q: T.Buffer((8,), "int32"), M: T.Buffer((8,), "int32")):
        for i in T.serial(8):
            Q[i] = T.truncdiv(A[i], B[i])
            M[i] = T.truncmod(A[i], B[i])

    @R.function
    def main(x: R.Tensor((8,), "int32"), y: R.Tensor((8,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((8,), "int32"), R.Tensor((8,), "int32")])
        return y
