@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        @R.function
        def twice(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            z = R.add(y, y)
            return z
        w = twice(x, x)
        return w
