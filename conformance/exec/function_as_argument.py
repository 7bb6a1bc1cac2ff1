# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(private=True)
    def double(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return R.add(x, x)

    @R.function(private=True)
    def apply_twice(f: R.Callable([R.Tensor((3,), "float32")], R.Tensor((3,), "float32")), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = f(x)
        z = f(y)
        return z

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        r = cls.apply_twice(cls.double, x)
        return r
