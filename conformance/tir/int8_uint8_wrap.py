# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((4,), "int8"), B: T.Buffer((4,), "int8"), C: T.Buffer((4,), "uint8"), D: T.Buffer((4,), "uint8"), S: T.Buffer((4,), "int8"), U: T.Buffer((4,), "uint8")):
        for i in T.serial(4):
            S[i] = A[i] + B[i]
            U[i] = C[i] * D[i]

    @R.function
    def main(a: R.Tensor((4,), "int8"), b: R.Tensor((4,), "int8"), c: R.Tensor((4,), "uint8"), d: R.Tensor((4,), "uint8")):
        cls = Module
        y = R.call_tir(cls.f, (a, b, c, d), out_ty=[R.Tensor((4,), "int8"), R.Tensor((4,), "uint8")])
        return y
