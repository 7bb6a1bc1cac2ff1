# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4, 3, 2), "float32"), B: T.Buffer((4, 3, 2), "float32")):
        for i in T.parallel(4):
            for j in T.unroll(3):
                for k in T.vectorized(2):
                    B[i, j, k] = A[i, j, k] * T.float32(2) + T.float32(1)

    @R.function
    def main(x: R.Tensor((4, 3, 2), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4, 3, 2), "float32"))
        return y
