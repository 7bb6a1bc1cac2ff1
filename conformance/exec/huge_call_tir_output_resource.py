# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def zeros(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, n, n), "float32")
        for i, j, k in T.grid(n, n, n):
            A[i, j, k] = T.float32(0)

    @R.function
    def main(k: T.int64):
        cls = Module
        y = R.call_tir(cls.zeros, (), out_ty=R.Tensor((k, k, k), "float32"))
        return y
