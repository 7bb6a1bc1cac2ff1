
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def transpose(a: T.handle, b: T.handle):
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vj, vi]

    @R.function
    def main(x: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        m = T.int64()
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((n, m), "float32"))
        return y
