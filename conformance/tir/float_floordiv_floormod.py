# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32"), Q: T.Buffer((5,), "float32"), M: T.Buffer((5,), "float32")):
        for i in T.serial(5):
            Q[i] = T.floordiv(A[i], B[i])
            M[i] = T.floormod(A[i], B[i])

    @R.function
    def main(x: R.Tensor((5,), "float32"), y: R.Tensor((5,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=[R.Tensor((5,), "float32"), R.Tensor((5,), "float32")])
        return y
