# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), O: T.Buffer((4,), "float32"), P: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            O[i] = A[i] * B[i] + C[i]
            P[i] = A[i] + T.float32(100000000) - T.float32(100000000)

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32"), z: R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir(cls.f, (x, y, z), out_ty=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
        return y
