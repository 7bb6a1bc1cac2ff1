@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            if c:
                y = R.add(x, x)
            else:
                y = R.multiply(x, x)
            R.output(y)
        return y
