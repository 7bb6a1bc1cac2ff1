@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        if c:
            y = R.concat((x, x), axis=0)
        else:
            y = R.reshape(R.broadcast_to(x, R.shape([2, n])), R.shape([2 * n]))
        z: R.Tensor((n * 2,), "float32") = y
        return z
