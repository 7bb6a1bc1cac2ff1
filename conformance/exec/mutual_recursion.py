# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def is_even(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
        cls = Module
        if k == 0:
            r = x
        else:
            r = cls.is_odd(x, R.prim_value(k - 1))
        return r

    @R.function
    def is_odd(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
        cls = Module
        if k == 0:
            r = R.negative(x)
        else:
            r = cls.is_even(x, R.prim_value(k - 1))
        return r

    @R.function
    def main(x: R.Tensor((2,), "float32"), k: T.int64) -> R.Tensor((2,), "float32"):
        cls = Module
        r = cls.is_even(x, k)
        return r
