# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((n, 3), dtype="float32"), b: R.Tensor((n, 3), dtype="float32")):
        y = R.stack((a, b, a), axis=1)
        return y
