# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, n), dtype="float32"), i: R.Tensor((2,), dtype="int64")):
        y: R.Tensor((2, n), dtype="float32") = R.take(x, i, axis=0)
        return y
