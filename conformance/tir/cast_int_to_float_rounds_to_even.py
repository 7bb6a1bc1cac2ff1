# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "int32"), L: T.Buffer((2,), "int64"), B: T.Buffer((4,), "float32"), D: T.Buffer((2,), "float64")):
        for i in T.serial(4):
            B[i] = T.Cast("float32", A[i])
        for i in T.serial(2):
            D[i] = T.Cast("float64", L[i])

    @R.function
    def main(x: R.Tensor((4,), "int32"), y: R.Tensor((2,), "int64")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((4,), "float32"), R.Tensor((2,), "float64")])
        return y
