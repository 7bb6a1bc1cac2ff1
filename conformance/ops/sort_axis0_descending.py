# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 2), dtype="int64")):
        y = R.sort(x, axis=0, descending=True)
        return y
