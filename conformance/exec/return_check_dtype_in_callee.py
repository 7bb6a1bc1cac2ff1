# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(private=True)
    def f(y: R.Tensor((3,))) -> R.Tensor((3,), "float32"):
        return y

    @R.function
    def main(x: R.Tensor((3,))):
        cls = Module
        r = cls.f(x)
        return r
