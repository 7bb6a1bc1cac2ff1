# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
h = TypeVar("h")
w = TypeVar("w")
@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((n, 2, 2, 2), dtype="float32"), x: R.Tensor((n, 2, h, w), dtype="float32")):
        y = R.grad.max_pool2d_backward(g, x, pool_size=(2, 2), strides=(2, 2))
        return y
