@I.ir_module
class Module:
    @R.function(pure=False)
    def main(f: R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32"), False), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = f(x)
            R.output(y)
        return y
