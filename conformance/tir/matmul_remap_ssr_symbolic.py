# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(a: T.handle, W: T.Buffer((8, 4), "float32"), c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 8), "float32")
        C = T.match_buffer(c, (n, 4), "float32")
        for i, j, k in T.grid(n, 4, 8):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]

    @R.function
    def main(x: R.Tensor((n, 8), "float32"), w: R.Tensor((8, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, w), out_ty=R.Tensor((n, 4), "float32"))
        return y
