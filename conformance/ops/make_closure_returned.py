# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def inner(a: R.Tensor((2, 3), dtype="float32"), c: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        s = R.subtract(a, c)
        return s

    @R.function(private=True)
    def outer(c: R.Tensor((2, 3), dtype="float32")) -> R.Any:
        cls = Module
        g = R.make_closure(cls.inner, (c,))
        return g

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        g = cls.outer(y)
        r = R.invoke_pure_closure(g, (x,), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        return r
