# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 2), dtype="int64")):
        y: R.Tensor((2, 2, 6), dtype="int64") = R.tile(x, repeats=[3])
        return y
