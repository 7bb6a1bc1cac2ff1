# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float32"), k: T.int64, B: T.Buffer((4,), "float32")):
        assert k % T.int64(2) == T.int64(0), ("RuntimeError", ["shape_mismatch: ", "k must be even"])
        assert k < T.int64(10), ("ValueError", ["k must be below 10"])
        for i in range(4):
            B[i] = A[i] + T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor((4,), "float32"), k: T.int64):
        cls = Module
        y = R.call_tir(cls.f, (x, R.prim_value(k)), out_ty=R.Tensor((4,), "float32"))
        return y
