# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

d = TypeVar("d")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, d, 2, 2), dtype="float32")):
        y = R.nn.max_pool3d(x, pool_size=[3, 1, 1])
        return y
