# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), k: T.int64):
        R.assert_op(k > 0, [R.prim_value(k)], format="k must be positive, got {}")
        y = R.add(x, x)
        return y
