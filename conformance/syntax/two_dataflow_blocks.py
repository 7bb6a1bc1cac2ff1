
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        b = R.multiply(a, x)
        with R.dataflow():
            c = R.subtract(b, a)
            d = R.negative(c)
            R.output(d)
        return d
