# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("row"):
                vi = T.axis.spatial(4, i)
                Rg = T.match_buffer(A[vi, 2:8], (6,), offset_factor=1)
                B[vi] = Rg[0] + Rg[5] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
