# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), dtype="int8"), w: R.Tensor((2, 2, 2, 2), dtype="int8")):
        y = R.nn.conv2d(x, w)
        return y
