# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="int32"), z: R.Tensor((n,), dtype="float32")):
        y: R.Tensor((n, 2), dtype="int32") = R.broadcast_to(x, R.shape([n, 2]))
        return y
