@I.ir_module
class Module:
    @R.function
    def double(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, a)
        return c

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
