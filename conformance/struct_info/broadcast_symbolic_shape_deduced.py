@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 1), "float32"), y: R.Tensor((1, "m"), "float32")):
        n = T.int64()
        m = T.int64()
        z: R.Tensor((n, m), "float32") = R.add(x, y)
        w: R.Tensor((n, m), "float32") = R.multiply(z, x)
        return w
