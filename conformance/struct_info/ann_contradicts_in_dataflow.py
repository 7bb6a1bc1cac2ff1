@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            z: R.Tensor((4,), "float16") = R.multiply(y, y)
            R.output(z)
        return z
