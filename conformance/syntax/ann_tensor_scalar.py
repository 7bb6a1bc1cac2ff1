
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), "float32")) -> R.Tensor((), "float32"):
        y = R.multiply(x, x)
        return y
