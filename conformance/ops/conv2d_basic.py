# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 5), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")):
        y: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.conv2d(x, w)
        return y
