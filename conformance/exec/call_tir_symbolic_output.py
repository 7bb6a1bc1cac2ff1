# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def repeat2(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n * T.int64(2),), "float32")
        for i in range(n * T.int64(2)):
            B[i] = A[i // T.int64(2)]

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.repeat2, (x,), out_ty=R.Tensor((n * 2,), "float32"))
        return y
