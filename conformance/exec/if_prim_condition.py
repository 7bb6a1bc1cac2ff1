# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: T.int64) -> R.Tensor((3,), "float32"):
        if k > 0:
            y = R.multiply(x, R.const(2.0, "float32"))
        else:
            y = R.subtract(x, R.const(1.0, "float32"))
        return y
