
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fill(k: T.int64, B: T.Buffer((3,), "int64")):
        for i in T.serial(3):
            with T.sblock("B"):
                vi = T.axis.spatial(3, i)
                B[vi] = k * T.int64(10) + T.Cast("int64", vi)

    @R.function
    def main(k: T.int64) -> R.Tensor((3,), "int64"):
        cls = Module
        y = R.call_tir(cls.fill, (R.prim_value(k),), out_ty=R.Tensor((3,), "int64"))
        return y
