# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
        for i, k in T.grid(3, 5):
            with T.sblock("rowsum"):
                vi = T.axis.spatial(3, i)
                vk = T.axis.reduce(5, k)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @R.function
    def main(x: R.Tensor((3, 5), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((3,), "float32"))
        return y
