# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32"), L: T.Buffer((6,), "int32"), R_: T.Buffer((6,), "int32"), X: T.Buffer((6,), "int32")):
        for i in T.serial(6):
            L[i] = T.shift_left(A[i], B[i])
            R_[i] = T.shift_right(A[i], B[i])
            X[i] = T.bitwise_xor(T.bitwise_and(A[i], 12), T.bitwise_or(B[i], 1)) + T.bitwise_not(A[i])

    @R.function
    def main(x: R.Tensor((6,), "int32"), y: R.Tensor((6,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((6,), "int32"), R.Tensor((6,), "int32"), R.Tensor((6,), "int32")])
        return y
