# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4, 0), dtype="float32")):
        y: R.Shape([n, 4, 0]) = R.shape_of(x)
        return y
