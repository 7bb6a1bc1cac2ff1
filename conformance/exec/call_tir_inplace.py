# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def accumulate(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Module
        z = R.call_tir_inplace(cls.accumulate, (x, y), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
        return z
