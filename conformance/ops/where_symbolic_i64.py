# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((n, 1), dtype="bool"), x: R.Tensor((1, 2), dtype="int64"), z: R.Tensor((n, 2), dtype="int64")):
        y: R.Tensor((n, 2), dtype="int64") = R.where(c, x, z)
        return y
