# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
        C = T.alloc_buffer((2, 4))
        for i, j in T.grid(2, 4):
            with T.block("sq"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * A[vi, vj]
        for i, j in T.grid(2, 4):
            with T.block("out"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.block_attr({"note": 1})
                B[vi, vj] = C[vi, vj] - A[vi, vj]

    @R.function
    def main(x: R.Tensor((2, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((2, 4), "float32"))
        return y
