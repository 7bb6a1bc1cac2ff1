# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 5, 2), dtype="float32"), l: R.Tensor((m,), dtype="int64")):
        y = R.reverse_sequence(x, l)
        return y
