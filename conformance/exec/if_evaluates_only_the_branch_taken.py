# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
        if c:
            y = x
        else:
            z = R.match_cast(x, R.Tensor((99,), "float32"))
            y = R.add(z, z)
        return y
