@I.ir_module
class Module:
    @R.function(private=True)
    def add2(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor((5,), "float32")):
        cls = Module
        y = cls.add2(x, x)
        return y
