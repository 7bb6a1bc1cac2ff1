@I.ir_module
class Module:
    @R.function(private=True)
    def need4(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return a

    @R.function
    def main(x: R.Object) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.need4(x)
        return y
