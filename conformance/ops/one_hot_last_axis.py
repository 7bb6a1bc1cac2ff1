# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((n, 2), dtype="int64")):
        y = R.one_hot(i, T.float32(2.5), T.float32(-1.0), depth=4)
        return y
