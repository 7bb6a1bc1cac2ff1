@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
        n = T.int64()
        if c:
            y = (x, R.shape([n, 2]))
        else:
            y = (R.negative(x), R.shape([n, 2]))
        z: R.Tuple(R.Tensor((n,), "float32"), R.Shape([n, 2])) = y
        return z
