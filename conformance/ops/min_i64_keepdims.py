# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="int64")):
        y = R.min(x, axis=[0], keepdims=True)
        return y
