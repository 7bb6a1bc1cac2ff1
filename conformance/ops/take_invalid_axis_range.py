# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 3), dtype="float32"), i: R.Tensor((2,), dtype="int64")):
        y = R.take(x, i, axis=2)
        return y
