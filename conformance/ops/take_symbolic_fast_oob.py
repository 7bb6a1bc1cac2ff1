# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), i: R.Tensor((m,), dtype="int64")):
        y: R.Tensor((m, 3), dtype="float32") = R.take(x, i, axis=0)
        return y
