# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), dtype="int32"), b: R.Tensor((3,), dtype="int32"), c: R.Tensor((3,), dtype="int32")):
        y = R.ewise_fma(a, b, c)
        return y
