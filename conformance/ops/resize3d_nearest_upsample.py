# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1, 2, 2, 2), dtype="float32")):
        y = R.image.resize3d(x, R.shape([4, 2, 6]), method="nearest_neighbor", coordinate_transformation_mode="asymmetric")
        return y
