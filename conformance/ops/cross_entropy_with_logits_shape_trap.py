# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

a = TypeVar("a")
b = TypeVar("b")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, a), dtype="float32"), l: R.Tensor((2, b), dtype="float32")):
        y = R.nn.cross_entropy_with_logits(x, l)
        return y
