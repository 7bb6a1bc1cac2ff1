# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")):
        if c:
            t = (x, R.prim_value(1))
        else:
            t = (R.negative(x), R.prim_value(0))
        return t
