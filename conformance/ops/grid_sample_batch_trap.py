# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1, 2, 2), dtype="float32"), g: R.Tensor((m, 2, 1, 1), dtype="float32")):
        y = R.image.grid_sample(x, g)
        return y
