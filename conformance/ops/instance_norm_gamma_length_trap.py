# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

c = TypeVar("c")
k = TypeVar("k")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, c, 4), dtype="float32"), g: R.Tensor((k,), dtype="float32"), b: R.Tensor((c,), dtype="float32")):
        y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])
        return y
