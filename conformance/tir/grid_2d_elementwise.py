# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32"), C: T.Buffer((3, 4), "float32")):
        for i, j in T.grid(3, 4):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2)

    @R.function
    def main(x: R.Tensor((3, 4), "float32"), w: R.Tensor((3, 4), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, w), out_ty=R.Tensor((3, 4), "float32"))
        return y
