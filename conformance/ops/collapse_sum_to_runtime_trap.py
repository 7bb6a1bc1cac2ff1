# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), s: R.Shape(ndim=2)):
        y = R.collapse_sum_to(x, s)
        return y
