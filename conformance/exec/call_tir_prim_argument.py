# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def shift(a: T.handle, k: T.int64, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: T.int64):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x, R.prim_value(k)), out_ty=R.Tensor((n,), "float32"))
        return y
