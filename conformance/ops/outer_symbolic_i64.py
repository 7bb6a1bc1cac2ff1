# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="int64"), z: R.Tensor((3,), dtype="int64")):
        y: R.Tensor((n, 3), dtype="int64") = R.outer(x, z)
        return y
