# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 3), dtype="float32"), i: R.Tensor((3, 2), dtype="int32")):
        y: R.Tensor((4, 3, 2), dtype="float32") = R.take(x, i, axis=1)
        return y
