# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((3,), dtype="int32")):
        y = R.one_hot(i, T.float32(1.0), T.float32(0.0), depth=3, axis=2)
        return y
