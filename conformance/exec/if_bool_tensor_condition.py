# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(private=True)
    def double(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return R.add(x, x)

    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        cls = Module
        if c:
            y = cls.double(x)
        else:
            y = R.negative(x)
        return y
