# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((2, 3, 4), "float32"), B: T.Buffer((4, 2, 3), "float32")):
        for i, j, k in T.grid(2, 3, 4):
            with T.sblock("p"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vk, vi, vj] = A[vi, vj, vk]

    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4, 2, 3), "float32"))
        return y
