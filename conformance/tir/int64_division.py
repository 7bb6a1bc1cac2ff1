# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "int64"), B: T.Buffer((4,), "int64"), Q: T.Buffer((4,), "int64"), M: T.Buffer((4,), "int64")):
        for i in T.serial(4):
            Q[i] = T.floordiv(A[i], B[i])
            M[i] = T.truncmod(A[i], B[i])

    @R.function
    def main(x: R.Tensor((4,), "int64"), y: R.Tensor((4,), "int64")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((4,), "int64"), R.Tensor((4,), "int64")])
        return y
