@I.ir_module
class Module:
    @R.function(pure=False)
    def effect(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.print(x, format="{}")
        return x

    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in T.serial(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                b[vi] = a[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        a = R.add(x, x)
        p = R.call_packed("my_func", a, sinfo_args=R.Tensor((4,), "float32"))
        return a
