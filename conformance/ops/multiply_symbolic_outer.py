# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 1), dtype="float32"), z: R.Tensor((1, m), dtype="float32")):
        y: R.Tensor((n, m), dtype="float32") = R.multiply(x, z)
        return y
