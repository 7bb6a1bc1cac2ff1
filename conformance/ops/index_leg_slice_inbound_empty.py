# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
m = TypeVar("m")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")):
        y: R.Tensor((2, m), dtype="float32") = R.strided_slice(x, (0,), (1,), (3,), assume_inbound=True)
        return y
