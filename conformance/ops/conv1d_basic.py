# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 7), dtype="float32"), w: R.Tensor((3, 2, 3), dtype="float32")):
        y: R.Tensor((1, 3, 5), dtype="float32") = R.nn.conv1d(x, w)
        return y
