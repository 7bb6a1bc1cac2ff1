@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        z: R.Tensor((n, 4), "float32") = y
        return z
