# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="int32")):
        y: R.Tensor((2, 6), dtype="int32") = R.repeat(x, repeats=2, axis=1)
        return y
