# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 2, 3, 3), dtype="float32"), w: R.Tensor((2, 2, 2, 1, 2), dtype="float32")):
        y = R.nn.conv3d(x, w, padding=[0, 1, 1], groups=2)
        return y
