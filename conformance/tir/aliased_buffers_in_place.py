# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
        for i in T.serial(7):
            B[i] = A[i]

    @T.prim_func(private=True, s_tir=True)
    def rev(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
        for i in T.serial(7):
            B[i] = A[6 - i]

    @R.function
    def main(x: R.Tensor((7,), "float32")):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((7,), "float32"))
        z = R.call_tir_inplace(cls.rev, (y, y), inplace_indices=[0], out_ty=R.Tensor((7,), "float32"))
        return z
