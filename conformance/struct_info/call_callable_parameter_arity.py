@I.ir_module
class Module:
    @R.function
    def main(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32")), x: R.Tensor((4,), "float32")):
        y = f(x, x)
        return y
