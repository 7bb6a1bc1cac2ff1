# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(B: T.Buffer((4,), "int32")):
        for i, k in T.grid(4, 2097155):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = 0
                B[vi] = B[vi] + (vk + vi) % 7

    @R.function
    def main():
        cls = Module
        y = R.call_tir(cls.f, (), out_ty=R.Tensor((4,), "int32"))
        return y
