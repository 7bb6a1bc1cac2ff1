# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), g: R.Tensor((4,), dtype="float32"), b: R.Tensor((3,), dtype="float32")):
        y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])
        return y
