@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        a: R.Tensor((n, 1), "float32") = R.sum(x, [1], True)
        b: R.Tensor((3,), "float32") = R.max(x, axis=0)
        d: R.Tensor((3, n), "float32") = R.permute_dims(x)
        return (a, b, d)
