
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def rev(A: T.Buffer((n,), "int32"), B: T.Buffer((n,), "int32")):
        for i in T.serial(n):
            with T.sblock("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[n - 1 - vi]

    @R.function
    def main(x: R.Tensor((n,), "int32")) -> R.Tensor((n,), "int32"):
        cls = Module
        y = R.call_tir(cls.rev, (x,), out_ty=R.Tensor((n,), "int32"))
        return y
