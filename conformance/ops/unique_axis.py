# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), dtype="int64")):
        y = R.unique(x, True, False, True, False, 0)
        return y
