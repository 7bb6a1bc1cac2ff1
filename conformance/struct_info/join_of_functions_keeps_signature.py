@I.ir_module
class Module:
    @R.function(private=True)
    def dbl(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        b = R.add(a, a)
        return b

    @R.function(private=True)
    def neg(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        b = R.negative(a)
        return b

    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        if c:
            f = cls.dbl
        else:
            f = cls.neg
        y: R.Tensor((2,), "float32") = f(x)
        return y
