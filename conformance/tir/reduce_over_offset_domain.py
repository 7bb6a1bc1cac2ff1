# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 5), "float32"), B: T.Buffer((3,), "float32")):
        for i in T.serial(3):
            for k in T.serial(1, 5):
                with T.sblock("max"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        B[vi] = T.float32(-1000)
                    B[vi] = T.max(B[vi], A[vi, vk])

    @R.function
    def main(x: R.Tensor((3, 5), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((3,), "float32"))
        return y
