# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5), dtype="float32"), w: R.Tensor((4, 2, 2), dtype="float32")):
        y = R.nn.conv1d(x, w, groups=2)
        return y
