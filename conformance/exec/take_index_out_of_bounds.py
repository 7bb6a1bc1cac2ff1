# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), i: R.Tensor((2,), "int64")):
        y = R.take(x, i, axis=0)
        return y
