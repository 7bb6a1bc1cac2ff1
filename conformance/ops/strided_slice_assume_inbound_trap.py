# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), b: R.Prim("int64")):
        y = R.strided_slice(x, (0,), (b,), (4,), assume_inbound=True)
        return y
