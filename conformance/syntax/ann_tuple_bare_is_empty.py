
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple, x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
