@I.ir_module
class Module:
    @R.function(private=True)
    def add2(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        z: R.Tensor((n,), "float32") = cls.add2(x, y)
        return z
