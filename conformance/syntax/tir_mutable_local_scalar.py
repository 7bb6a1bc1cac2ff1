@I.ir_module
class Module:
    @T.prim_func(private=True)
    def running_sum(A: T.Buffer((4,), "float32"), B: T.Buffer((1,), "float32")):
        acc: T.float32 = T.float32(0)
        for k in range(4):
            acc += A[k]
        B[0] = acc

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.running_sum, (x,), out_ty=R.Tensor((1,), dtype="float32"))
        return y
