# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), LT: T.Buffer((5,), "bool"), EQ: T.Buffer((5,), "bool"), NE: T.Buffer((5,), "bool"), GE: T.Buffer((5,), "bool")):
        for i in T.serial(5):
            LT[i] = A[i] < B[i]
            EQ[i] = A[i] == B[i]
            NE[i] = A[i] != B[i]
            GE[i] = A[i] >= B[i]

    @R.function
    def main(x: R.Tensor((5,), "float32"), y: R.Tensor((5,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((5,), "bool"), R.Tensor((5,), "bool"), R.Tensor((5,), "bool"), R.Tensor((5,), "bool")])
        return y
