# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "float32"), I: T.Buffer((3,), "int32"), Bo: T.Buffer((2,), "bool"), FB: T.Buffer((5,), "bool"), IB: T.Buffer((3,), "bool"), BF: T.Buffer((2,), "float32"), BI: T.Buffer((2,), "int32")):
        for i in T.serial(5):
            FB[i] = T.Cast("bool", A[i])
        for i in T.serial(3):
            IB[i] = T.Cast("bool", I[i])
        for i in T.serial(2):
            BF[i] = T.Cast("float32", Bo[i])
            BI[i] = T.Cast("int32", Bo[i])

    @R.function
    def main(x: R.Tensor((5,), "float32"), y: R.Tensor((3,), "int32"), z: R.Tensor((2,), "bool")):
        cls = Module
        y = R.call_tir(cls.f, (x, y, z), out_ty=[R.Tensor((5,), "bool"), R.Tensor((3,), "bool"), R.Tensor((2,), "float32"), R.Tensor((2,), "int32")])
        return y
