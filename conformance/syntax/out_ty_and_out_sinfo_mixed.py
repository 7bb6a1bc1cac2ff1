
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in T.serial(T.int64(3)):
            with T.sblock("B"):
                vi = T.axis.spatial(T.int64(3), i)
                B[vi] = A[vi] * T.float32(3.0)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        cls = Module
        a = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((3,), dtype="float32"))
        b = R.call_tir(cls.scale, (a,), out_sinfo=R.Tensor((3,), "float32"))
        return (a, b)
