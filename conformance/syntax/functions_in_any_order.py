
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.second(x)
        return y

    @R.function
    def second(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        b = cls.third(a)
        c = R.add(b, a)
        return c

    @R.function
    def third(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.multiply(a, a)
        return b
