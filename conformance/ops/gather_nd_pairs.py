# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

k = TypeVar("k")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="int32"), i: R.Tensor((k, 2), dtype="int64")):
        y = R.gather_nd(x, i)
        return y
