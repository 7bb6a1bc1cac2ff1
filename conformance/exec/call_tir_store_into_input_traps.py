# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.increment_input, (x,), out_ty=R.Tensor((4,), "float32"))
        z = R.add(x, y)
        return z

    @T.prim_func(private=True, s_tir=True)
    def increment_input(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + T.float32(1)
            B[i] = A[i]
