# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 4, 2), dtype="float32"), w: R.Tensor((2, 2, 2, 3), dtype="float32")):
        y: R.Tensor((1, 3, 3, 3), dtype="float32") = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")
        return y
