# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4, 2), dtype="float32"), g: R.Tensor((2,), dtype="float32"), b: R.Tensor((2,), dtype="float32")):
        y = R.nn.instance_norm(x, g, b, channel_axis=-1, axes=[1], epsilon=0.01)
        return y
