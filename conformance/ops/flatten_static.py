# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 2), dtype="int32")):
        y: R.Tensor((12,), dtype="int32") = R.flatten(x)
        return y
