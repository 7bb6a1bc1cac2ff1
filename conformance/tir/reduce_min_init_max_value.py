# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 6):
            with T.sblock("min"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.max_value("float32")
                B[vi] = T.min(B[vi], A[vi, vk])

    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
