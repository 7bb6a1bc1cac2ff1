# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
        if k > 0:
            if k > 10:
                z = R.multiply(x, R.const(100.0, "float32"))
            else:
                z = R.multiply(x, R.const(10.0, "float32"))
            y = z
        else:
            y = R.negative(x)
        return y
