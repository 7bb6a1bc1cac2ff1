
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def stmts(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
        for i in T.parallel(2):
            for j in T.vectorized(2):
                B[i * 2 + j] = A[i * 2 + j] + 1
        for i in T.unroll(2):
            t: T.int32 = A[i + 4] * 3
            B[i + 4] = t
        for i in range(6, 8):
            if A[i] > 0:
                B[i] = A[i]
            elif A[i] == 0:
                B[i] = 100
            else:
                B[i] = 0 - A[i]

    @R.function
    def main(x: R.Tensor((8,), "int32")) -> R.Tensor((8,), "int32"):
        cls = Module
        y = R.call_tir(cls.stmts, (x,), out_ty=R.Tensor((8,), "int32"))
        return y
