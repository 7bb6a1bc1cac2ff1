
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function(private=True)
    def helper(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.subtract(a, R.const(1.0, "float32"))
        return b

    @R.function(pure=True, private=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        z = R.call_tir(cls.copy, (y,), out_ty=R.Tensor((4,), "float32"))
        return z
