# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 3), dtype="float32"), g: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")):
        y = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[1, 2])
        return y
