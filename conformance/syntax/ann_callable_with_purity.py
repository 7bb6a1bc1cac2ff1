
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def neg(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            b = R.negative(a)
            return b
        g: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32"), True) = neg
        y = g(x)
        return y
