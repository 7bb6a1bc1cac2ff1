@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("a"):
                vi = T.axis.spatial(4, i)
                a[vi] = a[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        cls = Module
        y = R.call_tir_inplace(cls.inc, (x,), inplace_indices=[0, -1], out_ty=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
        return y
