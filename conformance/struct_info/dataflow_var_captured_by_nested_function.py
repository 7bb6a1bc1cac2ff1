@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            @R.function
            def f(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                z = R.add(y, a)
                return z
            b = f(x)
            R.output(b)
        return b
