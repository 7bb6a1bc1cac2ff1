# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mystery(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
        for i in range(2):
            B[i] = T.call_pure_extern("float32", "relax_ref_no_such_function", A[i])

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        cls = Module
        y = R.call_tir(cls.mystery, (x,), out_ty=R.Tensor((2,), "float32"))
        return y
