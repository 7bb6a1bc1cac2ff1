# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1, 2, 3, 2), dtype="float32")):
        y = R.image.resize2d(x, R.shape([6, 5]), layout="NCHW2h")
        return y
