# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

w = TypeVar("w")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, w), dtype="int32")):
        y = R.nn.adaptive_avg_pool1d(x, output_size=2)
        return y
