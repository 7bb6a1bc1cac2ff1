# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32"), O: T.Buffer((6,), "int32")):
        for i in T.serial(6):
            O[i] = T.Select(T.Or(T.And(A[i] > 0, B[i] > 0), T.Not(A[i] < B[i])), 1, 0)

    @R.function
    def main(x: R.Tensor((6,), "int32"), y: R.Tensor((6,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=R.Tensor((6,), "int32"))
        return y
