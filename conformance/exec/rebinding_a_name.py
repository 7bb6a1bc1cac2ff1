# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.add(x, x)
        y = R.multiply(y, y)
        x = R.subtract(y, x)
        return x
