# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def checked(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
        for i in range(3):
            assert A[i] >= T.float32(0), "negative input"
            B[i] = T.sqrt(A[i])

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        y = R.call_tir(cls.checked, (x,), out_ty=R.Tensor((3,), "float32"))
        return y
