# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2, 3, 4, 4), dtype="float32"), g: R.Tensor((n, 2, 2, 3), dtype="float32")):
        y = R.image.grid_sample(x, g, layout="NCHW4c", align_corners=True)
        return y
