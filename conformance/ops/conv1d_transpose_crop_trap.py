# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, n), dtype="float32"), w: R.Tensor((1, 1, 1), dtype="float32")):
        y = R.nn.conv1d_transpose(x, w, padding=1)
        return y
