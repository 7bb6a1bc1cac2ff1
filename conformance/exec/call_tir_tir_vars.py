# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def tile(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n * m,), "float32")
        for i in range(n * m):
            B[i] = A[i % n]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: T.int64):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.tile, (x,), out_sinfo=R.Tensor((n * k,), "float32"), tir_vars=R.shape([k]))
        return y
