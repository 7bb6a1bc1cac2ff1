# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), v: R.Tensor((), dtype="int64")):
        y: R.Tensor((n, 3), dtype="int64") = R.full(R.shape([n, 3]), v)
        return y
