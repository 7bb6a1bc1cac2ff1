# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((3, 4), "float32"), W: T.Buffer((4, 2), "float32"), C: T.Buffer((3, 2), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(3, 2, 4):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], W[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]

    @R.function
    def main(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4, 2), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, w), out_sinfo=R.Tensor((3, 2), "float32"))
        return y
