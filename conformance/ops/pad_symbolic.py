# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), dtype="float32")):
        y: R.Tensor((n + 2, 3), dtype="float32") = R.nn.pad(x, pad_width=[1, 1, 0, 1])
        return y
