@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        t: R.Tuple(R.Tensor((n, 2), "float32"), R.Tensor((n, 2), "float32")) = R.split(x, 2, axis=1)
        a: R.Tensor((n, 2), "float32") = t[0]
        b: R.Tensor((n, 2), "float32") = t[1]
        c: R.Tensor((n, 2), "float32") = R.subtract(a, b)
        return c
