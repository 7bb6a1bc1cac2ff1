@I.ir_module
class Module:
    @T.prim_func(private=True)
    def flatten(a: T.handle, b: T.handle):
        m, n = T.int64(), T.int64()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (m * n,), "float32")
        for i in T.serial(m * n):
            B[i] = A[i // n, i % n]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((5,), "float32"):
        cls = Module
        y = R.call_tir(cls.flatten, (x,), out_ty=R.Tensor((5,), "float32"))
        return y
