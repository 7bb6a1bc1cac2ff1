# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32"), i: R.Tensor((n, 2), dtype="int32")):
        y = (R.sum(x, axis=[0]), R.prod(i, axis=[0]), R.mean(x, axis=[0]))
        return y
