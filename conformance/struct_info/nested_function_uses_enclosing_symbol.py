@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        @R.function
        def inner(y: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
            z = R.multiply(y, y)
            return z
        w: R.Tensor((n,), "float32") = inner(x)
        return w
