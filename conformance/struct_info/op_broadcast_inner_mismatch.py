@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), y: R.Tensor(("n", 3), "float32")):
        y = R.multiply(x, y)
        return y
