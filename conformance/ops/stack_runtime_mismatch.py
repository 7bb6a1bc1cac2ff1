# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((n,), dtype="float32"), b: R.Tensor((m,), dtype="float32")):
        y = R.stack((a, b))
        return y
