@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        y: R.Tensor((n * 4,), "float32") = R.reshape(x, R.shape([-1]))
        s: R.Shape([n * 4]) = R.shape_of(y)
        return (y, s)
