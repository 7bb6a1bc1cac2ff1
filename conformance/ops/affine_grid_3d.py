# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((n, 3, 4), dtype="float32")):
        y = R.image.affine_grid(t, R.shape([2, 3, 2]), align_corners=False)
        return y
