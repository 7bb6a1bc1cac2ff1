# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4, 3), "float32"), B: T.Buffer((4, 2), "float32")):
        for i in range(4):
            for j in range(1, 3):
                B[i, j - 1] = A[i, j] - A[i, j - 1]

    @R.function
    def main(x: R.Tensor((4, 3), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4, 2), "float32"))
        return y
