@I.ir_module
class Module:
    @R.function(private=True)
    def twice(a: R.Tensor(("k",), "float32")):
        b = R.concat((a, a), axis=0)
        return b

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("2 * n",), "float32"):
        n = T.int64()
        cls = Module
        y: R.Tensor((n * 2,), "float32") = cls.twice(x)
        return y
