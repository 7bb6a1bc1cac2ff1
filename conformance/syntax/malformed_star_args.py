n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
            z: R.Tensor((n, 4), dtype="float32") = R.add(*y)
            R.output(z)
        return z
