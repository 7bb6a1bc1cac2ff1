# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="int64"), z: R.Tensor((n,), dtype="int64")):
        y: R.Tensor((n,), dtype="bool") = R.equal(x, z)
        return y
