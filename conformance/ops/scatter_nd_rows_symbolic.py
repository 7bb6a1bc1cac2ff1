# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), i: R.Tensor((2, 1), dtype="int64"), u: R.Tensor((2, 3), dtype="float32")):
        y = R.scatter_nd(x, i, u)
        return y
