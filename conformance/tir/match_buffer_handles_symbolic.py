# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(a: T.handle, b: T.Buffer((T.int64(8),), "float32"), c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(8)), "float32")
        C = T.match_buffer(c, (n, T.int64(8)), "float32")
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + b[vj]

    @R.function
    def main(x: R.Tensor((n, 8), "float32"), b: R.Tensor((8,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, b), out_ty=R.Tensor((n, 8), "float32"))
        return y
