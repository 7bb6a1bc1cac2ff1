
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n + m",), "float32"):
        z = R.concat((x, y), axis=0)
        return z
