# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="int32"), w: R.Tensor((3, 2, 2), dtype="int32")):
        y = R.nn.conv1d_transpose(x, w, strides=3, padding=[1, 0], output_padding=2)
        return y
