@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
        n = T.int64()
        if c:
            y = R.concat((x, x), axis=0)
        else:
            y = x
        z: R.Tensor((n,), "float32") = y
        return z
