# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (m, n), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("t"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vj, vi] = A[vi, vj]

    @R.function
    def main(x: R.Tensor((n, m), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((m, n), "float32"))
        return y
