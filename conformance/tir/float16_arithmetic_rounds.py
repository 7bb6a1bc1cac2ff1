# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "float16"), C: T.Buffer((4,), "float16")):
        for i in T.serial(4):
            C[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((4,), "float16"), y: R.Tensor((4,), "float16")):
        cls = Module
        y = R.call_tir(cls.f, (x, y), out_ty=R.Tensor((4,), "float16"))
        return y
