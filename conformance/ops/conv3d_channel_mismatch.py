# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 2, 2, 2), dtype="float32"), w: R.Tensor((2, 2, 1, 1, 1), dtype="float32")):
        y = R.nn.conv3d(x, w)
        return y
