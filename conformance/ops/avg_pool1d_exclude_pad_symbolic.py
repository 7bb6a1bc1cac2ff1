# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

w = TypeVar("w")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, w), dtype="float32")):
        y = R.nn.avg_pool1d(x, pool_size=2, padding=[1, 1])
        return y
