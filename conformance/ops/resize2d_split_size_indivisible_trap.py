# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

a = TypeVar("a")
b = TypeVar("b")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 2, 2, 2), dtype="float32"), s: R.Shape([a, b])):
        y = R.image.resize2d(x, R.shape([a, b]), layout="NCHW2h")
        return y
