# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
        for io, ii in T.grid(3, 4):
            with T.sblock("b"):
                vi = T.axis.spatial(10, io * 4 + ii)
                T.where(io * 4 + ii < 10)
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((10,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((10,), "float32"))
        return y
