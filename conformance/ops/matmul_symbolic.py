# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
k = TypeVar("k")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, k), dtype="float32"), w: R.Tensor((k, m), dtype="float32")):
        y: R.Tensor((n, m), dtype="float32") = R.matmul(x, w)
        return y
