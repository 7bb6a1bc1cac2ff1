# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), i: R.Tensor((n,), dtype="int32")):
        y = (R.mean(x), R.mean(i))
        return y
