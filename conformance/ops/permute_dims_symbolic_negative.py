# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m, 2), dtype="int64")):
        y: R.Tensor((n, 2, m), dtype="int64") = R.permute_dims(x, axes=[0, -1, -2])
        return y
