# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

h = TypeVar("h")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, h, 2), dtype="float32"), w: R.Tensor((2, 2, 2, 2), dtype="float32")):
        y = R.nn.conv2d_transpose(x, w, dilation=[2, 1])
        return y
