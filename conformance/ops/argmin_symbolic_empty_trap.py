# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="int64")):
        y: R.Tensor((3,), dtype="int64") = R.argmin(x, axis=0)
        return y
