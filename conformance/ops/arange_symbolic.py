# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32")):
        y: R.Tensor(((n + 2) // 3,), dtype="int64") = R.arange(0, n, 3, dtype="int64")
        return y
