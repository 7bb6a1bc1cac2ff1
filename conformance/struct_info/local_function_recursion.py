@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
        @R.function
        def loop(y: R.Tensor((3,), "float32"), j: T.int64) -> R.Tensor((3,), "float32"):
            if j <= 0:
                r = y
            else:
                z = R.add(y, y)
                r = loop(z, R.prim_value(j - 1))
            return r
        w: R.Tensor((3,), "float32") = loop(x, R.prim_value(k))
        return w
