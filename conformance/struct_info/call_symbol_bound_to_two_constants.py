@I.ir_module
class Module:
    @R.function(private=True)
    def same(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Module
        z = cls.same(x, y)
        return z
