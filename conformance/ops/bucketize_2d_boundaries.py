# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), b: R.Tensor((2, 2), dtype="float32")):
        y = R.bucketize(x, b)
        return y
