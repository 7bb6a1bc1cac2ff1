# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 6, 5), dtype="float32"), w: R.Tensor((2, 2, 3, 2), dtype="float32")):
        y = R.nn.conv2d(x, w, strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2])
        return y
