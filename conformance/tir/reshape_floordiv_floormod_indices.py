# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(a: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(12)), "float32")
        C = T.match_buffer(c, (n, T.int64(3), T.int64(4)), "float32")
        for i, j, k in T.grid(n, T.int64(3), T.int64(4)):
            with T.sblock("reshape"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = A[((vj * T.int64(4) + vk) // T.int64(12) + vi) % n, (vj * T.int64(4) + vk) % T.int64(12)] - A[n - T.int64(1) - vi, T.int64(11) - vj * T.int64(4) - vk]

    @R.function
    def main(x: R.Tensor((n, 12), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((n, 3, 4), "float32"))
        return y
