# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((m,), dtype="float32"), z: R.Tensor((n,), dtype="float32")):
        y = R.broadcast_to(x, R.shape([2, n]))
        return y
