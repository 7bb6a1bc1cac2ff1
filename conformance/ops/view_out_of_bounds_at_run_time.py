# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32")):
        y = R.memory.view(x, R.shape([4]), R.dtype("float32"), 12)
        return y
