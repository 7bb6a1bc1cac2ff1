@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def inner(y) -> R.Tensor((4,), "float32"):
            return y
        z = inner(x)
        return z
