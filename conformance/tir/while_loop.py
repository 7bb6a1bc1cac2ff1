# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32")):
        V = T.decl_buffer((1,), "int32")
        for i in range(6):
            V[0] = A[i]
            B[i] = 0
            while V[0] > 1:
                V[0] = V[0] // 2
                B[i] = B[i] + 1

    @R.function
    def main(x: R.Tensor((6,), "int32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((6,), "int32"))
        return y
