# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

b = TypeVar("b")
c = TypeVar("c")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((b, 2, 2), dtype="float32"), w: R.Tensor((c, 2, 2), dtype="float32")):
        y = R.matmul(x, w)
        return y
