# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

h = TypeVar("h")
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((1, 2, 3), dtype="float32"), s: R.Shape([h, 3])):
        y = R.image.affine_grid(t, R.shape([h, 3]))
        return y
