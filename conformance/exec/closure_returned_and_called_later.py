# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(private=True)
    def make_adder(c: R.Tensor((2,), "float32")) -> R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")):
        @R.function
        def adder(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            z = R.add(y, c)
            return z

        return adder

    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "float32")):
        cls = Module
        f = cls.make_adder(a)
        g = cls.make_adder(b)
        r = f(b)
        s = g(r)
        return s
