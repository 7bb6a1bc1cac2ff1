# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

w = TypeVar("w")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((9, 1, w), dtype="float32")):
        y = R.nn.pixel_shuffle(x, upscale_factor=3)
        return y
