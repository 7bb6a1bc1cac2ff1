# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 1, 2, 2), dtype="float32"), w: R.Tensor((2, 1, 2, 1, 2), dtype="float32")):
        y = R.nn.conv3d_transpose(x, w, strides=[1, 2, 1], output_padding=[0, 1, 0])
        return y
