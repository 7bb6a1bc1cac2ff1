# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, n), dtype="float32"), w: R.Tensor((n + 1, 6), dtype="float32")):
        y = R.matmul(x, w)
        return y
