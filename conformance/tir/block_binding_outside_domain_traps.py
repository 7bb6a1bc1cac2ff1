# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in T.serial(8):
            B[i] = A[i]
        for i in T.serial(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i + 2)
                B[vi] = T.float32(0)

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((8,), "float32"))
        return y
