# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(a: T.handle, b: T.handle):
        n = T.int64()
        s0 = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)), "float32", strides=(s0, T.int64(1)))
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i, 0] + A[i, 3] + T.Cast("float32", s0)

    @R.function
    def main(x: R.Tensor((n, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((n,), "float32"))
        return y
