# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

c = TypeVar("c")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, c, 3, 3), dtype="float32"), w: R.Tensor((1, 2, 2, 2), dtype="float32")):
        y = R.nn.conv2d(x, w)
        return y
