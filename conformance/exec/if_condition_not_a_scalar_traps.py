# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor(dtype="bool"), x: R.Tensor((2,), "float32")):
        if c:
            y = x
        else:
            y = R.negative(x)
        return y
