# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), k: T.int64):
        @R.function
        def countdown(y: R.Tensor((2,), "float32"), j: T.int64) -> R.Tensor((2,), "float32"):
            if j <= 0:
                r = y
            else:
                z = R.multiply(y, R.const(2.0, "float32"))
                r = countdown(z, R.prim_value(j - 1))
            return r

        out = countdown(x, k)
        return out
