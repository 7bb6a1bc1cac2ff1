
@I.ir_module
class Module:
    @T.prim_func
    def neg(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"tir.noalias": True, "op_pattern": 0, "global_symbol": "neg"})
        for i in range(4):
            B[i] = T.float32(0) - A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.neg, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
