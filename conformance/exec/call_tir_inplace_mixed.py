# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def both(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32"), C: T.Buffer((3,), "float32")):
        for i in range(3):
            C[i] = A[i] * B[i]
            A[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
        cls = Module
        t = R.call_tir_inplace(cls.both, (x, y), inplace_indices=[-1, 0], out_ty=[R.Tensor((3,), "float32"), R.Tensor((3,), "float32")])
        return t
