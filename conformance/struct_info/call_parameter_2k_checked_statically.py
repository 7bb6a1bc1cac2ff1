@I.ir_module
class Module:
    @R.function(private=True)
    def glue(a: R.Tensor(("k",), "float32"), b: R.Tensor(("2 * k",), "float32")) -> R.Tensor(("3 * k",), "float32"):
        c = R.concat((a, b), axis=0)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 3",), "float32"):
        n = T.int64()
        cls = Module
        xx: R.Tensor((n * 2,), "float32") = R.concat((x, x), axis=0)
        y: R.Tensor((n + n + n,), "float32") = cls.glue(x, xx)
        return y
