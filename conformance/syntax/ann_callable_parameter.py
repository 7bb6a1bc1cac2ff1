
@I.ir_module
class Module:
    @R.function
    def double(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.add(a, a)
        return b

    @R.function
    def apply(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = f(x)
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.apply(cls.double, x)
        return y
