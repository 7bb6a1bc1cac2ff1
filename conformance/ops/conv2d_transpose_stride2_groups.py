# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 3, 2), dtype="float32"), w: R.Tensor((4, 1, 3, 2), dtype="float32")):
        y = R.nn.conv2d_transpose(x, w, strides=2, padding=[1, 0, 0, 1], output_padding=[1, 0], groups=2)
        return y
