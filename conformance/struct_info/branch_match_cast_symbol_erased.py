@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        m = T.int64()
        if c:
            y1 = R.match_cast(x, R.Tensor((m,), "float32"))
            y2: R.Tensor((m,), "float32") = R.add(y1, y1)
            y = y2
        else:
            y = R.negative(x)
        z: R.Tensor(ndim=1, dtype="float32") = y
        return z
