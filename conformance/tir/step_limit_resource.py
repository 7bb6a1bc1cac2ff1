# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            O[i] = A[i]
        for k in range(T.int64(1000000000000)):
            O[0] = A[0]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
