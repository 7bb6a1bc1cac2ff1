# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def add_c(x1: R.Tensor((2, 3), dtype="float32"), c1: R.Tensor((2, 3), dtype="float32"), c2: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        s = R.add(x1, c1)
        t = R.multiply(s, c2)
        return t

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32"), z: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        f = R.make_closure(cls.add_c, (y, z))
        r = R.invoke_pure_closure(f, x, ty_args=(R.Tensor((2, 3), dtype="float32"),))
        return r
