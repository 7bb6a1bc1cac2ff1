# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), dtype="int32"), b: R.Tensor((2,), dtype="int32")):
        y = R.bucketize(x, b, out_int32=True)
        return y
