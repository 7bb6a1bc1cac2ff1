
@I.ir_module
class Loop:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: R.Prim("int64")) -> R.Tensor((3,), "float32"):
        cls = Loop
        if k <= 0:
            r = x
        else:
            y = R.multiply(x, R.const(2.0, "float32"))
            r = cls.main(y, R.prim_value(k - 1))
        return r
