# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4, 4), dtype="float32"), w: R.Tensor((2, 8, 3, 3, 4), dtype="float32")):
        y = R.nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c")
        return y
