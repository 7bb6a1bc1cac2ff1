
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        @R.function
        def scale(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            @R.function
            def inner(b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                c = R.multiply(b, w)
                return c
            d = inner(a)
            e = R.add(d, x)
            return e
        y = scale(x)
        z = scale(y)
        return z
