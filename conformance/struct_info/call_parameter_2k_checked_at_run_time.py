@I.ir_module
class Module:
    @R.function(private=True)
    def glue(a: R.Tensor(("k",), "float32"), b: R.Tensor(("2 * k",), "float32")) -> R.Tensor(("3 * k",), "float32"):
        c = R.concat((a, b), axis=0)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("j",), "float32")) -> R.Tensor(("n * 3",), "float32"):
        cls = Module
        z = cls.glue(x, y)
        return z
