# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

k = TypeVar("k")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, k), dtype="float32"), w: R.Tensor((k, 3), dtype="float32")):
        y = R.matmul(x, w)
        return y
