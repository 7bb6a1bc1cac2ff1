# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        with T.attr(0, "pragma_note", 1):
            for i in range(4):
                B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
