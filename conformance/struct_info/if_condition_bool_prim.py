@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
        if k > 2:
            y = R.add(x, x)
        else:
            y = x
        return y
