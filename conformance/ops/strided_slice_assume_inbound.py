# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32")):
        y: R.Tensor((n - 2, 2), dtype="float32") = R.strided_slice(x, (0,), (1,), (n - 1,), assume_inbound=True)
        return y
