# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((8,), "float32"), B: T.Buffer((2, 4), "float32")):
        p = T.allocate([8], "float32", "global")
        X = T.decl_buffer((2, 4), "float32", data=p)
        Y = T.decl_buffer((8,), "float32", data=p)
        for i in T.serial(8):
            Y[i] = A[i] * T.float32(2)
        for i, j in T.grid(2, 4):
            B[i, j] = X[i, j]

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((2, 4), "float32"))
        return y
