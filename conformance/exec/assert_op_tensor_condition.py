# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        c = R.greater(R.sum(x), R.const(0.0, "float32"))
        R.assert_op(c, format="the sum must be positive")
        return x
