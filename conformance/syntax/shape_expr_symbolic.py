
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Shape(ndim=3):
        n = T.int64()
        m = T.int64()
        return R.shape([m, n * 2, n * m + 1])
